"""Write TensorFlow's tensor bundles (V2 checkpoints), the files ``tensor_bundle.py`` reads.

    with BundleWriter("train/ckpt-3") as writer:
        writer.add("model/w/.ATTRIBUTES/VARIABLE_VALUE", w_array)   # streamed to the data shard now
        writer.add("_CHECKPOINTABLE_OBJECT_GRAPH", np.array(graph_bytes, dtype=object))
        writer.finish()      # index written; both files fsynced and renamed into place

One shard: ``prefix.data-00000-of-00001`` holds the tensors in the order they were added, raw
little-endian (DT_STRING as varint64 lengths, a masked crc32c of the lengths, the bytes);
``prefix.index`` is a LevelDB table of BundleEntryProtos in key order under the BundleHeaderProto
(``num_shards: 1``, little-endian, ``version { producer: 1 }``), as TensorFlow's BundleWriter
writes them.

Crash safety: both files are written under temporary names and fsynced; ``finish`` deletes an
old index at ``prefix`` first, renames the data shard, then the index, and syncs the directory.
So an index at ``prefix`` always belongs to the data beside it, and a crash at any moment leaves
either no checkpoint at ``prefix`` or a whole one. An ``OSError`` (disk full, permission denied)
is a tinytf error naming the file; the temporary files are deleted and nothing at ``prefix``
changes until ``finish`` renames.
"""
from __future__ import annotations

import math
import os
import struct

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import FailedPreconditionError, InvalidArgumentError
from tinytf.formats import durable_files
from tinytf.formats.checksums import crc32c, mask
from tinytf.formats.durable_files import TempFile, fsync_directory, os_error
from tinytf.formats.leveldb_table import encode_varint
from tinytf.formats.leveldb_table_writer import table_bytes
from tinytf.formats.tensor_bundle import BUNDLE_VERSION, HEADER_KEY, data_path, index_path

_CHUNK = 4 << 20  # checksum and write 4 MiB at a time: the bytes are still in cache for the write


def _as_array(value) -> tuple[np.ndarray, dtypes.DType]:
    if isinstance(value, bytes | str):
        value = np.array(value, dtype=object)
    array = np.asarray(value)
    if array.dtype.kind in "OSU":
        return array, dtypes.string
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return array, dtypes.as_dtype(array.dtype)


def string_tensor_bytes(array: np.ndarray) -> tuple[bytes, int]:
    """A DT_STRING tensor's stored bytes and their unmasked crc32c, as TensorFlow lays them out."""
    items = [x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in array.reshape(-1)]
    lengths, crc = bytearray(), 0
    for item in items:
        lengths += encode_varint(len(item))
        crc = crc32c(struct.pack("<Q" if len(item) > 0xFFFFFFFF else "<I", len(item)), crc)
    length_checksum = struct.pack("<I", mask(crc))
    crc = crc32c(length_checksum, crc)
    body = b"".join(items)
    if body:
        crc = crc32c(body, crc)
    return bytes(lengths) + length_checksum + body, crc


class BundleWriter:
    """Write the tensors of one bundle at ``prefix``; see the module docstring."""

    def __init__(self, prefix, note: str = ""):
        from tinytf.formats import protos

        self.prefix = os.fspath(prefix)
        self.note = note
        self._protos = protos
        self._entries: dict[str, object] = {}
        self._data = TempFile(data_path(self.prefix, 0, 1), note)
        self._offset = 0
        self._done = False

    def add(self, key: str, value) -> None:
        """Append tensor ``key`` (a numpy array, bytes, or an object array of bytes) to the data shard."""
        if self._done:
            raise FailedPreconditionError(f"{self.prefix}: bundle already finished")
        if not isinstance(key, str) or not key:
            raise InvalidArgumentError(f"{self.prefix}: tensor keys are non-empty strings, got {key!r}")
        if key in self._entries:
            raise InvalidArgumentError(f"{self.prefix}: tensor '{key}' added twice")
        array, dtype = _as_array(value)
        if dtype.name in ("resource", "variant"):
            raise InvalidArgumentError(f"{self.prefix}: tensor '{key}' is a {dtype.tf_enum}, which has no saved form")
        entry = self._protos.BundleEntryProto(dtype=self._protos.types_pb2.DataType.Value(dtype.tf_enum),
                                              offset=self._offset)
        entry.shape.SetInParent()  # TensorFlow writes `shape {}` for scalars too
        for d in array.shape:
            entry.shape.dim.add(size=int(d))
        if dtype is dtypes.string:
            data, crc = string_tensor_bytes(array)
            self._data.write(data)
            size = len(data)
        else:
            size, crc = self._write_fixed(array)
        entry.size = size
        entry.crc32c = mask(crc)
        self._offset += size
        self._entries[key] = entry

    def _write_fixed(self, array: np.ndarray) -> tuple[int, int]:
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        raw = array.reshape(-1).view(np.uint8)
        size = raw.size
        if size != math.prod(array.shape) * array.dtype.itemsize:  # pragma: no cover - a view never changes size
            raise InvalidArgumentError(f"{self.prefix}: unexpected buffer size for a {array.dtype} array")
        crc = 0
        for start in range(0, size, _CHUNK):
            chunk = raw[start:start + _CHUNK]
            crc = crc32c(chunk, crc)
            self._data.write(chunk)
        return size, crc

    def finish(self) -> str:
        """Write the index; make both files durable and visible at ``prefix``. Returns the prefix."""
        if self._done:
            raise FailedPreconditionError(f"{self.prefix}: bundle already finished")
        header = self._protos.BundleHeaderProto(num_shards=1)
        header.version.producer = BUNDLE_VERSION
        entries = [(HEADER_KEY, header.SerializeToString())]
        entries += [(key.encode("utf-8"), self._entries[key].SerializeToString()) for key in sorted(self._entries)]
        entries.sort(key=lambda kv: kv[0])
        index = TempFile(index_path(self.prefix), self.note)
        try:
            index.write(table_bytes(entries))
            self._data.sync()
            durable_files.step("data written")
            index.sync()
            durable_files.step("index written")
            # An old index at the prefix goes first: an index on disk always matches its data.
            try:
                os.unlink(index_path(self.prefix))
            except FileNotFoundError:
                pass
            except OSError as e:
                raise os_error(e, index_path(self.prefix), "replace the old index", self.note) from None
            durable_files.step("old index removed")
            self._data.commit()
            durable_files.step("data renamed")
            index.commit()
            durable_files.step("index renamed")
            fsync_directory(os.path.dirname(self.prefix))
        except BaseException:
            index.abort()
            self.abort()
            raise
        self._done = True
        return self.prefix

    def abort(self) -> None:
        """Delete the temporary files (nothing at ``prefix`` was touched)."""
        self._done = True
        self._data.abort()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if not self._done:
            self.abort()
        return False


def write_bundle(prefix, tensors) -> str:
    """Write ``{key: array}`` (in that order) as a bundle at ``prefix``."""
    with BundleWriter(prefix) as writer:
        for key, value in tensors.items():
            writer.add(key, value)
        return writer.finish()
