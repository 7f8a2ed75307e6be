"""3-D convolution: Conv3D, its backprop ops Conv3DBackpropInputV2 / Conv3DBackpropFilterV2, and
tf.nn.conv3d / conv3d_transpose.

    %y = "tf.Conv3D"(%x, %w) <{data_format = "NDHWC", dilations = [1, 1, 1, 1, 1], padding = "SAME",
           strides = [1, 1, 1, 1, 1]}> : (tensor<2x8x8x8x3xf32>, tensor<3x3x3x3x16xf32>) -> tensor<2x8x8x8x16xf32>

Filters are [D, H, W, in channels, out channels]. The kernels (numpy and XLA) are in
nn_window_nd_kernels.py; NCDHW tensors are moved to NDHWC and back around them.
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
from tinytf.ops.conv import verify_conv
from tinytf.ops.nn_window_nd_kernels import (
    jax_conv,
    jax_conv_backprop_filter,
    jax_conv_backprop_input,
    nd_window,
    np_conv,
    np_conv_backprop_filter,
    np_conv_backprop_input,
)
from tinytf.ops.op_functions import shape_tensor
from tinytf.ops.tensor_inputs import as_tensor

__all__ = ["conv3d", "conv3d_transpose"]
__namespaces__ = {"conv3d": ("nn",), "conv3d_transpose": ("nn",)}

_TO_LAST, _TO_FIRST = (0, 2, 3, 4, 1), (0, 4, 1, 2, 3)


def channels_last(shape, data_format):
    if shape is None or data_format == "NDHWC":
        return shape
    return tuple(shape[i] for i in _TO_LAST)


def in_format(shape, data_format):
    if shape is None or data_format == "NDHWC":
        return shape
    return tuple(shape[i] for i in _TO_FIRST)


def _sizes(name, what, value) -> tuple:
    """A 5-element sizes operand's value (input_sizes, filter_sizes); None dims when it is unknown."""
    if value is None:
        return (None,) * 5
    try:
        value = np.asarray(value)
    except Exception:  # a traced value under XLA
        raise InvalidArgumentError(f"{name}: {what} must be a constant under XLA", name) from None
    if value.dtype.kind not in "iu" or value.shape != (5,) or (value < 0).any():
        raise InvalidArgumentError(f"{name}: {what} must be 1-D with 5 non-negative integers, got {value.tolist()!r}",
                                   name)
    return tuple(int(d) for d in value)


class _Conv3DBase(Op):
    strides = attr(kind="ints")
    padding = attr(kind="str")
    data_format = attr("NDHWC")
    dilations = attr((1, 1, 1, 1, 1))
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"strides": v.i64_array(5), "padding": v.PADDING,
                                        "data_format": v.one_of("NDHWC", "NCDHW"), "dilations": v.i64_array(5)}

    @classmethod
    def geometry(cls, input_shape, filter_shape, attrs):
        fmt = attrs["data_format"]
        if fmt not in ("NDHWC", "NCDHW"):
            raise InvalidArgumentError(f"{cls.name}: data_format must be NDHWC or NCDHW, got {fmt!r}", cls.name)
        for what in ("strides", "dilations"):
            values = list(attrs[what])
            if len(values) != 5:
                raise InvalidArgumentError(f"{cls.name}: {what} must have 5 values, got {values}", cls.name)
            batch_and_channel = channels_last(values, fmt)
            if batch_and_channel[0] != 1 or batch_and_channel[-1] != 1:
                raise InvalidArgumentError(f"{cls.name}: {what} in the batch and depth dimensions must be 1, got "
                                           f"{values}", cls.name)
        if filter_shape is None:
            filter_shape = (None,) * 5
        if len(filter_shape) != 5:
            raise InvalidArgumentError(f"{cls.name}: filter must be 5-dimensional, got {fmt_shape(filter_shape)}",
                                       cls.name)
        x = channels_last(input_shape, fmt)
        if x is not None and x[-1] is not None and filter_shape[3] is not None and x[-1] != filter_shape[3]:
            raise InvalidArgumentError(
                f"{cls.name}: input depth must equal filter in-depth: {x[-1]} vs {filter_shape[3]} (input "
                f"{fmt_shape(input_shape)} {fmt}, filter {fmt_shape(filter_shape)})", cls.name)
        return nd_window(cls.name, x, filter_shape[:3], channels_last(attrs["strides"], fmt)[1:-1],
                         channels_last(attrs["dilations"], fmt)[1:-1], attrs["padding"], out_channels=filter_shape[4])

    @classmethod
    def check_backprop(cls, out_backprop, win, fmt):
        want = in_format(win.output_shape, fmt)
        if out_backprop is not None and not TensorSpec(out_backprop).is_compatible_with(want):
            raise InvalidArgumentError(
                f"{cls.name}: out_backprop {fmt_shape(out_backprop)} does not match the forward output "
                f"{fmt_shape(want)} (input {fmt_shape(win.input_shape)} NDHWC)", cls.name)

    @classmethod
    def dtype(cls, *specs):
        dtype = same_dtype(cls.name, *specs)
        if dtype.kind != "f":
            raise InvalidArgumentError(f"{cls.name}: dtype {dtype.name} is not supported", cls.name)
        return dtype

    @staticmethod
    def to_last(xp, x, fmt):
        return x if fmt == "NDHWC" else xp.transpose(x, _TO_LAST)

    @staticmethod
    def to_format(xp, x, fmt):
        return x if fmt == "NDHWC" else xp.transpose(x, _TO_FIRST)


