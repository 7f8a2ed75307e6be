"""tt.linalg's decompositions and solves: values against numpy in eager, graph and XLA modes, the
gradients the spec table cannot check (a symmetric input, complex outputs) through TensorFlow's
checker, and TensorFlow's errors for bad input."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

RNG = np.random.default_rng(11)
_M = RNG.uniform(-1, 1, (2, 3, 3))
SPD = (_M @ np.swapaxes(_M, -1, -2) + 3 * np.eye(3)).astype(np.float32)   # symmetric positive definite
GEN = (RNG.uniform(-1, 1, (2, 3, 3)) + 4 * np.eye(3)).astype(np.float32)  # well conditioned, not symmetric
RHS = RNG.uniform(-1, 1, (2, 3, 2)).astype(np.float32)


def modes(fn):
    return [fn, tt.function(fn), tt.function(fn, jit_compile=True)]


def close(got, want, tol=2e-5):
    np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got), want, rtol=tol, atol=tol)


# --- values --------------------------------------------------------------------------------------

def test_cholesky_eigh_eigvalsh_match_numpy():
    for f in modes(lambda a: tt.linalg.cholesky(a)):
        close(f(tt.constant(SPD)), np.linalg.cholesky(SPD))
    for f in modes(lambda a: tt.linalg.eigvalsh(a)):
        close(f(tt.constant(SPD)), np.linalg.eigvalsh(SPD))
    e, v = tt.linalg.eigh(tt.constant(SPD))
    e, v = np.asarray(e.numpy()), np.asarray(v.numpy())
    close(e, np.linalg.eigvalsh(SPD))
    close(v @ (e[..., None] * np.swapaxes(v, -1, -2)), SPD, 1e-4)      # A = V diag(e) V^T
    close(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(3), v.shape), 1e-5)


def test_qr_and_svd_reconstruct_and_match_numpy():
    a = RNG.uniform(-1, 1, (2, 4, 3)).astype(np.float32)
    for f in modes(lambda x: tt.linalg.qr(x)):
        q, r = (np.asarray(t.numpy()) for t in f(tt.constant(a)))
        assert q.shape == (2, 4, 3) and r.shape == (2, 3, 3)
        close(q @ r, a, 1e-5)
        close(np.triu(r), r)
        close(np.abs(r), np.abs(np.linalg.qr(a)[1]), 1e-5)
    q, r = tt.linalg.qr(tt.constant(a), full_matrices=True)
    assert tuple(q.shape) == (2, 4, 4) and tuple(r.shape) == (2, 4, 3)
    for f in modes(lambda x: tt.linalg.svd(x)):
        s, u, v = (np.asarray(t.numpy()) for t in f(tt.constant(a)))
        close(s, np.linalg.svd(a, compute_uv=False), 1e-5)
        close(u @ (s[..., None] * np.swapaxes(v, -1, -2)), a, 1e-5)      # TensorFlow's v, not v^H
    close(tt.linalg.svd(tt.constant(a), compute_uv=False), np.linalg.svd(a, compute_uv=False), 1e-5)


def test_eig_and_eigvals_match_numpy():
    for f in modes(lambda x: tt.linalg.eigvals(x)):
        got = np.asarray(f(tt.constant(GEN)).numpy())
        assert got.dtype == np.complex64
        want = np.linalg.eigvals(GEN)
        np.testing.assert_allclose(np.sort_complex(got.reshape(-1)), np.sort_complex(want.reshape(-1)), rtol=1e-5)
    e, v = (np.asarray(t.numpy()) for t in tt.linalg.eig(tt.constant(GEN)))
    np.testing.assert_allclose(GEN.astype(np.complex64) @ v, v * e[..., None, :], rtol=1e-4, atol=1e-4)  # A v = v e


def test_lu_reconstructs():
    for f in modes(lambda x: tt.linalg.lu(x)):
        packed, perm = (np.asarray(t.numpy()) for t in f(tt.constant(GEN)))
        assert perm.dtype == np.int32
        for k in range(2):
            lower, upper = np.tril(packed[k], -1) + np.eye(3), np.triu(packed[k])
            close(lower @ upper, GEN[k][perm[k]], 1e-5)                  # A[p] = L U, TensorFlow's convention


def test_solves_and_inverse_match_numpy():
    for f in modes(lambda a, b: tt.linalg.solve(a, b)):
        close(f(tt.constant(GEN), tt.constant(RHS)), np.linalg.solve(GEN, RHS))
    for f in modes(lambda a, b: tt.linalg.solve(a, b, adjoint=True)):
        close(f(tt.constant(GEN), tt.constant(RHS)), np.linalg.solve(np.swapaxes(GEN, -1, -2), RHS))
    for f in modes(lambda a: tt.linalg.inv(a)):
        close(f(tt.constant(GEN)), np.linalg.inv(GEN))
    for f in modes(lambda a: tt.linalg.inv(a, adjoint=True)):
        close(f(tt.constant(GEN)), np.linalg.inv(np.swapaxes(GEN, -1, -2)))
    # triangular_solve reads only its triangle: the other one may hold anything
    for lower in (True, False):
        tri = np.tril(GEN) if lower else np.triu(GEN)
        for adjoint in (False, True):
            want = np.linalg.solve(np.swapaxes(tri, -1, -2) if adjoint else tri, RHS)
            for f in modes(lambda a, b, lo=lower, ad=adjoint: tt.linalg.triangular_solve(a, b, lower=lo, adjoint=ad)):
                close(f(tt.constant(GEN), tt.constant(RHS)), want)


@pytest.mark.parametrize("use_function", [False, True])
def test_errors_are_tensorflows(use_function):
    run = (lambda f, *a: tt.function(f)(*a)) if use_function else (lambda f, *a: f(*a))
    singular = tt.constant(np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        run(lambda a: tt.linalg.inv(a), singular)
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        run(lambda a: tt.linalg.solve(a, tt.ones([2, 1])), singular)
    with pytest.raises(InvalidArgumentError, match="square"):
        run(lambda a: tt.linalg.cholesky(a), tt.ones([2, 3]))
    with pytest.raises(InvalidArgumentError, match="same number of rows"):
        run(lambda a: tt.linalg.solve(a, tt.ones([3, 1])), tt.constant(np.eye(2, dtype=np.float32)))
    with pytest.raises(InvalidArgumentError, match="batch dims"):
        run(lambda a: tt.linalg.solve(a, tt.ones([3, 2, 1])), tt.ones([2, 2, 2]))


# --- gradients through TensorFlow's checker -------------------------------------------------------

def _sym(x):
    return (x + tt.linalg.matrix_transpose(x)) * 0.5


SYM = (_M[0] @ _M[0].T + 3 * np.eye(3))   # float64: TensorFlow's checker at abs_error 1e-6
GEN64 = GEN[0].astype(np.float64)
W = RNG.standard_normal((3, 3))


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name,model,x", [
    ("cholesky", lambda x: tt.reduce_sum(tt.linalg.cholesky(_sym(x)) * W), SYM),
    ("eigvalsh", lambda x: tt.reduce_sum(tt.linalg.eigvalsh(_sym(x)) * W[0]), SYM),
    # eigenvectors up to sign: a function of v v^T
    ("eigh-vectors", lambda x: tt.reduce_sum(tt.square(tt.linalg.eigh(_sym(x))[1]) * W), SYM),
    ("eigvals", lambda x: tt.reduce_sum(tt.math.real(tt.linalg.eigvals(x)) * W[0]), GEN64),
    # |v|² (unit columns, any phase): real² + imag²
    ("eig-vectors", lambda x: tt.reduce_sum((tt.square(tt.math.real(tt.linalg.eig(x)[1]))
                                             + tt.square(tt.math.imag(tt.linalg.eig(x)[1]))) * W), GEN64),
    ("triangular_solve", lambda x: tt.reduce_sum(tt.linalg.triangular_solve(x, RHS[0].astype(np.float64)) * W[:, :2]),
     GEN64),
])
def test_decomposition_gradients(name, model, x, use_function):
    report = compare_numerical_and_autodiff_gradients(model, [tt.constant(x)], use_function=use_function,
                                                      abs_error=1e-6)
    assert any(r.checked for r in report.inputs)


# --- determinants and the functions written with the ops ------------------------------------------

def test_determinants_match_numpy():
    neg = GEN.copy()
    neg[:, [0, 1]] = neg[:, [1, 0]]                                      # a row swap: negative determinants
    for a in (GEN, neg):
        for f in modes(lambda x: tt.linalg.det(x)):
            close(f(tt.constant(a)), np.linalg.det(a), 1e-4)
        for f in modes(lambda x: tt.linalg.slogdet(x)):
            sign, log = f(tt.constant(a))
            close(sign, np.linalg.slogdet(a)[0])
            close(log, np.linalg.slogdet(a)[1], 1e-5)
    sign, log = tt.linalg.slogdet(tt.constant(np.zeros((2, 2), np.float32)))
    assert float(sign.numpy()) == 0.0 and float(log.numpy()) == -np.inf   # singular: TensorFlow's (0, -inf)
    for f in modes(lambda x: tt.linalg.logdet(x)):
        close(f(tt.constant(SPD)), np.linalg.slogdet(SPD)[1], 1e-5)


def test_cholesky_solve_and_the_lu_family_match_numpy():
    for f in modes(lambda a, b: tt.linalg.cholesky_solve(tt.linalg.cholesky(a), b)):
        close(f(tt.constant(SPD), tt.constant(RHS)), np.linalg.solve(SPD, RHS), 1e-4)
    for f in modes(lambda a: tt.linalg.lu_reconstruct(*tt.linalg.lu(a))):
        close(f(tt.constant(GEN)), GEN, 1e-5)
    for f in modes(lambda a, b: tt.linalg.lu_solve(*tt.linalg.lu(a), b)):
        close(f(tt.constant(GEN), tt.constant(RHS)), np.linalg.solve(GEN, RHS), 1e-5)
    for f in modes(lambda a: tt.linalg.lu_matrix_inverse(*tt.linalg.lu(a))):
        close(f(tt.constant(GEN)), np.linalg.inv(GEN), 1e-5)
    np.testing.assert_array_equal(tt.eye(2, 3, batch_shape=[2]).numpy(), np.broadcast_to(np.eye(2, 3), (2, 2, 3)))
    assert tt.eye(3, dtype=tt.int32).dtype == tt.int32 and tt.linalg.eye is tt.eye


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name,model,xs", [
    ("det", lambda x: tt.reduce_sum(tt.linalg.det(x) * W[0, :2]), [GEN[:, :, :].astype(np.float64)[:2] / 4]),
    ("slogdet", lambda x: tt.reduce_sum(tt.linalg.slogdet(x)[1] * W[0, :2]), [-GEN.astype(np.float64)]),
    ("logdet", lambda x: tt.linalg.logdet(_sym(x)), [SYM]),
    ("cholesky_solve", lambda x, b: tt.reduce_sum(tt.linalg.cholesky_solve(tt.linalg.cholesky(_sym(x)), b) * W[:, :2]),
     [SYM, RHS[0].astype(np.float64)]),
    ("lu_solve-rhs", lambda b: tt.reduce_sum(tt.linalg.lu_solve(*tt.linalg.lu(tt.constant(GEN64)), b) * W[:, :2]),
     [RHS[0].astype(np.float64)]),
])
def test_function_gradients(name, model, xs, use_function):
    report = compare_numerical_and_autodiff_gradients(model, [tt.constant(x) for x in xs], use_function=use_function,
                                                      abs_error=1e-6)
    assert all(r.checked for r in report.inputs)


def test_pinv_matrix_rank_tensor_diag_match_numpy():
    a = RNG.uniform(-1, 1, (2, 4, 3))
    low = RNG.uniform(-1, 1, (4, 2)) @ RNG.uniform(-1, 1, (2, 3))          # rank 2
    for f in modes(lambda x: tt.linalg.pinv(x)):
        close(f(tt.constant(a)), np.linalg.pinv(a), 1e-10)
        close(f(tt.constant(low)), np.linalg.pinv(low), 1e-10)
    for f in modes(lambda x: tt.linalg.matrix_rank(x)):
        np.testing.assert_array_equal(f(tt.constant(low)).numpy(), np.linalg.matrix_rank(low))
        np.testing.assert_array_equal(f(tt.constant(a)).numpy(), [3, 3])
    assert tt.linalg.matrix_rank(tt.constant(low), tol=10.0).numpy() == 0
    d = RNG.uniform(size=(2, 3))
    close(tt.linalg.tensor_diag(tt.constant(d)), np.diag(d.ravel()).reshape(2, 3, 2, 3))
    close(tt.linalg.tensor_diag_part(tt.linalg.tensor_diag(tt.constant(d))), d)
    with pytest.raises(InvalidArgumentError):
        tt.linalg.tensor_diag_part(tt.ones([2, 3]))


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_pinv_gradient(use_function):
    a = RNG.uniform(-0.5, 0.5, (4, 3)) + 2 * np.eye(4, 3)                # singular values near 2: well conditioned
    w = RNG.standard_normal((3, 4))
    report = compare_numerical_and_autodiff_gradients(lambda x: tt.reduce_sum(tt.linalg.pinv(x) * w), [tt.constant(a)],
                                                      use_function=use_function, abs_error=1e-6)
    assert all(r.checked for r in report.inputs)
