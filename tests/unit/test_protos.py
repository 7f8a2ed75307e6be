"""tinytf.formats.protos (tensorboard's compiled protos + the messages declared at run time),
tensor_proto (TensorProto <-> numpy) and the masked crc32c."""
import os
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import DataLossError, InvalidArgumentError, ResourceExhaustedError, UnimplementedError
from tinytf.formats import checksums, protos, tensor_proto

ROOT = pathlib.Path(__file__).parents[2]
SAVED_MODEL = ROOT / "tests" / "fixtures" / "protos" / "matrix_half_plus_two_saved_model.pb"
SHARED = ROOT.parent / "shared" / "data" / "savedmodels" / "tf-serving"
HEAVY = ("google.protobuf", "tensorboard", "google_crc32c", "cramjam", "tensorflow", "jax")


def _modules_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sorted(m for m in sys.modules if m.startswith({HEAVY!r}))))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    return set(out.stdout.split())


def test_import_tinytf_loads_no_protobuf_tensorboard_or_codecs():
    assert _modules_after("import tinytf as tt; tt.constant(1.0) + 1.0") == set()
    # tt.train and the formats modules are lazy too: nothing heavy until a file is read.
    assert _modules_after("import tinytf as tt; tt.train.load_checkpoint; from tinytf.formats import "
                          "protos, tensor_bundle, tensor_proto, leveldb_table, checksums") == set()


def test_reading_protos_needs_no_tensorflow():
    loaded = _modules_after("from tinytf.formats import protos; protos.SavedModel; protos.graph_pb2.GraphDef")
    assert "google.protobuf" in loaded and "tensorboard" in loaded and "tensorflow" not in loaded


@pytest.mark.parametrize("name", [
    "graph_pb2", "node_def_pb2", "function_pb2", "attr_value_pb2", "tensor_pb2", "tensor_shape_pb2", "types_pb2",
    "meta_graph_pb2", "saved_object_graph_pb2", "trackable_object_graph_pb2", "struct_pb2", "op_def_pb2",
    "saver_pb2", "variable_pb2", "versions_pb2", "event_pb2", "summary_pb2",
])
def test_tensorboard_proto_modules(name):
    module = getattr(protos, name)
    assert module.__name__ == f"tensorboard.compat.proto.{name}"
    assert name in dir(protos)


def test_unknown_attribute():
    with pytest.raises(AttributeError):
        _ = protos.not_a_proto_pb2


# Field numbers and types from TensorFlow's saved_model.proto, tensor_bundle.proto,
# tensor_slice.proto and checkpoint_state.proto: a mismatch would misread every real file.
DECLARED = {
    "SavedModel": {"saved_model_schema_version": (1, "int64"), "meta_graphs": (2, "MetaGraphDef*")},
    "BundleHeaderProto": {"num_shards": (1, "int32"), "endianness": (2, "Endianness"), "version": (3, "VersionDef")},
    "BundleEntryProto": {"dtype": (1, "DataType"), "shape": (2, "TensorShapeProto"), "shard_id": (3, "int32"),
                         "offset": (4, "int64"), "size": (5, "int64"), "crc32c": (6, "fixed32"),
                         "slices": (7, "TensorSliceProto*")},
    "TensorSliceProto": {"extent": (1, "Extent*")},
    "CheckpointState": {"model_checkpoint_path": (1, "string"), "all_model_checkpoint_paths": (2, "string*"),
                        "all_model_checkpoint_timestamps": (3, "double*"), "last_preserved_timestamp": (4, "double")},
}


def _describe(field):
    from google.protobuf.descriptor import FieldDescriptor

    if field.message_type is not None:
        kind = field.message_type.name
    elif field.enum_type is not None:
        kind = field.enum_type.name
    else:
        kind = {v: k for k, v in vars(FieldDescriptor).items() if k.startswith("TYPE_")}[field.type][5:].lower()
    repeated = field.is_repeated if hasattr(field, "is_repeated") else field.label == FieldDescriptor.LABEL_REPEATED
    return field.number, kind + ("*" if repeated else "")


@pytest.mark.parametrize("message", sorted(DECLARED))
def test_declared_messages_match_tensorflows_field_numbers(message):
    descriptor = getattr(protos, message).DESCRIPTOR
    assert {f.name: _describe(f) for f in descriptor.fields} == DECLARED[message]


