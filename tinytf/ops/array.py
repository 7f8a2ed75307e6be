"""Array ops that make or relabel data: Const, Identity, IdentityN, Cast, StopGradient, Fill,
ZerosLike, OnesLike, Range, OneHot; the tt.zeros / ones / fill / range / one_hot helpers; and the
index-operand helpers shape.py and slicing.py share.

    %c = "tf.Const"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %z = "tf.Fill"(%c, %v) : (tensor<2xi32>, tensor<f32>) -> tensor<2x3xf32>
"""
from __future__ import annotations

import functools
import math

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import ConstantLike, Pure

from tinytf import dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape, same_dtype


@register
class Const(Op):
    """A constant tensor.  %c = "tf.Const"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>"""

    name = "tf.Const"
    output = result_def()
    value = attr(kind="tensor")
    traits = traits_def(Pure(), ConstantLike(), NotDifferentiable())

    @staticmethod
    def infer(*, value):
        return TensorSpec(value.shape, dtypes.as_dtype(value.dtype))

    @staticmethod
    def compute(xp, *, value):
        return xp.asarray(value)


def constant(value, dtype=None, shape=None, name=None):
    """``tt.constant``: a tensor from a Python value (float32 for floats, int32 for ints) or a numpy
    array (its own dtype, as ``tf.constant``)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    elif isinstance(value, np.ndarray | np.generic) and value.dtype.kind in "biufc":
        dtype = dtypes.as_dtype(value.dtype)
    else:
        dtype = dtypes.result_type_of_python(value)
    array = np.asarray(value, dtype=dtype.np)
    if shape is not None:
        array = np.broadcast_to(array, tuple(shape)) if array.size == 1 else array.reshape(tuple(shape))
    # (np.ascontiguousarray would turn a scalar into a 1-element vector)
    return Const.bind(value=array if array.flags.c_contiguous else np.array(array, order="C"))


@register
class Identity(Op):
    """Returns its input. Never constant-folded: it keeps an int8 weight from folding back to float.

    %y = "tf.Identity"(%x) {device = ""} : (tensor<4xi8>) -> tensor<4xi8>
    """

    name = "tf.Identity"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NoConstantFold())

    @staticmethod
    def infer(input):
        return input

    @staticmethod
    def compute(xp, input):
        return input

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = x: dx = dy
        return [dy]


def identity(input, name=None):
    return Identity.bind(input)


@register
class IdentityN(Op):
    """Returns its inputs (Keras exports custom gradients, e.g. swish, through it)."""

    name = "tf.IdentityN"
    input = var_operand_def()
    output = var_result_def()
    traits = traits_def(Pure(), NoConstantFold())

    @staticmethod
    def infer(*input):
        return list(input)

    @staticmethod
    def compute(xp, *input):
        return tuple(input)

    @staticmethod
    def grad(op, *dys):  # Given upstream grads dys and ys = xs: dxs = dys
        return list(dys)


def identity_n(input, name=None):
    return IdentityN.bind(*input)


@register
class Cast(Op):
    """Converts to ``DstT``.  %y = "tf.Cast"(%x) <{Truncate = false}> : (tensor<2xi8>) -> tensor<2xi32>"""

    name = "tf.Cast"
    x = operand_def()
    y = result_def()
    Truncate = attr(False)
    DstT = derived("type", lambda op: tf_types.dtype_of(op.results[0].type))
    traits = traits_def(Pure())

    @staticmethod
    def infer(x, *, DstT, Truncate):
        return TensorSpec(x.shape, DstT)

    @staticmethod
    def compute(xp, x, *, DstT, Truncate):
        if x.dtype.kind == "c" and DstT.kind != "c":
            x = xp.real(x)
        return x.astype(DstT.np)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = cast(x): dx = cast(dy) for float x, else None
        src = op.inputs[0].dtype
        return [cast(dy, src) if src.is_differentiable else None]


def cast(x, dtype, name=None):
    return Cast.bind(x, DstT=dtypes.as_dtype(dtype), Truncate=False)


# --- helpers the shape and slicing ops share ---------------------------------------------------

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
        from tinytf.ops.slicing import stack

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


# --- StopGradient, Fill, ZerosLike, OnesLike --------------------------------------------------

@register
class StopGradient(Op):
    """Returns its input; gradients do not flow through it.

    %y = "tf.StopGradient"(%x) {device = ""} : (tensor<2x5x1xf32>) -> tensor<2x5x1xf32>
    """

    name = "tf.StopGradient"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @staticmethod
    def infer(input):
        return TensorSpec(input.shape, input.dtype)

    @staticmethod
    def compute(xp, input):
        return input


def stop_gradient(input, name=None):
    return StopGradient.bind(input)


@register
class Fill(Op):
    """A tensor of shape ``dims`` filled with the scalar ``value``.

    %y = "tf.Fill"(%dims, %v) : (tensor<2xi32>, tensor<f32>) -> tensor<2x3xf32>
    """

    name = "tf.Fill"
    dims = operand_def()
    value = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, dims, value):
        if value.shape is not None and value.shape not in ((), (1,), (None,)):  # (TF takes a 1-element vector)
            raise InvalidArgumentError(
                f"{cls.name}: value must represent a scalar, got shape {fmt_shape(value.shape)}", cls.name)
        shape = shape_from_operand(cls.name, dims, "dims", legacy_scalar=True)
        guard_allocation(cls.name, shape, value.dtype)
        return TensorSpec(shape, value.dtype)

    @staticmethod
    def compute(xp, dims, value):
        if value.size != 1:
            raise InvalidArgumentError(f"tf.Fill: value must represent a scalar, got shape {list(value.shape)}")
        return xp.full(tuple(int(d) for d in np.asarray(dims).reshape(-1)), value.reshape(()), dtype=value.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = fill(dims, v): dv = sum(U)
        from tinytf.ops.reduction import reduce_sum

        return [None, reduce_sum(dy)]


def fill(dims, value, name=None):
    return Fill.bind(index_operand(dims), value)


def _filled(shape, value, dtype):
    """zeros/ones: a constant when the shape is known and small (as TensorFlow), else tf.Fill."""
    dtype = dtypes.as_dtype(dtype)
    if is_python_value(shape) and not isinstance(shape, np.ndarray | np.generic) or \
            isinstance(shape, np.ndarray) and shape.dtype.kind in "iu":
        dims = [int(shape)] if isinstance(shape, int) else [int(d) for d in np.asarray(shape).reshape(-1)]
        if any(d < 0 for d in dims):
            raise InvalidArgumentError(f"tf.Fill: dims {dims} has a negative dimension", Fill.name)
        check_allocation(Fill.name, dims, dtype)
        if np.prod(dims, dtype=np.int64) < 1000:
            return constant(np.full(dims, value, dtype.np))
    return Fill.bind(index_operand(shape), constant(np.asarray(value, dtype.np)))


def zeros(shape, dtype=dtypes.float32, name=None):
    return _filled(shape, 0, dtype)


def ones(shape, dtype=dtypes.float32, name=None):
    return _filled(shape, 1, dtype)


class _FilledLike(Op):
    """y = a constant of x's shape and dtype."""

    x = operand_def()
    y = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @staticmethod
    def infer(x):
        return TensorSpec(x.shape, x.dtype)


