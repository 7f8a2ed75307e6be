"""Matrix decompositions, batched over the leading dims: Cholesky, Qr, Svd, SelfAdjointEigV2, Eig, Lu.

    %l = "tf.Cholesky"(%a) : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %s, %u, %v = "tf.Svd"(%a) <{compute_uv = true, full_matrices = false}> : (tensor<4x3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>, tensor<3x3xf32>)
    %e, %v = "tf.SelfAdjointEigV2"(%a) <{compute_v = true}> : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>)

numpy's LAPACK eagerly, jax.numpy's under XLA (half precision is computed in float32). Cholesky and
SelfAdjointEigV2 read only the lower triangle, as TensorFlow's kernels do. Signs of singular vectors
and eigenvectors, and Eig's order, are LAPACK's: TensorFlow's (Eigen's) are implementation-defined
too. The gradients are TensorFlow's (linalg_grad.py); Lu has none, as in TensorFlow.
"""
from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.complex_parts import complex_dtype, real_dtype
from tinytf.ops.linalg_structure import (
    adjoint,
    band_part,
    check_matrices,
    diag,
    diag_part,
    matrix_transpose,
    set_diag,
    wide,
)
from tinytf.ops.op_functions import ops
from tinytf.ops.tensor_inputs import as_tensor, static_dims
from tinytf.ops.type_lists import is_numpy

__all__ = ["cholesky", "qr", "svd", "eigh", "eigvalsh", "eig", "eigvals", "lu"]
__namespaces__ = {"eig": ("linalg", "top"), "eigvals": ("linalg", "top")}


def _linalg(xp):
    return np.linalg if is_numpy(xp) else xp.linalg


def _per_matrix(fn, a, *shapes_and_dtypes):
    """``fn`` on each matrix of the batch ``a``: a list of output arrays, stacked."""
    batch = a.shape[:-2]
    outs = [np.empty(batch + s, d) for s, d in shapes_and_dtypes]
    for index in np.ndindex(*batch):
        for out, value in zip(outs, fn(a[index])):
            out[index] = value
    return outs


def safe_reciprocal(x, epsilon=1e-20):
    """x / (x² + ε): TensorFlow's reciprocal that stays finite where eigenvalues coincide."""
    return ops.multiply(x, ops.reciprocal(ops.add(ops.multiply(x, x), ops.scalar_like(x, epsilon))))


def eye_like(matrices):
    """Identity matrices of ``matrices``' batch shape, size and dtype (square ``matrices``)."""
    return diag(ops.ones_like(diag_part(matrices)))


def _gap_matrix(e):
    """f[i, j] = 1 / (e_j - e_i) off the diagonal, 0 on it (TensorFlow's eigenvector gradient factor)."""
    return set_diag(safe_reciprocal(ops.subtract(ops.expand_dims(e, -2), ops.expand_dims(e, -1))), ops.zeros_like(e))


# --- Cholesky ------------------------------------------------------------------------------------

@register
class Cholesky(Op):
    """L with L L^H = input, from its lower triangle; NaN in L's lower triangle where the input is not
    positive definite (TensorFlow's kernel fills it so, and logs).  %l = "tf.Cholesky"(%a) : (tensor<3x3xf32>) -> tensor<3x3xf32>"""

    name = "tf.Cholesky"
    BATCHING: ClassVar[str] = "leading_axes"
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
        if not is_numpy(xp):
            import jax

            return xp.tril(jax.lax.linalg.cholesky(a, symmetrize_input=False)).astype(input.dtype)
        if a.shape[-1] == 0:
            return input.copy()
        with np.errstate(all="ignore"):
            try:
                return np.linalg.cholesky(a).astype(input.dtype)
            except np.linalg.LinAlgError:
                lower = np.tril(np.ones(a.shape[-2:], bool))

                def one(m):
                    try:
                        return (np.linalg.cholesky(m),)
                    except np.linalg.LinAlgError:
                        return (np.where(lower, np.nan, 0).astype(m.dtype),)
                return _per_matrix(one, a, (a.shape[-2:], a.dtype))[0].astype(input.dtype)

    @staticmethod
    def grad(op, dl):
        # Given upstream grad U and A = L L^H: dA = sym(L^-H Φ(L^H U) L^-1), Φ = lower triangle with the diagonal halved
        from tinytf.ops.linalg_solvers import triangular_solve

        l_ = op.outputs[0]
        l_inverse = triangular_solve(l_, eye_like(l_))
        middle = ops.matmul(l_, dl, adjoint_a=True)
        middle = band_part(set_diag(middle, ops.multiply(ops.scalar_like(middle, 0.5), diag_part(middle))), -1, 0)
        grad_a = ops.matmul(ops.matmul(l_inverse, middle, adjoint_a=True), l_inverse)
        return [ops.multiply(ops.add(grad_a, adjoint(grad_a)), ops.scalar_like(grad_a, 0.5))]


