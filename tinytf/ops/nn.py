"""Neural-network ops: BiasAdd, Relu (the execution issue adds the rest of tf.nn)."""
from __future__ import annotations

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import UnaryElementwise, fmt_shape, same_dtype


@register
class BiasAdd(Op):
    """value + bias along the channel dim (last for NHWC, dim 1 for NCHW).

    %y = "tf.BiasAdd"(%x, %b) <{data_format = "NHWC"}> : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    """

    name = "tf.BiasAdd"
    value = operand_def()
    bias = operand_def()
    output = result_def()
    data_format = attr("NHWC")
    traits = traits_def(Pure())

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
        from tinytf.ops.array import ones_like

        return [BiasAdd.bind(ones_like(op.inputs[0]) * 0, dbias, data_format=op.attrs["data_format"])]


def bias_add(value, bias, data_format=None, name=None):
    return BiasAdd.bind(value, bias, data_format=data_format or "NHWC")


@register
class Relu(UnaryElementwise):
    """max(x, 0).  %y = "tf.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Relu"

    @staticmethod
    def kinds() -> str:
        return "fiu"

    @staticmethod
    def compute(xp, x):
        return xp.maximum(x, xp.zeros((), x.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = relu(x): dx = dy where y > 0 (0 at x = 0)
        return [ReluGrad.bind(dy, op.outputs[0])]


def relu(features, name=None):
    return Relu.bind(features)


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
        return gradients

    @staticmethod
    def compute(xp, gradients, features):
        return xp.where(features > 0, gradients, xp.zeros((), gradients.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g * (f > 0): dg = U * (f > 0), df = 0
        return [ReluGrad.bind(dy, op.inputs[1]), None]
