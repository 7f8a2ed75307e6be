"""Convolution and pooling: Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool and their gradient ops.

    %y = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [],
           padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}>
           : (tensor<2x12x12x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x12x12x8xf32>
    %p = "tf.MaxPool"(%y) <{data_format = "NHWC", explicit_paddings = [], ksize = [1, 2, 2, 1],
           padding = "VALID", strides = [1, 2, 2, 1]}> : (tensor<2x12x12x8xf32>) -> tensor<2x6x6x8xf32>

Filters are HWIO (depthwise: H, W, in channels, multiplier). The numpy kernels work in NHWC on
strided window views (``sliding_window_view``) contracted with one ``tensordot``: im2col without a
loop over pixels; NCHW transposes around them. The window arithmetic (``Window``), then
the numpy kernels and the JAX lowerings follow the op classes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import check_dtype, fmt_shape, same_dtype
from tinytf.ops.nn import _ops


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
        return _conv_window(cls.name, input_shape, filter_shape, cls.DEPTHWISE, attrs)

    @classmethod
    def output_spec(cls, input_shape, filter_shape, dtype, attrs) -> TensorSpec:
        win = cls.window(input_shape, filter_shape, attrs)
        return TensorSpec(_to_format(win.output_nhwc, attrs["data_format"]), dtype)

    @classmethod
    def check_backprop(cls, out_backprop, win: Window, attrs):
        """TensorFlow's check that out_backprop has the forward output's shape."""
        if out_backprop is None:
            return
        if len(out_backprop) != 4:
            raise InvalidArgumentError(
                f"{cls.name}: out_backprop must be 4-dimensional, got {fmt_shape(out_backprop)}", cls.name)
        want = _to_format(win.output_nhwc, attrs["data_format"])
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
        return _np_conv(input, filter, win, attrs["data_format"], cls.DEPTHWISE)

    @classmethod
    def lower(cls, input, filter, **attrs):
        win = cls.window(input.shape, filter.shape, attrs)
        return _jax_conv(input, filter, win, attrs["data_format"], cls.DEPTHWISE)


class _ConvBackpropInput(_Conv):
    input_sizes = operand_def()
    filter = operand_def()
    out_backprop = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input_sizes, filter, out_backprop, **attrs):
        dtype = cls._dtype(filter, out_backprop)
        shape = _sizes_operand(cls.name, "input_sizes", input_sizes)
        win = cls.window(shape, filter.shape, attrs)
        cls.check_backprop(out_backprop.shape, win, attrs)
        return TensorSpec(shape, dtype)

    @classmethod
    def compute(cls, xp, input_sizes, filter, out_backprop, **attrs):
        shape = _sizes_operand(cls.name, "input_sizes", TensorSpec((4,), value=input_sizes))
        win = cls.window(shape, filter.shape, attrs)
        cls.check_backprop(out_backprop.shape, win, attrs)
        return _np_conv_backprop_input(filter, out_backprop, win, attrs["data_format"], cls.DEPTHWISE)

    @classmethod
    def lower(cls, input_sizes, filter, out_backprop, **attrs):
        shape = _static_sizes(cls.name, input_sizes)
        win = cls.window(shape, filter.shape, attrs)
        return _jax_conv_backprop_input(shape, filter, out_backprop, win, attrs["data_format"], cls.DEPTHWISE)


class _ConvBackpropFilter(_Conv):
    input = operand_def()
    filter_sizes = operand_def()
    out_backprop = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input, filter_sizes, out_backprop, **attrs):
        dtype = cls._dtype(input, out_backprop)
        shape = _sizes_operand(cls.name, "filter_sizes", filter_sizes)
        win = cls.window(input.shape, shape, attrs)
        cls.check_backprop(out_backprop.shape, win, attrs)
        return TensorSpec(shape, dtype)

    @classmethod
    def compute(cls, xp, input, filter_sizes, out_backprop, **attrs):
        shape = _sizes_operand(cls.name, "filter_sizes", TensorSpec((4,), value=filter_sizes))
        win = cls.window(input.shape, shape, attrs)
        cls.check_backprop(out_backprop.shape, win, attrs)
        return _np_conv_backprop_filter(input, out_backprop, win, attrs["data_format"], cls.DEPTHWISE)

    @classmethod
    def lower(cls, input, filter_sizes, out_backprop, **attrs):
        shape = _static_sizes(cls.name, filter_sizes)
        win = cls.window(input.shape, shape, attrs)
        return _jax_conv_backprop_filter(input, shape, out_backprop, win, attrs["data_format"], cls.DEPTHWISE)


def _conv_attrs(attrs, *keys):
    return {k: attrs[k] for k in keys if k in attrs}


_CONV2D_KEYS = ("strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu")
_DEPTHWISE_KEYS = ("strides", "padding", "explicit_paddings", "data_format", "dilations")


@register
class Conv2D(_ConvForward):
    """2-D cross-correlation of NHWC (or NCHW) input with an HWIO filter; groups when the filter has
    fewer input channels than the input (input channels = groups * filter in-channels)."""

    name = "tf.Conv2D"
    use_cudnn_on_gpu = attr(True)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = conv(x, w): dx = conv_backprop_input(U, w), dw = conv_backprop_filter(x, U)
        x, w = op.inputs
        a = _conv_attrs(op.attrs, *_CONV2D_KEYS)
        return [Conv2DBackpropInput.bind(_shape_of(x), w, dy, **a), Conv2DBackpropFilter.bind(x, _shape_of(w), dy, **a)]


@register
class Conv2DBackpropInput(_ConvBackpropInput):
    """The gradient of Conv2D with respect to its input (also the transposed convolution)."""

    name = "tf.Conv2DBackpropInput"
    use_cudnn_on_gpu = attr(True)

    @staticmethod
    def grad(op, g):  # Given upstream grad U and y = conv_backprop_input(s, w, d): dw = backprop_filter(U, d), dd = conv(U, w)
        _, w, d = op.inputs
        a = _conv_attrs(op.attrs, *_CONV2D_KEYS)
        return [None, Conv2DBackpropFilter.bind(g, _shape_of(w), d, **a), Conv2D.bind(g, w, **a)]


@register
class Conv2DBackpropFilter(_ConvBackpropFilter):
    """The gradient of Conv2D with respect to its filter."""

    name = "tf.Conv2DBackpropFilter"
    use_cudnn_on_gpu = attr(True)

    @staticmethod
    def grad(op, g):  # Given upstream grad U and y = conv_backprop_filter(x, s, d): dx = backprop_input(U, d), dd = conv(x, U)
        x, _, d = op.inputs
        a = _conv_attrs(op.attrs, *_CONV2D_KEYS)
        return [Conv2DBackpropInput.bind(_shape_of(x), g, d, **a), None, Conv2D.bind(x, g, **a)]


@register
class DepthwiseConv2dNative(_ConvForward):
    """Each input channel convolved with its own ``multiplier`` filters: filter [H, W, C, M] gives C*M
    output channels, channel c*M + m from input channel c."""

    name = "tf.DepthwiseConv2dNative"
    DEPTHWISE: ClassVar[bool] = True

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = dwconv(x, w): dx = dw_backprop_input(U, w), dw = dw_backprop_filter(x, U)
        x, w = op.inputs
        a = _conv_attrs(op.attrs, *_DEPTHWISE_KEYS)
        return [DepthwiseConv2dNativeBackpropInput.bind(_shape_of(x), w, dy, **a),
                DepthwiseConv2dNativeBackpropFilter.bind(x, _shape_of(w), dy, **a)]


@register
class DepthwiseConv2dNativeBackpropInput(_ConvBackpropInput):
    """The gradient of DepthwiseConv2dNative with respect to its input."""

    name = "tf.DepthwiseConv2dNativeBackpropInput"
    DEPTHWISE: ClassVar[bool] = True

    @staticmethod
    def grad(op, g):  # Given upstream grad U: dw = dw_backprop_filter(U, d), dd = dwconv(U, w)
        _, w, d = op.inputs
        a = _conv_attrs(op.attrs, *_DEPTHWISE_KEYS)
        return [None, DepthwiseConv2dNativeBackpropFilter.bind(g, _shape_of(w), d, **a),
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
        return [DepthwiseConv2dNativeBackpropInput.bind(_shape_of(x), g, d, **a), None,
                DepthwiseConv2dNative.bind(x, g, **a)]


# --- pooling -----------------------------------------------------------------------------------

class _Pool(Op):
    ksize = attr(kind="ints")
    strides = attr(kind="ints")
    padding = attr(kind="str")
    data_format = attr("NHWC")
    traits = traits_def(Pure())
    KINDS: ClassVar[str] = "fiu"

    @classmethod
    def window(cls, input_shape, attrs) -> Window:
        return _pool_window(cls.name, input_shape, attrs, allow_explicit="explicit_paddings" in cls.__tf_attrs__)

    @classmethod
    def check_like(cls, what, shape, want, attrs):
        want = _to_format(want, attrs["data_format"])
        if shape is not None and not TensorSpec(shape).is_compatible_with(want):
            raise InvalidArgumentError(
                f"{cls.name}: {what} has shape {fmt_shape(shape)}, expected {fmt_shape(want)}", cls.name)


@register
class MaxPool(_Pool):
    """The maximum over each window; padding never wins (SAME pads with -inf)."""

    name = "tf.MaxPool"
    input = operand_def()
    output = result_def()
    explicit_paddings = attr((), kind="ints")

    @classmethod
    def infer(cls, input, **attrs):
        check_dtype(cls.name, input, cls.KINDS)
        return TensorSpec(_to_format(cls.window(input.shape, attrs).output_nhwc, attrs["data_format"]), input.dtype)

    @classmethod
    def compute(cls, xp, input, **attrs):
        return _np_max_pool(input, cls.window(input.shape, attrs), attrs["data_format"])

    @classmethod
    def lower(cls, input, **attrs):
        return _jax_max_pool(input, cls.window(input.shape, attrs), attrs["data_format"])

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = max_pool(x): dx = U routed to each window's (first) maximum
        return [MaxPoolGrad.bind(op.inputs[0], op.outputs[0], dy, **op.attrs)]


@register
class MaxPoolGrad(_Pool):
    """The gradient of MaxPool: each ``grad`` value added at its window's first maximum of orig_input."""

    name = "tf.MaxPoolGrad"
    orig_input = operand_def()
    orig_output = operand_def()
    grad = operand_def()
    output = result_def()
    explicit_paddings = attr((), kind="ints")

    @classmethod
    def infer(cls, orig_input, orig_output, grad, **attrs):
        dtype = check_dtype(cls.name, TensorSpec(None, same_dtype(cls.name, orig_input, orig_output, grad)), cls.KINDS)
        win = cls.window(orig_input.shape, attrs)
        cls.check_like("orig_output", orig_output.shape, win.output_nhwc, attrs)
        cls.check_like("grad", grad.shape, win.output_nhwc, attrs)
        return TensorSpec(orig_input.shape, dtype)

    @classmethod
    def compute(cls, xp, orig_input, orig_output, grad, **attrs):
        win = cls.window(orig_input.shape, attrs)
        cls.check_like("grad", grad.shape, win.output_nhwc, attrs)
        return _np_max_pool_grad(orig_input, grad, win, attrs["data_format"])

    @classmethod
    def lower(cls, orig_input, orig_output, grad, **attrs):
        return _jax_max_pool_grad(orig_input, grad, cls.window(orig_input.shape, attrs), attrs["data_format"])


