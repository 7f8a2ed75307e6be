"""The statistics reductions of tt.math: tf.EuclideanNorm, and reduce_logsumexp, reduce_variance,
reduce_std, count_nonzero, is_non_decreasing, is_strictly_increasing written with other ops as
TensorFlow's math_ops.py writes them (so their gradients follow).

    %n = "tf.EuclideanNorm"(%x, %axes) <{keep_dims = false}> : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<2xf32>

    tt.math.reduce_logsumexp(x, axis=1)        # log(sum(exp(x))), without overflow
    tt.math.reduce_std(x)                       # sqrt(mean(|x - mean(x)|^2))
    tt.math.count_nonzero(x, axis=0)            # int64
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import register
from tinytf.ops.op_functions import ops
from tinytf.ops.reduction import _axes_operand, _broadcast_back, _Reduce
from tinytf.ops.tensor_inputs import as_tensor, static_dims
from tinytf.ops.type_lists import NUMBER

__all__ = ["reduce_euclidean_norm", "reduce_logsumexp", "reduce_variance", "reduce_std", "count_nonzero",
           "is_non_decreasing", "is_strictly_increasing"]
__namespaces__ = {"reduce_euclidean_norm": ("math",), "reduce_logsumexp": ("math", "top"),
                  "reduce_variance": ("math",), "reduce_std": ("math",), "count_nonzero": ("math",),
                  "is_non_decreasing": ("math",), "is_strictly_increasing": ("math",)}


@register
class EuclideanNorm(_Reduce):
    """sqrt(Σ |x|^2) over axes (integers: the square root truncated, in the input's dtype)."""

    name = "tf.EuclideanNorm"
    TYPES: ClassVar = NUMBER
    BATCHING: ClassVar[str] = "loop"

    @staticmethod
    def _reduce(xp, x, axes, keep_dims):
        if x.dtype.kind in "iu":
            with np.errstate(all="ignore"):
                squares = xp.sum(x * x, axis=axes, keepdims=keep_dims, dtype=x.dtype)
            return xp.floor(xp.sqrt(squares.astype(np.float64))).astype(x.dtype)
        squares = xp.sum(x * xp.conj(x), axis=axes, keepdims=keep_dims, dtype=x.dtype)
        return xp.sqrt(squares).astype(x.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = ||x||: dx = x / (y / U), y and U broadcast back over axes
        x, y = op.inputs[0], op.outputs[0]
        return [ops.divide(x, ops.divide(_broadcast_back(op, y), _broadcast_back(op, dy))), None]


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """``tt.math.reduce_euclidean_norm``: sqrt(Σ |x|^2) over ``axis`` (every axis by default)."""
    x = as_tensor(input_tensor)
    return EuclideanNorm.bind(x, _axes_operand(x, axis), keep_dims=bool(keepdims))


def _floating(what, x):
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise InvalidArgumentError(f"tt.math.{what}: input must be either real or complex, got {x.dtype.name}",
                                   "tf.Mean")


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """``tt.math.reduce_logsumexp``: log(Σ exp(x)) over ``axis``, computed as m + log(Σ exp(x - m)) with m the
    (finite) maximum, held constant for the gradient, as TensorFlow's."""
    x = as_tensor(input_tensor)
    _floating("reduce_logsumexp", x)
    raw_max = ops.reduce_max(x, axis=axis, keepdims=True)
    shift = ops.stop_gradient(ops.where(ops.is_finite(raw_max), raw_max, ops.zeros_like(raw_max)))
    result = ops.log(ops.reduce_sum(ops.exp(ops.subtract(x, shift)), axis=axis, keepdims=keepdims))
    if not keepdims:
        shift = ops.reshape(shift, ops.shape(result)) if static_dims(result) is None else \
            ops.reshape(shift, list(static_dims(result)))
    return ops.add(result, shift)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """``tt.math.reduce_variance``: mean(|x - mean(x)|^2) over ``axis`` (real for complex input)."""
    x = as_tensor(input_tensor)
    _floating("reduce_variance", x)
    deviations = ops.subtract(x, ops.reduce_mean(x, axis=axis, keepdims=True))
    if x.dtype.is_complex:
        squared = ops.real(ops.multiply(deviations, ops.conj(deviations)))
    else:
        squared = ops.square(deviations)
    return ops.reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """``tt.math.reduce_std``: sqrt(reduce_variance(x))."""
    return ops.sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None):  # noqa: A002 (TF's name)
    """``tt.math.count_nonzero``: how many elements are not zero (not "" for strings) over ``axis``."""
    x = as_tensor(input)
    zero = ops.constant("") if x.dtype.name == "string" else ops.zeros_like(x)
    nonzero = ops.cast(ops.not_equal(x, zero), dtypes.int64)
    return ops.cast(ops.reduce_sum(nonzero, axis=axis, keepdims=bool(keepdims)), dtypes.as_dtype(dtype))


def _differences(what, x):
    """x flattened, then x[1:] - x[:-1] (empty for fewer than two elements), as TensorFlow's check_ops."""
    x = as_tensor(x)
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise InvalidArgumentError(f"tt.math.{what}: Expected x to be numeric, got {x.dtype.name}", "tf.Sub")
    flat = ops.reshape(x, [-1])
    dims = static_dims(flat)
    if dims is None or dims[0] is None:
        raise InvalidArgumentError(f"tt.math.{what}: the input's size must be static", "tf.Sub")
    n = dims[0]
    if n < 2:
        return ops.constant(np.zeros(0, x.dtype.np))
    return ops.subtract(ops.slice(flat, [1], [n - 1]), ops.slice(flat, [0], [n - 1]))


def is_non_decreasing(x, name=None):
    """``tt.math.is_non_decreasing``: every element of x (flattened) >= the one before (True for fewer than 2)."""
    diff = _differences("is_non_decreasing", x)
    return ops.reduce_all(ops.less_equal(ops.zeros_like(diff), diff))


def is_strictly_increasing(x, name=None):
    """``tt.math.is_strictly_increasing``: every element of x (flattened) > the one before."""
    diff = _differences("is_strictly_increasing", x)
    return ops.reduce_all(ops.less(ops.zeros_like(diff), diff))
