"""TFRecord framing: the container of TensorBoard event files and ``tf.data.TFRecordDataset``.

Each record is::

    uint64 length (little-endian) | uint32 masked crc32c of those 8 bytes | data | uint32 masked crc32c of data

    >>> frame(b"abc")[:8]
    b'\\x03\\x00\\x00\\x00\\x00\\x00\\x00\\x00'
    >>> list(read_records("events.out.tfevents..."))      # each record's bytes, checksums checked

A short or corrupt record is a ``DataLossError`` naming the file and the offset, except that a
record cut short at the very end of a file (a writer still writing, or killed) ends the
iteration when ``allow_truncated_tail`` is set, as TensorBoard's readers tolerate.
"""
from __future__ import annotations

import struct

from tinytf.errors import DataLossError, NotFoundError
from tinytf.formats.checksums import masked_crc32c


def frame(data: bytes) -> bytes:
    """One record's bytes: length, its crc, the data, its crc."""
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + struct.pack("<I", masked_crc32c(data))


def read_records(path: str, allow_truncated_tail: bool = False):
    """Yield the data of each record in the file at ``path``."""
    try:
        with open(path, "rb") as f:
            content = f.read()
    except FileNotFoundError:
        raise NotFoundError(f"{path}: no such file") from None
    pos = 0
    while pos < len(content):
        if pos + 12 > len(content):
            if allow_truncated_tail:
                return
            raise DataLossError(f"{path}: truncated record header at offset {pos}")
        header = content[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack_from("<I", content, pos + 8)
        if masked_crc32c(header) != header_crc:
            raise DataLossError(f"{path}: corrupt record length at offset {pos} (checksum mismatch)")
        end = pos + 12 + length + 4
        if end > len(content):
            if allow_truncated_tail:
                return
            raise DataLossError(f"{path}: record at offset {pos} of {length} bytes runs past the end of the file")
        data = content[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack_from("<I", content, pos + 12 + length)
        if masked_crc32c(data) != data_crc:
            raise DataLossError(f"{path}: corrupt record data at offset {pos} (checksum mismatch)")
        yield data
        pos = end
