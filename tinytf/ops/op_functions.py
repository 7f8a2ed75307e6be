"""Public op functions found by name: the one lookup the gradient rules, the tape and the tensor
operators use, so op families (and the layers above) need not import each other.

    %s = "tf.Shape"(%x) : (tensor<?x3xf32>) -> tensor<2xi32>    // shape_tensor(x) when x's shape is dynamic

``op_function("multiply")`` (or ``ops.multiply``) finds ``multiply`` in whichever tinytf.ops module
defines it, on first use, and keeps it: gradients run after every module is imported, and the
families may move between files. A name no module defines raises ``UnimplementedError``.
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import UnimplementedError

__all__: list[str] = []  # no public op functions: tt.math / tt.nn must not pick these up

_FOUND: dict = {}


def op_function(name: str):
    """The public op function ``name`` (``add``, ``less``, ...) of whichever tinytf.ops module defines it."""
    found = _FOUND.get(name)
    if found is None:
        found = _FOUND[name] = _find(name)
    return found


def _find(name: str):
    import importlib
    import pkgutil

    import tinytf.ops as ops

    modules = [importlib.import_module(f"tinytf.ops.{info.name}") for info in pkgutil.iter_modules(ops.__path__)]
    for module in modules:  # an op function a module lists in __all__ first: helpers share names (random_libm's cos)
        if name in getattr(module, "__all__", ()):
            return getattr(module, name)
    for module in modules:  # then the helpers gradient rules use (scalar_like, ...)
        candidate = vars(module).get(name)
        if callable(candidate) and getattr(candidate, "__module__", None) == module.__name__:
            return candidate
    raise UnimplementedError(f"the op function '{name}' is not implemented in tinytf.ops", name)


class OpFunctions:
    """``ops.multiply``: ``op_function("multiply")``, spelled as an attribute."""

    def __getattr__(self, name):
        if name.startswith("_"):  # Python's protocols (__deepcopy__, ...) ask for these: not op functions
            raise AttributeError(name)
        return op_function(name)


ops = OpFunctions()


def shape_tensor(x):
    """x's shape as an int32 tensor: a constant when static, else a tf.Shape op."""
    shape = getattr(x, "shape", None)
    dims = None if shape is None else getattr(shape, "dims", shape)
    if dims is not None and all(d is not None for d in tuple(dims)):
        return ops.constant(np.asarray(tuple(int(d) for d in dims), np.int32))
    return ops.shape(x, out_type="int32")
