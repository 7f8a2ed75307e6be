"""tt.signal's mel scale: the linear-to-mel weight matrix (HTK's mel formula, as TensorFlow's mel_ops.py)
and MFCCs from log-mel spectrograms.

    stfts = tt.signal.stft(audio, 256, 128)                                         # [..., frames, 129]
    mel = tt.signal.linear_to_mel_weight_matrix(40, 129, 16000, 20.0, 4000.0)     # [129, 40]
    log_mel = tt.math.log(tt.tensordot(tt.abs(stfts), mel, 1) + 1e-6)
    mfccs = tt.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :13]

The weight matrix depends on Python numbers only, so it is a constant, computed in ``dtype`` in
TensorFlow's order of operations (its LinSpace kernel, then mel = 1127 ln(1 + f / 700)).
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import static_value
from tinytf.ops.signal_dct import dct
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms"]
__namespaces__ = {n: ("signal",) for n in __all__}

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz, np_dtype):
    """HTK's mel scale, in ``np_dtype`` (each step rounded, as TensorFlow's ops round them)."""
    one = np_dtype.type(1.0)
    ratio = (np.asarray(hertz, np_dtype) / np_dtype.type(_MEL_BREAK_FREQUENCY_HERTZ)).astype(np_dtype)
    return (np_dtype.type(_MEL_HIGH_FREQUENCY_Q) * np.log(one + ratio).astype(np_dtype)).astype(np_dtype)


def _linspace(start, stop, num, np_dtype):
    """TensorFlow's LinSpace kernel: start + step · i with step = (stop - start) / (num - 1), the last one stop."""
    start, stop = np_dtype.type(start), np_dtype.type(stop)
    if num == 1:
        return np.asarray([start], np_dtype)
    step = np_dtype.type((stop - start) / np_dtype.type(num - 1))
    out = (start + step * np.arange(num, dtype=np_dtype)).astype(np_dtype)
    out[-1] = stop
    return out


def _number(what, value):
    v = static_value(value)
    if v is None or np.ndim(v) != 0:
        raise UnimplementedError(f"tt.signal.linear_to_mel_weight_matrix: {what} must be a scalar known before "
                                 "running", "tf.Const")
    return v.item()


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=dtypes.float32, name=None):
    """``tt.signal.linear_to_mel_weight_matrix``: [num_spectrogram_bins, num_mel_bins] triangular filters,
    each rising from its lower edge to its centre and falling to its upper edge, linear in mel; the DC bin
    (row 0) is zero, as in HTK."""
    mel_bins, bins = int(_number("num_mel_bins", num_mel_bins)), int(_number("num_spectrogram_bins",
                                                                               num_spectrogram_bins))
    rate = float(_number("sample_rate", sample_rate))
    lower, upper = float(_number("lower_edge_hertz", lower_edge_hertz)), float(_number("upper_edge_hertz",
                                                                                     upper_edge_hertz))
    dtype = dtypes.as_dtype(dtype)
    op = "tt.signal.linear_to_mel_weight_matrix"
    if mel_bins <= 0:
        raise InvalidArgumentError(f"{op}: num_mel_bins must be positive. Got: {mel_bins}", "tf.Const")
    if bins <= 0:
        raise InvalidArgumentError(f"{op}: num_spectrogram_bins must be positive. Got: {bins}", "tf.Const")
    if lower < 0.0:
        raise InvalidArgumentError(f"{op}: lower_edge_hertz must be non-negative. Got: {lower}", "tf.Const")
    if lower >= upper:
        raise InvalidArgumentError(f"{op}: lower_edge_hertz {lower:.1f} >= upper_edge_hertz {upper:.1f}", "tf.Const")
    if rate <= 0.0:
        raise InvalidArgumentError(f"{op}: sample_rate must be positive. Got: {rate}", "tf.Const")
    if upper > rate / 2:
        raise InvalidArgumentError(f"{op}: upper_edge_hertz must not be larger than the Nyquist frequency "
                                   f"(sample_rate / 2). Got {upper} for sample_rate: {rate}", "tf.Const")
    if not dtype.is_floating:
        raise InvalidArgumentError(f"{op}: dtype must be a floating point type. Got: {dtype.name}", "tf.Const")
    t = np.dtype(dtype.np)
    nyquist = t.type(t.type(rate) / t.type(2.0))
    spectrogram_mel = _hertz_to_mel(_linspace(0.0, nyquist, bins, t)[1:], t)[:, None]   # the DC bin left out
    edges = _linspace(_hertz_to_mel(lower, t), _hertz_to_mel(upper, t), mel_bins + 2, t)
    lower_mel, center_mel, upper_mel = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
    with np.errstate(all="ignore"):
        rising = ((spectrogram_mel - lower_mel).astype(t) / (center_mel - lower_mel).astype(t)).astype(t)
        falling = ((upper_mel - spectrogram_mel).astype(t) / (upper_mel - center_mel).astype(t)).astype(t)
    weights = np.maximum(t.type(0.0), np.minimum(rising, falling)).astype(t)
    return ops.constant(np.pad(weights, [[1, 0], [0, 0]]))


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """``tt.signal.mfccs_from_log_mel_spectrograms``: the orthonormal-scaled DCT-II of the innermost dim,
    dct(x) / sqrt(2 · num_mel_bins) (keep the first 13 or so as MFCCs)."""
    x = as_tensor(log_mel_spectrograms)
    dims = static_dims(x)
    if dims is None or not dims or dims[-1] is None:
        raise UnimplementedError(f"tt.signal.mfccs_from_log_mel_spectrograms: the innermost dim must be static, got "
                                 f"{dims}", "tf.RFFT")
    if dims[-1] < 1:
        raise InvalidArgumentError("tt.signal.mfccs_from_log_mel_spectrograms: num_mel_bins must be positive, got "
                                   f"{dims[-1]}", "tf.RFFT")
    coefficients = dct(x, type=2)
    return ops.multiply(coefficients, ops.scalar_like(coefficients, 1.0 / np.sqrt(2.0 * dims[-1])))
