"""tt.linalg's norms: norm (vector and matrix norms of every ``ord`` TensorFlow accepts), normalize and
global_norm, written with other ops as TensorFlow's linalg_impl.py / clip_ops.py write them, so the
gradients follow.

    tt.linalg.norm(x)                              # sqrt(sum |x|^2) over every element
    tt.linalg.norm(x, ord=1, axis=-1)              # vector 1-norm of each row
    tt.linalg.norm(a, ord=2, axis=[-2, -1])        # the largest singular value of each matrix
    unit, length = tt.linalg.normalize(x, axis=1)  # x / norm, and the norm
    tt.linalg.global_norm([w, b])                  # sqrt(sum of every element squared of every tensor)
    clipped, total = tt.clip_by_global_norm([gw, gb], 5.0)   # scaled by 5 / total when total > 5
"""
from __future__ import annotations

import numbers

import numpy as np

from tinytf.errors import InvalidArgumentError
from tinytf.ops.linalg_decompositions import svd
from tinytf.ops.op_functions import ops
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["norm", "normalize", "global_norm", "clip_by_global_norm"]
__namespaces__ = {"norm": ("linalg", "top"), "normalize": ("linalg",), "global_norm": ("linalg",),
                  "clip_by_global_norm": ("top",)}

def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check(ord, axis):
    """TensorFlow's argument rules; the axes as a tuple (None: every element) and whether it is a matrix norm."""
    matrix = isinstance(axis, tuple | list) and len(axis) == 2
    if matrix:
        axis = tuple(axis)
        if not all(_is_int(a) for a in axis) or axis[0] == axis[1]:
            raise InvalidArgumentError(f"tt.linalg.norm: 'axis' must be None, an integer, or a tuple of 2 unique "
                                       f"integers, got {axis}", "tf.Sum")
        if ord not in ("euclidean", "fro") and (isinstance(ord, str | bool) or ord not in (1, 2, np.inf)):
            raise InvalidArgumentError(f"tt.linalg.norm: 'ord' must be a supported matrix norm in "
                                       f"['euclidean', 'fro', 1, 2, inf], got {ord}", "tf.Sum")
        return axis, True
    if not (axis is None or _is_int(axis)):
        raise InvalidArgumentError(f"tt.linalg.norm: 'axis' must be None, an integer, or a tuple of 2 unique "
                                   f"integers, got {axis}", "tf.Sum")
    positive = isinstance(ord, numbers.Real) and not isinstance(ord, bool) and ord > 0
    if not positive and ord != "euclidean":
        raise InvalidArgumentError(f"tt.linalg.norm: 'ord' must be a supported vector norm, got {ord}", "tf.Sum")
    return (None if axis is None else (axis,)), False


