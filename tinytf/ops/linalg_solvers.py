"""Linear solves and determinants, batched over the leading dims: MatrixSolve, MatrixInverse,
MatrixDeterminant, LogMatrixDeterminant, and triangular_solve.

    %x = "tf.MatrixSolve"(%a, %b) <{adjoint = false}> : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %sign, %logdet = "tf.LogMatrixDeterminant"(%a) : (tensor<3x3xf32>) -> (tensor<f32>, tensor<f32>)
    %y = "tf.MatrixInverse"(%a) <{adjoint = false}> : (tensor<3x3xf32>) -> tensor<3x3xf32>

numpy's LAPACK eagerly, jax.numpy's under XLA (half precision is computed in float32). A singular
matrix raises TensorFlow's InvalidArgumentError eagerly and in graphs (XLA, like TensorFlow's XLA
kernels, does not check). ``triangular_solve`` is MatrixSolve of the named triangle (the raw op
tf.MatrixTriangularSolve is not registered yet). The gradients are TensorFlow's (linalg_grad.py).
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.linalg_structure import band_part, check_matrices, wide
from tinytf.ops.op_functions import ops
from tinytf.ops.tensor_inputs import as_tensor
from tinytf.ops.type_lists import is_numpy

__all__ = ["solve", "triangular_solve", "inv", "det", "slogdet"]
__namespaces__ = {n: ("linalg",) for n in __all__}


def _adjoint(xp, a):
    return xp.conj(xp.swapaxes(a, -1, -2))


def _lapack(op_name, fn, *args):
    """numpy's solve / inverse, with TensorFlow's error for a singular matrix."""
    try:
        with np.errstate(all="ignore"):
            return fn(*args)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(f"{op_name}: Input matrix is not invertible.", op_name) from None


def _solve_spec(op_name, matrix, rhs):
    dtype = same_dtype(op_name, matrix, rhs)
    check_matrices(op_name, matrix)
    check_matrices(op_name, rhs, square=False, what="Input tensor 1")
    if matrix.shape is None or rhs.shape is None:
        return TensorSpec(rhs.shape, dtype)
    if len(matrix.shape) != len(rhs.shape) or any(
            a is not None and b is not None and a != b for a, b in zip(matrix.shape[:-2], rhs.shape[:-2])):
        raise InvalidArgumentError(f"{op_name}: matrix and rhs must have the same batch dims, got "
                              f"{fmt_shape(matrix.shape)} and {fmt_shape(rhs.shape)}", op_name)
    m, r = matrix.shape[-1], rhs.shape[-2]
    if m is not None and r is not None and m != r:
        raise InvalidArgumentError(f"{op_name}: Input matrix and right-hand side must have the same number of "
                                   f"rows: {fmt_shape(matrix.shape)} vs. {fmt_shape(rhs.shape)}", op_name)
    return TensorSpec(rhs.shape, dtype)


@register
class MatrixSolve(Op):
    """x with matrix x = rhs (adjoint(matrix) x = rhs with ``adjoint``)."""

    name = "tf.MatrixSolve"
    matrix = operand_def()
    rhs = operand_def()
    output = result_def()
    adjoint = attr(False)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, matrix, rhs, adjoint=False):
        return _solve_spec(cls.name, matrix, rhs)

    @staticmethod
    def compute(xp, matrix, rhs, adjoint=False):
        a, b = wide(matrix), wide(rhs)
        a = _adjoint(xp, a) if adjoint else a
        if not is_numpy(xp):
            return xp.linalg.solve(a, b).astype(rhs.dtype)
        if b.size == 0:
            return np.zeros(rhs.shape, rhs.dtype)
        return _lapack(MatrixSolve.name, np.linalg.solve, a, b).astype(rhs.dtype)

    @staticmethod
    def grad(op, dx):  # Given upstream grad U and x = A^-1 b: db = A^-H U, dA = -db x^H (adjoint: -x db^H)
        a, x = op.inputs[0], op.outputs[0]
        adjoint = op.attrs["adjoint"]
        db = MatrixSolve.bind(a, dx, adjoint=not adjoint)
        da = ops.matmul(x, db, adjoint_b=True) if adjoint else ops.matmul(db, x, adjoint_b=True)
        return [ops.negative(da), db]


@register
class MatrixInverse(Op):
    """The inverse of each matrix (of its adjoint with ``adjoint``)."""

    name = "tf.MatrixInverse"
    input = operand_def()
    output = result_def()
    adjoint = attr(False)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, adjoint=False):
        check_matrices(cls.name, input)
        return TensorSpec(input.shape, input.dtype)

    @staticmethod
    def compute(xp, input, adjoint=False):
        a = wide(input)
        a = _adjoint(xp, a) if adjoint else a
        if not is_numpy(xp):
            return xp.linalg.inv(a).astype(input.dtype)
        if a.size == 0:
            return input.copy()
        return _lapack(MatrixInverse.name, np.linalg.inv, a).astype(input.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and Y = A^-1: dA = -Y^H U Y^H (adjoint: -Y U^H Y, transposed)
        y = op.outputs[0]
        adjoint = op.attrs["adjoint"]
        inner = ops.matmul(dy, y, adjoint_a=adjoint, adjoint_b=not adjoint)
        return [ops.negative(ops.matmul(y, inner, adjoint_a=not adjoint))]


def solve(matrix, rhs, adjoint=False, name=None):
    """``tt.linalg.solve(a, b)``: x with a x = b (tf.MatrixSolve)."""
    matrix = as_tensor(matrix)
    return MatrixSolve.bind(matrix, as_tensor(rhs, like=matrix), adjoint=bool(adjoint))


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """``tt.linalg.triangular_solve(a, b)``: x with a x = b, reading only a's ``lower`` (or upper)
    triangle, as TensorFlow's kernel; written with MatrixBandPart and MatrixSolve, whose gradients
    give TensorFlow's (the other triangle gets none)."""
    matrix = as_tensor(matrix)
    triangle = band_part(matrix, -1, 0) if lower else band_part(matrix, 0, -1)
    return MatrixSolve.bind(triangle, as_tensor(rhs, like=matrix), adjoint=bool(adjoint))


