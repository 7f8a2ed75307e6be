"""Segment reductions: SegmentSum, SegmentMean, SegmentProd, SegmentMax, SegmentMin (sorted ids, one
output row per id up to the largest), and UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd
(any ids, ``num_segments`` rows, negative ids dropped; UnsortedSegmentSum is in gather.py).

    %y = "tf.SegmentSum"(%data, %ids) : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<?x3xf32>
    %y = "tf.UnsortedSegmentMax"(%data, %ids, %n) : (tensor<4x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<5x3xf32>

TensorFlow's empty segments: 0 for the sorted sum, mean, max and min, 1 for products; the unsorted max
and min give the dtype's lowest and highest value. The sorted ops' output size depends on the ids'
values: under XLA the ids must be constants. unsorted_segment_mean and unsorted_segment_sqrt_n are
TensorFlow's composites.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape
from tinytf.ops.gather import unsorted_segment_spec
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import check_index, const_value, guard_allocation, index_operand
from tinytf.ops.tensor_inputs import as_tensor, static_rank
from tinytf.ops.type_lists import NUMBER, REAL, check_types

__all__ = ["segment_sum", "segment_mean", "segment_prod", "segment_max", "segment_min", "unsorted_segment_max",
           "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_mean", "unsorted_segment_sqrt_n"]


def _finfo(dtype):
    import ml_dtypes  # (its finfo knows bfloat16 as well as numpy's dtypes)

    return ml_dtypes.finfo(dtypes.as_dtype(dtype).np)


def _lowest(dtype):  # numeric_limits<T>::lowest(), TensorFlow's value of an empty max: finite for floats
    return _finfo(dtype).min if dtypes.as_dtype(dtype).is_floating else np.iinfo(dtype).min


def _highest(dtype):
    return _finfo(dtype).max if dtypes.as_dtype(dtype).is_floating else np.iinfo(dtype).max


def _reduce_into(xp, kind: str, data, ids, n: int, fill):
    """out[j] = reduce(data[i] for ids[i] == j), rows with no id at ``fill``; ids < 0 or >= n are dropped."""
    rest = data.shape[ids.ndim:]
    flat_ids = ids.reshape(-1)
    rows = data.reshape((flat_ids.size,) + rest)
    if xp is np:
        out = np.full((n,) + rest, fill, data.dtype)
        keep = (flat_ids >= 0) & (flat_ids < n)
        with np.errstate(all="ignore"):
            {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[kind].at(
                out, flat_ids[keep], rows[keep])
        return out
    safe = xp.where(flat_ids < 0, n, flat_ids)  # JAX wraps negative indices: drop them
    out = xp.full((n,) + rest, fill, data.dtype).at[safe]
    return {"sum": out.add, "prod": out.multiply, "max": out.max, "min": out.min}[kind](rows, mode="drop")


# --- sorted segments ---------------------------------------------------------------------------------

class _Segment(Op):
    data = operand_def()
    segment_ids = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    TYPES: ClassVar = NUMBER
    KIND: ClassVar[str] = "sum"

    @classmethod
    def infer(cls, data, segment_ids):
        check_types(cls.name, data, cls.TYPES)
        check_index(cls.name, segment_ids, "segment_ids", rank=1)
        if data.shape is not None and len(data.shape) == 0:
            raise InvalidArgumentError(f"{cls.name}: data must be at least rank 1, got a scalar", cls.name)
        if data.shape is None:
            return TensorSpec(None, data.dtype)
        n = segment_ids.shape[0] if segment_ids.shape is not None else None
        if n is not None and data.shape[0] is not None and n != data.shape[0]:
            raise InvalidArgumentError(f"{cls.name}: segment_ids should be the same size as dimension 0 of input: "
                                       f"{fmt_shape(segment_ids.shape)} vs {fmt_shape(data.shape)}", cls.name)
        ids = const_value(segment_ids)
        rows = None
        if ids is not None:
            rows = cls._rows(ids)
            guard_allocation(cls.name, (rows,) + data.shape[1:], data.dtype)
        return TensorSpec((rows,) + data.shape[1:], data.dtype)

    @classmethod
    def _rows(cls, ids) -> int:
        """The output's row count, after TensorFlow's checks: ids non-negative and sorted."""
        ids = np.asarray(ids).reshape(-1)
        if ids.size == 0:
            return 0
        if (ids < 0).any():
            raise InvalidArgumentError(f"{cls.name}: segment ids must be >= 0, got {int(ids.min())}", cls.name)
        if (np.diff(ids) < 0).any():
            raise InvalidArgumentError(f"{cls.name}: segment ids are not increasing", cls.name)
        return int(ids[-1]) + 1

    @classmethod
    def compute(cls, xp, data, segment_ids):
        if segment_ids.ndim != 1 or data.ndim == 0 or segment_ids.shape[0] != data.shape[0]:
            raise InvalidArgumentError(f"{cls.name}: segment_ids {list(segment_ids.shape)} must be a vector of "
                                       f"the size of dimension 0 of data {list(data.shape)}", cls.name)
        n = cls._rows(np.asarray(segment_ids))
        return cls._reduce(xp, data, segment_ids, n)

    @classmethod
    def _reduce(cls, xp, data, ids, n):
        fill = {"sum": 0, "prod": 1, "max": _lowest(data.dtype), "min": _highest(data.dtype)}[cls.KIND]
        out = _reduce_into(xp, cls.KIND, data, ids, n, fill)
        if cls.KIND in ("max", "min"):  # TensorFlow's empty sorted segment is 0
            count = _reduce_into(xp, "sum", xp.ones(ids.shape, np.int32), ids, n, 0)
            out = xp.where(count.reshape((n,) + (1,) * (data.ndim - 1)) > 0, out, xp.zeros((), data.dtype))
        return out


@register
class SegmentSum(_Segment):
    """output[j] = sum of data[i] with segment_ids[i] == j (ids sorted).

    %y = "tf.SegmentSum"(%data, %ids) : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<2x3xf32>
    """

    name = "tf.SegmentSum"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = segment_sum(d, ids): dd = gather(U, ids)
        return [ops.gather(dy, op.inputs[1]), None]


@register
class SegmentMean(_Segment):
    """output[j] = mean of data[i] with segment_ids[i] == j (0 for an empty segment; integers truncate).

    %y = "tf.SegmentMean"(%data, %ids) : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<2x3xf32>
    """

    name = "tf.SegmentMean"

    @classmethod
    def _reduce(cls, xp, data, ids, n):
        total = _reduce_into(xp, "sum", data, ids, n, 0)
        count = _reduce_into(xp, "sum", xp.ones(ids.shape, ids.dtype), ids, n, 0)
        count = xp.maximum(count, 1).reshape((n,) + (1,) * (data.ndim - 1))
        if data.dtype.kind in "iu":
            q = total // count.astype(data.dtype)  # C++ division: toward zero
            return xp.where((q < 0) & (q * count.astype(data.dtype) != total), q + 1, q).astype(data.dtype)
        return (total / count.astype(data.dtype)).astype(data.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = segment_mean(d, ids): dd = gather(U / count, ids)
        data, ids = op.inputs
        rank = static_rank(data)
        ones = ops.ones(ops.concat([ops.shape(ids), ops.ones([rank - 1], dtypes.int32)], 0), dy.dtype)
        return [ops.gather(ops.divide(dy, segment_sum(ones, ids)), ids), None]


@register
class SegmentProd(_Segment):
    """output[j] = product of data[i] with segment_ids[i] == j (1 for an empty segment).

    %y = "tf.SegmentProd"(%data, %ids) : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<2x3xf32>
    """

    name = "tf.SegmentProd"
    KIND: ClassVar[str] = "prod"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = segment_prod(d, ids): dd_i = U * prod of the others (exact at 0s)
        data, ids = op.inputs
        return [_prod_grad(data, ids, op.outputs[0], dy, lambda x: segment_sum(x, ids), lambda x: segment_prod(x, ids),
                           ids), None]


@register
class SegmentMax(_Segment):
    """output[j] = max of data[i] with segment_ids[i] == j (0 for an empty segment).

    %y = "tf.SegmentMax"(%data, %ids) : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<2x3xf32>
    """

    name = "tf.SegmentMax"
    TYPES: ClassVar = REAL
    KIND: ClassVar[str] = "max"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dd = U / k at the k elements equal to their segment's max, else 0
        return [_extremum_grad(op, dy, lambda x: segment_sum(x, op.inputs[1])), None]


@register
class SegmentMin(_Segment):
    """output[j] = min of data[i] with segment_ids[i] == j (0 for an empty segment).

    %y = "tf.SegmentMin"(%data, %ids) : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<2x3xf32>
    """

    name = "tf.SegmentMin"
    TYPES: ClassVar = REAL
    KIND: ClassVar[str] = "min"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dd = U / k at the k elements equal to their segment's min, else 0
        return [_extremum_grad(op, dy, lambda x: segment_sum(x, op.inputs[1])), None]


# --- unsorted segments ---------------------------------------------------------------------------------

class _UnsortedSegment(Op):
    data = operand_def()
    segment_ids = operand_def()
    num_segments = operand_def()
    output = result_def()
    traits = traits_def(Pure())
    verify_ir = v.check_unsorted_segment

    TYPES: ClassVar = REAL
    KIND: ClassVar[str] = "max"

    @classmethod
    def infer(cls, data, segment_ids, num_segments):
        check_types(cls.name, data, cls.TYPES)
        return unsorted_segment_spec(cls.name, data, segment_ids, num_segments)[0]

    @classmethod
    def compute(cls, xp, data, segment_ids, num_segments):
        n = int(num_segments)
        if xp is np:
            bad = segment_ids >= n
            if bad.any() and data.size:
                raise InvalidArgumentError(f"{cls.name}: segment_ids[{int(np.argmax(bad.reshape(-1)))}] = "
                                           f"{int(segment_ids.reshape(-1)[np.argmax(bad.reshape(-1))])} is out of "
                                           f"range [0, {n})", cls.name)
        fill = {"prod": 1, "max": _lowest(data.dtype), "min": _highest(data.dtype)}[cls.KIND]
        return _reduce_into(xp, cls.KIND, data, segment_ids, n, fill)


@register
class UnsortedSegmentMax(_UnsortedSegment):
    """output[j] = max of data[i...] with segment_ids[i...] == j (the lowest value for an empty segment).

    %y = "tf.UnsortedSegmentMax"(%data, %ids, %n) : (tensor<4x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<5x3xf32>
    """

    name = "tf.UnsortedSegmentMax"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dd = U / k at the k elements equal to their segment's max, else 0
        return [_extremum_grad(op, dy, lambda x: ops.unsorted_segment_sum(x, op.inputs[1], op.inputs[2])), None, None]


@register
class UnsortedSegmentMin(_UnsortedSegment):
    """output[j] = min of data[i...] with segment_ids[i...] == j (the highest value for an empty segment).

    %y = "tf.UnsortedSegmentMin"(%data, %ids, %n) : (tensor<4x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<5x3xf32>
    """

    name = "tf.UnsortedSegmentMin"
    KIND: ClassVar[str] = "min"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dd = U / k at the k elements equal to their segment's min, else 0
        return [_extremum_grad(op, dy, lambda x: ops.unsorted_segment_sum(x, op.inputs[1], op.inputs[2])), None, None]


@register
class UnsortedSegmentProd(_UnsortedSegment):
    """output[j] = product of data[i...] with segment_ids[i...] == j (1 for an empty segment).

    %y = "tf.UnsortedSegmentProd"(%data, %ids, %n) : (tensor<4x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<5x3xf32>
    """

    name = "tf.UnsortedSegmentProd"
    TYPES: ClassVar = NUMBER
    KIND: ClassVar[str] = "prod"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dd_i = U * the product of the other elements of i's segment (exact at 0s)
        data, ids, n = op.inputs
        return [_prod_grad(data, ids, op.outputs[0], dy, lambda x: ops.unsorted_segment_sum(x, ids, n),
                           lambda x: unsorted_segment_prod(x, ids, n), ops.maximum(ids, ops.zeros_like(ids))),
                None, None]


# --- gradient helpers (TensorFlow's math_grad.py) ------------------------------------------------------

def _slice_mask(mask, like):
    """A per-element mask of ``ids``' shape broadcast over the slice dims of ``like`` (static ranks)."""
    for _ in range(static_rank(like) - static_rank(mask)):
        mask = ops.expand_dims(mask, -1)
    return ops.logical_and(mask, ops.cast(ops.ones_like(like), dtypes.bool_))


def _gather_dropping_negatives(params, ids):
    """params gathered at ids, zero where an id is negative (TensorFlow's _GatherDropNegatives)."""
    gathered = ops.gather(params, ops.maximum(ids, ops.zeros_like(ids)))
    keep = _slice_mask(ops.greater_equal(ids, ops.zeros_like(ids)), gathered)
    return ops.where(keep, gathered, ops.zeros_like(gathered)), keep


def _extremum_grad(op, dy, segment_sum_of):
    data, ids = op.inputs[0], op.inputs[1]
    gathered, keep = _gather_dropping_negatives(op.outputs[0], ids)
    selected = ops.logical_and(ops.equal(data, gathered), keep)
    count = segment_sum_of(ops.cast(selected, dy.dtype))
    weighted, _ = _gather_dropping_negatives(ops.divide(dy, count), ids)
    return ops.where(selected, weighted, ops.zeros_like(weighted))


def _prod_grad(data, ids, output, dy, segment_sum_of, segment_prod_of, gather_ids):
    zero = ops.scalar_like(data, 0)
    is_zero = ops.equal(data, zero)
    zeros_per_segment = segment_sum_of(ops.cast(is_zero, dtypes.int32))
    dy = ops.where(ops.greater(zeros_per_segment, ops.scalar_like(zeros_per_segment, 1)), ops.zeros_like(dy), dy)
    non_zero = ops.where(is_zero, ops.ones_like(data), data)
    non_zero_prod = segment_prod_of(non_zero)
    partial = ops.where(is_zero, ops.gather(non_zero_prod, gather_ids), ops.divide(ops.gather(output, gather_ids),
                                                                                   non_zero))
    gathered, _ = _gather_dropping_negatives(dy, ids)
    return ops.multiply(gathered, partial)


# --- public functions ------------------------------------------------------------------------------------

def segment_sum(data, segment_ids, name=None):
    return SegmentSum.bind(data, index_operand(segment_ids))


def segment_mean(data, segment_ids, name=None):
    return SegmentMean.bind(data, index_operand(segment_ids))


def segment_prod(data, segment_ids, name=None):
    return SegmentProd.bind(data, index_operand(segment_ids))


def segment_max(data, segment_ids, name=None):
    return SegmentMax.bind(data, index_operand(segment_ids))


def segment_min(data, segment_ids, name=None):
    return SegmentMin.bind(data, index_operand(segment_ids))


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    return UnsortedSegmentMax.bind(data, index_operand(segment_ids), index_operand(num_segments))


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    return UnsortedSegmentMin.bind(data, index_operand(segment_ids), index_operand(num_segments))


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    return UnsortedSegmentProd.bind(data, index_operand(segment_ids), index_operand(num_segments))


def _segment_counts(data, segment_ids, num_segments):
    """How many ids fall in each segment, at least 1, shaped to broadcast against the segment sums."""
    ones = ops.ones(ops.shape(segment_ids), data.dtype)
    n = ops.unsorted_segment_sum(ones, segment_ids, num_segments)
    extra = static_rank(data) - static_rank(segment_ids)
    n = ops.reshape(n, ops.concat([ops.reshape(ops.cast(num_segments, dtypes.int32), [1]),
                                   ops.ones([extra], dtypes.int32)], 0))
    return ops.maximum(n, ops.scalar_like(n, 1))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of each segment (0 for an empty one): unsorted_segment_sum / count, as TensorFlow."""
    data, segment_ids, num_segments = as_tensor(data), as_tensor(index_operand(segment_ids)), \
        as_tensor(index_operand(num_segments))
    return ops.divide(ops.unsorted_segment_sum(data, segment_ids, num_segments),
                      _segment_counts(data, segment_ids, num_segments))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Each segment's sum divided by the square root of its count, as TensorFlow."""
    data, segment_ids, num_segments = as_tensor(data), as_tensor(index_operand(segment_ids)), \
        as_tensor(index_operand(num_segments))
    return ops.divide(ops.unsorted_segment_sum(data, segment_ids, num_segments),
                      ops.sqrt(_segment_counts(data, segment_ids, num_segments)))


__namespaces__ = {n: ("math",) for n in __all__}