def test_declared_messages_wire_format():
    extent = protos.TensorSliceProto.Extent
    assert {f.name: _describe(f) for f in extent.DESCRIPTOR.fields} == {"start": (1, "int64"), "length": (2, "int64")}
    assert extent(start=3).WhichOneof("has_length") is None and extent(length=0).HasField("length")
    assert [(v.name, v.number) for v in protos.BundleHeaderProto.Endianness.DESCRIPTOR.values] == [("LITTLE", 0), ("BIG", 1)]
    # The entry TensorFlow 1.14 wrote for half_plus_two's `a` (a float scalar, 4 bytes at offset 0).
    written = bytes.fromhex("08011200280435" "0638271f")
    entry = protos.parse(protos.BundleEntryProto, written, "entry")
    assert (entry.dtype, list(entry.shape.dim), entry.offset, entry.size) == (1, [], 0, 4)
    assert entry.crc32c == 0x1F273806 and entry.SerializeToString() == written


def test_saved_model_written_by_tensorflow_parses():
    saved_model = protos.parse(protos.SavedModel, SAVED_MODEL.read_bytes(), str(SAVED_MODEL))
    assert saved_model.saved_model_schema_version == 1
    (meta_graph,) = saved_model.meta_graphs
    assert list(meta_graph.meta_info_def.tags) == ["serve"]
    assert meta_graph.meta_info_def.tensorflow_version == "1.2.0-rc2"
    assert list(meta_graph.signature_def) == ["serving_default"]
    consts = {n.name: tensor_proto.to_numpy(n.attr["value"].tensor, n.name)
              for n in meta_graph.graph_def.node if n.op == "Const"}
    assert consts == {"Const": 0.5, "Const_1": 2.0}  # y = 0.5 * x + 2


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/savedmodels is not on this machine")
def test_every_tensor_in_the_shared_saved_models_converts():
    kinds = set()
    for path in sorted(SHARED.glob("*/*/saved_model.pb")):
        graph = protos.parse(protos.SavedModel, path.read_bytes(), str(path)).meta_graphs[0].graph_def
        for node in list(graph.node) + [n for f in graph.library.function for n in f.node_def]:
            for attr in node.attr.values():
                if attr.HasField("tensor"):
                    value = tensor_proto.to_numpy(attr.tensor, node.name)
                    assert value.shape == tensor_proto.shape_from_proto(attr.tensor.tensor_shape)
                    kinds.add((value.dtype.kind, bool(attr.tensor.tensor_content)))
    assert {("f", False), ("i", True), ("O", False)} <= kinds


def test_parse_errors_are_tinytf_errors():
    with pytest.raises(DataLossError, match="'x'.*BundleEntryProto"):
        protos.parse(protos.BundleEntryProto, b"\xff\xff\xff", "entry 'x'")
    with pytest.raises(InvalidArgumentError, match="SavedModel"):
        protos.parse(protos.SavedModel, SAVED_MODEL.read_bytes()[:100], "saved_model.pb", error=InvalidArgumentError)
    with pytest.raises(DataLossError, match="checkpoint"):
        protos.parse_text(protos.CheckpointState, "model_checkpoint_path: 3 4", "checkpoint")


# -- TensorProto <-> numpy ---------------------------------------------------------------------

def _proto(dtype, shape, **values):
    proto = protos.tensor_pb2.TensorProto(dtype=tensor_proto.enum_of(dtype), **values)
    proto.tensor_shape.CopyFrom(tensor_proto.shape_to_proto(shape))
    return proto


@pytest.mark.parametrize("dtype", [d for d in tt.dtypes.ALL if d.kind != "o"], ids=lambda d: d.name)
def test_tensor_content_round_trip_of_every_numeric_dtype(dtype):
    value = (np.arange(6) % 2 if dtype.is_bool else np.arange(6) - (0 if dtype.kind == "u" else 2)).astype(dtype.np)
    value = value.reshape(2, 3)
    proto = tensor_proto.from_numpy(value)
    assert proto.dtype == tensor_proto.enum_of(dtype) and proto.tensor_content == value.astype(value.dtype.newbyteorder("<")).tobytes()
    back = tensor_proto.to_numpy(proto)
    assert back.dtype == dtype.np and back.shape == (2, 3)
    np.testing.assert_array_equal(back, value)


