"""Convolution ops: Conv2D, DepthwiseConv2dNative, their backprop ops, and tf.nn.conv2d and friends.

    %y = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [],
           padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}>
           : (tensor<2x12x12x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x12x12x8xf32>

Filters are HWIO (depthwise: H, W, in channels, multiplier). The window geometry is in
window_kernels.py, the numpy kernels and JAX lowerings in conv_kernels.py; pooling is in pooling.py.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.conv_kernels import (
    jax_conv,
    jax_conv_backprop_filter,
    jax_conv_backprop_input,
    np_conv,
    np_conv_backprop_filter,
    np_conv_backprop_input,
    small_conv_kernel,
)
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.op_functions import shape_tensor
from tinytf.ops.window_kernels import (
    Window,
    conv_window,
    padding_attrs,
    shape_in_format,
    sizes_operand,
    static_sizes,
    window_attr,
)

__all__ = ["conv2d", "conv2d_transpose", "depthwise_conv2d"]


class _Conv(Op):
    """Shared attributes and checks of the convolution ops; ``DEPTHWISE`` picks the filter layout."""

    strides = attr(kind="ints")
    padding = attr(kind="str")
    explicit_paddings = attr((), kind="ints")
    data_format = attr("NHWC")
    dilations = attr((1, 1, 1, 1))
    traits = traits_def(Pure())
    DEPTHWISE: ClassVar[bool] = False

    @classmethod
    def window(cls, input_shape, filter_shape, attrs) -> Window:
        return conv_window(cls.name, input_shape, filter_shape, cls.DEPTHWISE, attrs)

    @classmethod
    def output_spec(cls, input_shape, filter_shape, dtype, attrs) -> TensorSpec:
        win = cls.window(input_shape, filter_shape, attrs)
        return TensorSpec(shape_in_format(win.output_nhwc, attrs["data_format"]), dtype)

    @classmethod
    def check_backprop(cls, out_backprop, win: Window, attrs):
        """TensorFlow's check that out_backprop has the forward output's shape."""
        if out_backprop is None:
            return
        if len(out_backprop) != 4:
            raise InvalidArgumentError(
                f"{cls.name}: out_backprop must be 4-dimensional, got {fmt_shape(out_backprop)}", cls.name)
        want = shape_in_format(win.output_nhwc, attrs["data_format"])
        if not TensorSpec(out_backprop).is_compatible_with(want):
            raise InvalidArgumentError(
                f"{cls.name}: size of out_backprop doesn't match computed: actual = {fmt_shape(out_backprop)}, "
                f"computed = {fmt_shape(want)} (input {fmt_shape(win.input_nhwc)} NHWC, filter "
                f"{fmt_shape(win.filter_shape)})", cls.name)

    @classmethod
    def _dtype(cls, *specs):
        dtype = same_dtype(cls.name, *specs)
        if not (dtype.kind == "f" or dtype.name == "int32"):
            raise InvalidArgumentError(f"{cls.name}: input of dtype {dtype.name} is not supported", cls.name)
        return dtype


class _ConvForward(_Conv):
    input = operand_def()
    filter = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input, filter, **attrs):
        return cls.output_spec(input.shape, filter.shape, cls._dtype(input, filter), attrs)

    @classmethod
    def compute(cls, xp, input, filter, **attrs):
        win = cls.window(input.shape, filter.shape, attrs)
        return np_conv(input, filter, win, attrs["data_format"], cls.DEPTHWISE)

    @classmethod
    def lower(cls, input, filter, **attrs):
        win = cls.window(input.shape, filter.shape, attrs)
        return jax_conv(input, filter, win, attrs["data_format"], cls.DEPTHWISE)


class _ConvBackpropInput(_Conv):
    input_sizes = operand_def()
    filter = operand_def()
    out_backprop = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input_sizes, filter, out_backprop, **attrs):
        dtype = cls._dtype(filter, out_backprop)
        shape = sizes_operand(cls.name, "input_sizes", input_sizes)
        win = cls.window(shape, filter.shape, attrs)
        cls.check_backprop(out_backprop.shape, win, attrs)
        return TensorSpec(shape, dtype)

    @classmethod
    def compute(cls, xp, input_sizes, filter, out_backprop, **attrs):
        shape = sizes_operand(cls.name, "input_sizes", TensorSpec((4,), value=input_sizes))
        win = cls.window(shape, filter.shape, attrs)
        cls.check_backprop(out_backprop.shape, win, attrs)
        return np_conv_backprop_input(filter, out_backprop, win, attrs["data_format"], cls.DEPTHWISE)

    @classmethod
    def lower(cls, input_sizes, filter, out_backprop, **attrs):
        shape = static_sizes(cls.name, input_sizes)
        win = cls.window(shape, filter.shape, attrs)
        return jax_conv_backprop_input(shape, filter, out_backprop, win, attrs["data_format"], cls.DEPTHWISE)


class _ConvBackpropFilter(_Conv):
    input = operand_def()
    filter_sizes = operand_def()
    out_backprop = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input, filter_sizes, out_backprop, **attrs):
        dtype = cls._dtype(input, out_backprop)
        shape = sizes_operand(cls.name, "filter_sizes", filter_sizes)
        win = cls.window(input.shape, shape, attrs)
        cls.check_backprop(out_backprop.shape, win, attrs)
        return TensorSpec(shape, dtype)

    @classmethod
    def compute(cls, xp, input, filter_sizes, out_backprop, **attrs):
        shape = sizes_operand(cls.name, "filter_sizes", TensorSpec((4,), value=filter_sizes))
        win = cls.window(input.shape, shape, attrs)
        cls.check_backprop(out_backprop.shape, win, attrs)
        return np_conv_backprop_filter(input, out_backprop, win, attrs["data_format"], cls.DEPTHWISE)

    @classmethod
    def lower(cls, input, filter_sizes, out_backprop, **attrs):
        shape = static_sizes(cls.name, filter_sizes)
        win = cls.window(input.shape, shape, attrs)
        return jax_conv_backprop_filter(input, shape, out_backprop, win, attrs["data_format"], cls.DEPTHWISE)


def _conv_attrs(attrs, *keys):
    return {k: attrs[k] for k in keys if k in attrs}


_CONV2D_KEYS = ("strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu")
_DEPTHWISE_KEYS = ("strides", "padding", "explicit_paddings", "data_format", "dilations")


@register
class Conv2D(_ConvForward):
    """2-D cross-correlation of NHWC (or NCHW) input with an HWIO filter; groups when the filter has
    fewer input channels than the input (input channels = groups * filter in-channels)."""

    name = "tf.Conv2D"
    BATCHING: ClassVar[str] = "fold"
    use_cudnn_on_gpu = attr(True)
    ATTR_CONSTRAINTS: ClassVar[dict] = {"strides": v.i64_array(), "padding": v.PADDING_EXPLICIT,
                                        "explicit_paddings": v.i64_array(), "data_format": v.DATA_FORMAT,
                                        "dilations": v.i64_array()}

    def verify_ir(self):
        verify_conv(self, 2)

    @classmethod
    def kernel_for(cls, operands, constants, **attrs):  # (static plans: small convolutions in a loop body)
        (shape, dtype), (filter_shape, _) = operands
        if attrs["data_format"] != "NHWC":
            return None
        return small_conv_kernel(cls.window(shape, filter_shape, attrs), dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = conv(x, w): dx = conv_backprop_input(U, w), dw = conv_backprop_filter(x, U)
        x, w = op.inputs
        a = _conv_attrs(op.attrs, *_CONV2D_KEYS)
        return [Conv2DBackpropInput.bind(shape_tensor(x), w, dy, **a),
                Conv2DBackpropFilter.bind(x, shape_tensor(w), dy, **a)]


@register
class Conv2DBackpropInput(_ConvBackpropInput):
    """The gradient of Conv2D with respect to its input (also the transposed convolution)."""

    name = "tf.Conv2DBackpropInput"
    use_cudnn_on_gpu = attr(True)

    @staticmethod
    def grad(op, g):  # Given upstream grad U and y = conv_backprop_input(s, w, d): dw = backprop_filter(U, d), dd = conv(U, w)
        _, w, d = op.inputs
        a = _conv_attrs(op.attrs, *_CONV2D_KEYS)
        return [None, Conv2DBackpropFilter.bind(g, shape_tensor(w), d, **a), Conv2D.bind(g, w, **a)]


@register
class Conv2DBackpropFilter(_ConvBackpropFilter):
    """The gradient of Conv2D with respect to its filter."""

    name = "tf.Conv2DBackpropFilter"
    use_cudnn_on_gpu = attr(True)

    @staticmethod
    def grad(op, g):  # Given upstream grad U and y = conv_backprop_filter(x, s, d): dx = backprop_input(U, d), dd = conv(x, U)
        x, _, d = op.inputs
        a = _conv_attrs(op.attrs, *_CONV2D_KEYS)
        return [Conv2DBackpropInput.bind(shape_tensor(x), g, d, **a), None, Conv2D.bind(x, g, **a)]


@register
class DepthwiseConv2dNative(_ConvForward):
    """Each input channel convolved with its own ``multiplier`` filters: filter [H, W, C, M] gives C*M
    output channels, channel c*M + m from input channel c."""

    name = "tf.DepthwiseConv2dNative"
    BATCHING: ClassVar[str] = "fold"
    DEPTHWISE: ClassVar[bool] = True

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = dwconv(x, w): dx = dw_backprop_input(U, w), dw = dw_backprop_filter(x, U)
        x, w = op.inputs
        a = _conv_attrs(op.attrs, *_DEPTHWISE_KEYS)
        return [DepthwiseConv2dNativeBackpropInput.bind(shape_tensor(x), w, dy, **a),
                DepthwiseConv2dNativeBackpropFilter.bind(x, shape_tensor(w), dy, **a)]


@register
class DepthwiseConv2dNativeBackpropInput(_ConvBackpropInput):
    """The gradient of DepthwiseConv2dNative with respect to its input."""

    name = "tf.DepthwiseConv2dNativeBackpropInput"
    DEPTHWISE: ClassVar[bool] = True

    @staticmethod
    def grad(op, g):  # Given upstream grad U: dw = dw_backprop_filter(U, d), dd = dwconv(U, w)
        _, w, d = op.inputs
        a = _conv_attrs(op.attrs, *_DEPTHWISE_KEYS)
        return [None, DepthwiseConv2dNativeBackpropFilter.bind(g, shape_tensor(w), d, **a),
                DepthwiseConv2dNative.bind(g, w, **a)]


@register
class DepthwiseConv2dNativeBackpropFilter(_ConvBackpropFilter):
    """The gradient of DepthwiseConv2dNative with respect to its filter."""

    name = "tf.DepthwiseConv2dNativeBackpropFilter"
    DEPTHWISE: ClassVar[bool] = True

    @staticmethod
    def grad(op, g):  # Given upstream grad U: dx = dw_backprop_input(U, d), dd = dwconv(x, U)
        x, _, d = op.inputs
        a = _conv_attrs(op.attrs, *_DEPTHWISE_KEYS)
        return [DepthwiseConv2dNativeBackpropInput.bind(shape_tensor(x), g, d, **a), None,
                DepthwiseConv2dNative.bind(x, g, **a)]


# --- public functions (tf.nn) -------------------------------------------------------------------

def verify_conv(op, spatial: int) -> None:
    """TensorFlow's Conv2D / Conv3D verifier and its shape inference (``failed to infer returned types``)."""
    attrs, n = op.attr_values(), spatial + 2
    if not (v.has_rank(op.input, n) and v.has_rank(op.filter, n)):
        v.fail(f"requires operands to be {n}D tensor")
    pads = attrs.get("explicit_paddings", ())  # (Conv3D has no explicit paddings)
    if attrs["padding"] == "EXPLICIT":
        if not pads:
            v.fail("requires attribute 'explicit_paddings' with 'EXPLICIT' padding mode")
        if len(pads) != 2 * n:
            v.fail(f"requires explicit_paddings attribute length to be {2 * n}")
        if any(p < 0 for p in pads):
            v.fail("requires non negative explicit paddings")
    for what in ("strides", "dilations"):
        if len(attrs[what]) != n:
            v.fail(f"requires {what} attribute length to be {n}")
        if any(x <= 0 for x in attrs[what]):
            v.fail(f"requires positive {what}")
    channels_first = attrs["data_format"].startswith("NC")
    x, w = v.shape(op.input), v.shape(op.filter)
    in_channels = None if x is None else x[1 if channels_first else -1]
    if in_channels is not None and w is not None and w[-2] is not None and in_channels % w[-2]:
        v.fail("requires the number of input channels to be divisible by the number of filter input channels; "
               f"found {in_channels} and {w[-2]}, respectively")
    # InferTensorType: batch from the input, channels from the filter, spatial dims by TensorFlow's window rule
    out = [None] * n
    spatial_dims = range(2, n) if channels_first else range(1, n - 1)
    if x is not None:
        out[0] = x[0]
    if w is not None:
        out[1 if channels_first else -1] = w[-1]
    if x is not None and w is not None:
        for i, dim in enumerate(spatial_dims):
            if x[dim] is None or w[i] is None:
                continue
            stride, dilation = attrs["strides"][dim], attrs["dilations"][dim]
            size = (w[i] - 1) * dilation + 1
            if attrs["padding"] == "SAME":
                out[dim] = (x[dim] + stride - 1) // stride
            else:
                low, high = (pads[2 * dim], pads[2 * dim + 1]) if attrs["padding"] == "EXPLICIT" else (0, 0)
                out[dim] = (x[dim] + low + high - size + stride) // stride
                if out[dim] < 0:
                    v.fail("failed to infer returned types")
    v.check_inferred(op, [v.tensor_type(tuple(out), v.element(op.input))])


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    fmt = data_format or "NHWC"
    padding, explicit = padding_attrs(padding)
    return Conv2D.bind(input, filters, strides=window_attr(Conv2D.name, "strides", strides, fmt),
                       padding=padding, explicit_paddings=explicit, data_format=fmt,
                       dilations=window_attr(Conv2D.name, "dilations", dilations, fmt), use_cudnn_on_gpu=True)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None,
                     name=None):
    """The transposed convolution: Conv2DBackpropInput with ``input`` as out_backprop (filters HWOI)."""
    fmt = data_format or "NHWC"
    padding, explicit = padding_attrs(padding)
    if isinstance(output_shape, list | tuple | np.ndarray):
        output_shape = _ops.constant(np.asarray(output_shape, np.int32))
    return Conv2DBackpropInput.bind(output_shape, filters, input,
                                    strides=window_attr(Conv2DBackpropInput.name, "strides", strides, fmt),
                                    padding=padding, explicit_paddings=explicit, data_format=fmt,
                                    dilations=window_attr(Conv2DBackpropInput.name, "dilations", dilations, fmt),
                                    use_cudnn_on_gpu=True)


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):
    """Depthwise convolution; ``strides`` has 4 values, ``dilations`` (TF's rate) 1 or 2."""
    fmt = data_format or "NHWC"
    padding, explicit = padding_attrs(padding)
    op = DepthwiseConv2dNative.name
    return DepthwiseConv2dNative.bind(input, filter, strides=window_attr(op, "strides", strides, fmt),
                                      padding=padding, explicit_paddings=explicit, data_format=fmt,
                                      dilations=window_attr(op, "dilations", dilations, fmt))

