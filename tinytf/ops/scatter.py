"""Scattering into a tensor: TensorScatterUpdate (a copy of ``tensor`` with slices replaced).

    %y = "tf.TensorScatterUpdate"(%tensor, %indices, %updates)
        : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>

``indices[..., :d]`` address the first ``d`` dims of ``tensor``; ``updates`` has shape
``indices.shape[:-1] + tensor.shape[d:]``. Under XLA this is a dynamic-update-slice (in place in a
loop): ``tt.while_loop``'s gradient stacks each iteration's state with it.
"""
from __future__ import annotations

import math

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import shape as shapes
from tinytf.ops import verifiers as v
from tinytf.ops.array import constant, zeros_like
from tinytf.ops.base import fmt_shape
from tinytf.ops.gather import gather
from tinytf.ops.math import multiply
from tinytf.ops.operands import index_operand, static_shape
from tinytf.ops.reduction import reduce_sum


def _layout(op_name: str, tensor_shape, indices_shape, updates_shape) -> None:
    """TensorFlow's shape rule: indices [..., d] with d <= rank, updates = indices.shape[:-1] + tensor.shape[d:]."""
    if tensor_shape is None or indices_shape is None or updates_shape is None:
        return
    if not indices_shape or indices_shape[-1] is None:
        if not indices_shape:
            raise InvalidArgumentError(f"{op_name}: indices must have rank at least 1, got a scalar", op_name)
        return
    d = indices_shape[-1]
    if d > len(tensor_shape):
        raise InvalidArgumentError(f"{op_name}: indices.shape[-1] = {d} must be <= the rank of tensor "
                                   f"{fmt_shape(tensor_shape)}", op_name)
    want = tuple(indices_shape[:-1]) + tuple(tensor_shape[d:])
    if len(want) != len(updates_shape) or any(a is not None and b is not None and a != b
                                              for a, b in zip(want, updates_shape)):
        raise InvalidArgumentError(f"{op_name}: updates shape {fmt_shape(updates_shape)} must be indices.shape[:-1] + "
                                   f"tensor.shape[{d}:] = {fmt_shape(want)} (tensor {fmt_shape(tensor_shape)}, "
                                   f"indices {fmt_shape(indices_shape)})", op_name)


@register
class TensorScatterUpdate(Op):
    """``tensor`` with the slices at ``indices`` replaced by ``updates`` (the last of duplicates wins).

    %y = "tf.TensorScatterUpdate"(%t, %i, %u) : (tensor<4xf32>, tensor<1x1xi32>, tensor<1xf32>) -> tensor<4xf32>
    """

    name = "tf.TensorScatterUpdate"
    tensor = operand_def()
    indices = operand_def()
    updates = operand_def()
    output = result_def()
    bad_indices_policy = attr("", kind="str")  # "" / "DEFAULT" / "ERROR": refuse; "IGNORE": drop the update
    traits = traits_def(Pure())

    def verify_ir(self):
        if not v.rank_at_least(self.tensor.type, 1):
            v.fail("requires tensor operand to have at least 1 dimension")
        if not v.rank_at_least(self.indices.type, 1):
            v.fail("requires indices operand to have at least 1 dimension")
        tensor, indices = v.shape(self.tensor.type), v.shape(self.indices.type)
        if tensor is not None and indices is not None and indices[-1] is not None and indices[-1] > len(tensor):
            v.fail("requires tensor operand with rank greater than or equal to the indices operand's last dimensions")

    @classmethod
    def infer(cls, tensor, indices, updates, *, bad_indices_policy=""):
        if indices.dtype not in (dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: indices must be int32 or int64, got {indices.dtype.name}",
                                       cls.name)
        if updates.dtype is not tensor.dtype:
            raise InvalidArgumentError(f"{cls.name}: updates are {updates.dtype.name} but tensor is "
                                       f"{tensor.dtype.name}", cls.name)
        _layout(cls.name, tensor.shape, indices.shape, updates.shape)
        return TensorSpec(tensor.shape, tensor.dtype)

    @classmethod
    def compute(cls, xp, tensor, indices, updates, *, bad_indices_policy=""):
        _layout(cls.name, tensor.shape, indices.shape, updates.shape)
        d = indices.shape[-1]
        if d == 0:
            return _whole(tensor, indices, updates)
        bad = (indices < 0) | (indices >= np.array(tensor.shape[:d], dtype=indices.dtype))
        if bad.any() and bad_indices_policy == "IGNORE":
            keep = ~bad.any(axis=-1)
            indices, updates = indices[keep], np.broadcast_to(updates, indices.shape[:-1] + tensor.shape[d:])[keep]
        elif bad.any():  # as TensorFlow's CPU kernel; its XLA kernel drops the update instead
            where = tuple(int(i) for i in np.argwhere(bad.any(axis=-1))[0])
            raise InvalidArgumentError(f"{cls.name}: indices{list(where)} = {indices[where].tolist()} does not index "
                                       f"into shape {fmt_shape(tensor.shape)}", cls.name)
        out = np.array(tensor, copy=True)
        out[tuple(indices[..., i] for i in range(d))] = updates
        return out

    @staticmethod
    def lower(tensor, indices, updates, *, bad_indices_policy=""):
        import jax.numpy as jnp

        tensor, d = jnp.asarray(tensor), indices.shape[-1]
        if d == 0:
            return _whole(tensor, indices, updates)
        # an index out of range drops its update, as TensorFlow's XLA kernel (JAX would wrap a negative one)
        safe = jnp.where(indices < 0, jnp.asarray(tensor.shape[:d], indices.dtype), indices)
        return tensor.at[tuple(safe[..., i] for i in range(d))].set(updates, mode="drop")

    @staticmethod
    def grad(op, dy):
        # Given upstream grad U: dtensor = U with the updated slices zeroed; dupdates = U at indices
        tensor, indices, updates = op.inputs
        return [tensor_scatter_update(dy, indices, zeros_like(updates)), None, _gather_nd(dy, indices, tensor)]


def _whole(tensor, indices, updates):
    """Indices of depth 0 address the whole tensor: the last update replaces it."""
    count = math.prod(indices.shape[:-1])
    return tensor if count == 0 else updates.reshape((count, *tensor.shape))[-1]


def _gather_nd(params, indices, like):
    """``params`` at ``indices[..., :d]`` (GatherNd) as one GatherV2 over the first d dims flattened."""
    shape, depth = static_shape(like), static_shape(indices)
    if shape is None or depth is None:
        raise UnimplementedError("tf.TensorScatterUpdate: the gradient needs static shapes", "tf.TensorScatterUpdate")
    d = depth[-1]
    strides = [math.prod(shape[i + 1:d]) for i in range(d)]
    flat = shapes.reshape(params, [math.prod(shape[:d]), *shape[d:]])
    linear = reduce_sum(multiply(indices, constant(np.array(strides, dtype=indices.dtype.np))), -1)
    return gather(flat, linear)


def tensor_scatter_update(tensor, indices, updates, name=None):
    return TensorScatterUpdate.bind(tensor, index_operand(indices), updates)


# tf.tensor_scatter_nd_update is the public name of tf.TensorScatterUpdate.
tensor_scatter_nd_update = tensor_scatter_update


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["tensor_scatter_nd_update"]
