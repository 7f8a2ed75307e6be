"""tt.linalg.logm (tf.MatrixLogarithm) and tt.linalg.eigh_tridiagonal: values against TensorFlow 2.21's
(tests/fixtures/linalg/tf_linalg.npz, recorded by tests/conformance/export_signal_fixtures.py) and scipy,
in eager, graph and XLA; TensorFlow's errors (logm: complex only, no gradient)."""
from __future__ import annotations

from pathlib import Path

import conformance_modules
import numpy as np
import pytest
import scipy.linalg

import tinytf as tt
from tinytf.errors import InvalidArgumentError

TESTS = Path(__file__).resolve().parents[1]
TF = np.load(TESTS / "fixtures" / "linalg" / "tf_linalg.npz")
CASES = conformance_modules.load("export_signal_fixtures")
V = CASES.linalg_inputs()
la = tt.linalg


def modes(fn):
    return [fn, tt.function(fn), tt.function(fn, jit_compile=True)]


def test_logm_is_tensorflows_and_scipys_in_every_mode():
    a = V["near_identity"]
    for f in modes(la.logm):
        got = f(tt.constant(a)).numpy()
        np.testing.assert_allclose(got, TF["logm"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(scipy.linalg.expm(la.logm(tt.constant(a)).numpy()[0]), a[0], rtol=1e-12)
    assert la.logm(tt.constant(a.astype(np.complex64))).dtype == tt.complex64


def test_logm_errors_are_tensorflows():
    with pytest.raises(InvalidArgumentError, match="tf.MatrixLogarithm"):
        la.logm(tt.constant(np.eye(2)))
    x = tt.constant(V["near_identity"])
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = tt.reduce_sum(tt.math.real(la.logm(x)))
    with pytest.raises(LookupError, match="MatrixLogarithm"):
        tape.gradient(y, x)


@pytest.mark.parametrize("name,kwargs", [("eigh_tridiagonal", {}), ("eigh_tridiagonal_i", {"select": "i", "select_range": [1, 3]}),
                                         ("eigh_tridiagonal_v", {"select": "v", "select_range": [-0.5, 1.0]})])
def test_eigh_tridiagonal_values_are_tensorflows(name, kwargs):
    modes_here = modes if kwargs.get("select") != "v" else (lambda fn: [fn, tt.function(fn)])  # "v": a data-dependent size
    for f in modes_here(lambda a, b: la.eigh_tridiagonal(a, b, **kwargs)):
        np.testing.assert_allclose(f(tt.constant(V["alpha"]), tt.constant(V["beta"])).numpy(), TF[name], rtol=1e-12,
                                   atol=1e-12)


def test_eigh_tridiagonal_hermitian_and_vectors():
    alpha, beta = V["alpha"], V["complex_beta"]
    got = la.eigh_tridiagonal(tt.constant(alpha.astype(np.complex128)), tt.constant(beta)).numpy()
    np.testing.assert_allclose(got, TF["eigh_tridiagonal_complex"], rtol=1e-12, atol=1e-12)
    dense = np.diag(alpha) + np.diag(V["beta"], 1) + np.diag(V["beta"], -1)
    values, vectors = la.eigh_tridiagonal(tt.constant(alpha), tt.constant(V["beta"]), eigvals_only=False)
    v = vectors.numpy()
    np.testing.assert_allclose(dense @ v, v * values.numpy(), atol=1e-12)   # A v = λ v, orthonormal columns
    np.testing.assert_allclose(v.T @ v, np.eye(6), atol=1e-12)
    np.testing.assert_allclose(values.numpy(), scipy.linalg.eigvalsh_tridiagonal(alpha, V["beta"]), rtol=1e-12)


def test_eigh_tridiagonal_errors():
    with pytest.raises(InvalidArgumentError, match="beta must have 5 elements"):
        la.eigh_tridiagonal(tt.constant(V["alpha"]), tt.constant(V["beta"][:3]))
    with pytest.raises(InvalidArgumentError, match="select"):
        la.eigh_tridiagonal(tt.constant(V["alpha"]), tt.constant(V["beta"]), select="x")
