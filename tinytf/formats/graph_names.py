"""The names an exported GraphDef gives nodes, functions and arguments, from a ``func.func``.

    node_name("tf.MatMul")                       # "tf.MatMul" ([A-Za-z0-9.][A-Za-z0-9_.\\-/]*)
    function_name("__inference_<lambda>_1")      # "__inference__lambda__1"
    arg_name("Features:0")                       # "features_0" ([a-z][a-z0-9_]*)
    names = Names(); names.unique("MatMul"), names.unique("MatMul")    # "MatMul", "MatMul_1"
    entry_names(fn, "inputs")                    # tf.entry_function's {inputs = "x,y"}: ["x", "y"]
    user_names(fn)                               # each argument's tf._user_specified_name, or None
"""
from __future__ import annotations

import re

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr

_NODE_NAME = re.compile(r"[^A-Za-z0-9_.\-/]")
_ARG_NAME = re.compile(r"[^a-z0-9_]")


def node_name(text: str) -> str:
    """A valid GraphDef node name from ``text`` (TensorFlow's ``[A-Za-z0-9.][A-Za-z0-9_.\\-/]*``)."""
    text = _NODE_NAME.sub("_", text) or "node"
    return text if re.match(r"[A-Za-z0-9.]", text) else "n" + text


def function_name(name: str) -> str:
    """The FunctionDef name of a ``func.func`` (``__inference_<lambda>_1`` -> ``__inference__lambda__1``)."""
    return _NODE_NAME.sub("_", name) or "function"


def arg_name(text: str) -> str:
    """A valid FunctionDef argument name (``[a-z][a-z0-9_]*``) from ``text``."""
    text = _ARG_NAME.sub("_", text.lower()) or "arg"
    return text if text[0].isalpha() else "a" + text


class Names:
    """Unique names in one scope: ``MatMul``, ``MatMul_1``, ..."""

    def __init__(self):
        self.taken: set[str] = set()

    def unique(self, base: str) -> str:
        name, i = base, 0
        while name in self.taken:
            i += 1
            name = f"{base}_{i}"
        self.taken.add(name)
        return name


def entry_names(fn: func.FuncOp, key: str) -> list[str]:
    """The names ``tf.entry_function`` gives for ``inputs`` or ``outputs`` (empty when it has none)."""
    entry = fn.attributes.get("tf.entry_function")
    raw = entry.data.get(key) if entry is not None else None
    text = raw.data if isinstance(raw, StringAttr) else ""
    return text.split(",") if text else []


def user_names(fn: func.FuncOp) -> list[str | None]:
    """Each argument's ``tf._user_specified_name`` (None where it has none)."""
    out = []
    attrs = fn.arg_attrs.data if fn.arg_attrs is not None else [None] * len(fn.body.block.args)
    for a in attrs:
        hint = a.data.get("tf._user_specified_name") if a is not None else None
        out.append(hint.data if isinstance(hint, StringAttr) else None)
    return out


def arg_labels(fn: func.FuncOp) -> list[str]:
    """What names each argument: ``tf._user_specified_name``, else its SSA name (``%x``), else ``arg<i>``."""
    return [hint or arg.name_hint or f"arg{i}" for i, (hint, arg) in enumerate(zip(user_names(fn), fn.body.block.args))]


__all__ = ["Names", "arg_labels", "arg_name", "entry_names", "function_name", "node_name", "user_names"]
