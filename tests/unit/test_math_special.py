"""tt.math.special (tf.BesselJ0 ... tf.Spence, with the I0 / I1 family) and tt.math.log_sigmoid: values
against scipy.special in eager, graph and XLA, float32 and float64; gradients through TensorFlow's
checker (the spec table in test_gradients_spec.py checks them in float32 and under XLA too)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

X = np.linspace(0.3, 2.0, 9)
REFERENCES = {
    "bessel_j0": sp.j0, "bessel_j1": sp.j1, "bessel_y0": sp.y0, "bessel_y1": sp.y1, "bessel_k0": sp.k0,
    "bessel_k0e": sp.k0e, "bessel_k1": sp.k1, "bessel_k1e": sp.k1e, "dawsn": sp.dawsn, "expint": sp.expi,
    "fresnel_cos": lambda v: sp.fresnel(v)[1], "fresnel_sin": lambda v: sp.fresnel(v)[0], "spence": sp.spence,
    "bessel_i0": sp.i0, "bessel_i0e": sp.i0e, "bessel_i1": sp.i1, "bessel_i1e": sp.i1e,
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_values_match_scipy_in_every_mode(name):
    fn = getattr(tt.math.special, name)
    for dtype, tol in ((np.float64, 1e-13), (np.float32, 2e-6)):
        x = X.astype(dtype)
        want = REFERENCES[name](x.astype(np.float64))
        for f in (fn, tt.function(fn), tt.function(fn, jit_compile=True)):
            got = f(tt.constant(x)).numpy()
            assert got.dtype == dtype
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_gradients_through_tensorflows_checker(name, use_function):
    fn = getattr(tt.math.special, name)
    w = np.random.default_rng(2).standard_normal(X.shape)
    report = compare_numerical_and_autodiff_gradients(lambda a: tt.reduce_sum(fn(a) * w), [tt.constant(X)],
                                                      use_function=use_function, abs_error=1e-6)
    assert all(r.checked for r in report.inputs)


def test_the_limits_tensorflow_imputes():
    with tt.GradientTape() as tape:
        x = tt.constant([0.0, 1.0])
        tape.watch(x)
        y = tt.reduce_sum(tt.math.special.bessel_j1(x[:1])) + tt.reduce_sum(tt.math.special.spence(x[1:]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, -1.0])


def test_log_sigmoid():
    x = np.array([-800.0, -3.0, 0.0, 2.5, 800.0])
    want = -np.logaddexp(0.0, -x)
    for f in (tt.math.log_sigmoid, tt.function(tt.math.log_sigmoid), tt.function(tt.math.log_sigmoid, jit_compile=True)):
        np.testing.assert_allclose(f(tt.constant(x)).numpy(), want, rtol=1e-14)
    report = compare_numerical_and_autodiff_gradients(lambda a: tt.reduce_sum(tt.math.log_sigmoid(a)),
                                                      [tt.constant(x[1:4])], abs_error=1e-6)
    assert all(r.checked for r in report.inputs)


def test_errors():
    with pytest.raises(InvalidArgumentError, match="tf.BesselK0"):
        tt.math.special.bessel_k0(tt.constant([1, 2]))
