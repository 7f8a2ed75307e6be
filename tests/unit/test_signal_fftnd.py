"""tt.signal's N-D FFTs (tf.FFTND, IFFTND, RFFTND, IRFFTND and the fftnd / ifftnd / rfftnd / irfftnd
wrappers): values against numpy's fftn / ifftn / rfftn / irfftn in eager, graph and XLA (TensorFlow 2.21
has these kernels on GPU only, so numpy is the reference), gradients through TensorFlow's checker."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

RNG = np.random.default_rng(12)
X = RNG.standard_normal((3, 4, 5))
Z = X + 1j * RNG.standard_normal((3, 4, 5))
s, raw = tt.signal, tt.raw_ops
CASES = {  # name: (tinytf function of the input, numpy's value, input)
    "fftnd": (s.fftnd, np.fft.fftn(Z), Z),
    "fftnd_ortho": (lambda v: s.fftnd(v, norm="ortho"), np.fft.fftn(Z, norm="ortho"), Z),
    "ifftnd_forward": (lambda v: s.ifftnd(v, norm="forward"), np.fft.ifftn(Z, norm="forward"), Z),
    "raw_fftnd_crop_pad": (lambda v: raw.FFTND(input=v, fft_length=np.int32([2, 7]), axes=np.int32([0, 2])),
                           np.fft.fftn(Z, s=[2, 7], axes=[0, 2]), Z),
    "raw_ifftnd_negative_axes": (lambda v: raw.IFFTND(input=v, fft_length=np.int32([6, 2]), axes=np.int32([-1, -2])),
                                 np.fft.ifftn(Z, s=[6, 2], axes=[-1, -2]), Z),
    "rfftnd": (s.rfftnd, np.fft.rfftn(X), X),
    "raw_rfftnd": (lambda v: raw.RFFTND(input=v, fft_length=np.int32([2, 3]), axes=np.int32([0, 2])),
                   np.fft.rfftn(X, s=[2, 3], axes=[0, 2]), X),
    "irfftnd": (s.irfftnd, np.fft.irfftn(Z), Z),
    "irfftnd_ortho": (lambda v: s.irfftnd(v, norm="ortho"), np.fft.irfftn(Z, norm="ortho"), Z),
    "raw_irfftnd": (lambda v: raw.IRFFTND(input=v, fft_length=np.int32([2, 4]), axes=np.int32([0, 2])),
                    np.fft.irfftn(Z, s=[2, 4], axes=[0, 2]), Z),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_numpy_in_every_mode(name):
    fn, want, x = CASES[name]
    for f in (fn, tt.function(fn), tt.function(fn, jit_compile=True)):
        got = f(tt.constant(x)).numpy()
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    single = fn(tt.constant(x.astype(np.complex64 if x.dtype.kind == "c" else np.float32))).numpy()
    assert single.dtype == want.astype(np.complex64 if want.dtype.kind == "c" else np.float32).dtype
    np.testing.assert_allclose(single, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_gradients_through_tensorflows_checker(use_function):
    w = RNG.standard_normal((8, 8, 8))
    cases = [
        (lambda a: tt.reduce_sum(tt.math.real(s.rfftnd(a, fft_length=[2, 6], axes=[0, 2])) * w[:2, :4, :4]
                                 + tt.math.imag(s.rfftnd(a, fft_length=[2, 6], axes=[0, 2])) * w[2:4, :4, :4]), 1),
        (lambda a, b: tt.reduce_sum(s.irfftnd(tt.complex(a, b), fft_length=[4, 6], axes=[1, 2]) * w[:3, :4, :6]), 2),
        (lambda a, b: tt.reduce_sum(tt.math.imag(s.fftnd(tt.complex(a, b), fft_length=[2, 7], axes=[0, 2]))
                                    * w[:2, :4, :7]), 2),
        (lambda a, b: tt.reduce_sum(tt.math.real(s.ifftnd(tt.complex(a, b))) * w[:3, :4, :5]), 2),
    ]
    for model, count in cases:
        shape = (3, 4, 3) if count == 2 and model is cases[1][0] else (3, 4, 5)
        inputs = [tt.constant(RNG.standard_normal(shape)) for _ in range(count)]
        report = compare_numerical_and_autodiff_gradients(model, inputs, use_function=use_function, abs_error=1e-6)
        assert all(r.checked for r in report.inputs)


def test_errors():
    with pytest.raises(InvalidArgumentError, match="complex64 or complex128"):
        s.fftnd(tt.constant(X))
    with pytest.raises(InvalidArgumentError, match="float32 or float64"):
        s.rfftnd(tt.constant(Z))
    with pytest.raises(InvalidArgumentError, match="same length"):
        raw.FFTND(input=tt.constant(Z), fft_length=np.int32([2, 2]), axes=np.int32([0]))
    with pytest.raises(InvalidArgumentError, match="distinct axes"):
        raw.FFTND(input=tt.constant(Z), fft_length=np.int32([2, 2]), axes=np.int32([0, 3]))
    with pytest.raises(InvalidArgumentError, match="norm"):
        s.fftnd(tt.constant(Z), norm="unitary")