def cholesky(input, name=None):
    """``tt.linalg.cholesky``: the lower Cholesky factors of Hermitian positive definite matrices."""
    return Cholesky.bind(as_tensor(input))


# --- Qr ------------------------------------------------------------------------------------------

@register
class Qr(Op):
    """q r = input, q with orthonormal columns, r upper triangular ([..., M, P] and [..., P, N], P =
    min(M, N); [..., M, M] and [..., M, N] with ``full_matrices``)."""

    name = "tf.Qr"
    BATCHING: ClassVar[str] = "leading_axes"
    input = operand_def()
    q = result_def()
    r = result_def()
    full_matrices = attr(False)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, *, full_matrices=False):
        check_matrices(cls.name, input, square=False)
        if input.shape is None:
            return [TensorSpec(None, input.dtype), TensorSpec(None, input.dtype)]
        batch, (m, n) = input.shape[:-2], input.shape[-2:]
        p = None if m is None or n is None else min(m, n)
        if full_matrices:
            return [TensorSpec(batch + (m, m), input.dtype), TensorSpec(batch + (m, n), input.dtype)]
        return [TensorSpec(batch + (m, p), input.dtype), TensorSpec(batch + (p, n), input.dtype)]

    @staticmethod
    def compute(xp, input, *, full_matrices=False):
        q, r = _linalg(xp).qr(wide(input), mode="complete" if full_matrices else "reduced")
        return q.astype(input.dtype), r.astype(input.dtype)

    @staticmethod
    def grad(op, dq, dr):  # Given upstream grads U_q, U_r and A = Q R: dA as TensorFlow's _QrGrad (arXiv:2009.10071)
        q, r = op.outputs
        qs, rs = static_dims(q), static_dims(r)
        if qs is None or rs is None or None in qs[-2:] or None in rs[-2:]:
            raise UnimplementedError(f"QrGrad not implemented with dynamic shapes. Received r.shape: {rs}", "tf.Qr")
        m, n = qs[-2], rs[-1]
        if rs[-2] > rs[-1] and qs[-2] == qs[-1]:
            raise UnimplementedError(f"QrGrad not implemented when nrows > ncols and full_matrices is true. "
                                     f"Received r.shape={list(rs)} with nrows={rs[-2]}and ncols={rs[-1]}.", "tf.Qr")
        if m >= n:
            return [_qr_grad_deep(q, r, dq, dr)]
        a = op.inputs[0]  # a = [x, y], r = [u, v]: the square case for x
        y, u, du, dv = a[..., :, m:], r[..., :, :m], dr[..., :, :m], dr[..., :, m:]
        dx = _qr_grad_deep(q, u, ops.add(dq, ops.matmul(y, dv, adjoint_b=True)), du)
        return [ops.concat([dx, ops.matmul(q, dv)], axis=-1)]


def _qr_grad_deep(q, r, dq, dr):
    """TensorFlow's gradient of A = QR for rows >= cols without full matrices."""
    from tinytf.ops.linalg_solvers import triangular_solve

    def solve_r(x, r):  # x @ inv(r)^H for upper-triangular r
        return adjoint(triangular_solve(r, adjoint(x), lower=False, adjoint=False))

    qdq = ops.matmul(q, dq, adjoint_a=True)
    rdr = ops.matmul(r, dr, adjoint_b=True)
    tril = band_part(ops.add(ops.subtract(qdq, adjoint(qdq)), ops.subtract(rdr, adjoint(rdr))), -1, 0)
    grad_a = ops.matmul(q, ops.add(dr, solve_r(tril, r)))
    grad_b = solve_r(ops.subtract(dq, ops.matmul(q, qdq)), r)
    out = ops.add(grad_a, grad_b)
    if q.dtype.is_complex:  # the correction of the complex case
        from tinytf.ops.complex_parts import real

        mm = ops.subtract(rdr, adjoint(qdq))
        eyem = set_diag(ops.zeros_like(mm), diag_part(mm))
        correction = ops.subtract(eyem, ops.cast(real(eyem), q.dtype))
        out = ops.add(out, solve_r(ops.matmul(q, adjoint(correction)), r))
    return out