@register
class ZerosLike(_FilledLike):
    """Zeros of x's shape and dtype.  %y = "tf.ZerosLike"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.ZerosLike"

    @staticmethod
    def compute(xp, x):
        return xp.zeros_like(x)


@register
class OnesLike(_FilledLike):
    """Ones of x's shape and dtype.  %y = "tf.OnesLike"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.OnesLike"

    @staticmethod
    def compute(xp, x):
        return xp.ones_like(x)


def _like(cls, input, dtype, value):
    if dtype is not None and is_python_value(input):
        input = constant(input, dtype)
    elif is_python_value(input):
        input = constant(input)
    if dtype is None or dtypes.as_dtype(dtype) == input.dtype:
        return cls.bind(input)
    from tinytf.ops.shape import shape as shape_of

    return Fill.bind(shape_of(input), constant(np.asarray(value, dtypes.as_dtype(dtype).np)))


def zeros_like(input, dtype=None, name=None):
    return _like(ZerosLike, input, dtype, 0)


def ones_like(input, dtype=None, name=None):
    return _like(OnesLike, input, dtype, 1)


# --- Range, OneHot ---------------------------------------------------------------------------

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


# Helpers stay out of tt.*; the rest go where TensorFlow has them (tinytf.runtime.namespaces).
__namespaces__ = {"is_python_value": (), "index_operand": (), "const_value": (), "static_value": (),
                  "check_index": (), "shape_from_operand": (), "guard_allocation": (), "folding": ()}
