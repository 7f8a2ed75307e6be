"""TensorFlow's ``OpDef`` of each tinytf op, built from the op class, and the typing attributes of a node.

    op_def("MatMul")             # OpDef(name="MatMul", input_arg=[a: T, b: T], output_arg=[product: T],
                                 #       attr=[transpose_a: bool = false, ..., T: type])
    typing, layout = node_typing(signature("MatMul"), [f32, f32], [f32], {}, "@main, op 1")
                                 # {"T": tt.float32}; [("product", 0, 1)]: each output argument's offset, length

What TensorFlow needs of a NodeDef beyond the op's own attributes are the attributes its OpDef uses
to type and count the arguments: ``T``, ``Tidx``, ``N``, ``Tin`` / ``Tout``, ``dtype``, ... MLIR leaves
them out (they are in the types). The OpDef comes from the op class: its operands and results are
TensorFlow's arguments (field names are TensorFlow's), its declared attributes TensorFlow's, with
their kinds as attribute types. How each argument is typed is the one thing the class does not say:
by default every argument is typed by the attribute ``T`` (a variadic one ``N * T``), and
``op_def_args.py`` lists each op whose arguments differ (a fixed dtype, another type attribute, a
count or a type list), in TensorFlow's terms, and the whole argument list of the few ops whose fields
are not TensorFlow's. ``stripped_op_list`` writes these OpDefs into a MetaGraphDef.

Attributes that exist only in TensorFlow's MLIR (``is_stateless``, ``shape_invariant``) are not
attributes of the OpDef; ``tf.If`` / ``tf.While`` / ``tf.Case`` with ``is_stateless`` are TensorFlow's
``StatelessIf`` / ``StatelessWhile`` / ``StatelessCase`` (``graph_op_name``).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import tinytf.dtypes as dtypes
from tinytf.errors import InternalError, InvalidArgumentError, UnimplementedError
from tinytf.formats.op_def_args import ARGS, EXTRA, SIGNATURES
from tinytf.framework import tf_types
from tinytf.framework.attributes import REQUIRED
from tinytf.framework.op import REGISTRY, tf_name

# Attributes of TensorFlow's MLIR, not of its OpDefs; attributes a tinytf class declares that
# TensorFlow's op lacks (dropped when they hold their default).
MLIR_ONLY_ATTRS = frozenset({"is_stateless", "shape_invariant"})
_NOT_IN_TF = {"MaxPoolGradGrad": frozenset({"explicit_paddings"})}
# Ops tinytf orders as side effects whose OpDef TensorFlow does not mark stateful (ref-variable
# updates work through their ref operands; parsing and defaults have no state).
_NOT_STATEFUL = frozenset({"ApplyAdam", "ApplyGradientDescent", "ApplyMomentum", "Assign", "AssignAdd",
                           "AssignSub", "ParseExample", "ParseExampleV2", "PlaceholderWithDefault", "XlaAllReduce"})
_STATELESS_FORM = {"If": "StatelessIf", "While": "StatelessWhile", "Case": "StatelessCase"}
STATELESS_FORMS = frozenset(_STATELESS_FORM.values())
# Ops of TensorFlow's MLIR that are no TensorFlow op: a tf.LegacyCall is a node whose op is its callee.
MLIR_ONLY_OPS = frozenset({"LegacyCall"})

_KIND_TYPES = {"bool": "bool", "int": "int", "float": "float", "str": "string", "ints": "list(int)",
               "floats": "list(float)", "strs": "list(string)", "type": "type", "types": "list(type)",
               "shape": "shape", "shapes": "list(shape)", "func": "func", "tensor": "tensor"}
_ANY_KIND_TYPES = {"branches": "list(func)"}


@dataclass(frozen=True)
class Arg:
    """One OpDef argument: ``dtype`` (fixed), or ``type_attr``, or ``type_list_attr``; ``number_attr``
    counts a list of ``type_attr`` / ``dtype`` tensors."""

    name: str
    dtype: dtypes.DType | None = None
    type_attr: str = ""
    number_attr: str = ""
    type_list_attr: str = ""

    @property
    def is_list(self) -> bool:
        return bool(self.number_attr or self.type_list_attr)


@dataclass(frozen=True)
class Signature:
    """TensorFlow's view of one op: its name, arguments, attributes (name, type, default) and statefulness."""

    name: str
    inputs: tuple[Arg, ...]
    outputs: tuple[Arg, ...]
    attrs: tuple[tuple[str, str, object], ...]
    stateful: bool


