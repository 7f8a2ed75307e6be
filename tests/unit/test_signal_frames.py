"""tt.signal.frame, overlap_and_add, stft and inverse_stft: values against numpy in eager, graph and XLA
modes, the round trip stft -> inverse_stft, and gradients through TensorFlow's checker."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

RNG = np.random.default_rng(21)
AUDIO = RNG.standard_normal((2, 50)).astype(np.float32)
s = tt.signal


def modes(fn):
    return [fn, tt.function(fn), tt.function(fn, jit_compile=True)]


def np_frame(x, length, step, axis=-1):
    return np.moveaxis(np.moveaxis(sliding_window_view(x, length, axis=axis), -1, axis if axis >= 0 else axis - 1)
                       .take(np.arange(0, x.shape[axis] - length + 1, step), axis=axis), 0, 0)


def np_overlap_and_add(frames, step):
    *batch, count, length = frames.shape
    out = np.zeros(batch + [(count - 1) * step + length], frames.dtype)
    for f in range(count):
        out[..., f * step:f * step + length] += frames[..., f, :]
    return out


@pytest.mark.parametrize("length,step", [(8, 3), (5, 5), (50, 1), (51, 2)])
def test_frame_matches_numpy(length, step):
    count = max(0, 1 + (50 - length) // step)
    want = np.stack([AUDIO[:, f * step:f * step + length] for f in range(count)], axis=1) if count else \
        np.zeros((2, 0, length), np.float32)
    for f in modes(lambda v: s.frame(v, length, step)):
        np.testing.assert_array_equal(f(tt.constant(AUDIO)).numpy(), want)


def test_frame_pad_end_and_axis():
    got = s.frame(tt.constant(AUDIO), 8, 3, pad_end=True, pad_value=-1.0).numpy()
    padded = np.concatenate([AUDIO, -np.ones((2, 6), np.float32)], axis=1)      # ceil(50 / 3) = 17 frames
    want = np.stack([padded[:, f * 3:f * 3 + 8] for f in range(17)], axis=1)
    np.testing.assert_array_equal(got, want)
    x = RNG.standard_normal((10, 3)).astype(np.float32)
    got = s.frame(tt.constant(x), 4, 2, axis=0).numpy()                       # [frames, frame_length, 3]
    np.testing.assert_array_equal(got, np.stack([x[f * 2:f * 2 + 4] for f in range(4)]))


@pytest.mark.parametrize("step", [1, 3, 8, 10])
def test_overlap_and_add_matches_numpy(step):
    frames = RNG.standard_normal((2, 3, 5, 8)).astype(np.float32)
    for f in modes(lambda v: s.overlap_and_add(v, step)):
        np.testing.assert_allclose(f(tt.constant(frames)).numpy(), np_overlap_and_add(frames, step), rtol=1e-6,
                                   atol=1e-6)


@pytest.mark.parametrize("fft_length", [None, 16])
def test_stft_matches_numpy(fft_length):
    n = 8 if fft_length is None else fft_length
    frames = np.stack([AUDIO[:, f * 3:f * 3 + 8] for f in range(15)], axis=1)
    want = np.fft.rfft(frames * (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)), n=n)   # periodic Hann
    for f in modes(lambda v: s.stft(v, 8, 3, fft_length=fft_length)):
        got = f(tt.constant(AUDIO))
        assert got.dtype == tt.complex64 and tuple(got.shape) == (2, 15, n // 2 + 1)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    plain = s.stft(tt.constant(AUDIO), 8, 3, window_fn=None).numpy()
    np.testing.assert_allclose(plain, np.fft.rfft(frames), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("length,step,fft_length", [(8, 2, None), (16, 4, None), (6, 3, 8)])
def test_inverse_stft_inverts_stft(length, step, fft_length):
    spec = s.stft(tt.constant(AUDIO.astype(np.float64)), length, step, fft_length=fft_length)
    window = s.inverse_stft_window_fn(step)
    for f in modes(lambda v: s.inverse_stft(v, length, step, fft_length=fft_length, window_fn=window)):
        back = f(spec).numpy()
        m = back.shape[-1]                       # (frames - 1) * step + length samples come back
        assert m == (spec.shape[-2] - 1) * step + length
        np.testing.assert_allclose(back[:, length:m - length], AUDIO[:, length:m - length], rtol=1e-10, atol=1e-10)


def test_bad_input():
    with pytest.raises(InvalidArgumentError):
        s.frame(tt.constant(AUDIO), 0, 1)
    with pytest.raises(InvalidArgumentError):
        s.frame(tt.constant(AUDIO), 4, 2, axis=2)
    with pytest.raises(InvalidArgumentError):
        s.overlap_and_add(tt.constant([1.0, 2.0]), 1)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_gradients_match_tensorflows_checker(use_function):
    x = RNG.standard_normal((2, 12))
    w = RNG.standard_normal((2, 4, 5))
    check = lambda model, *xs: compare_numerical_and_autodiff_gradients(  # noqa: E731
        model, [tt.constant(v) for v in xs], use_function=use_function, abs_error=1e-6)
    check(lambda v: tt.reduce_sum(s.frame(v, 5, 2, pad_end=True)[:, :4] * w), x)
    check(lambda v: tt.reduce_sum(s.overlap_and_add(v, 2) * tt.constant(np.arange(11.0))), RNG.standard_normal((4, 5)))
    w_spec, w_audio = RNG.standard_normal((2, 3, 5)), RNG.standard_normal((2, 12))   # fixed: the model is a function
    check(lambda v: tt.reduce_sum(tt.math.real(s.stft(v, 6, 3)) * w_spec), x)
    spec = RNG.standard_normal((2, 3, 5))
    check(lambda a, b: tt.reduce_sum(s.inverse_stft(tt.complex(a, b), 6, 3) * w_audio), spec, spec * 0.5)
