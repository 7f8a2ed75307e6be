"""What a NodeDef means to tinytf: its op's output arguments, and its attributes as op properties.

    layout = output_layout(node, op_def, op_cls)      # [("z", [tt.float32])], or for ParseExampleV2
                                                      # [("sparse_indices", []), ..., ("dense_values", [f32, f32])]
    attrs, dropped = node_attrs(node, op_cls, op_def)  # {"transpose_a": False, ...} for the op class

A FunctionDef names its inputs ``node:out_arg:idx`` (``Mul:z:0``, ``ParseExampleV2:dense_values:1``):
the output argument's offset in the op's flat result list comes from TensorFlow's OpDef -- the
SavedModel's ``meta_info_def.stripped_op_list`` -- or, without one, from the result definitions of
tinytf's op class (their field names are TensorFlow's argument names).

Attributes: the op class declares the ones it keeps (``attr(...)``, properties in the IR) and the
ones MLIR derives from types (``derived``: passed to the shape rule, never printed). A NodeDef
attribute the class does not declare is dropped when it is TensorFlow-internal (``_output_shapes``,
``_class``), a type or type list (``T``, ``Tshape``), a count the OpDef uses for an argument (``N``),
its OpDef default, or an empty value; any other one is an UnimplementedError naming it, since
tinytf could not honour it.
"""
from __future__ import annotations

import re

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr, SymbolRefAttr, UnitAttr, f32, i64

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.formats import tensor_proto
from tinytf.framework import attributes, tf_types
from tinytf.framework.attributes import REQUIRED
from tinytf.framework.op import tf_name

# Attributes with no meaning to tinytf's engines: session configuration bytes (not UTF-8), executor
# hints, and the name TF 2.x records on a variable's handle for its debugger (VarHandleOp's debug_name).
IGNORED_ATTRS = frozenset({"config_proto", "executor_type", "config", "debug_name"})


def _shape(proto):
    shape = tensor_proto.shape_from_proto(proto)
    return None if shape is None else tuple(None if d < 0 else d for d in shape)


