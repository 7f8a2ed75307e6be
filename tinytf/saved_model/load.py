"""``tt.saved_model.load``: a SavedModel directory as a callable object, without TensorFlow.

    obj = tt.saved_model.load("saved_model_half_plus_two_cpu/00000123")
    obj.signatures["serving_default"](x=np.array([[1.0]], np.float32))   # {"y": <tt.Tensor [[2.5]]>}

A TF2 SavedModel (one with a SavedObjectGraph) loads through its object graph
(``object_graph.py``); a TF1 one through its SignatureDefs over its GraphDef (``signature_defs.py``).
Everything is imported and checked at load: an op tinytf lacks is one UnimplementedError naming
every missing op and its nodes; a missing or corrupt file is NotFoundError / DataLossError naming it.
"""
from __future__ import annotations

import os

from tinytf.saved_model import reader
from tinytf.saved_model.loaded import LoadedSavedModel


def is_tf2(meta_graph) -> bool:
    return meta_graph.HasField("object_graph_def") and len(meta_graph.object_graph_def.nodes) > 0


def load(export_dir, tags=None, backend: str = "graph", options=None) -> LoadedSavedModel:
    """Load the MetaGraphDef of ``export_dir`` tagged ``tags`` (a list or "serve,gpu"; the only one, or
    "serve", when None). ``backend``: "graph" (tinytf's executor) or "xla" (compiled by XLA)."""
    export_dir = os.fspath(export_dir)
    saved_model = reader.read_saved_model(export_dir)
    meta_graph = reader.find_meta_graph(saved_model, tags, export_dir)
    tags = list(meta_graph.meta_info_def.tags)
    version = meta_graph.meta_info_def.tensorflow_version
    if is_tf2(meta_graph):
        from tinytf.saved_model.object_graph import ObjectGraph

        root = LoadedSavedModel(export_dir, tags, None, {}, [], version)
        graph = ObjectGraph(export_dir, meta_graph, root, backend)
        root._runner = graph.runner
        root.variables = list(graph.variables.values())
        return root
    from tinytf.saved_model.signature_defs import GraphSession

    session = GraphSession(export_dir, meta_graph, backend)
    return LoadedSavedModel(export_dir, tags, session.runner, session.signatures, list(session.variables.values()),
                            version)


def contains_saved_model(export_dir) -> bool:
    """Whether ``export_dir`` holds a ``saved_model.pb`` or ``saved_model.pbtxt``."""
    export_dir = os.fspath(export_dir)
    return any(os.path.isfile(os.path.join(export_dir, f)) for f in (reader.SAVED_MODEL_PB, reader.SAVED_MODEL_PBTXT))
