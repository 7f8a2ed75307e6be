"""tt.linalg.logm (tf.MatrixLogarithm) and tt.linalg.eigh_tridiagonal.

    %y = "tf.MatrixLogarithm"(%a) : (tensor<2x2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>>

    w = tt.linalg.eigh_tridiagonal(alpha, beta)                          # the eigenvalues, ascending
    w = tt.linalg.eigh_tridiagonal(alpha, beta, select="i", select_range=[1, 2])
    w, v = tt.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False)

MatrixLogarithm takes complex matrices only, as TensorFlow's (scipy.linalg.logm; under XLA scipy in a
JAX host callback, CPU only); TensorFlow registers no gradient for it, and neither does this (asking for
one raises TensorFlow's LookupError). eigh_tridiagonal builds the dense Hermitian tridiagonal matrix
and takes its eigendecomposition (tf.SelfAdjointEigV2): the eigenvalues equal TensorFlow's bisection
values to round-off; eigenvectors are unique up to a unit factor per column.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import NoGradient, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.linalg_decompositions import eigh
from tinytf.ops.linalg_structure import check_matrices, diag
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import static_value
from tinytf.ops.tensor_inputs import as_tensor, static_dims
from tinytf.ops.type_lists import COMPLEX, is_numpy

__all__ = ["logm", "eigh_tridiagonal"]
__namespaces__ = {n: ("linalg",) for n in __all__}


def _logm_each(a):
    flat = a.reshape((-1,) + a.shape[-2:])
    with np.errstate(all="ignore"):
        out = [scipy.linalg.logm(m.astype(np.complex128)) for m in flat]
    return (np.stack(out) if out else flat.copy()).reshape(a.shape).astype(a.dtype)


@register
class MatrixLogarithm(Op):
    """The principal logarithm L (expm(L) = A) of each complex matrix."""

    name = "tf.MatrixLogarithm"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NoGradient())  # TensorFlow registers none: differentiating logm is an error

    @classmethod
    def infer(cls, input):
        check_matrices(cls.name, input, types=COMPLEX)
        return TensorSpec(input.shape, input.dtype)

    @staticmethod
    def compute(xp, input):
        if is_numpy(xp):
            return _logm_each(input)
        import jax

        return jax.pure_callback(lambda a: _logm_each(np.asarray(a)), jax.ShapeDtypeStruct(input.shape, input.dtype),
                                 input, vmap_method="sequential")


def logm(input, name=None):  # noqa: A002 (TensorFlow's name)
    """``tt.linalg.logm``: the principal matrix logarithm of each complex matrix."""
    return MatrixLogarithm.bind(as_tensor(input))


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """``tt.linalg.eigh_tridiagonal``: the eigenvalues (and with ``eigvals_only=False`` the eigenvectors) of the
    Hermitian tridiagonal matrix with diagonal ``alpha`` [n] and superdiagonal ``beta`` [n - 1]; ``select``
    "a" all, "i" the indices select_range = [lo, hi] (inclusive), "v" the values in (lo, hi]."""
    alpha = as_tensor(alpha)
    beta = as_tensor(beta, like=alpha) if not hasattr(beta, "dtype") else as_tensor(beta)
    a_dims, b_dims = static_dims(alpha), static_dims(beta)
    if a_dims is None or b_dims is None or len(a_dims) != 1 or len(b_dims) != 1 or None in a_dims + b_dims:
        raise InvalidArgumentError(f"tt.linalg.eigh_tridiagonal: alpha and beta must be static vectors, got shapes "
                                   f"{a_dims} and {b_dims}", "tf.SelfAdjointEigV2")
    n = a_dims[0]
    if b_dims[0] != max(n - 1, 0):
        raise InvalidArgumentError(f"tt.linalg.eigh_tridiagonal: beta must have {max(n - 1, 0)} elements for an alpha "
                                   f"of {n}, got {b_dims[0]}", "tf.SelfAdjointEigV2")
    if select not in ("a", "v", "i"):
        raise InvalidArgumentError(f"tt.linalg.eigh_tridiagonal: select must be 'a', 'v' or 'i', got {select!r}",
                                   "tf.SelfAdjointEigV2")
    if beta.dtype.is_complex and not alpha.dtype.is_complex:
        alpha = ops.cast(alpha, beta.dtype)
    beta = ops.cast(beta, alpha.dtype)
    if n == 1:
        matrix = ops.reshape(alpha, [1, 1])
    else:
        pad = ops.zeros_like(ops.slice(beta, [0], [1]))
        bands = ops.stack([ops.concat([beta, pad], 0), alpha, ops.concat([pad, ops.conj(beta)], 0)], 0)
        matrix = diag(bands, k=(-1, 1), num_rows=n, num_cols=n, align="LEFT_RIGHT")
    values, vectors = eigh(matrix)
    if select == "i":
        lo, hi = (int(v) for v in np.reshape(static_value(select_range), -1))
        values, vectors = ops.slice(values, [lo], [hi - lo + 1]), ops.slice(vectors, [0, lo], [n, hi - lo + 1])
    elif select == "v":
        lo, hi = (ops.cast(as_tensor(v), values.dtype) for v in np.reshape(static_value(select_range), -1))
        keep = ops.logical_and(ops.greater(values, lo), ops.less_equal(values, hi))
        values = ops.boolean_mask(values, keep)
        vectors = ops.transpose(ops.boolean_mask(ops.transpose(vectors), keep))
    return values if eigvals_only else (values, vectors)
