"""Neural-network ops: BiasAdd and the activations (Relu, Relu6, Elu, Selu, Softplus, LeakyRelu), and gelu.

    %y = "tf.LeakyRelu"(%x) <{alpha = 2.000000e-01 : f32}> : (tensor<2xf32>) -> tensor<2xf32>

``gelu`` is a composite. The gradient ops are in activation_grads.py; Softmax and the cross-entropy ops
in softmax.py. Gradients that need other op families (multiply, exp, ...) find them by name when they run
(``_ops``).
"""
from __future__ import annotations

from typing import ClassVar

import ml_dtypes
import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Elementwise, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.activation_grads import (
    SELU_ALPHA,
    SELU_SCALE,
    EluGrad,
    LeakyReluGrad,
    Relu6Grad,
    ReluGrad,
    SeluGrad,
    SoftplusGrad,
    alpha_scalar,
    scalar_zero,
)
from tinytf.ops.base import check_dtype, fmt_shape, same_dtype
from tinytf.ops.op_functions import ops as _ops

__all__ = ["bias_add", "relu", "relu6", "elu", "selu", "softplus", "leaky_relu", "gelu"]


@register
class BiasAdd(Op):
    """value + bias along the channel dim (last for NHWC, dim 1 for NCHW).

    %y = "tf.BiasAdd"(%x, %b) <{data_format = "NHWC"}> : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    """

    name = "tf.BiasAdd"
    BATCHING: ClassVar[str] = "bias_add"
    value = operand_def()
    bias = operand_def()
    output = result_def()
    data_format = attr("NHWC")
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"data_format": v.DATA_FORMAT}

    def verify_ir(self):
        nchw = self.attr_values()["data_format"] == "NCHW"
        if not v.rank_at_least(self.value, 3 if nchw else 2):
            v.fail(f"requires value operand to have rank at least {'three' if nchw else 'two'} with "
                   f"`{'NCHW' if nchw else 'NHWC'}` data format")
        if not v.has_rank(self.bias, 1):
            v.fail("requires bias operand to have rank exactly one")
        value, bias = v.shape(self.value), v.shape(self.bias)
        if value is not None and bias is not None:
            feature = value[1 if nchw else -1]
            if feature is not None and bias[0] is not None and feature != bias[0]:
                v.fail(f"requires channel dimension and feature dimension to match; found {feature} and {bias[0]}, "
                       "respectively")

    @classmethod
    def infer(cls, value, bias, *, data_format):
        dtype = same_dtype(cls.name, value, bias)
        if data_format not in ("NHWC", "NCHW"):
            raise InvalidArgumentError(f"{cls.name}: unknown data_format '{data_format}'", cls.name)
        if value.shape is not None and bias.shape is not None:
            channel = cls._channel_axis(len(value.shape), data_format)
            if len(value.shape) < 2 or len(bias.shape) != 1 or value.shape[channel] not in (None, bias.shape[0]) \
                    and bias.shape[0] is not None:
                raise InvalidArgumentError(
                    f"{cls.name}: bias {fmt_shape(bias.shape)} does not match the channels of "
                    f"value {fmt_shape(value.shape)} ({data_format})", cls.name)
        return TensorSpec(value.shape, dtype)

    @staticmethod
    def _channel_axis(rank: int, data_format: str) -> int:
        return 1 if data_format == "NCHW" and rank > 2 else rank - 1

    @classmethod
    def compute(cls, xp, value, bias, *, data_format):
        axis = cls._channel_axis(value.ndim, data_format)
        return value + bias.reshape((-1,) + (1,) * (value.ndim - 1 - axis))

    @classmethod
    def kernel_for(cls, operands, constants, *, data_format, **_):  # compute with the bias's shape worked out once
        (shape, dtype), _ = operands
        if dtype.kind != "f":
            return None
        to = (-1,) + (1,) * (len(shape) - 1 - cls._channel_axis(len(shape), data_format))
        add = np.add
        return (lambda value, bias: add(value, bias.reshape(to))), int(np.prod(shape)) * dtype.itemsize

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = x + b: dx = U, db = U summed over all but channels
        return [dy, BiasAddGrad.bind(dy, data_format=op.attrs["data_format"])]


@register
class BiasAddGrad(Op):
    """The bias gradient: out_backprop summed over every dim but the channel dim."""

    name = "tf.BiasAddGrad"
    out_backprop = operand_def()
    output = result_def()
    data_format = attr("NHWC")
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"data_format": v.DATA_FORMAT}

    def verify_ir(self):
        nchw = self.attr_values()["data_format"] == "NCHW"
        if not v.rank_at_least(self.out_backprop, 3 if nchw else 2):
            v.fail(f"requires out_backprop operand to have rank at least {'three' if nchw else 'two'} with "
                   f"`{'NCHW' if nchw else 'NHWC'}` data format")

    @classmethod
    def infer(cls, out_backprop, *, data_format):
        shape = out_backprop.shape
        if shape is not None and len(shape) < 2:
            raise InvalidArgumentError(f"{cls.name}: input must be at least 2-D, got {fmt_shape(shape)}", cls.name)
        channels = None if shape is None else shape[BiasAdd._channel_axis(len(shape), data_format)]
        return TensorSpec((channels,), out_backprop.dtype)

    @staticmethod
    def compute(xp, out_backprop, *, data_format):
        axis = BiasAdd._channel_axis(out_backprop.ndim, data_format)
        return out_backprop.sum(axis=tuple(i for i in range(out_backprop.ndim) if i != axis))

    @staticmethod
    def grad(op, dbias):  # Given upstream grad U and b = sum(y): dy = U broadcast along the channel dim
        return [BiasAdd.bind(_ops.zeros_like(op.inputs[0]), dbias, data_format=op.attrs["data_format"])]


