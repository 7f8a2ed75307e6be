"""tt.signal.dct / idct (types II and III): values against scipy.fft.dct in eager, graph and XLA modes,
the orthonormal round trip, gradients through TensorFlow's checker, and the refusals."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.fft

import tinytf as tt
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

RNG = np.random.default_rng(31)
X = RNG.standard_normal((2, 3, 7))
s = tt.signal


@pytest.mark.parametrize("n", [None, 5, 9])
@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("type", [2, 3])
def test_dct_matches_scipy(type, norm, n):
    want = scipy.fft.dct(X, type=type, norm=norm, n=n)
    for f in (lambda v: s.dct(v, type=type, n=n, norm=norm), tt.function(lambda v: s.dct(v, type=type, n=n, norm=norm)),
              tt.function(lambda v: s.dct(v, type=type, n=n, norm=norm), jit_compile=True)):
        np.testing.assert_allclose(f(tt.constant(X)).numpy(), want, rtol=1e-12, atol=1e-12)
    got32 = s.dct(tt.constant(X.astype(np.float32)), type=type, n=n, norm=norm)
    assert got32.dtype == tt.float32
    np.testing.assert_allclose(got32.numpy(), want, rtol=1e-4, atol=1e-4)


def test_idct_is_the_inverse_type():
    np.testing.assert_allclose(s.idct(s.dct(tt.constant(X), norm="ortho"), norm="ortho").numpy(), X, atol=1e-12)
    # TensorFlow's idct is not normalised: idct(dct(x)) = 2N x
    np.testing.assert_allclose(s.idct(s.dct(tt.constant(X))).numpy(), 2 * 7 * X, atol=1e-11)
    np.testing.assert_allclose(s.idct(tt.constant(X), type=3).numpy(), scipy.fft.dct(X, type=2), atol=1e-12)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("type,norm", [(2, None), (2, "ortho"), (3, None), (3, "ortho")])
def test_gradients_match_tensorflows_checker(type, norm, use_function):
    w = RNG.standard_normal((2, 3, 6))
    report = compare_numerical_and_autodiff_gradients(
        lambda v: tt.reduce_sum(s.dct(v, type=type, n=6, norm=norm) * w), [tt.constant(X)], use_function=use_function,
        abs_error=1e-6)
    assert all(r.checked for r in report.inputs)


def test_refusals():
    with pytest.raises(UnimplementedError, match="type 1"):
        s.dct(tt.constant(X), type=1)
    with pytest.raises(InvalidArgumentError, match="axis"):
        s.dct(tt.constant(X), axis=0)
    with pytest.raises(InvalidArgumentError, match="norm"):
        s.dct(tt.constant(X), norm="forward")
    with pytest.raises(InvalidArgumentError, match="float32 or float64"):
        s.dct(tt.constant([1, 2, 3]))