def inv(input, adjoint=False, name=None):
    """``tt.linalg.inv(a)``: the inverse matrices (tf.MatrixInverse)."""
    return MatrixInverse.bind(as_tensor(input), adjoint=bool(adjoint))


def _batch_spec(input, dtype=None):
    return TensorSpec(None if input.shape is None else input.shape[:-2], dtype or input.dtype)


@register
class MatrixDeterminant(Op):
    """det of each matrix.  %d = "tf.MatrixDeterminant"(%a) : (tensor<2x3x3xf32>) -> tensor<2xf32>"""

    name = "tf.MatrixDeterminant"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input):
        check_matrices(cls.name, input)
        return _batch_spec(input)

    @staticmethod
    def compute(xp, input):
        return xp.linalg.det(wide(input)).astype(input.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and d = det(A): dA = U d A^-H
        a, d = op.inputs[0], op.outputs[0]
        scale = ops.expand_dims(ops.expand_dims(ops.multiply(dy, d), -1), -1)
        return [ops.multiply(scale, MatrixInverse.bind(a, adjoint=True))]


@register
class LogMatrixDeterminant(Op):
    """(sign, log |det|) of each matrix; sign 0 and log -inf for a singular one."""

    name = "tf.LogMatrixDeterminant"
    input = operand_def()
    sign = result_def()
    log_abs_determinant = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input):
        check_matrices(cls.name, input)
        return [_batch_spec(input), _batch_spec(input)]

    @staticmethod
    def compute(xp, input):
        with np.errstate(all="ignore"):
            sign, logdet = xp.linalg.slogdet(wide(input))
        return sign.astype(input.dtype), logdet.astype(input.dtype)

    @staticmethod
    def grad(op, dsign, dlog):  # Given upstream grad U of log|det A|: dA = U A^-H (the sign is piecewise constant)
        a = op.inputs[0]
        scale = ops.expand_dims(ops.expand_dims(dlog, -1), -1)
        return [ops.multiply(scale, MatrixInverse.bind(a, adjoint=True))]


def det(input, name=None):
    """``tt.linalg.det``: the determinants (tf.MatrixDeterminant)."""
    return MatrixDeterminant.bind(as_tensor(input))


def slogdet(input, name=None):
    """``tt.linalg.slogdet``: (sign, log |det|) (tf.LogMatrixDeterminant)."""
    return tuple(LogMatrixDeterminant.bind(as_tensor(input)))
