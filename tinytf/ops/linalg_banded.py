"""tt.linalg's banded systems: tridiagonal_solve, tridiagonal_matmul and banded_triangular_solve, written
with the dense ops (the band placed with MatrixDiagV3, then MatrixSolve / MatMul / triangular_solve),
so the gradients follow and the values are TensorFlow's up to round-off.

    x = tt.linalg.tridiagonal_solve(diagonals, rhs)        # diagonals [..., 3, M]: super, main, sub
    y = tt.linalg.tridiagonal_matmul(diagonals, rhs)
    x = tt.linalg.banded_triangular_solve(bands, rhs)     # bands [..., K, M]: the main diagonal first

Compact diagonals follow TensorFlow's LEFT_RIGHT alignment: the superdiagonal's last element and the
subdiagonal's first are ignored.
"""
from __future__ import annotations

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.linalg_solvers import solve, triangular_solve
from tinytf.ops.linalg_structure import band_part, diag
from tinytf.ops.op_functions import ops
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["tridiagonal_solve", "tridiagonal_matmul", "banded_triangular_solve"]
__namespaces__ = {n: ("linalg",) for n in __all__}


def _dims(what, x, rank_at_least=2):
    dims = static_dims(x)
    if dims is None or None in dims[-2:] or len(dims) < rank_at_least:
        raise UnimplementedError(f"tt.linalg.{what}: the innermost dims must be static, got {dims}", "tf.MatrixDiagV3")
    return list(dims)


def _tridiagonal(what, diagonals, diagonals_format):
    """The dense [..., M, M] matrix of TensorFlow's 'compact', 'sequence' or 'matrix' diagonals."""
    if diagonals_format == "matrix":
        matrix = as_tensor(diagonals)
        dims = _dims(what, matrix)
        if dims[-1] != dims[-2]:
            raise InvalidArgumentError(f"tt.linalg.{what}: expected square matrices, got {dims}", "tf.MatrixSolve")
        return band_part(matrix, 1, 1)
    if diagonals_format == "sequence":
        if not isinstance(diagonals, list | tuple) or len(diagonals) != 3:
            raise InvalidArgumentError(f"tt.linalg.{what}: 'sequence' diagonals are a tuple (superdiag, maindiag, "
                                       "subdiag)", "tf.MatrixDiagV3")
        parts = [as_tensor(d) for d in diagonals]
        diagonals = ops.stack([parts[0], ops.cast(parts[1], parts[0].dtype), ops.cast(parts[2], parts[0].dtype)], -2)
    elif diagonals_format != "compact":
        raise InvalidArgumentError(f"tt.linalg.{what}: unrecognized diagonals_format {diagonals_format!r}",
                                   "tf.MatrixDiagV3")
    diagonals = as_tensor(diagonals)
    dims = _dims(what, diagonals)
    if dims[-2] != 3:
        raise InvalidArgumentError(f"tt.linalg.{what}: compact diagonals must have shape [..., 3, M], got {dims}",
                                   "tf.MatrixDiagV3")
    m = dims[-1]
    return diag(diagonals, k=(-1, 1), num_rows=m, num_cols=m, align="LEFT_RIGHT")


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False, name=None,
                      partial_pivoting=True, perturb_singular=False):
    """``tt.linalg.tridiagonal_solve``: x with A x = rhs, A tridiagonal ([..., M, K] rhs, or [..., M] for
    one right-hand side; ``transpose_rhs`` takes rhs as [..., K, M])."""
    if perturb_singular:
        raise UnimplementedError("tt.linalg.tridiagonal_solve: perturb_singular is not implemented",
                                 "tf.TridiagonalSolve")
    matrix = _tridiagonal("tridiagonal_solve", diagonals, diagonals_format)
    b = as_tensor(rhs, like=matrix)
    vector = len(static_dims(b) or ()) == len(static_dims(matrix)) - 1
    if vector:
        b = ops.expand_dims(b, -1)
    elif transpose_rhs:
        b = ops.matrix_transpose(b)
    if conjugate_rhs:
        b = ops.conj(b)
    x = solve(matrix, b)
    return ops.squeeze(x, [-1]) if vector else x


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``tt.linalg.tridiagonal_matmul``: A rhs for a tridiagonal A given by its diagonals."""
    matrix = _tridiagonal("tridiagonal_matmul", diagonals, diagonals_format)
    return ops.matmul(matrix, as_tensor(rhs, like=matrix))


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """``tt.linalg.banded_triangular_solve``: x with A x = rhs (A^H x with ``adjoint``), A triangular with
    K - 1 off-diagonals given as bands [..., K, M]: lower, the main diagonal then the subdiagonals
    (padded on the left); upper, the superdiagonals then the main diagonal (padded on the right)."""
    bands = as_tensor(bands)
    dims = _dims("banded_triangular_solve", bands)
    count, m = dims[-2:]
    if count < 1:
        raise InvalidArgumentError(f"tt.linalg.banded_triangular_solve: bands must hold at least one band, got "
                                   f"{dims}", "tf.BandedTriangularSolve")
    if count == 1:
        matrix = diag(ops.squeeze(bands, [-2]))
    else:
        k = (-(count - 1), 0) if lower else (0, count - 1)
        matrix = diag(bands, k=k, num_rows=m, num_cols=m, align="LEFT_RIGHT")
    return triangular_solve(matrix, as_tensor(rhs, like=bands), lower=bool(lower), adjoint=bool(adjoint))
