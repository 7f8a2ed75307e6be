"""tt.train.load_checkpoint and the tensor-bundle reader under it, on checkpoints written by
TensorFlow 1.12, 1.14 and 2.14 (tests/fixtures/checkpoints) and on bundles built here by hand."""
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tracemalloc

import cramjam
import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinytf as tt
from tinytf.errors import DataLossError, NotFoundError, OpError, UnimplementedError
from tinytf.formats import protos, tensor_proto
from tinytf.formats.checksums import crc32c, mask, masked_crc32c
from tinytf.formats.leveldb_table import TABLE_MAGIC, TableReader, encode_varint
from tinytf.formats.tensor_bundle import BundleReader, data_path

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "checkpoints"
TF1_14 = FIXTURES / "half_plus_two_tf1_14" / "variables"      # snappy index block
TF2_14 = FIXTURES / "half_plus_two_tf2_14" / "variables"      # snappy, TF2 object graph
MKL_TF1_12 = FIXTURES / "half_plus_two_mkl_tf1_12" / "variables"  # uncompressed index block
SHARED = pathlib.Path(__file__).parents[2].parent / "shared" / "data" / "savedmodels" / "tf-serving"


# -- a minimal bundle writer (the project's real writer comes later) --------------------------

def _block(entries, restart_interval):
    out, restarts, previous = bytearray(), [], b""
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            restarts.append(len(out))
        else:
            while shared < min(len(key), len(previous)) and key[shared] == previous[shared]:
                shared += 1
        out += encode_varint(shared) + encode_varint(len(key) - shared) + encode_varint(len(value))
        out += key[shared:] + value
        previous = key
    restarts = restarts or [0]
    return bytes(out + struct.pack(f"<{len(restarts)}I", *restarts) + struct.pack("<I", len(restarts)))


def table_bytes(entries, block_size=4096, restart_interval=16, snappy=False, bad_snappy=False):
    """A LevelDB table holding sorted (key, value) pairs, as TensorFlow's table builder lays it out."""
    out = bytearray()

    def write(block):
        kind = 0
        if snappy:
            block, kind = bytes(cramjam.snappy.compress_raw(block)), 1
            if bad_snappy:
                block = b"\xff" * len(block)
        handle = encode_varint(len(out)) + encode_varint(len(block))
        out.extend(block + bytes([kind]) + struct.pack("<I", masked_crc32c(block + bytes([kind]))))
        return handle

    index, pending, size = [], [], 0
    for key, value in entries:
        pending.append((key, value))
        size += len(key) + len(value)
        if size >= block_size:
            index.append((pending[-1][0], write(_block(pending, restart_interval))))
            pending, size = [], 0
    if pending:
        index.append((pending[-1][0], write(_block(pending, restart_interval))))
    metaindex = write(_block([], restart_interval))
    index_handle = write(_block(index, 1))
    footer = (metaindex + index_handle).ljust(40, b"\0")
    return bytes(out + footer + struct.pack("<II", TABLE_MAGIC & 0xFFFFFFFF, TABLE_MAGIC >> 32))


def _string_bytes(array, order="<"):
    lengths, crc = b"", 0
    for s in array.reshape(-1):
        lengths += encode_varint(len(s))
        crc = crc32c(struct.pack(order + "I", len(s)), crc)
    length_checksum = struct.pack(order + "I", mask(crc))
    crc = crc32c(length_checksum, crc)
    body = b"".join(array.reshape(-1))
    return lengths + length_checksum + body, mask(crc32c(body, crc) if body else crc)


