"""tt.signal's mel matrix, MFCCs, Kaiser / KBD / Vorbis windows, DCT-IV and MDCT: values against TensorFlow
2.21's (tests/fixtures/signal/tf_signal.npz, recorded by tests/conformance/export_signal_fixtures.py) and
scipy's, in eager, graph and XLA modes; gradients through TensorFlow's checker; TensorFlow's errors."""
from __future__ import annotations

from pathlib import Path

import conformance_modules
import numpy as np
import pytest
import scipy.fft
import scipy.signal

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

TF = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "signal" / "tf_signal.npz")
CASES = conformance_modules.load("export_signal_fixtures")
s = tt.signal


def modes(fn):
    return [fn, tt.function(fn), tt.function(fn, jit_compile=True)]


def close_to_tensorflow(got, name, dtype):
    """float32: TensorFlow's value to a few float32 roundings of the result's scale; float64: to 1e-12."""
    want = TF[name]
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(got, want, rtol=0, atol=16 * eps * max(1.0, np.abs(want).max()), err_msg=name)


@pytest.mark.parametrize("name", sorted(CASES.MEL_CASES))
def test_mel_matrix_is_tensorflows(name):
    mel_bins, bins, rate, lo, hi, dtype = CASES.MEL_CASES[name]
    got = s.linear_to_mel_weight_matrix(mel_bins, bins, rate, lo, hi, dtype=getattr(tt, dtype)).numpy()
    want = TF[name]
    assert got.dtype == want.dtype and got.shape == (bins, mel_bins)
    # TensorFlow computes in ``dtype`` with Eigen's log, which can differ from a correctly rounded one by an
    # ulp of the mel value; a weight is (mel - edge) / band width, so it can move by ulp(max mel) / min width.
    t = np.dtype(dtype)
    mel_max = 1127.0 * np.log1p(hi / 700.0)
    edges = 1127.0 * np.log1p(np.linspace(lo, hi, mel_bins + 2) / 700.0)
    bound = 2 * np.spacing(t.type(mel_max)) / np.diff(edges).min()
    np.testing.assert_allclose(got, want, rtol=0, atol=bound)
    assert (got[0] == 0).all() and (want[0] == 0).all()     # the DC bin
    # every filter is a triangle with peak at most 1, as HTK's
    assert got.max() <= 1.0 and (got.max(axis=0) > 0).all()


def test_mel_matrix_errors_are_tensorflows():
    with pytest.raises(InvalidArgumentError, match="num_mel_bins must be positive"):
        s.linear_to_mel_weight_matrix(0)
    with pytest.raises(InvalidArgumentError, match="lower_edge_hertz 4000.0 >= upper_edge_hertz 100.0"):
        s.linear_to_mel_weight_matrix(20, 129, 16000, 4000.0, 100.0)
    with pytest.raises(InvalidArgumentError, match="Nyquist"):
        s.linear_to_mel_weight_matrix(20, 129, 8000, 125.0, 5000.0)
    with pytest.raises(InvalidArgumentError, match="floating point"):
        s.linear_to_mel_weight_matrix(dtype=tt.int32)


@pytest.mark.parametrize("name", sorted(CASES.WINDOW_CASES))
def test_windows_are_tensorflows(name):
    fn, length, kwargs = CASES.WINDOW_CASES[name]
    dtype = kwargs.get("dtype", "float32")
    kwargs = {k: getattr(tt, v) if k == "dtype" else v for k, v in kwargs.items()}
    close_to_tensorflow(getattr(s, fn)(length, **kwargs).numpy(), name, dtype)