@register
class MaxPoolGradGrad(_Pool):
    """The gradient of MaxPoolGrad: ``grad`` (shaped like orig_input) read at each window's maximum."""

    name = "tf.MaxPoolGradGrad"
    orig_input = operand_def()
    orig_output = operand_def()
    grad = operand_def()
    output = result_def()
    explicit_paddings = attr((), kind="ints")

    @classmethod
    def infer(cls, orig_input, orig_output, grad, **attrs):
        dtype = check_dtype(cls.name, TensorSpec(None, same_dtype(cls.name, orig_input, orig_output, grad)), cls.KINDS)
        win = cls.window(orig_input.shape, attrs)
        cls.check_like("grad", grad.shape, win.input_nhwc, attrs)
        return TensorSpec(_to_format(win.output_nhwc, attrs["data_format"]), dtype)

    @classmethod
    def compute(cls, xp, orig_input, orig_output, grad, **attrs):
        win = cls.window(orig_input.shape, attrs)
        cls.check_like("grad", grad.shape, win.input_nhwc, attrs)
        return _np_max_pool_grad_grad(orig_input, grad, win, attrs["data_format"])

    @classmethod
    def lower(cls, orig_input, orig_output, grad, **attrs):
        return _jax_max_pool_grad_grad(orig_input, grad, cls.window(orig_input.shape, attrs), attrs["data_format"])


