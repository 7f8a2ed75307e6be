"""Selecting by a boolean mask: Where (the coordinates of the true elements) and ``tt.boolean_mask``.

    %i = "tf.Where"(%mask) : (tensor<3x4xi1>) -> tensor<?x2xi64>

The number of results depends on the mask's values, so under XLA (static shapes) a mask must be a
compile-time constant.
"""
from __future__ import annotations

import math

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import shape as shapes
from tinytf.ops.array import constant
from tinytf.ops.base import fmt_shape
from tinytf.ops.gather import gather
from tinytf.ops.operands import is_python_value, static_shape


@register
class Where(Op):
    """The coordinates of the true (non-zero) elements of ``input``, one row each, in row-major order.

    %i = "tf.Where"(%m) : (tensor<4xi1>) -> tensor<?x1xi64>
    """

    name = "tf.Where"
    input = operand_def()
    index = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, input):
        if input.dtype.kind not in ("b", "i", "u", "f", "c"):
            raise InvalidArgumentError(f"{cls.name}: input must be bool or numeric, got {input.dtype.name}", cls.name)
        if input.shape is None:
            return TensorSpec((None, None), dtypes.int64)
        count = int(np.count_nonzero(input.value)) if input.value is not None else None
        return TensorSpec((count, len(input.shape)), dtypes.int64)

    @staticmethod
    def compute(xp, input):
        return xp.argwhere(input).astype(np.int64)


def where_indices(condition, name=None):
    """``tt.where(condition)``: the coordinates of its true elements, an int64 [num_true, rank] tensor."""
    if is_python_value(condition):
        condition = constant(condition)
    return Where.bind(condition)


def boolean_mask(tensor, mask, axis=None, name=None):
    """The entries of ``tensor`` where ``mask`` is true, as ``tf.boolean_mask``: the mask's k dims
    (starting at ``axis``, default 0) are flattened into one of the selected entries."""
    if is_python_value(tensor):
        tensor = constant(tensor)
    if is_python_value(mask):
        mask = constant(np.asarray(mask, bool))
    if mask.dtype is not dtypes.bool_:
        raise InvalidArgumentError(f"tt.boolean_mask: the mask must be bool, got {mask.dtype.name}", "tf.Where")
    t_shape, m_shape = static_shape(tensor), static_shape(mask)
    if t_shape is None or m_shape is None:
        raise InvalidArgumentError("tt.boolean_mask: the tensor and mask need static shapes", "tf.Where")
    axis = 0 if axis is None else axis % len(t_shape) if t_shape else 0
    k = len(m_shape)
    if k == 0 or t_shape[axis:axis + k] != m_shape:
        raise InvalidArgumentError(f"tt.boolean_mask: mask shape {fmt_shape(m_shape)} must match the tensor's dims "
                                   f"{axis}..{axis + k - 1} (tensor {fmt_shape(t_shape)})", "tf.Where")
    flat = shapes.reshape(tensor, [*t_shape[:axis], math.prod(m_shape), *t_shape[axis + k:]])
    picked = shapes.reshape(where_indices(shapes.reshape(mask, [-1])), [-1])
    return gather(flat, picked, axis=axis)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["boolean_mask"]
