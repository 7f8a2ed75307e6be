"""Slicing and joining: Slice, StridedSlice (and StridedSliceGrad), GatherV2, ConcatV2 (and
ConcatOffset), Pack, Unpack, Split, SplitV, Tile, Pad, PadV2, UnsortedSegmentSum (GatherV2's
gradient); ``strided_slice_from_key`` turns a Python ``x[key]`` into StridedSlice operands.

    %y = "tf.StridedSlice"(%x, %b, %e, %s) <{begin_mask = 2 : i64, ellipsis_mask = 0 : i64,
        end_mask = 3 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64}>
        : (tensor<3x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x2xf32>
    %c = "tf.ConcatV2"(%a, %b, %axis) : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<i32>) -> tensor<6x4xf32>
"""
from __future__ import annotations

import builtins
import math

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

from tinytf import dtypes
from tinytf.errors import InvalidArgumentError, ResourceExhaustedError, UnimplementedError
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import array
from tinytf.ops import shape as shapes
from tinytf.ops.array import (
    check_index,
    const_value,
    constant,
    folding,
    guard_allocation,
    identity,
    index_operand,
    is_python_value,
    ones_like,
    shape_from_operand,
    static_value,
    zeros_like,
)
from tinytf.ops.base import fmt_shape, normalize_axis, same_dtype


def _values(spec):
    value = const_value(spec)
    return None if value is None else [int(v) for v in value.reshape(-1)]


def _index_operands(*values):
    """Index operands sharing one dtype (TensorFlow's ops take one Index type): int64 when any of them
    is int64 (as TensorFlow's ``x[key]``), else int32."""
    kind = dtypes.int64 if any(index_operand_dtype(v) == dtypes.int64 for v in values) else dtypes.int32
    operands = [index_operand(v, kind if is_python_value(v) else None) for v in values]
    return [o if dtypes.as_dtype(o.dtype) == kind else array.cast(o, kind) for o in operands]


def index_operand_dtype(value):
    """The dtype ``index_operand`` would give ``value`` by itself."""
    if not is_python_value(value):
        return value.dtype
    if isinstance(value, list | tuple) and any(not is_python_value(v) for v in value):
        return dtypes.int64 if any(getattr(v, "dtype", None) == dtypes.int64 for v in value) else dtypes.int32
    array_ = np.asarray(value)
    fits = array_.size == 0 or (array_.min() >= -(2**31) and array_.max() < 2**31)
    return dtypes.int32 if fits else dtypes.int64


def _static_shape(tensor):
    shape_ = getattr(tensor, "shape", None)
    return None if shape_ is None or None in tuple(shape_) else tuple(shape_)


def _scalar_axis(op_name: str, spec: TensorSpec, what: str = "axis", legacy: str = ""):
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
    return None if value is None else _int(value)


def _int(value) -> int:
    """A Python int from a 1-element array (a scalar, or a legacy 1-element vector)."""
    return int(np.asarray(value).reshape(-1)[0])


# --- StridedSlice's spec: TensorFlow's ValidateStridedSliceOp --------------------------------

_NEW_AXIS, _SHRINK_AXIS = -1, -2


class SliceDim:
    """How one input dim is sliced: begin, end, stride (canonical: in range) and the result size."""

    __slots__ = ("begin", "end", "stride", "size")

    def __init__(self, begin, end, stride, size):
        self.begin, self.end, self.stride, self.size = begin, end, stride, size

    def as_slice(self):
        if self.size == 0:
            return builtins.slice(0, 0)
        # a negative stride ending before index 0 has canonical end -1, which Python reads as "last"
        return builtins.slice(self.begin, None if self.end < 0 else self.end, self.stride)


def _dense_spec(op_name: str, rank: int, n: int, masks: dict):
    """The sparse spec (n entries with masks) expanded to one entry per input dim.

    Returns a list of (sparse index or None for an ellipsis dim, begin masked, end masked, shrink) per
    input dim, and the final shape's gather list (an input dim, _NEW_AXIS or _SHRINK_AXIS per entry).
    """
    ellipsis, new_axis = masks["ellipsis_mask"], masks["new_axis_mask"]
    if ellipsis & (ellipsis - 1):
        raise InvalidArgumentError(f"{op_name}: Multiple ellipses in slice spec not allowed", op_name)
    seen, new_after_ellipsis = False, 0
    for i in range(n):
        if seen and new_axis >> i & 1:
            new_after_ellipsis += 1
        seen = seen or bool(ellipsis >> i & 1)
    if not seen:  # an implicit ellipsis at the end covers the dims the spec leaves out
        ellipsis |= 1 << n
        n += 1
    dense, gather, full = [], [], 0
    for i in range(n):
        bit = 1 << i
        if ellipsis & bit:
            stop = min(rank - (n - i) + 1 + new_after_ellipsis, rank)
            while full < stop:
                dense.append((None, True, True, False))
                gather.append(full)
                full += 1
        elif new_axis & bit:
            gather.append(_NEW_AXIS)
        else:
            if full == rank:
                if rank == 0:
                    raise InvalidArgumentError(f"{op_name}: Attempting to slice scalar input.", op_name)
                raise InvalidArgumentError(
                    f"{op_name}: Index out of range using input dim {full}; input has only {rank} dims", op_name)
            shrink = bool(masks["shrink_axis_mask"] & bit)
            dense.append((i, bool(masks["begin_mask"] & bit), bool(masks["end_mask"] & bit), shrink))
            gather.append(_SHRINK_AXIS if shrink else full)
            full += 1
    return dense, gather


def _canonical(x: int, masked: bool, is_end: bool, dim: int, stride: int) -> int:
    """A begin or end index made non-negative and clamped to the dim (masked: the far end)."""
    lo, hi = (0, dim) if stride > 0 else (-1, dim - 1)
    if masked:
        return (hi if is_end else lo) if stride > 0 else (lo if is_end else hi)
    x = x + dim if x < 0 else x
    return min(max(x, lo), hi)


