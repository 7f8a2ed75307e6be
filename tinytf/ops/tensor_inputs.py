"""Inputs of the composite op functions (those written with other op functions, as TensorFlow's
Python does): Python values become constants, tensors and variables pass through.

    x = as_tensor([1.0, 2.0])          # a float32 tf.Const (a tf.Const op when traced)
    as_tensor(3, like=x)               # a float32 scalar: the dtype of ``like``
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.ops.operands import is_python_value

__all__: list[str] = []  # helpers: no public op functions


def as_tensor(value, dtype=None, like=None):
    """``value`` as a tensor: a constant of ``dtype`` (else ``like``'s, else its natural dtype) when it
    is a Python value or an array; a tensor or variable is returned as it is."""
    if not is_python_value(value):
        return value
    from tinytf.ops.array import constant

    if dtype is None and like is not None and not isinstance(value, np.ndarray):
        dtype = like.dtype
    return constant(value, dtype=None if dtype is None else dtypes.as_dtype(dtype))


def static_rank(x) -> int | None:
    shape = getattr(x, "shape", None)
    if shape is None:
        return None
    dims = getattr(shape, "dims", shape)
    return None if dims is None else len(tuple(dims))


def static_dims(x) -> tuple | None:
    """x's shape as a tuple of ints and None, or None when the rank is unknown."""
    shape = getattr(x, "shape", None)
    dims = None if shape is None else getattr(shape, "dims", shape)
    return None if dims is None else tuple(None if d is None else int(d) for d in tuple(dims))
