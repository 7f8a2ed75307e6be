"""tf.nn's normalisations: the LRN op (and LRNGrad), and moments, batch_normalization, l2_normalize and
friends as composites written as TensorFlow writes them (tensorflow/python/ops/nn_impl.py).

    %y = "tf.LRN"(%x) <{alpha = 1.000000e+00 : f32, beta = 5.000000e-01 : f32, bias = 1.000000e+00 : f32,
           depth_radius = 5 : i64}> : (tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>

LRN normalises each value by the squares of its ``depth_radius`` neighbours on each side along the last
(channel) axis: ``y = x / (bias + alpha * sum(x[c - r : c + r + 1] ** 2)) ** beta``. The fused batch norm
ops are in nn_fused_batch_norm.py.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import check_dtype, fmt_shape, same_dtype
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["local_response_normalization", "lrn", "moments", "weighted_moments", "sufficient_statistics",
           "normalize_moments", "batch_normalization", "batch_norm_with_global_normalization", "l2_normalize",
           "zero_fraction"]
__namespaces__ = {"l2_normalize": ("nn", "math", "linalg"), "zero_fraction": ("nn", "math")}


def _window_sum(xp, x, radius: int):
    """sum(x[..., c - r : c + r + 1]) for every channel c (zeros beyond the edges)."""
    depth = x.shape[-1]
    r = min(radius, depth)  # a window wider than the channels sees all of them
    padded = xp.pad(x, [(0, 0)] * (x.ndim - 1) + [(r, r)])
    total = padded[..., 0:depth]
    for k in range(1, 2 * r + 1):
        total = total + padded[..., k:k + depth]
    return total


def _widened(xp, x):
    return x.astype(xp.float32) if x.dtype.itemsize < 4 else x  # half precision computed in float32


class _LRNBase(Op):
    depth_radius = attr(5)
    bias = attr(1.0)
    alpha = attr(1.0)
    beta = attr(0.5)
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"bias": v.F32_ATTR, "alpha": v.F32_ATTR, "beta": v.F32_ATTR}

    @classmethod
    def check_input(cls, spec, what):
        check_dtype(cls.name, spec, "f", what)
        if spec.shape is not None and len(spec.shape) != 4:
            raise InvalidArgumentError(f"{cls.name}: {what} must be 4-dimensional, got {fmt_shape(spec.shape)}",
                                       cls.name)

    @classmethod
    def check_radius(cls, depth_radius):
        if depth_radius < 0:
            raise InvalidArgumentError(f"{cls.name}: depth_radius = {depth_radius} must be non-negative", cls.name)

    @staticmethod
    def norm(xp, x, depth_radius, bias, alpha):
        f32 = np.float32
        return xp.asarray(f32(bias), x.dtype) + xp.asarray(f32(alpha), x.dtype) * \
            _window_sum(xp, x * x, depth_radius)


@register
class LRN(_LRNBase):
    """Local response normalisation over the channel axis of a 4-D NHWC tensor."""

    name = "tf.LRN"
    input = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, input, *, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
        cls.check_input(input, "input")
        cls.check_radius(depth_radius)
        return TensorSpec(input.shape, input.dtype)

    @classmethod
    def compute(cls, xp, input, *, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
        x = _widened(xp, input)
        n = cls.norm(xp, x, depth_radius, bias, alpha)
        return (x * n ** xp.asarray(-np.float32(beta), x.dtype)).astype(input.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = x * N^-beta: dx = lrn_grad(U, x, y)
        return [LRNGrad.bind(dy, op.inputs[0], op.outputs[0], **op.attrs)]


@register
class LRNGrad(_LRNBase):
    """The gradient of LRN: dx_j = U_j N_j^-beta - 2 alpha beta x_j sum_{i near j} U_i x_i N_i^(-beta-1),
    with N the forward op's normaliser. TensorFlow defines no gradient of it."""

    name = "tf.LRNGrad"
    input_grads = operand_def()
    input_image = operand_def()
    output_image = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, input_grads, input_image, output_image, *, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
        same_dtype(cls.name, input_grads, input_image, output_image)
        for spec, what in ((input_grads, "input_grads"), (input_image, "input_image"),
                           (output_image, "output_image")):
            cls.check_input(spec, what)
        shapes = [s.shape for s in (input_grads, input_image, output_image)]
        known = [s for s in shapes if s is not None]
        if any(any(a is not None and b is not None and a != b for a, b in zip(s, known[0], strict=True))
               for s in known):
            raise InvalidArgumentError(
                f"{cls.name}: input_grads, input_image and output_image must have the same shape, got "
                + ", ".join(fmt_shape(s) for s in shapes), cls.name)
        cls.check_radius(depth_radius)
        return TensorSpec(input_grads.shape, input_grads.dtype)  # (a fresh spec: the operand's may carry its value)

    @classmethod
    def compute(cls, xp, input_grads, input_image, output_image, *, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
        if input_grads.shape != input_image.shape or input_image.shape != output_image.shape:
            raise InvalidArgumentError(
                f"{cls.name}: input_grads {fmt_shape(input_grads.shape)}, input_image "
                f"{fmt_shape(input_image.shape)} and output_image {fmt_shape(output_image.shape)} must have "
                "the same shape", cls.name)
        g, x = _widened(xp, input_grads), _widened(xp, input_image)
        b = xp.asarray(np.float32(beta), x.dtype)
        n = cls.norm(xp, x, depth_radius, bias, alpha)
        inner = g * x * n ** (-b - 1)
        spread = _window_sum(xp, inner, depth_radius)  # the window is symmetric: i near j iff j near i
        out = g * n ** (-b) - 2 * xp.asarray(np.float32(alpha), x.dtype) * b * x * spread
        return out.astype(input_grads.dtype)


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):
    return LRN.bind(input, depth_radius=int(depth_radius), bias=float(bias), alpha=float(alpha), beta=float(beta))