@register
class AvgPool(_Pool):
    """The mean over each window, counting only real (not padded) elements."""

    name = "tf.AvgPool"
    value = operand_def()
    output = result_def()
    KINDS: ClassVar[str] = "f"

    @classmethod
    def infer(cls, value, **attrs):
        check_dtype(cls.name, value, cls.KINDS)
        return TensorSpec(_to_format(cls.window(value.shape, attrs).output_nhwc, attrs["data_format"]), value.dtype)

    @classmethod
    def compute(cls, xp, value, **attrs):
        return _np_avg_pool(value, cls.window(value.shape, attrs), attrs["data_format"])

    @classmethod
    def lower(cls, value, **attrs):
        return _jax_avg_pool(value, cls.window(value.shape, attrs), attrs["data_format"])

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = avg_pool(x): dx = U / count spread over each window
        return [AvgPoolGrad.bind(_shape_of(op.inputs[0]), dy, **op.attrs)]


@register
class AvgPoolGrad(_Pool):
    """The gradient of AvgPool: each ``grad`` value divided by its window's count, spread over the window."""

    name = "tf.AvgPoolGrad"
    orig_input_shape = operand_def()
    grad = operand_def()
    output = result_def()
    KINDS: ClassVar[str] = "f"

    @classmethod
    def infer(cls, orig_input_shape, grad, **attrs):
        check_dtype(cls.name, grad, cls.KINDS, "grad")
        shape = _sizes_operand(cls.name, "orig_input_shape", orig_input_shape)
        cls.check_like("grad", grad.shape, cls.window(shape, attrs).output_nhwc, attrs)
        return TensorSpec(shape, grad.dtype)

    @classmethod
    def compute(cls, xp, orig_input_shape, grad, **attrs):
        shape = _sizes_operand(cls.name, "orig_input_shape", TensorSpec((4,), value=orig_input_shape))
        win = cls.window(shape, attrs)
        cls.check_like("grad", grad.shape, win.output_nhwc, attrs)
        return _np_avg_pool_grad(grad, win, attrs["data_format"])

    @classmethod
    def lower(cls, orig_input_shape, grad, **attrs):
        shape = _static_sizes(cls.name, orig_input_shape)
        return _jax_avg_pool_grad(shape, grad, cls.window(shape, attrs), attrs["data_format"])



# These three ops name an operand ``grad``, as TensorFlow does (tt.raw_ops and the IR keep it); their
# gradient rules take the name once IRDL has recorded the operand, which stays op.operands[-1].

def _max_pool_grad_grad(op, g):  # Given upstream grad U: dgrad = U gathered at each window's maximum
    x, y, _ = op.inputs
    return [None, None, MaxPoolGradGrad.bind(x, y, g, **op.attrs)]


