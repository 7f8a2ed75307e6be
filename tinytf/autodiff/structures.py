"""Nested structures of tensors (lists, tuples, namedtuples, dicts) as flat lists and back.

    >>> flat = flatten({"b": [1, 2], "a": 3})       # dicts in sorted key order
    >>> flat
    [3, 1, 2]
    >>> pack_as({"b": [0, 0], "a": 0}, [30, 10, 20])
    {'a': 30, 'b': [10, 20]}

The tape flattens targets, sources and output gradients; ``tt.function`` and the control-flow
ops flatten what a Python function takes and returns, and pack the results the same way.
"""
from __future__ import annotations


def flatten(structure) -> list:
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def pack_as(structure, flat: list, skip_none: bool = False):
    """``structure`` with its leaves replaced by ``flat``, in ``flatten`` order (``None`` leaves kept
    when ``skip_none``); lists, tuples, namedtuples and dicts keep their types."""
    it = iter(flat)

    def build(s):
        if isinstance(s, (list, tuple)):
            items = [build(x) for x in s]
            return type(s)(*items) if hasattr(s, "_fields") else type(s)(items)
        if isinstance(s, dict):
            return {k: build(s[k]) for k in sorted(s)}
        return None if skip_none and s is None else next(it)

    return build(structure)


def as_tuple(outputs) -> tuple:
    """One level: a list or tuple as a tuple, None as (), anything else as a 1-tuple."""
    if outputs is None:
        return ()
    if isinstance(outputs, (list, tuple)):
        return tuple(outputs)
    return (outputs,)