lrn = local_response_normalization


# --- moments and batch normalisation (composites) ------------------------------------------------

def _axes(axes):
    return [int(a) for a in (axes if isinstance(axes, list | tuple) else [axes])]


def _squeeze(x, axes, keepdims):
    return x if keepdims else _ops.squeeze(x, axes)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of x over ``axes``; float16 is computed in float32, as in TensorFlow."""
    m = _ops
    x = as_tensor(x)
    axes = _axes(axes)
    y = m.cast(x, "float32") if x.dtype.name == "float16" else x
    mean = m.reduce_mean(y, axes, keepdims=True)
    variance = m.reduce_mean(m.squared_difference(y, m.stop_gradient(mean)), axes, keepdims=True)
    mean, variance = _squeeze(mean, axes, keepdims), _squeeze(variance, axes, keepdims)
    if x.dtype.name == "float16":
        return m.cast(mean, x.dtype), m.cast(variance, x.dtype)
    return mean, variance


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """(mean, variance) of x over ``axes`` with each value counted ``frequency_weights`` times."""
    m = _ops
    x = as_tensor(x)
    axes = _axes(axes)
    y = m.cast(x, "float32") if x.dtype.name == "float16" else x
    w = m.cast(as_tensor(frequency_weights), y.dtype)
    weighted_sum = m.reduce_sum(m.multiply(w, y), axes, keepdims=True)
    sum_of_weights = m.reduce_sum(m.add(w, m.zeros_like(y)), axes, keepdims=True)
    divisor = m.reciprocal(sum_of_weights)
    mean = m.multiply(weighted_sum, divisor)
    variance = m.multiply(m.reduce_sum(m.multiply(w, m.squared_difference(y, mean)), axes, keepdims=True), divisor)
    mean, variance = _squeeze(mean, axes, keepdims), _squeeze(variance, axes, keepdims)
    if x.dtype.name == "float16":
        return m.cast(mean, x.dtype), m.cast(variance, x.dtype)
    return mean, variance


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None, keep_dims=None):
    """(count, sum of x - shift, sum of (x - shift)^2, shift) over ``axes``; count is of x's dtype."""
    m = _ops
    x = as_tensor(x)
    axes = _axes(axes)
    keepdims = bool(keepdims if keep_dims is None else keep_dims)
    dims = static_dims(x)
    if dims is not None and all(dims[a] is not None for a in axes):
        counts = as_tensor(np.prod([dims[a] for a in axes], dtype=np.int64), dtype=x.dtype)
    else:
        shape = m.cast(m.gather(_ops.shape(x), axes), x.dtype)
        counts = m.reduce_prod(shape)
    if shift is not None:
        shift = as_tensor(shift, like=x)
        mean_ss, var_ss = m.subtract(x, shift), m.squared_difference(x, shift)
    else:
        mean_ss, var_ss = x, m.square(x)
    return counts, m.reduce_sum(mean_ss, axes, keepdims=keepdims), m.reduce_sum(var_ss, axes, keepdims=keepdims), shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics."""
    m = _ops
    mean_ss = as_tensor(mean_ss)
    divisor = m.reciprocal(as_tensor(counts, like=mean_ss))
    shifted_mean = m.multiply(mean_ss, divisor)
    mean = shifted_mean if shift is None else m.add(shifted_mean, as_tensor(shift, like=mean_ss))
    variance = m.subtract(m.multiply(as_tensor(variance_ss, like=mean_ss), divisor), m.square(shifted_mean))
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """scale * (x - mean) / sqrt(variance + epsilon) + offset, as x * inv + (offset - mean * inv)."""
    m = _ops
    x = as_tensor(x)
    mean, variance = as_tensor(mean, like=x), as_tensor(variance, like=x)
    inv = m.rsqrt(m.add(variance, m.cast(variance_epsilon, variance.dtype)))
    if scale is not None:
        inv = m.multiply(inv, as_tensor(scale, like=x))
    shift = m.negative(m.multiply(mean, inv)) if offset is None else \
        m.subtract(as_tensor(offset, like=x), m.multiply(mean, inv))
    return m.add(m.multiply(x, m.cast(inv, x.dtype)), m.cast(shift, x.dtype))


def batch_norm_with_global_normalization(input, mean, variance, beta, gamma, variance_epsilon,
                                         scale_after_normalization, name=None):
    """batch_normalization with offset ``beta``, and scale ``gamma`` when ``scale_after_normalization``."""
    return batch_normalization(input, mean, variance, beta, gamma if scale_after_normalization else None,
                               variance_epsilon)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x^2, axis), epsilon))."""
    m = _ops
    x = as_tensor(x)
    axis = dim if axis is None else axis
    if axis is None:
        axis = list(range(len(static_dims(x))))
    square_sum = m.reduce_sum(m.square(x), axis, keepdims=True)
    return m.multiply(x, m.rsqrt(m.maximum(square_sum, m.cast(epsilon, x.dtype))))


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value``, a float32 scalar."""
    m = _ops
    value = as_tensor(value)
    is_zero = m.equal(value, m.zeros_like(value))
    return m.reduce_mean(m.cast(is_zero, "float32"))
