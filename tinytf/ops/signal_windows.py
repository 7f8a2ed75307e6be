"""tt.signal's Kaiser, Kaiser-Bessel-derived and Vorbis windows (the raised-cosine ones, hann and hamming,
are in signal_fft.py). A window's length is known before running, so a window is a constant.

    tt.signal.kaiser_window(8, beta=12.0)              # I0(β sqrt(1 - (2n/(N-1) - 1)^2)) / I0(β), symmetric
    tt.signal.kaiser_bessel_derived_window(8)          # sqrt(cumsum(kaiser(N/2 + 1))[:-1] / sum), mirrored
    tt.signal.vorbis_window(8)                         # sin(π/2 sin^2(π (n + 1/2) / N))

The values are TensorFlow's window_ops.py formulas, computed in float64 and rounded to ``dtype``.
"""
from __future__ import annotations

import numpy as np
import scipy.special

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import static_value

__all__ = ["kaiser_window", "kaiser_bessel_derived_window", "vorbis_window"]
__namespaces__ = {n: ("signal",) for n in __all__}


def _length_and_dtype(what, window_length, dtype):
    """TensorFlow's checks: a non-negative integer scalar length, a floating point dtype."""
    length = static_value(window_length)
    if length is None or np.ndim(length) != 0:
        raise UnimplementedError(f"tt.signal.{what}: window_length must be a scalar known before running", "tf.Const")
    if np.asarray(length).dtype.kind not in "iu":
        raise InvalidArgumentError(f"tt.signal.{what}: window_length must be an integer, got {length!r}", "tf.Const")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise InvalidArgumentError(f"tt.signal.{what}: dtype must be a floating point type, got {dtype.name}",
                                   "tf.Const")
    if int(length) < 0:
        raise InvalidArgumentError(f"tt.signal.{what}: window_length must be >= 0, got {int(length)}", "tf.Const")
    return int(length), dtype


def _kaiser(length, beta):
    """The symmetric Kaiser window in float64: I0(β sqrt(1 - (k / h)^2)) / I0(β), k = -h .. h, h = (N - 1) / 2."""
    if length == 1:
        return np.ones(1)
    half = (length - 1) / 2.0
    k = np.arange(length) - half
    arg = beta * np.sqrt(np.maximum(0.0, 1.0 - (k / half) ** 2))
    # i0e(x) = exp(-x) I0(x): the ratio without overflow for a large β
    return np.exp(arg - beta) * scipy.special.i0e(arg) / scipy.special.i0e(beta)


def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """``tt.signal.kaiser_window``: the (symmetric) Kaiser window with shape parameter ``beta``."""
    length, dtype = _length_and_dtype("kaiser_window", window_length, dtype)
    return ops.constant(_kaiser(length, float(beta)).astype(dtype.np))


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """``tt.signal.kaiser_bessel_derived_window``: for the MDCT (Princen-Bradley: w[n]^2 + w[n + N/2]^2 = 1);
    the first half sqrt(cumsum(kaiser(N // 2 + 1, β))[:-1] / sum), then that half reversed."""
    length, dtype = _length_and_dtype("kaiser_bessel_derived_window", window_length, dtype)
    cumulative = np.cumsum(_kaiser(length // 2 + 1, float(beta)))
    half = np.sqrt(cumulative[:-1] / cumulative[-1])
    return ops.constant(np.concatenate([half, half[::-1]]).astype(dtype.np))


def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """``tt.signal.vorbis_window``: sin(π/2 · sin^2(π (n + 1/2) / N)), the power-complementary MDCT window."""
    length, dtype = _length_and_dtype("vorbis_window", window_length, dtype)
    n = np.arange(length, dtype=np.float64)
    return ops.constant(np.sin(np.pi / 2.0 * np.sin(np.pi * (n + 0.5) / max(length, 1)) ** 2).astype(dtype.np))