def strided_slice_plan(op_name: str, in_shape, begin, end, strides, masks: dict):
    """(one SliceDim per input dim, the output shape) of StridedSlice, exactly as TensorFlow computes it.

    ``in_shape`` may have ``None`` dims; ``begin``/``end`` may be None (unknown values); ``strides``
    must be known. Unknown sizes are None.
    """
    if not (begin is None or len(begin) == len(end) == len(strides)) or (end is not None and begin is None):
        raise InvalidArgumentError(f"{op_name}: begin, end and strides must have the same length", op_name)
    dense, gather = _dense_spec(op_name, len(in_shape), len(strides), masks)
    dims = []
    for j, ((i, begin_masked, end_masked, shrink), dim) in enumerate(zip(dense, in_shape)):
        b, e, s = (0, 0, 1) if i is None else (None if begin is None else begin[i],
                                                None if end is None else end[i], strides[i])
        if s == 0:
            raise InvalidArgumentError(f"{op_name}: strides[{i}] must be non-zero", op_name)
        if shrink and s <= 0:
            raise InvalidArgumentError(f"{op_name}: only stride 1 allowed on non-range indexing.", op_name)
        if dim is None:
            dims.append(SliceDim(None, None, s, 1 if shrink else None))
            continue
        if b is not None:
            if shrink:
                b = b + dim if b < 0 else b
                e = b + 1
                if not 0 <= b < dim:
                    raise InvalidArgumentError(
                        f"{op_name}: slice index {b} of dimension {j} out of bounds (input shape "
                        f"{fmt_shape(in_shape)}).", op_name)
            else:
                b, e = _canonical(b, begin_masked, False, dim, s), _canonical(e, end_masked, True, dim, s)
            length = e - b
        elif shrink:
            length = 1
        elif begin_masked and end_masked:
            length = dim if s > 0 else -dim
        else:
            dims.append(SliceDim(None, None, s, None))
            continue
        count = 0 if length == 0 or (length < 0) != (s < 0) else (abs(length) + abs(s) - 1) // abs(s)
        dims.append(SliceDim(b, e, s, count))
    final = tuple(1 if g == _NEW_AXIS else dims[g].size for g in gather if g != _SHRINK_AXIS)
    return dims, final


MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def strided_slice_from_key(x, key):
    """``x[key]`` as TensorFlow encodes it: ints, slices, ``...``, ``None`` (newaxis), negative
    indices and scalar int tensors become StridedSlice's begin/end/strides and masks."""
    if not isinstance(key, tuple | list):
        key = (key,)
    begin, end, strides = [], [], []
    masks = dict.fromkeys(MASKS, 0)
    for i, item in enumerate(key):
        bit = 1 << i
        if isinstance(item, builtins.slice):
            for value, out, mask in ((item.start, begin, "begin_mask"), (item.stop, end, "end_mask")):
                if value is None:
                    out.append(0)
                    masks[mask] |= bit
                else:
                    out.append(_key_index(value))
            strides.append(1 if item.step is None else _key_index(item.step))
        elif item is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            masks["ellipsis_mask"] |= bit
        elif item is None:
            begin.append(0), end.append(0), strides.append(1)
            masks["new_axis_mask"] |= bit
        else:
            index = _key_index(item)
            begin.append(index)
            end.append(index + 1 if is_python_value(index) else index)  # end is ignored when shrinking
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
    if not begin:
        begin = end = strides = np.zeros(0, np.int32)
    return strided_slice(x, begin, end, strides, **masks)


def _key_index(value):
    if isinstance(value, bool | np.bool_):
        raise InvalidArgumentError(f"tf.StridedSlice: boolean index {value!r} is not supported (use tt.boolean_mask)")
    if isinstance(value, int | np.integer):
        return int(value)
    if not is_python_value(value) and getattr(value, "dtype", None) in (dtypes.int32, dtypes.int64) and \
            getattr(value, "shape", None) == ():
        return value
    raise InvalidArgumentError(
        "tf.StridedSlice: Only integers, slices (`:`), ellipsis (`...`), tt.newaxis (`None`) and scalar "
        f"int32/int64 tensors are valid indices, got {value!r}")


# --- Slice, StridedSlice ---------------------------------------------------------------------

def _slice_bounds(op_name: str, in_shape, begin, size):
    """(begin, size) per dim with size -1 resolved, checked as TensorFlow's Slice does."""
    out = []
    for i, (d, b, s) in enumerate(zip(in_shape, begin, size)):
        if s == -1:
            s = None if d is None else d - b
        if d is not None:
            if not 0 <= b <= d:
                raise InvalidArgumentError(f"{op_name}: Expected begin[{i}] in [0, {d}], but got {b}", op_name)
            if not 0 <= s <= d - b:
                raise InvalidArgumentError(f"{op_name}: Expected size[{i}] in [0, {d - b}], but got {s}", op_name)
        elif b < 0 or (s is not None and s < 0):
            raise InvalidArgumentError(f"{op_name}: begin {list(begin)} and size {list(size)} must be non-negative "
                                       f"(or size -1)", op_name)
        out.append((b, s))
    return out


@register
class Slice(Op):
    """input[begin[i] : begin[i] + size[i]] in every dim; size -1 means to the end.

    %y = "tf.Slice"(%x, %begin, %size) : (tensor<3x4xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x4xf32>
    """

    name = "tf.Slice"
    input = operand_def()
    begin = operand_def()
    size = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, input, begin, size):
        check_index(cls.name, begin, "begin", rank=1)
        check_index(cls.name, size, "size", rank=1)
        same_dtype(cls.name, begin, size)
        n = next((s.shape[0] for s in (begin, size) if s.shape is not None and s.shape[0] is not None), None)
        r = input.rank if input.rank is not None else n
        for spec in (begin, size):
            if r is not None and spec.shape is not None and spec.shape[0] not in (None, r):
                raise InvalidArgumentError(
                    f"{cls.name}: Expected begin and size arguments to be 1-D tensors of size {r}, but got shapes "
                    f"{fmt_shape(begin.shape)} and {fmt_shape(size.shape)} instead.", cls.name)
        if r is None:
            return TensorSpec(None, input.dtype)
        b, s = _values(begin), _values(size)
        in_shape = input.shape if input.shape is not None else (None,) * r
        if b is None:
            return TensorSpec(tuple(None if v == -1 else v for v in s) if s is not None else (None,) * r,
                              input.dtype)
        if s is None:
            return TensorSpec((None,) * r, input.dtype)
        return TensorSpec(tuple(sz for _, sz in _slice_bounds(cls.name, in_shape, b, s)), input.dtype)

    @classmethod
    def compute(cls, xp, input, begin, size):
        bounds = _slice_bounds(cls.name, input.shape, [int(v) for v in begin], [int(v) for v in size])
        return input[tuple(builtins.slice(b, b + s) for b, s in bounds)]

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = x[b : b + s]: dx = pad(U, [[b, shape(x) - b - shape(U)]])
        from tinytf.ops.math import subtract

        x, begin, _ = op.inputs
        b = static_value(begin)
        if b is not None and _static_shape(x) is not None and _static_shape(dy) is not None:
            after = np.asarray(_static_shape(x)) - b - np.asarray(_static_shape(dy))
            return [pad(dy, constant(np.stack([b, after], axis=1).astype(b.dtype))), None, None]
        after = subtract(subtract(shapes.shape(x, out_type=begin.dtype), begin), shapes.shape(dy, out_type=begin.dtype))
        return [pad(dy, stack([begin, after], axis=1)), None, None]