def _max_pool_grad_grad_grad(op, g):  # Given upstream grad U: dgrad = U scattered back to each window's maximum
    x, y, _ = op.inputs
    return [None, None, MaxPoolGrad.bind(x, y, g, **op.attrs)]


def _avg_pool_grad_grad(op, g):  # Given upstream grad U: dgrad = avg_pool(U)
    return [None, AvgPool.bind(g, **op.attrs)]


MaxPoolGrad.grad = staticmethod(_max_pool_grad_grad)
MaxPoolGradGrad.grad = staticmethod(_max_pool_grad_grad_grad)
AvgPoolGrad.grad = staticmethod(_avg_pool_grad_grad)


def _shape_of(x):
    """x's shape as an int32 tensor: a constant when static, else a tf.Shape op."""
    shape = getattr(x, "shape", None)
    dims = None if shape is None else getattr(shape, "dims", shape)
    if dims is not None and all(d is not None for d in tuple(dims)):
        return _ops.constant(np.asarray(tuple(int(d) for d in dims), np.int32))
    return _ops.shape(x, out_type="int32")


# --- window geometry (TensorFlow's GetWindowedOutputSize) --------------------------------------

@dataclass(frozen=True)
class Window:
    """One 2-D window op's geometry in NHWC terms; dims are None where a shape is unknown."""

    input_nhwc: tuple
    output_nhwc: tuple
    kernel: tuple            # (kh, kw)
    strides: tuple           # (sh, sw)
    dilations: tuple         # (dh, dw)
    pads: tuple              # ((top, bottom), (left, right))
    groups: int | None = 1   # input channels / filter input channels (C for depthwise)
    filter_shape: tuple | None = None
    op: str = ""             # the op's name, for errors raised while computing


def _to_format(shape_nhwc, data_format: str):
    if shape_nhwc is None or data_format == "NHWC":
        return shape_nhwc
    n, h, w, c = shape_nhwc
    return (n, c, h, w)


def _from_format(shape, data_format: str):
    if shape is None:
        return (None,) * 4
    return tuple(shape) if data_format == "NHWC" else (shape[0], shape[2], shape[3], shape[1])


def _check_format(name, data_format):
    if data_format not in ("NHWC", "NCHW"):
        raise InvalidArgumentError(f"{name}: invalid data format '{data_format}' (expected NHWC or NCHW)", name)


def _four(name, what, values, data_format, positive=True):
    """A 4-element attribute (strides, dilations, ksize) as its (h, w) pair; batch and depth must be 1."""
    values = tuple(values)
    if len(values) != 4:
        raise InvalidArgumentError(f"{name}: sliding window {what} field must specify 4 dimensions, got "
                                   f"{list(values)}", name)
    if positive and min(values) < 1:
        raise InvalidArgumentError(f"{name}: {what} must be positive, got {list(values)}", name)
    n, h, w, c = _from_format(values, data_format)
    if n != 1 or c != 1:
        raise InvalidArgumentError(f"{name}: {what} {list(values)} in the batch and depth dimensions must be 1 "
                                   f"({data_format})", name)
    return h, w


def _paddings(name, padding, explicit, data_format, allowed):
    """The explicit (top, bottom), (left, right) pairs, or None for SAME and VALID."""
    if padding not in allowed:
        raise InvalidArgumentError(f"{name}: invalid padding '{padding}' (expected one of {', '.join(allowed)})", name)
    explicit = tuple(explicit)
    if padding != "EXPLICIT":
        if explicit:
            raise InvalidArgumentError(f"{name}: explicit_paddings must be empty if padding is not EXPLICIT, got "
                                       f"{list(explicit)}", name)
        return None
    if len(explicit) != 8 or min(explicit) < 0:
        raise InvalidArgumentError(f"{name}: explicit_paddings must hold 8 non-negative values, got "
                                   f"{list(explicit)}", name)
    pairs = _from_format([explicit[i:i + 2] for i in range(0, 8, 2)], data_format)
    if any(pairs[0]) or any(pairs[3]):
        raise InvalidArgumentError(f"{name}: explicit_paddings {list(explicit)} must be 0 in the batch and depth "
                                   f"dimensions ({data_format})", name)
    return tuple(pairs[1]), tuple(pairs[2])


