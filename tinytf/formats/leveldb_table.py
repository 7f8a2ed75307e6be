"""Read a LevelDB table ("sstable"), the format of a checkpoint's ``.index`` file.

Layout (TensorFlow's ``tensorflow/tsl/lib/io/table``, LevelDB's ``table_format.md``)::

    [data block 0] [trailer] ... [data block N] [trailer] [metaindex block] [trailer] [index block] [trailer] [footer]
    trailer = 1 byte compression type (0 none, 1 snappy) + fixed32 masked crc32c of block contents + type
    footer  = metaindex handle, index handle (varint64 offset, varint64 size each), zero padding to
              40 bytes, then the magic 0xdb4775248b80fb57 as two little-endian fixed32 (48 bytes)
    block   = entries, then fixed32 restart offsets, then fixed32 restart count
    entry   = varint32 shared, varint32 non_shared, varint32 value_len, key[shared:], value

The index block maps each data block's last key (or a separator after it) to that block's
handle. Checkpoint index files are small, so the whole table is read into a dict.

    >>> table = read_table("variables/variables.index")
    >>> table[b""]        # the BundleHeaderProto
    b'\\x08\\x01\\x1a\\x02\\x08\\x01'

Every defect (short file, bad magic, checksum mismatch, entries running past their block) is a
``DataLossError`` naming the file, as TensorFlow reports a corrupt table.
"""
from __future__ import annotations

import struct

from tinytf.errors import DataLossError, NotFoundError
from tinytf.formats.checksums import masked_crc32c

TABLE_MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48  # two block handles of at most 10 + 10 bytes each, padded to 40, + 8 bytes magic
BLOCK_TRAILER_SIZE = 5
NO_COMPRESSION, SNAPPY_COMPRESSION = 0, 1


def decode_varint(data, pos: int, limit: int | None = None, bits: int = 64) -> tuple[int, int]:
    """The unsigned LEB128 varint at ``data[pos:]`` -> (value, position after it).

    Raises ValueError when it runs past ``limit`` or is longer than ``bits`` allow; callers turn
    that into a tinytf error naming their file.
    """
    limit = len(data) if limit is None else limit
    result = shift = 0
    while True:
        if pos >= limit:
            raise ValueError("varint runs past the end of its data")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= bits:
            raise ValueError(f"varint{bits} is too long")


def encode_varint(value: int) -> bytes:
    """The varint bytes of a non-negative int (writers and tests build tables with it)."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


class TableReader:
    """The (key, value) entries of one LevelDB table file, in key order.

        reader = TableReader("ckpt.index")
        reader.get(b"")             # value bytes, or None
        for key, value in reader.items(): ...
    """

    def __init__(self, path: str, data: bytes | None = None):
        self.path = str(path)
        if data is None:
            try:
                with open(self.path, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                raise NotFoundError(f"{self.path}: no such file") from None
            except IsADirectoryError:
                raise NotFoundError(f"{self.path}: is a directory, not a table file") from None
            except OSError as e:
                raise DataLossError(f"{self.path}: cannot read ({e.strerror})") from None
        self._data = data
        self.block_compressions: set[int] = set()  # the compression types of the data blocks read
        metaindex, index = self._read_footer()
        del metaindex  # TensorFlow writes an empty metaindex block (no filters)
        self.entries: dict[bytes, bytes] = {}
        for _, handle in self._block_entries(self._read_block(index, "index block")):
            block_handle = self._decode_handle(handle, 0, "index entry")[0]
            for key, value in self._block_entries(self._read_block(block_handle, "data block")):
                self.entries[key] = value
        del self._data

    def items(self):
        return self.entries.items()

    def get(self, key: bytes) -> bytes | None:
        return self.entries.get(key)

    def __len__(self) -> int:
        return len(self.entries)

    # -- layout -------------------------------------------------------------------------------

    def _corrupt(self, why: str) -> DataLossError:
        return DataLossError(f"{self.path}: corrupt table file (not an sstable?): {why}")

    def _read_footer(self):
        data = self._data
        if len(data) < FOOTER_SIZE:
            raise self._corrupt(f"file is too short to be an sstable ({len(data)} bytes, the footer alone is {FOOTER_SIZE})")
        footer = len(data) - FOOTER_SIZE
        low, high = struct.unpack_from("<II", data, len(data) - 8)
        if (high << 32) | low != TABLE_MAGIC:
            raise self._corrupt(f"bad magic number 0x{(high << 32) | low:016x}")
        metaindex, pos = self._decode_handle(data, footer, "footer", limit=len(data) - 8)
        index, _ = self._decode_handle(data, pos, "footer", limit=len(data) - 8)
        return metaindex, index

    def _decode_handle(self, data, pos: int, where: str, limit: int | None = None):
        try:
            offset, pos = decode_varint(data, pos, limit)
            size, pos = decode_varint(data, pos, limit)
        except ValueError as e:
            raise self._corrupt(f"bad block handle in the {where}: {e}") from None
        return (offset, size), pos

    def _read_block(self, handle: tuple[int, int], what: str) -> bytes:
        import cramjam

        offset, size = handle
        end = offset + size + BLOCK_TRAILER_SIZE
        if end > len(self._data) - FOOTER_SIZE:
            raise self._corrupt(f"{what} at offset {offset} of {size} bytes runs past the end of the file "
                                f"({len(self._data)} bytes): truncated?")
        contents = self._data[offset:offset + size]
        kind = self._data[offset + size]
        stored = struct.unpack_from("<I", self._data, offset + size + 1)[0]
        if masked_crc32c(self._data[offset:offset + size + 1]) != stored:
            raise self._corrupt(f"block checksum mismatch in the {what} at offset {offset}")
        if what == "data block":
            self.block_compressions.add(kind)
        if kind == NO_COMPRESSION:
            return contents
        if kind == SNAPPY_COMPRESSION:
            try:
                return bytes(cramjam.snappy.decompress_raw(contents))
            except cramjam.DecompressionError as e:
                raise self._corrupt(f"corrupted snappy-compressed {what} at offset {offset} ({e})") from None
        raise self._corrupt(f"{what} at offset {offset} has unknown compression type {kind}")

    def _block_entries(self, block: bytes):
        """Yield (key, value) from one block; keys are prefix-compressed against the previous one."""
        if len(block) < 4:
            raise self._corrupt("block is too short to hold its restart count")
        num_restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
        restarts_at = len(block) - 4 - 4 * num_restarts
        if restarts_at < 0:
            raise self._corrupt(f"bad restart count {num_restarts} in a block of {len(block)} bytes")
        key, pos = b"", 0
        while pos < restarts_at:
            try:
                shared, pos = decode_varint(block, pos, restarts_at, bits=32)
                non_shared, pos = decode_varint(block, pos, restarts_at, bits=32)
                value_len, pos = decode_varint(block, pos, restarts_at, bits=32)
            except ValueError as e:
                raise self._corrupt(f"bad entry header at block offset {pos}: {e}") from None
            if shared > len(key) or pos + non_shared + value_len > restarts_at:
                raise self._corrupt(f"bad entry at block offset {pos}: it runs past its block")
            key = key[:shared] + block[pos:pos + non_shared]
            pos += non_shared
            yield key, block[pos:pos + value_len]
            pos += value_len


def read_table(path: str) -> dict[bytes, bytes]:
    """Every entry of the table file at ``path``, as ``{key: value}`` in key order."""
    return TableReader(path).entries
