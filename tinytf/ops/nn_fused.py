"""Grappler's remapper fusions: a convolution or matmul, its BiasAdd and an activation as one op.

    %y = "tf._FusedConv2D"(%x, %w, %b) <{data_format = "NHWC", dilations = [1, 1, 1, 1], epsilon = 0.0001,
           explicit_paddings = [], fused_ops = ["BiasAdd", "Relu"], leakyrelu_alpha = 0.2, num_args = 1,
           padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}>
           : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>

TensorFlow's ``_FusedConv2D``, ``_FusedDepthwiseConv2dNative`` and ``_FusedMatMul`` with ``fused_ops``
``["BiasAdd"]`` or ``["BiasAdd", A]`` for A in Relu, Relu6, Elu, LeakyRelu (``num_args = 1``: the bias).
``tf-fuse-bias-activation`` (tinytf/passes/fuse_bias_activation.py) makes them for the graph executor.
The numpy kernel adds the bias and applies the activation in place on the product's buffer, which the
convolution or matmul has just allocated, so the chain makes no temporaries and walks the output once
less per step; values equal the unfused chain's bit for bit. Under XLA the chain is lowered as written
(XLA fuses it on its own). Inference only: the ops are not differentiable, as in TensorFlow.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.activation_grads import alpha_scalar
from tinytf.ops.conv import Conv2D, DepthwiseConv2dNative, _ConvForward
from tinytf.ops.conv_kernels import np_conv, small_conv_kernel
from tinytf.ops.math import MatMul
from tinytf.ops.nn import BiasAdd, Elu, LeakyRelu, Relu, Relu6

ACTIVATIONS = ("Relu", "Relu6", "Elu", "LeakyRelu")


def _in_place_activation(out: np.ndarray, activation: str | None, alpha: float) -> None:
    """``out`` replaced by activation(out) without a temporary of its size (bit for bit the op's compute)."""
    if activation == "Relu":
        np.maximum(out, np.zeros((), out.dtype), out=out)
    elif activation == "Relu6":
        np.maximum(out, np.zeros((), out.dtype), out=out)
        np.minimum(out, np.asarray(6, out.dtype), out=out)
    elif activation == "Elu":
        negative = out < 0
        out[negative] = np.expm1(out[negative])
    elif activation == "LeakyRelu":
        np.multiply(out, alpha_scalar(np, alpha, out), out=out, where=~(out > 0))


def _jax_activation(y, activation: str | None, alpha: float):
    import jax.numpy as jnp

    if activation == "Relu":
        return Relu.compute(jnp, y)
    if activation == "Relu6":
        return Relu6.compute(jnp, y)
    if activation == "Elu":
        return Elu.compute(jnp, y)
    if activation == "LeakyRelu":
        return LeakyRelu.compute(jnp, y, alpha=alpha)
    return y


class _Fused:
    """The rules shared by the fused ops: ``fused_ops`` checked, then bias and activation after ``layer``."""

    fused_ops = attr((), kind="strs")
    epsilon = attr(0.0001)
    leakyrelu_alpha = attr(0.2)
    num_args = derived("int", lambda op: len(op.operands) - 2, default=None)
    FLOATS: ClassVar[dict] = {"epsilon": v.F32_ATTR, "leakyrelu_alpha": v.F32_ATTR}

    @classmethod
    def activation(cls, fused_ops) -> str | None:
        ops = tuple(fused_ops)
        if len(ops) in (1, 2) and ops[0] == "BiasAdd" and (len(ops) == 1 or ops[1] in ACTIVATIONS):
            return ops[1] if len(ops) == 2 else None
        raise InvalidArgumentError(f"{cls.name}: unsupported fusion {list(ops)}: want ['BiasAdd'] or "
                                   f"['BiasAdd', A] for A in {list(ACTIVATIONS)}", cls.name)

    @classmethod
    def check(cls, product: TensorSpec, args, attrs) -> TensorSpec:
        cls.activation(attrs["fused_ops"])
        if len(args) != 1:
            raise InvalidArgumentError(f"{cls.name}: num_args must be 1 (the bias), got {len(args)}", cls.name)
        return BiasAdd.infer(product, args[0], data_format=attrs.get("data_format", "NHWC"))

    @classmethod
    def finish(cls, out: np.ndarray, bias: np.ndarray, attrs) -> np.ndarray:
        """bias and activation applied to the freshly made ``out``, in place."""
        if not out.flags.writeable:
            out = out.copy()
        axis = BiasAdd._channel_axis(out.ndim, attrs.get("data_format", "NHWC"))
        out += bias.reshape((-1,) + (1,) * (out.ndim - 1 - axis))
        _in_place_activation(out, cls.activation(attrs["fused_ops"]), attrs["leakyrelu_alpha"])
        return out

    @classmethod
    def finish_jax(cls, y, bias, attrs):
        y = BiasAdd.compute(None, y, bias, data_format=attrs.get("data_format", "NHWC"))
        return _jax_activation(y, cls.activation(attrs["fused_ops"]), attrs["leakyrelu_alpha"])


class _FusedConv(_Fused, _ConvForward):
    input = operand_def()
    filter = operand_def()
    args = var_operand_def()
    output = result_def()
    traits = traits_def(Pure(), NotDifferentiable())
    LAYER: ClassVar[type] = Conv2D

    @classmethod
    def infer(cls, input, filter, *args, **attrs):
        return cls.check(_ConvForward.infer.__func__(cls, input, filter, **attrs), args, attrs)

    @classmethod
    def compute(cls, xp, input, filter, bias, **attrs):
        return cls.finish(_ConvForward.compute.__func__(cls, xp, input, filter, **attrs), bias, attrs)

    @classmethod
    def kernel_for(cls, operands, constants, **attrs):
        """(static plans) compute for these operand types, its window worked out once (a small NHWC
        convolution as Conv2D's one-gather kernel), bit for bit: else a fused op ran slower than the
        unfused chain, whose Conv2D has these kernels."""
        (shape, dtype), (filter_shape, _), _ = operands
        win, data_format, finish = cls.window(shape, filter_shape, attrs), attrs["data_format"], cls.finish
        small = small_conv_kernel(win, dtype) if data_format == "NHWC" and not cls.DEPTHWISE else None
        if small is not None:
            conv, nbytes = small
        else:
            def conv(x, w):
                return np_conv(x, w, win, data_format, cls.DEPTHWISE)

            (kh, kw, *_), (n, oh, ow, o) = win.filter_shape, win.output_nhwc
            nbytes = max(n * oh * ow * max(o, kh * kw * win.input_nhwc[3]), 1) * dtype.itemsize

        def run(x, w, bias):
            return finish(conv(x, w), bias, attrs)

        return run, nbytes

    @classmethod
    def lower(cls, input, filter, bias, **attrs):
        return cls.finish_jax(_ConvForward.lower.__func__(cls, input, filter, **attrs), bias, attrs)


@register
class FusedConv2D(_FusedConv):
    """Conv2D, BiasAdd and an optional activation (TensorFlow's remapper fusion)."""

    name = "tf._FusedConv2D"
    use_cudnn_on_gpu = attr(True)
    ATTR_CONSTRAINTS: ClassVar[dict] = {**Conv2D.ATTR_CONSTRAINTS, **_Fused.FLOATS}


@register
class FusedDepthwiseConv2dNative(_FusedConv):
    """DepthwiseConv2dNative, BiasAdd and an optional activation (TensorFlow's remapper fusion)."""

    name = "tf._FusedDepthwiseConv2dNative"
    DEPTHWISE: ClassVar[bool] = True
    LAYER: ClassVar[type] = DepthwiseConv2dNative
    ATTR_CONSTRAINTS: ClassVar[dict] = _Fused.FLOATS


@register
class FusedMatMul(_Fused, Op):
    """MatMul, BiasAdd and an optional activation (TensorFlow's remapper fusion)."""

    name = "tf._FusedMatMul"
    a = operand_def()
    b = operand_def()
    args = var_operand_def()
    product = result_def()
    transpose_a = attr(False)
    transpose_b = attr(False)
    traits = traits_def(Pure(), NotDifferentiable())
    ATTR_CONSTRAINTS: ClassVar[dict] = _Fused.FLOATS

    @classmethod
    def infer(cls, a, b, *args, transpose_a=False, transpose_b=False, **attrs):
        product = MatMul.infer.__func__(cls, a, b, transpose_a=transpose_a, transpose_b=transpose_b)
        return cls.check(product, args, attrs)

    @classmethod
    def compute(cls, xp, a, b, bias, *, transpose_a=False, transpose_b=False, **attrs):
        out = np.matmul(a.T if transpose_a else a, b.T if transpose_b else b)
        return cls.finish(out, bias, attrs)

    @classmethod
    def compute_for(cls, *, transpose_a=False, transpose_b=False, **attrs):
        """compute for checked operands: the bias added to the product (a [M, N] matrix) as a row, in place."""
        activation, alpha, matmul = cls.activation(attrs["fused_ops"]), attrs["leakyrelu_alpha"], np.matmul

        def run(a, b, bias):
            out = matmul(a.T if transpose_a else a, b.T if transpose_b else b)
            out += bias
            if activation is not None:
                _in_place_activation(out, activation, alpha)
            return out

        return run

    @classmethod
    def lower(cls, a, b, bias, *, transpose_a=False, transpose_b=False, **attrs):
        import jax.numpy as jnp

        return cls.finish_jax(MatMul.compute(jnp, a, b, transpose_a=transpose_a, transpose_b=transpose_b), bias,
                              attrs)
