"""Binary math with TensorFlow's special cases, elementwise with broadcasting: Xlogy, Xdivy, Xlog1py
(0 where x == 0), MulNoNan (0 where y == 0), TruncateDiv, TruncateMod (C's rounding toward zero),
NextAfter; and the unary IsInf and Rint.

    %z = "tf.Xlogy"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %z = "tf.TruncateDiv"(%x, %y) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>

Integer division by zero is TensorFlow's InvalidArgumentError eagerly (XLA gives -1, as TensorFlow's
XLA kernels do).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, traits_def

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import NotDifferentiable, register
from tinytf.ops.elementwise import Predicate
from tinytf.ops.op_functions import ops
from tinytf.ops.special_functions import NamedBinary
from tinytf.ops.tensor_inputs import as_tensor
from tinytf.ops.type_lists import FLOAT, FLOAT_COMPLEX, REAL, Binary, Unary

__all__ = ["xlogy", "xdivy", "xlog1py", "multiply_no_nan", "truncatediv", "truncatemod", "nextafter", "is_inf",
           "rint", "reciprocal_no_nan", "scalar_mul", "logical_xor"]


def _zero_where_x_is_zero(xp, x, value):
    return xp.where(x == 0, xp.zeros((), value.dtype), value)


def _nonzero_indicator(x):
    return ops.cast(ops.not_equal(x, ops.scalar_like(x, 0)), x.dtype)


@register
class Xlogy(Binary):
    """x * log(y), 0 where x == 0.  %z = "tf.Xlogy"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Xlogy"
    TYPES: ClassVar = FLOAT_COMPLEX

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        return _zero_where_x_is_zero(xp, x, x * xp.log(y))

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = xlogy(x, y): dx = U xlogy(x != 0, y), dy = U xdivy(x, y)
        x, y = op.inputs
        return [ops.multiply(dz, xlogy(_nonzero_indicator(x), y)), ops.multiply(dz, xdivy(x, y))]


@register
class Xdivy(Binary):
    """x / y, 0 where x == 0.  %z = "tf.Xdivy"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Xdivy"
    TYPES: ClassVar = FLOAT_COMPLEX

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        return _zero_where_x_is_zero(xp, x, x / y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = xdivy(x, y): dx = U xdivy(x != 0, y), dy = U xdivy(-x, y^2)
        x, y = op.inputs
        return [ops.multiply(dz, xdivy(_nonzero_indicator(x), y)),
                ops.multiply(dz, xdivy(ops.negative(x), ops.square(y)))]


@register
class Xlog1py(Binary):
    """x * log1p(y), 0 where x == 0.  %z = "tf.Xlog1py"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Xlog1py"
    TYPES: ClassVar = FLOAT_COMPLEX

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        return _zero_where_x_is_zero(xp, x, x * xp.log1p(y))

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = xlog1py(x, y): dx = U xlog1py(x != 0, y), dy = U xdivy(x, y + 1)
        x, y = op.inputs
        return [ops.multiply(dz, xlog1py(_nonzero_indicator(x), y)),
                ops.multiply(dz, xdivy(x, ops.add(y, ops.scalar_like(y, 1))))]


