"""What the tape needs to know about tensors and variables: an interface, not a class.

A tensor has ``shape`` (a tuple, ``None`` dims unknown, or ``None`` for unknown rank) and
``dtype`` (a tinytf DType): eager tensors and the symbolic tensors of a traced function alike.
A ``tt.Variable`` is its own handle: ``tf.ReadVariableOp`` takes the Variable as its operand, and
an op given a Variable directly (``tt.matmul(x, v)``) reads it in the kernel, so the tape treats
that as a read.

    >>> is_tensor(tt.constant([1.0])), is_tensor(np.ones(2))
    (True, False)
    >>> static_shape(tt.constant([[1.0, 2.0]]))
    (1, 2)
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.framework import op as op_module
from tinytf.framework.variables import Variable


def is_tensor(x) -> bool:
    return hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(x, np.ndarray) \
        and isinstance(getattr(x, "dtype", None), dtypes.DType)


def is_differentiable(x) -> bool:
    dtype = getattr(x, "dtype", None)
    return isinstance(dtype, dtypes.DType) and dtype.is_differentiable


def static_shape(x):
    """``x``'s shape as a tuple of ints and Nones, or None when its rank is unknown."""
    shape = getattr(x, "shape", None)
    if shape is None:
        return None
    try:
        return tuple(None if d is None else int(d) for d in shape)
    except TypeError:
        return None


def as_variable(x):
    """``x`` when it is a ``tt.Variable``, else None."""
    return x if isinstance(x, Variable) else None


def handle_of(variable):
    """What stands for a variable on the tape: eagerly and when traced, ReadVariableOp's operand is
    the Variable itself (the tracing context turns it into a captured resource argument)."""
    return getattr(variable, "handle", variable)


def variable_of(x):
    """The variable ``x`` is, or stands for (a traced resource value whose spec knows it); else None."""
    if isinstance(x, Variable):
        return x
    spec = getattr(x, "spec", None)
    value = getattr(spec, "value", None)
    return value if isinstance(value, Variable) and spec.dtype is dtypes.resource else None


_READ_VARIABLE = []


def read_variable_op():
    """The ``tf.ReadVariableOp`` class (looked up when first needed: the op library loads later)."""
    if not _READ_VARIABLE:
        _READ_VARIABLE.append(op_module.REGISTRY.get("tf.ReadVariableOp"))
    return _READ_VARIABLE[0]
