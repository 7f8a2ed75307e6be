"""Gathering: GatherV2, and UnsortedSegmentSum (the scatter-add its gradient uses).

    %y = "tf.GatherV2"(%params, %indices, %axis) <{batch_dims = 0 : i64}>
        : (tensor<5x3xf32>, tensor<2xi32>, tensor<i32>) -> tensor<2x3xf32>
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import array, sequences
from tinytf.ops import shape as shapes
from tinytf.ops import verifiers as v
from tinytf.ops.array import constant, zeros_like
from tinytf.ops.base import fmt_shape
from tinytf.ops.joining import concat
from tinytf.ops.operands import (
    as_int,
    check_index,
    const_value,
    folding,
    guard_allocation,
    index_operand,
    is_python_value,
    scalar_axis,
    static_shape,
    static_value,
)
from tinytf.ops.slicing import Slice
from tinytf.ops.strided_slice import StridedSlice
from tinytf.ops.transpose import transpose


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
    VALUES_CHECKED_BY_KERNEL: ClassVar[tuple] = ("indices",)  # (the shape rule checks known ones only)

    def verify_ir(self):
        batch_dims, r = self.attr_values()["batch_dims"], v.rank(self.indices.type)
        if r is not None:
            if not -r <= batch_dims <= r:
                v.fail(f"batch_dims ({batch_dims}) must be in range [{-r}, {r + 1})")
            batch_dims += r if batch_dims < 0 else 0
        if not v.rank_at_most(self.axis.type, 1):
            v.fail("requires axis to have rank at most 1")
        axis = v.const_ints(self.axis)
        if not axis:
            return
        axis, params_rank = axis[0], v.rank(self.params.type)
        if params_rank is not None:
            if not -params_rank <= axis < params_rank:
                v.fail(f"axis ({axis}) must be in range [{-params_rank}, {params_rank})")
            axis += params_rank if axis < 0 else 0
        if batch_dims >= 0 and 0 <= axis < batch_dims:
            v.fail(f"requires axis ({axis}) to be greater than or equal to batch_dims ({batch_dims})")

    @classmethod
    @folding
    def infer(cls, params, indices, axis, *, batch_dims):
        if indices.dtype not in (dtypes.int16, dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: indices must be int16, int32 or int64, got {indices.dtype.name}",
                                       cls.name)
        a = scalar_axis(cls.name, axis)
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
        a, b = _gather_layout(cls.name, params.shape, indices.shape, as_int(axis), batch_dims)
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
        p, q, a = static_shape(params), static_shape(indices), static_value(axis)
        if p is not None and q is not None and a is not None:  # static shapes: shapes and perms are constants
            a = as_int(a) % len(p)
            values = shapes.reshape(dy, [*p[:a], math.prod(q), *p[a + 1:]])
            to_front = [a] + list(range(a)) + list(range(a + 1, len(p)))
            summed = unsorted_segment_sum(transpose(values, to_front), shapes.reshape(indices, [-1]), p[a])
            back = list(range(1, a + 1)) + [0] + list(range(a + 1, len(p)))
            return [transpose(summed, back), None, None]
        from tinytf.ops.math import add

        p_shape, r = shapes.shape(params), shapes.rank(params)
        a1 = shapes.reshape(array.cast(axis, dtypes.int32), [1])
        a = StridedSlice.bind(sequences.range(0, r), a1, a1, constant(np.ones(1, np.int32)), shrink_axis_mask=1)  # >= 0
        a_vec, a_next = shapes.reshape(a, [1]), add(a, 1)
        outer = Slice.bind(p_shape, constant(np.zeros(1, np.int32)), a_vec)
        inner = Slice.bind(p_shape, shapes.reshape(a_next, [1]), constant(np.full(1, -1, np.int32)))
        values = shapes.reshape(dy, concat([outer, shapes.reshape(shapes.size(indices), [1]), inner], 0))
        to_front = concat([a_vec, sequences.range(0, a), sequences.range(a_next, r)], 0)
        summed = unsorted_segment_sum(transpose(values, to_front), shapes.reshape(indices, [-1]),
                                      gather(p_shape, a))
        back = concat([sequences.range(1, a_next), constant(np.zeros(1, np.int32)), sequences.range(a_next, r)], 0)
        return [transpose(summed, back), None, None]


def _batch_gather_grad(params, indices, axis, batch_dims, dy):
    """GatherV2's params gradient with batch dims B: dy is [B, M, I, R] for params [B, M, n, R] (n at the
    axis); with I moved next to B and each batch's indices offset by k * n, one segment sum over
    [B * n] segments does every batch at once. Needs static shapes and axis (UnimplementedError else)."""
    from tinytf.ops.math import add

    p, q, a = static_shape(params), static_shape(indices), static_value(axis)
    if p is None or q is None or a is None:
        raise UnimplementedError("tf.GatherV2: the gradient with batch_dims needs static shapes and axis",
                                 GatherV2.name)
    a, b = _gather_layout(GatherV2.name, p, q, as_int(a), batch_dims)
    batch, m, i, rest, n = p[:b], p[b:a], q[b:], p[a + 1:], p[a]
    nb, ni = math.prod(batch), math.prod(i)
    lb, lm, li = len(batch), len(m), len(i)
    to_bimr = list(range(lb)) + list(range(lb + lm, lb + lm + li)) + list(range(lb, lb + lm)) + \
        list(range(lb + lm + li, lb + lm + li + len(rest)))
    values = shapes.reshape(transpose(dy, to_bimr), [nb * ni, *m, *rest])
    offsets = (np.arange(nb) * n).reshape(batch + (1,) * li).astype(indices.dtype.np)
    ids = shapes.reshape(add(indices, constant(offsets)), [-1])
    summed = shapes.reshape(unsorted_segment_sum(values, ids, nb * n), [*batch, n, *m, *rest])
    to_bmnr = list(range(lb)) + list(range(lb + 1, lb + 1 + lm)) + [lb] + list(range(lb + 1 + lm, len(p)))
    return transpose(summed, to_bmnr)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    if axis is None:
        axis = batch_dims
    if is_python_value(indices):
        indices = index_operand(indices)
    return GatherV2.bind(params, indices, index_operand(axis), batch_dims=batch_dims)


def unsorted_segment_spec(op_name: str, data, segment_ids, num_segments) -> tuple[TensorSpec, int | None]:
    """The result of an UnsortedSegment* op, [num_segments, *data.shape[rank(segment_ids):]], and num_segments."""
    check_index(op_name, segment_ids, "segment_ids")
    n = scalar_axis(op_name, num_segments, "num_segments")
    if n is not None and n < 0:
        raise InvalidArgumentError(f"{op_name}: num_segments must be non-negative, got {n}", op_name)
    if data.shape is None or segment_ids.shape is None:
        return TensorSpec(None, data.dtype), n
    q = len(segment_ids.shape)
    if not TensorSpec(data.shape[:q]).is_compatible_with(segment_ids.shape):
        raise InvalidArgumentError(f"{op_name}: data.shape = {fmt_shape(data.shape)} does not start with "
                                   f"segment_ids.shape = {fmt_shape(segment_ids.shape)}", op_name)
    out = (n,) + data.shape[q:]
    guard_allocation(op_name, out, data.dtype)
    return TensorSpec(out, data.dtype), n


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
    verify_ir = v.check_unsorted_segment

    @classmethod
    def infer(cls, data, segment_ids, num_segments):
        spec, n = unsorted_segment_spec(cls.name, data, segment_ids, num_segments)
        ids = const_value(segment_ids)
        if ids is not None and n is not None and data.shape is not None and None not in data.shape \
                and 0 not in data.shape:
            cls._check_ids(ids, n)  # (TensorFlow does not look at the ids of empty data)
        return spec

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



# tf.math.unsorted_segment_sum, as TensorFlow (tinytf.runtime.namespaces).
__namespaces__ = {"unsorted_segment_sum": ("math",)}


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["gather", "unsorted_segment_sum"]