@register
class Conv3D(_Conv3DBase):
    """3-D cross-correlation of NDHWC (or NCDHW) input with a [D, H, W, C, O] filter."""

    name = "tf.Conv3D"
    input = operand_def()
    filter = operand_def()
    output = result_def()

    def verify_ir(self):
        verify_conv(self, 3)

    @classmethod
    def infer(cls, input, filter, **attrs):
        win = cls.geometry(input.shape, filter.shape, attrs)
        return TensorSpec(in_format(win.output_shape, attrs["data_format"]), cls.dtype(input, filter))

    @classmethod
    def compute(cls, xp, input, filter, **attrs):
        fmt = attrs["data_format"]
        win = cls.geometry(input.shape, filter.shape, attrs)
        x = cls.to_last(np, input, fmt)
        return cls.to_format(np, np_conv(x, filter, win), fmt)

    @classmethod
    def lower(cls, input, filter, **attrs):
        import jax.numpy as jnp

        fmt = attrs["data_format"]
        win = cls.geometry(input.shape, filter.shape, attrs)
        return cls.to_format(jnp, jax_conv(cls.to_last(jnp, input, fmt), filter, win), fmt)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = conv3d(x, w): dx = backprop_input(U, w), dw = backprop_filter(x, U)
        x, w = op.inputs
        return [Conv3DBackpropInputV2.bind(shape_tensor(x), w, dy, **op.attrs),
                Conv3DBackpropFilterV2.bind(x, shape_tensor(w), dy, **op.attrs)]


@register
class Conv3DBackpropInputV2(_Conv3DBase):
    """The gradient of Conv3D with respect to its input (also the transposed 3-D convolution)."""

    name = "tf.Conv3DBackpropInputV2"
    input_sizes = operand_def()
    filter = operand_def()
    out_backprop = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input_sizes, filter, out_backprop, **attrs):
        dtype = cls.dtype(filter, out_backprop)
        shape = _sizes(cls.name, "input_sizes", input_sizes.value)
        if input_sizes.value is not None:
            cls.check_backprop(out_backprop.shape, cls.geometry(shape, filter.shape, attrs), attrs["data_format"])
        return TensorSpec(shape, dtype)

    @classmethod
    def compute(cls, xp, input_sizes, filter, out_backprop, **attrs):
        fmt = attrs["data_format"]
        win = cls.geometry(_sizes(cls.name, "input_sizes", input_sizes), filter.shape, attrs)
        cls.check_backprop(out_backprop.shape, win, fmt)
        return cls.to_format(np, np_conv_backprop_input(filter, cls.to_last(np, out_backprop, fmt), win), fmt)

    @classmethod
    def lower(cls, input_sizes, filter, out_backprop, **attrs):
        import jax.numpy as jnp

        fmt = attrs["data_format"]
        win = cls.geometry(_sizes(cls.name, "input_sizes", input_sizes), filter.shape, attrs)
        return cls.to_format(jnp, jax_conv_backprop_input(filter, cls.to_last(jnp, out_backprop, fmt), win), fmt)

    @staticmethod
    def grad(op, g):  # Given upstream grad U: dw = backprop_filter(U, d), dd = conv3d(U, w)
        _, w, d = op.inputs
        return [None, Conv3DBackpropFilterV2.bind(g, shape_tensor(w), d, **op.attrs), Conv3D.bind(g, w, **op.attrs)]


