"""Pooling ops: MaxPool, AvgPool, their gradient ops, and tf.nn.max_pool2d / avg_pool2d.

    %p = "tf.MaxPool"(%y) <{data_format = "NHWC", explicit_paddings = [], ksize = [1, 2, 2, 1],
           padding = "VALID", strides = [1, 2, 2, 1]}> : (tensor<2x12x12x8xf32>) -> tensor<2x6x6x8xf32>

The window geometry is in window_kernels.py, the numpy kernels and JAX lowerings in pool_kernels.py.
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
from tinytf.ops.base import check_dtype, fmt_shape, same_dtype
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.op_functions import shape_tensor
from tinytf.ops.pool_kernels import (
    jax_avg_pool,
    jax_avg_pool_grad,
    jax_max_pool,
    jax_max_pool_grad,
    jax_max_pool_grad_grad,
    np_avg_pool,
    np_avg_pool_grad,
    np_max_pool,
    np_max_pool_grad,
    np_max_pool_grad_grad,
)
from tinytf.ops.tensor_inputs import static_rank
from tinytf.ops.window_kernels import (
    Window,
    padding_attrs,
    pool_window,
    shape_in_format,
    sizes_operand,
    static_sizes,
    window_attr,
)

__all__ = ["max_pool2d", "avg_pool2d", "max_pool", "avg_pool"]


class _Pool(Op):
    ksize = attr(kind="ints")
    strides = attr(kind="ints")
    padding = attr(kind="str")
    data_format = attr("NHWC")
    traits = traits_def(Pure())
    KINDS: ClassVar[str] = "fiu"
    ATTR_CONSTRAINTS: ClassVar[dict] = {"ksize": v.i64_array(4), "strides": v.i64_array(4), "padding": v.PADDING,
                                        "explicit_paddings": v.i64_array(), "data_format": v.DATA_FORMAT}

    @classmethod
    def window(cls, input_shape, attrs) -> Window:
        return pool_window(cls.name, input_shape, attrs, allow_explicit="explicit_paddings" in cls.__tf_attrs__)

    @classmethod
    def check_like(cls, what, shape, want, attrs):
        want = shape_in_format(want, attrs["data_format"])
        if shape is not None and not TensorSpec(shape).is_compatible_with(want):
            raise InvalidArgumentError(
                f"{cls.name}: {what} has shape {fmt_shape(shape)}, expected {fmt_shape(want)}", cls.name)


@register
class MaxPool(_Pool):
    """The maximum over each window; padding never wins (SAME pads with -inf)."""

    name = "tf.MaxPool"
    BATCHING: ClassVar[str] = "fold"
    ATTR_CONSTRAINTS: ClassVar[dict] = {**_Pool.ATTR_CONSTRAINTS, "padding": v.PADDING_EXPLICIT,
                                        "data_format": v.one_of("NHWC", "NCHW", "NCHW_VECT_C")}
    input = operand_def()
    output = result_def()
    explicit_paddings = attr((), kind="ints")

    @classmethod
    def infer(cls, input, **attrs):
        check_dtype(cls.name, input, cls.KINDS)
        win = cls.window(input.shape, attrs)
        return TensorSpec(shape_in_format(win.output_nhwc, attrs["data_format"]), input.dtype)

    @classmethod
    def compute(cls, xp, input, **attrs):
        return np_max_pool(input, cls.window(input.shape, attrs), attrs["data_format"])

    @classmethod
    def lower(cls, input, **attrs):
        return jax_max_pool(input, cls.window(input.shape, attrs), attrs["data_format"])

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = max_pool(x): dx = U routed to each window's (first) maximum
        return [MaxPoolGrad.bind(op.inputs[0], op.outputs[0], dy, **op.attrs)]


@register
class MaxPoolGrad(_Pool):
    """The gradient of MaxPool: each ``grad`` value added at its window's first maximum of orig_input."""

    name = "tf.MaxPoolGrad"
    orig_input = operand_def()
    orig_output = operand_def()
    grad_ = operand_def()  # TensorFlow's operand 'grad' (the rule name grad is the gradient)
    output = result_def()
    explicit_paddings = attr((), kind="ints")
    ATTR_CONSTRAINTS: ClassVar[dict] = {**_Pool.ATTR_CONSTRAINTS, "padding": v.PADDING_EXPLICIT}

    def verify_ir(self):
        for what, value in (("orig_input", self.orig_input), ("orig_output", self.orig_output), ("grad", self.grad_)):
            if not v.has_rank(value, 4):
                v.fail(f"requires {what} to be rank 4")

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
        return np_max_pool_grad(orig_input, grad, win, attrs["data_format"])

    @classmethod
    def lower(cls, orig_input, orig_output, grad, **attrs):
        return jax_max_pool_grad(orig_input, grad, cls.window(orig_input.shape, attrs), attrs["data_format"])