def _out_size(name, size, k, stride, dilation, padding, pair):
    """(output size, (pad_before, pad_after)) of one spatial dim."""
    if size is None or k is None:
        return None, (None, None) if pair is None else pair
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        need = max(0, (out - 1) * stride + eff - size)
        pair = (need // 2, need - need // 2)
    else:
        pair = pair or (0, 0)
        num = size + pair[0] + pair[1] - eff + stride
        out = num // stride if num >= 0 else -(-num // stride)  # C++ division truncates toward zero
    if out < 0:
        raise InvalidArgumentError(f"{name}: Computed output size would be negative: {out} [input_size: {size}, "
                                   f"effective_filter_size: {eff}, stride: {stride}]", name)
    return out, pair


def _rank4(name, what, shape):
    if shape is not None and len(shape) != 4:
        raise InvalidArgumentError(f"{name}: {what} must be 4-dimensional, got shape {fmt_shape(shape)}", name)


def _conv_window(name, input_shape, filter_shape, depthwise: bool, attrs) -> Window:
    fmt = attrs["data_format"]
    _check_format(name, fmt)
    strides = _four(name, "strides", attrs["strides"], fmt)
    dilations = _four(name, "dilations", attrs["dilations"], fmt)
    explicit = _paddings(name, attrs["padding"], attrs["explicit_paddings"], fmt, ("SAME", "VALID", "EXPLICIT"))
    _rank4(name, "input", input_shape)
    _rank4(name, "filter", filter_shape)
    n, h, w, c = _from_format(input_shape, fmt)
    kh, kw, fi, fo = filter_shape if filter_shape is not None else (None,) * 4
    if filter_shape is not None and None not in filter_shape and 0 in filter_shape:
        raise InvalidArgumentError(f"{name}: filter must not have zero elements (i.e. all dimensions must be "
                                   f"non-zero), got {fmt_shape(filter_shape)}", name)
    groups, out_c = None, None
    if depthwise:
        if c is not None and fi is not None and c != fi:
            raise InvalidArgumentError(f"{name}: input and filter must have the same depth: {c} vs {fi} (input "
                                       f"{fmt_shape(input_shape)}, filter {fmt_shape(filter_shape)})", name)
        groups = c if c is not None else fi
        out_c = None if fi is None or fo is None else fi * fo
    else:
        if c is not None and fi is not None:
            if c % fi or c == 0:
                raise InvalidArgumentError(f"{name}: input depth must be evenly divisible by filter depth: {c} vs "
                                           f"{fi} (input {fmt_shape(input_shape)}, filter {fmt_shape(filter_shape)})",
                                           name)
            groups = c // fi
            if fo is not None and fo % groups:
                raise InvalidArgumentError(f"{name}: output depth {fo} must be divisible by the number of groups "
                                           f"{groups} (filter {fmt_shape(filter_shape)})", name)
        out_c = fo
    oh, ph = _out_size(name, h, kh, strides[0], dilations[0], attrs["padding"], explicit and explicit[0])
    ow, pw = _out_size(name, w, kw, strides[1], dilations[1], attrs["padding"], explicit and explicit[1])
    return Window((n, h, w, c), (n, oh, ow, out_c), (kh, kw), strides, dilations, (ph, pw), groups,
                  None if filter_shape is None else tuple(filter_shape), name)


def _pool_window(name, input_shape, attrs, allow_explicit: bool) -> Window:
    fmt = attrs["data_format"]
    _check_format(name, fmt)
    ksize = tuple(attrs["ksize"])
    if len(ksize) == 4 and min(ksize) >= 1 and _from_format(ksize, fmt)[3] != 1 and _from_format(ksize, fmt)[0] == 1:
        raise UnimplementedError(f"{name}: pooling over the depth dimension (ksize {list(ksize)}) is not supported",
                                 name)
    kernel = _four(name, "ksize", ksize, fmt)
    strides = _four(name, "strides", attrs["strides"], fmt)
    allowed = ("SAME", "VALID", "EXPLICIT") if allow_explicit else ("SAME", "VALID")
    explicit = _paddings(name, attrs["padding"], attrs.get("explicit_paddings", ()), fmt, allowed)
    for k, pair, sides in zip(kernel, explicit or (), (("Top", "Bottom"), ("Left", "Right"))):
        for side, pad in zip(sides, pair):
            if pad >= k:  # a window of padding only would have no maximum
                raise InvalidArgumentError(f"{name}: {side} padding {pad} needs to be smaller than the window size {k}",
                                           name)
    _rank4(name, "input", input_shape)
    n, h, w, c = _from_format(input_shape, fmt)
    oh, ph = _out_size(name, h, kernel[0], strides[0], 1, attrs["padding"], explicit and explicit[0])
    ow, pw = _out_size(name, w, kernel[1], strides[1], 1, attrs["padding"], explicit and explicit[1])
    return Window((n, h, w, c), (n, oh, ow, c), kernel, strides, (1, 1), (ph, pw), op=name)


def _sizes_operand(name, what, spec) -> tuple | None:
    """The shape held by a 1-D int sizes operand (input_sizes, filter_sizes): its value when known."""
    if spec.value is None:
        if spec.shape is not None and spec.shape not in ((4,), (None,)):
            raise InvalidArgumentError(f"{name}: {what} must be 1-D with 4 elements, got shape "
                                       f"{fmt_shape(spec.shape)}", name)
        return (None,) * 4
    value = np.asarray(spec.value)
    if value.dtype.kind not in "iu" or value.shape != (4,) or (value < 0).any():
        raise InvalidArgumentError(f"{name}: {what} must be 1-D with 4 non-negative integers, got "
                                   f"{value.tolist()!r} of shape {fmt_shape(value.shape)}", name)
    return tuple(int(v) for v in value)


# --- numpy kernels (NHWC inside; windows are strided views, contracted by tensordot) -----------

def _nhwc(x, data_format):
    return x if data_format == "NHWC" else x.transpose(0, 2, 3, 1)


def _to(y, data_format):
    return y if data_format == "NHWC" else y.transpose(0, 3, 1, 2)


def _acc(x):
    """Half-precision inputs accumulate in float32, as TensorFlow's CPU kernels do."""
    return x.astype(np.float32) if x.dtype.kind == "f" and x.dtype.itemsize < 4 else x


def _guard(win: Window, shape, dtype):
    """ResourceExhaustedError before allocating a buffer over tinytf's allocation limit."""
    check_allocation(win.op, shape, dtype)


def _pad(x, pads, value=0, win: Window | None = None):
    (t, b), (lft, r) = pads
    if not (t or b or lft or r):
        return x
    if win is not None:
        _guard(win, (x.shape[0], x.shape[1] + t + b, x.shape[2] + lft + r, x.shape[3]), x.dtype)
    return np.pad(x, ((0, 0), (t, b), (lft, r), (0, 0)), constant_values=value)


def _patches(x_padded, win: Window):
    """[N, OH, OW, C, KH, KW]: every window of the padded NHWC input, as a view (no copy)."""
    (kh, kw), (sh, sw), (dh, dw) = win.kernel, win.strides, win.dilations
    _, oh, ow, _ = win.output_nhwc
    _guard(win, (x_padded.shape[0], oh, ow, x_padded.shape[3], kh, kw), x_padded.dtype)  # an im2col copy's size
    view = sliding_window_view(x_padded, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(1, 2))
    return view[:, ::sh, ::sw, :, ::dh, ::dw][:, :oh, :ow]


def _hwio(w, depthwise):
    """The filter as HWIO; a depthwise [H, W, C, M] filter is a grouped [H, W, 1, C*M] one."""
    kh, kw, a, b = w.shape
    return w.reshape(kh, kw, 1, a * b) if depthwise else w


def _empty(shape):
    return 0 in shape


def _zeros(win: Window, shape, dtype, data_format=None):
    _guard(win, shape, dtype)
    out = np.zeros(shape, dtype)
    return out if data_format is None else _to(out, data_format)


def _scatter_windows(cols, win: Window, dtype):
    """The adjoint of ``_patches``: add cols [N, OH, OW, KH, KW, C] back into the (cropped) input."""
    n, h, w, c = win.input_nhwc
    (t, b), (lft, r) = win.pads
    (kh, kw), (sh, sw), (dh, dw) = win.kernel, win.strides, win.dilations
    _, oh, ow, _ = win.output_nhwc
    _guard(win, (n, h + t + b, w + lft + r, c), dtype)
    out = np.zeros((n, h + t + b, w + lft + r, c), dtype)
    for i in range(kh):  # a loop over the window's offsets, not over pixels
        for j in range(kw):
            out[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw, :] += cols[:, :, :, i, j]
    return out[:, t:t + h, lft:lft + w, :]


def _np_conv(x, w, win: Window, data_format, depthwise):
    dtype = x.dtype
    x, w = _acc(_nhwc(x, data_format)), _acc(_hwio(w, depthwise))
    if _empty(win.output_nhwc) or _empty(x.shape):
        return _zeros(win, win.output_nhwc, dtype, data_format)
    p = _patches(_pad(x, win.pads, 0, win=win), win)
    kh, kw, fi, fo = w.shape
    g = win.groups
    if g == 1:
        out = np.tensordot(p, w, axes=([3, 4, 5], [2, 0, 1]))
    elif fi == 1:  # depthwise: one input channel per group
        out = np.einsum("nhwgij,ijgo->nhwgo", p, w.reshape(kh, kw, g, fo // g)).reshape(win.output_nhwc)
    else:
        og = fo // g
        out = np.concatenate([np.tensordot(p[:, :, :, k * fi:(k + 1) * fi], w[..., k * og:(k + 1) * og],
                                           axes=([3, 4, 5], [2, 0, 1])) for k in range(g)], axis=-1)
    return _to(out.astype(dtype, copy=False), data_format)


def _np_conv_backprop_input(w, dy, win: Window, data_format, depthwise):
    dtype = dy.dtype
    dy, w = _acc(_nhwc(dy, data_format)), _acc(_hwio(w, depthwise))
    if _empty(win.input_nhwc) or _empty(dy.shape):
        return _zeros(win, win.input_nhwc, dtype, data_format)
    kh, kw, fi, fo = w.shape
    n, oh, ow, _ = dy.shape
    g = win.groups
    if g == 1:
        cols = np.tensordot(dy, w, axes=([3], [3]))  # [N, OH, OW, KH, KW, C]
    else:
        cols = np.einsum("nhwgo,ijcgo->nhwijgc", dy.reshape(n, oh, ow, g, fo // g),
                         w.reshape(kh, kw, fi, g, fo // g), optimize=True).reshape(n, oh, ow, kh, kw, g * fi)
    return _to(_scatter_windows(cols, win, cols.dtype).astype(dtype, copy=False), data_format)


def _np_conv_backprop_filter(x, dy, win: Window, data_format, depthwise):
    dtype = x.dtype
    x, dy = _acc(_nhwc(x, data_format)), _acc(_nhwc(dy, data_format))
    kh, kw, a, b = win.filter_shape
    fi, fo = (1, a * b) if depthwise else (a, b)
    if _empty(win.output_nhwc) or _empty(x.shape):
        return _zeros(win, win.filter_shape, dtype)
    p = _patches(_pad(x, win.pads, 0, win=win), win)
    n, oh, ow, _ = dy.shape
    g = win.groups
    if g == 1:
        dw = np.tensordot(p, dy, axes=([0, 1, 2], [0, 1, 2])).transpose(1, 2, 0, 3)
    else:
        dw = np.einsum("nhwgcij,nhwgo->ijcgo", p.reshape(n, oh, ow, g, fi, kh, kw),
                       dy.reshape(n, oh, ow, g, fo // g), optimize=True).reshape(kh, kw, fi, fo)
    return dw.reshape(win.filter_shape).astype(dtype, copy=False)


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _np_max_pool(x, win: Window, data_format):
    x = _nhwc(x, data_format)
    if _empty(win.output_nhwc):
        return _zeros(win, win.output_nhwc, x.dtype, data_format)
    return _to(_patches(_pad(x, win.pads, _lowest(x.dtype), win=win), win).max(axis=(4, 5)), data_format)


def _argmax(x, win: Window):
    """[N, OH, OW, C]: the flat (kh, kw) offset of each window's first maximum."""
    p = _patches(_pad(x, win.pads, _lowest(x.dtype), win=win), win)
    return p.reshape(p.shape[:4] + (-1,)).argmax(axis=-1)


def _np_max_pool_grad(x, g, win: Window, data_format):
    x, g = _nhwc(x, data_format), _nhwc(g, data_format)
    if _empty(win.output_nhwc) or _empty(x.shape):
        return _zeros(win, win.input_nhwc, g.dtype, data_format)
    arg = _argmax(x, win)
    kh, kw = win.kernel
    zero = np.zeros((), g.dtype)
    cols = np.stack([np.where(arg == k, g, zero) for k in range(kh * kw)], axis=3)
    return _to(_scatter_windows(cols.reshape(arg.shape[:3] + (kh, kw, -1)), win, g.dtype), data_format)


def _np_max_pool_grad_grad(x, gg, win: Window, data_format):
    x, gg = _nhwc(x, data_format), _nhwc(gg, data_format)
    if _empty(win.output_nhwc):
        return _zeros(win, win.output_nhwc, gg.dtype, data_format)
    p = _patches(_pad(gg, win.pads, 0, win=win), win)
    picked = np.take_along_axis(p.reshape(p.shape[:4] + (-1,)), _argmax(x, win)[..., None], axis=-1)
    return _to(picked[..., 0], data_format)


def _counts(win: Window):
    """[1, OH, OW, 1]: how many real (unpadded) elements each pooling window covers."""
    per_dim = []
    for size, k, s, (before, _), out in zip(win.input_nhwc[1:3], win.kernel, win.strides, win.pads,
                                            win.output_nhwc[1:3]):
        start = np.arange(out) * s - before
        per_dim.append(np.minimum(start + k, size) - np.maximum(start, 0))
    return np.multiply.outer(per_dim[0], per_dim[1])[None, :, :, None]


def _np_avg_pool(x, win: Window, data_format):
    dtype = x.dtype
    x = _acc(_nhwc(x, data_format))
    if _empty(win.output_nhwc):
        return _zeros(win, win.output_nhwc, dtype, data_format)
    total = _patches(_pad(x, win.pads, 0, win=win), win).sum(axis=(4, 5))
    return _to((total / _counts(win).astype(x.dtype)).astype(dtype, copy=False), data_format)


def _np_avg_pool_grad(g, win: Window, data_format):
    dtype = g.dtype
    g = _acc(_nhwc(g, data_format))
    if _empty(win.output_nhwc) or _empty(win.input_nhwc):
        return _zeros(win, win.input_nhwc, dtype, data_format)
    share = g / _counts(win).astype(g.dtype)
    kh, kw = win.kernel
    cols = np.broadcast_to(share[:, :, :, None, None, :], share.shape[:3] + (kh, kw, share.shape[3]))
    return _to(_scatter_windows(cols, win, g.dtype).astype(dtype, copy=False), data_format)


# --- XLA lowerings (jax.lax), imported only when XLA runs ---------------------------------------

def _static_sizes(name, value) -> tuple:
    """A sizes operand under XLA: it must be a compile-time constant."""
    try:
        return _sizes_operand(name, "sizes", TensorSpec((4,), value=np.asarray(value)))
    except InvalidArgumentError:
        raise
    except Exception:  # a traced value: XLA needs static shapes
        raise InvalidArgumentError(f"{name}: the sizes operand must be a constant under XLA", name) from None


def _spatial_pairs(win: Window, data_format):
    pairs = [(0, 0), win.pads[0], win.pads[1], (0, 0)]
    return _to_format(tuple(pairs), data_format)


def _jax_conv(x, w, win: Window, data_format, depthwise):
    from jax import lax

    return lax.conv_general_dilated(
        x, _hwio(w, depthwise), window_strides=win.strides, padding=list(win.pads), rhs_dilation=win.dilations,
        dimension_numbers=(data_format, "HWIO", data_format), feature_group_count=win.groups,
        precision=lax.Precision.HIGHEST)


def _jax_conv_backprop_input(shape, w, dy, win: Window, data_format, depthwise):
    import jax
    import jax.numpy as jnp

    _, vjp = jax.vjp(lambda x: _jax_conv(x, w, win, data_format, depthwise), jnp.zeros(shape, dy.dtype))
    return vjp(dy)[0]


def _jax_conv_backprop_filter(x, shape, dy, win: Window, data_format, depthwise):
    import jax
    import jax.numpy as jnp

    _, vjp = jax.vjp(lambda w: _jax_conv(x, w, win, data_format, depthwise), jnp.zeros(shape, dy.dtype))
    return vjp(dy)[0]


def _jax_max_pool(x, win: Window, data_format):
    from jax import lax

    dims = _to_format((1,) + win.kernel + (1,), data_format)
    strides = _to_format((1,) + win.strides + (1,), data_format)
    init = np.asarray(_lowest(np.dtype(x.dtype)), x.dtype)
    return lax.reduce_window(x, init, lax.max, dims, strides, _spatial_pairs(win, data_format))


def _jax_max_pool_grad(x, g, win: Window, data_format):
    import jax

    _, vjp = jax.vjp(lambda v: _jax_max_pool(v, win, data_format), x)
    return vjp(g)[0]


def _jax_max_pool_grad_grad(x, gg, win: Window, data_format):
    import jax

    return jax.jvp(lambda v: _jax_max_pool(v, win, data_format), (x,), (gg,))[1]


def _jax_avg_pool(x, win: Window, data_format):
    from jax import lax

    dims = _to_format((1,) + win.kernel + (1,), data_format)
    strides = _to_format((1,) + win.strides + (1,), data_format)
    total = lax.reduce_window(x, np.asarray(0, x.dtype), lax.add, dims, strides, _spatial_pairs(win, data_format))
    return total / _to(_counts(win), data_format).astype(x.dtype)


def _jax_avg_pool_grad(shape, g, win: Window, data_format):
    import jax
    import jax.numpy as jnp

    _, vjp = jax.vjp(lambda v: _jax_avg_pool(v, win, data_format), jnp.zeros(shape, g.dtype))
    return vjp(g)[0]


# --- public functions (tf.nn) -------------------------------------------------------------------

def _four_attr(name, what, value, data_format, default=1):
    """TensorFlow's int-or-list window attribute (1, 2 or 4 values) as the 4-element list."""
    if value is None:
        value = default
    values = [int(value)] if isinstance(value, int | np.integer) else [int(v) for v in value]
    if len(values) == 1:
        values = values * 2
    if len(values) == 2:
        return list(_to_format((1, values[0], values[1], 1), data_format or "NHWC"))
    if len(values) == 4:
        return values
    raise InvalidArgumentError(f"{name}: {what} must be an int or a list of 1, 2 or 4 ints, got {value!r}", name)


def _padding_attrs(padding):
    """A padding string, or explicit [[before, after]] * 4 pairs as (EXPLICIT, flat list)."""
    if isinstance(padding, str):
        return padding.upper(), []
    return "EXPLICIT", [int(v) for pair in padding for v in pair]


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    fmt = data_format or "NHWC"
    padding, explicit = _padding_attrs(padding)
    return Conv2D.bind(input, filters, strides=_four_attr(Conv2D.name, "strides", strides, fmt),
                       padding=padding, explicit_paddings=explicit, data_format=fmt,
                       dilations=_four_attr(Conv2D.name, "dilations", dilations, fmt), use_cudnn_on_gpu=True)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None,
                     name=None):
    """The transposed convolution: Conv2DBackpropInput with ``input`` as out_backprop (filters HWOI)."""
    fmt = data_format or "NHWC"
    padding, explicit = _padding_attrs(padding)
    if isinstance(output_shape, list | tuple | np.ndarray):
        output_shape = _ops.constant(np.asarray(output_shape, np.int32))
    return Conv2DBackpropInput.bind(output_shape, filters, input,
                                    strides=_four_attr(Conv2DBackpropInput.name, "strides", strides, fmt),
                                    padding=padding, explicit_paddings=explicit, data_format=fmt,
                                    dilations=_four_attr(Conv2DBackpropInput.name, "dilations", dilations, fmt),
                                    use_cudnn_on_gpu=True)


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):
    """Depthwise convolution; ``strides`` has 4 values, ``dilations`` (TF's rate) 1 or 2."""
    fmt = data_format or "NHWC"
    padding, explicit = _padding_attrs(padding)
    op = DepthwiseConv2dNative.name
    return DepthwiseConv2dNative.bind(input, filter, strides=_four_attr(op, "strides", strides, fmt),
                                      padding=padding, explicit_paddings=explicit, data_format=fmt,
                                      dilations=_four_attr(op, "dilations", dilations, fmt))


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    fmt = data_format or "NHWC"
    padding, explicit = _padding_attrs(padding)
    return MaxPool.bind(input, ksize=_four_attr(MaxPool.name, "ksize", ksize, fmt),
                        strides=_four_attr(MaxPool.name, "strides", strides, fmt), padding=padding,
                        explicit_paddings=explicit, data_format=fmt)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    fmt = data_format or "NHWC"
    return AvgPool.bind(input, ksize=_four_attr(AvgPool.name, "ksize", ksize, fmt),
                        strides=_four_attr(AvgPool.name, "strides", strides, fmt), padding=padding,
                        data_format=fmt)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    return max_pool2d(input, ksize, strides, padding, data_format or "NHWC")


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    return avg_pool2d(input, ksize, strides, padding, data_format or "NHWC")
