"""Read TensorFlow's tensor bundles: the V2 checkpoint format (``tf.train.Checkpoint``, ``Saver``).

A bundle with prefix ``ckpt`` is

- ``ckpt.index``: a LevelDB table. Key ``""`` holds a BundleHeaderProto (num_shards, endianness,
  version); every other key, in sorted order, a tensor name -> BundleEntryProto (dtype, shape,
  shard_id, offset, size, masked crc32c of the stored bytes, slices);
- ``ckpt.data-00000-of-00002``, ``ckpt.data-00001-of-00002``, ...: each tensor's bytes back to back.
  Fixed-size dtypes are raw little-endian elements. DT_STRING is ``[varint64 len] * N``, a fixed32
  masked crc32c of the lengths, then the N strings' bytes; its entry crc32c covers each length (as a
  little-endian uint32, or uint64 past 4 GiB), the length checksum and the bytes.

    >>> bundle = BundleReader("saved_model/variables/variables")
    >>> bundle.names()                        # ['a', 'b', 'c']
    >>> bundle.get_tensor("a")                # array(0.5, dtype=float32); crc32c checked
    >>> bundle.dtype("a"), bundle.shape("a")  # (tt.float32, ())

A tensor is read with one seek and reads of exactly its size, not the whole shard. Corruption
(checksum mismatch, truncated shard, sizes that disagree) is ``DataLossError`` naming the file and
the tensor; a missing file or key is ``NotFoundError``.
"""
from __future__ import annotations

import math
import os
import struct
import threading

import numpy as np

from tinytf.dtypes import DType
from tinytf.errors import DataLossError, InvalidArgumentError, NotFoundError, UnimplementedError
from tinytf.formats.checksums import crc32c, mask
from tinytf.formats.leveldb_table import TableReader, decode_varint

HEADER_KEY = b""
BUNDLE_VERSION = 1  # TensorFlow's kTensorBundleVersion: the newest layout a reader understands
_CHUNK = 1 << 20    # read and checksum 1 MiB at a time, so the bytes are still in cache for the crc
_SEEK_LOCK = threading.Lock()


def index_path(prefix: str) -> str:
    return f"{prefix}.index"


def data_path(prefix: str, shard_id: int, num_shards: int) -> str:
    """``prefix.data-00000-of-00001``, as TensorFlow's ``DataFilename`` spells it."""
    return f"{prefix}.data-{shard_id:05d}-of-{num_shards:05d}"