def _arg(name: str, text: str) -> Arg:
    if text.endswith("[]"):
        return Arg(name, type_list_attr=text[:-2])
    number, _, text = text.rpartition("*")
    try:
        dtype = dtypes.as_dtype(text) if text[:1].islower() else None
    except InvalidArgumentError:
        dtype = None
    if dtype is not None:
        return Arg(name, dtype=dtype, number_attr=number)
    return Arg(name, type_attr=text, number_attr=number)


def _parse_list(text: str) -> list[Arg]:
    out = []
    for token in text.split():
        name, _, kind = token.partition(":")
        out.append(_arg(name, kind))
    return out


def graph_op_name(op_or_name, attrs: dict | None = None) -> str:
    """TensorFlow's op type of an MLIR op (``tf.If`` with ``is_stateless`` is ``StatelessIf``)."""
    name = op_or_name if isinstance(op_or_name, str) else op_or_name.name
    short = name[3:] if name.startswith("tf.") else name
    if short in _STATELESS_FORM and attrs is not None and attrs.get("is_stateless"):
        return _STATELESS_FORM[short]
    return short


@functools.cache
def signature(op_type: str) -> Signature:
    """TensorFlow's typing of ``op_type`` (``"MatMul"``); UnimplementedError when tinytf has no such op."""
    if op_type in MLIR_ONLY_OPS:
        raise UnimplementedError(f"tf.{op_type} is no TensorFlow op: it has no OpDef")
    if op_type in EXTRA:
        args, attrs, stateful = EXTRA[op_type]
        ins, _, outs = args.partition("->")
        return Signature(op_type, tuple(_parse_list(ins)), tuple(_parse_list(outs)), tuple(attrs), stateful)
    cls = REGISTRY.get("tf." + op_type)
    if cls is None:
        raise UnimplementedError(f"tinytf has no op tf.{op_type}: it cannot write its OpDef")
    from xdsl.irdl import VarOperandDef, VarResultDef
    from xdsl.traits import Pure

    definition = cls.get_irdl_definition()
    if op_type in SIGNATURES:
        ins, _, outs = SIGNATURES[op_type].partition("->")
        inputs, outputs = _parse_list(ins), _parse_list(outs)
    else:
        overrides = {arg.name: arg for arg in _parse_list(ARGS.get(op_type, ""))}
        inputs = [overrides.get(tf_name(k)) or _default(tf_name(k), isinstance(d, VarOperandDef))
                  for k, d in definition.operands]
        outputs = [overrides.get(tf_name(k)) or _default(tf_name(k), isinstance(d, VarResultDef))
                   for k, d in definition.results]
        unused = set(overrides) - {a.name for a in inputs + outputs}
        if unused:
            raise InternalError(f"op_def_args.py types argument(s) {sorted(unused)} of tf.{op_type}, which has none "
                                "of that name")
    attrs, seen = [], set()
    dropped = MLIR_ONLY_ATTRS | _NOT_IN_TF.get(op_type, frozenset())
    for key, spec in cls.attr_specs().items():
        if key in dropped or spec.kind == "unit" or key.startswith("_"):  # (``_XlaSharding``: a node's, not the op's)
            continue
        kind = attr_type(key, spec)
        if kind is None:
            continue
        default = None if spec.default is REQUIRED or spec.default is None else spec.default
        if spec.derived and default == ():  # (a type list the operands give: TensorFlow has no default)
            default = None
        attrs.append((key, kind, default))
        seen.add(key)
    for arg in list(inputs) + list(outputs):
        if arg.number_attr and arg.number_attr not in seen:
            attrs.append((arg.number_attr, "int", None))
            seen.add(arg.number_attr)
        for key, kind in ((arg.type_attr, "type"), (arg.type_list_attr, "list(type)")):
            if key and key not in seen:
                attrs.append((key, kind, None))
                seen.add(key)
    stateful = not cls.has_trait(Pure) and op_type not in _NOT_STATEFUL
    return Signature(op_type, tuple(inputs), tuple(outputs), tuple(attrs), stateful)


