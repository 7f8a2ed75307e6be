"""Arithmetic: AddV2, Sub, Mul, MatMul (the execution issue adds the rest of tf.math)."""
from __future__ import annotations

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Commutative, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import BinaryElementwise, check_dtype, fmt_shape, same_dtype


@register
class AddV2(BinaryElementwise):
    """x + y.  %z = "tf.AddV2"(%x, %y) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>"""

    name = "tf.AddV2"
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
class Sub(BinaryElementwise):
    """x - y.  %z = "tf.Sub"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Sub"

    @staticmethod
    def compute(xp, x, y):
        return xp.subtract(x, y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x - y: dx = dz, dy = -dz
        return [dz, multiply(dz, -1)]


def subtract(x, y, name=None):
    return Sub.bind(x, y)


@register
class Mul(BinaryElementwise):
    """x * y.  %z = "tf.Mul"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Mul"
    traits = traits_def(Commutative())

    @staticmethod
    def compute(xp, x, y):
        return xp.multiply(x, y)

    @staticmethod
    def grad(op, dz):  # Given upstream grad dz and z = x * y: dx = dz * y, dy = dz * x
        x, y = op.inputs
        return [multiply(dz, y), multiply(dz, x)]


def multiply(x, y, name=None):
    return Mul.bind(x, y)


@register
class MatMul(Op):
    """a @ b of two matrices.

    %p = "tf.MatMul"(%a, %b) <{transpose_a = false, transpose_b = false}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    """

    name = "tf.MatMul"
    a = operand_def()
    b = operand_def()
    product = result_def()
    transpose_a = attr(False)
    transpose_b = attr(False)
    grad_a = attr(False)  # TensorFlow marks matmuls that compute gradients; no effect on values
    grad_b = attr(False)
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
    def grad(op, dp):  # Given upstream grad U and P = A @ B: dA = U @ B^T, dB = A^T @ U (transposes folded)
        a, b = op.inputs
        ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
        if not ta and not tb:
            return [matmul(dp, b, transpose_b=True), matmul(a, dp, transpose_a=True)]
        if not ta and tb:
            return [matmul(dp, b), matmul(dp, a, transpose_a=True)]
        if ta and not tb:
            return [matmul(b, dp, transpose_b=True), matmul(a, dp)]
        return [matmul(b, dp, transpose_a=True, transpose_b=True), matmul(dp, a, transpose_a=True, transpose_b=True)]


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    return MatMul.bind(a, b, transpose_a=transpose_a, transpose_b=transpose_b)
