"""The ``TrackableObjectGraph`` of a checkpoint, built from Python objects as TensorFlow builds it.

    >>> graph = ObjectGraph(checkpoint)      # walks tt.train.Checkpoint(model=m, optimizer=opt)
    >>> graph.proto.nodes[0].children        # [model -> 1, optimizer -> 2, save_counter -> 3]
    >>> graph.variables                      # [(checkpoint key, tt.Variable), ...] in node order
    [('model/dense/w/.ATTRIBUTES/VARIABLE_VALUE', <tt.Variable ...>), ...]

TensorFlow's rules (``tensorflow/python/checkpoint/graph_view.py``, ``save_util_v1.py``):

- nodes are numbered breadth first from the root (node 0); a child seen before is referenced by its
  first node id, and every object's path is the first path that reached it;
- a variable's value is the attribute ``VARIABLE_VALUE`` with key ``<escaped path>/.ATTRIBUTES/VARIABLE_VALUE``;
- then, for each optimizer in node order, for each of its slot names, for each variable node in
  order that has that slot: a new node for the slot variable, referenced from the optimizer's
  ``slot_variables`` (original node, slot name, slot node) and keyed
  ``<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot name>/.ATTRIBUTES/VARIABLE_VALUE``;
- ``has_checkpoint_values`` is true for nodes with attributes or slot variables and their ancestors.
"""
from __future__ import annotations

from tinytf.errors import InvalidArgumentError
from tinytf.framework.variables import Variable
from tinytf.train import trackable

VARIABLE_VALUE = "VARIABLE_VALUE"
ATTRIBUTES = ".ATTRIBUTES"
OPTIMIZER_SLOT = ".OPTIMIZER_SLOT"


def attribute_key(prefix: str, name: str = VARIABLE_VALUE) -> str:
    return f"{prefix}/{ATTRIBUTES}/{name}"


def slot_prefix(variable_path: str, optimizer_path: str, slot_name: str) -> str:
    return f"{variable_path}/{OPTIMIZER_SLOT}/{optimizer_path}/{trackable.escape_local_name(slot_name)}"


def is_optimizer(obj) -> bool:
    return callable(getattr(obj, "_slot_names", None)) and callable(getattr(obj, "_checkpoint_slot", None))


class ObjectGraph:
    """The objects reachable from ``root``: ``objects`` (node order), ``paths`` (checkpoint key
    prefixes), ``proto`` (a TrackableObjectGraph) and ``variables`` ([(key, Variable)])."""

    def __init__(self, root):
        from tinytf.formats import protos

        self.root = root
        self.objects: list = []
        self.prefixes: list[str] = []
        self._ids: dict[int, int] = {}
        self._edges: list[list[tuple[str, int]]] = []
        self._walk()
        proto = protos.trackable_object_graph_pb2.TrackableObjectGraph()
        for edges in self._edges:
            node = proto.nodes.add()
            for name, child_id in edges:
                node.children.add(node_id=child_id, local_name=name)
        self.slot_nodes: list[tuple[int, str, int]] = []  # (optimizer node, slot name, original node) per slot node
        self._add_slot_variables(proto)
        self.variables: list[tuple[str, Variable]] = []
        for node_id, obj in enumerate(self.objects):
            if isinstance(obj, Variable):
                key = attribute_key(self.prefixes[node_id])
                # full_name: TensorFlow's variable name without ":0" ("mlp/dense/w")
                proto.nodes[node_id].attributes.add(name=VARIABLE_VALUE, full_name=obj.shared_name, checkpoint_key=key)
                self.variables.append((key, obj))
        _add_checkpoint_values_check(proto)
        self.proto = proto

    def _add(self, obj, prefix: str) -> int:
        node_id = len(self.objects)
        self._ids[id(obj)] = node_id
        self.objects.append(obj)
        self.prefixes.append(prefix)
        self._edges.append([])
        return node_id

    def _walk(self) -> None:
        self._add(self.root, "")
        node_id = 0
        while node_id < len(self.objects):  # breadth first: the list is the queue
            obj, prefix = self.objects[node_id], self.prefixes[node_id]
            for name, child in trackable.children(obj).items():
                if not isinstance(name, str):
                    raise InvalidArgumentError(f"checkpoint: child names are strings, got {name!r} under {obj!r}")
                child_id = self._ids.get(id(child))
                if child_id is None:
                    escaped = trackable.escape_local_name(name)
                    child_id = self._add(child, f"{prefix}/{escaped}" if prefix else escaped)
                self._edges[node_id].append((name, child_id))
            node_id += 1

    def _add_slot_variables(self, proto) -> None:
        originals = [(i, obj) for i, obj in enumerate(self.objects) if isinstance(obj, Variable)]
        for optimizer_id in range(len(self.objects)):
            optimizer = self.objects[optimizer_id]
            if not is_optimizer(optimizer):
                continue
            for slot_name in optimizer._slot_names():
                for original_id, original in originals:
                    slot = optimizer._checkpoint_slot(original, slot_name)
                    if slot is None:
                        continue
                    if id(slot) in self._ids:
                        raise InvalidArgumentError(
                            f"checkpoint: slot variable {slot.name} ({slot_name} of {original.name}) is also a "
                            "dependency of another object; TensorFlow cannot save that either")
                    prefix = slot_prefix(self.prefixes[original_id], self.prefixes[optimizer_id], slot_name)
                    slot_id = self._add(slot, prefix)
                    proto.nodes.add()
                    proto.nodes[optimizer_id].slot_variables.add(
                        original_variable_node_id=original_id, slot_name=slot_name, slot_variable_node_id=slot_id)
                    self.slot_nodes.append((optimizer_id, slot_name, original_id))

    def all_objects(self) -> list:
        return list(self.objects)


def _add_checkpoint_values_check(proto) -> None:
    """``has_checkpoint_values``: a node with attributes or slot variables, and every ancestor of one."""
    parents: dict[int, set[int]] = {}
    marked = set()
    for node_id, node in enumerate(proto.nodes):
        if node.attributes or node.slot_variables:
            marked.add(node_id)
        for child in node.children:
            parents.setdefault(child.node_id, set()).add(node_id)
    to_visit = set(marked)
    while to_visit:
        node_id = to_visit.pop()
        for parent in parents.pop(node_id, ()):
            if parent not in marked:
                marked.add(parent)
                to_visit.add(parent)
    for node_id, node in enumerate(proto.nodes):
        node.has_checkpoint_values.value = node_id in marked
