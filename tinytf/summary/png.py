"""PNG encoding of uint8 images, for image summaries (zlib and the CRC-32 of the standard library).

    >>> encode_png(np.zeros((4, 5, 3), np.uint8))[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'

``[height, width, channels]`` with 1 (gray), 2 (gray + alpha), 3 (RGB) or 4 (RGBA) channels;
8 bits per sample, no interlacing, filter type 0 on every row.
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

from tinytf.errors import InvalidArgumentError

_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type
SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(image: np.ndarray, compression: int = 6) -> bytes:
    image = np.asarray(image)
    if image.ndim != 3 or image.shape[2] not in _COLOR_TYPES or image.dtype != np.uint8:
        raise InvalidArgumentError(f"encode_png: needs a uint8 image of shape [height, width, 1|2|3|4], got "
                                   f"{image.dtype} {list(image.shape)}")
    height, width, channels = image.shape
    rows = np.zeros((height, 1 + width * channels), np.uint8)  # a 0 filter byte before each row
    rows[:, 1:] = image.reshape(height, width * channels)
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes(), compression)) + \
        _chunk(b"IEND", b"")
