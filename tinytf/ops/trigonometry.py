"""Trigonometry beyond sin and cos, elementwise: Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh,
Atanh, Expm1, and the two-operand Atan2.

    %y = "tf.Atan2"(%y, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>

Out-of-domain inputs (asin(2), acosh(0.5)) give NaN silently, as TensorFlow's kernels do. The
gradients are TensorFlow's (math_grad.py), written with the public op functions.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def

from tinytf.framework.op import register
from tinytf.ops.op_functions import ops
from tinytf.ops.type_lists import FLOAT, Binary, Unary

__all__ = ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "atan2"]


def _one_minus_square(x):
    return ops.subtract(ops.scalar_like(x, 1), ops.square(x))


class _Trig(Unary):
    """An elementwise function whose numpy and jax.numpy spelling is ``FN``."""

    FN: ClassVar[str] = ""

    @classmethod
    @np.errstate(all="ignore")
    def compute(cls, xp, x):
        return getattr(xp, cls.FN)(x)


@register
class Tan(_Trig):
    """tan x.  %y = "tf.Tan"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Tan"
    FN: ClassVar[str] = "tan"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = tan(x): dx = U / cos(x)^2
        return [ops.multiply(dy, ops.square(ops.reciprocal(ops.cos(op.inputs[0]))))]


@register
class Asin(_Trig):
    """arcsin x (NaN outside [-1, 1]).  %y = "tf.Asin"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Asin"
    FN: ClassVar[str] = "arcsin"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = asin(x): dx = U / sqrt(1 - x^2)
        return [ops.multiply(dy, ops.rsqrt(_one_minus_square(op.inputs[0])))]


@register
class Acos(_Trig):
    """arccos x (NaN outside [-1, 1]).  %y = "tf.Acos"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Acos"
    FN: ClassVar[str] = "arccos"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = acos(x): dx = -U / sqrt(1 - x^2)
        return [ops.negative(ops.multiply(dy, ops.rsqrt(_one_minus_square(op.inputs[0]))))]


@register
class Atan(_Trig):
    """arctan x.  %y = "tf.Atan"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Atan"
    FN: ClassVar[str] = "arctan"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = atan(x): dx = U / (1 + x^2)
        x = op.inputs[0]
        return [ops.multiply(dy, ops.reciprocal(ops.add(ops.scalar_like(x, 1), ops.square(x))))]


@register
class Sinh(_Trig):
    """sinh x.  %y = "tf.Sinh"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Sinh"
    FN: ClassVar[str] = "sinh"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = sinh(x): dx = U * cosh(x)
        return [ops.multiply(dy, cosh(op.inputs[0]))]


@register
class Cosh(_Trig):
    """cosh x.  %y = "tf.Cosh"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Cosh"
    FN: ClassVar[str] = "cosh"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = cosh(x): dx = U * sinh(x)
        return [ops.multiply(dy, sinh(op.inputs[0]))]


@register
class Asinh(_Trig):
    """arsinh x.  %y = "tf.Asinh"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Asinh"
    FN: ClassVar[str] = "arcsinh"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = asinh(x): dx = U / cosh(y)
        return [ops.multiply(dy, ops.reciprocal(cosh(op.outputs[0])))]


@register
class Acosh(_Trig):
    """arcosh x (NaN below 1).  %y = "tf.Acosh"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Acosh"
    FN: ClassVar[str] = "arccosh"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = acosh(x): dx = U / sinh(y)
        return [ops.multiply(dy, ops.reciprocal(sinh(op.outputs[0])))]


@register
class Atanh(_Trig):
    """artanh x (NaN outside [-1, 1]).  %y = "tf.Atanh"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Atanh"
    FN: ClassVar[str] = "arctanh"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = atanh(x): dx = U / (1 - x^2)
        return [ops.multiply(dy, ops.reciprocal(_one_minus_square(op.inputs[0])))]


@register
class Expm1(_Trig):
    """e^x - 1, accurate near 0.  %y = "tf.Expm1"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Expm1"
    FN: ClassVar[str] = "expm1"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = exp(x) - 1: dx = U * exp(x)
        return [ops.multiply(dy, ops.exp(op.inputs[0]))]


@register
class Atan2(Binary):
    """The angle of the point (x, y): arctan(y / x) in the right quadrant.

    %z = "tf.Atan2"(%y, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    """

    name = "tf.Atan2"
    y = operand_def()  # TensorFlow's operand order and names: Atan2(y, x)
    x = operand_def()
    TYPES: ClassVar = FLOAT

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, y, x):
        return xp.arctan2(y, x)

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = atan2(y, x): dy = U x / (x^2 + y^2), dx = -U y / (x^2 + y^2)
        y, x = op.inputs
        scale = ops.multiply(dz, ops.reciprocal(ops.add(ops.square(x), ops.square(y))))
        return [ops.multiply(x, scale), ops.multiply(ops.negative(y), scale)]


def tan(x, name=None):
    return Tan.bind(x)


def asin(x, name=None):
    return Asin.bind(x)


def acos(x, name=None):
    return Acos.bind(x)


def atan(x, name=None):
    return Atan.bind(x)


def sinh(x, name=None):
    return Sinh.bind(x)


def cosh(x, name=None):
    return Cosh.bind(x)


def asinh(x, name=None):
    return Asinh.bind(x)


def acosh(x, name=None):
    return Acosh.bind(x)


def atanh(x, name=None):
    return Atanh.bind(x)


def expm1(x, name=None):
    return Expm1.bind(x)


def atan2(y, x, name=None):
    """``tt.math.atan2(y, x)``: the angle of (x, y), in [-pi, pi]."""
    return Atan2.bind(y, x)