def _str(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgumentError(f"{where}: the string attribute is not UTF-8 ({data[:16]!r}...)") from None


def python_value(kind: str, value, where: str):
    """An AttrValue as the Python value of an attribute of ``kind`` (framework.attributes' kinds)."""
    field = value.WhichOneof("value")
    lst = value.list
    try:
        if kind in ("bool", "unit"):
            return bool(value.b)
        if kind == "int":
            return int(value.i)
        if kind == "float":
            return float(value.f)
        if kind == "str":
            return _str(value.s, where)
        if kind == "type":
            return tensor_proto.dtype_from_enum(value.type)
        if kind == "shape":
            return _shape(value.shape)
        if kind == "func":
            return value.func.name
        if kind == "tensor":
            return tensor_proto.to_numpy(value.tensor, where)
        if kind == "ints":
            return tuple(int(i) for i in lst.i)
        if kind == "floats":
            return tuple(float(f) for f in lst.f)
        if kind == "strs":
            return tuple(_str(s, where) for s in lst.s)
        if kind == "types":
            return tuple(tensor_proto.dtype_from_enum(t) for t in lst.type)
        if kind == "shapes":
            return tuple(_shape(s) for s in lst.shape)
        if kind == "any":
            return mlir_attr(value, where)
    except (ValueError, TypeError) as err:
        raise InvalidArgumentError(f"{where}: expected a {kind} attribute, got {field} ({err})") from None
    raise UnimplementedError(f"{where}: attributes of kind '{kind}' cannot be imported")


def mlir_attr(value, where: str):
    """An AttrValue as the MLIR attribute TensorFlow's importer writes, guessing the kind from the
    field that is set (for attributes no op class declares: unregistered ops, ``any`` kinds)."""
    field = value.WhichOneof("value")
    if field == "s":
        return StringAttr(_str(value.s, where))
    if field == "i":
        return IntegerAttr(int(value.i), i64)
    if field == "f":
        return FloatAttr(float(value.f), f32)
    if field == "b":
        return IntegerAttr.from_bool(bool(value.b))
    if field == "type":
        return tf_types.element_type_from_dtype(tensor_proto.dtype_from_enum(value.type))
    if field == "shape":
        return tf_types.ShapeAttr(_shape(value.shape))
    if field == "tensor":
        return attributes.numpy_to_dense(tensor_proto.to_numpy(value.tensor, where))
    if field == "func":
        return SymbolRefAttr(value.func.name)
    if field == "list":
        lst = value.list
        if lst.func:
            return ArrayAttr([SymbolRefAttr(f.name) for f in lst.func])
        if lst.type:
            return ArrayAttr([tf_types.element_type_from_dtype(tensor_proto.dtype_from_enum(t)) for t in lst.type])
        if lst.shape:
            return ArrayAttr([tf_types.ShapeAttr(_shape(s)) for s in lst.shape])
        if lst.s:
            return ArrayAttr([StringAttr(_str(s, where)) for s in lst.s])
        if lst.f:
            return ArrayAttr([FloatAttr(float(f), f32) for f in lst.f])
        if lst.b:
            return ArrayAttr([IntegerAttr.from_bool(bool(b)) for b in lst.b])
        return ArrayAttr([IntegerAttr(int(i), i64) for i in lst.i])
    if field is None:
        return UnitAttr()  # (an AttrValue with nothing set, as TF's importer reads it)
    raise UnimplementedError(f"{where}: cannot import an attribute holding '{field}'")


def _is_empty(value) -> bool:
    field = value.WhichOneof("value")
    if field is None:
        return True
    if field == "list":
        lst = value.list
        return not any((lst.s, lst.i, lst.f, lst.b, lst.type, lst.shape, lst.tensor, lst.func))
    return field in ("s", "i", "f", "b") and not getattr(value, field)


def _is_type_like(value) -> bool:
    """A dtype or a list of dtypes or shapes (T, Tout, output_shapes): facts about the results' types,
    which tinytf infers."""
    field = value.WhichOneof("value")
    return field == "type" or (field == "list" and (len(value.list.type) > 0 or len(value.list.shape) > 0))


def _op_def_roles(op_def) -> set[str]:
    """The attributes an OpDef uses to size or type its arguments (N, T, Tout, ...)."""
    roles = set()
    for arg in list(op_def.input_arg) + list(op_def.output_arg):
        roles.update(a for a in (arg.number_attr, arg.type_attr, arg.type_list_attr) if a)
    return roles


def node_attrs(node, op_cls, op_def=None, where: str = "", keep: dict | None = None) -> dict:
    """The Python attribute values (declared and derived) of ``node`` for ``op_cls``, defaults from the
    OpDef where the class has none; UnimplementedError for an attribute tinytf cannot honour, unless
    ``keep`` is given: it then gets them as MLIR attributes (to print, as TF's importer does)."""
    specs = op_cls.attr_specs()
    defaults = {a.name: a.default_value for a in op_def.attr if a.HasField("default_value")} if op_def else {}
    roles = _op_def_roles(op_def) if op_def else set()
    out, unsupported = {}, []
    for key in sorted(node.attr):
        value = node.attr[key]
        spec = specs.get(key)
        if key in IGNORED_ATTRS:
            continue
        if spec is not None:
            out[key] = python_value(spec.kind, value, f"{where}attribute '{key}'")
        elif key.startswith("_") or _is_type_like(value) or key in roles \
                or _is_empty(value) or (key in defaults and defaults[key] == value):
            continue
        elif keep is not None:
            keep[key] = mlir_attr(value, f"{where}attribute '{key}'")
        else:
            unsupported.append(f"{key}={_short(value)}")
    if unsupported:
        raise UnimplementedError(f"{where}tinytf's {op_cls.name} has no attribute {', '.join(unsupported)}",
                                 op_cls.name)
    for key, spec in specs.items():  # a required attribute the NodeDef leaves to its OpDef default
        if key not in out and spec.default is REQUIRED and key in defaults:
            out[key] = python_value(spec.kind, defaults[key], f"{where}attribute '{key}'")
    return out


def _short(value) -> str:
    from google.protobuf import text_format

    text = text_format.MessageToString(value, as_one_line=True)
    return text if len(text) <= 60 else text[:57] + "..."


# --- output arguments ----------------------------------------------------------------------------

def _arg_dtypes(arg, node, op_def) -> list:
    """The dtypes of one OpDef output argument of ``node`` (None where they cannot be told)."""
    defaults = {a.name: a.default_value for a in op_def.attr if a.HasField("default_value")}

    def attr(name):
        if name in node.attr:
            return node.attr[name]
        return defaults.get(name)

    if arg.type_list_attr:
        value = attr(arg.type_list_attr)
        return [tensor_proto.dtype_from_enum(t) for t in value.list.type] if value is not None else []
    if arg.type_attr:
        value = attr(arg.type_attr)
        dtype = tensor_proto.dtype_from_enum(value.type) if value is not None and value.type else None
    else:
        dtype = tensor_proto.dtype_from_enum(arg.type) if arg.type else None
    count = 1
    if arg.number_attr:
        value = attr(arg.number_attr)
        count = int(value.i) if value is not None else 0
    return [dtype] * count


# Attributes that size a tinytf op's variadic results when no OpDef is at hand.
_COUNT_ATTRS = ("num_split", "num", "N")
_TYPE_LIST_ATTRS = ("Tout", "T", "dtypes", "output_types", "Tdense")


# Ops TensorFlow's importer types by their own attributes (ImporterBase::InferOutputType): output
# argument, the attribute listing the shapes, the one listing the dtypes (one shape and dtype: InfeedDequeue).
ATTR_TYPED_OUTPUTS = {"IteratorGetNext": ("components", "output_shapes", "output_types"),
                      "IteratorGetNextSync": ("components", "output_shapes", "output_types"),
                      "MultiDeviceIteratorGetNextFromShard": ("components", "output_shapes", "output_types"),
                      "InfeedDequeueTuple": ("outputs", "shapes", "dtypes"),
                      "InfeedDequeue": ("output", "shape", "dtype")}


def attr_typed_outputs(node) -> list[tuple] | None:
    """``[(shape, dtype)]`` of an op of ATTR_TYPED_OUTPUTS, from its attributes; None for other ops."""
    if node.op not in ATTR_TYPED_OUTPUTS:
        return None
    _, shapes_key, dtypes_key = ATTR_TYPED_OUTPUTS[node.op]
    if shapes_key not in node.attr or dtypes_key not in node.attr:
        return None
    if node.op == "InfeedDequeue":
        return [(_shape(node.attr[shapes_key].shape), tensor_proto.dtype_from_enum(node.attr[dtypes_key].type))]
    shapes = list(node.attr[shapes_key].list.shape)
    dtypes = list(node.attr[dtypes_key].list.type)
    return [(_shape(shapes[i]) if i < len(shapes) else None, tensor_proto.dtype_from_enum(t))
            for i, t in enumerate(dtypes)]


def output_layout(node, op_def=None, op_cls=None, used: int = 0) -> list[tuple[str, list]]:
    """``[(output argument name, [dtype or None per tensor])]`` of ``node``, from its OpDef, else from
    tinytf's op class; ``used`` (1 + the highest output index its consumers name) sizes what
    neither tells."""
    if op_def is not None:
        return [(arg.name, _arg_dtypes(arg, node, op_def)) for arg in op_def.output_arg]
    typed = attr_typed_outputs(node) if op_cls is None else None
    if typed is not None:
        return [(ATTR_TYPED_OUTPUTS[node.op][0], [dtype for _, dtype in typed])]
    if op_cls is None:
        shapes = node.attr["_output_shapes"].list.shape if "_output_shapes" in node.attr else ()
        return [("output", [None] * max(len(shapes), used))]
    results = op_cls.get_irdl_definition().results
    from xdsl.irdl import VarResultDef

    fixed = sum(1 for _, d in results if not isinstance(d, VarResultDef))
    layout = []
    for field, definition in results:
        if not isinstance(definition, VarResultDef):
            layout.append((tf_name(field), [None]))
            continue
        layout.append((tf_name(field), [None] * _variadic_count(node, fixed, used)))
    return layout


def _variadic_count(node, fixed: int, used: int) -> int:
    if "_output_shapes" in node.attr:
        return len(node.attr["_output_shapes"].list.shape) - fixed
    for key in _COUNT_ATTRS:
        if key in node.attr and node.attr[key].WhichOneof("value") == "i":
            return int(node.attr[key].i)
    for key in _TYPE_LIST_ATTRS:
        if key in node.attr and node.attr[key].WhichOneof("value") == "list":
            return len(node.attr[key].list.type)
    return max(used - fixed, 0)


def output_shapes(node) -> list:
    """The ``_output_shapes`` TensorFlow recorded for ``node`` (a shape or None per output), or []."""
    if "_output_shapes" not in node.attr:
        return []
    return [_shape(s) for s in node.attr["_output_shapes"].list.shape]


# --- devices -------------------------------------------------------------------------------------

_DEVICE_PART = re.compile(r"/(job|replica|task|device|cpu|CPU|gpu|GPU):")


def canonical_device(node) -> str:
    """``node.device`` as TensorFlow's importer writes it (DeviceNameUtils' parse, then print): legacy
    ``/cpu:0`` is ``/device:CPU:0``; a missing device type is CPU, a missing index 0.

        canonical_device(node)   # "/job:worker/gpu:1" -> "/job:worker/device:GPU:1"
    """
    text = node.device
    if not text:
        return ""
    parts, rest = {}, text
    while rest and rest != "/":
        m = _DEVICE_PART.match(rest)
        if m is None:
            raise InvalidArgumentError(f"Op tf.{node.op} has invalid device name: {text}")
        key, rest = m.group(1), rest[m.end():]
        end = len(rest) if "/" not in rest else rest.index("/")
        value, rest = rest[:end], rest[end:]
        if key == "device":
            kind, _, index = value.partition(":")
            parts["type"], parts["id"] = kind, index or "*"
        elif key.lower() in ("cpu", "gpu"):
            parts["type"], parts["id"] = key.upper(), value
        else:
            parts[key] = value
        if not all(v == "*" or v for v in parts.values()):
            raise InvalidArgumentError(f"Op tf.{node.op} has invalid device name: {text}")
    parts = {k: v for k, v in parts.items() if v != "*"}
    out = "".join(f"/{k}:{parts[k]}" for k in ("job", "replica", "task") if k in parts)
    return out + f"/device:{parts.get('type', 'CPU')}:{parts.get('id', '0')}"  # (the importer's defaults)
