"""CRC-32C as TensorFlow's files store it: masked, so a CRC of data that holds CRCs stays strong.

    >>> masked_crc32c(b"")           # (c >> 15 | c << 17) + 0xa282ead8, mod 2**32
    2726488792
    >>> unmask(masked_crc32c(b"abc")) == crc32c(b"abc")
    True

``google-crc32c`` does the arithmetic (hardware CRC instructions where the CPU has them); it is
imported on first use.
"""
from __future__ import annotations

_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF


def _library():
    import google_crc32c

    return google_crc32c


def crc32c(data, crc: int = 0) -> int:
    """CRC-32C of ``data`` (bytes-like), continuing from ``crc`` (TensorFlow's ``crc32c::Extend``)."""
    return _library().extend(crc, data) if crc else _library().value(data)


def mask(crc: int) -> int:
    """TensorFlow's ``crc32c::Mask``: rotate right by 15 bits and add a constant."""
    return ((((crc >> 15) | (crc << 17)) & _U32) + _MASK_DELTA) & _U32


def unmask(masked: int) -> int:
    rotated = (masked - _MASK_DELTA) & _U32
    return ((rotated >> 17) | (rotated << 15)) & _U32


def masked_crc32c(data, crc: int = 0) -> int:
    return mask(crc32c(data, crc))