def write_bundle(prefix, tensors, num_shards=1, big_endian=False, header_edit=None, entry_edit=None, **table):
    shards = [bytearray() for _ in range(num_shards)]
    rows = []
    order = ">" if big_endian else "<"
    for i, name in enumerate(sorted(tensors)):
        array = np.asarray(tensors[name])
        if array.dtype == object:
            data, crc = _string_bytes(array, order)
            dtype = tt.string
        else:
            data = array.astype(array.dtype.newbyteorder(order)).tobytes()
            crc, dtype = masked_crc32c(data), tt.as_dtype(array.dtype)
        shard = i % num_shards
        entry = protos.BundleEntryProto(dtype=tensor_proto.enum_of(dtype), shard_id=shard,
                                        offset=len(shards[shard]), size=len(data), crc32c=crc)
        entry.shape.CopyFrom(tensor_proto.shape_to_proto(array.shape))
        if entry_edit:
            entry_edit(name, entry)
        shards[shard] += data
        rows.append((name.encode(), entry.SerializeToString()))
    header = protos.BundleHeaderProto(num_shards=num_shards, endianness=1 if big_endian else 0)
    header.version.producer = 1
    if header_edit:
        header_edit(header)
    pathlib.Path(f"{prefix}.index").write_bytes(table_bytes([(b"", header.SerializeToString())] + rows, **table))
    for shard, data in enumerate(shards):
        pathlib.Path(data_path(str(prefix), shard, num_shards)).write_bytes(bytes(data))
    return str(prefix)


ALL_DTYPES = {
    "bool": np.array([True, False, True]),
    "int8": np.array([-128, 0, 127], np.int8), "int16": np.array([[-3, 4]], np.int16),
    "int32": np.arange(12, dtype=np.int32).reshape(3, 4), "int64": np.array([-(2**40), 2**40]),
    "uint8": np.array([0, 255], np.uint8), "uint16": np.array([65535], np.uint16),
    "uint32": np.array([2**32 - 1], np.uint32), "uint64": np.array([2**64 - 1], np.uint64),
    "float16": np.array([1.5, -2.25], np.float16), "bfloat16": np.array([1.5, 3.0e38], ml_dtypes.bfloat16),
    "float32": np.array(3.25, np.float32), "float64": np.linspace(0, 1, 7),
    "complex64": np.array([1 + 2j], np.complex64), "complex128": np.array([[3 - 4j]], np.complex128),
    "empty": np.zeros((0, 3), np.float32),
    "string": np.array([b"a", b"", b"x" * 300, "é".encode()], dtype=object).reshape(2, 2),
    "string_scalar": np.array(b"hello", dtype=object),
}


# -- checkpoints written by TensorFlow --------------------------------------------------------

def test_tf1_14_checkpoint_with_snappy_blocks_holds_half_plus_two():
    reader = tt.train.load_checkpoint(TF1_14)
    values = {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}
    assert values == {"a": 0.5, "a2": 0.5, "b": 2.0, "c": 3.0, "c2": 3.0}  # y = a*x + b; c for x2 -> y3
    assert all(v.shape == () and v.dtype == np.float32 for v in values.values())
    assert reader.get_variable_to_shape_map() == {k: [] for k in values}
    assert reader.get_variable_to_dtype_map() == {k: tt.float32 for k in values}
    assert TableReader(f"{TF1_14}.index").block_compressions == {1}  # snappy
    assert reader.object_graph() is None  # a name-based (TF1) checkpoint


def test_tf1_12_checkpoint_uncompressed_with_conv_kernels():
    reader = tt.train.load_checkpoint(MKL_TF1_12)
    assert TableReader(f"{MKL_TF1_12}.index").block_compressions == {0}  # no compression
    assert tt.train.list_variables(MKL_TF1_12) == [
        ("a", []), ("b", []), ("c", []), ("conv2d/bias", [1]), ("conv2d/kernel", [1, 1, 1, 1]),
        ("conv2d_1/bias", [1]), ("conv2d_1/kernel", [1, 1, 1, 1]), ("conv2d_2/bias", [1]),
        ("conv2d_2/kernel", [1, 1, 1, 1])]
    kernel = reader.get_tensor("conv2d/kernel")
    assert kernel.shape == (1, 1, 1, 1) and kernel.dtype == np.float32
    np.testing.assert_allclose(kernel.ravel(), [-0.5223959684371948])
    np.testing.assert_allclose(reader.get_tensor("conv2d_2/kernel").ravel(), [1.577943205833435])
    np.testing.assert_array_equal(reader.get_tensor("conv2d_1/bias"), [0.0])
    kernel[...] = 1.0  # writable, as TensorFlow's reader returns
    assert reader.get_tensor("a") == 0.5 and reader.get_tensor("b") == 2.0


