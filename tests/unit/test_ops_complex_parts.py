"""tf.Complex, tf.Real, tf.Imag, tf.ComplexAbs, tf.Angle: values against numpy, and their gradients
with TensorFlow's complex convention (for a real loss L of z = x + iy, dL/dz is ∂L/∂x + i ∂L/∂y), in
eager and graph mode. (Their XLA runs: tests/unit/test_xla_ops.py.)"""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.ops.complex_parts import complex_abs

Z = np.array([[1 + 2j, -3 + 0.5j, 0.5 - 1j], [-1.5 + 0.25j, 2 - 1j, -0.75 - 2j]], np.complex128)
W1 = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.6]])
W2 = np.array([[-0.5, 0.9, 0.2], [0.8, -1.3, 0.1]])


def run(fn, use_function, *args):
    return (tt.function(fn) if use_function else fn)(*args)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_values_match_numpy(dtype, use_function):
    z = Z.astype(dtype)
    real = np.float32 if dtype == np.complex64 else np.float64
    for fn, want in ((tt.math.real, z.real), (tt.math.imag, z.imag), (complex_abs, np.abs(z)), (tt.math.angle, np.angle(z))):
        got = np.asarray(run(fn, use_function, tt.constant(z)).numpy())
        assert got.dtype == real
        np.testing.assert_allclose(got, want, rtol=1e-6)
    got = np.asarray(run(tt.complex, use_function, tt.constant(z.real), tt.constant(z.imag)).numpy())
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, z)


def test_real_inputs_and_bad_dtypes():
    x = tt.constant([-1.0, 2.0])
    assert tt.math.real(x) is x
    np.testing.assert_array_equal(tt.math.imag(x).numpy(), [0.0, 0.0])
    np.testing.assert_allclose(tt.math.angle(x).numpy(), [np.pi, 0.0])
    with pytest.raises(InvalidArgumentError):
        tt.complex(tt.constant([1.0]), tt.constant([1.0], tt.float64))
    with pytest.raises(InvalidArgumentError):
        tt.raw_ops.Real(input=x, Tout=tt.float32)


def _gradient(loss, z, use_function):
    def step(v):
        with tt.GradientTape() as tape:
            tape.watch(v)
            out = loss(v)
        return tape.gradient(out, v)
    return np.asarray(run(step, use_function, tt.constant(z)).numpy())


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_gradients_follow_tensorflows_convention(use_function):
    x, y, r2 = Z.real, Z.imag, np.abs(Z) ** 2
    got = _gradient(lambda v: tt.reduce_sum(tt.math.real(v) * W1 + tt.math.imag(v) * W2), Z, use_function)
    np.testing.assert_allclose(got, W1 + 1j * W2, rtol=1e-12)
    got = _gradient(lambda v: tt.reduce_sum(complex_abs(v) * W1), Z, use_function)
    np.testing.assert_allclose(got, W1 * Z / np.abs(Z), rtol=1e-12)
    got = _gradient(lambda v: tt.reduce_sum(tt.math.angle(v) * W1), Z, use_function)
    np.testing.assert_allclose(got, W1 * (-y + 1j * x) / r2, rtol=1e-12)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_complex_gradient_splits_into_the_parts(use_function):
    def step(a, b):
        with tt.GradientTape() as tape:
            tape.watch([a, b])
            z = tt.complex(a, b)
            out = tt.reduce_sum(tt.math.real(z) * W1 + tt.math.imag(z) * W2)
        return tape.gradient(out, [a, b])
    da, db = run(step, use_function, tt.constant(Z.real), tt.constant(Z.imag))
    np.testing.assert_allclose(da.numpy(), W1, rtol=1e-12)
    np.testing.assert_allclose(db.numpy(), W2, rtol=1e-12)
