"""Growing a tensor at its edges or by repetition: Tile, Pad, PadV2.

    %y = "tf.Pad"(%x, %p) : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<4x7xf32>
    %t = "tf.Tile"(%x, %m) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import array, sequences
from tinytf.ops import shape as shapes
from tinytf.ops.array import constant
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.joining import stack
from tinytf.ops.operands import (
    check_index,
    const_ints,
    const_value,
    folding,
    guard_allocation,
    index_operand,
    is_python_value,
    static_shape,
    static_value,
)
from tinytf.ops.slicing import Slice
from tinytf.ops.transpose import transpose


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
        m = const_ints(multiples)
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
        m, x_shape = static_value(multiples), static_shape(x)
        if m is not None and x_shape is not None:
            split_shape = [d for pair in zip(m.tolist(), x_shape) for d in pair]
            return [reduce_sum(shapes.reshape(dy, split_shape), list(range(0, len(split_shape), 2))), None]
        split_shape = shapes.reshape(transpose(stack([multiples, shapes.shape(x, out_type=multiples.dtype)])),
                                     [-1])
        axes = sequences.range(0, shapes.size(split_shape), 2)
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
        pads, x_shape = static_value(paddings), static_shape(x)
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
