"""Grayscale morphology: Dilation2D and its backprop ops, tf.nn.dilation2d and tf.nn.erosion2d.

    %y = "tf.Dilation2D"(%x, %f) <{padding = "SAME", rates = [1, 1, 1, 1], strides = [1, 1, 1, 1]}>
           : (tensor<1x5x5x2xf32>, tensor<3x3x2xf32>) -> tensor<1x5x5x2xf32>

out[b, y, x, c] = max over (i, j) of input[b, y * sh + i * rh - top, x * sw + j * rw - left, c] + filter[i, j, c],
positions outside the input left out. The gradients go to the first maximum of each window (filter rows,
then columns), as TensorFlow's kernels pick it; TensorFlow defines no gradient of the backprop ops.
Erosion is dilation by duality: -dilation2d(-x, reversed filter).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import check_dtype, fmt_shape, same_dtype
from tinytf.ops.nn_window_nd_kernels import NdWindow, nd_window
from tinytf.ops.op_functions import ops as _ops

__all__ = ["dilation2d", "erosion2d"]
__namespaces__ = {"dilation2d": ("nn",), "erosion2d": ("nn",)}


def _window(op, input_shape, filter_shape, attrs) -> NdWindow:
    for what in ("strides", "rates"):
        values = list(attrs[what])
        if len(values) != 4 or values[0] != 1 or values[3] != 1:
            raise InvalidArgumentError(f"{op}: {what} must be [1, h, w, 1], got {values}", op)
    if input_shape is not None and len(input_shape) != 4:
        raise InvalidArgumentError(f"{op}: input must be 4-dimensional NHWC, got {fmt_shape(input_shape)}", op)
    if filter_shape is None:
        filter_shape = (None,) * 3
    if len(filter_shape) != 3:
        raise InvalidArgumentError(f"{op}: filter must be 3-dimensional, got {fmt_shape(filter_shape)}", op)
    if input_shape is not None and None not in (input_shape[3], filter_shape[2]) and input_shape[3] != filter_shape[2]:
        raise InvalidArgumentError(f"{op}: input depth {input_shape[3]} must equal filter depth {filter_shape[2]} "
                                   f"(input {fmt_shape(input_shape)}, filter {fmt_shape(filter_shape)})", op)
    return nd_window(op, input_shape, tuple(filter_shape[:2]), tuple(attrs["strides"][1:3]),
                     tuple(attrs["rates"][1:3]), attrs["padding"])


def _cut(win: NdWindow, i, j):
    (oh, ow), (sh, sw), (rh, rw) = win.output_shape[1:3], win.strides, win.dilations
    return (slice(None), slice(i * rh, i * rh + (oh - 1) * sh + 1, sh), slice(j * rw, j * rw + (ow - 1) * sw + 1, sw))


def dilation_with_argmax(xp, x, f, win: NdWindow):
    """(the dilation, the flat filter offset i * KW + j of each output's first maximum)."""
    (top, bottom), (left, right) = win.pads
    padded = xp.pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)], constant_values=-np.inf)
    best, where = None, None
    kh, kw = win.kernel
    for i in range(kh):
        for j in range(kw):
            value = padded[_cut(win, i, j)] + f[i, j]
            if best is None:
                best, where = value, xp.zeros(value.shape, np.int32)
                continue
            better = value > best
            best, where = xp.where(better, value, best), xp.where(better, np.int32(i * kw + j), where)
    return best, where


def _add(xp, array, index, value):
    if xp is np:
        array[index] += value
        return array
    return array.at[index].add(value)