def test_typed_value_fields():
    assert tensor_proto.to_numpy(_proto(tt.float32, [2, 2], float_val=[7.0])).tolist() == [[7.0, 7.0], [7.0, 7.0]]
    assert tensor_proto.to_numpy(_proto(tt.int32, [2, 3], int_val=[1, 2, 3])).tolist() == [[1, 2, 3], [3, 3, 3]]
    assert tensor_proto.to_numpy(_proto(tt.int64, [3], int64_val=[-(2**40)])).tolist() == [-(2**40)] * 3
    assert tensor_proto.to_numpy(_proto(tt.uint8, [], int_val=[255])).tolist() == 255
    assert tensor_proto.to_numpy(_proto(tt.uint64, [1], uint64_val=[2**64 - 1])).tolist() == [2**64 - 1]
    assert tensor_proto.to_numpy(_proto(tt.bool, [2], bool_val=[True, False])).tolist() == [True, False]
    assert tensor_proto.to_numpy(_proto(tt.float64, [2])).tolist() == [0.0, 0.0]  # no values: zeros
    # half and bfloat16 values are int32 bit patterns in half_val
    half = _proto(tt.float16, [3], half_val=[int(np.float16(1.5).view(np.uint16))])
    assert tensor_proto.to_numpy(half).tolist() == [1.5, 1.5, 1.5]
    bf16 = _proto(tt.bfloat16, [2], half_val=[0x3FC0, 0xC000])  # 1.5, -2.0
    value = tensor_proto.to_numpy(bf16)
    assert value.dtype == ml_dtypes.bfloat16 and value.astype(np.float32).tolist() == [1.5, -2.0]
    # complex values are interleaved (real, imaginary) pairs
    c64 = tensor_proto.to_numpy(_proto(tt.complex64, [2], scomplex_val=[1.0, 2.0]))
    assert c64.dtype == np.complex64 and c64.tolist() == [1 + 2j, 1 + 2j]
    assert tensor_proto.to_numpy(_proto(tt.complex128, [1], dcomplex_val=[3.0, -4.0])).tolist() == [3 - 4j]


def test_string_tensors_are_object_arrays_of_bytes():
    proto = tensor_proto.from_numpy(np.array([["a", "bc"]]))
    assert list(proto.string_val) == [b"a", b"bc"] and tensor_proto.shape_from_proto(proto.tensor_shape) == (1, 2)
    value = tensor_proto.to_numpy(proto)
    assert value.dtype == object and value.tolist() == [[b"a", b"bc"]]
    assert tensor_proto.to_numpy(_proto(tt.string, [3], string_val=[b"x"])).tolist() == [b"x"] * 3
    assert tensor_proto.to_numpy(_proto(tt.string, [])).tolist() == b""


def test_dtype_enum_mapping():
    assert tensor_proto.dtype_from_enum(1) is tt.float32 and tensor_proto.enum_of(tt.float32) == 1
    assert tensor_proto.dtype_from_enum(101) is tt.float32  # DT_FLOAT_REF
    assert tensor_proto.dtype_from_enum(14) is tt.bfloat16 and tensor_proto.dtype_from_enum(19) is tt.float16
    for dtype in tt.dtypes.ALL:
        assert tensor_proto.dtype_from_enum(tensor_proto.enum_of(dtype)) is dtype
    with pytest.raises(UnimplementedError, match="DT_FLOAT8_E4M3FN"):
        tensor_proto.dtype_from_enum(25)
    with pytest.raises(InvalidArgumentError, match="unknown DataType"):
        tensor_proto.dtype_from_enum(77)
    assert tensor_proto.from_numpy(1.0).dtype == 1 and tensor_proto.from_numpy([1, 2]).dtype == 3
    assert tensor_proto.from_numpy(np.float64(1)).dtype == 2
    assert tensor_proto.from_numpy([1, 2], tt.float16).half_val == [] and tensor_proto.from_numpy([1, 2], tt.float16).dtype == 19


def test_shapes():
    assert tensor_proto.shape_from_proto(tensor_proto.shape_to_proto([2, None])) == (2, -1)
    assert tensor_proto.shape_from_proto(tensor_proto.shape_to_proto(None)) is None


def test_bad_tensor_protos():
    with pytest.raises(InvalidArgumentError, match="tensor_content holds 3 bytes"):
        tensor_proto.to_numpy(_proto(tt.float32, [1], tensor_content=b"abc"))
    with pytest.raises(InvalidArgumentError, match="holds 3 values"):
        tensor_proto.to_numpy(_proto(tt.float32, [2], float_val=[1, 2, 3]))
    with pytest.raises(InvalidArgumentError, match="fully known shape"):
        tensor_proto.to_numpy(_proto(tt.float32, [-1], float_val=[1]))
    with pytest.raises(ResourceExhaustedError):  # a one-value splat over 10^10 elements
        tensor_proto.to_numpy(_proto(tt.float32, [100000, 100000], float_val=[1]), "Const")


# -- masked crc32c -----------------------------------------------------------------------------

def test_crc32c_check_values_and_masking():
    assert checksums.crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    assert checksums.crc32c(bytes(32)) == 0x8A9136AA     # RFC 3720, 32 bytes of zeros
    assert checksums.crc32c(b"6789", checksums.crc32c(b"12345")) == 0xE3069283  # extend
    c = 0xE3069283
    assert checksums.mask(c) == ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
    assert checksums.unmask(checksums.mask(c)) == c and checksums.mask(c) != c
    assert checksums.masked_crc32c(b"123456789") == checksums.mask(c)
