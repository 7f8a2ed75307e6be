"""TensorFlow's ``StructuredValue`` protos (function input and output signatures) as Python values.

    to_python(saved.canonicalized_input_signature)   # ((TensorSpec([1], float32, 'x'),), {})
    flatten({"y": spec, "a": [spec2]})               # [(("a", 0), spec2), (("y",), spec)]: nest's order
    pack_as({"y": spec}, [tensor])                   # {"y": tensor}

``flatten`` follows ``tf.nest``: dicts by sorted key, sequences and named tuples in order, anything
else a leaf. The tensors of a signature are its TensorSpec leaves, in that order.
"""
from __future__ import annotations

from tinytf.errors import UnimplementedError
from tinytf.formats import tensor_proto
from tinytf.framework.tensor_spec import TensorSpec


class NamedTuple(tuple):
    """A restored named tuple (``FullArgSpec``, a user's namedtuple): its values, with ``name`` and ``keys``."""

    name: str = ""
    keys: tuple = ()

    @classmethod
    def make(cls, name: str, keys, values):
        out = cls(values)
        out.name, out.keys = name, tuple(keys)
        return out

    def __getattr__(self, key):
        try:
            return self[self.keys.index(key)]
        except ValueError:
            raise AttributeError(key) from None


class TypeSpecValue:
    """A composite tensor's spec (RaggedTensorSpec, ...): a leaf tinytf cannot feed."""

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"TypeSpec({self.type_name})"


def _shape(proto):
    shape = tensor_proto.shape_from_proto(proto)
    return None if shape is None else tuple(None if d < 0 else d for d in shape)


def to_python(value):
    kind = value.WhichOneof("kind")
    if kind is None or kind == "none_value":
        return None
    if kind in ("float64_value", "int64_value", "string_value", "bool_value"):
        return getattr(value, kind)
    if kind == "tensor_shape_value":
        return _shape(value.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return tensor_proto.dtype_from_enum(value.tensor_dtype_value)
    if kind in ("tensor_spec_value", "bounded_tensor_spec_value"):
        spec = getattr(value, kind)
        return TensorSpec(_shape(spec.shape), tensor_proto.dtype_from_enum(spec.dtype), name=spec.name or None)
    if kind == "list_value":
        return [to_python(v) for v in value.list_value.values]
    if kind == "tuple_value":
        return tuple(to_python(v) for v in value.tuple_value.values)
    if kind == "dict_value":
        return {k: to_python(v) for k, v in value.dict_value.fields.items()}
    if kind == "named_tuple_value":
        pairs = value.named_tuple_value.values
        return NamedTuple.make(value.named_tuple_value.name, [p.key for p in pairs], [to_python(p.value) for p in pairs])
    if kind == "tensor_value":
        return tensor_proto.to_numpy(value.tensor_value, "a structured value's tensor")
    if kind == "type_spec_value":
        return TypeSpecValue(value.type_spec_value.type_spec_class_name or str(value.type_spec_value.type_spec_class))
    raise UnimplementedError(f"StructuredValue of kind '{kind}' is not supported")


def _children(value):
    if isinstance(value, dict):
        return [(k, value[k]) for k in sorted(value)]
    if isinstance(value, list | tuple):
        return list(enumerate(value))
    return None


def flatten(value, path=()) -> list[tuple[tuple, object]]:
    """(path, leaf) pairs in ``tf.nest.flatten`` order."""
    children = _children(value)
    if children is None:
        return [(path, value)]
    return [pair for key, child in children for pair in flatten(child, (*path, key))]


def pack_as(structure, tensors: list):
    """``structure`` with its TensorSpec leaves replaced by ``tensors``, in flatten order."""
    it = iter(tensors)

    def build(value):
        children = _children(value)
        if children is None:
            return next(it) if isinstance(value, TensorSpec) else value
        if isinstance(value, dict):
            return {k: build(v) for k, v in children}
        built = [build(v) for _, v in children]
        if isinstance(value, NamedTuple):
            return NamedTuple.make(value.name, value.keys, built)
        return type(value)(built) if isinstance(value, tuple) else built

    return build(structure)
