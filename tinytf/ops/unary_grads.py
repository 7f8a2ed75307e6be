"""TensorFlow's gradient ops for unary math: TanhGrad, SigmoidGrad, RsqrtGrad, SqrtGrad, ReciprocalGrad.

Each takes the forward op's *output* ``y`` and the upstream gradient ``dy`` (same shape, no
broadcasting, as TensorFlow's cwise gradient kernels) and returns ``z = dy * f'(x)`` written in y:

    %z = "tf.TanhGrad"(%y, %dy) : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>

Their own gradients (for second derivatives) follow tensorflow/python/ops/math_grad.py.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import Elementwise, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.math import multiply, subtract
from tinytf.ops.type_lists import FLOAT_COMPLEX, check_types


class _UnaryGrad(Op):
    y = operand_def()
    dy = operand_def()
    z = result_def()
    traits = traits_def(Pure(), Elementwise())

    @classmethod
    def infer(cls, y, dy):
        dtype = same_dtype(cls.name, y, dy)
        check_types(cls.name, y, FLOAT_COMPLEX)
        if y.shape is not None and dy.shape is not None and not y.is_compatible_with(dy.shape):
            raise InvalidArgumentError(
                f"{cls.name}: y and dy must have the same shape, got {fmt_shape(y.shape)} and {fmt_shape(dy.shape)}",
                cls.name)
        return TensorSpec(y.shape if y.shape is not None else dy.shape, dtype)


@register
class TanhGrad(_UnaryGrad):
    """dy * (1 - y^2): the gradient of y = tanh(x)."""

    name = "tf.TanhGrad"

    @staticmethod
    def compute(xp, y, dy):
        return dy * (xp.ones((), y.dtype) - y * y)

    @staticmethod
    def compute_into(out, y, dy):  # compute's three roundings; dy is read last, so out may be its buffer
        t = np.multiply(y, y) if out is dy else np.multiply(y, y, out=out)
        np.subtract(out.dtype.type(1), t, out=t)
        np.multiply(dy, t, out=out)

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = dy (1 - y^2): d_y = -2 U dy y, d_dy = U (1 - y^2)
        y, dy = op.inputs
        return [multiply(multiply(dz, -2), multiply(dy, y)), TanhGrad.bind(y, dz)]


@register
class SigmoidGrad(_UnaryGrad):
    """dy * y * (1 - y): the gradient of y = sigmoid(x)."""

    name = "tf.SigmoidGrad"

    @staticmethod
    def compute(xp, y, dy):
        return dy * (y * (xp.ones((), y.dtype) - y))

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = dy y (1 - y): d_y = U dy (1 - 2y), d_dy = U y (1 - y)
        y, dy = op.inputs
        g = multiply(dz, dy)
        return [subtract(g, multiply(multiply(g, 2), y)), SigmoidGrad.bind(y, dz)]


@register
class RsqrtGrad(_UnaryGrad):
    """dy * -0.5 * y^3: the gradient of y = x^-0.5."""

    name = "tf.RsqrtGrad"

    @staticmethod
    def compute(xp, y, dy):
        return dy * (y * y * y) * xp.asarray(-0.5, y.dtype)

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = -0.5 dy y^3: d_y = -1.5 U dy y^2, d_dy = -0.5 U y^3
        y, dy = op.inputs
        return [multiply(multiply(dz, -1.5), multiply(dy, multiply(y, y))), RsqrtGrad.bind(y, dz)]


@register
class SqrtGrad(_UnaryGrad):
    """dy * 0.5 / y: the gradient of y = x^0.5."""

    name = "tf.SqrtGrad"

    @staticmethod
    @np.errstate(all="ignore")
    def compute(xp, y, dy):
        return dy * xp.asarray(0.5, y.dtype) / y

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = 0.5 dy / y: d_y = -U z / y, d_dy = 0.5 U / y
        from tinytf.ops.division import realdiv

        y = op.inputs[0]
        ga = realdiv(dz, y)
        return [multiply(multiply(ga, -1), op.outputs[0]), multiply(ga, 0.5)]


@register
class ReciprocalGrad(_UnaryGrad):
    """-dy * y^2: the gradient of y = 1/x."""

    name = "tf.ReciprocalGrad"

    @staticmethod
    def compute(xp, y, dy):
        return -(dy * (y * y))

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = -dy y^2: d_y = -2 U dy y, d_dy = -U y^2
        y, dy = op.inputs
        return [multiply(multiply(dz, -2), multiply(dy, y)), ReciprocalGrad.bind(y, dz)]


# The public op functions (tt.math / tt.<name>); the other module-level names are helpers.
__all__ = []
