"""``tt.train.Checkpoint``: save and restore objects in TensorFlow 2's checkpoint format.

    ckpt = tt.train.Checkpoint(model=model, optimizer=opt)
    ckpt.write("out/weights")                    # -> 'out/weights': out/weights.index + .data-00000-of-00001
    ckpt.read("out/weights").assert_consumed()
    path = ckpt.save("out/ckpt")                 # -> 'out/ckpt-1'; counts in ckpt.save_counter
    ckpt.restore(tt.train.latest_checkpoint("out")).assert_existing_objects_matched()

The files are TensorFlow's: a tensor bundle holding every variable under
``<path>/.ATTRIBUTES/VARIABLE_VALUE`` and the ``_CHECKPOINTABLE_OBJECT_GRAPH`` (see
``object_graph.py``), so ``tf.train.Checkpoint(...).read`` and ``tf.train.load_checkpoint`` read
them, and ``read`` / ``restore`` here read TensorFlow's (``restore.py`` matches the graphs).

``write`` is crash safe (``tinytf/formats/tensor_bundle_writer.py``); ``save`` also records the
checkpoint in the directory's ``checkpoint`` state file, replaced atomically after the bundle is
complete. A failed save (disk full: ResourceExhaustedError; permission denied:
PermissionDeniedError) leaves the files and ``save_counter`` as they were.
"""
from __future__ import annotations

import os

import numpy as np

from tinytf.errors import InvalidArgumentError
from tinytf.formats.durable_files import os_error
from tinytf.formats.tensor_bundle_writer import BundleWriter
from tinytf.framework.variables import Variable
from tinytf.train import trackable
from tinytf.train.checkpoint_reader import OBJECT_GRAPH_KEY, CheckpointReader
from tinytf.train.checkpoint_state import update_checkpoint_state
from tinytf.train.object_graph import ObjectGraph
from tinytf.train.restore import InitializationOnlyStatus, NameBasedSaverStatus, Restoration

SAVE_COUNTER = "save_counter"


def write_objects(root, file_prefix: str, note: str = "") -> str:
    """Write the object graph under ``root`` and its variables as a bundle at ``file_prefix``."""
    file_prefix = os.fspath(file_prefix)
    directory = os.path.dirname(file_prefix)
    if directory:
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as e:
            raise os_error(e, directory, "create the checkpoint directory", note) from None
    graph = ObjectGraph(root)
    with BundleWriter(file_prefix, note) as writer:
        for key, variable in graph.variables:
            writer.add(key, variable.read())
        writer.add(OBJECT_GRAPH_KEY, np.array(graph.proto.SerializeToString(), dtype=object))
        return writer.finish()


def resolve_save_path(save_path) -> str:
    """A checkpoint prefix from what TensorFlow accepts: a prefix, a SavedModel directory (its
    ``variables/variables``), or a directory with a ``checkpoint`` state file (its latest)."""
    from tinytf.errors import NotFoundError
    from tinytf.train.checkpoint_reader import latest_checkpoint

    path = os.fspath(save_path)
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "saved_model.pb")) or os.path.isfile(os.path.join(path, "saved_model.pbtxt")):
            return os.path.join(path, "variables", "variables")
        latest = latest_checkpoint(path)
        if latest is None:
            raise NotFoundError(f"{path} is a directory without a 'checkpoint' state file naming a checkpoint; pass a "
                                "checkpoint prefix such as ckpt-1")
        return latest
    return path


class Checkpoint:
    """Groups trackable objects (modules, variables, optimizers, lists and dicts of them) for saving.

    Keyword arguments become the root's children, in order; attributes set later are tracked too.
    ``save_counter`` (an int64 variable) is created on the first ``save`` (or read of the property)
    and checkpointed as the child ``save_counter``."""

    _tracks_attribute_assignment = True

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_children", {})
        if root is not None:
            raise InvalidArgumentError("tt.train.Checkpoint(root=...) is not supported: pass the objects as keyword "
                                       "arguments, Checkpoint(model=model)")
        for name, value in kwargs.items():
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if not trackable.is_trackable(value):
            raise InvalidArgumentError(
                f"`Checkpoint` was expecting {name} to be a trackable object (a tt.Module, tt.Variable, optimizer, "
                f"Checkpoint, or a list, tuple or dict of them), got {value!r}")
        object.__setattr__(self, name, value)
        self._children[name] = value
        trackable.attribute_assigned(self, name, value)

    def __delattr__(self, name):
        object.__delattr__(self, name)
        self._children.pop(name, None)

    def _trackable_children(self) -> dict:
        return dict(self._children)

    def _restore_missing_child(self, name: str, node: dict):
        if name == SAVE_COUNTER:
            return self.save_counter
        return None

    @property
    def save_counter(self) -> Variable:
        """How many times ``save`` ran (restored with the checkpoint)."""
        counter = self._children.get(SAVE_COUNTER)
        if counter is None:
            counter = Variable(np.zeros((), np.int64), trainable=False, name=SAVE_COUNTER)
            self._children[SAVE_COUNTER] = counter
            trackable.attribute_assigned(self, SAVE_COUNTER, counter)
        return counter

    # -- saving -------------------------------------------------------------------------------

    def write(self, file_prefix, options=None) -> str:
        """Write the checkpoint at ``file_prefix`` (no counter, no state file); returns the prefix."""
        return write_objects(self, file_prefix)

    def save(self, file_prefix, options=None) -> str:
        """Write ``<file_prefix>-<save_counter>`` and record it in the directory's ``checkpoint`` file."""
        counter = self.save_counter
        previous = int(counter.numpy())
        counter.assign(np.int64(previous + 1))
        path = f"{os.fspath(file_prefix)}-{previous + 1}"
        note = "the previous checkpoint and the 'checkpoint' state file are kept"
        try:
            write_objects(self, path, note)
            update_checkpoint_state(os.path.dirname(path), path, [path], note=note)
        except BaseException:
            counter.assign(np.int64(previous))
            raise
        return path

    # -- restoring ----------------------------------------------------------------------------

    def read(self, save_path, options=None):
        """Restore the values at ``save_path`` into the tracked objects; a load status."""
        reader = CheckpointReader(resolve_save_path(save_path))
        graph = reader.object_graph()
        if graph is None:
            return NameBasedSaverStatus(reader, self)
        return Restoration(reader, self, graph).status()

    def restore(self, save_path, options=None):
        """``read``, accepting None (nothing to restore: an InitializationOnlyStatus); the
        ``save_counter`` is restored (created if needed) as well."""
        if save_path is None:
            return InitializationOnlyStatus(self)
        status = self.read(save_path, options)
        self.save_counter  # noqa: B018  (created now: a deferred restore gives it the saved value)
        return status

    def __repr__(self) -> str:
        return f"<tt.train.Checkpoint {', '.join(self._children)}>"