def attr_type(key: str, spec) -> str | None:
    """TensorFlow's attribute type (``"bool"``, ``"list(int)"``, ...) of a tinytf attribute, or None."""
    return _ANY_KIND_TYPES.get(key) if spec.kind == "any" else _KIND_TYPES.get(spec.kind)


def _default(name: str, variadic: bool) -> Arg:
    return Arg(name, type_attr="T", number_attr="N" if variadic else "")


# --- a node's typing attributes ------------------------------------------------------------------

def tf_dtype(type_, what: str) -> dtypes.DType:
    """The dtype of an MLIR type (``tensor<2xf32>`` -> float32); InvalidArgumentError naming ``what``
    when its element type has no TensorFlow DataType (``index``, ``f8E4M3FN``, ``i7``)."""
    try:
        return tf_types.dtype_of(type_)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"{what}: {err.message} (TensorFlow's GraphDef has no such DataType)") from None


def _split(args, types: list, counts: dict, what: str) -> list[list]:
    """The flat ``types`` cut into one list per argument; a list argument whose length is not in
    ``counts`` (a count or type list the node does not give) takes what the others leave."""
    sizes, unknown = [], []
    for i, arg in enumerate(args):
        if not arg.is_list:
            sizes.append(1)
        elif arg.number_attr and counts.get(arg.number_attr) is not None:
            sizes.append(int(counts[arg.number_attr]))
        elif arg.type_list_attr and counts.get(arg.type_list_attr) is not None:
            sizes.append(len(counts[arg.type_list_attr]))
        else:
            sizes.append(None)
            unknown.append(i)
    known = sum(s for s in sizes if s is not None)
    if len(unknown) > 1 or known > len(types) or (not unknown and known != len(types)):
        raise InvalidArgumentError(f"{what}: cannot match {len(types)} values to TensorFlow's arguments "
                                   f"{', '.join(a.name for a in args)}")
    if unknown:
        sizes[unknown[0]] = len(types) - known
    out, at = [], 0
    for size in sizes:
        out.append(types[at:at + size])
        at += size
    return out


def node_typing(sig: Signature, operand_types: list, result_types: list, attrs: dict, what: str) -> tuple[dict, list]:
    """The typing attributes (type, count and type-list attributes) of a node of ``sig`` with these
    operand and result types, given its other ``attrs``; and each output argument's (name, offset,
    length). InvalidArgumentError when the types disagree with the OpDef."""
    out: dict = {}

    def setting(key, value):
        if key in out and out[key] != value:
            raise InvalidArgumentError(f"{what}: TensorFlow's attribute {key} would be both {_show(out[key])} and "
                                       f"{_show(value)}")
        out[key] = value

    counts = {**attrs}
    layouts = []
    for args, types, is_output in ((sig.inputs, operand_types, False), (sig.outputs, result_types, True)):
        groups = _split(args, [tf_dtype(t, what) for t in types], counts, what)
        at = 0
        for arg, group in zip(args, groups):
            if arg.number_attr:
                setting(arg.number_attr, len(group))
                counts[arg.number_attr] = len(group)
            if arg.type_list_attr:
                setting(arg.type_list_attr, tuple(group))
                counts[arg.type_list_attr] = tuple(group)
            elif arg.type_attr:
                for dtype in group:
                    setting(arg.type_attr, dtype)
            elif arg.dtype is not None:
                for dtype in group:
                    if dtype is not arg.dtype:
                        raise InvalidArgumentError(f"{what}: argument {arg.name} must be {arg.dtype.name}, "
                                                   f"got {dtype.name}")
            if is_output:
                layouts.append((arg.name, at, len(group)))
            at += len(group)
    return out, layouts


def _show(value) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return value.name if isinstance(value, dtypes.DType) else str(value)


# --- OpDef protos --------------------------------------------------------------------------------

