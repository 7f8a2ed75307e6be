"""The rest of tf.nn's activations: Softsign (and SoftsignGrad) as ops; crelu, silu / swish as composites.

    %y = "tf.Softsign"(%x) : (tensor<2xf32>) -> tensor<2xf32>

The composites are written as TensorFlow writes them (tensorflow/python/ops/nn_ops.py, nn_impl.py), so
their gradients come from the ops they are made of: ``silu(x) = x * sigmoid(beta * x)`` and
``crelu(x) = relu(concat([x, -x], axis))``.
"""
from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.framework.op import Elementwise, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.activation_grads import _GradOfFeatures
from tinytf.ops.base import check_dtype
from tinytf.ops.op_functions import ops as _ops

__all__ = ["softsign", "crelu", "silu", "swish"]
__namespaces__ = {"softsign": ("nn", "math")}


@register
class Softsign(Op):
    """x / (1 + |x|), elementwise.  %y = "tf.Softsign"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Softsign"
    features = operand_def()
    activations = result_def()
    traits = traits_def(Pure(), Elementwise())

    @classmethod
    def infer(cls, features):
        check_dtype(cls.name, features, "f")
        return TensorSpec(features.shape, features.dtype)

    @staticmethod
    def compute(xp, features):
        return features / (xp.abs(features) + xp.ones((), features.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = x / (1 + |x|): dx = U / (1 + |x|)^2
        return [SoftsignGrad.bind(dy, op.inputs[0])]


@register
class SoftsignGrad(_GradOfFeatures):
    """gradients / (1 + |features|)^2 (features is Softsign's input)."""

    name = "tf.SoftsignGrad"
    BATCHING: ClassVar[str] = "elementwise"

    @staticmethod
    def compute(xp, gradients, features):
        d = xp.abs(features) + xp.ones((), features.dtype)
        return gradients / (d * d)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g / (1 + |x|)^2: dg = U / (1 + |x|)^2, dx = -2 U g sign(x) / (1 + |x|)^3
        m = _ops
        g, x = op.inputs
        d = m.add(m.abs(x), 1.0)
        dx = m.multiply(m.multiply(-2.0, m.multiply(dy, g)), m.realdiv(m.sign(x), m.multiply(d, m.multiply(d, d))))
        return [SoftsignGrad.bind(dy, x), dx]


def softsign(features, name=None):
    return Softsign.bind(features)


def crelu(features, axis=-1, name=None):
    """relu(concat([x, -x], axis)): the positive and the negative part, side by side along ``axis``."""
    m = _ops
    return m.relu(m.concat([features, m.negative(features)], axis))


def silu(features, beta=1.0, name=None):
    """x * sigmoid(beta * x) (Sigmoid Linear Unit, also called swish)."""
    m = _ops
    if isinstance(beta, int | float) and beta == 1.0:
        return m.multiply(features, m.sigmoid(features))
    return m.multiply(features, m.sigmoid(m.multiply(beta, features)))


def swish(features, beta=1.0, name=None):
    return silu(features, beta)
