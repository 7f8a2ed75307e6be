"""Public op functions found by name when a gradient rule runs, so op families need not import each other.

    %s = "tf.Shape"(%x) : (tensor<?x3xf32>) -> tensor<2xi32>    // shape_tensor(x) when x's shape is dynamic

``ops.multiply(...)`` looks ``multiply`` up in whichever tinytf.ops module defines it, on first use:
gradients run after every module is imported, and the families may move between files.
"""
from __future__ import annotations

import numpy as np

__all__: list[str] = []  # no public op functions: tt.math / tt.nn must not pick these up


class OpFunctions:
    """``ops.multiply``: the public op function ``multiply`` of whichever tinytf.ops module defines it."""

    def __init__(self):
        self._found: dict = {}

    def __getattr__(self, name):
        found = self.__dict__.get("_found", {}).get(name)
        if found is None:
            import importlib
            import pkgutil

            import tinytf.ops as ops

            for info in pkgutil.iter_modules(ops.__path__):
                module = importlib.import_module(f"tinytf.ops.{info.name}")
                candidate = vars(module).get(name)
                if callable(candidate) and getattr(candidate, "__module__", None) == module.__name__:
                    found = self._found[name] = candidate
                    break
            else:
                raise AttributeError(f"no public op function '{name}' in tinytf.ops")
        return found


ops = OpFunctions()


def shape_tensor(x):
    """x's shape as an int32 tensor: a constant when static, else a tf.Shape op."""
    shape = getattr(x, "shape", None)
    dims = None if shape is None else getattr(shape, "dims", shape)
    if dims is not None and all(d is not None for d in tuple(dims)):
        return ops.constant(np.asarray(tuple(int(d) for d in dims), np.int32))
    return ops.shape(x, out_type="int32")
