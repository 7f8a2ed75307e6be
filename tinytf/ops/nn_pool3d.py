"""3-D pooling: MaxPool3D, AvgPool3D, their gradient ops (MaxPool3DGrad, MaxPool3DGradGrad,
AvgPool3DGrad), and tf.nn.max_pool3d / avg_pool3d.

    %y = "tf.MaxPool3D"(%x) <{data_format = "NDHWC", ksize = [1, 2, 2, 2, 1], padding = "VALID",
           strides = [1, 2, 2, 2, 1]}> : (tensor<1x4x4x4x2xf32>) -> tensor<1x2x2x2x2xf32>

Average pooling divides by the number of in-bounds inputs of each window (SAME padding adds none);
a max pool's gradient goes to the first maximum of each window, as in TensorFlow's kernels. The
kernels are in nn_window_nd_kernels.py.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import check_dtype, fmt_shape, same_dtype
from tinytf.ops.nn_conv3d import _five, _sizes, channels_last, in_format
from tinytf.ops.nn_window_nd_kernels import (
    jax_max_pool_grad_grad,
    jax_pool,
    jax_pool_grad,
    nd_window,
    np_avg_pool_grad,
    np_max_pool_grad,
    np_max_pool_grad_grad,
    np_pool,
)
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.op_functions import shape_tensor

__all__ = ["max_pool3d", "avg_pool3d"]
__namespaces__ = {"max_pool3d": ("nn",), "avg_pool3d": ("nn",)}


def _spec(array) -> TensorSpec:
    return TensorSpec(array.shape, dtypes.as_dtype(array.dtype))


class _Pool3D(Op):
    ksize = attr(kind="ints")
    strides = attr(kind="ints")
    padding = attr(kind="str")
    data_format = attr("NDHWC")
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"ksize": v.i64_array(5), "strides": v.i64_array(5), "padding": v.PADDING,
                                        "data_format": v.one_of("NDHWC", "NCDHW")}

    @classmethod
    def geometry(cls, input_shape, attrs):
        fmt = attrs["data_format"]
        if fmt not in ("NDHWC", "NCDHW"):
            raise InvalidArgumentError(f"{cls.name}: data_format must be NDHWC or NCDHW, got {fmt!r}", cls.name)
        for what in ("ksize", "strides"):
            values = list(attrs[what])
            if len(values) != 5:
                raise InvalidArgumentError(f"{cls.name}: {what} must have 5 values, got {values}", cls.name)
            last = channels_last(values, fmt)
            if last[0] != 1 or last[-1] != 1:
                raise InvalidArgumentError(f"{cls.name}: pooling in the batch or depth dimension is not supported, "
                                           f"{what} {values}", cls.name)
        if input_shape is not None and len(input_shape) != 5:
            raise InvalidArgumentError(f"{cls.name}: input must be 5-dimensional, got {fmt_shape(input_shape)}",
                                       cls.name)
        return nd_window(cls.name, channels_last(input_shape, fmt), channels_last(attrs["ksize"], fmt)[1:-1],
                         channels_last(attrs["strides"], fmt)[1:-1], (1, 1, 1), attrs["padding"])

    @staticmethod
    def to_last(xp, x, fmt):
        return x if fmt == "NDHWC" else xp.transpose(x, (0, 2, 3, 4, 1))

    @staticmethod
    def to_format(xp, x, fmt):
        return x if fmt == "NDHWC" else xp.transpose(x, (0, 4, 1, 2, 3))

    @classmethod
    def check_same(cls, what, got, want):
        if got is not None and want is not None and not TensorSpec(got).is_compatible_with(want):
            raise InvalidArgumentError(f"{cls.name}: {what} {fmt_shape(got)} does not match {fmt_shape(want)}",
                                       cls.name)


class _Pool3DForward(_Pool3D):
    input = operand_def()
    output = result_def()
    KIND: ClassVar[str] = ""

    @classmethod
    def infer(cls, input, **attrs):
        check_dtype(cls.name, input, "f")
        return TensorSpec(in_format(cls.geometry(input.shape, attrs).output_shape, attrs["data_format"]), input.dtype)

    @classmethod
    def compute(cls, xp, input, **attrs):
        fmt = attrs["data_format"]
        win = cls.geometry(input.shape, attrs)
        return cls.to_format(np, np_pool(cls.to_last(np, input, fmt), win, cls.KIND), fmt)

    @classmethod
    def lower(cls, input, **attrs):
        import jax.numpy as jnp

        fmt = attrs["data_format"]
        win = cls.geometry(input.shape, attrs)
        return cls.to_format(jnp, jax_pool(cls.to_last(jnp, input, fmt), win, cls.KIND), fmt)


@register
class MaxPool3D(_Pool3DForward):
    """The maximum over each 3-D window."""

    name = "tf.MaxPool3D"
    KIND: ClassVar[str] = "max"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = max_pool3d(x): dx = U at each window's maximum
        return [MaxPool3DGrad.bind(op.inputs[0], op.outputs[0], dy, **op.attrs)]


@register
class AvgPool3D(_Pool3DForward):
    """The mean over each 3-D window's in-bounds inputs."""

    name = "tf.AvgPool3D"
    KIND: ClassVar[str] = "avg"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = avg_pool3d(x): dx = U shared over each window
        return [AvgPool3DGrad.bind(shape_tensor(op.inputs[0]), dy, **op.attrs)]