@register
class Conv3DBackpropFilterV2(_Conv3DBase):
    """The gradient of Conv3D with respect to its filter."""

    name = "tf.Conv3DBackpropFilterV2"
    input = operand_def()
    filter_sizes = operand_def()
    out_backprop = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input, filter_sizes, out_backprop, **attrs):
        dtype = cls.dtype(input, out_backprop)
        shape = _sizes(cls.name, "filter_sizes", filter_sizes.value)
        cls.check_backprop(out_backprop.shape, cls.geometry(input.shape, shape, attrs), attrs["data_format"])
        return TensorSpec(shape, dtype)

    @classmethod
    def compute(cls, xp, input, filter_sizes, out_backprop, **attrs):
        fmt = attrs["data_format"]
        shape = _sizes(cls.name, "filter_sizes", filter_sizes)
        win = cls.geometry(input.shape, shape, attrs)
        cls.check_backprop(out_backprop.shape, win, fmt)
        return np_conv_backprop_filter(cls.to_last(np, input, fmt), cls.to_last(np, out_backprop, fmt), win, shape)

    @classmethod
    def lower(cls, input, filter_sizes, out_backprop, **attrs):
        import jax.numpy as jnp

        fmt = attrs["data_format"]
        shape = _sizes(cls.name, "filter_sizes", filter_sizes)
        win = cls.geometry(input.shape, shape, attrs)
        return jax_conv_backprop_filter(cls.to_last(jnp, input, fmt), cls.to_last(jnp, out_backprop, fmt), win, shape)

    @staticmethod
    def grad(op, g):  # Given upstream grad U: dx = backprop_input(U, d), dd = conv3d(x, U)
        x, _, d = op.inputs
        return [Conv3DBackpropInputV2.bind(shape_tensor(x), g, d, **op.attrs), None, Conv3D.bind(x, g, **op.attrs)]


def _five(name, what, value, fmt):
    """An int or a list of 1, 3 or 5 values as the 5-element attribute."""
    values = [int(value)] if isinstance(value, int | np.integer) else [int(x) for x in value]
    if len(values) == 1:
        values = values * 3
    if len(values) == 3:
        values = [1, *values, 1] if fmt == "NDHWC" else [1, 1, *values]
    if len(values) != 5:
        raise InvalidArgumentError(f"{name}: {what} must be an int or a list of 1, 3 or 5 ints, got {value!r}", name)
    return values


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    fmt = data_format or "NDHWC"
    return Conv3D.bind(input, filters, strides=_five("conv3d", "strides", strides, fmt), padding=padding,
                       data_format=fmt, dilations=_five("conv3d", "dilations", 1 if dilations is None else dilations,
                                                        fmt))


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC", dilations=None,
                     name=None):
    """The transposed 3-D convolution: Conv3DBackpropInputV2 with ``input`` as out_backprop (filters
    [D, H, W, output channels, input channels])."""
    fmt = data_format or "NDHWC"
    if isinstance(output_shape, list | tuple | np.ndarray):
        output_shape = np.asarray(output_shape, np.int32)
    return Conv3DBackpropInputV2.bind(
        as_tensor(output_shape), filters, input, strides=_five("conv3d_transpose", "strides", strides, fmt),
        padding=padding, data_format=fmt,
        dilations=_five("conv3d_transpose", "dilations", 1 if dilations is None else dilations, fmt))
