"""Division: Div, RealDiv, DivNoNan, FloorDiv, FloorMod, and ``tt.divide`` / ``tt.truediv``.

    %z = "tf.RealDiv"(%x, %y) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>

Integer division and modulo follow TensorFlow's kernels, not Python's: Div truncates toward zero,
FloorDiv and FloorMod round toward -inf, and an integer divisor of zero is an InvalidArgumentError
(eagerly; under XLA the result is undefined, as in TensorFlow). ``tt.divide`` of integers casts to
floating point first, as ``tf.math.truediv``.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import traits_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import NotDifferentiable, register
from tinytf.ops import verifiers as v
from tinytf.ops.math import multiply
from tinytf.ops.type_lists import FLOAT_COMPLEX, REAL, Binary, is_numpy


def _no_zero_divisor(op_name, xp, y):
    if is_numpy(xp) and y.dtype.kind in "iu" and not np.all(y):
        raise InvalidArgumentError(f"{op_name}: Integer division by zero", op_name)


@register
class Div(Binary):
    """x / y; integers truncate toward zero (C++ division).  "tf.Div"(%x, %y) : (...) -> ..."""

    name = "tf.Div"
    verify_ir = v.same_element_types

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        if x.dtype.kind not in "iu":
            return xp.divide(x, y)
        _no_zero_divisor("tf.Div", xp, y)
        if x.dtype.kind == "u":
            return xp.floor_divide(x, y)
        q = xp.floor_divide(x, y)
        inexact = (x - q * y != 0) & ((x < 0) != (y < 0))
        return xp.where(inexact, q + 1, q).astype(x.dtype)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x / y: dx = dz / y, dy = dz * (-x / y / y)
        return _quotient_grad(op, dz, realdiv)


@register
class RealDiv(Binary):
    """x / y for floats and complex.  %z = "tf.RealDiv"(%x, %y) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>"""

    name = "tf.RealDiv"
    UFUNC: ClassVar = np.divide
    TYPES: ClassVar = FLOAT_COMPLEX  # TensorFlow registers no integer kernel

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        return xp.divide(x, y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x / y: dx = dz / y, dy = dz * (-x / y / y)
        return _quotient_grad(op, dz, realdiv)


def _quotient_grad(op, dz, div):
    from tinytf.ops.elementwise import negative

    x, y = op.inputs
    if not x.dtype.is_differentiable:
        return [None, None]
    return [div(dz, y), multiply(dz, div(div(negative(x), y), y))]


def realdiv(x, y, name=None):
    return RealDiv.bind(x, y)


def truediv(x, y, name=None):
    """x / y in floating point: int8/16 and uint8/16 become float32, int32/64 float64 (as TF)."""
    from tinytf.ops.array import cast, constant

    x_dtype = _dtype_of(x)
    if x_dtype is not None and x_dtype.is_integer:
        target = dtypes.float32 if x_dtype.size <= 2 else dtypes.float64
        x = cast(x, target)
        y = cast(y, target) if hasattr(y, "dtype") and not isinstance(y, np.ndarray) else constant(y, target)
    return RealDiv.bind(x, y)


def _dtype_of(v):
    dtype = getattr(v, "dtype", None)
    if dtype is None:
        return None
    return dtypes.as_dtype(dtype)


divide = truediv


@register
class DivNoNan(Binary):
    """x / y, or 0 where y == 0.  %z = "tf.DivNoNan"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.DivNoNan"
    TYPES: ClassVar = FLOAT_COMPLEX

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        zero = y == 0
        return xp.where(zero, xp.zeros((), x.dtype), xp.divide(x, xp.where(zero, xp.ones((), y.dtype), y)))

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x / y (0 where y = 0): dx = dz / y, dy = dz * (-x / y / y)
        return _quotient_grad(op, dz, div_no_nan)


def div_no_nan(x, y, name=None):
    """``tt.math.divide_no_nan`` (TF2's name; ``div_no_nan`` is TF1's): x / y, 0 where y == 0."""
    return DivNoNan.bind(x, y)


divide_no_nan = div_no_nan


@register
class FloorDiv(Binary):
    """floor(x / y).  %z = "tf.FloorDiv"(%x, %y) : (tensor<3x4xi32>, tensor<4xi32>) -> tensor<3x4xi32>"""

    name = "tf.FloorDiv"
    TYPES: ClassVar = REAL
    traits = traits_def(NotDifferentiable())  # TensorFlow's FloorDiv gradient is None

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        if x.dtype.kind in "iu":
            _no_zero_divisor("tf.FloorDiv", xp, y)
            return xp.floor_divide(x, y)
        return xp.floor(xp.divide(x, y))  # not numpy's divmod-based floor_divide: 1 // 0.1 is 10


def floordiv(x, y, name=None):
    return FloorDiv.bind(x, y)


@register
class FloorMod(Binary):
    """x - floor(x / y) * y: the result has the sign of y.  "tf.FloorMod"(%x, %y) : (...) -> ..."""

    name = "tf.FloorMod"
    TYPES: ClassVar = REAL

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        if x.dtype.kind in "iu":
            _no_zero_divisor("tf.FloorMod", xp, y)
            return xp.remainder(x, y)
        r = xp.fmod(x, y)  # TensorFlow adjusts fmod, which keeps -0.0 and inf divisors exact
        return xp.where((r != 0) & ((y < 0) != (r < 0)), r + y, r)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x mod y: dx = dz, dy = -dz * floor(x / y)
        from tinytf.ops.elementwise import negative

        x, y = op.inputs
        return [dz, multiply(dz, negative(floordiv(x, y)))]


def floormod(x, y, name=None):
    return FloorMod.bind(x, y)


mod = floormod


# The public op functions (tt.math / tt.<name>); the other module-level names are helpers.
__all__ = ["realdiv", "truediv", "divide", "div_no_nan", "divide_no_nan", "floordiv", "floormod", "mod"]
# TensorFlow 2 exports divide_no_nan as tf.math.divide_no_nan only (tf.div_no_nan is TF1's top-level name).
__namespaces__ = {"divide_no_nan": ("math",)}
