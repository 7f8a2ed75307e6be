"""The activations' gradient ops: ReluGrad, Relu6Grad, EluGrad, SeluGrad, SoftplusGrad, LeakyReluGrad.

    %b = "tf.ReluGrad"(%dy, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>

The forward ops are in nn.py. Each gradient op takes (gradients, x), where x is the forward op's
input, or its output for Elu and Selu (TensorFlow's kernels: tensorflow/core/kernels/relu_op_functor.h,
softplus_op.h).
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import check_dtype, fmt_shape, same_dtype
from tinytf.ops.op_functions import ops as _ops

__all__: list[str] = []  # gradient ops only: tt.raw_ops has them, tt.nn does not

# Shared with the forward ops in nn.py.
SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def scalar_zero(xp, x):
    return xp.zeros((), x.dtype)


def alpha_scalar(xp, alpha, x):
    return xp.asarray(np.float32(alpha), x.dtype)  # the attribute is an f32, as in TensorFlow


@register
class ReluGrad(Op):
    """gradients where features > 0, else 0 (the gradient of Relu)."""

    name = "tf.ReluGrad"
    gradients = operand_def()
    features = operand_def()
    backprops = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, gradients, features):
        same_dtype(cls.name, gradients, features)
        return TensorSpec(gradients.shape, gradients.dtype)  # (not the operand's spec: that may carry its value)

    @staticmethod
    def compute(xp, gradients, features):
        return xp.where(features > 0, gradients, xp.zeros((), gradients.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g * (f > 0): dg = U * (f > 0), df = 0
        return [ReluGrad.bind(dy, op.inputs[1]), None]


class _ActivationGrad(Op):
    """backprops = f(gradients, x), elementwise; both operands share a shape and dtype."""

    backprops = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, gradients, features, **attrs):
        check_dtype(cls.name, TensorSpec(None, same_dtype(cls.name, gradients, features)), "fiu")
        if gradients.shape is not None and features.shape is not None and \
                not TensorSpec(gradients.shape).is_compatible_with(features.shape):
            raise InvalidArgumentError(
                f"{cls.name}: gradients {fmt_shape(gradients.shape)} and features {fmt_shape(features.shape)} "
                "must have the same shape", cls.name)
        # a fresh spec: returning an operand's would hand on its value, and XLA would fold the op to it
        return TensorSpec(gradients.shape if gradients.shape is not None else features.shape, gradients.dtype)


class _GradOfFeatures(_ActivationGrad):
    gradients = operand_def()
    features = operand_def()  # the forward op's input


class _GradOfOutputs(_ActivationGrad):
    gradients = operand_def()
    outputs = operand_def()  # the forward op's output


@register
class Relu6Grad(_GradOfFeatures):
    """gradients where 0 < features < 6, else 0 (features is Relu6's input)."""

    name = "tf.Relu6Grad"

    @staticmethod
    def compute(xp, gradients, features):
        return xp.where((features > 0) & (features < 6), gradients, scalar_zero(xp, gradients))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g * [0 < f < 6]: dg = U * [0 < f < 6], df = 0
        return [Relu6Grad.bind(dy, op.inputs[1]), None]


@register
class EluGrad(_GradOfOutputs):
    """gradients * (outputs + 1) where outputs < 0, else gradients (outputs is Elu's output)."""

    name = "tf.EluGrad"
    @staticmethod
    def compute(xp, gradients, outputs):
        return xp.where(outputs < 0, gradients * (outputs + 1), gradients)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g * (y + 1) [y < 0]: dg = elu_grad(U, y), dy = U * g [y < 0]
        g, y = op.inputs
        return [EluGrad.bind(dy, y), _where_negative(y, _ops.multiply(dy, g))]


@register
class SeluGrad(_GradOfOutputs):
    """gradients * (outputs + scale * alpha) where outputs < 0, else gradients * scale."""

    name = "tf.SeluGrad"
    @staticmethod
    def compute(xp, gradients, outputs):
        neg = gradients * (outputs + xp.asarray(SELU_SCALE * SELU_ALPHA, outputs.dtype))
        return xp.where(outputs < 0, neg, gradients * xp.asarray(SELU_SCALE, gradients.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = selu_grad(g, y): dg = selu_grad(U, y), dy = U * g [y < 0]
        g, y = op.inputs
        return [SeluGrad.bind(dy, y), _where_negative(y, _ops.multiply(dy, g))]


@register
class SoftplusGrad(_GradOfFeatures):
    """gradients / (1 + exp(-features)) (features is Softplus's input)."""

    name = "tf.SoftplusGrad"

    @staticmethod
    def compute(xp, gradients, features):
        with np.errstate(over="ignore"):  # exp(-x) = inf for very negative x gives the right 0
            return gradients / (xp.exp(-features) + 1)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g * sigmoid(x): dg = U * sigmoid(x), dx = U * g / (e^-x + 2 + e^x)
        m = _ops
        g, x = op.inputs
        denom = m.add(m.add(m.exp(m.negative(x)), 2.0), m.exp(x))
        return [SoftplusGrad.bind(dy, x), m.realdiv(m.multiply(dy, g), denom)]


@register
class LeakyReluGrad(_GradOfFeatures):
    """gradients where features > 0, else alpha * gradients."""

    name = "tf.LeakyReluGrad"
    alpha = attr(0.2)

    @staticmethod
    def compute(xp, gradients, features, *, alpha):
        return xp.where(features > 0, gradients, gradients * alpha_scalar(xp, alpha, gradients))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = leaky_relu_grad(g, x): dg = leaky_relu_grad(U, x), dx = 0
        return [LeakyReluGrad.bind(dy, op.inputs[1], alpha=op.attrs["alpha"]), None]


def _where_negative(y, value):
    """value where y < 0, else 0, as ReluGrad(value, -y): no comparison or select op needed."""
    return ReluGrad.bind(value, _ops.negative(y))