@register
class MulNoNan(Binary):
    """x * y, 0 where y == 0 (even if x is inf or NaN).  %z = "tf.MulNoNan"(%x, %y) : (...) -> tensor<3xf32>"""

    name = "tf.MulNoNan"
    TYPES: ClassVar = FLOAT_COMPLEX

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        return xp.where(y == 0, xp.zeros((), x.dtype), x * y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = mul_no_nan(x, y): dx = mul_no_nan(U, y), dy = mul_no_nan(x, U)
        x, y = op.inputs
        return [multiply_no_nan(dz, y), multiply_no_nan(x, dz)]


def _check_int_divisor(op_name, xp, y):
    if xp is np and y.dtype.kind in "iu" and (y == 0).any():
        raise InvalidArgumentError(f"{op_name}: Integer division by zero", op_name)


@register
class TruncateDiv(Binary):
    """x / y rounded toward zero (C's integer division).  %z = "tf.TruncateDiv"(%x, %y) : (...) -> tensor<3xi32>"""

    name = "tf.TruncateDiv"
    TYPES: ClassVar = REAL
    traits = traits_def(NotDifferentiable())  # TensorFlow's gradient is None

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        if x.dtype.kind in "iu":
            _check_int_divisor("tf.TruncateDiv", xp, y)
            if x.dtype.kind == "u":
                return xp.floor_divide(x, y)
            q = xp.floor_divide(x, y)  # floor, then toward zero where the signs differ and it was inexact
            return xp.where((q < 0) & (q * y != x), q + 1, q).astype(x.dtype)
        return xp.trunc(x / y)


@register
class TruncateMod(Binary):
    """The remainder of TruncateDiv: the sign of x (C's fmod).  %z = "tf.TruncateMod"(%x, %y) : (...) -> ..."""

    name = "tf.TruncateMod"
    TYPES: ClassVar = REAL
    traits = traits_def(NotDifferentiable())  # TensorFlow registers no gradient

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        if x.dtype.kind in "iu":
            _check_int_divisor("tf.TruncateMod", xp, y)
        return xp.fmod(x, y)


@register
class NextAfter(NamedBinary):
    """The next representable value after x1 toward x2.  %z = "tf.NextAfter"(%x1, %x2) : (...) -> tensor<3xf32>"""

    name = "tf.NextAfter"
    x1 = operand_def()
    x2 = operand_def()
    TYPES: ClassVar = frozenset({"float32", "float64"})

    @staticmethod
    def compute(xp, x1, x2):
        return xp.nextafter(x1, x2)

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = nextafter(x1, x2): dx1 = U, dx2 = 0
        return [dz, ops.multiply(dz, ops.scalar_like(dz, 0))]


@register
class IsInf(Predicate):
    """x is +inf or -inf.  %y = "tf.IsInf"(%x) : (tensor<3xf32>) -> tensor<3xi1>"""

    name = "tf.IsInf"

    @staticmethod
    def compute(xp, x):
        return xp.isinf(x)


@register
class Rint(Unary):
    """Rounds to the nearest integer, half to even.  %y = "tf.Rint"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Rint"
    TYPES: ClassVar = FLOAT
    traits = traits_def(NotDifferentiable())  # TensorFlow's gradient is None

    @staticmethod
    def compute(xp, x):
        return xp.rint(x)


def xlogy(x, y, name=None):
    return Xlogy.bind(x, y)


def xdivy(x, y, name=None):
    return Xdivy.bind(x, y)


def xlog1py(x, y, name=None):
    return Xlog1py.bind(x, y)


def multiply_no_nan(x, y, name=None):
    return MulNoNan.bind(x, y)


def truncatediv(x, y, name=None):
    return TruncateDiv.bind(x, y)


def truncatemod(x, y, name=None):
    return TruncateMod.bind(x, y)


def nextafter(x1, x2, name=None):
    return NextAfter.bind(x1, x2)


def is_inf(x, name=None):
    return IsInf.bind(x)


def rint(x, name=None):
    return Rint.bind(x)


def reciprocal_no_nan(x, name=None):
    """1 / x, 0 where x == 0 (div_no_nan(1, x), as TensorFlow)."""
    x = as_tensor(x)
    return ops.div_no_nan(ops.scalar_like(x, 1), x)


def scalar_mul(scalar, x, name=None):
    """scalar * x, for a scalar (a Python number or a 0-D tensor)."""
    shape = getattr(as_tensor(scalar, like=as_tensor(x)), "shape", ())
    if shape is not None and len(tuple(shape)) != 0:
        raise InvalidArgumentError(f"scalar_mul: the scalar must be 0-D, got shape {list(shape)}")
    x = as_tensor(x)
    return ops.multiply(as_tensor(scalar, like=x), x)


def logical_xor(x, y, name=None):
    """x != y for booleans: (x or y) and not (x and y), as TensorFlow composes it."""
    return ops.logical_and(ops.logical_or(x, y), ops.logical_not(ops.logical_and(x, y)))


# TensorFlow's names: tf.math.* for all; tf.truncatediv / tf.truncatemod also at the top.
__namespaces__ = {n: ("math",) for n in __all__} | {"truncatediv": ("math", "top"), "truncatemod": ("math", "top")}

