"""Max pooling that also returns where each maximum is: MaxPoolWithArgmax, its gradient ops
MaxPoolGradWithArgmax and MaxPoolGradGradWithArgmax, and tf.nn.max_pool_with_argmax.

    %y, %i = "tf.MaxPoolWithArgmax"(%x) <{include_batch_in_index = false, ksize = [1, 2, 2, 1],
               padding = "VALID", strides = [1, 2, 2, 1]}> : (tensor<1x4x4x3xf32>) -> (tensor<1x2x2x3xf32>, tensor<1x2x2x3xi64>)

The index of input value (b, y, x, c) is ((b * H + y) * W + x) * C + c with ``include_batch_in_index``,
else (y * W + x) * C + c; the first maximum of a window (row by row) wins, as in TensorFlow's kernel. The
maxima are found with one pass of ``where`` per window offset, written once for numpy and jax.numpy.
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
from tinytf.ops.base import check_dtype, fmt_shape
from tinytf.ops.nn_window_nd_kernels import NdWindow, nd_window
from tinytf.ops.op_functions import ops as _ops

__all__ = ["max_pool_with_argmax"]
__namespaces__ = {"max_pool_with_argmax": ("nn",)}


def _geometry(op, shape, attrs) -> NdWindow:
    for what in ("ksize", "strides"):
        values = list(attrs[what])
        if len(values) != 4 or values[0] != 1 or values[3] != 1:
            raise InvalidArgumentError(f"{op}: {what} must be 4 values with 1 for the batch and depth dims, got "
                                       f"{values}", op)
    if shape is not None and len(shape) != 4:
        raise InvalidArgumentError(f"{op}: input must be 4-dimensional NHWC, got {fmt_shape(shape)}", op)
    return nd_window(op, shape, tuple(attrs["ksize"][1:3]), tuple(attrs["strides"][1:3]), (1, 1), attrs["padding"])


def pool_with_argmax(xp, x, win: NdWindow, include_batch_in_index: bool, index_dtype):
    """(max over each window, flat index of the first maximum), padding never chosen."""
    n, h, w, c = x.shape
    (top, bottom), (left, right) = win.pads
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp_ = xp.pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)], constant_values=lowest)
    rows = xp.arange(h + top + bottom).reshape(1, -1, 1, 1) - top
    cols = xp.arange(w + left + right).reshape(1, 1, -1, 1) - left
    index = (rows * w + cols) * c + xp.arange(c).reshape(1, 1, 1, -1)
    if include_batch_in_index:
        index = index + xp.arange(n).reshape(-1, 1, 1, 1) * (h * w * c)
    inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
    (oh, ow), (sh, sw) = win.output_shape[1:3], win.strides
    best, where = None, None
    for i in range(win.kernel[0]):
        for j in range(win.kernel[1]):
            cut = (slice(None), slice(i, i + (oh - 1) * sh + 1, sh), slice(j, j + (ow - 1) * sw + 1, sw))
            value, at = xp_[cut], xp.broadcast_to(index, (n if include_batch_in_index else 1,) + index.shape[1:])[cut]
            ok = xp.broadcast_to(inside, (1,) + inside.shape[1:3] + (1,))[cut]
            if best is None:
                best, where = value, xp.broadcast_to(at, value.shape)
                continue
            better = (value > best) & ok
            best, where = xp.where(better, value, best), xp.where(better, at, where)
    return best, where.astype(index_dtype)


class _ArgmaxPool(Op):
    ksize = attr(kind="ints")
    strides = attr(kind="ints")
    padding = attr(kind="str")
    include_batch_in_index = attr(False)
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"ksize": v.i64_array(4), "strides": v.i64_array(4), "padding": v.PADDING}

    @classmethod
    def check_argmax(cls, argmax, want):
        if argmax.dtype.name not in ("int32", "int64"):
            raise InvalidArgumentError(f"{cls.name}: argmax must be int32 or int64, got {argmax.dtype.name}", cls.name)
        if argmax.shape is not None and want is not None and not TensorSpec(argmax.shape).is_compatible_with(want):
            raise InvalidArgumentError(f"{cls.name}: argmax {fmt_shape(argmax.shape)} must have the pooled shape "
                                       f"{fmt_shape(want)}", cls.name)

    @staticmethod
    def flat_batch_offsets(xp, argmax, size, include_batch_in_index):
        """argmax as indices into the flattened input (each batch's offset added when TensorFlow leaves it out)."""
        flat = argmax.astype(np.int64)
        if not include_batch_in_index:
            flat = flat + xp.arange(argmax.shape[0], dtype=np.int64).reshape(-1, 1, 1, 1) * size
        return flat.reshape(-1)


@register
class MaxPoolWithArgmax(_ArgmaxPool):
    """The maximum over each window of NHWC input and the flat index of where it is."""

    name = "tf.MaxPoolWithArgmax"
    input = operand_def()
    output = result_def()
    argmax = result_def()
    Targmax = attr(dtypes.int64)

    @classmethod
    def infer(cls, input, *, ksize, strides, padding, Targmax=dtypes.int64, include_batch_in_index=False):
        check_dtype(cls.name, input, "fiu")
        index = dtypes.as_dtype(Targmax)
        if index.name not in ("int32", "int64"):
            raise InvalidArgumentError(f"{cls.name}: Targmax must be int32 or int64, got {index.name}", cls.name)
        out = _geometry(cls.name, input.shape, dict(ksize=ksize, strides=strides, padding=padding)).output_shape
        return [TensorSpec(out, input.dtype), TensorSpec(out, index)]

    @classmethod
    def compute(cls, xp, input, *, ksize, strides, padding, Targmax=dtypes.int64, include_batch_in_index=False):
        win = _geometry(cls.name, input.shape, dict(ksize=ksize, strides=strides, padding=padding))
        if 0 in win.output_shape or 0 in input.shape:
            raise InvalidArgumentError(f"{cls.name}: input {fmt_shape(input.shape)} gives an empty pooled output",
                                       cls.name)
        return pool_with_argmax(xp, input, win, include_batch_in_index, dtypes.as_dtype(Targmax).np)

    @staticmethod
    def grad(op, dy, unused_dargmax):  # Given upstream grad U: dx = U added at each window's argmax
        a = {k: op.attrs[k] for k in ("ksize", "strides", "padding", "include_batch_in_index")}
        return [MaxPoolGradWithArgmax.bind(op.inputs[0], dy, op.outputs[1], **a)]


@register
class MaxPoolGradWithArgmax(_ArgmaxPool):
    """The gradient of MaxPoolWithArgmax: each grad value added to the input position argmax names."""

    name = "tf.MaxPoolGradWithArgmax"
    input = operand_def()
    grad_ = operand_def()  # TensorFlow's operand 'grad' (the rule name grad is the gradient)
    argmax = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input, grad, argmax, *, ksize, strides, padding, include_batch_in_index=False):
        check_dtype(cls.name, input, "fiu")
        out = _geometry(cls.name, input.shape, dict(ksize=ksize, strides=strides, padding=padding)).output_shape
        cls.check_argmax(argmax, out)
        if grad.dtype is not input.dtype or (grad.shape is not None and not TensorSpec(grad.shape).is_compatible_with(
                out)):
            raise InvalidArgumentError(f"{cls.name}: grad {grad.dtype.name}{fmt_shape(grad.shape)} must be "
                                       f"{input.dtype.name}{fmt_shape(out)}", cls.name)
        return TensorSpec(input.shape, input.dtype)

    @classmethod
    def checked(cls, input, argmax, include_batch_in_index):
        size = int(np.prod(input.shape[1:]))
        limit = size * (input.shape[0] if include_batch_in_index else 1)
        values = np.asarray(argmax)
        if values.size and (values.min() < 0 or values.max() >= limit):
            raise InvalidArgumentError(f"{cls.name}: argmax holds an index outside [0, {limit}) for input "
                                       f"{fmt_shape(input.shape)}", cls.name)
        return size

    @classmethod
    def compute(cls, xp, input, grad, argmax, *, ksize, strides, padding, include_batch_in_index=False):
        _geometry(cls.name, input.shape, dict(ksize=ksize, strides=strides, padding=padding))
        size = cls.checked(input, argmax, include_batch_in_index)
        flat = cls.flat_batch_offsets(np, argmax, size, include_batch_in_index)
        out = np.zeros(input.size, grad.dtype)
        np.add.at(out, flat, grad.reshape(-1))
        return out.reshape(input.shape)

    @classmethod
    def lower(cls, input, grad, argmax, *, ksize, strides, padding, include_batch_in_index=False):
        import jax.numpy as jnp

        size = int(np.prod(input.shape[1:]))
        flat = cls.flat_batch_offsets(jnp, argmax, size, include_batch_in_index)
        return jnp.zeros(int(np.prod(input.shape)), grad.dtype).at[flat].add(grad.reshape(-1)).reshape(input.shape)

    @staticmethod
    def grad(op, g):  # Given upstream grad U: dgrad = U gathered at each argmax (input: zeros, argmax: none)
        x, _, argmax = op.inputs
        a = {k: op.attrs[k] for k in ("ksize", "strides", "padding", "include_batch_in_index")}
        return [_ops.zeros_like(x), MaxPoolGradGradWithArgmax.bind(x, g, argmax, **a), None]


