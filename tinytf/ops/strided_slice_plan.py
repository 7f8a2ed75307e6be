"""StridedSlice's index arithmetic (TensorFlow's ValidateStridedSliceOp): begin/end/strides and the
five masks resolved against an input shape into one SliceDim per input dim and the result shape.

    %y = "tf.StridedSlice"(%x, %b, %e, %s) <{begin_mask = 2 : i64, ellipsis_mask = 0 : i64,
        end_mask = 3 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64}>
        : (tensor<3x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x2xf32>
"""
from __future__ import annotations

import builtins

from tinytf.errors import InvalidArgumentError
from tinytf.ops.base import fmt_shape

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
    if len({len(v) for v in (begin, end, strides) if v is not None}) > 1:  # (an unknown one has no length)
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
        if shrink and b is not None:
            b = b + dim if b < 0 else b
            e = b + 1
            if not 0 <= b < dim:
                raise InvalidArgumentError(
                    f"{op_name}: slice index {b} of dimension {j} out of bounds (input shape "
                    f"{fmt_shape(in_shape)}).", op_name)
            length = 1
        elif shrink:
            length = 1
        elif (b is not None or begin_masked) and (e is not None or end_masked):  # (a masked end needs no value)
            b = _canonical(0 if b is None else b, begin_masked, False, dim, s)
            e = _canonical(0 if e is None else e, end_masked, True, dim, s)
            length = e - b
        else:
            dims.append(SliceDim(None, None, s, None))
            continue
        count = 0 if length == 0 or (length < 0) != (s < 0) else (abs(length) + abs(s) - 1) // abs(s)
        dims.append(SliceDim(b, e, s, count))
    final = tuple(1 if g == _NEW_AXIS else dims[g].size for g in gather if g != _SHRINK_AXIS)
    return dims, final


def static_slice(op_name: str, in_shape: tuple, begin, end, strides, masks: dict):
    """``run(x) -> x's slice`` for an input of static ``in_shape`` and constant begin/end/strides: the
    plan worked out once (StridedSlice's compute, bit for bit: the same view)."""
    dims, final = strided_slice_plan(op_name, in_shape, [int(v) for v in begin], [int(v) for v in end],
                                     [int(v) for v in strides], masks)
    index = tuple(d.as_slice() for d in dims)

    def run(x, *_):  # (begin, end and strides: the constants above)
        return x[index].reshape(final)

    return run