def test_tf2_14_checkpoint_keys_and_object_graph():
    reader = tt.train.load_checkpoint(TF2_14)
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes == {"_CHECKPOINTABLE_OBJECT_GRAPH": tt.string, "a/.ATTRIBUTES/VARIABLE_VALUE": tt.float32,
                      "b/.ATTRIBUTES/VARIABLE_VALUE": tt.float32, "c/.ATTRIBUTES/VARIABLE_VALUE": tt.float32}
    assert [reader.get_tensor(f"{v}/.ATTRIBUTES/VARIABLE_VALUE") for v in "abc"] == [0.5, 2.0, 3.0]
    raw = reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    assert raw.shape == () and raw.dtype == object and isinstance(raw[()], bytes)
    graph = reader.object_graph()
    root = graph.nodes[0]
    assert [c.local_name for c in root.children][:4] == ["a", "b", "c", "asset"]
    assert {"predict", "signatures", "regress_xy"} <= {c.local_name for c in root.children}
    for child in root.children[:3]:
        (attribute,) = graph.nodes[child.node_id].attributes
        assert attribute.name == "VARIABLE_VALUE" and attribute.full_name == child.local_name
        assert reader.has_tensor(attribute.checkpoint_key)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/savedmodels is not on this machine")
def test_every_shared_serving_checkpoint_reads_with_the_values_its_readme_gives():
    prefixes = sorted(SHARED.glob("*/*/variables/variables.index"))
    assert len(prefixes) >= 12
    for index in prefixes:
        reader = tt.train.load_checkpoint(index.with_suffix(""))
        values = {k: reader.get_tensor(k) for k in reader.get_variable_to_shape_map()}
        model = index.parts[-4]
        if model == "saved_model_counter":
            assert values == {"counter": 0.0}
            continue
        strip = {k.split("/.ATTRIBUTES")[0]: v for k, v in values.items() if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}
        assert (strip["a"], strip["b"], strip["c"]) == (0.5, 3.0 if "three" in model else 2.0, 3.0), model


# -- the checkpoint state file and the directory form ----------------------------------------

def _copy(src, directory, name):
    for path in src.parent.glob(src.name + ".*"):
        shutil.copy(path, directory / path.name.replace(src.name, name, 1))
    return directory / name


def test_latest_checkpoint_reads_the_state_file(tmp_path):
    _copy(TF1_14, tmp_path, "ckpt-1")
    _copy(TF2_14, tmp_path, "ckpt-2")
    assert tt.train.latest_checkpoint(tmp_path) is None  # no `checkpoint` file yet
    with pytest.raises(NotFoundError, match="Couldn't find 'checkpoint' file"):
        tt.train.load_checkpoint(tmp_path)
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ckpt-2"\n'
                                         'all_model_checkpoint_paths: "ckpt-1"\nall_model_checkpoint_paths: "ckpt-2"\n')
    assert tt.train.latest_checkpoint(tmp_path) == str(tmp_path / "ckpt-2")
    state = tt.train.get_checkpoint_state(tmp_path)
    assert list(state.all_model_checkpoint_paths) == [str(tmp_path / "ckpt-1"), str(tmp_path / "ckpt-2")]
    assert tt.train.load_checkpoint(tmp_path).has_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    assert tt.train.list_variables(tmp_path)[0] == ("_CHECKPOINTABLE_OBJECT_GRAPH", [])
    (tmp_path / "checkpoint").write_text(f'model_checkpoint_path: "{tmp_path / "ckpt-1"}"\n')  # absolute
    assert tt.train.load_checkpoint(str(tmp_path)).get_tensor("a") == 0.5
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ckpt-9"\n')  # files gone
    assert tt.train.latest_checkpoint(tmp_path) is None
    (tmp_path / "checkpoint").write_text("model_checkpoint_path: {{{")  # TensorFlow ignores a bad one
    assert tt.train.latest_checkpoint(tmp_path) is None and tt.train.get_checkpoint_state(tmp_path) is None


def test_v1_checkpoint_state_from_tensorflow_points_at_a_missing_absolute_path(tmp_path):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "/tmp/bad_half_plus_two/00000123/export"\n')
    assert tt.train.get_checkpoint_state(tmp_path).model_checkpoint_path == "/tmp/bad_half_plus_two/00000123/export"
    with pytest.raises(UnimplementedError, match="V1"):
        tt.train.load_checkpoint(FIXTURES / "v1_export" / "export")


# -- bundles built by hand: every dtype, several shards, blocks, byte orders -------------------

