"""Sorting and searching: TopKV2, InTopKV2, Unique, UniqueWithCounts, LowerBound, UpperBound; and
TensorFlow's composites over them: sort, argsort (top_k along the axis moved last), searchsorted,
approx_max_k / approx_min_k (exact on CPU, as TensorFlow's fallback).

    %v, %i = "tf.TopKV2"(%x, %k) <{sorted = true}> : (tensor<3x5xf32>, tensor<i32>) -> (tensor<3x2xf32>, tensor<3x2xi32>)

top_k puts the lower index first among equal values, as TensorFlow. Unique's output size depends on
its input's values: under XLA the input must be a constant.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import check_index, index_operand, scalar_axis
from tinytf.ops.tensor_inputs import as_tensor, static_dims
from tinytf.ops.type_lists import REAL, check_types

__all__ = ["top_k", "in_top_k", "sort", "argsort", "unique", "unique_with_counts", "searchsorted", "approx_max_k",
           "approx_min_k"]

INDEX_OUT = frozenset({"int16", "int32", "int64"})


def descending_order(xp, x):
    """Indices that sort the last axis descending, the lower index first among equals (any dtype)."""
    n = x.shape[-1]
    ascending = xp.argsort(xp.flip(x, -1), axis=-1, kind="stable") if xp is np else \
        xp.argsort(xp.flip(x, -1), axis=-1, stable=True)
    return (n - 1) - xp.flip(ascending, -1)


@register
class TopKV2(Op):
    """The k largest values of the last axis and their indices, largest first.

    %v, %i = "tf.TopKV2"(%x, %k) <{sorted = true}> : (tensor<5xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
    """

    name = "tf.TopKV2"
    input = operand_def()
    k = operand_def()
    values = result_def()
    indices = result_def()
    sorted = attr(True)
    index_type = derived("type", lambda op: tf_types.dtype_of(op.results[1].type), default=dtypes.int32)
    traits = traits_def(Pure())

    def verify_ir(self):
        if not v.rank_at_least(self.input.type, 1):
            v.fail("requires input operand to have at least 1 dimension")
        if not v.has_rank(self.k.type, 0):
            v.fail("requires k operand to be 0D tensor")

    @classmethod
    def infer(cls, input, k, *, sorted=True, index_type=dtypes.int32):
        check_types(cls.name, input, REAL)
        out = dtypes.as_dtype(index_type)
        if out.name not in INDEX_OUT:
            raise InvalidArgumentError(f"{cls.name}: index_type {out.name} is not supported", cls.name)
        kv = scalar_axis(cls.name, k, "k")
        if kv is not None and kv < 0:
            raise InvalidArgumentError(f"{cls.name}: Need k >= 0, got {kv}", cls.name)
        if input.shape is None:
            return [TensorSpec(None, input.dtype), TensorSpec(None, out)]
        if len(input.shape) == 0:
            raise InvalidArgumentError(f"{cls.name}: input must be >= 1-D, got shape {fmt_shape(input.shape)}",
                                       cls.name)
        n = input.shape[-1]
        if kv is not None and n is not None and n < kv:
            raise InvalidArgumentError(f"{cls.name}: input must have at least k columns. Had {n}, needed {kv}",
                                       cls.name)
        shape = input.shape[:-1] + (kv,)
        return [TensorSpec(shape, input.dtype), TensorSpec(shape, out)]

    @classmethod
    def compute(cls, xp, input, k, *, sorted=True, index_type=dtypes.int32):
        k = int(k)
        if input.ndim == 0 or k < 0 or input.shape[-1] < k:
            raise InvalidArgumentError(f"{cls.name}: need 0 <= k <= the last dim of a >= 1-D input, got k = {k} and "
                                       f"shape {list(input.shape)}", cls.name)
        if xp is np:
            order = descending_order(np, input)[..., :k]
            return np.take_along_axis(input, order, -1), order.astype(dtypes.as_dtype(index_type).np)
        import jax

        values, order = jax.lax.top_k(input, k)
        return values, order.astype(dtypes.as_dtype(index_type).np)

    @staticmethod
    def grad(op, dvalues, dindices):  # Given upstream grad U: dinput = U scattered back to the top-k positions
        x, indices = op.inputs[0], op.outputs[1]
        shape = ops.shape(x)
        n = ops.gather(shape, ops.size(shape) - 1)
        k = ops.gather(ops.shape(indices), ops.size(shape) - 1)
        rows = ops.floordiv(ops.size(x), ops.maximum(n, ops.scalar_like(n, 1)))
        flat = ops.reshape(ops.cast(indices, dtypes.int32), ops.stack([rows, k]))
        flat = ops.add(flat, ops.expand_dims(ops.multiply(ops.range(0, rows), n), -1))
        zeros = ops.zeros_like(ops.reshape(x, [-1]))  # (the top-k indices of a row are distinct: an update is a sum)
        scattered = ops.tensor_scatter_nd_update(zeros, ops.reshape(flat, [-1, 1]), ops.reshape(dvalues, [-1]))
        return [ops.reshape(scattered, shape), None]


@register
class InTopKV2(Op):
    """Whether each row's target class is among its k largest predictions (false for a target out of
    range or a non-finite prediction).

    %r = "tf.InTopKV2"(%p, %t, %k) : (tensor<2x3xf32>, tensor<2xi32>, tensor<i32>) -> tensor<2xi1>
    """

    name = "tf.InTopKV2"
    predictions = operand_def()
    targets = operand_def()
    k = operand_def()
    precision = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, predictions, targets, k):
        check_types(cls.name, predictions, frozenset({"float32"}), "predictions")
        check_index(cls.name, targets, "targets", rank=1)
        check_index(cls.name, k, "k", rank=0)
        if targets.dtype is not k.dtype:
            raise InvalidArgumentError(f"{cls.name}: targets and k must have one dtype", cls.name)
        p, t = predictions.shape, targets.shape
        if p is not None and len(p) != 2:
            raise InvalidArgumentError(f"{cls.name}: predictions must be 2-dimensional, got {fmt_shape(p)}", cls.name)
        if p is not None and t is not None and None not in (p[0], t[0]) and p[0] != t[0]:
            raise InvalidArgumentError(f"{cls.name}: First dimension of predictions {p[0]} must match length of "
                                       f"targets {t[0]}", cls.name)
        return TensorSpec((t[0] if t is not None else (p[0] if p is not None else None),), dtypes.bool_)

    @staticmethod
    def compute(xp, predictions, targets, k):
        n = predictions.shape[1]
        valid = (targets >= 0) & (targets < n)
        safe = xp.where(valid, targets, 0).astype(np.int64)
        target = xp.take_along_axis(predictions, safe[:, None], 1)
        more = xp.sum(predictions > target, axis=1)
        return valid & xp.isfinite(target[:, 0]) & (more < k)


class _Unique(Op):
    x = operand_def()
    y = result_def()
    idx = result_def()
    out_idx = derived("type", lambda op: tf_types.dtype_of(op.results[1].type), default=dtypes.int32)
    traits = traits_def(Pure(), NotDifferentiable())

    COUNTS: ClassVar[bool] = False

    @classmethod
    def infer(cls, x, *, out_idx=dtypes.int32):
        out = dtypes.as_dtype(out_idx)
        if out not in (dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: out_idx must be int32 or int64, got {out.name}", cls.name)
        if x.shape is not None and len(x.shape) != 1:
            raise InvalidArgumentError(f"{cls.name}: unique expects a 1D vector, got {fmt_shape(x.shape)}", cls.name)
        specs = [TensorSpec((None,), x.dtype), TensorSpec(x.shape, out)]
        return specs + [TensorSpec((None,), out)] if cls.COUNTS else specs

    @classmethod
    def compute(cls, xp, x, *, out_idx=dtypes.int32):
        x = np.asarray(x)  # the output's size depends on the values: a constant under XLA
        if x.ndim != 1:
            raise InvalidArgumentError(f"{cls.name}: unique expects a 1D vector, got shape {list(x.shape)}", cls.name)
        out = dtypes.as_dtype(out_idx).np
        _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")  # TensorFlow keeps the order of first appearance
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        results = [x[np.sort(first)], rank[inverse.reshape(-1)].astype(out)]
        return tuple(results + [counts[order].astype(out)]) if cls.COUNTS else tuple(results)


@register
class Unique(_Unique):
    """The distinct values of a vector in order of first appearance, and each element's index in them.

    %y, %idx = "tf.Unique"(%x) : (tensor<6xi32>) -> (tensor<?xi32>, tensor<6xi32>)
    """

    name = "tf.Unique"


@register
class UniqueWithCounts(_Unique):
    """Unique, and how often each distinct value appears.

    %y, %idx, %count = "tf.UniqueWithCounts"(%x) : (tensor<6xi32>) -> (tensor<?xi32>, tensor<6xi32>, tensor<?xi32>)
    """

    name = "tf.UniqueWithCounts"
    x = operand_def()  # restated: xDSL orders a subclass's own fields first
    y = result_def()
    idx = result_def()
    count = result_def()
    COUNTS: ClassVar[bool] = True


class _Bound(Op):
    sorted_inputs = operand_def()
    values = operand_def()
    output = result_def()
    out_type = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=dtypes.int32)
    traits = traits_def(Pure(), NotDifferentiable())

    SIDE: ClassVar[str] = "left"

    @classmethod
    def infer(cls, sorted_inputs, values, *, out_type=dtypes.int32):
        if sorted_inputs.dtype is not values.dtype:
            raise InvalidArgumentError(f"{cls.name}: sorted_inputs and values must have one dtype", cls.name)
        check_types(cls.name, values, REAL)
        out = dtypes.as_dtype(out_type)
        if out not in (dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: out_type must be int32 or int64, got {out.name}", cls.name)
        s, v = sorted_inputs.shape, values.shape
        for what, shape in (("sorted_inputs", s), ("values", v)):
            if shape is not None and len(shape) != 2:
                raise InvalidArgumentError(f"{cls.name}: {what} must be 2-D, got {fmt_shape(shape)}", cls.name)
        if s is not None and v is not None and None not in (s[0], v[0]) and s[0] != v[0]:
            raise InvalidArgumentError(f"{cls.name}: Leading dim_size of both tensors must match: {s[0]} vs {v[0]}",
                                       cls.name)
        return TensorSpec(v, out)

    @classmethod
    def compute(cls, xp, sorted_inputs, values, *, out_type=dtypes.int32):
        out = dtypes.as_dtype(out_type).np
        if sorted_inputs.ndim != 2 or values.ndim != 2 or sorted_inputs.shape[0] != values.shape[0]:
            raise InvalidArgumentError(f"{cls.name}: need 2-D inputs with one row count, got "
                                       f"{list(sorted_inputs.shape)} and {list(values.shape)}", cls.name)
        if xp is np:
            return np.stack([np.searchsorted(r, q, side=cls.SIDE) for r, q in zip(sorted_inputs, values)]
                            ).reshape(values.shape).astype(out)
        import jax

        return jax.vmap(lambda r, q: xp.searchsorted(r, q, side=cls.SIDE))(sorted_inputs, values).astype(out)


@register
class LowerBound(_Bound):
    """For each row, the first index where each value could be inserted keeping the row sorted.

    %i = "tf.LowerBound"(%sorted, %values) : (tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
    """

    name = "tf.LowerBound"


@register
class UpperBound(_Bound):
    """For each row, the last index where each value could be inserted keeping the row sorted.

    %i = "tf.UpperBound"(%sorted, %values) : (tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
    """

    name = "tf.UpperBound"
    SIDE: ClassVar[str] = "right"


# --- public functions -------------------------------------------------------------------------------

def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):
    """(values, indices) of the k largest entries of the last axis."""
    return tuple(TopKV2.bind(input, index_operand(k), sorted=bool(sorted), index_type=dtypes.as_dtype(index_type)))


def in_top_k(targets, predictions, k, name=None):
    """TF2's argument order: ``tt.math.in_top_k(targets, predictions, k)``."""
    targets = as_tensor(index_operand(targets))
    return InTopKV2.bind(predictions, targets, as_tensor(np.asarray(k, targets.dtype.np)) if isinstance(k, int) else k)


def _last_axis_perm(rank: int, axis: int) -> list[int] | None:
    axis %= rank
    if axis == rank - 1:
        return None
    return list(range(axis)) + [rank - 1] + list(range(axis + 1, rank - 1)) + [axis]


def _descending(values, axis, return_argsort):
    dims = static_dims(values)
    if dims is None:
        raise InvalidArgumentError("sort: the input's rank must be known")
    if not -len(dims) <= axis < len(dims):
        raise InvalidArgumentError(f"sort: axis {axis} is out of range for rank {len(dims)}")
    perm = _last_axis_perm(len(dims), axis)
    x = values if perm is None else ops.transpose(values, perm)
    n = dims[axis] if dims[axis] is not None else ops.gather(ops.shape(values), axis % len(dims))
    out = top_k(x, n)[1 if return_argsort else 0]
    return out if perm is None else ops.transpose(out, perm)


def _sort(values, axis, direction, return_argsort):
    values = as_tensor(values)
    if direction not in ("ASCENDING", "DESCENDING"):
        raise InvalidArgumentError(f"sort: direction must be ASCENDING or DESCENDING, got {direction!r}")
    if direction == "DESCENDING":
        return _descending(values, axis, return_argsort)
    dtype = values.dtype
    if dtype.kind == "u":  # TensorFlow flips with the dtype's maximum (unsigned) or -x - 1 (signed): no overflow
        top = ops.scalar_like(values, np.iinfo(dtype.np).max)
        out = _descending(ops.subtract(top, values), axis, return_argsort)
        return out if return_argsort else ops.subtract(top, out)
    if dtype.kind == "i":
        one = ops.scalar_like(values, 1)
        out = _descending(ops.subtract(ops.negative(values), one), axis, return_argsort)
        return out if return_argsort else ops.subtract(ops.negative(out), one)
    out = _descending(ops.negative(values), axis, return_argsort)
    return out if return_argsort else ops.negative(out)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    return _sort(values, axis, direction, False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """Indices that sort ``values`` along ``axis`` (always stable, as TensorFlow's top_k)."""
    return _sort(values, axis, direction, True)


def unique(x, out_idx=dtypes.int32, name=None):
    return tuple(Unique.bind(x, out_idx=dtypes.as_dtype(out_idx)))


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    return tuple(UniqueWithCounts.bind(x, out_idx=dtypes.as_dtype(out_idx)))


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Insertion indices of ``values`` in the innermost axis of ``sorted_sequence`` (same leading dims)."""
    sorted_sequence, values = as_tensor(sorted_sequence), as_tensor(values, like=as_tensor(sorted_sequence))
    if side not in ("left", "right"):
        raise InvalidArgumentError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    s, v = static_dims(sorted_sequence), static_dims(values)
    if s is None or v is None or len(s) != len(v) or not s:
        raise InvalidArgumentError("searchsorted: sorted_sequence and values need known, equal ranks >= 1")
    flat_s = ops.reshape(sorted_sequence, [-1, s[-1] if s[-1] is not None else -1])
    flat_v = ops.reshape(values, ops.stack([ops.gather(ops.shape(flat_s), 0), -1]))
    cls = LowerBound if side == "left" else UpperBound
    return ops.reshape(cls.bind(flat_s, flat_v, out_type=dtypes.as_dtype(out_type)), ops.shape(values))


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """The k largest along ``reduction_dimension`` and their indices: exact, as TensorFlow's CPU fallback."""
    return _approx(operand, k, reduction_dimension, largest=True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """The k smallest along ``reduction_dimension`` and their indices (exact)."""
    return _approx(operand, k, reduction_dimension, largest=False)


def _approx(operand, k, axis, largest):
    operand = as_tensor(operand)
    dims = static_dims(operand)
    if dims is None:
        raise InvalidArgumentError("approx_max_k: the operand's rank must be known")
    perm = _last_axis_perm(len(dims), axis)
    x = operand if perm is None else ops.transpose(operand, perm)
    values, indices = top_k(x if largest else ops.negative(x), k)
    values = values if largest else ops.negative(values)
    if perm is not None:
        values, indices = ops.transpose(values, perm), ops.transpose(indices, perm)
    return values, indices


__namespaces__ = {"top_k": ("math", "nn"), "in_top_k": ("math", "nn"), "sort": ("top",), "argsort": ("top",),
                  "unique": ("top",), "unique_with_counts": ("top",), "searchsorted": ("top",),
                  "approx_max_k": ("math", "nn"), "approx_min_k": ("math", "nn")}