def bias_add(value, bias, data_format=None, name=None):
    return BiasAdd.bind(value, bias, data_format=data_format or "NHWC")


class _Activation(Op):
    """activations = f(features), elementwise (TensorFlow's operand and result names)."""

    features = operand_def()
    activations = result_def()
    traits = traits_def(Pure(), Elementwise())

    @staticmethod
    def kinds() -> str:
        return "f"

    @classmethod
    def infer(cls, features, **attrs):
        check_dtype(cls.name, features, cls.kinds())
        return TensorSpec(features.shape, features.dtype)  # (not the operand's spec: that may carry its value)


@register
class Relu(_Activation):
    """max(x, 0).  %y = "tf.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Relu"
    CHEAP: ClassVar[bool] = True

    @staticmethod
    def kinds() -> str:
        return "fiu"

    @staticmethod
    def compute(xp, x):
        return xp.maximum(x, xp.zeros((), x.dtype))

    @staticmethod
    def compute_into(out, x):
        np.maximum(x, np.zeros((), x.dtype), out=out)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = relu(x): dx = dy where y > 0 (0 at x = 0)
        return [ReluGrad.bind(dy, op.outputs[0])]


def relu(features, name=None):
    return Relu.bind(features)


# --- activations -------------------------------------------------------------------------------
# TensorFlow's kernels (tensorflow/core/kernels/relu_op_functor.h, softplus_op.h).

@register
class Relu6(_Activation):
    """min(max(x, 0), 6).  %y = "tf.Relu6"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Relu6"

    @staticmethod
    def kinds() -> str:
        return "fiu"

    @staticmethod
    def compute(xp, x):
        return xp.minimum(xp.maximum(x, scalar_zero(xp, x)), xp.asarray(6, x.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = relu6(x): dx = U where 0 < x < 6
        return [Relu6Grad.bind(dy, op.inputs[0])]


@register
class Elu(_Activation):
    """x if x > 0 else exp(x) - 1.  %y = "tf.Elu"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Elu"

    @staticmethod
    def kinds() -> str:
        return "f"

    @staticmethod
    def compute(xp, x):
        return xp.where(x < 0, xp.expm1(xp.minimum(x, scalar_zero(xp, x))), x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = elu(x): dx = U * (y + 1) where y < 0, else U
        return [EluGrad.bind(dy, op.outputs[0])]


@register
class Selu(_Activation):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)).  %y = "tf.Selu"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Selu"

    @staticmethod
    def kinds() -> str:
        return "f"

    @staticmethod
    def compute(xp, x):
        neg = xp.expm1(xp.minimum(x, scalar_zero(xp, x))) * xp.asarray(SELU_SCALE * SELU_ALPHA, x.dtype)
        return xp.where(x < 0, neg, x * xp.asarray(SELU_SCALE, x.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = selu(x): dx = U * (y + scale*alpha) where y < 0, else U * scale
        return [SeluGrad.bind(dy, op.outputs[0])]


@register
class Softplus(_Activation):
    """log(1 + exp(x)), without overflow.  %y = "tf.Softplus"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Softplus"

    @staticmethod
    def kinds() -> str:
        return "f"

    @staticmethod
    def compute(xp, x):
        # TensorFlow's thresholds: beyond them softplus(x) is x (or exp(x)) to machine precision.
        threshold = float(np.log(float(ml_dtypes.finfo(x.dtype).eps))) + 2.0
        e = xp.exp(xp.minimum(x, xp.asarray(-threshold, x.dtype)))  # finite in the branch not taken
        return xp.where(x > -threshold, x, xp.where(x < threshold, e, xp.log1p(e)))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = softplus(x): dx = U * sigmoid(x)
        return [SoftplusGrad.bind(dy, op.inputs[0])]


@register
class LeakyRelu(_Activation):
    """x if x > 0 else alpha * x.

    %y = "tf.LeakyRelu"(%x) <{alpha = 2.000000e-01 : f32}> : (tensor<2xf32>) -> tensor<2xf32>
    """

    name = "tf.LeakyRelu"
    alpha = attr(0.2)
    ATTR_CONSTRAINTS: ClassVar[dict] = {"alpha": v.F32_ATTR}

    @staticmethod
    def kinds() -> str:
        return "f"

    @staticmethod
    def compute(xp, x, *, alpha):
        return xp.where(x > 0, x, x * alpha_scalar(xp, alpha, x))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = leaky_relu(x): dx = U where x > 0, else alpha * U
        return [LeakyReluGrad.bind(dy, op.inputs[0], alpha=op.attrs["alpha"])]


def relu6(features, name=None):
    return Relu6.bind(features)


def elu(features, name=None):
    return Elu.bind(features)


def selu(features, name=None):
    return Selu.bind(features)


def softplus(features, name=None):
    return Softplus.bind(features)


def leaky_relu(features, alpha=0.2, name=None):
    return LeakyRelu.bind(features, alpha=float(alpha))


def gelu(features, approximate=False, name=None):
    """0.5 * x * (1 + erf(x / sqrt(2))), or the tanh approximation (composite, as in TensorFlow)."""
    m = _ops
    x = features
    if approximate:
        inner = m.multiply(m.add(x, m.multiply(0.044715, m.multiply(x, m.multiply(x, x)))), 0.7978845608028654)
        return m.multiply(m.multiply(0.5, x), m.add(1.0, m.tanh(inner)))
    return m.multiply(m.multiply(0.5, x), m.add(1.0, m.erf(m.multiply(x, 0.7071067811865476))))

