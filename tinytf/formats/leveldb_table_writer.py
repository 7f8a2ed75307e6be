"""Write a LevelDB table ("sstable"), the format of a checkpoint's ``.index`` file.

The layout is the one ``leveldb_table.py`` reads (TensorFlow's ``tsl/lib/io/table_builder``):
data blocks of prefix-compressed entries with a restart point every 16 entries, an empty
metaindex block, an index block mapping each data block's last key to its handle (a restart
at every entry, as LevelDB's index blocks have), and the 48-byte footer. Blocks are written
uncompressed (trailer type 0), as TensorFlow's source writes them; every block carries the
masked crc32c of its contents and type byte.

    >>> data = table_bytes([(b"", header), (b"a", entry_a), (b"b", entry_b)])   # keys sorted
    >>> TableReader("x.index", data).get(b"a") == entry_a
    True
"""
from __future__ import annotations

import struct

from tinytf.errors import InvalidArgumentError
from tinytf.formats.checksums import masked_crc32c
from tinytf.formats.leveldb_table import FOOTER_SIZE, NO_COMPRESSION, TABLE_MAGIC, encode_varint

BLOCK_SIZE = 4096        # LevelDB's default: a block is closed once its contents pass this size
RESTART_INTERVAL = 16    # full keys every 16 entries in data blocks


class BlockBuilder:
    """One block: entries with keys stored as (shared prefix length, rest), then the restart array."""

    def __init__(self, restart_interval: int = RESTART_INTERVAL):
        self.restart_interval = restart_interval
        self.buffer = bytearray()
        self.restarts = [0]
        self.count = 0           # entries since the last restart
        self.last_key = b""
        self.empty = True

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.count < self.restart_interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.count = 0
        self.buffer += encode_varint(shared) + encode_varint(len(key) - shared) + encode_varint(len(value))
        self.buffer += key[shared:]
        self.buffer += value
        self.last_key = key
        self.count += 1
        self.empty = False

    def size_estimate(self) -> int:
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        return bytes(self.buffer) + struct.pack(f"<{len(self.restarts)}I", *self.restarts) + \
            struct.pack("<I", len(self.restarts))


def _handle(offset: int, size: int) -> bytes:
    return encode_varint(offset) + encode_varint(size)


def table_bytes(entries, block_size: int = BLOCK_SIZE) -> bytes:
    """The bytes of a table holding ``entries``, (key, value) byte pairs in strictly increasing key order."""
    out = bytearray()
    index = BlockBuilder(restart_interval=1)

    def write_block(contents: bytes) -> tuple[int, int]:
        offset = len(out)
        out.extend(contents)
        trailer_type = bytes([NO_COMPRESSION])
        out.extend(trailer_type)
        out.extend(struct.pack("<I", masked_crc32c(contents + trailer_type)))
        return offset, len(contents)

    block = BlockBuilder()
    previous = None
    for key, value in entries:
        key, value = bytes(key), bytes(value)
        if previous is not None and key <= previous:
            raise InvalidArgumentError(f"table keys must be added in strictly increasing order: {key!r} after "
                                       f"{previous!r}")
        previous = key
        block.add(key, value)
        if block.size_estimate() >= block_size:
            index.add(block.last_key, _handle(*write_block(block.finish())))
            block = BlockBuilder()
    if not block.empty:
        index.add(block.last_key, _handle(*write_block(block.finish())))
    metaindex_handle = write_block(BlockBuilder().finish())
    index_handle = write_block(index.finish())
    footer = _handle(*metaindex_handle) + _handle(*index_handle)
    footer += b"\x00" * (FOOTER_SIZE - 8 - len(footer))
    footer += struct.pack("<II", TABLE_MAGIC & 0xFFFFFFFF, TABLE_MAGIC >> 32)
    out.extend(footer)
    return bytes(out)