def qr(input, full_matrices=False, name=None):
    """``tt.linalg.qr``: (q, r)."""
    return tuple(Qr.bind(as_tensor(input), full_matrices=bool(full_matrices)))


# --- Svd -----------------------------------------------------------------------------------------

@register
class Svd(Op):
    """input = u diag(s) v^H, s descending (of the input's dtype); u and v are [0] without ``compute_uv``.

    %s, %u, %v = "tf.Svd"(%a) <{compute_uv = true, full_matrices = false}> : (tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>, tensor<2x2xf32>)
    """

    name = "tf.Svd"  # (batched by the loop rule: without compute_uv, u and v are [0] whatever the batch)
    input = operand_def()
    s = result_def()
    u = result_def()
    v = result_def()
    compute_uv = attr(True)
    full_matrices = attr(False)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, *, compute_uv=True, full_matrices=False):
        check_matrices(cls.name, input, square=False)
        dtype = input.dtype
        if input.shape is None:
            return [TensorSpec(None, dtype)] * 3
        batch, (m, n) = input.shape[:-2], input.shape[-2:]
        p = None if m is None or n is None else min(m, n)
        s = TensorSpec(batch + (p,), dtype)
        if not compute_uv:
            return [s, TensorSpec((0,), dtype), TensorSpec((0,), dtype)]
        if full_matrices:
            return [s, TensorSpec(batch + (m, m), dtype), TensorSpec(batch + (n, n), dtype)]
        return [s, TensorSpec(batch + (m, p), dtype), TensorSpec(batch + (n, p), dtype)]

    @staticmethod
    def compute(xp, input, *, compute_uv=True, full_matrices=False):
        a = wide(input)
        m, n = a.shape[-2:]
        batch, p = a.shape[:-2], min(m, n)
        if p == 0:  # LAPACK refuses empty matrices: no singular values, identities for full u and v
            s = xp.zeros(batch + (0,), input.dtype)
            if not compute_uv:
                return s, xp.zeros((0,), input.dtype), xp.zeros((0,), input.dtype)
            u = xp.broadcast_to(xp.eye(m, m if full_matrices else 0, dtype=input.dtype), batch + (m, m if full_matrices else 0))
            v = xp.broadcast_to(xp.eye(n, n if full_matrices else 0, dtype=input.dtype), batch + (n, n if full_matrices else 0))
            return s, u, v
        try:
            with np.errstate(all="ignore"):
                if not compute_uv:
                    s = _linalg(xp).svd(a, compute_uv=False)
                    return s.astype(input.dtype), xp.zeros((0,), input.dtype), xp.zeros((0,), input.dtype)
                u, s, vh = _linalg(xp).svd(a, full_matrices=full_matrices)
        except np.linalg.LinAlgError:  # (NaN or inf inputs) Eigen's SVD gives NaN: so does tinytf
            k = m if full_matrices else p
            nan = np.full(batch + (max(m, n), max(m, n)), np.nan, input.dtype)
            s = nan[..., 0, :p]
            if not compute_uv:
                return s, np.zeros((0,), input.dtype), np.zeros((0,), input.dtype)
            return s, nan[..., :m, :k], nan[..., :n, :(n if full_matrices else p)]
        v = xp.conj(xp.swapaxes(vh, -1, -2)) if vh.dtype.kind == "c" else xp.swapaxes(vh, -1, -2)
        return s.astype(input.dtype), u.astype(input.dtype), v.astype(input.dtype)

    @staticmethod
    def grad(op, ds, du, dv):  # Given upstream grads U_s, U_u, U_v and A = U S V^H: dA as TensorFlow's _SvdGrad (Giles 2008, Townsend)
        return [_svd_grad(op, ds, du, dv)]