@register
class MaxPoolGradGradWithArgmax(_ArgmaxPool):
    """The gradient of MaxPoolGradWithArgmax: grad (input-shaped) gathered at each argmax."""

    name = "tf.MaxPoolGradGradWithArgmax"
    input = operand_def()
    grad_ = operand_def()  # TensorFlow's operand 'grad'
    argmax = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, input, grad, argmax, *, ksize, strides, padding, include_batch_in_index=False):
        check_dtype(cls.name, input, "fiu")
        out = _geometry(cls.name, input.shape, dict(ksize=ksize, strides=strides, padding=padding)).output_shape
        cls.check_argmax(argmax, out)
        if grad.dtype is not input.dtype or (grad.shape is not None and input.shape is not None and
                                             not TensorSpec(grad.shape).is_compatible_with(input.shape)):
            raise InvalidArgumentError(f"{cls.name}: grad {grad.dtype.name}{fmt_shape(grad.shape)} must be like "
                                       f"input {input.dtype.name}{fmt_shape(input.shape)}", cls.name)
        return TensorSpec(out, input.dtype)

    @classmethod
    def compute(cls, xp, input, grad, argmax, *, ksize, strides, padding, include_batch_in_index=False):
        _geometry(cls.name, input.shape, dict(ksize=ksize, strides=strides, padding=padding))
        size = MaxPoolGradWithArgmax.checked(input, argmax, include_batch_in_index)
        flat = cls.flat_batch_offsets(np, argmax, size, include_batch_in_index)
        return grad.reshape(-1)[flat].reshape(argmax.shape)

    @classmethod
    def lower(cls, input, grad, argmax, *, ksize, strides, padding, include_batch_in_index=False):
        size = int(np.prod(input.shape[1:]))
        import jax.numpy as jnp

        flat = cls.flat_batch_offsets(jnp, argmax, size, include_batch_in_index)
        return grad.reshape(-1)[flat].reshape(argmax.shape)


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", output_dtype=dtypes.int64,
                         include_batch_in_index=False, name=None):
    """(the max pool of NHWC ``input``, the flat index of each maximum)."""
    if data_format != "NHWC":
        raise InvalidArgumentError(f"max_pool_with_argmax: data_format must be 'NHWC', got {data_format!r}",
                                   MaxPoolWithArgmax.name)

    def four(value, what):
        values = [int(value)] if isinstance(value, int | np.integer) else [int(x) for x in value]
        if len(values) == 1:
            values = values * 2
        if len(values) == 2:
            return [1, *values, 1]
        if len(values) == 4:
            return values
        raise InvalidArgumentError(f"max_pool_with_argmax: {what} must be an int or 1, 2 or 4 ints, got {value!r}",
                                   MaxPoolWithArgmax.name)

    out, argmax = MaxPoolWithArgmax.bind(input, ksize=four(ksize, "ksize"), strides=four(strides, "strides"),
                                         padding=padding, Targmax=dtypes.as_dtype(output_dtype),
                                         include_batch_in_index=bool(include_batch_in_index))
    return out, argmax
