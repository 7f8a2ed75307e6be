"""Parsing serialized ``tf.Example`` protos: tf.ParseExample and tf.ParseExampleV2, dense features.

    %x:2 = "tf.ParseExampleV2"(%serialized, %names, %sparse_keys, %dense_keys, %ragged_keys, %d0, %d1)
             <{dense_shapes = [#tf_type.shape<1>, #tf_type.shape<1>], num_sparse = 0 : i64, ...}>
             : (tensor<?x!tf_type.string>, ..., tensor<0xf32>, tensor<1xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>)

What TensorFlow Serving's regress and classify signatures run (``tf.io.parse_example`` with
``FixedLenFeature``s). Each dense feature ``k`` gives a ``[batch] + dense_shapes[k]`` tensor of
``Tdense[k]``: the Example's float_list / int64_list / bytes_list values, or the default when the
feature is missing (an empty default means required). Sparse and ragged features are
UnimplementedError. The results are the dense values only (TensorFlow's sparse and ragged result
groups are empty then), so ``ParseExampleV2:dense_values:i`` is result ``i``. Strings do not lower
to XLA: these ops run on the graph backend.

The Example wire format is read here directly (a few nested length-delimited fields):
Example{1: Features{1: map entry{1: key, 2: Feature{1: BytesList, 2: FloatList, 3: Int64List}}}}.
"""
from __future__ import annotations

import math
import struct

import numpy as np
from xdsl.irdl import operand_def, traits_def, var_operand_def, var_result_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers

__all__ = []  # tf.raw_ops only (TensorFlow's API is tf.io.parse_example): no tt.* op functions

_KINDS = {1: "bytes", 2: "float", 3: "int64"}
_KIND_OF = {dtypes.string: "bytes", dtypes.float32: "float", dtypes.int64: "int64"}


# --- the wire format -------------------------------------------------------------------------------

def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes):
    """(field number, wire type, value) of a message: ints for varints, bytes for the others."""
    pos = 0
    while pos < len(data):
        tag, pos = _varint(data, pos)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            size, pos = _varint(data, pos)
            value, pos = data[pos:pos + size], pos + size
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"wire type {wire}")
        if pos > len(data):
            raise ValueError("truncated field")
        yield field, wire, value


