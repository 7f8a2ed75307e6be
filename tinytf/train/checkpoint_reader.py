"""Read checkpoints with TensorFlow's API: ``tt.train.load_checkpoint``, ``list_variables``,
``latest_checkpoint``, ``get_checkpoint_state``.

    >>> reader = tt.train.load_checkpoint("export/variables/variables")   # a prefix, or a directory
    >>> reader.get_tensor("a")                                             # with a `checkpoint` file
    array(0.5, dtype=float32)
    >>> reader.get_variable_to_shape_map()
    {'a': [], 'b': [], 'c': []}
    >>> tt.train.list_variables("export/variables/variables")
    [('a', []), ('b', []), ('c', [])]
    >>> tt.train.latest_checkpoint("training_dir")                         # from its `checkpoint` file
    'training_dir/ckpt-3'

The files are TensorFlow's tensor bundles (``tinytf/formats/tensor_bundle.py``); no TensorFlow is
needed. Bad input raises ``tinytf.errors``: NotFoundError for a missing checkpoint or key,
DataLossError for a corrupt one.
"""
from __future__ import annotations

import os

import numpy as np

from tinytf.dtypes import DType
from tinytf.errors import NotFoundError, OpError
from tinytf.formats.tensor_bundle import BundleReader, index_path

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"  # TF2 checkpoints: a serialized TrackableObjectGraph
CHECKPOINT_STATE_FILE = "checkpoint"


class CheckpointReader:
    """The variables of one checkpoint (``tf.train.load_checkpoint``'s ``CheckpointReader``)."""

    def __init__(self, prefix):
        self._bundle = BundleReader(prefix)
        self.prefix = self._bundle.prefix

    def get_tensor(self, tensor_str: str) -> np.ndarray:
        """The value saved under ``tensor_str`` (NotFoundError if the checkpoint lacks it)."""
        return self._bundle.get_tensor(tensor_str)

    def has_tensor(self, tensor_str: str) -> bool:
        return self._bundle.has_tensor(tensor_str)

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        return {name: list(self._bundle.shape(name)) for name in self._bundle.names()}

    def get_variable_to_dtype_map(self) -> dict[str, DType]:
        return {name: self._bundle.dtype(name) for name in self._bundle.names()}

    def object_graph(self):
        """A TF2 checkpoint's TrackableObjectGraph (nodes, children by ``local_name``, attributes
        with their ``checkpoint_key``, slot variables), or None for a name-based (TF1) checkpoint."""
        from tinytf.formats import protos

        if not self.has_tensor(OBJECT_GRAPH_KEY):
            return None
        data = self.get_tensor(OBJECT_GRAPH_KEY)[()]
        return protos.parse(protos.trackable_object_graph_pb2.TrackableObjectGraph, data,
                            f"{self.prefix}: {OBJECT_GRAPH_KEY}")

    def __repr__(self) -> str:
        return f"<CheckpointReader {self.prefix!r}: {len(self._bundle.names())} tensors>"


def _checkpoint_prefix(ckpt_dir_or_file) -> str:
    """A prefix as given, or a directory's latest checkpoint (TensorFlow accepts both)."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        prefix = latest_checkpoint(path)
        if prefix is None:
            raise NotFoundError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return prefix
    return path


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A CheckpointReader for a checkpoint prefix, or for the latest checkpoint in a directory."""
    return CheckpointReader(_checkpoint_prefix(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file) -> list[tuple[str, list[int]]]:
    """``[(name, shape), ...]`` of every tensor in the checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def get_checkpoint_state(checkpoint_dir, latest_filename: str | None = None):
    """The CheckpointState text proto in ``checkpoint_dir/checkpoint``, relative paths made
    relative to ``checkpoint_dir``; None when there is no state file or it cannot be parsed
    (TensorFlow logs and ignores a bad one)."""
    from tinytf.formats import protos

    checkpoint_dir = os.fspath(checkpoint_dir)
    path = os.path.join(checkpoint_dir, latest_filename or CHECKPOINT_STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    try:
        state = protos.parse_text(protos.CheckpointState, text, path)
    except OpError:
        return None
    if not state.model_checkpoint_path:
        return None
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def latest_checkpoint(checkpoint_dir, latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint named by ``checkpoint_dir``'s state file, or None when
    there is none or its files are gone."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None:
        return None
    prefix = state.model_checkpoint_path
    if os.path.isfile(index_path(prefix)) or os.path.isfile(prefix):  # V2, or a V1 single file
        return prefix
    return None
