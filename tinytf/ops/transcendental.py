"""Transcendental functions, elementwise: Exp, Log, Log1p, Sin, Cos, Tanh, Sigmoid, Erf, Erfc.

    %y = "tf.Erfc"(%x) : (tensor<2x5x32xf32>) -> tensor<2x5x32xf32>

They run under ``np.errstate(all="ignore")``: TensorFlow returns inf and NaN (log(0), exp overflow)
silently. Tanh and Sigmoid differentiate through ``tf.TanhGrad`` / ``tf.SigmoidGrad``
(tinytf/ops/unary_grads.py), which take the forward *output*, as TensorFlow's do. Erf and Erfc use
scipy.special eagerly and jax.scipy.special under XLA, imported on first use.
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from tinytf.framework.op import register
from tinytf.ops.elementwise import negative, reciprocal, square
from tinytf.ops.math import multiply
from tinytf.ops.type_lists import FLOAT, Unary


@register
class Exp(Unary):
    """e^x.  %y = "tf.Exp"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Exp"
    UFUNC: ClassVar = np.exp

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.exp(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = exp(x): dx = dy * y
        return [multiply(dy, op.outputs[0])]


def exp(x, name=None):
    return Exp.bind(x)


@register
class Log(Unary):
    """ln x (-inf at 0, NaN below).  %y = "tf.Log"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Log"
    UFUNC: ClassVar = np.log

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.log(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = log(x): dx = dy / x
        return [multiply(dy, reciprocal(op.inputs[0]))]


def log(x, name=None):
    return Log.bind(x)


@register
class Log1p(Unary):
    """ln(1 + x), accurate near 0.  %y = "tf.Log1p"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Log1p"
    UFUNC: ClassVar = np.log1p

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.log1p(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = log(1 + x): dx = dy / (1 + x)
        from tinytf.ops.math import add

        return [multiply(dy, reciprocal(add(op.inputs[0], 1)))]


def log1p(x, name=None):
    return Log1p.bind(x)


@register
class Sin(Unary):
    """sin x.  %y = "tf.Sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Sin"
    UFUNC: ClassVar = np.sin

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.sin(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = sin(x): dx = dy * cos(x)
        return [multiply(dy, cos(op.inputs[0]))]


def sin(x, name=None):
    return Sin.bind(x)


@register
class Cos(Unary):
    """cos x.  %y = "tf.Cos"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Cos"
    UFUNC: ClassVar = np.cos

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.cos(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = cos(x): dx = -dy * sin(x)
        return [multiply(negative(dy), sin(op.inputs[0]))]


def cos(x, name=None):
    return Cos.bind(x)


@register
class Tanh(Unary):
    """tanh x.  %y = "tf.Tanh"(%x) : (tensor<4x10xf32>) -> tensor<4x10xf32>"""

    name = "tf.Tanh"
    UFUNC: ClassVar = np.tanh

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        return xp.tanh(x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = tanh(x): dx = dy * (1 - y^2)
        from tinytf.ops.unary_grads import TanhGrad

        return [TanhGrad.bind(op.outputs[0], dy)]


def tanh(x, name=None):
    return Tanh.bind(x)


@register
class Sigmoid(Unary):
    """1 / (1 + e^-x).  %y = "tf.Sigmoid"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Sigmoid"

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x):
        one = xp.ones((), x.dtype)
        return one / (one + xp.exp(-x))  # exp overflows to inf for x << 0, giving exactly 0 as TF

    @staticmethod
    def compute_into(out, x):  # compute's four steps, each written into out, as compute under errstate
        if _fp_errors is None:
            with np.errstate(all="ignore"):
                _sigmoid_into(out, x)
            return
        token = _fp_errors.set(_IGNORE_ALL)
        try:
            _sigmoid_into(out, x)
        finally:
            _fp_errors.reset(token)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = sigmoid(x): dx = dy * y * (1 - y)
        from tinytf.ops.unary_grads import SigmoidGrad

        return [SigmoidGrad.bind(op.outputs[0], dy)]


def sigmoid(x, name=None):
    return Sigmoid.bind(x)


def _sigmoid_into(out, x):
    one = out.dtype.type(1)
    np.negative(x, out=out)
    np.exp(out, out=out)
    np.add(one, out, out=out)
    np.divide(one, out, out=out)


try:  # numpy 2 keeps np.errstate's setting in a context variable: set directly, it costs a third of errstate
    from numpy._core._ufunc_config import _extobj_contextvar as _fp_errors

    with np.errstate(all="ignore"):
        _IGNORE_ALL = _fp_errors.get()
except (ImportError, AttributeError):  # (numpy 1.x)
    _fp_errors = _IGNORE_ALL = None


def _special(xp, fn_name, x):
    """scipy.special.<fn> on numpy, jax.scipy.special.<fn> under JAX (imported late: tinytf stays light)."""
    if xp is np:
        import scipy.special

        wide = x.astype(np.float32) if x.dtype.itemsize < 4 else x  # scipy has no half/bfloat16 loops
        return getattr(scipy.special, fn_name)(wide).astype(x.dtype)
    import jax.scipy.special

    return getattr(jax.scipy.special, fn_name)(x)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@register
class Erf(Unary):
    """The error function.  %y = "tf.Erf"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>

    erf(+-inf) is +-1 in every dtype (TensorFlow 2.21's float64 kernel returns NaN there).
    """

    name = "tf.Erf"
    TYPES: ClassVar = FLOAT

    @staticmethod
    def compute(xp, x):
        return _special(xp, "erf", x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = erf(x): dx = dy * 2/sqrt(pi) * exp(-x^2)
        x = op.inputs[0]
        return [multiply(dy, multiply(exp(negative(square(x))), _TWO_OVER_SQRT_PI))]


def erf(x, name=None):
    return Erf.bind(x)


@register
class Erfc(Unary):
    """1 - erf(x), accurate for large x (Keras gelu).  %y = "tf.Erfc"(%x) : (tensor<2x5x32xf32>) -> tensor<2x5x32xf32>"""

    name = "tf.Erfc"
    TYPES: ClassVar = FLOAT

    @staticmethod
    def compute(xp, x):
        return _special(xp, "erfc", x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = erfc(x): dx = -dy * 2/sqrt(pi) * exp(-x^2)
        x = op.inputs[0]
        return [multiply(dy, multiply(exp(negative(square(x))), -_TWO_OVER_SQRT_PI))]


def erfc(x, name=None):
    return Erfc.bind(x)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["exp", "log", "log1p", "sin", "cos", "tanh", "sigmoid", "erf", "erfc"]