@pytest.mark.parametrize("layout", [
    dict(), dict(snappy=True), dict(block_size=64, restart_interval=2), dict(block_size=64, snappy=True),
    dict(num_shards=3), dict(big_endian=True),
])
def test_round_trip_of_every_dtype(tmp_path, layout):
    prefix = write_bundle(tmp_path / "model.ckpt", ALL_DTYPES, **layout)
    reader = tt.train.load_checkpoint(prefix)
    assert reader.get_variable_to_shape_map() == {k: list(v.shape) for k, v in ALL_DTYPES.items()}
    for name, expected in ALL_DTYPES.items():
        got = reader.get_tensor(name)
        assert got.dtype == expected.dtype and got.shape == expected.shape, name
        assert reader.get_variable_to_dtype_map()[name] == (tt.string if expected.dtype == object else
                                                              tt.as_dtype(expected.dtype))
        np.testing.assert_array_equal(got, expected, err_msg=name)
    if layout.get("num_shards"):
        assert len(list(tmp_path.glob("model.ckpt.data-*-of-00003"))) == 3


def test_many_variables_prefix_compressed_across_blocks(tmp_path):
    tensors = {f"model/layer_{i:03d}/kernel/.ATTRIBUTES/VARIABLE_VALUE": np.full((2,), i, np.float32)
               for i in range(300)}
    prefix = write_bundle(tmp_path / "c", tensors, block_size=256, restart_interval=4, snappy=True)
    names = [n for n, _ in tt.train.list_variables(prefix)]
    assert names == sorted(tensors)
    assert tt.train.load_checkpoint(prefix).get_tensor(names[123])[1] == 123.0


def test_a_tensor_is_read_without_reading_its_shard(tmp_path):
    prefix = write_bundle(tmp_path / "big", {"w": np.arange(4, dtype=np.float32)},
                          entry_edit=lambda name, e: setattr(e, "offset", (4 << 30) - 16))
    shard = pathlib.Path(data_path(prefix, 0, 1))
    with open(shard, "r+b") as f:  # a sparse 4 GiB shard, the tensor in its last 16 bytes
        f.truncate(4 << 30)
        f.seek((4 << 30) - 16)
        f.write(np.arange(4, dtype=np.float32).tobytes())
    tracemalloc.start()
    value = tt.train.load_checkpoint(prefix).get_tensor("w")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    np.testing.assert_array_equal(value, [0, 1, 2, 3])
    assert peak < 8 << 20


# -- bad input: always a tinytf error naming what is wrong -----------------------------------

@pytest.fixture
def bundle(tmp_path):
    return write_bundle(tmp_path / "ckpt", {"weights": np.arange(6, dtype=np.float32), "bias": np.ones(2),
                                            "names": np.array([b"ab", b"cde"], dtype=object)})


@pytest.mark.parametrize("keep", [0, 10, 47, -1, -8])
def test_truncated_index(bundle, keep):
    index = pathlib.Path(f"{bundle}.index")
    index.write_bytes(index.read_bytes()[:keep])
    with pytest.raises(DataLossError, match=r"ckpt\.index.*(too short|magic)"):
        tt.train.load_checkpoint(bundle)


def test_wrong_magic_number(bundle):
    index = pathlib.Path(f"{bundle}.index")
    data = bytearray(index.read_bytes())
    data[-1] ^= 0x01
    index.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match="bad magic number"):
        tt.train.load_checkpoint(bundle)


def test_flipped_byte_in_an_index_block(bundle):
    index = pathlib.Path(f"{bundle}.index")
    data = bytearray(index.read_bytes())
    data[3] ^= 0x40
    index.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match="block checksum mismatch"):
        tt.train.load_checkpoint(bundle)


def test_corrupt_snappy_block_with_a_valid_checksum(tmp_path):
    prefix = write_bundle(tmp_path / "s", {"x": np.zeros(3)}, snappy=True, bad_snappy=True)
    with pytest.raises(DataLossError, match="snappy"):
        tt.train.load_checkpoint(prefix)