@register
class MaxPoolGradGrad(_Pool):
    """The gradient of MaxPoolGrad: ``grad`` (shaped like orig_input) read at each window's maximum."""

    name = "tf.MaxPoolGradGrad"
    orig_input = operand_def()
    orig_output = operand_def()
    grad_ = operand_def()  # TensorFlow's operand 'grad' (the rule name grad is the gradient)
    output = result_def()
    explicit_paddings = attr((), kind="ints")

    @classmethod
    def infer(cls, orig_input, orig_output, grad, **attrs):
        dtype = check_dtype(cls.name, TensorSpec(None, same_dtype(cls.name, orig_input, orig_output, grad)), cls.KINDS)
        win = cls.window(orig_input.shape, attrs)
        cls.check_like("grad", grad.shape, win.input_nhwc, attrs)
        return TensorSpec(shape_in_format(win.output_nhwc, attrs["data_format"]), dtype)

    @classmethod
    def compute(cls, xp, orig_input, orig_output, grad, **attrs):
        win = cls.window(orig_input.shape, attrs)
        cls.check_like("grad", grad.shape, win.input_nhwc, attrs)
        return np_max_pool_grad_grad(orig_input, grad, win, attrs["data_format"])

    @classmethod
    def lower(cls, orig_input, orig_output, grad, **attrs):
        return jax_max_pool_grad_grad(orig_input, grad, cls.window(orig_input.shape, attrs), attrs["data_format"])


@register
class AvgPool(_Pool):
    """The mean over each window, counting only real (not padded) elements."""

    name = "tf.AvgPool"
    BATCHING: ClassVar[str] = "fold"
    value = operand_def()
    output = result_def()
    KINDS: ClassVar[str] = "f"

    def verify_ir(self):
        v.check_types(self, operands={"value": v.FLOAT}, results={"output": v.FLOAT})

    @classmethod
    def infer(cls, value, **attrs):
        check_dtype(cls.name, value, cls.KINDS)
        win = cls.window(value.shape, attrs)
        return TensorSpec(shape_in_format(win.output_nhwc, attrs["data_format"]), value.dtype)

    @classmethod
    def compute(cls, xp, value, **attrs):
        return np_avg_pool(value, cls.window(value.shape, attrs), attrs["data_format"])

    @classmethod
    def lower(cls, value, **attrs):
        return jax_avg_pool(value, cls.window(value.shape, attrs), attrs["data_format"])

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = avg_pool(x): dx = U / count spread over each window
        return [AvgPoolGrad.bind(shape_tensor(op.inputs[0]), dy, **op.attrs)]


@register
class AvgPoolGrad(_Pool):
    """The gradient of AvgPool: each ``grad`` value divided by its window's count, spread over the window."""

    name = "tf.AvgPoolGrad"
    orig_input_shape = operand_def()
    grad_ = operand_def()  # TensorFlow's operand 'grad' (the rule name grad is the gradient)
    output = result_def()
    KINDS: ClassVar[str] = "f"

    @classmethod
    def infer(cls, orig_input_shape, grad, **attrs):
        check_dtype(cls.name, grad, cls.KINDS, "grad")
        shape = sizes_operand(cls.name, "orig_input_shape", orig_input_shape)
        cls.check_like("grad", grad.shape, cls.window(shape, attrs).output_nhwc, attrs)
        return TensorSpec(shape, grad.dtype)

    @classmethod
    def compute(cls, xp, orig_input_shape, grad, **attrs):
        shape = sizes_operand(cls.name, "orig_input_shape", TensorSpec((4,), value=orig_input_shape))
        win = cls.window(shape, attrs)
        cls.check_like("grad", grad.shape, win.output_nhwc, attrs)
        return np_avg_pool_grad(grad, win, attrs["data_format"])

    @classmethod
    def lower(cls, orig_input_shape, grad, **attrs):
        shape = static_sizes(cls.name, orig_input_shape)
        return jax_avg_pool_grad(shape, grad, cls.window(shape, attrs), attrs["data_format"])


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


# --- public functions (tf.nn) -------------------------------------------------------------------

def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    fmt = data_format or "NHWC"
    padding, explicit = padding_attrs(padding)
    return MaxPool.bind(input, ksize=window_attr(MaxPool.name, "ksize", ksize, fmt),
                        strides=window_attr(MaxPool.name, "strides", strides, fmt), padding=padding,
                        explicit_paddings=explicit, data_format=fmt)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    fmt = data_format or "NHWC"
    return AvgPool.bind(input, ksize=window_attr(AvgPool.name, "ksize", ksize, fmt),
                        strides=window_attr(AvgPool.name, "strides", strides, fmt), padding=padding,
                        data_format=fmt)


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """TF2's tf.nn.max_pool: max_pool1d, max_pool2d or max_pool3d by the input's rank (3, 4 or 5)."""
    pool, default_format = _by_rank("max_pool", input, (_ops.max_pool1d, max_pool2d, _ops.max_pool3d))
    return pool(input, ksize, strides, padding, data_format=data_format or default_format)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """TF2's tf.nn.avg_pool: avg_pool1d, avg_pool2d or avg_pool3d by the input's rank (3, 4 or 5)."""
    pool, default_format = _by_rank("avg_pool", input, (_ops.avg_pool1d, avg_pool2d, _ops.avg_pool3d))
    return pool(input, ksize, strides, padding, data_format=data_format or default_format)


def _by_rank(fn, input, pools):
    rank = static_rank(input) if hasattr(input, "shape") and not isinstance(input, np.ndarray) else np.ndim(input)
    if rank not in (3, 4, 5):
        raise InvalidArgumentError(f"{fn}: input must have rank 3, 4 or 5 (1 to 3 spatial dims), got rank {rank}", fn)
    return pools[rank - 3], ("NWC", "NHWC", "NDHWC")[rank - 3]
