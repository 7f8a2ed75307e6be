"""Reductions: Sum, Mean, Max, Min, Prod, All, Any, ArgMax, ArgMin (the scan Cumsum is in scan.py).

    %s = "tf.Sum"(%x, %axes) <{keep_dims = false}> : (tensor<4x5xf32>, tensor<1xi32>) -> tensor<4xf32>
    %i = "tf.ArgMax"(%x, %dim) : (tensor<3x4xf32>, tensor<i32>) -> tensor<3xi64>

The axes are an operand (``reduction_indices``, 0-D or 1-D, negative axes count from the end);
the shape rule reads them when they are a known constant. Under XLA they must be constants, as
in TensorFlow. TensorFlow's numerics: integer sums wrap in their dtype, an integer Mean
accumulates wide and truncates toward zero, Max/Min of nothing is the dtype's lowest/highest
value, ArgMax/ArgMin skip NaN.
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape
from tinytf.ops.type_lists import BOOL, NUMBER, REAL, check_types

INDEX_TYPES = frozenset({"int32", "int64"})


def reduction_axes(op_name: str, axes, rank: int) -> tuple[int, ...]:
    """Normalised, checked axes from an axes value (any rank; TensorFlow flattens it)."""
    out = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -rank <= a < rank:
            raise InvalidArgumentError(
                f"{op_name}: Invalid reduction dimension ({a} for input with {rank} dimension(s)", op_name)
        a %= rank
        if a in out:
            raise InvalidArgumentError(
                f"{op_name}: Invalid reduction arguments: Axes contains duplicate dimension: {a}", op_name)
        out.append(a)
    return tuple(sorted(out))


class _Reduce(Op):
    """``output = reduce(input, reduction_indices)``; ``keep_dims`` keeps reduced dims as 1."""

    input = operand_def()
    reduction_indices = operand_def()
    output = result_def()
    keep_dims = attr(False)
    traits = traits_def(Pure())

    TYPES: ClassVar = NUMBER
    BATCHING: ClassVar[str] = "reduction"

    @classmethod
    def infer(cls, input, reduction_indices, *, keep_dims=False):
        check_types(cls.name, input, cls.TYPES)
        check_types(cls.name, reduction_indices, INDEX_TYPES, "reduction_indices")
        axes = reduction_indices.value
        if input.shape is None:
            return TensorSpec(None, input.dtype)
        if axes is None:
            return TensorSpec((None,) * len(input.shape) if keep_dims else None, input.dtype)
        axes = reduction_axes(cls.name, axes, len(input.shape))
        return TensorSpec(_reduced_shape(input.shape, axes, keep_dims), input.dtype)

    @classmethod
    def compute(cls, xp, input, reduction_indices, *, keep_dims=False):
        axes = _checked_axes(cls.name, reduction_indices, input.ndim)
        return xp.asarray(cls._reduce(xp, input, axes, keep_dims))


_AXES: dict = {}  # (rank, axes dtype, shape and bytes) -> normalised axes: graphs reduce over the same axes


def _checked_axes(op_name: str, reduction_indices, rank: int) -> tuple[int, ...]:
    """``reduction_axes``, remembered for axes values that passed its checks."""
    axes = np.asarray(reduction_indices)
    key = (rank, axes.dtype.char, axes.shape, axes.tobytes())
    found = _AXES.get(key)
    if found is None:
        found = reduction_axes(op_name, axes, rank)  # raises for bad axes (never cached)
        if len(_AXES) < 1024:
            _AXES[key] = found
    return found


def _reduced_shape(shape, axes, keep_dims):
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


@register
class Sum(_Reduce):
    """Sum over axes (integers wrap in their dtype)."""

    name = "tf.Sum"
    BATCHING: ClassVar[str] = "sum"

    @staticmethod
    def _reduce(xp, x, axes, keep_dims):
        total = xp.sum(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)
        return total if x.dtype.kind in "iub" else total + xp.zeros((), x.dtype)  # TensorFlow's sum starts at +0

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = sum(x, axes): dx = U broadcast back over axes
        return [_broadcast_back(op, dy), None]


@register
class Mean(_Reduce):
    """Mean over axes; integers accumulate wide and truncate toward zero (mean([-1, -2]) = -1)."""

    name = "tf.Mean"
    BATCHING: ClassVar[str] = "mean"

    @staticmethod
    def _reduce(xp, x, axes, keep_dims):
        count = math.prod([x.shape[a] for a in axes])
        if x.dtype.kind in "iu":
            with np.errstate(all="ignore"):
                wide = np.int64 if x.dtype.kind == "i" else np.uint64
                total = xp.sum(x, axis=axes, keepdims=keep_dims, dtype=wide)
                if count == 0:
                    return xp.zeros_like(total).astype(x.dtype)
                floor = total // count  # then round toward zero, as C++ division (no abs: INT64_MIN stays exact)
                return xp.where((total < 0) & (floor * count != total), floor + 1, floor).astype(x.dtype)
        if xp is np:  # np.sum's own work, without its Python wrapper (a graph step's hot reduction)
            total = np.add.reduce(x, axis=axes, dtype=x.dtype, keepdims=keep_dims)
        else:
            total = xp.sum(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)
        if count == 0:  # 0 / 0: NaN as in TensorFlow, without numpy's warning
            with np.errstate(all="ignore"):
                mean = total / xp.asarray(count, x.dtype)
        else:
            mean = total / xp.asarray(count, x.dtype)
        return mean if mean.dtype == x.dtype else mean.astype(x.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = mean(x, axes): dx = U / n broadcast back over axes
        from tinytf.ops.array import cast
        from tinytf.ops.division import realdiv
        from tinytf.ops.math import multiply
        from tinytf.ops.shape import size

        x = op.inputs[0]
        axes, _ = _static_axes(op)
        dims = [x.shape[a] for a in axes]
        if all(d is not None for d in dims):
            return [multiply(_broadcast_back(op, dy), 1.0 / max(int(np.prod(dims, dtype=np.int64)), 1)), None]
        count = realdiv(cast(size(x), dy.dtype), cast(size(op.outputs[0]), dy.dtype))
        return [realdiv(_broadcast_back(op, dy), count), None]


class _Extremum(_Reduce):
    TYPES: ClassVar = REAL

    def verify_ir(self):
        v.check_types(self, operands={"input": v.tensor_of(REAL, quantized=True), "reduction_indices": v.INDEX})

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = max(x): dx = U / k at the k elements equal to y, else 0
        from tinytf.ops.array import cast
        from tinytf.ops.comparison import equal
        from tinytf.ops.division import realdiv
        from tinytf.ops.math import multiply

        x, axes_t = op.inputs
        y = _broadcast_back(op, op.outputs[0])
        hits = cast(equal(y, x), x.dtype)
        count = _broadcast_back(op, Sum.bind(hits, axes_t, keep_dims=op.attrs["keep_dims"]))
        return [multiply(realdiv(hits, count), _broadcast_back(op, dy)), None]


def _is_float(dtype) -> bool:
    return dtypes.as_dtype(dtype).is_floating  # numpy calls bfloat16's kind "V"


def _identity_of(dtype, lowest: bool):
    if _is_float(dtype):
        return -np.inf if lowest else np.inf
    info = np.iinfo(dtype)
    return info.min if lowest else info.max


@register
class Max(_Extremum):
    """Maximum over axes (NaN if any is NaN; the dtype's lowest value over nothing)."""

    name = "tf.Max"

    @staticmethod
    def _reduce(xp, x, axes, keep_dims):
        return xp.max(x, axis=axes, keepdims=keep_dims, initial=_identity_of(x.dtype, True))


@register
class Min(_Extremum):
    """Minimum over axes (NaN if any is NaN; the dtype's highest value over nothing)."""

    name = "tf.Min"

    @staticmethod
    def _reduce(xp, x, axes, keep_dims):
        return xp.min(x, axis=axes, keepdims=keep_dims, initial=_identity_of(x.dtype, False))


@register
class Prod(_Reduce):
    """Product over axes (integers wrap; 1 over nothing)."""

    name = "tf.Prod"

    @staticmethod
    @np.errstate(all="ignore")
    def _reduce(xp, x, axes, keep_dims):
        return xp.prod(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = prod(x): dx_i = U * prod_{j != i} x_j (exact at zeros)
        from tinytf.ops.array import cast
        from tinytf.ops.comparison import equal, where
        from tinytf.ops.division import realdiv
        from tinytf.ops.math import multiply, scalar_like

        x, axes_t = op.inputs
        keep = op.attrs["keep_dims"]
        zero, one = scalar_like(x, 0), scalar_like(x, 1)
        is_zero = equal(x, zero)
        safe_x = where(is_zero, one, x)
        zeros = _broadcast_back(op, Sum.bind(cast(is_zero, x.dtype), axes_t, keep_dims=keep))
        nonzero_prod = _broadcast_back(op, Prod.bind(safe_x, axes_t, keep_dims=keep))
        others = where(is_zero, where(equal(zeros, one), nonzero_prod, zero),
                       where(equal(zeros, zero), realdiv(nonzero_prod, safe_x), zero))
        return [multiply(others, _broadcast_back(op, dy)), None]


class _Logical(_Reduce):
    TYPES: ClassVar = BOOL
    traits = traits_def(NotDifferentiable())

    def verify_ir(self):
        v.check_types(self, operands={"input": v.BOOL, "reduction_indices": v.INDEX})
        v.check_reduction_dims(self.input, self.reduction_indices)


@register
class All(_Logical):
    """Logical and over axes (true over nothing)."""

    name = "tf.All"

    @staticmethod
    def _reduce(xp, x, axes, keep_dims):
        return xp.all(x, axis=axes, keepdims=keep_dims)


@register
class Any(_Logical):
    """Logical or over axes (false over nothing)."""

    name = "tf.Any"

    @staticmethod
    def _reduce(xp, x, axes, keep_dims):
        return xp.any(x, axis=axes, keepdims=keep_dims)


# --- gradient helpers --------------------------------------------------------------------------

def _static_value(t):
    spec = getattr(t, "spec", None)
    if spec is not None:
        return None if spec.value is None else np.asarray(spec.value)
    try:
        return np.asarray(t.numpy())
    except (AttributeError, TypeError):
        return None


def _static_axes(op):
    x, axes_t = op.inputs[0], op.inputs[1]
    value = _static_value(axes_t)
    if value is None or x.shape is None:
        raise UnimplementedError(f"{op.name}: gradient needs constant axes and a known input rank", op.name)
    return reduction_axes(op.name, value, len(x.shape)), x.shape


def _broadcast_back(op, g):
    """``g`` (shaped like the reduction's output) broadcast to the input's shape."""
    from tinytf.ops.array import Const, ones_like
    from tinytf.ops.comparison import where
    from tinytf.ops.math import multiply
    from tinytf.ops.shape import broadcast_to, reshape, shape

    axes, in_shape = _static_axes(op)
    x = op.inputs[0]
    if not op.attrs["keep_dims"]:
        kept = [1 if i in axes else (-1 if d is None else d) for i, d in enumerate(in_shape)]
        if kept.count(-1) > 1:  # the input's run-time shape with 1 at each reduced axis
            mask = Const.bind(value=np.array([i in axes for i in range(len(in_shape))]))
            kept = where(mask, Const.bind(value=np.ones(len(in_shape), np.int32)), shape(x))
        g = reshape(g, kept)
    if all(d is not None for d in in_shape):
        return broadcast_to(g, list(in_shape))
    return multiply(g, ones_like(x))  # keeps the input's partial static shape, which the tape needs


# --- public functions --------------------------------------------------------------------------

def index_constant(value):
    """An int32 (int64 if needed) constant operand from Python ints; tensors pass through."""
    from tinytf.ops.array import Const, index_operand, is_python_value

    if not is_python_value(value):
        return index_operand(value)
    array = np.asarray(value)
    if array.dtype.kind not in "iu" and array.size:
        raise InvalidArgumentError(f"expected integer axes, got {value!r}")
    fits = array.size == 0 or (array.min() >= -(2**31) and array.max() < 2**31)
    return Const.bind(value=np.asarray(array, np.int32 if fits else np.int64))


def _axes_operand(input_tensor, axis):
    """The axes operand: all axes for None (the rank must be known), else an int32 constant."""
    if axis is None:
        shape = getattr(input_tensor, "shape", None) if hasattr(input_tensor, "shape") else np.shape(input_tensor)
        if shape is None:
            raise UnimplementedError("reduce over all axes of a tensor of unknown rank")
        return index_constant(np.arange(len(shape), dtype=np.int32))
    return index_constant(axis)


def _reducer(cls):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        return cls.bind(input_tensor, _axes_operand(input_tensor, axis), keep_dims=bool(keepdims))

    reduce.__name__ = reduce.__qualname__ = "reduce_" + cls.name[3:].lower()
    reduce.__doc__ = f"``tt.{reduce.__name__}(x, axis=None, keepdims=False)``: {cls.__doc__}"
    return reduce


reduce_sum = _reducer(Sum)
reduce_mean = _reducer(Mean)
reduce_max = _reducer(Max)
reduce_min = _reducer(Min)
reduce_prod = _reducer(Prod)
reduce_all = _reducer(All)
reduce_any = _reducer(Any)


# --- ArgMax, ArgMin ----------------------------------------------------------------------------

class _ArgReduce(Op):
    input = operand_def()
    dimension = operand_def()
    output = result_def()
    output_type = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=dtypes.int64)
    traits = traits_def(Pure(), NotDifferentiable())

    OUTPUT_TYPES: ClassVar = INDEX_TYPES

    @classmethod
    def infer(cls, input, dimension, *, output_type=dtypes.int64):
        check_types(cls.name, input, REAL | BOOL)
        check_types(cls.name, dimension, INDEX_TYPES | {"int16"}, "dimension")
        out = dtypes.as_dtype(output_type)
        if out.name not in cls.OUTPUT_TYPES:
            raise InvalidArgumentError(f"{cls.name}: output_type {out.name} is not supported", cls.name)
        if dimension.shape not in (None, ()):
            raise InvalidArgumentError(
                f"{cls.name}: dim must be a scalar, but received tensor of shape: {fmt_shape(dimension.shape)}",
                cls.name)
        if input.shape is None:
            return TensorSpec(None, out)
        if dimension.value is None:
            return TensorSpec((None,) * max(len(input.shape) - 1, 0), out)
        axis = cls._axis(int(np.asarray(dimension.value)), len(input.shape))
        return TensorSpec(input.shape[:axis] + input.shape[axis + 1:], out)

    @classmethod
    def _axis(cls, axis, rank):
        if not -rank <= axis < rank:
            raise InvalidArgumentError(
                f"{cls.name}: Expected dimension in the range [{-rank}, {rank}), but got {axis}", cls.name)
        return axis % rank

    @classmethod
    def compute(cls, xp, input, dimension, *, output_type=dtypes.int64):
        if np.ndim(dimension) != 0:
            raise InvalidArgumentError(
                f"{cls.name}: dim must be a scalar, but received tensor of shape: {list(np.shape(dimension))}",
                cls.name)
        axis = cls._axis(int(dimension), input.ndim)
        if input.shape[axis] == 0:
            raise InvalidArgumentError(
                f"{cls.name}: Reduction axis {axis} is empty in shape {fmt_shape(input.shape)}", cls.name)
        if _is_float(input.dtype):  # TensorFlow's kernels never pick NaN (index 0 when all are NaN)
            input = xp.where(xp.isnan(input), xp.asarray(cls.NAN_AS, input.dtype), input)
        return xp.asarray(cls._arg(xp, input, axis)).astype(dtypes.as_dtype(output_type).np)


@register
class ArgMax(_ArgReduce):
    """Index of the largest value along ``dimension`` (the first on ties)."""

    name = "tf.ArgMax"
    OUTPUT_TYPES: ClassVar = INDEX_TYPES | {"int16", "uint16"}
    NAN_AS: ClassVar = -np.inf

    @staticmethod
    def _arg(xp, x, axis):
        return xp.argmax(x, axis=axis)


@register
class ArgMin(_ArgReduce):
    """Index of the smallest value along ``dimension`` (the first on ties)."""

    name = "tf.ArgMin"
    NAN_AS: ClassVar = np.inf

    @staticmethod
    def _arg(xp, x, axis):
        return xp.argmin(x, axis=axis)


def argmax(input, axis=None, output_type=dtypes.int64, name=None):
    return ArgMax.bind(input, index_constant(0 if axis is None else axis), output_type=dtypes.as_dtype(output_type))


def argmin(input, axis=None, output_type=dtypes.int64, name=None):
    return ArgMin.bind(input, index_constant(0 if axis is None else axis), output_type=dtypes.as_dtype(output_type))


# The public op functions (tt.math / tt.<name>); the other module-level names are helpers.
__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all", "reduce_any", "argmax", "argmin"]
