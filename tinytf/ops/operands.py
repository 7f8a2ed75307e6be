"""Index and shape operands: turning Python values into index operands, reading operands whose
values are known, checking them, and folding small integer results of shape arithmetic.

    %s = "tf.Const"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %y = "tf.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi32>) -> tensor<2x3xf32>    // shape (2, 3) known
"""
from __future__ import annotations

import functools
import math

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.kernel import check_allocation
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape

__all__: list[str] = []  # no public op functions: helpers stay out of tt.*


_PYTHON_VALUES = (bool, int, float, complex, list, tuple, np.ndarray, np.generic)


def is_python_value(value) -> bool:
    """A Python or numpy value (not a tensor): public functions turn these into constants."""
    return isinstance(value, _PYTHON_VALUES)


def index_operand(value, dtype=None):
    """An index operand (shape, perm, begin, ...) from Python ints (int32, or int64 when one does
    not fit), a tensor, or a list mixing ints and scalar tensors (packed, as TensorFlow does).

    Python values become numpy arrays, which every context takes as a constant operand (a tf.Const
    when traced) without dispatching an op of their own."""
    if isinstance(value, list | tuple) and any(not is_python_value(v) for v in value):
        from tinytf.ops.array import cast, constant  # array.py imports this module
        from tinytf.ops.joining import stack

        kinds = {v.dtype for v in value if not is_python_value(v)}
        kind = dtype or (dtypes.int64 if dtypes.int64 in kinds else kinds.pop())
        return stack([constant(v, kind) if is_python_value(v) else v if v.dtype == kind else cast(v, kind)
                      for v in value])
    if not is_python_value(value):
        return value
    array = np.asarray(value)
    if array.dtype.kind not in "iu" and not (array.size == 0 and array.dtype.kind == "f"):
        raise InvalidArgumentError(f"expected integer indices, got {value!r}")
    if dtype is None:
        fits = array.size == 0 or (array.min() >= -(2**31) and array.max() < 2**31)
        dtype = dtypes.int32 if fits else dtypes.int64
    return array.astype(dtypes.as_dtype(dtype).np)


def const_value(spec: TensorSpec):
    """The numpy value of an operand whose value is known (eagerly, or a constant), else None."""
    value = spec.value
    return None if value is None else np.asarray(value)


def static_value(tensor):
    """A tensor's numpy value when it is known before running: an eager tensor's, or a traced one
    whose shape rule computed it (a constant, shape arithmetic on static shapes); else None."""
    if is_python_value(tensor):
        return np.asarray(tensor)
    spec = getattr(tensor, "spec", None)
    if spec is not None:
        return const_value(spec)
    try:
        return np.asarray(tensor.numpy())
    except (AttributeError, TypeError):
        return None


def check_index(op_name: str, spec: TensorSpec, what: str, rank=None):
    """An index operand must be int32/int64 (and, when given, of rank ``rank``)."""
    if spec.dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"{op_name}: {what} must be int32 or int64, got {spec.dtype.name}", op_name)
    if rank is not None and spec.shape is not None and len(spec.shape) != rank:
        raise InvalidArgumentError(
            f"{op_name}: {what} must be {('a scalar', 'a vector', 'a matrix')[rank]}, got shape "
            f"{fmt_shape(spec.shape)}", op_name)


def shape_from_operand(op_name: str, spec: TensorSpec, what: str = "shape", legacy_scalar: bool = False):
    """The output shape a 1-D shape operand describes: its values, or ``None`` dims of known count.
    ``legacy_scalar``: a scalar means a 1-D shape of that one dim (TensorFlow's Fill, Reshape)."""
    check_index(op_name, spec, what, rank=None if legacy_scalar else 1)
    if spec.shape is not None and len(spec.shape) > 1:
        raise InvalidArgumentError(f"{op_name}: {what} must be a vector, got shape {fmt_shape(spec.shape)}", op_name)
    value = const_value(spec)
    if value is not None:
        dims = tuple(int(d) for d in value.reshape(-1))
        if any(d < 0 for d in dims):
            raise InvalidArgumentError(f"{op_name}: {what} {list(dims)} has a negative dimension", op_name)
        return dims
    if spec.shape is None or (spec.shape and spec.shape[0] is None):
        return None
    return (None,) * (spec.shape[0] if spec.shape else 1)


def guard_allocation(op_name: str, shape, dtype) -> None:
    """check_allocation over the known dims (unknown ones count as 1: a lower bound)."""
    if shape is not None:
        check_allocation(op_name, [1 if d is None else d for d in shape], dtype)


def folding(infer):
    """Decorates a shape rule (under ``@classmethod``): when every operand's value is known and the
    result is a small integer tensor, the result's value is computed too, so shape arithmetic in a
    traced function (a gradient's ``reshape(dy, shape(x))``, Tile's split shape) stays static."""

    @functools.wraps(infer)
    def rule(cls, *specs, **attrs):
        out = infer(cls, *specs, **attrs)
        outs = out if isinstance(out, list) else [out]
        if not all(o.dtype in _FOLDED and o.is_fully_defined and math.prod(o.shape) <= _FOLD_LIMIT for o in outs) \
                or any(s.value is None for s in specs):
            return out
        values = cls.compute(np, *[np.asarray(s.value) for s in specs], **attrs)
        values = values if isinstance(values, tuple | list) else [values]
        folded = [TensorSpec(o.shape, o.dtype, value=np.asarray(v, o.dtype.np)) for o, v in zip(outs, values)]
        return folded if isinstance(out, list) else folded[0]

    return rule


_FOLDED = (dtypes.int32, dtypes.int64)
_FOLD_LIMIT = 64


def const_ints(spec):
    value = const_value(spec)
    return None if value is None else [int(v) for v in value.reshape(-1)]


def static_shape(tensor):
    shape_ = getattr(tensor, "shape", None)
    return None if shape_ is None or None in tuple(shape_) else tuple(shape_)


def scalar_axis(op_name: str, spec: TensorSpec, what: str = "axis", legacy: str = ""):
    """A scalar index operand's value (None when unknown). As TensorFlow, ``legacy="vector"`` also
    takes a 1-element vector (ConcatV2's axis) and ``legacy="any"`` any 1-element tensor (SplitV)."""
    check_index(op_name, spec, what)
    shape_ = spec.shape
    ok = shape_ is None or shape_ == () or (legacy == "vector" and shape_ in ((1,), (None,))) or \
        (legacy == "any" and all(d in (1, None) for d in shape_))
    if not ok:
        raise InvalidArgumentError(f"{op_name}: {what} must be a scalar, got shape {fmt_shape(shape_)}", op_name)
    value = const_value(spec)
    if value is not None and value.size != 1:
        raise InvalidArgumentError(f"{op_name}: {what} must be a scalar, got {value.size} values", op_name)
    return None if value is None else as_int(value)


def as_int(value) -> int:
    """A Python int from a 1-element array (a scalar, or a legacy 1-element vector)."""
    return int(np.asarray(value).reshape(-1)[0])
