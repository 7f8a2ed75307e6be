"""The objects a SavedModel saves, as nodes ``tt.train``'s ObjectGraph numbers as TensorFlow does.

    objects = SavedObjects()
    top = objects.wrap(module)          # a SavedObject per module, list, dict and tt.function
    ObjectGraph(top).objects            # breadth first: [top, layers, calls, predict, ...]

A SavedModel's SavedObjectGraph has the checkpoint's nodes plus nodes the checkpoint skips: each
``tt.function`` attribute (``function``) with its traced concrete functions as children
``trace_0``, ``trace_1``, ... (``bare_concrete_function``), and the ``signatures`` map. Wrapping the
Python objects in stand-ins whose ``_trackable_children`` list those too lets one ObjectGraph walk
number both graphs alike (variables stay themselves: the checkpoint keys them).
"""
from __future__ import annotations

from tinytf.framework.variables import Variable
from tinytf.train import trackable
from tinytf.train.object_graph import is_optimizer

USER_OBJECT, FUNCTION, BARE = "user_object", "function", "bare"


class SavedObject:
    """One object of the SavedObjectGraph: a module, container, function, concrete function or the
    signature map (``value`` None)."""

    def __init__(self, kind: str, value=None, identifier: str = ""):
        self.kind = kind              # USER_OBJECT, FUNCTION or BARE
        self.value = value            # the Python object (a module, a Function, a ConcreteFunction, ...)
        self.identifier = identifier  # a user_object's kind: _generic_user_object, signature_map, ...
        self.children: dict = {}

    def _trackable_children(self) -> dict:
        return dict(self.children)


class SavedOptimizer(SavedObject):
    """An optimizer: its slot variables are checkpointed (and saved) as ``tt.train`` does."""

    def _slot_names(self):
        return self.value._slot_names()

    def _checkpoint_slot(self, variable, slot_name):
        return self.value._checkpoint_slot(variable, slot_name)


_CONTAINERS = ((dict, "trackable_dict_wrapper"), (tuple, "trackable_tuple_wrapper"), (list, "trackable_list_wrapper"))


class SavedObjects:
    """Stand-ins for everything reachable from the root, each object once."""

    def __init__(self):
        self.memo: dict[int, object] = {}
        self.keep: list = []  # (keeps the wrapped objects alive while their ids are memo keys)

    def wrap(self, value):
        if isinstance(value, Variable):
            return value
        found = self.memo.get(id(value))
        if found is not None:
            return found
        identifier = next((name for kind, name in _CONTAINERS if isinstance(value, kind)), "_generic_user_object")
        node = (SavedOptimizer if is_optimizer(value) else SavedObject)(USER_OBJECT, value, identifier)
        self.memo[id(value)] = node
        self.keep.append(value)
        for name, child in trackable.children(value).items():
            node.children[name] = self.wrap(child)
        if not trackable.is_container(value):
            for name, function in functions_of(value):
                concretes = concrete_functions(function)
                if not concretes:
                    continue
                fnode = SavedObject(FUNCTION, function)
                for i, cf in enumerate(concretes):
                    fnode.children[f"trace_{i}"] = self.bare(cf)
                node.children[name] = fnode
        return node

    def bare(self, cf) -> SavedObject:
        """The one node of a concrete function."""
        found = self.memo.get(id(cf))
        if found is None:
            found = self.memo[id(cf)] = SavedObject(BARE, cf)
            self.keep.append(cf)
        return found


def functions_of(obj) -> list[tuple[str, object]]:
    """The public ``tt.function`` attributes of ``obj`` (methods of its class, and instance attributes), by name."""
    from tinytf.function import Function

    names = set()
    for klass in type(obj).__mro__:
        names.update(k for k, v in vars(klass).items() if isinstance(v, Function))
    names.update(k for k, v in getattr(obj, "__dict__", {}).items() if isinstance(v, Function))
    return [(name, getattr(obj, name)) for name in sorted(names) if not name.startswith("_")]


def concrete_functions(function) -> list:
    """The traced concrete functions of a ``tt.function`` (its input signature's is traced now)."""
    if function.input_signature is not None:
        function.get_concrete_function()
    return list(function._cache.values())


def owner(graph, node_id: int):
    """The Function whose trace node ``node_id`` is in ``graph`` (None for a concrete function saved on its own)."""
    for i, node in enumerate(graph.proto.nodes):
        obj = graph.objects[i]
        if isinstance(obj, SavedObject) and obj.kind == FUNCTION and any(c.node_id == node_id for c in node.children):
            return obj.value
    return None
