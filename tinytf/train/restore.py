"""Restore a checkpoint into Python objects by matching object graphs, as TensorFlow does.

    status = Restoration(reader, root).status()     # what Checkpoint.read / restore return
    status.assert_consumed()                         # AssertionError naming what did not match

Matching starts at the root (node 0 of the checkpoint's TrackableObjectGraph) and follows children
by ``local_name``. A matched variable gets the value under its ``VARIABLE_VALUE`` checkpoint key
(dtype and shape checked). An optimizer node's ``slot_variables`` are restored once both the
optimizer and the original variable are matched: the optimizer creates the slot if it has not yet
(``_restore_slot_variable``), as TensorFlow's eager optimizers do. A child the Python object lacks is

- created on the spot when the object knows how (``_restore_missing_child(name, node)``: the
  checkpoint's ``save_counter``, Adam's ``beta1_power``), or
- restored later, when the object is a ``tt.Module`` (or a ``Checkpoint``) and the attribute is
  assigned after the restore (deferred restoration); children of lists and dicts filled in later
  are not (TensorFlow's ListWrapper defers those too; tinytf's plain lists cannot).

The status objects are TensorFlow's: ``CheckpointLoadStatus`` (``assert_consumed``,
``assert_existing_objects_matched``, ``assert_nontrivial_match``, ``expect_partial``,
``run_restore_ops``, ``initialize_or_restore``), ``InitializationOnlyStatus`` for
``restore(None)`` and ``NameBasedSaverStatus`` for TF1 checkpoints without an object graph (matched
by variable name).
"""
from __future__ import annotations

from collections import deque

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.variables import Variable
from tinytf.train import trackable
from tinytf.train.object_graph import VARIABLE_VALUE, ObjectGraph, is_optimizer


def restore_variable(variable: Variable, value: np.ndarray, key: str) -> None:
    """Assign a checkpointed value, checking dtype and shape as TensorFlow's restore does."""
    got = dtypes.as_dtype(value.dtype) if value.dtype != object else dtypes.string
    if got is not variable.dtype:
        raise InvalidArgumentError(
            f"Received incompatible tensor of dtype {got.name} when attempting to restore variable "
            f"'{variable.name}' of dtype {variable.dtype.name} from checkpoint key '{key}'")
    shape = variable.shape
    if shape is not None and (len(shape) != value.ndim or any(d is not None and d != s for d, s in zip(shape, value.shape))):
        raise InvalidArgumentError(
            f"Received incompatible tensor with shape {list(value.shape)} when attempting to restore variable "
            f"'{variable.name}' with shape {[d for d in shape]} from checkpoint key '{key}'")
    variable.store(value, op_name="tf.RestoreV2", adopt=True)  # a fresh array from the reader: no copy


