"""tt.linalg's functions written with its ops, as TensorFlow's Python writes them: eye, logdet,
cholesky_solve, the LU family (lu_reconstruct, lu_solve, lu_matrix_inverse), pinv, matrix_rank,
tensor_diag and tensor_diag_part. Their gradients follow
from the ops' (tf.Lu itself is not differentiable: the LU functions differentiate in rhs only).

    tt.eye(3)                                   # tf.eye: an identity matrix (a constant)
    x = tt.linalg.cholesky_solve(tt.linalg.cholesky(a), b)     # a x = b, a Hermitian positive definite
    lu, p = tt.linalg.lu(a); x = tt.linalg.lu_solve(lu, p, b)
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.ops.linalg_decompositions import cholesky, svd
from tinytf.ops.linalg_solvers import triangular_solve
from tinytf.ops.linalg_structure import band_part, diag_part, set_diag
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import static_value
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["eye", "logdet", "cholesky_solve", "lu_reconstruct", "lu_solve", "lu_matrix_inverse", "pinv", "matrix_rank",
           "tensor_diag", "tensor_diag_part"]
__namespaces__ = {n: ("linalg",) for n in __all__} | {"eye": ("linalg", "top")}


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """``tt.eye``: [*batch_shape, num_rows, num_columns] with ones on the diagonal (sizes known before running)."""
    sizes = [static_value(num_rows), static_value(num_rows if num_columns is None else num_columns)]
    batch = [] if batch_shape is None else static_value(batch_shape)
    if any(v is None or np.ndim(v) != 0 for v in sizes) or batch is None:
        raise InvalidArgumentError("tt.eye: num_rows, num_columns and batch_shape must be known before running",
                                   "tf.Const")
    rows, cols = (int(v) for v in sizes)
    if rows < 0 or cols < 0:
        raise InvalidArgumentError(f"tt.eye: sizes must be non-negative, got {rows} x {cols}", "tf.Const")
    batch = [int(b) for b in np.asarray(batch).reshape(-1)]
    matrix = np.eye(rows, cols, dtype=dtypes.as_dtype(dtype).np)
    return ops.constant(np.broadcast_to(matrix, batch + [rows, cols]).copy())


def logdet(matrix, name=None):
    """``tt.linalg.logdet``: log det of Hermitian positive definite matrices, 2 Σ log diag(cholesky(a))."""
    return ops.multiply(ops.reduce_sum(ops.log(diag_part(cholesky(as_tensor(matrix)))), axis=-1), 2.0)


def cholesky_solve(chol, rhs, name=None):
    """``tt.linalg.cholesky_solve(chol, rhs)``: x with (chol chol^H) x = rhs, chol from ``cholesky``."""
    chol = as_tensor(chol)
    y = triangular_solve(chol, as_tensor(rhs, like=chol), lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


def _factors(lower_upper):
    """(L, U): L unit lower triangular, U upper, packed in ``lower_upper``."""
    ones = ops.ones_like(diag_part(lower_upper))
    lower = set_diag(band_part(lower_upper, -1, 0), ones)
    return lower, band_part(lower_upper, 0, -1)


def _rows(x, perm):
    """x's rows picked by ``perm`` (batched over the leading dims)."""
    dims = static_dims(x)
    if dims is None:
        raise InvalidArgumentError("tt.linalg: the LU functions need a static rank", "tf.GatherV2")
    return ops.gather(x, perm, axis=len(dims) - 2, batch_dims=len(dims) - 2)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """``tt.linalg.lu_reconstruct``: a from ``lu(a)``: the rows of L U put back in their order."""
    lower_upper = as_tensor(lower_upper)
    lower, upper = _factors(lower_upper)
    return _rows(ops.matmul(lower, upper), ops.argsort(as_tensor(perm)))  # argsort: the inverse permutation


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """``tt.linalg.lu_solve``: x with a x = rhs, from ``lu(a)`` (a[perm] = L U)."""
    lower_upper = as_tensor(lower_upper)
    lower, upper = _factors(lower_upper)
    permuted = _rows(as_tensor(rhs, like=lower_upper), perm)
    return triangular_solve(upper, triangular_solve(lower, permuted, lower=True), lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """``tt.linalg.lu_matrix_inverse``: a^-1 from ``lu(a)``."""
    lower_upper = as_tensor(lower_upper)
    dims = static_dims(lower_upper)
    if dims is None or None in dims:
        raise InvalidArgumentError(f"tt.linalg.lu_matrix_inverse: the shape must be static, got {dims}", "tf.Const")
    identity = eye(dims[-1], batch_shape=list(dims[:-2]), dtype=lower_upper.dtype)
    return lu_solve(lower_upper, perm, identity)


def _default_tolerance(a, s, rcond):
    """TensorFlow's cutoff: rcond (default 10 max(m, n) ε) times the largest singular value."""
    dims = static_dims(a)
    if rcond is None:
        rcond = 10.0 * max(dims[-2], dims[-1]) * np.finfo(a.dtype.np).eps
    return ops.multiply(ops.reduce_max(s, axis=-1, keepdims=True), ops.constant(np.asarray(rcond, a.dtype.np)))


def pinv(a, rcond=None, validate_args=False, name=None):
    """``tt.linalg.pinv``: the Moore-Penrose pseudo-inverse, from the SVD; singular values at most
    rcond · max(s) count as zero (TensorFlow's rule)."""
    a = as_tensor(a)
    if not a.dtype.is_floating:
        raise InvalidArgumentError(f"tt.linalg.pinv: input must be float, got {a.dtype.name}", "tf.Svd")
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    cutoff = _default_tolerance(a, s, rcond)
    inverse = ops.where(ops.greater(s, cutoff), ops.reciprocal(ops.where(ops.greater(s, cutoff), s, ops.ones_like(s))),
                        ops.zeros_like(s))
    return ops.matmul(ops.multiply(v, ops.expand_dims(inverse, -2)), u, adjoint_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """``tt.linalg.matrix_rank``: the number of singular values above ``tol`` (default max(m, n) ε max(s), as
    TensorFlow and numpy), int64."""
    a = as_tensor(a)
    s = svd(a, compute_uv=False)
    dims = static_dims(a)
    default = max(dims[-2], dims[-1]) * np.finfo(a.dtype.np).eps
    cutoff = _default_tolerance(a, s, default) if tol is None else ops.constant(np.asarray(tol, a.dtype.np))
    return ops.reduce_sum(ops.cast(ops.greater(s, cutoff), dtypes.int64), axis=-1)


def tensor_diag(diagonal, name=None):
    """``tt.linalg.tensor_diag``: [d1..dk] -> [d1..dk, d1..dk], output[i..., i...] = diagonal[i...]."""
    x = as_tensor(diagonal)
    dims = static_dims(x)
    if dims is None or None in dims:
        raise InvalidArgumentError(f"tt.linalg.tensor_diag: the shape must be static, got {dims}", "tf.Reshape")
    from tinytf.ops.linalg_structure import diag

    return ops.reshape(diag(ops.reshape(x, [-1])), list(dims) * 2)


def tensor_diag_part(input, name=None):  # noqa: A002 (TensorFlow's name)
    """``tt.linalg.tensor_diag_part``: tensor_diag's inverse, [d1..dk, d1..dk] -> [d1..dk]."""
    x = as_tensor(input)
    dims = static_dims(x)
    if dims is None or None in dims or len(dims) % 2 or dims[:len(dims) // 2] != dims[len(dims) // 2:]:
        raise InvalidArgumentError(f"tt.linalg.tensor_diag_part: the shape must be static [d..., d...], got {dims}",
                                   "tf.Reshape")
    half = list(dims[:len(dims) // 2])
    n = int(np.prod(half))
    return ops.reshape(diag_part(ops.reshape(x, [n, n])), half)
