"""tt.signal.dct and idct, types II, III and IV, over the innermost dim: TensorFlow's construction from the
real FFTs (spectral_ops / dct_ops.py), in real arithmetic around them, so the gradients follow (type IV
is the odd coefficients of the type II transform of the input zero-padded to twice its length).

    tt.signal.dct(x)                  # scipy.fft.dct(x, type=2)
    tt.signal.dct(x, norm="ortho")    # orthonormal
    tt.signal.idct(tt.signal.dct(x, norm="ortho"), norm="ortho")  # x
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.op_functions import ops
from tinytf.ops.signal_real_fft import irfft, rfft
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["dct", "idct"]
__namespaces__ = {n: ("signal",) for n in __all__}


def _check(what, x, type, axis, norm):
    if type not in (2, 3, 4):
        raise UnimplementedError(f"tt.signal.{what}: DCT type {type} is not implemented (types 2, 3 and 4 are)",
                                 "tf.FFT")
    if axis != -1:
        raise InvalidArgumentError(f"tt.signal.{what}: axis must be -1, got {axis} (as TensorFlow)", "tf.FFT")
    if norm not in (None, "ortho"):
        raise InvalidArgumentError(f"tt.signal.{what}: norm must be None or 'ortho', got {norm!r}", "tf.FFT")
    if x.dtype.name not in ("float32", "float64"):
        raise InvalidArgumentError(f"tt.signal.{what}: input must be float32 or float64, got {x.dtype.name}", "tf.FFT")
    dims = static_dims(x)
    if dims is None or not dims or dims[-1] is None:
        raise UnimplementedError(f"tt.signal.{what}: the innermost dim must be static, got {dims}", "tf.FFT")
    return dims


def _fit(x, dims, n):
    """The innermost dim cropped or zero-padded to n (TensorFlow's ``n`` argument)."""
    have = dims[-1]
    if have > n:
        return ops.gather(x, np.arange(n, dtype=np.int32), axis=len(dims) - 1)
    if have < n:
        pads = np.zeros((len(dims), 2), np.int32)
        pads[-1, 1] = n - have
        return ops.pad(x, pads)
    return x


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 (TensorFlow's names)
    """``tt.signal.dct``: the discrete cosine transform of the innermost dim (scipy.fft.dct's values)."""
    x = as_tensor(input)
    dims = _check("dct", x, type, axis, norm)
    if n is not None:
        if int(n) < 1:
            raise InvalidArgumentError(f"tt.signal.dct: n must be positive, got {n}", "tf.FFT")
        x = _fit(x, dims, int(n))
        dims = list(dims[:-1]) + [int(n)]
    size = dims[-1]
    real_dtype = x.dtype.np
    k = np.arange(size)
    if type == 4:
        # dct4(x)_k = dct2(x padded to 2N)_(2k+1): 2 Σ x_n cos(π (2k+1)(2n+1) / 4N)
        doubled = dct(_fit(x, dims, 2 * size), type=2)
        out = ops.gather(doubled, np.arange(1, 2 * size, 2, dtype=np.int32), axis=len(dims) - 1)
        if norm == "ortho":
            out = ops.multiply(out, ops.scalar_like(out, np.sqrt(0.5) / np.sqrt(size)))
        return out
    if type == 2:
        # dct2 = real(rfft(x, 2N)[:N] · 2 exp(-iπk / 2N)), in real arithmetic: 2 (re cos θ + im sin θ)
        spectrum = ops.gather(rfft(x, [2 * size]), np.arange(size, dtype=np.int32), axis=len(dims) - 1)
        theta = np.pi * k / (2 * size)
        out = ops.add(ops.multiply(ops.real(spectrum), ops.constant((2 * np.cos(theta)).astype(real_dtype))),
                      ops.multiply(ops.imag(spectrum), ops.constant((2 * np.sin(theta)).astype(real_dtype))))
        if norm == "ortho":
            weights = np.full(size, np.sqrt(2.0) * 0.5 / np.sqrt(size))
            weights[0] = 0.5 / np.sqrt(size)
            out = ops.multiply(out, ops.constant(weights.astype(real_dtype)))
        return out
    # type 3: real(irfft(2 exp(iπk / 2N) · x_weighted, 2N))[:N]
    if norm == "ortho":
        weights = np.full(size, np.sqrt(size) * np.sqrt(0.5))
        weights[0] = np.sqrt(size)
    else:
        weights = np.full(size, float(size))
    theta = np.pi * k / (2 * size)
    re = ops.multiply(x, ops.constant((2 * weights * np.cos(theta)).astype(real_dtype)))
    im = ops.multiply(x, ops.constant((2 * weights * np.sin(theta)).astype(real_dtype)))
    from tinytf.ops.complex_parts import complex as make_complex

    signal = irfft(make_complex(re, im), [2 * size])
    return ops.gather(signal, np.arange(size, dtype=np.int32), axis=len(dims) - 1)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """``tt.signal.idct``: the DCT of the inverse type (III for II, IV for IV); unnormalised unless
    ``norm="ortho"``, as TensorFlow's (divide by 2N for the inverse)."""
    inverse = {2: 3, 3: 2, 4: 4}.get(type, type)
    return dct(input, type=inverse, n=n, axis=axis, norm=norm)
