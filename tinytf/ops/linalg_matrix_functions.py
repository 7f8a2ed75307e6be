"""Functions of a matrix and least squares, batched over the leading dims: MatrixExponential,
MatrixSquareRoot and MatrixSolveLs (tt.linalg.expm, sqrtm, lstsq).

    %y = "tf.MatrixExponential"(%a) : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %r = "tf.MatrixSquareRoot"(%a) : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
    %x = "tf.MatrixSolveLs"(%a, %b, %l2) <{fast = true}> : (tensor<5x3xf32>, tensor<5x2xf32>, tensor<f64>) -> tensor<3x2xf32>

scipy eagerly, jax.scipy under XLA (half precision computed in float32). The gradients:

- expm: the Fréchet derivative's adjoint, dA = the top-right block of expm([[A^H, U], [0, A^H]])
  (the value TensorFlow's differentiated Padé approximant gives);
- sqrtm: TensorFlow's rule, dA solves the Sylvester equation R^H dA + dA R^H = U, R = sqrtm(A);
- lstsq (fast): TensorFlow's, from the regularised normal equations of the first kind (m >= n) or of
  the second kind (m < n); fast=False has no gradient in TensorFlow either.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.linalg_decompositions import cholesky
from tinytf.ops.linalg_functions import cholesky_solve, eye
from tinytf.ops.linalg_structure import check_matrices, wide
from tinytf.ops.op_functions import ops
from tinytf.ops.tensor_inputs import as_tensor, static_dims
from tinytf.ops.type_lists import is_numpy

__all__ = ["expm", "sqrtm", "lstsq"]
__namespaces__ = {n: ("linalg",) for n in __all__}


def _square_dims(op_name, x):
    dims = static_dims(x)
    if dims is None or None in dims[-2:]:
        raise UnimplementedError(f"{op_name}'s gradient needs the static matrix size, got {dims}", op_name)
    return list(dims)


def _per_matrix(fn, x):
    """fn applied to each matrix of a batch (scipy's sqrtm takes one at a time)."""
    flat = x.reshape((-1,) + x.shape[-2:])
    return np.stack([fn(m) for m in flat]).reshape(x.shape) if flat.shape[0] else x.copy()


@register
class MatrixExponential(Op):
    """exp(A) = Σ A^k / k! of each matrix.  %y = "tf.MatrixExponential"(%a) : (tensor<3x3xf32>) -> tensor<3x3xf32>"""

    name = "tf.MatrixExponential"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input):
        check_matrices(cls.name, input)
        return TensorSpec(input.shape, input.dtype)

    @staticmethod
    def compute(xp, input):
        a = wide(input)
        if is_numpy(xp):
            return (scipy.linalg.expm(a) if a.size else a.copy()).astype(input.dtype)
        import jax

        return jax.numpy.vectorize(jax.scipy.linalg.expm, signature="(n,n)->(n,n)")(a).astype(input.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and Y = expm(A): dA = expm([[A^H, U], [0, A^H]])[:n, n:]
        a = op.inputs[0]
        dims = _square_dims(MatrixExponential.name, a)
        n, rank = dims[-1], len(dims)
        a_h = ops.matrix_transpose(a, conjugate=True)
        block = ops.concat([ops.concat([a_h, dy], rank - 1), ops.concat([ops.zeros_like(a_h), a_h], rank - 1)],
                           rank - 2)
        return [ops.slice(MatrixExponential.bind(block), [0] * (rank - 1) + [n], dims[:-2] + [n, n])]


def expm(input, name=None):  # noqa: A002 (TensorFlow's name)
    """``tt.linalg.expm``: the matrix exponential of each matrix."""
    return MatrixExponential.bind(as_tensor(input))


def _sqrtm(m):
    # scipy's float32 sqrtm loses digits the gradient checker sees: float64 (complex128), rounded after
    root = scipy.linalg.sqrtm(m.astype(np.complex128 if np.iscomplexobj(m) else np.float64))
    return root.real if not np.iscomplexobj(m) else root


@register
class MatrixSquareRoot(Op):
    """The principal square root R (R R = A) of each matrix.
    %r = "tf.MatrixSquareRoot"(%a) : (tensor<3x3xf32>) -> tensor<3x3xf32>"""

    name = "tf.MatrixSquareRoot"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input):
        check_matrices(cls.name, input)
        return TensorSpec(input.shape, input.dtype)

    @staticmethod
    def compute(xp, input):
        a = wide(input)
        if is_numpy(xp):
            with np.errstate(all="ignore"):
                return _per_matrix(_sqrtm, a).astype(input.dtype)
        import jax

        root = jax.numpy.vectorize(jax.scipy.linalg.sqrtm, signature="(n,n)->(n,n)")(a)
        return (root if jax.numpy.iscomplexobj(a) else root.real).astype(input.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and R = sqrtm(A): dA solves R^H dA + dA R^H = U
        r = op.outputs[0]
        dims = _square_dims(MatrixSquareRoot.name, r)
        n, batch = dims[-1], dims[:-2]
        r_h = ops.matrix_transpose(r, conjugate=True)
        identity = eye(n, batch_shape=batch, dtype=r.dtype)
        # row-major vec: vec(R^H X) = (R^H ⊗ I) vec(X), vec(X R^H) = (I ⊗ conj(R)) vec(X)
        system = ops.add(_kron(r_h, identity, batch, n), _kron(identity, ops.conj(r), batch, n))
        solved = ops.solve(system, ops.reshape(dy, batch + [n * n, 1]))
        return [ops.reshape(solved, dims)]


def _kron(a, b, batch, n):
    """The Kronecker products of two batches of n x n matrices: [..., n·n, n·n]."""
    left = ops.reshape(a, batch + [n, 1, n, 1])
    right = ops.reshape(b, batch + [1, n, 1, n])
    return ops.reshape(ops.multiply(left, right), batch + [n * n, n * n])


def sqrtm(input, name=None):  # noqa: A002
    """``tt.linalg.sqrtm``: the principal square root of each matrix (tf.MatrixSquareRoot)."""
    return MatrixSquareRoot.bind(as_tensor(input))


@register
class MatrixSolveLs(Op):
    """The least-squares solutions X of A X = B, minimising ||A X - B||^2 + λ ||X||^2 (λ = l2_regularizer).
    fast: the regularised normal equations; otherwise the minimum-norm solution (λ must be 0)."""

    name = "tf.MatrixSolveLs"
    matrix = operand_def()
    rhs = operand_def()
    l2_regularizer = operand_def()
    output = result_def()
    fast = attr(True)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, matrix, rhs, l2_regularizer, fast=True):
        dtype = same_dtype(cls.name, matrix, rhs)
        check_matrices(cls.name, matrix, square=False)
        check_matrices(cls.name, rhs, square=False, what="Input tensor 1")
        if l2_regularizer.dtype.name != "float64" or (l2_regularizer.shape is not None and l2_regularizer.shape):
            raise InvalidArgumentError(f"{cls.name}: l2_regularizer must be a float64 scalar, got "
                                       f"{l2_regularizer.dtype.name} {fmt_shape(l2_regularizer.shape)}", cls.name)
        if matrix.shape is None or rhs.shape is None:
            return TensorSpec(None, dtype)
        if len(matrix.shape) != len(rhs.shape) or matrix.shape[-2] != rhs.shape[-2] and None not in (
                matrix.shape[-2], rhs.shape[-2]):
            raise InvalidArgumentError(f"{cls.name}: matrix and rhs must have the same rank and number of rows, got "
                                       f"{fmt_shape(matrix.shape)} and {fmt_shape(rhs.shape)}", cls.name)
        return TensorSpec(tuple(matrix.shape[:-2]) + (matrix.shape[-1], rhs.shape[-1]), dtype)

    @staticmethod
    def compute(xp, matrix, rhs, l2_regularizer, fast=True):
        a, b = wide(matrix), wide(rhs)
        lam = float(l2_regularizer)   # a constant under XLA too
        m, n = a.shape[-2:]
        a_h = xp.conj(xp.swapaxes(a, -1, -2))
        if not fast:
            if is_numpy(xp) and lam != 0.0:
                raise InvalidArgumentError(f"{MatrixSolveLs.name}: l2_regularizer must be 0 when fast is false",
                                           MatrixSolveLs.name)
            return (xp.linalg.pinv(a) @ b).astype(rhs.dtype)
        if m >= n:   # (A^H A + λ I)^-1 A^H B
            gram = a_h @ a + lam * xp.eye(n, dtype=a.dtype)
            return _solve_gram(xp, gram, a_h @ b).astype(rhs.dtype)
        gram = a @ a_h + lam * xp.eye(m, dtype=a.dtype)   # A^H (A A^H + λ I)^-1 B
        return (a_h @ _solve_gram(xp, gram, b)).astype(rhs.dtype)

    @staticmethod
    def grad(op, dx):
        if not op.attrs["fast"]:
            raise UnimplementedError("tf.MatrixSolveLs: gradient not defined for fast=False (as TensorFlow)",
                                     MatrixSolveLs.name)
        a, b, lam = op.inputs
        x = op.outputs[0]
        dims = _square_dims(MatrixSolveLs.name, a)
        m, n = dims[-2:]
        lam = ops.cast(lam, a.dtype)
        if m >= n:
            # Given upstream grad U and X = (A^H A + λI)^-1 A^H B, with Z = (A^H A + λI)^-1 U:
            # dA = -A (X Z^H + Z X^H) + B Z^H, dB = A Z
            chol = cholesky(ops.add(ops.matmul(a, a, adjoint_a=True), _scaled_eye(lam, dims[:-2], n, a.dtype)))
            z = cholesky_solve(chol, dx)
            xz = ops.matmul(x, z, adjoint_b=True)
            da = ops.add(ops.negative(ops.matmul(a, ops.add(xz, ops.matrix_transpose(xz, conjugate=True)))),
                         ops.matmul(b, z, adjoint_b=True))
            return [da, ops.matmul(a, z), None]
        # Given U and X = A^H (A A^H + λI)^-1 B, with dB = (A A^H + λI)^-1 A U and T = (A A^H + λI)^-1 B:
        # dA = -dB T^H A + T (U - A^H dB)^H
        chol = cholesky(ops.add(ops.matmul(a, a, adjoint_b=True), _scaled_eye(lam, dims[:-2], m, a.dtype)))
        db = cholesky_solve(chol, ops.matmul(a, dx))
        t = cholesky_solve(chol, b)
        da = ops.add(ops.negative(ops.matmul(db, ops.matmul(t, a, adjoint_a=True))),
                     ops.matmul(t, ops.subtract(dx, ops.matmul(a, db, adjoint_a=True)), adjoint_b=True))
        return [da, db, None]


def _scaled_eye(lam, batch, n, dtype):
    return ops.multiply(eye(n, batch_shape=batch, dtype=dtype), lam)


def _solve_gram(xp, gram, rhs):
    if not is_numpy(xp):
        return xp.linalg.solve(gram, rhs)
    try:
        with np.errstate(all="ignore"):
            return np.linalg.solve(gram, rhs) if rhs.size else np.zeros(rhs.shape, rhs.dtype)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(f"{MatrixSolveLs.name}: Input matrix is not invertible.",
                                   MatrixSolveLs.name) from None


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """``tt.linalg.lstsq``: least-squares solutions of matrix X = rhs (tf.MatrixSolveLs)."""
    matrix = as_tensor(matrix)
    return MatrixSolveLs.bind(matrix, as_tensor(rhs, like=matrix), np.asarray(l2_regularizer, np.float64),
                              fast=bool(fast))