def slice(input_, begin, size, name=None):  # noqa: A001 (TensorFlow's name)
    begin, size = _index_operands(begin, size)
    return Slice.bind(input_, begin, size)


class _StridedSliceMasks(Op):
    """The five masks StridedSlice and StridedSliceGrad share (bit i refers to spec entry i)."""

    begin_mask = attr(0)  # (declared in the alphabetical order TensorFlow prints them in)
    ellipsis_mask = attr(0)
    end_mask = attr(0)
    new_axis_mask = attr(0)
    shrink_axis_mask = attr(0)

    @classmethod
    def _spec_values(cls, begin, end, strides):
        for what, spec in (("begin", begin), ("end", end), ("strides", strides)):
            check_index(cls.name, spec, what, rank=1)
        same_dtype(cls.name, begin, end, strides)
        lengths = {s.shape[0] for s in (begin, end, strides) if s.shape is not None} - {None}
        if len(lengths) > 1:
            raise InvalidArgumentError(
                f"{cls.name}: Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                f"{fmt_shape(begin.shape)}, {fmt_shape(end.shape)}, and {fmt_shape(strides.shape)} instead.",
                cls.name)
        return _values(begin), _values(end), _values(strides), (lengths.pop() if lengths else None)


@register
class StridedSlice(_StridedSliceMasks):
    """NumPy-style basic indexing: begin:end:strides per spec entry, with TensorFlow's five masks.

    %y = "tf.StridedSlice"(%x, %b, %e, %s) <{begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64,
        new_axis_mask = 0 : i64, shrink_axis_mask = 3 : i64}>
        : (tensor<3x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<f32>
    """

    name = "tf.StridedSlice"
    input = operand_def()
    begin = operand_def()
    end = operand_def()
    strides = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, input, begin, end, strides, **masks):
        b, e, s, n = cls._spec_values(begin, end, strides)
        if input.shape is None or s is None:
            return TensorSpec(None, input.dtype)
        _, final = strided_slice_plan(cls.name, input.shape, b, e, s, masks)
        return TensorSpec(final, input.dtype)

    @classmethod
    def compute(cls, xp, input, begin, end, strides, **masks):
        dims, final = strided_slice_plan(cls.name, input.shape, [int(v) for v in begin], [int(v) for v in end],
                                         [int(v) for v in strides], masks)
        return xp.reshape(input[tuple(d.as_slice() for d in dims)], final)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = x[b:e:s]: dx = U scattered into zeros of x's shape
        x, begin, end, strides = op.inputs
        return [StridedSliceGrad.bind(shapes.shape(x, out_type=begin.dtype), begin, end, strides, dy, **op.attrs),
                None, None, None]


@register
class StridedSliceGrad(_StridedSliceMasks):
    """Zeros of ``shape`` with ``dy`` written where StridedSlice with these operands would read.

    %dx = "tf.StridedSliceGrad"(%shape, %b, %e, %s, %dy) <{begin_mask = 0 : i64, ...}>
        : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
    """

    name = "tf.StridedSliceGrad"
    shape = operand_def()
    begin = operand_def()
    end = operand_def()
    strides = operand_def()
    dy = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, shape, begin, end, strides, dy, **masks):
        b, e, s, n = cls._spec_values(begin, end, strides)
        out = shape_from_operand(cls.name, shape)
        guard_allocation(cls.name, out, dy.dtype)
        if out is not None and None not in out and s is not None:
            _, final = strided_slice_plan(cls.name, out, b, e, s, masks)
            if dy.shape is not None and not TensorSpec(final).is_compatible_with(dy.shape):
                raise InvalidArgumentError(
                    f"{cls.name}: shape of dy {fmt_shape(dy.shape)} is not the slice's shape {fmt_shape(final)}",
                    cls.name)
        return TensorSpec(out, dy.dtype)

    @classmethod
    def _plan(cls, shape, begin, end, strides, dy, masks):
        dims, final = strided_slice_plan(cls.name, tuple(int(d) for d in shape), [int(v) for v in begin],
                                         [int(v) for v in end], [int(v) for v in strides], masks)
        if tuple(dy.shape) != tuple(final):
            raise InvalidArgumentError(
                f"{cls.name}: shape of dy {fmt_shape(dy.shape)} is not the slice's shape {fmt_shape(final)}", cls.name)
        return tuple(d.as_slice() for d in dims), tuple(d.size for d in dims)

    @classmethod
    def compute(cls, xp, shape, begin, end, strides, dy, **masks):
        index, processing = cls._plan(shape, begin, end, strides, dy, masks)
        out = np.zeros(tuple(int(d) for d in shape), dy.dtype)
        out[index] = dy.reshape(processing)  # a fresh array: writing into it is safe
        return out

    @classmethod
    def lower(cls, shape, begin, end, strides, dy, **masks):
        import jax.numpy as jnp

        index, processing = cls._plan(np.asarray(shape), np.asarray(begin), np.asarray(end), np.asarray(strides),
                                      dy, masks)
        return jnp.zeros(tuple(int(d) for d in np.asarray(shape)), dy.dtype).at[index].set(dy.reshape(processing))

    @staticmethod
    def grad(op, ddx):  # Given upstream grad U and dx = scatter(dy): ddy = strided_slice(U), as TensorFlow
        _, begin, end, strides, _ = op.inputs
        return [None, None, None, None, StridedSlice.bind(ddx, begin, end, strides, **op.attrs)]


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    if strides is None:
        n = len(begin) if is_python_value(begin) else (_static_shape(begin) or (None,))[0]
        strides = [1] * n if n is not None else ones_like(begin)
    begin, end, strides = _index_operands(begin, end, strides)
    return StridedSlice.bind(input_, begin, end, strides, begin_mask=begin_mask, end_mask=end_mask,
                             ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                             shrink_axis_mask=shrink_axis_mask)


# --- GatherV2 and its gradient's scatter -------------------------------------------------------

def _gather_layout(op_name: str, params_shape, indices_shape, axis: int, batch_dims: int):
    """(axis, batch_dims) normalised and checked against the shapes, as TensorFlow's GatherV2."""
    r = len(params_shape)
    if not -r <= axis < r:
        raise InvalidArgumentError(
            f"{op_name}: Expected axis in the range [{-r}, {r}), but got {axis} (params shape "
            f"{fmt_shape(params_shape)})", op_name)
    axis %= r
    if indices_shape is not None and batch_dims != 0:
        q = len(indices_shape)
        if not -q <= batch_dims <= q:
            raise InvalidArgumentError(f"{op_name}: Expected batch_dims in the range [{-q}, {q}], but got {batch_dims}",
                                       op_name)
        batch_dims %= q if batch_dims < 0 else q + 1
        if batch_dims > axis:
            raise InvalidArgumentError(
                f"{op_name}: batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).", op_name)
        for i in range(batch_dims):
            p, q_ = params_shape[i], indices_shape[i]
            if p is not None and q_ is not None and p != q_:
                raise InvalidArgumentError(
                    f"{op_name}: params.shape[{i}]: {p} should be equal to indices.shape[{i}]: {q_}.", op_name)
    return axis, batch_dims