class BundleReader:
    """The tensors of one checkpoint (tensor bundle) prefix."""

    def __init__(self, prefix):
        from tinytf.formats import protos

        self.prefix = os.fspath(prefix)
        path = index_path(self.prefix)
        if not os.path.isfile(path):
            raise NotFoundError(_missing_bundle_message(self.prefix))
        table = TableReader(path)
        header = table.get(HEADER_KEY)
        if header is None:
            raise DataLossError(f"{path}: no bundle header (the entry under key \"\"): not a checkpoint index?")
        self.header = protos.parse(protos.BundleHeaderProto, header, f"{path}: bundle header")
        self._check_header(path)
        self._entries: dict[str, object] = {}
        self._shards: dict[str, object] = {}
        for key, value in table.items():
            if key == HEADER_KEY:
                continue
            try:
                name = key.decode("utf-8")
            except UnicodeDecodeError:
                name = key.decode("latin-1")  # the slice keys of partitioned variables are binary
            entry = protos.parse(protos.BundleEntryProto, value, f"{path}: entry for tensor '{name}'")
            if not 0 <= entry.shard_id < max(self.header.num_shards, 1):
                raise DataLossError(f"{path}: tensor '{name}' is in shard {entry.shard_id}, the bundle has "
                                    f"{self.header.num_shards}")
            self._entries[name] = entry

    def _check_header(self, path: str) -> None:
        version = self.header.version
        if version.min_consumer > BUNDLE_VERSION or BUNDLE_VERSION in version.bad_consumers:
            raise UnimplementedError(
                f"{path}: checkpoint version {version.producer} needs a reader of version >= "
                f"{version.min_consumer}; tinytf reads bundle version {BUNDLE_VERSION}")
        if self.header.num_shards < 0:
            raise DataLossError(f"{path}: bad bundle header: num_shards = {self.header.num_shards}")

    @property
    def big_endian(self) -> bool:
        return self.header.endianness == 1  # BundleHeaderProto.BIG

    # -- what the bundle holds ----------------------------------------------------------------

    def names(self) -> list[str]:
        """Tensor names in key order. Slice keys of partitioned variables (binary, starting with
        ``\\x00``) are left out: their full tensor's entry lists them."""
        return [name for name in self._entries if not name.startswith("\x00")]

    def has_tensor(self, name: str) -> bool:
        return name in self._entries and not name.startswith("\x00")

    def entry(self, name: str):
        """The BundleEntryProto of ``name``; NotFoundError when the bundle lacks it."""
        entry = self._entries.get(name)
        if entry is None:
            raise NotFoundError(f"Key {name} not found in checkpoint {self.prefix}")
        return entry

    def dtype(self, name: str) -> DType:
        from tinytf.formats.tensor_proto import dtype_from_enum

        try:
            return dtype_from_enum(self.entry(name).dtype)
        except InvalidArgumentError as e:  # an enum value TensorFlow never wrote: a corrupt entry
            raise DataLossError(f"{index_path(self.prefix)}: tensor '{name}': {e.message}") from None

    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(int(d.size) for d in self.entry(name).shape.dim)

    # -- reading ------------------------------------------------------------------------------

    def get_tensor(self, name: str) -> np.ndarray:
        """The value of tensor ``name`` as a writable numpy array (object array of bytes for strings)."""
        entry = self.entry(name)
        if entry.slices:
            raise UnimplementedError(
                f"{self.prefix}: tensor '{name}' is saved in {len(entry.slices)} slices (a partitioned "
                "variable); tinytf reads whole tensors only")
        dtype, shape = self.dtype(name), self.shape(name)
        if any(d < 0 for d in shape):
            raise DataLossError(f"{self.prefix}.index: tensor '{name}' has a bad shape {list(shape)}")
        path = data_path(self.prefix, entry.shard_id, self.header.num_shards)
        if dtype.name == "string":
            return self._read_strings(path, name, entry, shape)
        if dtype.kind == "o":
            raise UnimplementedError(f"{path}: tensor '{name}' is a {dtype.tf_enum}, which tinytf cannot restore")
        expected = math.prod(shape) * dtype.size
        if entry.size != expected:
            raise DataLossError(f"{path}: tensor '{name}' has {entry.size} stored bytes, shape {list(shape)} of "
                                f"{dtype.tf_enum} needs {expected}")
        raw = self._read_checked(path, name, entry)
        stored = dtype.np.newbyteorder(">" if self.big_endian else "<")
        array = raw.view(stored).reshape(shape)
        if stored != dtype.np and dtype.size > 1:
            array = array.byteswap().view(dtype.np)
        return array

    def _shard(self, path: str, name: str):
        """The open data shard at ``path``; shards stay open for the reader's life, as TensorFlow's do."""
        f = self._shards.get(path)
        if f is None:
            try:
                f = self._shards[path] = open(path, "rb", buffering=0)
            except FileNotFoundError:
                raise NotFoundError(f"{path}: data shard of checkpoint {self.prefix} not found "
                                    f"(it holds tensor '{name}')") from None
            except OSError as e:
                raise DataLossError(f"{path}: cannot read tensor '{name}' ({e.strerror})") from None
        return f

    def close(self) -> None:
        for f in self._shards.values():
            f.close()
        self._shards.clear()

    def _read_bytes(self, path: str, name: str, entry, crc: int = 0) -> tuple[np.ndarray, int]:
        """Tensor ``name``'s ``entry.size`` bytes from the shard at ``path`` and their running crc32c."""
        fd = self._shard(path, name).fileno()
        file_size = os.fstat(fd).st_size
        if entry.offset < 0 or entry.offset + entry.size > file_size:
            raise DataLossError(f"{path}: tensor '{name}' needs bytes {entry.offset}..{entry.offset + entry.size} "
                                f"of a {file_size}-byte shard: truncated?")
        out = np.empty(entry.size, np.uint8)
        if entry.size > _CHUNK and hasattr(os, "posix_fadvise"):  # the whole tensor: deep readahead from the disk
            os.posix_fadvise(fd, entry.offset, entry.size, os.POSIX_FADV_WILLNEED)
        pos = 0
        while pos < entry.size:  # positioned reads: no shared file offset, so threads may share a reader
            chunk = out[pos:pos + min(_CHUNK, entry.size - pos)]
            got = _pread_into(fd, chunk, entry.offset + pos)  # straight into the tensor's buffer
            if not got:
                raise DataLossError(f"{path}: tensor '{name}' is cut short at byte {pos} of {entry.size}")
            crc = crc32c(chunk[:got], crc)
            pos += got
        return out, crc

    def _read_checked(self, path: str, name: str, entry) -> np.ndarray:
        raw, crc = self._read_bytes(path, name, entry)
        self._check_crc(path, name, entry, crc)
        return raw

    def _check_crc(self, path: str, name: str, entry, crc: int) -> None:
        if mask(crc) != entry.crc32c:
            raise DataLossError(
                f"{path}: checksum does not match for tensor '{name}': stored {entry.crc32c:#010x} vs. "
                f"calculated on the restored bytes {mask(crc):#010x}")

    def _read_strings(self, path: str, name: str, entry, shape) -> np.ndarray:
        count = math.prod(shape)
        raw, _ = self._read_bytes(path, name, entry)
        data = raw.tobytes()
        order = ">" if self.big_endian else "<"
        lengths, pos, crc = [], 0, 0
        try:
            for _ in range(count):
                length, pos = decode_varint(data, pos)
                lengths.append(length)
                wide = length > 0xFFFFFFFF  # TensorFlow checksums short lengths as uint32, long ones as uint64
                crc = crc32c(struct.pack(order + ("Q" if wide else "I"), length), crc)
        except ValueError as e:
            raise DataLossError(f"{path}: tensor '{name}': bad string length ({e})") from None
        if pos + 4 > len(data):
            raise DataLossError(f"{path}: tensor '{name}': string lengths run past its {len(data)} bytes")
        length_checksum = struct.unpack_from(order + "I", data, pos)[0]
        if mask(crc) != length_checksum:
            raise DataLossError(f"{path}: checksum of the string lengths does not match for tensor '{name}'")
        crc = crc32c(data[pos:pos + 4], crc)
        pos += 4
        if pos + sum(lengths) != len(data):
            raise DataLossError(f"{path}: tensor '{name}': {len(data)} stored bytes, the string lengths say "
                                f"{pos + sum(lengths)}")
        crc = crc32c(data[pos:], crc)
        self._check_crc(path, name, entry, crc)
        out = np.empty(count, dtype=object)
        for i, length in enumerate(lengths):
            out[i] = data[pos:pos + length]
            pos += length
        return out.reshape(shape)