def op_def(op_type: str):
    """The OpDef proto of ``op_type`` (TensorFlow's op name, ``"MatMul"``)."""
    from tinytf.formats import protos, tensor_proto

    sig = signature(op_type)
    proto = protos.op_def_pb2.OpDef(name=sig.name, is_stateful=sig.stateful)
    for args, field in ((sig.inputs, proto.input_arg), (sig.outputs, proto.output_arg)):
        for arg in args:
            a = field.add(name=arg.name, type_attr=arg.type_attr, number_attr=arg.number_attr,
                          type_list_attr=arg.type_list_attr)
            if arg.dtype is not None:
                a.type = tensor_proto.enum_of(arg.dtype)
    for name, kind, default in sig.attrs:
        attr = proto.attr.add(name=name, type=kind)
        if default == "unknown" and kind == "shape":
            attr.default_value.shape.unknown_rank = True
        elif default is not None:
            attr.default_value.CopyFrom(attr_value(kind, default))
    return proto


def stripped_op_list(op_types):
    """An OpList of the OpDefs of ``op_types``, sorted by name (a MetaGraphDef's ``stripped_op_list``)."""
    from tinytf.formats import protos

    out = protos.op_def_pb2.OpList()
    for name in sorted(set(op_types)):
        out.op.add().CopyFrom(op_def(name))
    return out


# --- attribute values ----------------------------------------------------------------------------

def _shape_proto(shape):
    from tinytf.formats import tensor_proto

    return tensor_proto.shape_to_proto(None if shape is None else tuple(shape))


def attr_value(kind: str, value):
    """An AttrValue of TensorFlow's attribute type ``kind`` (``"bool"``, ``"list(int)"``, ``"type"``...)
    holding a Python value (tinytf's attribute values: dtypes, shapes as tuples, arrays for tensors)."""
    from tinytf.formats import protos, tensor_proto

    out = protos.attr_value_pb2.AttrValue()
    if kind == "bool":
        out.b = bool(value)
    elif kind == "int":
        out.i = int(value)
    elif kind == "float":
        out.f = float(value)
    elif kind == "string":
        out.s = value if isinstance(value, bytes) else str(value).encode()
    elif kind == "type":
        out.type = tensor_proto.enum_of(value)
    elif kind == "shape":
        out.shape.CopyFrom(_shape_proto(value))
    elif kind == "func":
        out.func.name = value
    elif kind == "tensor":
        out.tensor.CopyFrom(tensor_value(value))
    elif kind == "list(int)":
        out.list.i.extend(int(v) for v in value)
        out.list.SetInParent()
    elif kind == "list(float)":
        out.list.f.extend(float(v) for v in value)
        out.list.SetInParent()
    elif kind == "list(string)":
        out.list.s.extend(v if isinstance(v, bytes) else str(v).encode() for v in value)
        out.list.SetInParent()
    elif kind == "list(type)":
        out.list.type.extend(tensor_proto.enum_of(v) for v in value)
        out.list.SetInParent()
    elif kind == "list(shape)":
        for s in value:
            out.list.shape.add().CopyFrom(_shape_proto(s))
        out.list.SetInParent()
    elif kind == "list(func)":
        for name in value:
            out.list.func.add(name=name)
        out.list.SetInParent()
    else:
        raise UnimplementedError(f"cannot write an attribute of type {kind}")
    return out


# TensorProto fields that hold one value repeated over the shape (TensorFlow's splat form).
_SPLAT_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val", "int16": "int_val",
                 "int8": "int_val", "uint8": "int_val", "uint16": "int_val", "int64": "int64_val",
                 "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val"}


def tensor_value(array):
    """A TensorProto of ``array``; a splat (one value broadcast, as MLIR stores ``dense<0.0>``) is one
    value in the typed field, which TensorFlow repeats over the shape."""
    import numpy as np

    from tinytf.formats import tensor_proto

    array = np.asarray(array) if not isinstance(array, np.ndarray) else array
    dtype = dtypes.as_dtype(array.dtype) if array.dtype.kind != "O" else dtypes.string
    field = _SPLAT_FIELDS.get(dtype.name)
    if field is not None and array.size > 1 and all(s == 0 for s in array.strides):
        proto = tensor_proto.from_numpy(np.zeros((), dtype.np), dtype)
        proto.ClearField("tensor_content")
        proto.tensor_shape.CopyFrom(_shape_proto(array.shape))
        getattr(proto, field).append(array.reshape(-1)[0].item())
        return proto
    return tensor_proto.from_numpy(array, dtype)