def _svd_grad(op, grad_s, grad_u, grad_v):
    a = op.inputs[0]
    grad_s = ops.cast(grad_s, a.dtype)
    grad_s_mat = diag(grad_s)
    if not op.attrs["compute_uv"]:
        _, u, v = svd(a, compute_uv=True)
        return ops.matmul(u, ops.matmul(grad_s_mat, v, adjoint_b=True))
    dims = static_dims(a)
    if dims is None or None in dims[-2:]:
        raise UnimplementedError("SVD gradient has not been implemented for input with unknown inner matrix shape.",
                                 "tf.Svd")
    m, n = dims[-2:]
    s, u, v = op.outputs
    s = ops.cast(s, a.dtype)
    use_adjoint = m > n
    if use_adjoint:  # the gradient of A^H = V S U^H, transposed at the end
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    full_matrices = op.attrs["full_matrices"]
    if full_matrices and abs(m - n) > 1:
        raise UnimplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
                                 f"Received: m={m} and n={n} from op input with shape={list(dims)}.", "tf.Svd")
    s_mat = diag(s)
    f = _gap_matrix(ops.square(s))
    s_inv_mat = diag(safe_reciprocal(s))
    v1, grad_v1 = v[..., :, :m], grad_v[..., :, :m]
    u_gu = ops.matmul(u, grad_u, adjoint_a=True)
    v_gv = ops.matmul(v1, grad_v1, adjoint_a=True)
    f_u, f_v = ops.multiply(f, u_gu), ops.multiply(f, v_gv)
    term1_nouv = ops.add(ops.add(grad_s_mat, ops.matmul(ops.add(f_u, adjoint(f_u)), s_mat)),
                         ops.matmul(s_mat, ops.add(f_v, adjoint(f_v))))
    grad_a = ops.matmul(u, ops.matmul(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = matrix_transpose(grad_v1, conjugate=True)
        term2_nous = ops.subtract(gv1t, ops.matmul(ops.matmul(gv1t, v1), v1, adjoint_b=True))
        if full_matrices:
            v2, grad_v2 = v[..., :, m:n], grad_v[..., :, m:n]
            term2_nous = ops.subtract(term2_nous, ops.matmul(ops.matmul(v1, grad_v2, adjoint_a=True), v2,
                                                             adjoint_b=True))
        grad_a = ops.add(grad_a, ops.matmul(ops.matmul(u, s_inv_mat), term2_nous))
    if a.dtype.is_complex:
        l_ = ops.multiply(eye_like(v_gv), v_gv)
        term3_nouv = ops.matmul(s_inv_mat, ops.subtract(adjoint(l_), l_))
        term3 = ops.matmul(u, ops.matmul(term3_nouv, v1, adjoint_b=True))
        grad_a = ops.add(grad_a, ops.multiply(ops.scalar_like(term3, 0.5), term3))
    return matrix_transpose(grad_a, conjugate=True) if use_adjoint else grad_a


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``tt.linalg.svd``: (s, u, v) with ``compute_uv``, else s; s is real (tf.math.real of the op's s)."""
    from tinytf.ops.complex_parts import real

    s, u, v = Svd.bind(as_tensor(tensor), compute_uv=bool(compute_uv), full_matrices=bool(full_matrices))
    return (real(s), u, v) if compute_uv else real(s)


# --- SelfAdjointEigV2 ----------------------------------------------------------------------------

@register
class SelfAdjointEigV2(Op):
    """Eigenvalues, ascending, and eigenvectors (columns) of Hermitian matrices, from the lower
    triangle; v is [0] without ``compute_v``.
    %e, %v = "tf.SelfAdjointEigV2"(%a) <{compute_v = true}> : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>)"""

    name = "tf.SelfAdjointEigV2"  # (batched by the loop rule: without compute_v, v is [0] whatever the batch)
    input = operand_def()
    e = result_def()
    v = result_def()
    compute_v = attr(True)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, *, compute_v=True):
        check_matrices(cls.name, input)
        if input.shape is None:
            return [TensorSpec(None, input.dtype), TensorSpec(None if compute_v else (0,), input.dtype)]
        n = input.shape[-1] if input.shape[-1] is not None else input.shape[-2]
        e = TensorSpec(input.shape[:-2] + (n,), input.dtype)
        return [e, TensorSpec(input.shape[:-2] + (n, n) if compute_v else (0,), input.dtype)]

    @staticmethod
    def compute(xp, input, *, compute_v=True):
        a = wide(input)
        try:
            with np.errstate(all="ignore"):
                if is_numpy(xp):
                    e, v = np.linalg.eigh(a, UPLO="L") if compute_v else (np.linalg.eigvalsh(a, UPLO="L"), None)
                else:
                    e, v = xp.linalg.eigh(a, UPLO="L", symmetrize_input=False)
        except np.linalg.LinAlgError:
            raise InvalidArgumentError("tf.SelfAdjointEigV2: Self-adjoint eigen decomposition was not successful. "
                                       "The input might not be valid.", "tf.SelfAdjointEigV2") from None
        v = v.astype(input.dtype) if compute_v else xp.zeros((0,), input.dtype)
        return e.astype(input.dtype), v

    @staticmethod
    def grad(op, de, dv):
        # Given upstream grads U_e, U_v and A = V diag(e) V^H: dA = tril-sym(V (diag(U_e) + F ∘ V^H U_v) V^H)
        e = op.outputs[0]
        if op.attrs["compute_v"]:
            v = op.outputs[1]
            inner = ops.add(diag(de), ops.multiply(_gap_matrix(e), ops.matmul(v, dv, adjoint_a=True)))
            grad_a = ops.matmul(v, ops.matmul(inner, v, adjoint_b=True))
        else:
            _, v = eigh(op.inputs[0])
            grad_a = ops.matmul(v, ops.matmul(diag(de), v, adjoint_b=True))
        grad_a = band_part(ops.add(grad_a, adjoint(grad_a)), -1, 0)  # the op reads the lower triangle only
        return [set_diag(grad_a, ops.multiply(ops.scalar_like(grad_a, 0.5), diag_part(grad_a)))]


def eigh(tensor, name=None):
    """``tt.linalg.eigh``: (e, v) of self-adjoint matrices, e ascending."""
    return tuple(SelfAdjointEigV2.bind(as_tensor(tensor), compute_v=True))


def eigvalsh(tensor, name=None):
    """``tt.linalg.eigvalsh``: the eigenvalues of self-adjoint matrices, ascending."""
    return SelfAdjointEigV2.bind(as_tensor(tensor), compute_v=False)[0]


# --- Eig -----------------------------------------------------------------------------------------

@register
class Eig(Op):
    """Eigenvalues and right eigenvectors (unit columns) of general matrices, complex (``Tout``); their
    order is LAPACK's.  %e, %v = "tf.Eig"(%a) <{compute_v = true}> : (tensor<3x3xf32>) -> (tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>)"""

    name = "tf.Eig"  # (batched by the loop rule: without compute_v, v is [0] whatever the batch)
    input = operand_def()
    e = result_def()
    v = result_def()
    compute_v = attr(True)
    Tout = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, *, compute_v=True, Tout=None):
        check_matrices(cls.name, input, types={"float32", "float64", "complex64", "complex128"})
        out = complex_dtype(input.dtype) if Tout is None else Tout
        if out not in (dtypes.complex64, dtypes.complex128):
            raise InvalidArgumentError(f"{cls.name}: Tout must be complex64 or complex128, got {out.name}", cls.name)
        if input.shape is None:
            return [TensorSpec(None, out), TensorSpec(None if compute_v else (0,), out)]
        n = input.shape[-1] if input.shape[-1] is not None else input.shape[-2]
        return [TensorSpec(input.shape[:-2] + (n,), out), TensorSpec(input.shape[:-2] + (n, n) if compute_v else (0,), out)]

    @staticmethod
    def compute(xp, input, *, compute_v=True, Tout=None):
        out = (complex_dtype(dtypes.as_dtype(input.dtype)) if Tout is None else Tout).np
        try:
            with np.errstate(all="ignore"):
                e, v = _linalg(xp).eig(input)
        except np.linalg.LinAlgError:
            raise InvalidArgumentError("tf.Eig: Eigen decomposition was not successful. The input might not be "
                                       "valid.", "tf.Eig") from None
        return e.astype(out), v.astype(out) if compute_v else xp.zeros((0,), out)

    @staticmethod
    def grad(op, de, dv):
        # Given upstream grads U_e, U_v and A V = V diag(e): dA = V^-H (diag(U_e) + F̄ ∘ (V^H U_v - V^H V diag(re(V^H U_v)))) V^H
        from tinytf.ops.complex_parts import real
        from tinytf.ops.linalg_solvers import solve

        if op.attrs["compute_v"]:
            e, v = op.outputs
            vt = adjoint(v)
            f = ops.conj(_gap_matrix(e))
            vgv = ops.matmul(vt, dv)
            diag_grad_part = diag(diag_part(ops.cast(real(vgv), vgv.dtype)))
            mid = ops.add(diag(de), ops.multiply(f, ops.subtract(vgv, ops.matmul(ops.matmul(vt, v), diag_grad_part))))
            grad_a = solve(vt, ops.matmul(mid, vt))
        else:
            _, v = eig(op.inputs[0])
            vt = adjoint(v)
            grad_a = solve(vt, ops.matmul(diag(de), vt))
        return [ops.cast(grad_a, op.inputs[0].dtype)]


def eig(tensor, name=None):
    """``tt.linalg.eig``: (e, v), complex64 for float32 or complex64 input, complex128 for 64-bit."""
    tensor = as_tensor(tensor)
    return tuple(Eig.bind(tensor, compute_v=True, Tout=complex_dtype(real_dtype(tensor.dtype))))


def eigvals(tensor, name=None):
    """``tt.linalg.eigvals``: the eigenvalues of general matrices (complex)."""
    tensor = as_tensor(tensor)
    return Eig.bind(tensor, compute_v=False, Tout=complex_dtype(real_dtype(tensor.dtype)))[0]


# --- Lu ------------------------------------------------------------------------------------------

@register
class Lu(Op):
    """LU with partial pivoting: ``lu`` holds L (unit diagonal, strictly lower part) and U (upper part)
    with input[p] = L U, ``p`` the row permutation (``output_idx_type``).
    %lu, %p = "tf.Lu"(%a) : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>)"""

    name = "tf.Lu"
    BATCHING: ClassVar[str] = "leading_axes"
    input = operand_def()
    lu = result_def()
    p = result_def()
    output_idx_type = derived("type", lambda op: tf_types.dtype_of(op.results[1].type), default=dtypes.int32)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, input, *, output_idx_type=dtypes.int32):
        check_matrices(cls.name, input)
        if output_idx_type not in (dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: output_idx_type must be int32 or int64, got "
                                       f"{output_idx_type.name}", cls.name)
        if input.shape is None:
            return [TensorSpec(None, input.dtype), TensorSpec(None, output_idx_type)]
        n = input.shape[-1] if input.shape[-1] is not None else input.shape[-2]
        return [TensorSpec(input.shape, input.dtype), TensorSpec(input.shape[:-2] + (n,), output_idx_type)]

    @staticmethod
    def compute(xp, input, *, output_idx_type=dtypes.int32):
        a = wide(input)
        if not is_numpy(xp):
            import jax

            lu_, _, perm = jax.lax.linalg.lu(a)
            return lu_.astype(input.dtype), perm.astype(output_idx_type.np)
        import scipy.linalg

        n = a.shape[-1]

        def one(m):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                factors, pivots = scipy.linalg.lu_factor(m, check_finite=False)
            perm = np.arange(n)
            for i, j in enumerate(pivots):
                perm[i], perm[j] = perm[j], perm[i]
            return factors, perm

        if n == 0:
            return input.copy(), np.zeros(a.shape[:-1], output_idx_type.np)
        factors, perm = _per_matrix(one, a, ((n, n), a.dtype), ((n,), np.int64))
        with np.errstate(invalid="ignore"):
            if not (np.abs(np.diagonal(factors, axis1=-2, axis2=-1)) > 0).all():
                raise InvalidArgumentError(f"tf.Lu: Input is not invertible (input shape {fmt_shape(a.shape)}).",
                                           "tf.Lu")
        return factors.astype(input.dtype), perm.astype(output_idx_type.np)


def lu(input, output_idx_type=dtypes.int32, name=None):
    """``tt.linalg.lu``: (lu, p) with input[p] = L U (TensorFlow's ``Lu`` op)."""
    return tuple(Lu.bind(as_tensor(input), output_idx_type=dtypes.as_dtype(output_idx_type)))
