"""A SavedModel directory's files: ``saved_model.pb`` (or ``.pbtxt``), ``variables/``, ``assets/``.

    saved_model = read_saved_model("export/1")          # the SavedModel proto
    meta_graph = find_meta_graph(saved_model, ["serve"], "export/1")
    variables_prefix("export/1")                          # "export/1/variables/variables"

Bad input is a tinytf error naming the file: NotFoundError for a missing file or tag-set (with a
hint when the directory is an old-style export or a TensorFlow Serving base path), DataLossError
for a file that does not parse.
"""
from __future__ import annotations

import os

from tinytf.errors import DataLossError, NotFoundError

SAVED_MODEL_PB = "saved_model.pb"
SAVED_MODEL_PBTXT = "saved_model.pbtxt"
VARIABLES_DIR = "variables"
VARIABLES_FILE = "variables"
ASSETS_DIR = "assets"
SERVING = "serve"


def _hint(export_dir: str) -> str:
    try:
        entries = sorted(os.listdir(export_dir))
    except OSError:
        return f" (no directory {export_dir})"
    if "export.meta" in entries or any(e.endswith(".meta") for e in entries):
        meta = next(e for e in entries if e.endswith(".meta"))
        return (f"; it holds {meta} and a checkpoint: an old-style (pre-SavedModel) export, which tinytf does "
                f"not load (TensorFlow reads it with tf.compat.v1.train.import_meta_graph)")
    versions = [e for e in entries if e.isdigit() and os.path.isdir(os.path.join(export_dir, e))]
    if versions:
        return (f"; it holds version folders {', '.join(versions)} (a TensorFlow Serving base path): load "
                f"{os.path.join(export_dir, versions[-1])}")
    return f"; it holds {', '.join(entries[:8]) or 'nothing'}"


def saved_model_path(export_dir) -> str:
    export_dir = os.fspath(export_dir)
    for name in (SAVED_MODEL_PBTXT, SAVED_MODEL_PB):
        path = os.path.join(export_dir, name)
        if os.path.isfile(path):
            return path
    raise NotFoundError(f"SavedModel file does not exist at: {export_dir}/{{{SAVED_MODEL_PBTXT}|{SAVED_MODEL_PB}}}"
                        + _hint(export_dir))


def read_saved_model(export_dir):
    """The SavedModel proto of a directory; NotFoundError / DataLossError naming the file."""
    from tinytf.formats import protos

    path = saved_model_path(export_dir)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise NotFoundError(f"cannot read {path}: {err.strerror}") from None
    if path.endswith(".pbtxt"):
        try:
            saved_model = protos.parse_text(protos.SavedModel, data.decode("utf-8"), path)
        except UnicodeDecodeError:
            raise DataLossError(f"{path}: a text SavedModel must be UTF-8") from None
    else:
        saved_model = protos.parse(protos.SavedModel, data, path)
    if not saved_model.meta_graphs:
        raise DataLossError(f"{path}: the SavedModel holds no MetaGraphDef (a truncated or empty file?)")
    return saved_model


def tag_sets(saved_model) -> list[list[str]]:
    return [list(mg.meta_info_def.tags) for mg in saved_model.meta_graphs]


def find_meta_graph(saved_model, tags, export_dir: str = ""):
    """The MetaGraphDef whose tag-set is ``tags`` (a list, or "serve,gpu"); the only one when ``tags`` is
    None; NotFoundError listing the tag-sets there are otherwise."""
    graphs = list(saved_model.meta_graphs)
    if tags is None:
        if len(graphs) == 1:
            return graphs[0]
        serving = [mg for mg in graphs if set(mg.meta_info_def.tags) == {SERVING}]
        if len(serving) == 1:
            return serving[0]
        tags = [SERVING]
    if isinstance(tags, str):
        tags = [t for t in tags.split(",") if t]
    for mg in graphs:
        if set(mg.meta_info_def.tags) == set(tags):
            return mg
    available = "; ".join(repr(",".join(t)) for t in tag_sets(saved_model))
    raise NotFoundError(f"MetaGraphDef associated with tag-set {','.join(tags)!r} could not be found in the "
                        f"SavedModel {export_dir} (its tag-sets: {available})")


def variables_prefix(export_dir) -> str:
    return os.path.join(os.fspath(export_dir), VARIABLES_DIR, VARIABLES_FILE)


def checkpoint_reader(export_dir, needed: list[str]):
    """The variables checkpoint of a SavedModel, or None when it holds no variables (``needed`` empty);
    NotFoundError naming what is missing when variables need values but ``variables/`` is absent."""
    from tinytf.formats.tensor_bundle import index_path
    from tinytf.train import CheckpointReader

    prefix = variables_prefix(export_dir)
    if not os.path.isfile(index_path(prefix)):
        if not needed:
            return None
        shown = ", ".join(needed[:5]) + (", ..." if len(needed) > 5 else "")
        raise NotFoundError(f"SavedModel {os.fspath(export_dir)} has {len(needed)} variable"
                            f"{'s' if len(needed) > 1 else ''} ({shown}) but no checkpoint: "
                            f"{index_path(prefix)} is missing")
    return CheckpointReader(prefix)


def asset_path(export_dir, filename: str) -> bytes:
    """The path an asset's placeholder is fed with (TensorFlow feeds it whether or not the file exists)."""
    return os.path.join(os.fspath(export_dir), ASSETS_DIR, filename).encode()
