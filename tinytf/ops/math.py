"""Binary arithmetic with broadcasting: Add, AddV2, Sub, Mul, Pow, Maximum, Minimum,
SquaredDifference, ClipByValue, and MatMul (``tt.matmul`` binds BatchMatMulV2 above rank 2).

    %z = "tf.AddV2"(%x, %y) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>

Division lives in tinytf/ops/division.py, unary math in elementwise.py and transcendental.py.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Commutative, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import check_dtype, fmt_shape, same_dtype
from tinytf.ops.op_functions import ops
from tinytf.ops.type_lists import (
    COMPLEX,
    FLOAT,
    NUMBER,
    REAL,
    SIGNED_NUMBER,
    Binary,
    check_types,
    is_numpy,
)


def scalar_like(t, value=0):
    """A scalar constant of ``t``'s dtype; SelectV2 broadcasts it (gradient masks)."""
    from tinytf.ops.array import Const

    return Const.bind(value=np.asarray(value, t.dtype.np))


@register
class AddV2(Binary):
    """x + y.  %z = "tf.AddV2"(%x, %y) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>"""

    name = "tf.AddV2"
    EXACT_UFUNC: ClassVar = np.add
    verify_ir = v.same_element_types
    UFUNC: ClassVar = np.add
    traits = traits_def(Commutative())

    @staticmethod
    def compute(xp, x, y):
        return xp.add(x, y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x + y: dx = dz, dy = dz
        return [dz, dz]


def add(x, y, name=None):
    return AddV2.bind(x, y)


@register
class Add(Binary):
    """x + y, the legacy op that also concatenates strings.  "tf.Add"(%x, %y) : (...) -> ..."""

    name = "tf.Add"
    verify_ir = v.same_element_types
    TYPES: ClassVar = NUMBER | {"string"}
    traits = traits_def(Commutative())

    @staticmethod
    def compute(xp, x, y):
        return xp.add(x, y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x + y: dx = dz, dy = dz
        return [dz, dz]


@register
class Sub(Binary):
    """x - y.  %z = "tf.Sub"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Sub"
    EXACT_UFUNC: ClassVar = np.subtract
    verify_ir = v.same_element_types
    UFUNC: ClassVar = np.subtract

    @staticmethod
    def compute(xp, x, y):
        return xp.subtract(x, y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x - y: dx = dz, dy = -dz
        from tinytf.ops.elementwise import negative

        skip = getattr(op, "skip_input_indices", None) or ()
        return [dz, None if 1 in skip else negative(dz)]


def subtract(x, y, name=None):
    return Sub.bind(x, y)


@register
class Mul(Binary):
    """x * y.  %z = "tf.Mul"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Mul"
    EXACT_UFUNC: ClassVar = np.multiply
    verify_ir = v.same_element_types
    UFUNC: ClassVar = np.multiply
    traits = traits_def(Commutative())

    @staticmethod
    def compute(xp, x, y):
        return xp.multiply(x, y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x * y: dx = dz * conj(y), dy = dz * conj(x) (TF's, complex too)
        x, y = op.inputs
        skip = getattr(op, "skip_input_indices", None) or ()
        return [None if 0 in skip else multiply(dz, ops.conj(y)), None if 1 in skip else multiply(dz, ops.conj(x))]


def multiply(x, y, name=None):
    return Mul.bind(x, y)


@register
class Pow(Binary):
    """x ** y.  %z = "tf.Pow"(%x, %y) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>"""

    name = "tf.Pow"
    verify_ir = v.same_element_types
    TYPES: ClassVar = SIGNED_NUMBER

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, x, y):
        if is_numpy(xp) and x.dtype.kind == "i" and np.any(y < 0):
            raise InvalidArgumentError("tf.Pow: Integers to negative integer powers are not allowed", "tf.Pow")
        return xp.power(x, y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x^y: dx = dz * y * x^(y-1), dy = dz * z * log(x) (0 for x <= 0)
        from tinytf.ops.comparison import greater, where
        from tinytf.ops.transcendental import log

        x, y = op.inputs
        z = op.outputs[0]
        if not x.dtype.is_differentiable:
            return [None, None]
        dx = multiply(dz, multiply(y, pow(x, subtract(y, 1))))
        positive = greater(x, scalar_like(x))
        log_x = where(positive, log(where(positive, x, scalar_like(x, 1))), scalar_like(x))
        return [dx, multiply(dz, multiply(z, log_x))]


def pow(x, y, name=None):
    return Pow.bind(x, y)


class _Extremum(Binary):
    TYPES: ClassVar = REAL

    @classmethod
    def _grad(cls, op, dz, x_wins):
        from tinytf.ops.comparison import where

        zero = scalar_like(dz)
        return [where(x_wins, dz, zero), where(x_wins, zero, dz)]


@register
class Maximum(_Extremum):
    """max(x, y), NaN if either is NaN.  %z = "tf.Maximum"(%x, %y) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>"""

    name = "tf.Maximum"
    verify_ir = v.same_element_types
    UFUNC: ClassVar = np.maximum
    traits = traits_def(Commutative())

    @staticmethod
    def compute(xp, x, y):
        return xp.maximum(x, y)

    @classmethod
    def grad(cls, op, dz):  # Given upstream grad dz and z = max(x, y): dx = dz where x >= y, dy = dz elsewhere
        from tinytf.ops.comparison import greater_equal

        return cls._grad(op, dz, greater_equal(*op.inputs))


def maximum(x, y, name=None):
    return Maximum.bind(x, y)


@register
class Minimum(_Extremum):
    """min(x, y), NaN if either is NaN.  %z = "tf.Minimum"(%x, %y) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>"""

    name = "tf.Minimum"
    verify_ir = v.same_element_types
    UFUNC: ClassVar = np.minimum
    traits = traits_def(Commutative())

    @staticmethod
    def compute(xp, x, y):
        return xp.minimum(x, y)

    @classmethod
    def grad(cls, op, dz):  # Given upstream grad dz and z = min(x, y): dx = dz where x <= y, dy = dz elsewhere
        from tinytf.ops.comparison import less_equal

        return cls._grad(op, dz, less_equal(*op.inputs))


def minimum(x, y, name=None):
    return Minimum.bind(x, y)


@register
class SquaredDifference(Binary):
    """(x - y) * conj(x - y).  %z = "tf.SquaredDifference"(%x, %y) : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>"""

    name = "tf.SquaredDifference"
    TYPES: ClassVar = FLOAT | COMPLEX | {"int32", "int64"}
    traits = traits_def(Commutative())

    @staticmethod
    def compute(xp, x, y):
        d = xp.subtract(x, y)
        return d * xp.conj(d) if d.dtype.kind == "c" else d * d

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = (x - y)^2: dx = 2 dz (x - y), dy = -dx
        from tinytf.ops.elementwise import negative

        x, y = op.inputs
        dx = multiply(multiply(dz, 2), subtract(x, y))
        return [dx, negative(dx)]


def squared_difference(x, y, name=None):
    return SquaredDifference.bind(x, y)


@register
class ClipByValue(Op):
    """min(max(t, lo), hi); lo and hi are scalars or t's shape.

    %o = "tf.ClipByValue"(%t, %lo, %hi) : (tensor<3xf32>, tensor<f32>, tensor<f32>) -> tensor<3xf32>
    """

    name = "tf.ClipByValue"
    verify_ir = v.same_element_types
    t = operand_def()
    clip_value_min = operand_def()
    clip_value_max = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, t, clip_value_min, clip_value_max):
        dtype = same_dtype(cls.name, t, clip_value_min, clip_value_max)
        check_types(cls.name, t, REAL)
        for bound in (clip_value_min, clip_value_max):
            if bound.shape not in (None, ()) and not t.is_compatible_with(bound.shape):
                raise InvalidArgumentError(
                    f"{cls.name}: clip_value_min and clip_value_max must be either of the same shape as input, "
                    f"or a scalar. input shape: {fmt_shape(t.shape)}, clip_value_min shape: "
                    f"{fmt_shape(clip_value_min.shape)}, clip_value_max shape: {fmt_shape(clip_value_max.shape)}",
                    cls.name)
        return TensorSpec(t.shape, dtype)

    @staticmethod
    def compute(xp, t, clip_value_min, clip_value_max):
        return xp.maximum(xp.minimum(t, clip_value_max), clip_value_min)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = clip(t, lo, hi): dt = U inside [lo, hi], dlo = U below, dhi = U above
        from tinytf.ops.comparison import greater, less, logical_or, where

        t, lo, hi = op.inputs
        zero = scalar_like(dy)
        below, above = less(t, lo), greater(t, hi)
        return [where(logical_or(below, above), zero, dy), where(below, dy, zero), where(above, dy, zero)]


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    return ClipByValue.bind(t, clip_value_min, clip_value_max)


@register
class MatMul(Op):
    """a @ b of two matrices.

    %p = "tf.MatMul"(%a, %b) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}>
         : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    """

    name = "tf.MatMul"
    verify_ir = v.same_element_types
    BATCHING: ClassVar[str] = "matmul"
    a = operand_def()
    b = operand_def()
    product = result_def()
    grad_a = attr(False)  # marks the operand that is an upstream gradient; no effect on values
    grad_b = attr(False)
    transpose_a = attr(False)  # declared in alphabetical order: TensorFlow prints properties sorted
    transpose_b = attr(False)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, a, b, *, transpose_a, transpose_b, **_):
        dtype = check_dtype(cls.name, TensorSpec(None, same_dtype(cls.name, a, b)), "fciu")
        if a.shape is None or b.shape is None:
            return TensorSpec([None, None], dtype)
        if len(a.shape) != 2 or len(b.shape) != 2:
            raise InvalidArgumentError(
                f"{cls.name}: inputs must be matrices, got shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)}",
                cls.name)
        m, k = a.shape[::-1] if transpose_a else a.shape
        k2, n = b.shape[::-1] if transpose_b else b.shape
        if k is not None and k2 is not None and k != k2:
            raise InvalidArgumentError(
                f"{cls.name}: matrix size-incompatible: In[0]: {fmt_shape(a.shape)}, In[1]: {fmt_shape(b.shape)}",
                cls.name)
        return TensorSpec((m, n), dtype)

    @staticmethod
    def compute(xp, a, b, *, transpose_a, transpose_b, **_):
        return xp.matmul(a.T if transpose_a else a, b.T if transpose_b else b)

    @staticmethod
    def compute_for(*, transpose_a, transpose_b, **_):  # numpy's matmul itself where it can be
        matmul = np.matmul
        if not transpose_a and not transpose_b:
            return matmul
        return lambda a, b: matmul(a.T if transpose_a else a, b.T if transpose_b else b)

    @staticmethod
    def grad(op, dp):  # Given upstream grad U and P = A @ B: dA = U @ B^H, dB = A^H @ U (transposes folded)
        a, b = (ops.conj(x) for x in op.inputs)  # the conjugates: complex gradients are TensorFlow's
        ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]

        def mm(x, y, tx, ty, grad_first):  # grad_a / grad_b mark the operand that is U, as TensorFlow does
            return MatMul.bind(x, y, transpose_a=tx, transpose_b=ty, grad_a=grad_first, grad_b=not grad_first)

        skip = getattr(op, "skip_input_indices", None) or ()  # no product for a gradient nobody wants
        if not ta and not tb:
            da, db = (lambda: mm(dp, b, False, True, True)), (lambda: mm(a, dp, True, False, False))
        elif not ta and tb:
            da, db = (lambda: mm(dp, b, False, False, True)), (lambda: mm(dp, a, True, False, True))
        elif ta and not tb:
            da, db = (lambda: mm(b, dp, False, True, False)), (lambda: mm(a, dp, False, False, False))
        else:
            da, db = (lambda: mm(b, dp, True, True, False)), (lambda: mm(dp, a, True, True, True))
        return [None if 0 in skip else da(), None if 1 in skip else db()]


def _rank(v):
    shape = getattr(v, "shape", None) if hasattr(v, "shape") else np.shape(v)
    return None if shape is None else len(shape)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, name=None):
    """``tt.matmul``: MatMul for two matrices, BatchMatMulV2 when either rank is above 2 or unknown
    (or for the adjoint of a complex matrix, which BatchMatMulV2 conjugates)."""
    ra, rb = _rank(a), _rank(b)
    complex_adjoint = (adjoint_a or adjoint_b) and any(_is_complex(v) for v in (a, b))
    if ra is None or rb is None or ra > 2 or rb > 2 or complex_adjoint:
        from tinytf.ops.linalg import BatchMatMulV2

        return BatchMatMulV2.bind(a, b, adj_x=transpose_a or adjoint_a, adj_y=transpose_b or adjoint_b)
    return MatMul.bind(a, b, transpose_a=transpose_a or adjoint_a, transpose_b=transpose_b or adjoint_b)


def _is_complex(v) -> bool:
    dtype = getattr(v, "dtype", None)
    try:
        return dtype is not None and dtypes.as_dtype(dtype).is_complex
    except InvalidArgumentError:  # a dtype tinytf does not know: not complex
        return False

# The public op functions (tt.math / tt.<name>); the other module-level names are helpers.
__all__ = ["add", "subtract", "multiply", "pow", "maximum", "minimum", "squared_difference", "clip_by_value", "matmul"]
