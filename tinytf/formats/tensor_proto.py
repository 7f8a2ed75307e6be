"""TensorProto <-> numpy, with TensorFlow's rules (``tf.make_ndarray`` / ``tf.make_tensor_proto``).

    >>> proto = from_numpy(np.array([[1, 2]], np.int32))     # tensor_content holds the raw bytes
    >>> to_numpy(proto)
    array([[1, 2]], dtype=int32)
    >>> to_numpy(TensorProto(dtype=DT_FLOAT, tensor_shape=..., float_val=[7.0]))   # [2, 2] of 7.0

How a TensorProto holds values:

- ``tensor_content``: the raw little-endian bytes of every element (any fixed-size dtype);
- otherwise one typed repeated field per dtype (``float_val``, ``int_val`` for 8/16/32-bit ints,
  ``half_val`` with float16 *and* bfloat16 stored as int32 bit patterns, ``scomplex_val`` as
  interleaved real, imaginary, ``string_val`` ...). Fewer values than elements means the last
  value repeats over the rest (one value: a splat); no values at all means zeros.
- DT_STRING tensors come back as numpy object arrays of ``bytes``.

DataType enum numbers map to tinytf dtypes through ``tinytf/dtypes.py``'s ``tf_enum`` names; a
``*_REF`` type maps to its base type.
"""
from __future__ import annotations

import math

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import attributes
from tinytf.framework.kernel import check_allocation

_REF_OFFSET = 100  # DT_FLOAT_REF = DT_FLOAT + 100

# dtype name -> the TensorProto field that holds its values, and how they sit there.
_VALUE_FIELD = {
    "float32": "float_val", "float64": "double_val",
    "int8": "int_val", "int16": "int_val", "int32": "int_val", "uint8": "int_val", "uint16": "int_val",
    "int64": "int64_val", "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val",
    "float16": "half_val", "bfloat16": "half_val",
    "complex64": "scomplex_val", "complex128": "dcomplex_val",
    "string": "string_val", "resource": "resource_handle_val", "variant": "variant_val",
}


def _types_pb2():
    from tinytf.formats import protos

    return protos.types_pb2


def dtype_from_enum(enum: int) -> dtypes.DType:
    """The tinytf dtype of a DataType enum value (``1`` -> ``tt.float32``; refs map to their base)."""
    data_type = _types_pb2().DataType
    enum = int(enum)
    if enum > _REF_OFFSET:
        enum -= _REF_OFFSET
    try:
        name = data_type.Name(enum)
    except ValueError:
        raise InvalidArgumentError(f"unknown DataType enum value {enum}") from None
    try:
        return dtypes.as_dtype(name)
    except InvalidArgumentError:
        raise UnimplementedError(f"tinytf has no dtype for TensorFlow's {name}") from None


def enum_of(dtype) -> int:
    """The DataType enum value of a dtype (``tt.float32`` -> ``1``, DT_FLOAT)."""
    return _types_pb2().DataType.Value(dtypes.as_dtype(dtype).tf_enum)


def shape_from_proto(proto) -> tuple[int, ...] | None:
    """A TensorShapeProto as a tuple of dims (``-1`` unknown), or None for an unknown rank."""
    if proto.unknown_rank:
        return None
    return tuple(int(d.size) for d in proto.dim)


def shape_to_proto(shape):
    """A TensorShapeProto from a sequence of dims (None or -1 unknown), or an unknown rank for None."""
    from tinytf.formats import protos

    proto = protos.tensor_shape_pb2.TensorShapeProto()
    if shape is None:
        proto.unknown_rank = True
    else:
        for d in shape:
            proto.dim.add(size=-1 if d is None else int(d))
    return proto


def _known_shape(proto, what: str) -> tuple[int, ...]:
    shape = shape_from_proto(proto.tensor_shape)
    if shape is None or any(d < 0 for d in shape):
        raise InvalidArgumentError(f"{what}: a tensor needs a fully known shape, got {shape}")
    return shape


