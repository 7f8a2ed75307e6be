"""Bitwise ops on integers (``tt.bitwise``): BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift,
RightShift, PopulationCount. None is differentiable, as in TensorFlow.

    %z = "tf.LeftShift"(%x, %y) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>

Shift amounts are clamped to [0, bits - 1] as TensorFlow's kernels clamp them; RightShift is
arithmetic for signed integers; a left shift wraps in the dtype.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import traits_def

import tinytf.dtypes as dtypes
from tinytf.framework.op import NotDifferentiable, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.type_lists import INT, Binary, Unary, check_types

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


class _Bitwise(Binary):
    TYPES: ClassVar = INT
    traits = traits_def(NotDifferentiable())


def _clamped_shift(xp, x, y):
    bits = x.dtype.itemsize * 8
    return xp.clip(y, 0, bits - 1).astype(x.dtype)


@register
class BitwiseAnd(_Bitwise):
    """x & y.  %z = "tf.BitwiseAnd"(%x, %y) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>"""

    name = "tf.BitwiseAnd"

    @staticmethod
    def compute(xp, x, y):
        return xp.bitwise_and(x, y)


@register
class BitwiseOr(_Bitwise):
    """x | y.  %z = "tf.BitwiseOr"(%x, %y) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>"""

    name = "tf.BitwiseOr"

    @staticmethod
    def compute(xp, x, y):
        return xp.bitwise_or(x, y)


@register
class BitwiseXor(_Bitwise):
    """x ^ y.  %z = "tf.BitwiseXor"(%x, %y) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>"""

    name = "tf.BitwiseXor"

    @staticmethod
    def compute(xp, x, y):
        return xp.bitwise_xor(x, y)


@register
class LeftShift(_Bitwise):
    """x << y (wrapping).  %z = "tf.LeftShift"(%x, %y) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>"""

    name = "tf.LeftShift"

    @staticmethod
    def compute(xp, x, y):
        return xp.left_shift(x, _clamped_shift(xp, x, y))


@register
class RightShift(_Bitwise):
    """x >> y (arithmetic for signed x).  %z = "tf.RightShift"(%x, %y) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>"""

    name = "tf.RightShift"

    @staticmethod
    def compute(xp, x, y):
        return xp.right_shift(x, _clamped_shift(xp, x, y))


@register
class Invert(Unary):
    """~x, every bit flipped.  %y = "tf.Invert"(%x) : (tensor<3xi32>) -> tensor<3xi32>"""

    name = "tf.Invert"
    TYPES: ClassVar = INT
    traits = traits_def(NotDifferentiable())

    @staticmethod
    def compute(xp, x):
        return xp.invert(x)


@register
class PopulationCount(Unary):
    """The number of bits set in each element, as uint8.  %y = "tf.PopulationCount"(%x) : (tensor<3xi32>) -> tensor<3xui8>"""

    name = "tf.PopulationCount"
    TYPES: ClassVar = INT
    traits = traits_def(NotDifferentiable())

    @classmethod
    def infer(cls, x, **attrs):
        check_types(cls.name, x, cls.TYPES)
        return TensorSpec(x.shape, dtypes.uint8)

    @staticmethod
    def compute(xp, x):
        if xp is np:
            # the bits of the two's complement, as TensorFlow and XLA count them (numpy's count those of |x|)
            return np.bitwise_count(x.astype(np.dtype(f"u{x.dtype.itemsize}"))).astype(np.uint8)
        import jax

        return jax.lax.population_count(x).astype(np.uint8)


def bitwise_and(x, y, name=None):
    return BitwiseAnd.bind(x, y)


def bitwise_or(x, y, name=None):
    return BitwiseOr.bind(x, y)


def bitwise_xor(x, y, name=None):
    return BitwiseXor.bind(x, y)


def invert(x, name=None):
    return Invert.bind(x)


def left_shift(x, y, name=None):
    return LeftShift.bind(x, y)


def right_shift(x, y, name=None):
    return RightShift.bind(x, y)


__namespaces__ = {n: ("bitwise",) for n in __all__}