@pytest.mark.parametrize("name, offset", [("weights", 5), ("names", 0), ("names", 3), ("names", 7)])
def test_flipped_byte_in_a_data_shard_names_file_and_tensor(bundle, name, offset):
    reader = tt.train.load_checkpoint(bundle)
    shard = pathlib.Path(data_path(bundle, 0, 1))
    data = bytearray(shard.read_bytes())
    data[reader._bundle.entry(name).offset + offset] ^= 0x01
    shard.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match=rf"ckpt\.data-00000-of-00001.*'{name}'") as info:
        reader.get_tensor(name)
    assert "checksum" in str(info.value) or "length" in str(info.value)
    assert reader.get_tensor("bias").tolist() == [1.0, 1.0]  # the other tensors still read


def test_missing_and_truncated_shard(bundle):
    reader = tt.train.load_checkpoint(bundle)
    shard = pathlib.Path(data_path(bundle, 0, 1))
    shard.write_bytes(shard.read_bytes()[:10])
    with pytest.raises(DataLossError, match="truncated"):
        reader.get_tensor("weights")
    shard.unlink()
    with pytest.raises(NotFoundError, match=r"ckpt\.data-00000-of-00001.*not found"):
        tt.train.load_checkpoint(bundle).get_tensor("weights")  # (an open reader keeps its shards open)


def test_missing_key_and_missing_checkpoint(bundle, tmp_path):
    reader = tt.train.load_checkpoint(bundle)
    assert reader.has_tensor("weights") and not reader.has_tensor("nope")
    with pytest.raises(NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    with pytest.raises(NotFoundError, match="Failed to find any matching files"):
        tt.train.load_checkpoint(tmp_path / "absent")
    with pytest.raises(NotFoundError, match="without '.index'"):
        tt.train.load_checkpoint(f"{bundle}.index")


@pytest.mark.parametrize("edit, error, match", [
    (lambda n, e: setattr(e, "size", e.size + 4), DataLossError, "stored bytes"),
    (lambda n, e: setattr(e, "shard_id", 5), DataLossError, "shard 5"),
    (lambda n, e: setattr(e, "dtype", 99), DataLossError, "unknown DataType"),
    (lambda n, e: e.shape.dim[0].__setattr__("size", -2), DataLossError, "bad shape"),
    (lambda n, e: e.slices.add(), UnimplementedError, "slices"),
    (lambda n, e: setattr(e, "dtype", 25), UnimplementedError, "FLOAT8"),
])
def test_inconsistent_entries(tmp_path, edit, error, match):
    prefix = write_bundle(tmp_path / "e", {"x": np.zeros(3, np.float32)}, entry_edit=edit)
    with pytest.raises(error, match=match):
        reader = tt.train.load_checkpoint(prefix)
        reader.get_variable_to_dtype_map()
        reader.get_tensor("x")


def test_bundle_from_a_newer_writer_and_one_without_header(tmp_path):
    prefix = write_bundle(tmp_path / "v", {"x": np.zeros(1)}, header_edit=lambda h: setattr(h.version, "min_consumer", 2))
    with pytest.raises(UnimplementedError, match="version"):
        BundleReader(prefix)
    pathlib.Path(f"{prefix}.index").write_bytes(table_bytes([(b"x", b"")]))
    with pytest.raises(DataLossError, match="no bundle header"):
        BundleReader(prefix)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_files_raise_only_tinytf_errors(tmp_path_factory, data):
    directory = tmp_path_factory.mktemp("fuzz")
    prefix = write_bundle(directory / "f", {"a": np.arange(3, dtype=np.int64), "s": np.array([b"xy"], dtype=object)},
                          snappy=data.draw(st.booleans()))
    target = pathlib.Path(data.draw(st.sampled_from([f"{prefix}.index", data_path(prefix, 0, 1)])))
    content = bytearray(target.read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        content[data.draw(st.integers(0, len(content) - 1))] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        content = content[:data.draw(st.integers(0, len(content)))]
    target.write_bytes(bytes(content))
    try:
        reader = tt.train.load_checkpoint(prefix)
        for name in reader.get_variable_to_dtype_map():
            reader.get_tensor(name)
    except OpError:
        pass


def test_reading_never_imports_tensorflow():
    code = ("import sys, tinytf as tt; r = tt.train.load_checkpoint(sys.argv[1]); r.get_tensor('a');"
            "print('tensorflow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(TF1_14)], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(pathlib.Path(__file__).parents[2])})
    assert out.stdout.strip() == "False"