def _check_indices(op_name: str, indices, limit: int, what: str = "indices"):
    """InvalidArgumentError for the first index outside [0, limit), as TensorFlow's CPU kernel."""
    bad = (indices < 0) | (indices >= limit)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidArgumentError(
            f"{op_name}: {what}[{','.join(map(str, where))}] = {int(indices[where])} is not in [0, {limit})", op_name)


@register
class GatherV2(Op):
    """Slices of ``params`` along ``axis`` at ``indices``; the first ``batch_dims`` dims are batch dims.

    %y = "tf.GatherV2"(%p, %i, %axis) <{batch_dims = 0 : i64}>
        : (tensor<3x4xf32>, tensor<2xi32>, tensor<i32>) -> tensor<2x4xf32>
    """

    name = "tf.GatherV2"
    params = operand_def()
    indices = operand_def()
    axis = operand_def()
    output = result_def()
    batch_dims = attr(0)
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, params, indices, axis, *, batch_dims):
        if indices.dtype not in (dtypes.int16, dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: indices must be int16, int32 or int64, got {indices.dtype.name}",
                                       cls.name)
        a = _scalar_axis(cls.name, axis)
        if params.shape is None or indices.shape is None:
            return TensorSpec(None, params.dtype)
        if a is None:
            b = batch_dims + len(indices.shape) if batch_dims < 0 else batch_dims
            return TensorSpec((None,) * (len(params.shape) - 1 + len(indices.shape) - b), params.dtype)
        a, b = _gather_layout(cls.name, params.shape, indices.shape, a, batch_dims)
        out = params.shape[:a] + indices.shape[b:] + params.shape[a + 1:]
        value = const_value(indices)
        if value is not None and params.shape[a] is not None and 0 not in out:  # (TF skips empty outputs)
            _check_indices(cls.name, value, params.shape[a])
        return TensorSpec(out, params.dtype)

    @classmethod
    def compute(cls, xp, params, indices, axis, *, batch_dims):
        a, b = _gather_layout(cls.name, params.shape, indices.shape, _int(axis), batch_dims)
        out_shape = params.shape[:a] + indices.shape[b:] + params.shape[a + 1:]
        if math.prod(out_shape) == 0:
            return xp.zeros(out_shape, params.dtype)
        if isinstance(indices, np.ndarray):  # XLA clamps instead; TensorFlow's CPU kernel refuses
            _check_indices(cls.name, indices, params.shape[a])
        if b == 0:
            return xp.take(params, indices, axis=a)
        batch = math.prod(params.shape[:b])
        if batch == 0:
            return xp.zeros(out_shape, params.dtype)
        p = xp.reshape(params, (batch,) + params.shape[b:])
        i = xp.reshape(indices, (batch,) + indices.shape[b:])
        return xp.reshape(xp.stack([xp.take(p[k], i[k], axis=a - b) for k in range(batch)]), out_shape)

    @staticmethod
    def grad(op, dy):
        # Given upstream grad U and y = gather(p, i, axis a): dp = unsorted_segment_sum of U's slices at i along a
        params, indices, axis = op.inputs
        if op.attrs["batch_dims"] != 0:
            return [_batch_gather_grad(params, indices, axis, op.attrs["batch_dims"], dy), None, None]
        p, q, a = _static_shape(params), _static_shape(indices), static_value(axis)
        if p is not None and q is not None and a is not None:  # static shapes: shapes and perms are constants
            a = _int(a) % len(p)
            values = shapes.reshape(dy, [*p[:a], math.prod(q), *p[a + 1:]])
            to_front = [a] + list(range(a)) + list(range(a + 1, len(p)))
            summed = unsorted_segment_sum(shapes.transpose(values, to_front), shapes.reshape(indices, [-1]), p[a])
            back = list(range(1, a + 1)) + [0] + list(range(a + 1, len(p)))
            return [shapes.transpose(summed, back), None, None]
        from tinytf.ops.math import add

        p_shape, r = shapes.shape(params), shapes.rank(params)
        a1 = shapes.reshape(array.cast(axis, dtypes.int32), [1])
        a = StridedSlice.bind(array.range(0, r), a1, a1, constant(np.ones(1, np.int32)), shrink_axis_mask=1)  # >= 0
        a_vec, a_next = shapes.reshape(a, [1]), add(a, 1)
        outer = Slice.bind(p_shape, constant(np.zeros(1, np.int32)), a_vec)
        inner = Slice.bind(p_shape, shapes.reshape(a_next, [1]), constant(np.full(1, -1, np.int32)))
        values = shapes.reshape(dy, concat([outer, shapes.reshape(shapes.size(indices), [1]), inner], 0))
        to_front = concat([a_vec, array.range(0, a), array.range(a_next, r)], 0)
        summed = unsorted_segment_sum(shapes.transpose(values, to_front), shapes.reshape(indices, [-1]),
                                      gather(p_shape, a))
        back = concat([array.range(1, a_next), constant(np.zeros(1, np.int32)), array.range(a_next, r)], 0)
        return [shapes.transpose(summed, back), None, None]


def _batch_gather_grad(params, indices, axis, batch_dims, dy):
    """GatherV2's params gradient with batch dims B: dy is [B, M, I, R] for params [B, M, n, R] (n at the
    axis); with I moved next to B and each batch's indices offset by k * n, one segment sum over
    [B * n] segments does every batch at once. Needs static shapes and axis (UnimplementedError else)."""
    from tinytf.ops.math import add

    p, q, a = _static_shape(params), _static_shape(indices), static_value(axis)
    if p is None or q is None or a is None:
        raise UnimplementedError("tf.GatherV2: the gradient with batch_dims needs static shapes and axis",
                                 GatherV2.name)
    a, b = _gather_layout(GatherV2.name, p, q, _int(a), batch_dims)
    batch, m, i, rest, n = p[:b], p[b:a], q[b:], p[a + 1:], p[a]
    nb, ni = math.prod(batch), math.prod(i)
    lb, lm, li = len(batch), len(m), len(i)
    to_bimr = list(range(lb)) + list(range(lb + lm, lb + lm + li)) + list(range(lb, lb + lm)) + \
        list(range(lb + lm + li, lb + lm + li + len(rest)))
    values = shapes.reshape(shapes.transpose(dy, to_bimr), [nb * ni, *m, *rest])
    offsets = (np.arange(nb) * n).reshape(batch + (1,) * li).astype(indices.dtype.np)
    ids = shapes.reshape(add(indices, constant(offsets)), [-1])
    summed = shapes.reshape(unsorted_segment_sum(values, ids, nb * n), [*batch, n, *m, *rest])
    to_bmnr = list(range(lb)) + list(range(lb + 1, lb + 1 + lm)) + [lb] + list(range(lb + 1 + lm, len(p)))
    return shapes.transpose(summed, to_bmnr)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    if axis is None:
        axis = batch_dims
    if is_python_value(indices):
        indices = index_operand(indices)
    return GatherV2.bind(params, indices, index_operand(axis), batch_dims=batch_dims)