@pytest.mark.parametrize("length", [2, 7, 8, 33])
def test_windows_match_scipy(length):
    np.testing.assert_allclose(s.kaiser_window(length, beta=6.5, dtype=tt.float64).numpy(),
                               scipy.signal.windows.kaiser(length, 6.5), rtol=1e-12, atol=1e-15)
    if length % 2 == 0:
        np.testing.assert_allclose(s.kaiser_bessel_derived_window(length, beta=4.0, dtype=tt.float64).numpy(),
                                   scipy.signal.windows.kaiser_bessel_derived(length, 4.0), rtol=1e-12)
    w = s.vorbis_window(length, dtype=tt.float64).numpy()
    if length % 2 == 0:   # Princen-Bradley: w[n]^2 + w[n + N/2]^2 = 1
        np.testing.assert_allclose(w[:length // 2] ** 2 + w[length // 2:] ** 2, 1.0, rtol=1e-12)


def test_window_errors():
    with pytest.raises(InvalidArgumentError, match="floating point"):
        s.kaiser_window(4, dtype=tt.int32)
    with pytest.raises(InvalidArgumentError, match="integer"):
        s.vorbis_window(4.5)


def test_mfccs_are_tensorflows_in_every_mode():
    x = CASES.signal_input(1, 2, 3, 40)
    for f in modes(s.mfccs_from_log_mel_spectrograms):
        close_to_tensorflow(f(tt.constant(x)).numpy(), "mfccs", "float32")
    # dct2(x) / sqrt(2N): scipy's orthonormal DCT-II but for the first coefficient, sqrt(2) times larger
    want = scipy.fft.dct(x.astype(np.float64), type=2, norm="ortho")
    want[..., 0] *= np.sqrt(2.0)
    np.testing.assert_allclose(s.mfccs_from_log_mel_spectrograms(tt.constant(x.astype(np.float64))).numpy(),
                               want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct4_matches_scipy_and_tensorflow(norm):
    x = CASES.signal_input(4, 3, 6)
    for f in modes(lambda v: s.dct(v, type=4, norm=norm)):
        close_to_tensorflow(f(tt.constant(x)).numpy(), "dct4" if norm is None else "dct4_ortho", "float32")
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(s.dct(tt.constant(x64), type=4, norm=norm).numpy(),
                               scipy.fft.dct(x64, type=4, norm=norm), rtol=1e-12, atol=1e-12)
    close_to_tensorflow(s.idct(tt.constant(x), type=4).numpy(), "idct4", "float32")
    # ortho DCT-IV is its own inverse
    np.testing.assert_allclose(s.idct(s.dct(tt.constant(x64), type=4, norm="ortho"), type=4, norm="ortho").numpy(),
                               x64, atol=1e-12)


def test_mdct_is_tensorflows_in_every_mode():
    audio = CASES.signal_input(2, 2, 64)
    for f in modes(lambda a: s.mdct(a, 16)):
        close_to_tensorflow(f(tt.constant(audio)).numpy(), "mdct", "float32")
    kbd = s.mdct(tt.constant(audio[:, :60]), 8, window_fn=s.kaiser_bessel_derived_window, pad_end=True, norm="ortho")
    close_to_tensorflow(kbd.numpy(), "mdct_ortho_kbd_pad", "float32")
    coefficients = CASES.signal_input(3, 2, 5, 8)
    for f in modes(s.inverse_mdct):
        close_to_tensorflow(f(tt.constant(coefficients)).numpy(), "inverse_mdct", "float32")
    close_to_tensorflow(s.inverse_mdct(tt.constant(coefficients), norm="ortho").numpy(), "inverse_mdct_ortho",
                        "float32")


def test_inverse_mdct_inverts_mdct_between_the_first_and_last_half_frames():
    audio = CASES.signal_input(5, 3, 96).astype(np.float64)
    back = s.inverse_mdct(s.mdct(tt.constant(audio), 16, norm="ortho"), norm="ortho").numpy()
    np.testing.assert_allclose(back[:, 8:-8], audio[:, 8:-8], atol=1e-12)


def test_mdct_errors():
    with pytest.raises(InvalidArgumentError, match="multiple of 4"):
        s.mdct(tt.constant(np.zeros((2, 30), np.float32)), 10)
    with pytest.raises(InvalidArgumentError, match="norm"):
        s.inverse_mdct(tt.constant(np.zeros((2, 4), np.float32)), norm="forward")


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_gradients_through_tensorflows_checker(use_function):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((8, 8))
    cases = [
        (lambda a: tt.reduce_sum(s.mfccs_from_log_mel_spectrograms(a) * w[:3, :8]), (3, 8)),
        (lambda a: tt.reduce_sum(s.mdct(a, 8) * w[:5, :4]), (24,)),
        (lambda a: tt.reduce_sum(s.inverse_mdct(a) * w[0, :6]), (2, 2)),
        (lambda a: tt.reduce_sum(s.dct(a, type=4, norm="ortho") * w[1, :5]), (5,)),
    ]
    for model, shape in cases:
        report = compare_numerical_and_autodiff_gradients(model, [tt.constant(rng.standard_normal(shape))],
                                                          use_function=use_function, abs_error=1e-6)
        assert all(r.checked for r in report.inputs)
