"""The C library's log, sin and cos as TensorFlow's Box-Muller transform calls them, for numpy and jax.numpy.

    log_u1 = logf(xp, u1)             # float32 in, float32 out: glibc's logf, bit for bit
    s, c = sincosf(xp, v1)            # glibc's sincosf
    lg, s, c = log(xp, u), sin(xp, v), cos(xp, v)     # float64: the library's own functions

TensorFlow's normal samples (tsl/lib/random/random_distributions_utils.h, ``BoxMullerFloat``) are
``sqrtf(-2 logf(u1)) * sincosf(2π u2)`` on float32, computed by glibc on Linux. numpy's and XLA's
float32 log/sin/cos round differently in the last bit for about 20% of inputs, so the float32 functions
here evaluate glibc's own algorithms (2.28 and later, from Arm's optimized routines: a 16-entry table
and a cubic for logf; a quadrant reduction and two short polynomials for sincosf) in float64 and round
once. Box-Muller only ever feeds them the 2^23 values ``Uint32ToFloat`` makes (and 2π times those):
tests/unit/test_random.py checks all of them against the C library.

Float64 Box-Muller calls glibc's ``log`` and ``sincos`` directly: numpy's float64 sin/cos and XLA's (on
CPU) already are the library's; numpy's float64 log is its own, so numpy goes through ``math.log``.
Domains: ``logf`` takes positive normal floats, ``sincosf`` |v| < 120 (what Box-Muller needs).
"""
from __future__ import annotations

import math

import numpy as np

__all__: list[str] = []  # no public op functions

_H = float.fromhex

# logf: 1/c and log(c) at the centres of 16 subintervals of [0x3f330000, 2 * 0x3f330000], ln 2, a cubic
_LOGF_TABLE = np.array([[_H(a), _H(b)] for a, b in (
    ("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"), ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
    ("0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2"), ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
    ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"), ("0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"), ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"), ("0x1p+0", "0x0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"), ("0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4"),
    ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"), ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3"),
    ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"), ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2"))])
_LN2 = _H("0x1.62e42fefa39efp-1")
_LOGF_POLY = (_H("-0x1.00ea348b88334p-2"), _H("0x1.5575b0be00b6ap-2"), _H("-0x1.ffffef20a4123p-2"))

# sincosf: 2/π·2^24 (the quadrant lands in bits 24..31), π/2, cosine c0..c4 and sine s1..s3 coefficients
_HPI_INV, _HPI = _H("0x1.45F306DC9C883p+23"), _H("0x1.921FB54442D18p0")
_COS = (1.0, _H("-0x1.ffffffd0c621cp-2"), _H("0x1.55553e1068f19p-5"), _H("-0x1.6c087e89a359dp-10"),
        _H("0x1.99343027bf8c3p-16"))
_SIN = (_H("-0x1.555545995a603p-3"), _H("0x1.1107605230bc4p-7"), _H("-0x1.994eb3774cf24p-13"))
_TOP12_PIO4 = 0x3f4  # abstop12 of float(π/4): below it no reduction is needed
_TOP12_TINY = 0x398  # abstop12 of 2^-12: sin(x) = x and cos(x) = 1


def bitcast(xp, x, dtype):
    """``x``'s bits as ``dtype`` (of the same width)."""
    if xp is np:
        return np.asarray(x).view(dtype)
    import jax

    return jax.lax.bitcast_convert_type(x, dtype)


def logf(xp, x):
    """glibc's logf of positive normal float32 ``x``."""
    ix = bitcast(xp, x, np.uint32)
    tmp = ix - np.uint32(0x3f330000)
    i = ((tmp >> np.uint32(19)) & np.uint32(15)).astype(np.int32)
    k = (bitcast(xp, tmp, np.int32) >> np.int32(23)).astype(np.float64)  # arithmetic shift: the exponent
    z = bitcast(xp, ix - (tmp & np.uint32(0xff800000)), np.float32).astype(np.float64)  # x = 2^k z
    invc, logc = xp.asarray(_LOGF_TABLE[:, 0])[i], xp.asarray(_LOGF_TABLE[:, 1])[i]
    r = z * invc - 1.0  # log(x) = log1p(z/c - 1) + log(c) + k ln2
    y0 = logc + k * _LN2
    r2 = r * r
    a0, a1, a2 = _LOGF_POLY
    y = a1 * r + a2
    y = a0 * r2 + y
    y = y * r2 + (y0 + r)
    return xp.where(ix == np.uint32(0x3f800000), np.float32(0), y.astype(np.float32))  # log(1) = +0


def sincosf(xp, v):
    """glibc's (sinf(v), cosf(v)) of float32 ``v``, |v| < 120."""
    top = (bitcast(xp, v, np.uint32) >> np.uint32(20)) & np.uint32(0x7ff)
    small = top < np.uint32(_TOP12_PIO4)
    x = v.astype(np.float64)
    n = ((x * _HPI_INV).astype(np.int32) + np.int32(0x800000)) >> np.int32(24)  # the quadrant
    n = xp.where(small, np.int32(0), n)
    x = xp.where(small, x, x - n.astype(np.float64) * _HPI)  # in [-π/4, π/4]
    # glibc multiplies x by the sine's sign in quadrants 1, 2 and negates the cosine polynomial in 2, 3;
    # both polynomials are odd/even, so signing the results instead gives the same bits
    sin_sign = xp.where(((n + 1) & 2) != 0, np.float32(-1), np.float32(1))
    cos_sign = xp.where((n & 2) != 0, np.float32(-1), np.float32(1))
    c0, c1, c2, c3, c4 = _COS
    s1, s2, s3 = _SIN
    x2 = x * x
    x3, x4 = x2 * x, x2 * x2
    x5, x6 = x3 * x2, x4 * x2
    sin_poly = ((x + x3 * s1) + x5 * (s2 + x2 * s3)).astype(np.float32)
    cos_poly = ((((c0 + x2 * c1) + x4 * c2) + x6 * (c3 + x2 * c4))).astype(np.float32)
    odd = (n & 1) == 1  # odd quadrants swap the two
    s = xp.where(odd, cos_poly, sin_poly) * xp.where(odd, cos_sign, sin_sign)
    c = xp.where(odd, sin_poly, cos_poly) * xp.where(odd, sin_sign, cos_sign)
    tiny = top < np.uint32(_TOP12_TINY)
    return xp.where(tiny, v, s), xp.where(tiny, np.float32(1), c)


_MATH_LOG = np.frompyfunc(math.log, 1, 1)


def log(xp, x):
    """The C library's log of float64 ``x`` (numpy's own float64 log rounds differently)."""
    if xp is np:
        x = np.asarray(x)
        return _MATH_LOG(x).astype(np.float64) if x.size else x.copy()
    return xp.log(x)


def sin(xp, x):
    return xp.sin(x)


def cos(xp, x):
    return xp.cos(x)