@register
class UnsortedSegmentSum(Op):
    """output[j] = sum of data[i...] over the i... where segment_ids[i...] == j (negative ids are dropped).

    %y = "tf.UnsortedSegmentSum"(%data, %ids, %n) : (tensor<4x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<5x3xf32>
    """

    name = "tf.UnsortedSegmentSum"
    data = operand_def()
    segment_ids = operand_def()
    num_segments = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, data, segment_ids, num_segments):
        check_index(cls.name, segment_ids, "segment_ids")
        n = _scalar_axis(cls.name, num_segments, "num_segments")
        if n is not None and n < 0:
            raise InvalidArgumentError(f"{cls.name}: num_segments must be non-negative, got {n}", cls.name)
        if data.shape is None or segment_ids.shape is None:
            return TensorSpec(None, data.dtype)
        q = len(segment_ids.shape)
        if not TensorSpec(data.shape[:q]).is_compatible_with(segment_ids.shape):
            raise InvalidArgumentError(
                f"{cls.name}: data.shape = {fmt_shape(data.shape)} does not start with segment_ids.shape = "
                f"{fmt_shape(segment_ids.shape)}", cls.name)
        ids = const_value(segment_ids)
        if ids is not None and n is not None and None not in data.shape and 0 not in data.shape:
            cls._check_ids(ids, n)  # (TensorFlow does not look at the ids of empty data)
        out = (n,) + data.shape[q:]
        guard_allocation(cls.name, out, data.dtype)
        return TensorSpec(out, data.dtype)

    @classmethod
    def compute(cls, xp, data, segment_ids, num_segments):
        n = int(num_segments)
        rest = data.shape[segment_ids.ndim:]
        out = np.zeros((n,) + rest, data.dtype)
        if data.size == 0:
            return out
        cls._check_ids(segment_ids, n)
        ids = segment_ids.reshape(-1)
        keep = ids >= 0
        np.add.at(out, ids[keep], data.reshape((ids.size,) + rest)[keep])  # a fresh array: writing is safe
        return out

    @classmethod
    def _check_ids(cls, ids, n: int):
        """Negative ids are dropped; ids from num_segments on are an error (on CPU, as TensorFlow)."""
        bad = ids >= n
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise InvalidArgumentError(
                f"{cls.name}: segment_ids[{','.join(map(str, where))}] = {int(ids[where])} is out of range "
                f"[0, {n})", cls.name)

    @staticmethod
    def lower(data, segment_ids, num_segments):
        import jax.numpy as jnp

        rest, n = data.shape[segment_ids.ndim:], int(num_segments)
        ids = jnp.where(segment_ids < 0, n, segment_ids).reshape(-1)  # JAX wraps negative indices: drop them
        return jnp.zeros((n,) + rest, data.dtype).at[ids].add(data.reshape((segment_ids.size,) + rest), mode="drop")

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = segment_sum(d, ids): dd = gather(U, ids), 0 where ids < 0
        from tinytf.ops.comparison import greater_equal, where
        from tinytf.ops.math import maximum

        ids = op.inputs[1]
        gathered = gather(dy, maximum(ids, zeros_like(ids)))
        keep = greater_equal(ids, zeros_like(ids))
        for _ in range(len(dy.shape) - 1):  # keep[i...] broadcast over the slice dims (ranks are static here)
            keep = shapes.expand_dims(keep, -1)
        return [where(shapes.broadcast_to(keep, shapes.shape(gathered)), gathered, zeros_like(gathered)), None, None]


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    return UnsortedSegmentSum.bind(data, index_operand(segment_ids), index_operand(num_segments))


# --- ConcatV2, Pack, Unpack, Split, SplitV ---------------------------------------------------

def _joined_shape(op_name: str, shapes_, axis: int, what: str = "Dimensions of inputs should match"):
    """Dims of equal-rank ``shapes_`` merged, except ``axis`` (returned as the list of its dims)."""
    out = list(shapes_[0])
    for k, shp in enumerate(shapes_[1:], 1):
        for d, (a, b) in enumerate(zip(out, shp)):
            if d == axis:
                continue
            if a is not None and b is not None and a != b:
                raise InvalidArgumentError(
                    f"{op_name}: {what}: shape[0] = {fmt_shape(shapes_[0])} vs. shape[{k}] = {fmt_shape(shp)}",
                    op_name)
            out[d] = a if a is not None else b
    return out


@register
class ConcatV2(Op):
    """``values`` joined along ``axis`` (the last operand).

    %y = "tf.ConcatV2"(%a, %b, %axis) : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<i32>) -> tensor<6x4xf32>
    """

    name = "tf.ConcatV2"
    values = var_operand_def()
    axis = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, *operands):
        *values, axis = operands
        if len(values) < 2:
            raise InvalidArgumentError(f"{cls.name}: expects at least 2 values, got {len(values)}", cls.name)
        dtype = same_dtype(cls.name, *values)
        a = _scalar_axis(cls.name, axis, legacy="vector")
        known = [v.shape for v in values if v.shape is not None]
        if not known:
            return TensorSpec(None, dtype)
        r = len(known[0])
        if r == 0:
            raise InvalidArgumentError(f"{cls.name}: Can't concatenate scalars (use tt.stack instead)", cls.name)
        if any(len(s) != r for s in known):
            raise InvalidArgumentError(
                f"{cls.name}: Ranks of all input tensors should match: shapes "
                f"{', '.join(fmt_shape(s) for s in known)}", cls.name)
        if a is None:
            return TensorSpec((None,) * r, dtype)
        if not -r <= a < r:
            raise InvalidArgumentError(
                f"{cls.name}: Expected concatenating dimensions in the range [{-r}, {r}), but got {a}", cls.name)
        a %= r
        out = _joined_shape(cls.name, known, a)
        along = [None if v.shape is None else v.shape[a] for v in values]
        out[a] = None if None in along else sum(along)
        return TensorSpec(tuple(out), dtype)

    @classmethod
    def compute(cls, xp, *operands):
        *values, axis = operands
        return xp.concatenate(values, axis=normalize_axis(cls.name, _int(axis), values[0].ndim))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = concat(xs, a): dx_i = slice of U at x_i's offset along a
        *values, axis = op.inputs
        value_shapes = [shapes.shape(v) for v in values]
        offsets = ConcatOffset.bind(axis, *value_shapes)
        return [Slice.bind(dy, off, shp) for off, shp in zip(offsets, value_shapes)] + [None]