def _spectral_norm(x, axis):
    """The largest singular value of the matrices in dims ``axis``, kept as size-1 dims there."""
    dims = static_dims(x)
    if dims is None:
        raise InvalidArgumentError("tt.linalg.norm: ord=2 over two axes needs a static rank", "tf.Svd")
    rank = len(dims)
    pair = [a % rank for a in axis]
    if any(not -rank <= a < rank for a in axis):
        raise InvalidArgumentError(f"tt.linalg.norm: axis {axis} is out of range for rank {rank}", "tf.Svd")
    perm = [d for d in range(rank) if d not in pair] + pair
    largest = ops.reduce_max(svd(ops.transpose(x, perm), compute_uv=False), axis=-1, keepdims=True)
    kept = ops.expand_dims(largest, -1)                              # [..., 1, 1] in the permuted order
    return ops.transpose(kept, list(np.argsort(perm)))


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002 (TensorFlow's name)
    """``tt.linalg.norm``: a vector norm (ord: 'euclidean', 1, 2, inf or any p > 0) over every element or
    one axis, or a matrix norm (ord: 'fro' / 'euclidean', 1, 2, inf) over two axes."""
    x = as_tensor(tensor)
    axes, matrix = _check(ord, axis)
    if ord in ("fro", "euclidean") or (not isinstance(ord, str) and ord == 2):
        if matrix and not isinstance(ord, str):
            result = _spectral_norm(x, axes)
        else:
            result = ops.sqrt(ops.reduce_sum(ops.multiply(x, ops.conj(x)), axis=axes, keepdims=True))
    else:
        magnitude = ops.abs(x)
        if ord == 1:
            result = ops.reduce_sum(magnitude, axis=None if axes is None else axes[0], keepdims=True)
            if matrix:  # the largest column sum
                result = ops.reduce_max(result, axis=axes[1], keepdims=True)
        elif ord == np.inf:
            if matrix:  # the largest row sum
                magnitude = ops.reduce_sum(magnitude, axis=axes[1], keepdims=True)
            result = ops.reduce_max(magnitude, axis=None if axes is None else axes[0], keepdims=True)
        else:  # a general p-norm, p > 0
            p = ops.scalar_like(magnitude, float(ord))
            summed = ops.reduce_sum(ops.pow(magnitude, p), axis=axes, keepdims=True)
            result = ops.pow(summed, ops.scalar_like(summed, 1.0 / float(ord)))
    if not keepdims:
        result = ops.squeeze(result, axes if axes is not None else _all_axes(result))
    return result


def _all_axes(x):
    dims = static_dims(x)
    if dims is None:
        raise InvalidArgumentError("tt.linalg.norm: a norm over every element needs a static rank", "tf.Squeeze")
    return list(range(len(dims)))


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """``tt.linalg.normalize``: (tensor / norm, norm), the norm kept with size-1 dims to broadcast."""
    x = as_tensor(tensor)
    length = ops.cast(norm(x, ord=ord, axis=axis, keepdims=True), x.dtype)
    return ops.divide(x, length), length


def global_norm(t_list, name=None):
    """``tt.linalg.global_norm``: sqrt(Σ over the tensors of sum(t^2)); None entries are skipped."""
    if isinstance(t_list, str) or not hasattr(t_list, "__iter__") or hasattr(t_list, "dtype"):
        raise InvalidArgumentError("tt.linalg.global_norm: t_list must be a sequence of tensors", "tf.L2Loss")
    tensors = [as_tensor(t) for t in t_list if t is not None]
    if not tensors:
        raise InvalidArgumentError("tt.linalg.global_norm: t_list holds no tensors", "tf.L2Loss")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype != dtype:
            raise InvalidArgumentError(f"tt.linalg.global_norm: the tensors must share a dtype, got {dtype.name} and "
                                       f"{t.dtype.name}", "tf.L2Loss")
    squares = [ops.reduce_sum(ops.square(t)) for t in tensors]
    return ops.sqrt(ops.add_n(squares) if len(squares) > 1 else squares[0])


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``tt.clip_by_global_norm``: (the tensors times clip_norm / max(global_norm, clip_norm), global_norm);
    a non-finite global norm makes every value NaN, as TensorFlow's."""
    if isinstance(t_list, str) or not hasattr(t_list, "__iter__") or hasattr(t_list, "dtype"):
        raise InvalidArgumentError("tt.clip_by_global_norm: t_list must be a sequence of tensors", "tf.L2Loss")
    t_list = list(t_list)
    total = global_norm(t_list) if use_norm is None else as_tensor(use_norm)
    limit = as_tensor(clip_norm, like=total)
    # clip_norm · min(1 / norm, 1 / clip_norm), plus (norm - norm): NaN when the norm is inf or NaN
    scale = ops.multiply(limit, ops.minimum(ops.reciprocal(total), ops.reciprocal(limit)))
    scale = ops.add(scale, ops.subtract(total, total))
    clipped = [None if t is None else ops.multiply(as_tensor(t), ops.cast(scale, as_tensor(t).dtype)) for t in t_list]
    return clipped, total