class Restoration:
    """One restore of the checkpoint read by ``reader`` into the objects under ``root``."""

    def __init__(self, reader, root, graph_proto):
        self.reader = reader
        self.root = root
        self.proto = graph_proto
        self.matched: dict[int, object] = {}       # checkpoint node id -> Python object
        self.restored_keys: set[str] = set()
        self.unused_attributes: dict[int, list[str]] = {}
        self._pending_slots: dict[int, list] = {}  # original variable node -> [(optimizer, slot proto)]
        self._queue: deque = deque()
        self.match(0, root)

    # -- matching -------------------------------------------------------------------------------

    def match(self, node_id: int, obj) -> None:
        """Bind checkpoint node ``node_id`` to ``obj`` and restore everything reachable from it."""
        self._queue.append((node_id, obj))
        while self._queue:
            self._match_one(*self._queue.popleft())

    def _match_one(self, node_id: int, obj) -> None:
        if node_id in self.matched:  # reached twice (a shared object, or restored again): first binding wins
            return
        self.matched[node_id] = obj
        node = self.proto.nodes[node_id]
        self._restore_attributes(node_id, node, obj)
        if node.children:
            python_children = trackable.children(obj)
            for child in node.children:
                value = python_children.get(child.local_name)
                if value is None:
                    make = getattr(obj, "_restore_missing_child", None)
                    value = make(child.local_name, self._describe(child.node_id)) if callable(make) else None
                if value is not None:
                    self._queue.append((child.node_id, value))
                else:
                    trackable.defer(obj, child.local_name, lambda v, nid=child.node_id: self.match(nid, v))
        for slot in node.slot_variables:
            original = self.matched.get(slot.original_variable_node_id)
            if original is not None:
                self._restore_slot(obj, original, slot)
            else:
                self._pending_slots.setdefault(slot.original_variable_node_id, []).append((obj, slot))
        for optimizer, slot in self._pending_slots.pop(node_id, ()):
            self._restore_slot(optimizer, obj, slot)

    def _describe(self, node_id: int) -> dict:
        """What the checkpoint holds at a node: its variable's dtype and shape, if it is one."""
        node = self.proto.nodes[node_id]
        for attribute in node.attributes:
            if attribute.name == VARIABLE_VALUE and self.reader.has_tensor(attribute.checkpoint_key):
                reader = self.reader._bundle
                return {"dtype": reader.dtype(attribute.checkpoint_key), "shape": reader.shape(attribute.checkpoint_key)}
        return {}

    def _restore_attributes(self, node_id: int, node, obj) -> None:
        for attribute in node.attributes:
            if attribute.name == VARIABLE_VALUE and isinstance(obj, Variable):
                restore_variable(obj, self.reader.get_tensor(attribute.checkpoint_key), attribute.checkpoint_key)
                self.restored_keys.add(attribute.checkpoint_key)
            else:
                self.unused_attributes.setdefault(node_id, []).append(attribute.name)

    def _restore_slot(self, optimizer, variable, slot) -> None:
        if not is_optimizer(optimizer) or not isinstance(variable, Variable):
            return
        make = getattr(optimizer, "_restore_slot_variable", None)
        slot_variable = make(variable, slot.slot_name) if callable(make) else \
            optimizer._checkpoint_slot(variable, slot.slot_name)
        if slot_variable is None:
            self._pending_slots.setdefault(slot.original_variable_node_id, []).append((optimizer, slot))
            return
        self.match(slot.slot_variable_node_id, slot_variable)

    # -- what matched ---------------------------------------------------------------------------

    def node_name(self, node_id: int) -> str:
        """A readable path to a checkpoint node: ``(root).model.dense.w``."""
        paths = {0: "(root)"}
        queue = deque([0])
        while queue:
            n = queue.popleft()
            for child in self.proto.nodes[n].children:
                if child.node_id not in paths:
                    paths[child.node_id] = f"{paths[n]}.{child.local_name}"
                    queue.append(child.node_id)
            for slot in self.proto.nodes[n].slot_variables:
                if slot.slot_variable_node_id not in paths and slot.original_variable_node_id in paths:
                    paths[slot.slot_variable_node_id] = (
                        f"{paths[slot.original_variable_node_id]}'s {paths[n]} slot '{slot.slot_name}'")
        return paths.get(node_id, f"node {node_id}")

    def unmatched_python_variables(self) -> list:
        matched = {id(obj) for obj in self.matched.values()}
        return [obj for obj in ObjectGraph(self.root).objects if isinstance(obj, Variable) and id(obj) not in matched]

    def status(self):
        return CheckpointLoadStatus(self)


