"""TensorFlow's protocol buffers, loaded on first use.

The compiled protos come from ``tensorboard.compat.proto`` (same wire format as TensorFlow's; the
package is ``tensorboard.`` instead of ``tensorflow.``). The few messages tensorboard lacks --
``SavedModel``, ``BundleHeaderProto``, ``BundleEntryProto``, ``TensorSliceProto`` and the
``checkpoint`` file's ``CheckpointState`` -- are declared here once, at run time, with the field
numbers of TensorFlow's ``saved_model.proto``, ``tensor_bundle.proto``, ``tensor_slice.proto`` and
``checkpoint_state.proto``.

    >>> from tinytf.formats import protos
    >>> graph = protos.graph_pb2.GraphDef()                  # a tensorboard.compat.proto module
    >>> entry = protos.BundleEntryProto(dtype=1, size=4)     # a declared message class
    >>> protos.parse(protos.BundleEntryProto, entry.SerializeToString(), "entry 'a'").size
    4

Nothing here imports protobuf or tensorboard until an attribute is first read.
"""
from __future__ import annotations

import importlib

from tinytf.errors import DataLossError, UnimplementedError

# The tensorboard.compat.proto modules reachable as protos.<name>.
TENSORBOARD_MODULES = frozenset({
    "attr_value_pb2", "config_pb2", "event_pb2", "full_type_pb2", "function_pb2", "graph_pb2",
    "histogram_pb2", "meta_graph_pb2", "node_def_pb2", "op_def_pb2", "resource_handle_pb2",
    "saved_object_graph_pb2", "saver_pb2", "struct_pb2", "summary_pb2", "tensor_pb2",
    "tensor_shape_pb2", "trackable_object_graph_pb2", "types_pb2", "variable_pb2", "versions_pb2",
})

DECLARED_MESSAGES = ("SavedModel", "BundleHeaderProto", "BundleEntryProto", "TensorSliceProto",
                     "CheckpointState")

_PACKAGE = "tensorboard"  # beside tensorboard's messages, so references resolve in one pool
_FILE_NAME = "tinytf/formats/tensorflow_messages.proto"


def _tensorboard_module(name: str):
    try:
        return importlib.import_module(f"tensorboard.compat.proto.{name}")
    except ImportError as e:  # pragma: no cover - the dependency is declared in pyproject.toml
        raise UnimplementedError(f"reading TensorFlow's files needs the 'tensorboard' package ({e})") from e


def _field(message, name, number, kind, *, label="optional", type_name=None, oneof_index=None):
    from google.protobuf import descriptor_pb2

    fdp = descriptor_pb2.FieldDescriptorProto
    field = message.field.add(name=name, number=number)
    field.type = getattr(fdp, "TYPE_" + kind.upper())
    field.label = fdp.LABEL_REPEATED if label == "repeated" else fdp.LABEL_OPTIONAL
    if type_name:
        field.type_name = type_name
    if oneof_index is not None:
        field.oneof_index = oneof_index
    return field


def _file_descriptor_proto():
    """The declarations, as TensorFlow's .proto files give them (proto3)."""
    from google.protobuf import descriptor_pb2

    deps = {name: _tensorboard_module(name).DESCRIPTOR.name
            for name in ("meta_graph_pb2", "tensor_shape_pb2", "types_pb2", "versions_pb2")}
    f = descriptor_pb2.FileDescriptorProto(name=_FILE_NAME, package=_PACKAGE, syntax="proto3")
    f.dependency.extend(deps.values())
    p = "." + _PACKAGE + "."

    # saved_model.proto
    m = f.message_type.add(name="SavedModel")
    _field(m, "saved_model_schema_version", 1, "int64")
    _field(m, "meta_graphs", 2, "message", label="repeated", type_name=p + "MetaGraphDef")

    # tensor_slice.proto: an extent without `length` covers the whole dimension.
    m = f.message_type.add(name="TensorSliceProto")
    extent = m.nested_type.add(name="Extent")
    extent.oneof_decl.add(name="has_length")
    _field(extent, "start", 1, "int64")
    _field(extent, "length", 2, "int64", oneof_index=0)
    _field(m, "extent", 1, "message", label="repeated", type_name=p + "TensorSliceProto.Extent")

    # tensor_bundle.proto
    m = f.message_type.add(name="BundleHeaderProto")
    endianness = m.enum_type.add(name="Endianness")
    endianness.value.add(name="LITTLE", number=0)
    endianness.value.add(name="BIG", number=1)
    _field(m, "num_shards", 1, "int32")
    _field(m, "endianness", 2, "enum", type_name=p + "BundleHeaderProto.Endianness")
    _field(m, "version", 3, "message", type_name=p + "VersionDef")

    m = f.message_type.add(name="BundleEntryProto")
    _field(m, "dtype", 1, "enum", type_name=p + "DataType")
    _field(m, "shape", 2, "message", type_name=p + "TensorShapeProto")
    _field(m, "shard_id", 3, "int32")
    _field(m, "offset", 4, "int64")
    _field(m, "size", 5, "int64")
    _field(m, "crc32c", 6, "fixed32")
    _field(m, "slices", 7, "message", label="repeated", type_name=p + "TensorSliceProto")

    # checkpoint_state.proto: the text proto in a checkpoint directory's `checkpoint` file.
    m = f.message_type.add(name="CheckpointState")
    _field(m, "model_checkpoint_path", 1, "string")
    _field(m, "all_model_checkpoint_paths", 2, "string", label="repeated")
    _field(m, "all_model_checkpoint_timestamps", 3, "double", label="repeated")
    _field(m, "last_preserved_timestamp", 4, "double")
    return f


_declared: dict[str, type] = {}


def _declared_message(name: str) -> type:
    if not _declared:
        from google.protobuf import descriptor_pool, message_factory

        pool = descriptor_pool.Default()
        try:  # declared already (tinytf reloaded, or another copy in this process)
            file = pool.FindFileByName(_FILE_NAME)
        except KeyError:
            file = pool.Add(_file_descriptor_proto())
            if not hasattr(file, "message_types_by_name"):  # older protobuf returns the proto back
                file = pool.FindFileByName(_FILE_NAME)
        for message_name in DECLARED_MESSAGES:
            _declared[message_name] = message_factory.GetMessageClass(file.message_types_by_name[message_name])
    return _declared[name]


def parse(message_class, data: bytes, what: str, error=DataLossError):
    """``message_class.FromString(data)``, failing with a tinytf error that names ``what``."""
    from google.protobuf.message import DecodeError

    message = message_class()
    try:
        message.ParseFromString(bytes(data))
    except (DecodeError, RuntimeError, ValueError) as e:
        raise error(f"{what}: cannot parse as {message_class.DESCRIPTOR.name} ({e})") from None
    return message


def parse_text(message_class, text: str, what: str, error=DataLossError):
    """A text-format proto (``key: "value"`` lines), failing with a tinytf error naming ``what``."""
    from google.protobuf import text_format

    try:
        return text_format.Parse(text, message_class())
    except text_format.ParseError as e:
        raise error(f"{what}: cannot parse as a text {message_class.DESCRIPTOR.name} ({e})") from None


def __getattr__(name: str):
    if name in TENSORBOARD_MODULES:
        value = _tensorboard_module(name)
    elif name in DECLARED_MESSAGES:
        value = _declared_message(name)
    else:
        raise AttributeError(f"module 'tinytf.formats.protos' has no attribute '{name}'")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | TENSORBOARD_MODULES | set(DECLARED_MESSAGES))