def to_numpy(proto, what: str = "TensorProto") -> np.ndarray:
    """The numpy array a TensorProto holds (``tf.make_ndarray``). ``what`` names it in errors."""
    dtype = dtype_from_enum(proto.dtype)
    shape = _known_shape(proto, what)
    count = math.prod(shape)
    check_allocation(what, shape, dtype)
    if proto.tensor_content:
        if dtype.kind == "o":
            raise InvalidArgumentError(f"{what}: a {dtype.tf_enum} tensor cannot use tensor_content")
        if len(proto.tensor_content) != count * dtype.size:
            raise InvalidArgumentError(
                f"{what}: tensor_content holds {len(proto.tensor_content)} bytes, shape {list(shape)} of "
                f"{dtype.tf_enum} needs {count * dtype.size}")
        return np.frombuffer(proto.tensor_content, dtype.np.newbyteorder("<")).astype(dtype.np).reshape(shape)
    field = _VALUE_FIELD[dtype.name]
    values = getattr(proto, field)
    if dtype.kind == "o":
        items = list(values)
        array = np.empty(count, dtype=object)
        if items:
            _fill_repeating(array, items, what)
        elif count:
            array[:] = b"" if dtype.name == "string" else None
        return array.reshape(shape)
    if dtype.name in ("float16", "bfloat16"):
        flat = np.asarray(values, dtype=np.int64).astype(np.uint16).view(dtype.np)
    elif dtype.is_complex:
        parts = np.asarray(values, dtype=np.float32 if dtype.name == "complex64" else np.float64)
        if parts.size % 2:
            raise InvalidArgumentError(f"{what}: {field} holds an odd number of parts ({parts.size})")
        flat = (parts[0::2] + 1j * parts[1::2]).astype(dtype.np)
    else:
        flat = np.asarray(values).astype(dtype.np)
    if flat.size == count:
        return flat.reshape(shape)
    if flat.size > count:
        raise InvalidArgumentError(f"{what}: {field} holds {flat.size} values, shape {list(shape)} holds {count}")
    if flat.size == 0:
        return np.zeros(shape, dtype.np)
    # Fewer values than elements: the last one repeats (one value is a splat).
    out = np.empty(count, dtype.np)
    out[:flat.size] = flat
    out[flat.size:] = flat[-1]
    return out.reshape(shape)


def _fill_repeating(array: np.ndarray, items: list, what: str) -> None:
    if len(items) > array.size:
        raise InvalidArgumentError(f"{what}: {len(items)} values for {array.size} elements")
    for i, item in enumerate(items):
        array[i] = item
    for i in range(len(items), array.size):
        array[i] = items[-1]


def from_numpy(value, dtype=None):
    """A TensorProto holding ``value`` (``tf.make_tensor_proto``): raw bytes in ``tensor_content``,
    or ``string_val`` for strings. ``dtype`` converts first (``from_numpy([1, 2], tt.float32)``)."""
    from tinytf.formats import protos

    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    elif np.asarray(value).dtype.kind in "OSU":
        dtype = dtypes.string
    elif isinstance(value, (np.ndarray, np.generic)):
        dtype = dtypes.as_dtype(value.dtype)
    else:
        dtype = dtypes.result_type_of_python(value)
    proto = protos.tensor_pb2.TensorProto(dtype=enum_of(dtype))
    if dtype.name == "string":
        array = np.asarray(value, dtype=object)
        proto.tensor_shape.CopyFrom(shape_to_proto(array.shape))
        proto.string_val.extend(v.encode() if isinstance(v, str) else bytes(v) for v in array.reshape(-1))
        return proto
    if dtype.kind == "o":
        raise UnimplementedError(f"from_numpy: cannot write a {dtype.tf_enum} tensor")
    array = np.asarray(value).astype(dtype.np, copy=False)
    proto.tensor_shape.CopyFrom(shape_to_proto(array.shape))
    proto.tensor_content = np.ascontiguousarray(array).astype(dtype.np.newbyteorder("<"), copy=False).tobytes()
    return proto


def from_mlir_bytes(raw: bytes, op_name: str) -> np.ndarray:
    """The array of a ``#tf_type<tensor_proto ...>``'s bytes: ``tftensor$`` and a TensorProto in text
    form (TensorFlow's mangling), or a binary TensorProto."""
    from google.protobuf import text_format

    from tinytf.formats import protos

    proto = protos.tensor_pb2.TensorProto()
    if raw.startswith(b"tftensor$"):
        text_format.Parse(raw[len(b"tftensor$"):].decode("utf-8"), proto)
    else:
        proto.ParseFromString(raw)
    return to_numpy(proto, op_name)


attributes.tensor_proto_decoder = from_mlir_bytes
