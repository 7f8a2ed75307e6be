"""Reversing along dims: ReverseV2 (Keras exports it for ``go_backwards`` RNNs and Bidirectional).

    %r = "tf.ReverseV2"(%x, %axis) : (tensor<5x2x3xf32>, tensor<1xi32>) -> tensor<5x2x3xf32>
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.operands import check_index, const_value, index_operand, is_python_value

__namespaces__ = {"reverse": ("top",)}


def reversed_axes(op_name: str, axis, rank: int) -> tuple[int, ...]:
    """``axis`` as distinct dims in [0, rank) (negative ones count from the end), as TensorFlow checks them."""
    out = []
    for k, a in enumerate(int(v) for v in np.asarray(axis).reshape(-1)):
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"{op_name}: 'axis'[{k}] = {a} is out of valid range [0, {rank - 1}", op_name)
        a %= rank
        if a in out:
            raise InvalidArgumentError(f"{op_name}: axis {a} specified more than once.", op_name)
        out.append(a)
    return tuple(out)


@register
class ReverseV2(Op):
    """``tensor`` with the order of elements along each dim in ``axis`` reversed.

    %r = "tf.ReverseV2"(%x, %axis) : (tensor<5x2x3xf32>, tensor<1xi32>) -> tensor<5x2x3xf32>
    """

    name = "tf.ReverseV2"
    tensor = operand_def()
    axis = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, tensor, axis):
        check_index(cls.name, axis, "axis", rank=1)
        if tensor.shape is not None and len(tensor.shape) > 8:
            raise InvalidArgumentError(f"{cls.name}: reverse is not implemented for tensors of rank > 8.", cls.name)
        value = const_value(axis)
        if value is not None and tensor.shape is not None:
            reversed_axes(cls.name, value, len(tensor.shape))
        return TensorSpec(tensor.shape, tensor.dtype)

    @classmethod
    def compute(cls, xp, tensor, axis):
        axes = reversed_axes(cls.name, axis, tensor.ndim)  # (run-time axes under XLA: its NeedsConstant)
        return xp.flip(tensor, axes) if axes else tensor

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = reverse(x, axes): dx = reverse(U, axes)
        return [ReverseV2.bind(dy, op.inputs[1]), None]


def reverse(tensor, axis, name=None):
    """``tt.reverse(x, axis)``: tf.reverse."""
    if is_python_value(tensor):
        from tinytf.ops.array import constant

        tensor = constant(tensor)
    return ReverseV2.bind(tensor, index_operand(axis))


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["reverse"]