def _pread_into(fd: int, buffer: np.ndarray, offset: int) -> int:
    """Read into ``buffer`` (a contiguous uint8 array) at ``offset``; the number of bytes read."""
    if hasattr(os, "preadv"):
        return os.preadv(fd, [buffer], offset)
    data = _pread(fd, buffer.size, offset)  # pragma: no cover - platforms without preadv
    buffer[:len(data)] = np.frombuffer(data, np.uint8)
    return len(data)


def _pread(fd: int, size: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    with _SEEK_LOCK:  # pragma: no cover - Windows has no pread
        os.lseek(fd, offset, os.SEEK_SET)
        return os.read(fd, size)


def _missing_bundle_message(prefix: str) -> str:
    message = (f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {prefix} "
               f"(no {index_path(prefix)})")
    if prefix.endswith(".index"):
        message += f"; pass the prefix without '.index': {prefix[:-len('.index')]}"
    elif ".data-" in os.path.basename(prefix):
        message += f"; pass the prefix, not a data shard: {prefix.split('.data-')[0]}"
    elif os.path.isfile(prefix):
        raise UnimplementedError(
            f"{prefix}: a TF1 'V1' checkpoint (one file of tensor slices, no .index); tinytf reads the V2 "
            "format (prefix.index + prefix.data-*) that TensorFlow writes since 1.x")
    return message