def dilation_backprop(xp, x, f, dy, win: NdWindow, to_filter: bool):
    _, where = dilation_with_argmax(xp, x, f, win)
    kh, kw = win.kernel
    (top, bottom), (left, right) = win.pads
    if to_filter:
        out = xp.zeros(f.shape, dy.dtype)
        for k in range(kh * kw):
            out = _add(xp, out, (k // kw, k % kw), xp.sum(xp.where(where == k, dy, 0), axis=(0, 1, 2)))
        return out
    n, h, w, c = x.shape
    out = xp.zeros((n, h + top + bottom, w + left + right, c), dy.dtype)
    for k in range(kh * kw):
        out = _add(xp, out, _cut(win, k // kw, k % kw), xp.where(where == k, dy, 0))
    return out[:, top:top + h, left:left + w, :]


class _Dilation(Op):
    strides = attr(kind="ints")
    rates = attr(kind="ints")
    padding = attr(kind="str")
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"strides": v.i64_array(4), "rates": v.i64_array(4), "padding": v.PADDING}

    @classmethod
    def checked(cls, input, filter, attrs, *others):
        dtype = same_dtype(cls.name, input, filter, *others)
        check_dtype(cls.name, TensorSpec(None, dtype), "fiu")
        return _window(cls.name, input.shape, filter.shape, attrs)

    @classmethod
    def check_backprop(cls, out_backprop, win):
        if out_backprop.shape is not None and not TensorSpec(out_backprop.shape).is_compatible_with(win.output_shape):
            raise InvalidArgumentError(f"{cls.name}: out_backprop {fmt_shape(out_backprop.shape)} must have the "
                                       f"dilation's shape {fmt_shape(win.output_shape)}", cls.name)


def _spec(a):
    return TensorSpec(a.shape, dtypes.as_dtype(a.dtype))


@register
class Dilation2D(_Dilation):
    """The grayscale dilation of 4-D NHWC input by a [H, W, C] structuring function."""

    name = "tf.Dilation2D"
    input = operand_def()
    filter = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input, filter, **attrs):
        return TensorSpec(cls.checked(input, filter, attrs).output_shape, input.dtype)

    @classmethod
    def compute(cls, xp, input, filter, **attrs):
        return dilation_with_argmax(xp, input, filter, cls.checked(_spec(input), _spec(filter), attrs))[0]

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dx, df = U sent to each window's first maximum
        x, f = op.inputs
        return [Dilation2DBackpropInput.bind(x, f, dy, **op.attrs), Dilation2DBackpropFilter.bind(x, f, dy, **op.attrs)]


class _DilationBackprop(_Dilation):
    input = operand_def()
    filter = operand_def()
    out_backprop = operand_def()
    traits = traits_def(Pure(), NotDifferentiable())
    TO_FILTER: ClassVar[bool] = False

    @classmethod
    def infer(cls, input, filter, out_backprop, **attrs):
        win = cls.checked(input, filter, attrs, out_backprop)
        cls.check_backprop(out_backprop, win)
        return TensorSpec(filter.shape if cls.TO_FILTER else input.shape, input.dtype)

    @classmethod
    def compute(cls, xp, input, filter, out_backprop, **attrs):
        win = cls.checked(_spec(input), _spec(filter), attrs, _spec(out_backprop))
        cls.check_backprop(_spec(out_backprop), win)
        return dilation_backprop(xp, input, filter, out_backprop, win, cls.TO_FILTER)


@register
class Dilation2DBackpropInput(_DilationBackprop):
    """The gradient of Dilation2D with respect to its input."""

    name = "tf.Dilation2DBackpropInput"
    in_backprop = result_def()


@register
class Dilation2DBackpropFilter(_DilationBackprop):
    """The gradient of Dilation2D with respect to its filter."""

    name = "tf.Dilation2DBackpropFilter"
    filter_backprop = result_def()
    TO_FILTER: ClassVar[bool] = True


def _four(fn, what, value):
    values = [int(value)] if isinstance(value, int | np.integer) else [int(x) for x in value]
    if len(values) == 1:
        values = values * 2
    if len(values) == 2:
        return [1, *values, 1]
    if len(values) == 4:
        return values
    raise InvalidArgumentError(f"{fn}: {what} must be an int or 1, 2 or 4 ints, got {value!r}", Dilation2D.name)


def dilation2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    if data_format != "NHWC":
        raise InvalidArgumentError(f"dilation2d: only data_format 'NHWC' is supported, got {data_format!r}",
                                   Dilation2D.name)
    return Dilation2D.bind(input, filters, strides=_four("dilation2d", "strides", strides), padding=padding,
                           rates=_four("dilation2d", "dilations", 1 if dilations is None else dilations))


def erosion2d(value, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """-dilation2d(-value, filters reversed in both spatial dims)."""
    m = _ops
    return m.negative(dilation2d(m.negative(value), m.reverse(filters, [0, 1]), strides, padding, data_format,
                                 dilations))