class _MaxPool3DGradBase(_Pool3D):
    orig_input = operand_def()
    orig_output = operand_def()
    grad_ = operand_def()  # TensorFlow's operand 'grad' (the rule name grad is the gradient)
    output = result_def()

    @classmethod
    def check(cls, orig_input, orig_output, grad, attrs, grad_is_input):
        same_dtype(cls.name, orig_input, orig_output, grad)
        check_dtype(cls.name, orig_input, "f")
        win = cls.geometry(orig_input.shape, attrs)
        want = in_format(win.output_shape, attrs["data_format"])
        cls.check_same("orig_output", orig_output.shape, want)
        cls.check_same("grad", grad.shape, orig_input.shape if grad_is_input else want)
        return win


@register
class MaxPool3DGrad(_MaxPool3DGradBase):
    """The gradient of MaxPool3D: each output's gradient to the first maximum of its window."""

    name = "tf.MaxPool3DGrad"

    @classmethod
    def infer(cls, orig_input, orig_output, grad, **attrs):
        cls.check(orig_input, orig_output, grad, attrs, grad_is_input=False)
        return TensorSpec(orig_input.shape, orig_input.dtype)

    @classmethod
    def compute(cls, xp, orig_input, orig_output, grad, **attrs):
        fmt = attrs["data_format"]
        win = cls.check(*(_spec(a) for a in (orig_input, orig_output, grad)), attrs, False)
        last = [cls.to_last(np, a, fmt) for a in (orig_input, orig_output, grad)]
        return cls.to_format(np, np_max_pool_grad(*last, win), fmt)

    @classmethod
    def lower(cls, orig_input, orig_output, grad, **attrs):
        import jax.numpy as jnp

        fmt = attrs["data_format"]
        win = cls.geometry(orig_input.shape, attrs)
        return cls.to_format(jnp, jax_pool_grad(cls.to_last(jnp, orig_input, fmt), cls.to_last(jnp, grad, fmt), win,
                                                "max"), fmt)

    @staticmethod
    def grad(op, g):  # Given upstream grad U: dgrad = U gathered at each window's maximum (x, y: none)
        x, y, _ = op.inputs
        return [_ops.zeros_like(x), _ops.zeros_like(y), MaxPool3DGradGrad.bind(x, y, g, **op.attrs)]


@register
class MaxPool3DGradGrad(_MaxPool3DGradBase):
    """The gradient of MaxPool3DGrad with respect to its gradient: grad gathered at each window's maximum."""

    name = "tf.MaxPool3DGradGrad"

    @classmethod
    def infer(cls, orig_input, orig_output, grad, **attrs):
        cls.check(orig_input, orig_output, grad, attrs, grad_is_input=True)
        return TensorSpec(orig_output.shape, orig_input.dtype)

    @classmethod
    def compute(cls, xp, orig_input, orig_output, grad, **attrs):
        fmt = attrs["data_format"]
        win = cls.check(*(_spec(a) for a in (orig_input, orig_output, grad)), attrs, True)
        last = [cls.to_last(np, a, fmt) for a in (orig_input, orig_output, grad)]
        return cls.to_format(np, np_max_pool_grad_grad(*last, win), fmt)

    @classmethod
    def lower(cls, orig_input, orig_output, grad, **attrs):
        import jax.numpy as jnp

        fmt = attrs["data_format"]
        win = cls.geometry(orig_input.shape, attrs)
        x, g = cls.to_last(jnp, orig_input, fmt), cls.to_last(jnp, grad, fmt)
        return cls.to_format(jnp, jax_max_pool_grad_grad(x, g, win), fmt)

    @staticmethod
    def grad(op, g):  # Given upstream grad U: dgrad = U scattered back to each window's maximum
        x, y, _ = op.inputs
        return [_ops.zeros_like(x), _ops.zeros_like(y), MaxPool3DGrad.bind(x, y, g, **op.attrs)]


@register
class AvgPool3DGrad(_Pool3D):
    """The gradient of AvgPool3D: each output's gradient shared equally over its window's inputs."""

    name = "tf.AvgPool3DGrad"
    orig_input_shape = operand_def()
    grad_ = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, orig_input_shape, grad, **attrs):
        check_dtype(cls.name, grad, "f")
        shape = _sizes(cls.name, "orig_input_shape", orig_input_shape.value)
        if orig_input_shape.value is not None:
            win = cls.geometry(shape, attrs)
            cls.check_same("grad", grad.shape, in_format(win.output_shape, attrs["data_format"]))
        return TensorSpec(shape, grad.dtype)

    @classmethod
    def compute(cls, xp, orig_input_shape, grad, **attrs):
        fmt = attrs["data_format"]
        win = cls.geometry(_sizes(cls.name, "orig_input_shape", orig_input_shape), attrs)
        cls.check_same("grad", grad.shape, in_format(win.output_shape, fmt))
        return cls.to_format(np, np_avg_pool_grad(cls.to_last(np, grad, fmt), win), fmt)

    @classmethod
    def lower(cls, orig_input_shape, grad, **attrs):
        import jax.numpy as jnp

        fmt = attrs["data_format"]
        shape = _sizes(cls.name, "orig_input_shape", orig_input_shape)
        win = cls.geometry(shape, attrs)
        x = jnp.zeros(channels_last(shape, fmt), grad.dtype)
        return cls.to_format(jnp, jax_pool_grad(x, cls.to_last(jnp, grad, fmt), win, "avg"), fmt)

    @staticmethod
    def grad(op, g):  # Given upstream grad U: dgrad = avg_pool3d(U)
        return [None, AvgPool3D.bind(g, **op.attrs)]


def _pool(cls, input, ksize, strides, padding, data_format):
    fmt = data_format or "NDHWC"
    name = cls.name
    return cls.bind(input, ksize=_five(name, "ksize", ksize, fmt), strides=_five(name, "strides", strides, fmt),
                    padding=padding, data_format=fmt)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    return _pool(MaxPool3D, input, ksize, strides, padding, data_format)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    return _pool(AvgPool3D, input, ksize, strides, padding, data_format)
