"""Index sequences and encodings: Range (tt.range) and OneHot (tt.one_hot).

    %r = "tf.Range"(%start, %limit, %delta) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5xi32>
    %y = "tf.OneHot"(%i, %depth, %on, %off) <{axis = -1 : i64}>
        : (tensor<3xi32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.array import cast, constant
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.operands import (
    check_index,
    const_value,
    folding,
    guard_allocation,
    index_operand,
    is_python_value,
)

_RANGE_KINDS = (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16,
                dtypes.int32, dtypes.int64, dtypes.uint16, dtypes.uint32)


def _range_size(op_name: str, start, limit, delta) -> int:
    """TensorFlow's element count of range(start, limit, delta), computed in the operands' dtype."""
    if delta == 0:
        raise InvalidArgumentError(f"{op_name}: Requires delta != 0: {delta}", op_name)
    if delta > 0 and start > limit:
        raise InvalidArgumentError(f"{op_name}: Requires start <= limit when delta > 0: {start}/{limit}", op_name)
    if delta < 0 and start < limit:
        raise InvalidArgumentError(f"{op_name}: Requires start >= limit when delta < 0: {start}/{limit}", op_name)
    if start.dtype.kind in "iu":
        s, lim, d = int(start), int(limit), int(delta)
        return (abs(lim - s) + abs(d) - 1) // abs(d)
    with np.errstate(all="ignore"):
        size = np.ceil(np.abs((limit - start) / delta))
    if not np.isfinite(size) or size > np.iinfo(np.int64).max:
        raise InvalidArgumentError(
            f"{op_name}: Requires ((limit - start) / delta) <= int64 max and finite: {start}/{limit}/{delta}",
            op_name)
    return int(size)


@register
class Range(Op):
    """start, start + delta, ... up to (not including) limit.

    %y = "tf.Range"(%start, %limit, %delta) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
    """

    name = "tf.Range"
    start = operand_def()
    limit = operand_def()
    delta = operand_def()
    output = result_def()
    Tidx = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    @folding
    def infer(cls, start, limit, delta, *, Tidx=None):
        for what, spec in (("start", start), ("limit", limit), ("delta", delta)):
            if spec.shape is not None and spec.shape not in ((), (1,), (None,)):  # (TF takes 1-element vectors)
                raise InvalidArgumentError(f"{cls.name}: {what} must be a scalar, not shape {fmt_shape(spec.shape)}",
                                           cls.name)
        dtype = same_dtype(cls.name, start, limit, delta)
        if dtype not in _RANGE_KINDS:
            raise InvalidArgumentError(f"{cls.name}: dtype {dtype.name} is not supported", cls.name)
        values = [const_value(s) for s in (start, limit, delta)]
        if any(v is None for v in values):
            return TensorSpec((None,), dtype)
        if any(v.size != 1 for v in values):
            raise InvalidArgumentError(f"{cls.name}: start, limit and delta must be scalars", cls.name)
        size = _range_size(cls.name, *(v.reshape(()) for v in values))
        check_allocation(cls.name, (size,), dtype)
        return TensorSpec((size,), dtype)

    @classmethod
    def compute(cls, xp, start, limit, delta, *, Tidx=None):
        start, limit, delta = (xp.reshape(v, ()) for v in (start, limit, delta))
        size = _range_size(cls.name, np.asarray(start), np.asarray(limit), np.asarray(delta))
        # TensorFlow's CPU kernel computes start + T(i) * delta in the operands' dtype.
        return xp.arange(size).astype(start.dtype) * delta + start


_RANGE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 (TensorFlow's name)
    """``tt.range``: the operands take the widest of their dtypes (int32 < int64 < float32 < float64)."""
    if limit is None:
        start, limit = 0, start
    args = (start, limit, delta)
    if dtype is None:
        kinds = [dtypes.result_type_of_python(a) if is_python_value(a) else a.dtype for a in args]
        dtype = max(kinds, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else -1)
    dtype = dtypes.as_dtype(dtype)
    operands = [constant(a, dtype) if is_python_value(a) else (a if a.dtype == dtype else cast(a, dtype))
                for a in args]
    return Range.bind(*operands, Tidx=dtype)


@register
class OneHot(Op):
    """on_value where indices == i along a new axis of size depth, off_value elsewhere.

    %y = "tf.OneHot"(%i, %depth, %on, %off) <{axis = -1 : i64}>
        : (tensor<3xi64>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
    """

    name = "tf.OneHot"
    indices = operand_def()
    depth = operand_def()
    on_value = operand_def()
    off_value = operand_def()
    output = result_def()
    axis = attr(-1)
    traits = traits_def(Pure(), NotDifferentiable())

    def verify_ir(self):
        axis, r = self.attr_values()["axis"], v.rank(self.indices.type)
        if r is not None and not (axis == -1 or 0 <= axis <= r):
            v.fail(f"expected axis ({axis}) to be -1 or between [0, {r}]")
        if axis < -1:
            v.fail(f"expected axis ({axis}) to be -1 or between [0, rank(indices()))")
        for what in ("depth", "on_value", "off_value"):
            if not v.has_rank(getattr(self, what).type, 0):
                v.fail(f"requires {what} to be a scalar")
        depth = v.const_ints(self.depth)
        if depth is not None and v.rank(v.type_of(self.depth)) != 0:
            v.fail("requires depth to be a scalar")
        if depth and depth[0] < 0:
            v.fail(f"depth must be non-negative, got: {depth[0]}")

    @classmethod
    def infer(cls, indices, depth, on_value, off_value, *, axis):
        if indices.dtype not in (dtypes.uint8, dtypes.int8, dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: indices of dtype {indices.dtype.name} are not supported",
                                       cls.name)
        check_index(cls.name, depth, "depth", rank=0)
        dtype = same_dtype(cls.name, on_value, off_value)
        for what, spec in (("on_value", on_value), ("off_value", off_value)):
            if spec.shape is not None and spec.shape != ():
                raise InvalidArgumentError(f"{cls.name}: {what} must be a scalar, got {fmt_shape(spec.shape)}",
                                           cls.name)
        if indices.shape is None:
            if axis < -1:
                raise InvalidArgumentError(f"{cls.name}: Expected axis to be -1 or between [0, rank), got {axis}",
                                           cls.name)
            return TensorSpec(None, dtype)
        rank = len(indices.shape)
        if not -1 <= axis <= rank:
            raise InvalidArgumentError(
                f"{cls.name}: Expected axis to be -1 or between [0, {rank}], got {axis}", cls.name)
        value = const_value(depth)
        size = None if value is None else int(value)
        if size is not None and size < 0:
            raise InvalidArgumentError(f"{cls.name}: depth must be non-negative, got: {size}", cls.name)
        where = rank if axis == -1 else axis
        shape = indices.shape[:where] + (size,) + indices.shape[where:]
        guard_allocation(cls.name, shape, dtype)
        return TensorSpec(shape, dtype)

    @staticmethod
    def compute(xp, indices, depth, on_value, off_value, *, axis):
        where = indices.ndim if axis == -1 else axis
        classes = xp.arange(int(depth)).reshape((-1,) + (1,) * (indices.ndim - where))
        return xp.where(xp.expand_dims(indices, where) == classes, on_value, off_value).astype(on_value.dtype)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """``tt.one_hot``: the dtype is ``dtype``, else that of a given on/off value, else float32."""
    if dtype is None:
        given = [v for v in (on_value, off_value) if v is not None]
        dtype = next((v.dtype for v in given if not is_python_value(v)), None) or \
            (dtypes.result_type_of_python(given[0]) if given else dtypes.float32)
    dtype = dtypes.as_dtype(dtype)
    on, off = (constant(default if v is None else v, dtype) if v is None or is_python_value(v) else v
               for v, default in ((on_value, 1), (off_value, 0)))
    return OneHot.bind(index_operand(indices), index_operand(depth, dtypes.int32), on, off,
                       axis=-1 if axis is None else axis)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["range", "one_hot"]
