"""Unary arithmetic, elementwise: Neg, Abs, Sign, Sqrt, Rsqrt, Square, Reciprocal, Floor, Ceil,
Round, IsNan, IsFinite (exp, log, trigonometry, tanh, sigmoid and erf are in transcendental.py).

    %y = "tf.Rsqrt"(%x) : (tensor<16xf32>) -> tensor<16xf32>

Kernels that may produce inf or NaN (sqrt(-1), 1/0, overflow) run under ``np.errstate(all="ignore")``:
TensorFlow returns those values silently. Sqrt, Rsqrt and Reciprocal differentiate through their
gradient ops (``tf.SqrtGrad`` ...; tinytf/ops/unary_grads.py), which take the forward *output*.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import traits_def

import tinytf.dtypes as dtypes
from tinytf.framework.op import NotDifferentiable, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.math import multiply
from tinytf.ops.type_lists import COMPLEX, FLOAT, NUMBER, SIGNED, SIGNED_NUMBER, Unary, check_types


@register
class Neg(Unary):
    """-x.  %y = "tf.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Neg"
    UFUNC: ClassVar = np.negative
    CHEAP: ClassVar[bool] = True
    TYPES: ClassVar = SIGNED_NUMBER

    @staticmethod
    def compute(xp, x):
        return xp.negative(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = -x: dx = -dy
        return [negative(dy)]


def negative(x, name=None):
    return Neg.bind(x)


@register
class Conj(Unary):
    """The complex conjugate.  %y = "tf.Conj"(%x) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>"""

    name = "tf.Conj"
    TYPES: ClassVar = COMPLEX

    @staticmethod
    def compute(xp, x):
        return xp.conj(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = conj(x): dx = conj(dy)
        return [conj(dy)]


def conj(x, name=None):
    """conj(x); a real x is returned as it is, as TensorFlow's tf.math.conj does."""
    dtype = getattr(x, "dtype", None)
    return Conj.bind(x) if dtype is not None and getattr(dtype, "is_complex", False) else x


@register
class Abs(Unary):
    """|x| (integers wrap: |INT_MIN| = INT_MIN).  %y = "tf.Abs"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>"""

    name = "tf.Abs"
    UFUNC: ClassVar = np.absolute
    CHEAP: ClassVar[bool] = True
    TYPES: ClassVar = FLOAT | SIGNED  # complex |x| is tf.ComplexAbs

    @staticmethod
    def compute(xp, x):
        return xp.abs(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = |x|: dx = dy * sign(x)
        return [multiply(dy, sign(op.inputs[0]))]


def abs(x, name=None):  # TensorFlow's name
    return Abs.bind(x)


@register
class Sign(Unary):
    """-1, 0 or 1 (NaN stays NaN; complex x / |x|).  %y = "tf.Sign"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Sign"
    UFUNC: ClassVar = np.sign
    CHEAP: ClassVar[bool] = True
    TYPES: ClassVar = SIGNED_NUMBER

    @staticmethod
    def compute(xp, x):
        return xp.sign(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = sign(x): dx = 0 (TensorFlow returns zeros, not None)
        from tinytf.ops.array import zeros_like

        return [zeros_like(op.inputs[0])]


def sign(x, name=None):
    return Sign.bind(x)


@register
class Sqrt(Unary):
    """x^0.5.  %y = "tf.Sqrt"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Sqrt"
    UFUNC: ClassVar = np.sqrt

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.sqrt(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = sqrt(x): dx = dy * 0.5 / y
        from tinytf.ops.unary_grads import SqrtGrad

        return [SqrtGrad.bind(op.outputs[0], dy)]


def sqrt(x, name=None):
    return Sqrt.bind(x)


@register
class Rsqrt(Unary):
    """x^-0.5.  %y = "tf.Rsqrt"(%x) : (tensor<16xf32>) -> tensor<16xf32>"""

    name = "tf.Rsqrt"

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.reciprocal(xp.sqrt(x))

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = x^-0.5: dx = dy * -0.5 * y^3
        from tinytf.ops.unary_grads import RsqrtGrad

        return [RsqrtGrad.bind(op.outputs[0], dy)]


def rsqrt(x, name=None):
    return Rsqrt.bind(x)


@register
class Square(Unary):
    """x * x (integers wrap).  %y = "tf.Square"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Square"
    CHEAP: ClassVar[bool] = True
    TYPES: ClassVar = NUMBER

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.multiply(x, x)

    @staticmethod
    def compute_into(out, x):
        np.multiply(x, x, out=out)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = x^2: dx = dy * 2x
        return [multiply(dy, multiply(op.inputs[0], 2))]


def square(x, name=None):
    return Square.bind(x)


@register
class Reciprocal(Unary):
    """1 / x.  %y = "tf.Reciprocal"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Reciprocal"  # float and complex only: TensorFlow registers no integer kernel
    UFUNC: ClassVar = np.reciprocal

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.reciprocal(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = 1/x: dx = -dy * y^2
        from tinytf.ops.unary_grads import ReciprocalGrad

        return [ReciprocalGrad.bind(op.outputs[0], dy)]


def reciprocal(x, name=None):
    return Reciprocal.bind(x)


@register
class Floor(Unary):
    """Rounds toward -inf.  %y = "tf.Floor"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Floor"
    UFUNC: ClassVar = np.floor
    CHEAP: ClassVar[bool] = True
    TYPES: ClassVar = FLOAT
    traits = traits_def(NotDifferentiable())  # TensorFlow's gradient is None

    @staticmethod
    def compute(xp, x):
        return xp.floor(x)


def floor(x, name=None):
    return Floor.bind(x)


@register
class Ceil(Unary):
    """Rounds toward +inf.  %y = "tf.Ceil"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Ceil"
    UFUNC: ClassVar = np.ceil
    CHEAP: ClassVar[bool] = True
    TYPES: ClassVar = FLOAT
    traits = traits_def(NotDifferentiable())  # TensorFlow's gradient is None

    @staticmethod
    def compute(xp, x):
        return xp.ceil(x)


def ceil(x, name=None):
    return Ceil.bind(x)


@register
class Round(Unary):
    """Rounds half to even (2.5 -> 2); integers are returned unchanged.

    %y = "tf.Round"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    """

    name = "tf.Round"
    TYPES: ClassVar = FLOAT | {"int32", "int64"}
    traits = traits_def(NotDifferentiable())  # TensorFlow's gradient is None

    @staticmethod
    def compute(xp, x):
        # TF 2.21's raw int32/int64 kernel returns zeros, a bug; tf.round returns integers unchanged
        return x if x.dtype.kind in "iu" else xp.rint(x)


def round(x, name=None):  # TensorFlow's name
    return Round.bind(x)


class Predicate(Unary):
    """A float -> bool test; no gradient."""

    TYPES: ClassVar = FLOAT
    traits = traits_def(NotDifferentiable())

    @classmethod
    def infer(cls, x, **attrs):
        check_types(cls.name, x, cls.TYPES)
        return TensorSpec(x.shape, dtypes.bool_)


@register
class IsNan(Predicate):
    """x is NaN.  %y = "tf.IsNan"(%x) : (tensor<3xf32>) -> tensor<3xi1>"""

    name = "tf.IsNan"
    CHEAP: ClassVar[bool] = True

    @staticmethod
    def compute(xp, x):
        return xp.isnan(x)


def is_nan(x, name=None):
    return IsNan.bind(x)


@register
class IsFinite(Predicate):
    """x is neither inf nor NaN.  %y = "tf.IsFinite"(%x) : (tensor<3xf32>) -> tensor<3xi1>"""

    name = "tf.IsFinite"
    CHEAP: ClassVar[bool] = True

    @staticmethod
    def compute(xp, x):
        return xp.isfinite(x)


def is_finite(x, name=None):
    return IsFinite.bind(x)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["negative", "conj", "abs", "sign", "sqrt", "rsqrt", "square", "reciprocal", "floor", "ceil", "round",
           "is_nan", "is_finite"]