def _signed64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _values(kind: str, data: bytes) -> list:
    out: list = []
    for field, wire, value in _fields(data):
        if field != 1:
            continue
        if kind == "bytes":
            out.append(bytes(value))
        elif kind == "float":
            if wire == 2:  # packed
                out.extend(struct.unpack(f"<{len(value) // 4}f", value[:len(value) // 4 * 4]))
            else:
                out.append(struct.unpack("<f", value)[0])
        elif wire == 2:  # int64, packed
            pos = 0
            while pos < len(value):
                v, pos = _varint(value, pos)
                out.append(_signed64(v))
        else:
            out.append(_signed64(value))
    return out


def parse_example(data: bytes) -> dict[bytes, tuple[str, list]]:
    """The features of one serialized ``tf.train.Example``: key -> (kind, values); ValueError if malformed."""
    features: dict[bytes, tuple[str, list]] = {}
    for field, _, value in _fields(data):
        if field != 1:
            continue
        for entry_field, _, entry in _fields(value):
            if entry_field != 1:
                continue
            key, feature = b"", b""
            for f, _, v in _fields(entry):
                if f == 1:
                    key = bytes(v)
                elif f == 2:
                    feature = v
            found = None
            for f, _, v in _fields(feature):
                if f in _KINDS:
                    found = (_KINDS[f], _values(_KINDS[f], v))
            if found is None:  # an empty Feature counts as missing
                features.pop(key, None)
            else:
                features[key] = found
    return features


def _key(field: int, wire: int) -> bytes:
    return _encode_varint(field << 3 | wire)


def _encode_varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _len_field(field: int, data: bytes) -> bytes:
    return _key(field, 2) + _encode_varint(len(data)) + data


def serialize_example(features: dict) -> bytes:
    """A serialized ``tf.train.Example`` from ``{name: [floats] | [ints] | [bytes or str]}`` (the kind
    of each list from its first value, as saved_model_cli's ``--input_examples``)."""
    entries = b""
    for name in sorted(features):
        values = list(features[name])
        first = values[0] if values else 0.0
        if isinstance(first, bytes | str):
            body = b"".join(_len_field(1, v.encode() if isinstance(v, str) else bytes(v)) for v in values)
            feature = _len_field(1, body)
        elif isinstance(first, float | np.floating):
            feature = _len_field(2, _len_field(1, struct.pack(f"<{len(values)}f", *values)))
        elif isinstance(first, int | np.integer):
            feature = _len_field(3, _len_field(1, b"".join(_encode_varint(int(v)) for v in values)))
        else:
            raise InvalidArgumentError(f"feature '{name}': values of type {type(first).__name__} are not supported")
        entry = _len_field(1, name.encode() if isinstance(name, str) else name) + _len_field(2, feature)
        entries += _len_field(1, entry)
    return _len_field(1, entries)


# --- the dense features ------------------------------------------------------------------------------

def _check_supported(name: str, shapes, num_sparse=0, ragged=()):
    if num_sparse or ragged:
        raise UnimplementedError(f"{name}: sparse and ragged features are not supported (dense features only)", name)
    for shape in shapes:
        if shape is None or any(d is None for d in shape):
            raise UnimplementedError(f"{name}: variable-length dense features (shape {shape}) are not supported", name)


def _dense_specs(name, serialized, defaults, dense_shapes, Tdense):
    if len(dense_shapes) != len(defaults) or (Tdense is not None and len(Tdense) != len(defaults)):
        raise InvalidArgumentError(f"{name}: {len(defaults)} dense defaults, {len(dense_shapes)} dense_shapes", name)
    if serialized.dtype is not dtypes.string:
        raise InvalidArgumentError(f"{name}: serialized must be a string tensor, got {serialized.dtype.name}", name)
    batch = serialized.shape
    types = Tdense if Tdense is not None else [d.dtype for d in defaults]
    for t in types:
        if t not in _KIND_OF:
            raise InvalidArgumentError(f"{name}: dense features are float32, int64 or string, got {t.name}", name)
    shape = lambda s: None if batch is None else (*batch, *s)  # noqa: E731
    return [TensorSpec(shape(s), t) for s, t in zip(dense_shapes, types)]


def _keys(array, what: str) -> list[bytes]:
    return [bytes(k) for k in np.asarray(array, dtype=object).reshape(-1)]


def parse_dense(name: str, serialized, keys: list[bytes], defaults: list, dense_shapes, types) -> list:
    """The dense feature tensors of a batch (or one scalar) of serialized Examples."""
    batch = np.asarray(serialized, dtype=object)
    records = batch.reshape(-1)
    outs = [np.empty((records.size, math.prod(s)), types[i].np) for i, s in enumerate(dense_shapes)]
    for r, data in enumerate(records):
        if not isinstance(data, bytes):
            raise InvalidArgumentError(f"{name}: serialized[{r}] is not a byte string", name)
        try:
            features = parse_example(data)
        except ValueError:
            raise InvalidArgumentError(f"{name}: Could not parse example input, value: '{data[:40]!r}'", name) from None
        for i, key in enumerate(keys):
            size, kind = math.prod(dense_shapes[i]), _KIND_OF[types[i]]
            found = features.get(key)
            label = key.decode("utf-8", "replace")
            if found is None:
                default = np.asarray(defaults[i])
                if default.size == 0:
                    raise InvalidArgumentError(f"{name}: Name: <unknown>, Feature: {label} (data type: {types[i].tf}) "
                                               "is required but could not be found.", name)
                outs[i][r] = np.broadcast_to(default, dense_shapes[i]).reshape(-1)
                continue
            got, values = found
            if got != kind:
                raise InvalidArgumentError(f"{name}: Name: <unknown>, Key: {label}, Index: {r}.  Data types don't "
                                           f"match. Data type: {got} but expected type: {types[i].tf}", name)
            if len(values) != size:
                raise InvalidArgumentError(f"{name}: Name: <unknown>, Key: {label}, Index: {r}.  Number of {got} "
                                           f"values != expected.  Values size: {len(values)} but output shape: "
                                           f"{list(dense_shapes[i])}", name)
            outs[i][r] = values
    return [o.reshape(batch.shape + tuple(s)) for o, s in zip(outs, dense_shapes)]


def _no_xla(name):
    raise UnimplementedError(f"{name} parses strings: it runs on the graph backend, not under XLA", name)


@register
class ParseExampleV2(Op):
    """Dense features of serialized tf.Examples (``tf.io.parse_example``); keys are 1-D string tensors."""

    name = "tf.ParseExampleV2"
    serialized = operand_def()
    names = operand_def()
    sparse_keys = operand_def()
    dense_keys = operand_def()
    ragged_keys = operand_def()
    dense_defaults = var_operand_def()
    dense_values = var_result_def()
    num_sparse = attr(0)
    dense_shapes = attr((), kind="shapes")
    sparse_types = attr((), kind="types")
    ragged_value_types = attr((), kind="types")
    ragged_split_types = attr((), kind="types")
    Tdense = derived("types", lambda op: tuple(tf_types.dtype_of(r.type) for r in op.results), default=None)
    traits = traits_def(NoConstantFold(), NotDifferentiable())

    def verify_ir(self):
        """TensorFlow's checks of the variadic lengths. TensorFlow's text gives every output kind, counted by
        ``resultSegmentSizes`` (sparse indices, values, shapes; dense values; ragged values, row splits), and
        derives the type lists from them; tinytf's own ops have dense values only, and their type lists."""
        segments = self.attributes.get("resultSegmentSizes") or self.properties.get("resultSegmentSizes")
        values = self.attr_values()
        if segments is not None:
            indices, sparse, shapes, dense, ragged_values, ragged_splits = (list(segments.get_values()) + [0] * 6)[:6]
        else:
            sparse = indices = shapes = len(values["sparse_types"])
            dense, ragged_values, ragged_splits = (len(self.results), len(values["ragged_value_types"]),
                                                   len(values["ragged_split_types"]))
        if dense != len(self.dense_defaults):
            verifiers.fail("output 'dense_values' should have same length as attribute 'Tdense'")
        if values["num_sparse"] != sparse:
            verifiers.fail("attribute 'num_sparse' should be the same as the length of attribute 'sparse_types'")
        if indices != sparse:
            verifiers.fail("output 'sparse_indices' should have same length as attribute 'sparse_types'")
        if shapes != sparse:
            verifiers.fail("output 'sparse_shapes' should have same length as attribute 'sparse_types'")
        if ragged_values != ragged_splits:
            verifiers.fail("attribute 'ragged_value_types' should have same length as attribute 'ragged_split_types'")

    @classmethod
    def infer(cls, serialized, names, sparse_keys, dense_keys, ragged_keys, *dense_defaults, num_sparse,
              dense_shapes, sparse_types, ragged_value_types, Tdense, **_):
        _check_supported(cls.name, dense_shapes, num_sparse or len(sparse_types), ragged_value_types)
        return _dense_specs(cls.name, serialized, dense_defaults, dense_shapes, Tdense)

    @classmethod
    def compute(cls, xp, serialized, names, sparse_keys, dense_keys, ragged_keys, *dense_defaults, dense_shapes,
                Tdense, **_):
        keys = _keys(dense_keys, "dense_keys")
        types = Tdense if Tdense is not None else [dtypes.as_dtype(np.asarray(d).dtype) for d in dense_defaults]
        if len(keys) != len(dense_defaults):
            raise InvalidArgumentError(f"{cls.name}: {len(keys)} dense keys for {len(dense_defaults)} defaults",
                                       cls.name)
        return parse_dense(cls.name, serialized, keys, list(dense_defaults), dense_shapes, types)

    @classmethod
    def lower(cls, *args, **_):
        _no_xla(cls.name)


@register
class ParseExample(Op):
    """TF1's form of ParseExampleV2: ``Nsparse`` sparse keys, ``Ndense`` dense keys (scalar strings) and
    ``Ndense`` defaults follow ``serialized`` and ``names`` as one operand list."""

    name = "tf.ParseExample"
    serialized = operand_def()
    names = operand_def()
    keys_and_defaults = var_operand_def()
    dense_values = var_result_def()
    Nsparse = attr(0)
    Ndense = attr(0)
    dense_shapes = attr((), kind="shapes")
    sparse_types = attr((), kind="types")
    Tdense = derived("types", lambda op: tuple(tf_types.dtype_of(r.type) for r in op.results), default=None)
    traits = traits_def(NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, serialized, names, *rest, Nsparse, Ndense, dense_shapes, sparse_types, Tdense, **_):
        _check_supported(cls.name, dense_shapes, Nsparse or len(sparse_types))
        if len(rest) != 2 * Ndense:
            raise InvalidArgumentError(f"{cls.name}: expected {Ndense} dense keys and defaults, got {len(rest)} "
                                       "operands after names", cls.name)
        return _dense_specs(cls.name, serialized, rest[Ndense:], dense_shapes, Tdense)

    @classmethod
    def compute(cls, xp, serialized, names, *rest, Ndense, dense_shapes, Tdense, **_):
        keys = [_keys(k, "dense_keys")[0] for k in rest[:Ndense]]
        defaults = list(rest[Ndense:])
        types = Tdense if Tdense is not None else [dtypes.as_dtype(np.asarray(d).dtype) for d in defaults]
        return parse_dense(cls.name, serialized, keys, defaults, dense_shapes, types)

    @classmethod
    def lower(cls, *args, **_):
        _no_xla(cls.name)


def parse_example_v2(serialized, names, sparse_keys, dense_keys, ragged_keys, dense_defaults, num_sparse=0,
                     sparse_types=(), ragged_value_types=(), ragged_split_types=(), dense_shapes=(), name=None):
    return ParseExampleV2.bind(serialized, names, sparse_keys, dense_keys, ragged_keys, *dense_defaults,
                               num_sparse=num_sparse, sparse_types=tuple(sparse_types),
                               ragged_value_types=tuple(ragged_value_types),
                               ragged_split_types=tuple(ragged_split_types), dense_shapes=tuple(dense_shapes),
                               Tdense=tuple(dtypes.as_dtype(np.asarray(d).dtype) for d in dense_defaults))