def concat(values, axis, name="concat"):
    values = _tensors(values)
    if len(values) == 1:
        return identity(values[0])
    return ConcatV2.bind(*values, index_operand(axis))


@register
class ConcatOffset(Op):
    """Where each of ``shape`` starts in their concatenation along ``concat_dim`` (ConcatV2's gradient).

    %o:2 = "tf.ConcatOffset"(%axis, %s0, %s1) : (tensor<i32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
    """

    name = "tf.ConcatOffset"
    concat_dim = operand_def()
    shape = var_operand_def()
    offset = var_result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    @folding
    def infer(cls, concat_dim, *shape):
        _scalar_axis(cls.name, concat_dim, "concat_dim")
        if len(shape) < 2:
            raise InvalidArgumentError(f"{cls.name}: expects at least 2 shapes, got {len(shape)}", cls.name)
        for s in shape:
            check_index(cls.name, s, "shape", rank=1)
        same_dtype(cls.name, *shape)
        return [TensorSpec(s.shape, s.dtype) for s in shape]

    @classmethod
    def compute(cls, xp, concat_dim, *shape):
        r = len(shape[0])
        if any(len(s) != r for s in shape):
            raise InvalidArgumentError(f"{cls.name}: shapes of different ranks {[list(s) for s in shape]}", cls.name)
        a = normalize_axis(cls.name, _int(concat_dim), r)
        _joined_shape(cls.name, [tuple(int(d) for d in s) for s in shape], a)
        starts = np.cumsum([0] + [int(s[a]) for s in shape[:-1]])
        return tuple(np.asarray([int(start) if d == a else 0 for d in range(r)], shape[0].dtype) for start in starts)


def _tensors(values):
    """Python values among ``values`` as constants of the first tensor's dtype (TensorFlow's conversion)."""
    values = list(values)
    kind = next((v.dtype for v in values if not is_python_value(v)), None)
    return [constant(v, kind) if is_python_value(v) else v for v in values]


@register
class Pack(Op):
    """``values`` (all one shape) stacked along a new dim ``axis``.

    %y = "tf.Pack"(%a, %b) <{axis = 0 : i64}> : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
    """

    name = "tf.Pack"
    values = var_operand_def()
    output = result_def()
    axis = attr(0)
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, *values, axis):
        if not values:
            raise InvalidArgumentError(f"{cls.name}: expects at least 1 value", cls.name)
        dtype = same_dtype(cls.name, *values)
        known = [v.shape for v in values if v.shape is not None]
        if not known:
            return TensorSpec(None, dtype)
        r = len(known[0])
        if any(len(s) != r for s in known):
            raise InvalidArgumentError(
                f"{cls.name}: Shapes of all inputs must match: {', '.join(fmt_shape(s) for s in known)}", cls.name)
        shape_ = _joined_shape(cls.name, known, -1, "Shapes of all inputs must match")
        a = normalize_axis(cls.name, axis, r + 1)
        return TensorSpec(tuple(shape_[:a]) + (len(values),) + tuple(shape_[a:]), dtype)

    @classmethod
    def compute(cls, xp, *values, axis):
        return xp.stack(values, axis=normalize_axis(cls.name, axis, values[0].ndim + 1))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = stack(xs, a): dxs = unstack(U, a)
        return unstack(dy, num=len(op.inputs), axis=op.attrs["axis"])


def stack(values, axis=0, name="stack"):
    return Pack.bind(*_tensors(values), axis=axis)


_MAX_OUTPUTS = 1 << 20


def _check_output_count(op_name: str, n: int) -> None:
    """An absurd result count (Unpack's num, Split's num_split) would build that many tensors."""
    if n > _MAX_OUTPUTS:
        raise ResourceExhaustedError(f"{op_name}: {n} outputs is more than the limit of {_MAX_OUTPUTS}", op_name)


@register
class Unpack(Op):
    """The ``num`` slices of ``value`` along ``axis``, each without that dim.

    %a, %b = "tf.Unpack"(%x) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    """

    name = "tf.Unpack"
    value = operand_def()
    output = var_result_def()
    num = derived("int", lambda op: len(op.results))
    axis = attr(0)
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, value, *, num, axis):
        if num < 0:
            raise InvalidArgumentError(f"{cls.name}: num must be non-negative, got {num}", cls.name)
        _check_output_count(cls.name, num)
        if value.shape is None:
            return [TensorSpec(None, value.dtype) for _ in range(num)]
        a = normalize_axis(cls.name, axis, len(value.shape))
        if len(value.shape) == 0:
            raise InvalidArgumentError(f"{cls.name}: cannot unstack a scalar", cls.name)
        if value.shape[a] not in (None, num):
            raise InvalidArgumentError(
                f"{cls.name}: Input shape axis {a} must equal {num}, got {value.shape[a]} (shape "
                f"{fmt_shape(value.shape)})", cls.name)
        out = value.shape[:a] + value.shape[a + 1:]
        return [TensorSpec(out, value.dtype) for _ in range(num)]

    @classmethod
    def compute(cls, xp, value, *, num, axis):
        a = normalize_axis(cls.name, axis, value.ndim)
        if value.shape[a] != num:
            raise InvalidArgumentError(f"{cls.name}: Input shape axis {a} must equal {num}, got {value.shape[a]}",
                                       cls.name)
        return tuple(value[(builtins.slice(None),) * a + (i,)] for i in range(num))

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U_i and ys = unstack(x, a): dx = stack(U, a)
        dys = [zeros_like(y) if d is None else d for d, y in zip(dys, op.outputs)]
        return [stack(dys, axis=op.attrs["axis"])]


def unstack(value, num=None, axis=0, name="unstack"):
    if is_python_value(value):
        value = constant(value)
    if num is None:
        known = getattr(value, "shape", None)
        if known is None or not -len(known) <= axis < len(known) or known[axis] is None:
            raise InvalidArgumentError(f"tt.unstack: cannot infer num from shape {fmt_shape(known)}", Unpack.name)
        num = known[axis]
    return list(Unpack.bind(value, num=num, axis=axis))


