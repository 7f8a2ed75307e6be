"""What a checkpoint saves: the graph of trackable objects, as TensorFlow's ``Trackable`` defines it.

An object is *trackable* when it is

- a ``tt.Variable``: a leaf whose one attribute, ``VARIABLE_VALUE``, is its value;
- an object with a ``_trackable_children()`` method returning ``{local_name: child}`` in a fixed
  order (``tt.Module``, ``tt.train.Checkpoint``, the optimizers);
- a list, tuple or dict (TensorFlow wraps these in ``ListWrapper`` / ``_DictWrapper``): children
  are the trackable elements by index, or the values by key, in insertion order.

Optimizers also have slot variables (``_slot_names()``, ``get_slot(var, name)``), which belong to
the pair (optimizer, variable) rather than to either; see ``object_graph.py``.

    >>> children(module)                    # {'dense': <Dense>, 'layers': [...], ...}
    >>> escape_local_name("a/b.c")          # how a name sits in a checkpoint key
    'a.Sb..c'

Deferred restoration: when a checkpoint holds a child that its Python object does not have yet,
the restore leaves a callback with ``defer(obj, name, callback)``; ``tt.Module`` calls
``attribute_assigned(obj, name, value)`` from ``__setattr__``, so a variable created after the
restore gets its checkpointed value, as in TensorFlow.
"""
from __future__ import annotations

from tinytf.framework.variables import Variable

_ESCAPE = "."


def escape_local_name(name: str) -> str:
    """TensorFlow's escaping of a child's name inside a checkpoint key: ``.`` -> ``..``, ``/`` -> ``.S``."""
    return name.replace(_ESCAPE, _ESCAPE + _ESCAPE).replace("/", _ESCAPE + "S")


def is_container(value) -> bool:
    return isinstance(value, list | tuple | dict)


def is_trackable(value) -> bool:
    if isinstance(value, Variable) or is_container(value):
        return True
    return not isinstance(value, type) and callable(getattr(value, "_trackable_children", None))


def container_children(value) -> dict:
    """A list's or tuple's trackable elements by index; a dict's trackable values by key (keys as
    strings; a non-string key cannot be saved, as in TensorFlow)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if is_trackable(item):
                if not isinstance(key, str):
                    from tinytf.errors import InvalidArgumentError

                    raise InvalidArgumentError(
                        f"a checkpointed dict needs string keys, got {key!r} ({type(key).__name__}) for {item!r}")
                out[key] = item
        return out
    return {str(i): item for i, item in enumerate(value) if is_trackable(item)}


def children(obj) -> dict:
    """The named trackable children of ``obj``, in order."""
    if isinstance(obj, Variable):
        return {}
    if is_container(obj):
        return container_children(obj)
    method = getattr(obj, "_trackable_children", None)
    return dict(method()) if callable(method) else {}


def attribute_children(obj, ignored=frozenset()) -> dict:
    """The trackable attributes of ``obj`` in assignment order: what ``tt.Module`` tracks."""
    return {name: value for name, value in vars(obj).items()
            if name not in ignored and name != DEFERRED_ATTRIBUTE and is_trackable(value)}


# -- deferred restoration ---------------------------------------------------------------------

DEFERRED_ATTRIBUTE = "_tt_deferred_restorations"  # {child name: callback}, kept in the object's __dict__


def defer(obj, name: str, callback) -> bool:
    """Restore child ``name`` of ``obj`` when it is assigned later; False when ``obj`` cannot defer.

    The callbacks live in the object itself (never in a global table), so an object and the
    restoration waiting on it are freed together."""
    if not getattr(obj, "_tracks_attribute_assignment", False) or not hasattr(obj, "__dict__"):
        return False
    vars(obj).setdefault(DEFERRED_ATTRIBUTE, {})[name] = callback
    return True


def attribute_assigned(obj, name: str, value) -> None:
    """Called by a tracking object's ``__setattr__``: run a restoration deferred for ``name``."""
    waiting = vars(obj).get(DEFERRED_ATTRIBUTE)
    if not waiting or name not in waiting or not is_trackable(value):
        return
    callback = waiting.pop(name)
    if not waiting:
        del vars(obj)[DEFERRED_ATTRIBUTE]
    callback(value)


def pending(obj) -> list[str]:
    """The names of ``obj``'s children still waiting for deferred restoration."""
    return sorted(getattr(obj, "__dict__", {}).get(DEFERRED_ATTRIBUTE, ()))
