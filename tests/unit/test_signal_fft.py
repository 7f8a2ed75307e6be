"""tt.signal's FFTs, shifts and windows: values against numpy / scipy in eager, graph and XLA modes, the
FFTs' gradients against their adjoints (TensorFlow's complex convention: for a real loss L of z = x + iy
the gradient is ∂L/∂x + i ∂L/∂y), and TensorFlow's errors."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.signal

import tinytf as tt
from tinytf.errors import InvalidArgumentError

RNG = np.random.default_rng(8)
Z = RNG.standard_normal((2, 3, 4, 6)) + 1j * RNG.standard_normal((2, 3, 4, 6))
G = RNG.standard_normal(Z.shape) + 1j * RNG.standard_normal(Z.shape)   # the upstream gradient
s = tt.signal
TRANSFORMS = {  # name: (tt function, numpy reference, rank)
    "fft": (s.fft, np.fft.fftn, 1), "ifft": (s.ifft, np.fft.ifftn, 1),
    "fft2d": (s.fft2d, np.fft.fftn, 2), "ifft2d": (s.ifft2d, np.fft.ifftn, 2),
    "fft3d": (s.fft3d, np.fft.fftn, 3), "ifft3d": (s.ifft3d, np.fft.ifftn, 3),
}


def modes(fn):
    return [fn, tt.function(fn), tt.function(fn, jit_compile=True)]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transforms_match_numpy(name, dtype):
    fn, ref, rank = TRANSFORMS[name]
    z = Z.astype(dtype)
    want = ref(z, axes=tuple(range(-rank, 0)))
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    for f in modes(fn):
        got = np.asarray(f(tt.constant(z)).numpy())
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)
    assert f"tf.{name.upper()}" in tt.function(fn).get_concrete_function(tt.TensorSpec(z.shape, tt.as_dtype(dtype))).mlir()


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_gradients_are_the_adjoints(name, use_function):
    fn, ref, rank = TRANSFORMS[name]
    axes = tuple(range(-rank, 0))
    n = int(np.prod(Z.shape[-rank:]))

    def step(z):
        with tt.GradientTape() as tape:
            tape.watch(z)
            y = fn(z)
            loss = tt.reduce_sum(tt.math.real(y) * G.real + tt.math.imag(y) * G.imag)   # Re <G, F z>
        return tape.gradient(loss, z)

    got = (tt.function(step) if use_function else step)(tt.constant(Z)).numpy()
    # F^H G: n·ifft(G) for the DFT, fft(G)/n for its inverse
    want = n * np.fft.ifftn(G, axes=axes) if not name.startswith("i") else np.fft.fftn(G, axes=axes) / n
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("axes", [None, 0, -1, (0, 2)])
def test_shifts_match_numpy(axes):
    x = np.arange(2 * 5 * 4, dtype=np.float32).reshape(2, 5, 4)
    for f in modes(lambda v: s.fftshift(v, axes=axes)):
        np.testing.assert_array_equal(f(tt.constant(x)).numpy(), np.fft.fftshift(x, axes=axes))
    for f in modes(lambda v: s.ifftshift(v, axes=axes)):
        np.testing.assert_array_equal(f(tt.constant(x)).numpy(), np.fft.ifftshift(x, axes=axes))
    back = s.ifftshift(s.fftshift(tt.constant(x), axes=axes), axes=axes)
    np.testing.assert_array_equal(back.numpy(), x)


@pytest.mark.parametrize("length", [1, 2, 7, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_scipy(length, periodic):
    # TensorFlow's rule: N = length + periodic·even - 1, so an odd length's periodic window is the symmetric one
    periodic_here = periodic and length % 2 == 0
    for name in ("hann", "hamming"):
        fn = getattr(s, f"{name}_window")
        want = scipy.signal.get_window(name, length, fftbins=periodic_here)
        for dtype, tol in ((tt.float32, 1e-6), (tt.float64, 1e-12)):
            got = fn(length, periodic=periodic, dtype=dtype)
            assert got.dtype == dtype
            np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(tt.function(lambda: s.hann_window(tt.constant(length), periodic))().numpy(),
                               scipy.signal.get_window("hann", length, fftbins=periodic_here), atol=1e-6)


def test_errors_are_tensorflows():
    with pytest.raises(InvalidArgumentError, match="complex"):
        s.fft(tt.constant([1.0, 2.0]))
    with pytest.raises(InvalidArgumentError, match="rank at least 2"):
        s.fft2d(tt.constant(np.ones(3, np.complex64)))
    with pytest.raises(InvalidArgumentError, match="floating"):
        s.hann_window(4, dtype=tt.int32)
    with pytest.raises(InvalidArgumentError, match="out of range"):
        s.fftshift(tt.constant([1.0, 2.0]), axes=1)
    assert s.fft(tt.constant(np.zeros((0, 3), np.complex64))).shape == (0, 3)


# --- real transforms ----------------------------------------------------------------------------

REAL = {"rfft": (s.rfft, 1), "rfft2d": (s.rfft2d, 2), "rfft3d": (s.rfft3d, 3)}
INVERSE_REAL = {"irfft": (s.irfft, 1), "irfft2d": (s.irfft2d, 2), "irfft3d": (s.irfft3d, 3)}


@pytest.mark.parametrize("length", [None, 5, 8])
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_transforms_match_numpy(name, length):
    fn, rank = REAL[name]
    x = Z.real.astype(np.float32)
    fft_length = None if length is None else [length] * rank
    want = np.fft.rfftn(x, s=fft_length, axes=tuple(range(-rank, 0)))
    for f in modes(lambda v: fn(v, fft_length)):
        got = np.asarray(f(tt.constant(x)).numpy())
        assert got.dtype == np.complex64 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    got = fn(tt.constant(Z.real), fft_length)
    assert got.dtype == tt.complex128
    np.testing.assert_allclose(got.numpy(), np.fft.rfftn(Z.real, s=fft_length, axes=tuple(range(-rank, 0))),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("length", [None, 3, 6, 7])
@pytest.mark.parametrize("name", sorted(INVERSE_REAL))
def test_inverse_real_transforms_match_numpy(name, length):
    fn, rank = INVERSE_REAL[name]
    y = Z[..., :4].astype(np.complex64)
    fft_length = None if length is None else [length] * rank
    want = np.fft.irfftn(y, s=fft_length, axes=tuple(range(-rank, 0)))
    for f in modes(lambda v: fn(v, fft_length)):
        got = np.asarray(f(tt.constant(y)).numpy())
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    back = s.irfft(s.rfft(tt.constant(Z.real)), [6])                 # irfft(rfft(x)) = x
    np.testing.assert_allclose(back.numpy(), Z.real, atol=1e-12)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name,length", [("rfft", None), ("rfft", 4), ("rfft2d", None), ("rfft3d", [2, 3, 5]),
                                         ("irfft", None), ("irfft", 5), ("irfft2d", None), ("irfft3d", [2, 2, 3])])
def test_real_transform_gradients_match_tensorflows_checker(name, length, use_function):
    fn, rank = {**REAL, **INVERSE_REAL}[name]
    fft_length = [length] if isinstance(length, int) else length
    shape = (2, 3, 4)
    w = RNG.standard_normal((8, 8, 8))

    def weigh(y):
        dims = tuple(y.shape)
        part = w[tuple(slice(0, d) for d in dims[-3:])] if len(dims) >= 3 else w[0, :dims[0], :dims[1]]
        if y.dtype.is_complex:
            return tt.reduce_sum(tt.math.real(y) * part + tt.math.imag(y) * (part * 0.5))
        return tt.reduce_sum(y * part)

    if name.startswith("i"):   # complex input, as two real ones: the checker perturbs real dtypes
        inputs = [tt.constant(RNG.standard_normal(shape)), tt.constant(RNG.standard_normal(shape))]
        model = lambda a, b: weigh(fn(tt.complex(a, b), fft_length))  # noqa: E731
    else:
        inputs = [tt.constant(RNG.standard_normal(shape))]
        model = lambda a: weigh(fn(a, fft_length))  # noqa: E731
    from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

    report = compare_numerical_and_autodiff_gradients(model, inputs, use_function=use_function, abs_error=1e-6)
    assert all(r.checked for r in report.inputs)


# --- the raw real-FFT ops -------------------------------------------------------------------------

@pytest.mark.parametrize("name,rank", [("RFFT", 1), ("RFFT2D", 2), ("RFFT3D", 3)])
def test_raw_real_ffts_are_tensorflows_ops(name, rank):
    x = Z.real[..., :5]
    lengths = np.asarray([3, 4, 7][-rank:], np.int32)       # crops the first dims, pads the last one
    forward, inverse = getattr(tt.raw_ops, name), getattr(tt.raw_ops, "I" + name)
    for f in modes(lambda v: forward(input=v, fft_length=lengths)):
        np.testing.assert_allclose(f(tt.constant(x)).numpy(), np.fft.rfftn(x, s=lengths, axes=range(-rank, 0)),
                                   rtol=1e-12, atol=1e-12)
    y = Z[..., :5]
    for f in modes(lambda v: inverse(input=v, fft_length=lengths)):
        np.testing.assert_allclose(f(tt.constant(y)).numpy(), np.fft.irfftn(y, s=lengths, axes=range(-rank, 0)),
                                   rtol=1e-12, atol=1e-12)
    text = tt.function(lambda v: s.rfft(v, [8])).get_concrete_function(tt.TensorSpec([2, 6], tt.float32)).mlir()
    assert '"tf.RFFT"' in text and "tensor<2x5xcomplex<f32>>" in text


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_real_fft_gradients_with_padding_fft_lengths(use_function):
    """fft_length longer than the input: the kernels pad, the gradients crop (and the other way round)."""
    from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

    w = RNG.standard_normal((3, 9))
    forward = lambda a: tt.reduce_sum(tt.math.real(s.rfft2d(a, [3, 9])) * w[:, :5]  # noqa: E731
                                      + tt.math.imag(s.rfft2d(a, [3, 9])) * w[:, 4:])
    inverse = lambda a, b: tt.reduce_sum(s.irfft(tt.complex(a, b), [9]) * w[:2])  # noqa: E731
    for model, inputs in ((forward, [RNG.standard_normal((2, 6))]),
                          (inverse, [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))])):
        report = compare_numerical_and_autodiff_gradients(model, [tt.constant(v) for v in inputs],
                                                          use_function=use_function, abs_error=1e-6)
        assert all(r.checked for r in report.inputs)


def test_raw_real_fft_errors():
    with pytest.raises(InvalidArgumentError, match="float32 or float64"):
        tt.raw_ops.RFFT(input=tt.constant(np.ones(4, np.complex64)), fft_length=np.asarray([4], np.int32))
    with pytest.raises(InvalidArgumentError, match="vector of 2 lengths"):
        tt.raw_ops.RFFT2D(input=tt.constant(np.ones((4, 4), np.float32)), fft_length=np.asarray([4], np.int32))
    with pytest.raises(InvalidArgumentError, match="complex64 or complex128"):
        tt.raw_ops.IRFFT(input=tt.constant(np.ones(4, np.float32)), fft_length=np.asarray([4], np.int32))