class CheckpointLoadStatus:
    """The result of ``Checkpoint.read`` / ``restore`` on an object-based checkpoint."""

    def __init__(self, restoration: Restoration):
        self._restoration = restoration

    def assert_consumed(self):
        """Every value in the checkpoint was restored and every Python variable got one."""
        r = self._restoration
        self.assert_existing_objects_matched()
        for node_id, node in enumerate(r.proto.nodes):
            if node.attributes and node_id not in r.matched:
                raise AssertionError(f"Unresolved object in checkpoint {r.node_name(node_id)}: "
                                     f"{[a.checkpoint_key for a in node.attributes]}")
        pending = {r.node_name(node_id): [s.slot_name for _, s in slots] for node_id, slots in r._pending_slots.items()}
        if pending:
            raise AssertionError(f"Unresolved slot restorations: {pending}")
        if r.unused_attributes:
            unused = "\n".join(f"    {r.node_name(n)}: {names}" for n, names in r.unused_attributes.items())
            raise AssertionError("Unused attributes in these objects (the attributes exist in the checkpoint but were "
                                 f"not restored):\n{unused}")
        return self

    def assert_existing_objects_matched(self):
        """Every variable reachable from the root now is bound to a checkpointed value."""
        unmatched = self._restoration.unmatched_python_variables()
        if unmatched:
            shown = min(10, len(unmatched))
            raise AssertionError(
                f"Found {len(unmatched)} Python objects that were not bound to checkpointed values, likely due to "
                f"changes in the Python program. Showing {shown} of {len(unmatched)} unmatched objects: "
                f"{unmatched[:shown]}")
        return self

    def assert_nontrivial_match(self):
        """Something besides the root matched."""
        r = self._restoration
        if len(r.matched) <= 1:
            unmatched = [obj for obj in ObjectGraph(r.root).objects[1:]]
            if unmatched:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically this means that the "
                    f"checkpoint does not match the Python program. The following objects have no matching "
                    f"checkpointed value: {unmatched}")
            raise AssertionError(f"Nothing to load. No dependencies have been added to {r.root} yet.")
        return self

    def expect_partial(self):
        """Accept a partial restore (TensorFlow then skips its warnings; tinytf does not print them)."""
        return self

    def run_restore_ops(self, session=None):
        """Eager: the values are restored already."""

    def initialize_or_restore(self, session=None):
        """Eager: the values are restored already."""


class InitializationOnlyStatus:
    """``restore(None)``: nothing to restore; the assertions fail, as TensorFlow's do."""

    _MESSAGE = "No checkpoint specified (save_path=None); nothing is being restored."

    def __init__(self, root):
        self._root = root

    def assert_consumed(self):
        raise AssertionError(self._MESSAGE)

    def assert_existing_objects_matched(self):
        raise AssertionError(self._MESSAGE)

    def assert_nontrivial_match(self):
        raise AssertionError(self._MESSAGE)

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        raise AssertionError(self._MESSAGE)

    def initialize_or_restore(self, session=None):
        """Eager variables are initialized when created: nothing to do."""


class NameBasedSaverStatus:
    """A TF1 (``tf.compat.v1.train.Saver``) checkpoint: variables matched by their ``name``."""

    def __init__(self, reader, root):
        self._root = root
        self._unmatched = []
        for obj in ObjectGraph(root).objects:
            if isinstance(obj, Variable):
                name = obj.shared_name  # the Saver's key: the variable's name without ":0"
                if reader.has_tensor(name):
                    restore_variable(obj, reader.get_tensor(name), name)
                else:
                    self._unmatched.append(obj)

    def assert_consumed(self):
        raise AssertionError("Restoring a name-based tf.compat.v1.train.Saver checkpoint using the object-based "
                             "restore API: variables are matched by their names, and assert_consumed cannot tell "
                             "what was left over. Prefer re-encoding the checkpoint with save().")

    def assert_existing_objects_matched(self):
        if self._unmatched:
            raise AssertionError(f"Found {len(self._unmatched)} variables with no value under their name in the "
                                 f"name-based checkpoint: {self._unmatched[:10]}")
        return self

    def assert_nontrivial_match(self):
        return self.assert_existing_objects_matched()

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Eager: the values are restored already."""

    def initialize_or_restore(self, session=None):
        """Eager: the values are restored already."""