@register
class Split(Op):
    """``value`` cut into ``num_split`` equal parts along ``split_dim`` (the first operand).

    %a:2 = "tf.Split"(%dim, %x) : (tensor<i32>, tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
    """

    name = "tf.Split"
    split_dim = operand_def()
    value = operand_def()
    output = var_result_def()
    num_split = derived("int", lambda op: len(op.results))
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, split_dim, value, *, num_split):
        if num_split < 1:
            raise InvalidArgumentError(f"{cls.name}: num_split must be at least 1, got {num_split}", cls.name)
        _check_output_count(cls.name, num_split)
        a = _scalar_axis(cls.name, split_dim, "split_dim")
        if value.shape is None:
            return [TensorSpec(None, value.dtype)] * num_split
        if a is None:
            return [TensorSpec((None,) * len(value.shape), value.dtype)] * num_split
        a = _split_axis(cls.name, a, len(value.shape))
        d = value.shape[a]
        if d is not None and d % num_split:
            raise InvalidArgumentError(
                f"{cls.name}: Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {a} (size = {d}) and num_split {num_split}", cls.name)
        out = value.shape[:a] + (None if d is None else d // num_split,) + value.shape[a + 1:]
        return [TensorSpec(out, value.dtype) for _ in range(num_split)]

    @classmethod
    def compute(cls, xp, split_dim, value, *, num_split):
        return tuple(xp.split(value, num_split, axis=_split_axis(cls.name, int(split_dim), value.ndim)))

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U_i and ys = split(x): dx = concat(U, split_dim)
        dys = [zeros_like(y) if d is None else d for d, y in zip(dys, op.outputs)]
        return [None, concat(dys, op.inputs[0])]


def _split_axis(op_name: str, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            f"{op_name}: -input rank(-{rank}) <= split_dim < input rank ({rank}), but got {axis}", op_name)
    return axis % rank


def _split_sizes(op_name: str, dim, sizes):
    """SplitV's sizes with the one -1 resolved; checked against the split dim when it is known."""
    sizes = list(sizes)
    if sizes.count(-1) > 1:
        raise InvalidArgumentError(f"{op_name}: There can only be one -1 in the input, got {sizes}", op_name)
    if any(s < -1 for s in sizes):
        raise InvalidArgumentError(f"{op_name}: Split sizes must be >= 0 (or one -1), got {sizes}", op_name)
    known = sum(s for s in sizes if s != -1)
    if len(sizes) == 1 and dim is not None and sizes[0] != dim:
        raise InvalidArgumentError(
            f"{op_name}: If there is only one output, it must have the same size as the input. Input size: {dim} "
            f"output size: {sizes[0]}", op_name)
    if dim is None:
        return [None if s == -1 else s for s in sizes]
    if (-1 not in sizes and known != dim) or known > dim:
        raise InvalidArgumentError(
            f"{op_name}: Determined shape must either match input shape along split_dim exactly if fully "
            f"specified, or be less than the size of the input along split_dim if not fully specified. "
            f"Got: {known} (sizes {sizes}, dim {dim})", op_name)
    return [dim - known if s == -1 else s for s in sizes]


@register
class SplitV(Op):
    """``value`` cut along ``split_dim`` into parts of ``size_splits`` (one may be -1: the rest).

    %a:2 = "tf.SplitV"(%x, %sizes, %dim) : (tensor<5xf32>, tensor<2xi32>, tensor<i32>) -> (tensor<2xf32>, tensor<3xf32>)
    """

    name = "tf.SplitV"
    value = operand_def()
    size_splits = operand_def()
    split_dim = operand_def()
    output = var_result_def()
    num_split = derived("int", lambda op: len(op.results))
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, value, size_splits, split_dim, *, num_split):
        if num_split < 1:
            raise InvalidArgumentError(f"{cls.name}: num_split must be at least 1, got {num_split}", cls.name)
        _check_output_count(cls.name, num_split)
        check_index(cls.name, size_splits, "size_splits", rank=1)
        if size_splits.shape is not None and size_splits.shape[0] not in (None, num_split):
            raise InvalidArgumentError(
                f"{cls.name}: size_splits {fmt_shape(size_splits.shape)} must have num_split = {num_split} "
                f"elements", cls.name)
        a = _scalar_axis(cls.name, split_dim, "split_dim", legacy="any")
        sizes = _values(size_splits)
        if value.shape is None or a is None:
            r = None if value.shape is None else len(value.shape)
            return [TensorSpec(None if r is None else (None,) * r, value.dtype) for _ in range(num_split)]
        a = _split_axis(cls.name, a, len(value.shape))
        parts = [None] * num_split if sizes is None else _split_sizes(cls.name, value.shape[a], sizes)
        return [TensorSpec(value.shape[:a] + (p,) + value.shape[a + 1:], value.dtype) for p in parts]

    @classmethod
    def compute(cls, xp, value, size_splits, split_dim, *, num_split):
        a = _split_axis(cls.name, _int(split_dim), value.ndim)
        parts = _split_sizes(cls.name, value.shape[a], [int(s) for s in size_splits])
        cuts = np.cumsum(parts)[:-1].tolist()
        return tuple(xp.split(value, cuts, axis=a))

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U_i and ys = split_v(x): dx = concat(U, split_dim)
        dys = [zeros_like(y) if d is None else d for d, y in zip(dys, op.outputs)]
        return [concat(dys, op.inputs[2]), None, None]


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``tt.split``: an int gives Split into equal parts, a list (or 1-D tensor) of sizes gives SplitV."""
    if is_python_value(value):
        value = constant(value)
    if isinstance(num_or_size_splits, int | np.integer):
        return list(Split.bind(index_operand(axis), value, num_split=int(num_or_size_splits)))
    if num is None:
        known = getattr(num_or_size_splits, "shape", None)
        if is_python_value(num_or_size_splits):
            num = len(num_or_size_splits)
        elif known is not None and len(known) == 1 and known[0] is not None:
            num = known[0]
        else:
            raise InvalidArgumentError(f"tt.split: cannot infer num from size_splits {num_or_size_splits!r}",
                                       SplitV.name)
    return list(SplitV.bind(value, index_operand(num_or_size_splits), index_operand(axis), num_split=num))


# --- Tile, Pad, PadV2 -------------------------------------------------------------------------

@register
class Tile(Op):
    """``input`` repeated ``multiples[i]`` times along dim i.

    %y = "tf.Tile"(%x, %m) : (tensor<1x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
    """

    name = "tf.Tile"
    input = operand_def()
    multiples = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def _check(cls, in_shape, multiples):
        if len(multiples) != len(in_shape):
            raise InvalidArgumentError(
                f"{cls.name}: Expected multiples argument to be a vector of length {len(in_shape)} but got length "
                f"{len(multiples)} (input shape {fmt_shape(in_shape)})", cls.name)
        for i, m in enumerate(multiples):
            if m < 0:
                raise InvalidArgumentError(f"{cls.name}: Expected multiples[{i}] >= 0, but got {m}", cls.name)
        return tuple(None if d is None else d * m for d, m in zip(in_shape, multiples))

    @classmethod
    @folding
    def infer(cls, input, multiples):
        check_index(cls.name, multiples, "multiples", rank=1)
        m = _values(multiples)
        if input.shape is None:
            n = None if multiples.shape is None else multiples.shape[0]
            return TensorSpec(None if n is None else (None,) * n, input.dtype)
        if m is None:
            return TensorSpec((None,) * len(input.shape), input.dtype)
        out = cls._check(input.shape, m)
        guard_allocation(cls.name, out, input.dtype)
        return TensorSpec(out, input.dtype)

    @classmethod
    def compute(cls, xp, input, multiples):
        m = [int(v) for v in multiples]
        cls._check(input.shape, m)
        return xp.tile(input, m) if m else input

    @staticmethod
    def grad(op, dy):
        # Given upstream grad U and y = tile(x, m): dx = sum of reshape(U, [m0, d0, m1, d1, ...]) over the m axes
        from tinytf.ops.reduction import reduce_sum

        x, multiples = op.inputs
        m, x_shape = static_value(multiples), _static_shape(x)
        if m is not None and x_shape is not None:
            split_shape = [d for pair in zip(m.tolist(), x_shape) for d in pair]
            return [reduce_sum(shapes.reshape(dy, split_shape), list(range(0, len(split_shape), 2))), None]
        split_shape = shapes.reshape(shapes.transpose(stack([multiples, shapes.shape(x, out_type=multiples.dtype)])),
                                     [-1])
        axes = array.range(0, shapes.size(split_shape), 2)
        return [reduce_sum(shapes.reshape(dy, split_shape), axes), None]


def tile(input, multiples, name=None):
    return Tile.bind(input, index_operand(multiples))


class _PadBase(Op):
    """Pad and PadV2: ``paddings`` is [rank, 2] (before, after) per dim."""

    @classmethod
    def _padded(cls, in_shape, paddings):
        rows = len(paddings)
        if rows != len(in_shape):
            raise InvalidArgumentError(
                f"{cls.name}: The first dimension of paddings must be the rank of inputs{[rows, 2]} "
                f"{fmt_shape(in_shape)}", cls.name)
        if any(before < 0 or after < 0 for before, after in paddings):
            raise InvalidArgumentError(f"{cls.name}: Paddings must be non-negative, got {paddings}", cls.name)
        return tuple(None if d is None else d + before + after for d, (before, after) in zip(in_shape, paddings))

    @classmethod
    def _infer(cls, input, paddings):
        check_index(cls.name, paddings, "paddings", rank=2)
        if paddings.shape is not None and paddings.shape[1] not in (None, 2):
            raise InvalidArgumentError(
                f"{cls.name}: paddings must be a matrix with 2 columns: {fmt_shape(paddings.shape)}", cls.name)
        value = const_value(paddings)
        if input.shape is None:
            n = None if paddings.shape is None else paddings.shape[0]
            return TensorSpec(None if n is None else (None,) * n, input.dtype)
        if value is None:
            return TensorSpec((None,) * len(input.shape), input.dtype)
        out = cls._padded(input.shape, [tuple(int(v) for v in row) for row in value.reshape(-1, 2)])
        guard_allocation(cls.name, out, input.dtype)
        return TensorSpec(out, input.dtype)

    @classmethod
    def _pad(cls, xp, input, paddings, constant_values):
        pads = [tuple(int(v) for v in row) for row in np.asarray(paddings).reshape(-1, 2)]
        cls._padded(input.shape, pads)
        return xp.pad(input, pads, constant_values=constant_values) if pads else input

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = pad(x, p): dx = U[p[:, 0] : p[:, 0] + shape(x)]
        x, paddings = op.inputs[:2]
        pads, x_shape = static_value(paddings), _static_shape(x)
        if pads is not None and x_shape is not None:
            begin = pads.reshape(-1, 2)[:, 0]
            return [Slice.bind(dy, constant(begin), constant(np.asarray(x_shape, begin.dtype)))] + \
                [None] * (len(op.inputs) - 1)
        before = Slice.bind(paddings, constant(np.zeros(2, paddings.dtype.np)),
                            stack([shapes.rank(x), 1]) if paddings.dtype == dtypes.int32 else
                            array.cast(stack([shapes.rank(x), 1]), paddings.dtype))
        begin = shapes.reshape(before, [-1])
        return [Slice.bind(dy, begin, shapes.shape(x, out_type=begin.dtype))] + [None] * (len(op.inputs) - 1)


@register
class Pad(_PadBase):
    """``input`` with zeros added before and after each dim.

    %y = "tf.Pad"(%x, %p) : (tensor<3x4xf32>, tensor<2x2xi32>) -> tensor<4x6xf32>
    """

    name = "tf.Pad"
    input = operand_def()
    paddings = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, input, paddings):
        return cls._infer(input, paddings)

    @classmethod
    def compute(cls, xp, input, paddings):
        return cls._pad(xp, input, paddings, 0)


@register
class PadV2(_PadBase):
    """``input`` with ``constant_values`` added before and after each dim.

    %y = "tf.PadV2"(%x, %p, %c) : (tensor<3x4xf32>, tensor<2x2xi32>, tensor<f32>) -> tensor<4x6xf32>
    """

    name = "tf.PadV2"
    input = operand_def()
    paddings = operand_def()
    constant_values = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, paddings, constant_values):
        same_dtype(cls.name, input, constant_values)
        if constant_values.shape is not None and constant_values.shape != ():
            raise InvalidArgumentError(
                f"{cls.name}: constant_values must be a scalar. Got: {fmt_shape(constant_values.shape)}", cls.name)
        return cls._infer(input, paddings)

    @classmethod
    def compute(cls, xp, input, paddings, constant_values):
        return cls._pad(xp, input, paddings, constant_values)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tt.pad``: Pad when padding with 0, PadV2 otherwise (REFLECT / SYMMETRIC are not implemented)."""
    if mode.upper() != "CONSTANT":
        raise UnimplementedError(f"tt.pad: mode {mode!r} (tf.MirrorPad) is not implemented", "tf.MirrorPad")
    if is_python_value(tensor):
        tensor = constant(tensor)
    paddings = index_operand(paddings)
    if is_python_value(constant_values) and np.all(np.asarray(constant_values) == 0):
        return Pad.bind(tensor, paddings)
    if is_python_value(constant_values):
        constant_values = constant(constant_values, tensor.dtype)
    return PadV2.bind(tensor, paddings, constant_values)


# Helpers stay out of tt.*; the rest go where TensorFlow has them (tinytf.runtime.namespaces).
__namespaces__ = {"strided_slice_plan": (), "strided_slice_from_key": (), "index_operand_dtype": (),
                  "unsorted_segment_sum": ("math",)}
