"""TensorFlow op attributes: declared on an op class with ``attr(...)``, stored in the IR as
MLIR properties, handed to kernels as plain Python values.

    class MatMul(Op):
        transpose_a = attr(False)          # prints <{transpose_a = false, ...}>
        padding = attr(kind="str")          # required: no default

Kinds and their Python values: bool, unit (bool: present or not), int, float, str, ints (tuple[int]), floats, strs,
type (DType), types (tuple[DType]), shape (tuple | None), func (symbol name: str),
tensor (numpy array), any (the raw attribute).

A splat constant (``dense<0.0> : tensor<4096x4096xf32>``) is stored as MLIR stores it, one element
for the whole tensor, and reaches a kernel as a read-only ``np.broadcast_to`` view: it costs memory
only where a kernel's output does, and the allocation guard sees its full size when it is used.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import opt_prop_def

import tinytf.dtypes as dtypes
from tinytf.dtypes import DType
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.string_elements import DenseStringElementsAttr

REQUIRED = object()


@dataclass(frozen=True)
class AttrSpec:
    """What an op attribute is: its kind and its default (``REQUIRED`` when it has none)."""

    name: str
    kind: str
    default: object = REQUIRED
    derived: bool = False  # not printed: TensorFlow derives it from operand or result types


def _kind_of(default) -> str:
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, str):
        return "str"
    if isinstance(default, DType):
        return "type"
    if isinstance(default, tuple | list):
        return "floats" if any(isinstance(v, float) for v in default) else "ints"
    raise TypeError(f"attr(): give kind= for a default of type {type(default).__name__}")


def attr(default=REQUIRED, kind: str | None = None):
    """Declare a TensorFlow attribute, stored as an optional MLIR property."""
    kind = kind or _kind_of(default)
    field = opt_prop_def(Attribute)
    field.tinytf_attr = (kind, default)  # read by framework.op.register
    return field


class derived(property):
    """A TensorFlow attribute MLIR derives from types (``DstT`` of Cast, ``num`` of Unpack).

    It is passed to ``bind`` like any attribute; on an IR op it is read off the op's types:

        DstT = derived("type", lambda op: tf_types.dtype_of(op.results[0].type))
    """

    def __init__(self, kind: str, getter, default=REQUIRED):
        super().__init__(getter)
        self.tinytf_derived = (kind, default)


# --- MLIR attribute -> Python ------------------------------------------------------------------

def to_python(kind: str, value: Attribute, where: str = "attribute"):
    """The Python value of an attribute of the given kind; InvalidArgumentError when it does not fit
    (ResourceExhaustedError for a splat tensor over the allocation limit, outside ``verifying()``)."""
    if kind == "tensor" and isinstance(value, tf_types.TensorProtoAttr):
        return tensor_proto_to_numpy(value, where.split(" attribute ", 1)[0])  # (its errors say what is wrong)
    try:
        if kind == "tensor":
            return dense_to_numpy(value, where.split(" attribute ", 1)[0])  # (Op.attr_values' "tf.X attribute 'k'")
        return _TO_PYTHON[kind](value)
    except (AttributeError, TypeError, ValueError, KeyError, InvalidArgumentError):
        raise InvalidArgumentError(f"{where}: expected a {kind} attribute, got {value}") from None


def _int(v):
    if not isinstance(v, IntegerAttr):
        raise TypeError
    return int(v.value.data)


def _bool(v):
    if not isinstance(v, IntegerAttr) or v.type.width.data != 1:
        raise TypeError
    return v.value.data != 0


def _float(v):
    if isinstance(v, FloatAttr):
        return float(v.value.data)
    return float(_int(v))


def _str(v):
    if isinstance(v, BytesAttr):  # a string attribute that is not UTF-8 (a serialized ConfigProto): its bytes
        return v.data
    if not isinstance(v, StringAttr):
        raise TypeError
    return v.data


def _array(v):
    if isinstance(v, DenseArrayBase):
        return v.get_values()
    if not isinstance(v, ArrayAttr):
        raise TypeError
    return v.data


def _dtype(v):
    if not isinstance(v, TypeAttribute):
        raise TypeError
    return tf_types.dtype_from_element_type(v)


def _shape(v):
    if isinstance(v, tf_types.ShapeAttr):
        return v.shape
    return tuple(None if d < 0 else d for d in (int(x) if not isinstance(x, Attribute) else _int(x)
                                                 for x in _array(v)))


def _func(v):
    if not isinstance(v, SymbolRefAttr):
        raise TypeError
    return v.root_reference.data


_TO_PYTHON = {
    "bool": lambda v: bool(_bool(v)),
    "unit": lambda v: isinstance(v, UnitAttr) or bool(_int(v)),
    "int": _int,
    "float": _float,
    "str": _str,
    "ints": lambda v: tuple(x if isinstance(x, int) else _int(x) for x in _array(v)),
    "floats": lambda v: tuple(x if isinstance(x, float) else _float(x) for x in _array(v)),
    "strs": lambda v: tuple(_str(x) for x in _array(v)),
    "type": _dtype,
    "types": lambda v: tuple(_dtype(x) for x in _array(v)),
    "shape": _shape,
    "shapes": lambda v: tuple(_shape(x) for x in _array(v)),
    "func": _func,
    "tensor": lambda v: dense_to_numpy(v),  # (to_python passes the op name)
    "any": lambda v: v,
}


# --- Python -> MLIR attribute ------------------------------------------------------------------

def from_python(kind: str, value) -> Attribute:
    """The MLIR attribute TensorFlow prints for a Python attribute value of the given kind."""
    return _FROM_PYTHON[kind](value)


_FROM_PYTHON = {
    "bool": lambda v: IntegerAttr.from_bool(bool(v)),
    "unit": lambda v: UnitAttr() if v else None,
    "int": lambda v: IntegerAttr(int(v), i64),
    "float": lambda v: FloatAttr(float(v), f32),
    "str": lambda v: BytesAttr(v) if isinstance(v, bytes) else StringAttr(str(v)),
    "ints": lambda v: ArrayAttr([IntegerAttr(int(x), i64) for x in v]),
    "floats": lambda v: ArrayAttr([FloatAttr(float(x), f32) for x in v]),
    "strs": lambda v: ArrayAttr([StringAttr(str(x)) for x in v]),
    "type": lambda v: tf_types.element_type_from_dtype(dtypes.as_dtype(v)),
    "types": lambda v: ArrayAttr([tf_types.element_type_from_dtype(dtypes.as_dtype(x)) for x in v]),
    "shape": lambda v: tf_types.ShapeAttr(None if v is None else tuple(v)),
    "shapes": lambda v: ArrayAttr([tf_types.ShapeAttr(None if s is None else tuple(s)) for s in v]),
    "func": lambda v: SymbolRefAttr(v),
    "tensor": lambda v: numpy_to_dense(np.asarray(v)),
    "any": lambda v: v,
}


# --- dense constants <-> numpy -----------------------------------------------------------------

_VERIFYING = contextvars.ContextVar("tinytf_verifying", default=False)


@contextlib.contextmanager
def verifying():
    """Within it, a splat tensor attribute converts without the allocation guard: checking that a
    constant is well formed must not refuse one that only running it would materialise.

        with attributes.verifying():
            module.verify()
    """
    token = _VERIFYING.set(True)
    try:
        yield
    finally:
        _VERIFYING.reset(token)


def is_splat(value: DenseIntOrFPElementsAttr) -> bool:
    """Whether a ``dense<...>`` is stored as a splat: one element's bytes for a type of many."""
    return (len(value.data.data) == value.type.element_type.compile_time_size
            and math.prod(value.type.get_shape()) > 1)


def splat_dense(type_, element: bytes) -> DenseIntOrFPElementsAttr:
    """The splat ``dense<x> : type_`` from one element's bytes (xDSL prints it ``dense<x>``)."""
    return DenseIntOrFPElementsAttr(type_, BytesAttr(element))


def dense_to_numpy(value: Attribute, op_name: str = "dense constant") -> np.ndarray:
    """A read-only numpy view of a ``dense<...>`` constant's bytes (no Python lists); a splat is a
    broadcast view of its one element, refused over the allocation limit (except in ``verifying()``)."""
    if isinstance(value, DenseStringElementsAttr):
        return value.to_numpy()
    if isinstance(value, tf_types.TensorProtoAttr):
        return tensor_proto_to_numpy(value, op_name)
    if not isinstance(value, DenseIntOrFPElementsAttr):
        raise TypeError
    dtype = tf_types.dtype_of(value.type)
    shape = tuple(value.type.get_shape())
    raw = value.data.data
    if is_splat(value):
        if not _VERIFYING.get():
            from tinytf.framework.kernel import check_allocation  # (kernel -> variables -> op -> here)

            check_allocation(op_name, shape, dtype)
        if dtype.is_bool:
            raw = b"\x01" if raw != b"\x00" else b"\x00"
        # a view of immutable bytes: no kernel can write through it, nor flip it writable
        return np.broadcast_to(np.frombuffer(raw, dtype.np).reshape(()), shape)
    if dtype.is_bool:
        return np.frombuffer(raw, np.uint8).astype(np.bool_).reshape(shape)
    return np.frombuffer(raw, dtype.np).reshape(shape)


# TensorProto -> numpy, installed by tinytf.formats.tensor_proto (TensorFlow's formats sit above the
# framework in the layer order; ``import tinytf`` installs it).
tensor_proto_decoder = None


def tensor_proto_to_numpy(value: tf_types.TensorProtoAttr, op_name: str = "dense constant"):
    """The array a ``#tf_type<tensor_proto : "0x...">`` holds: its bytes are ``tftensor$`` and a
    TensorProto in text form (TensorFlow's mangling), or a binary TensorProto. In ``verifying()`` it
    is taken as it is, as TensorFlow's verifiers take it (an opaque constant of its type)."""
    if _VERIFYING.get():
        return value
    try:
        array = tensor_proto_decoder(bytes.fromhex(value.hex.data[2:]), op_name)
    except Exception as err:  # a malformed proto is bad input, reported as such
        raise InvalidArgumentError(f"{op_name}: cannot decode #tf_type<tensor_proto ...>: {err}") from None
    if tuple(array.shape) != tuple(value.type.get_shape()):
        raise InvalidArgumentError(f"{op_name}: the tensor proto holds shape {list(array.shape)}, its type says "
                                   f"{value.type}")
    return array


def numpy_to_dense(array: np.ndarray, dtype: DType | None = None) -> DenseIntOrFPElementsAttr:
    """The ``dense<...>`` of an array; a broadcast view of one value (all strides 0) stays a splat."""
    dtype = dtype or dtypes.as_dtype(array.dtype)
    if dtype is dtypes.string:
        return DenseStringElementsAttr.from_numpy(array)
    if not dtype.is_numeric and not dtype.is_bool:
        raise InvalidArgumentError(f"cannot store a {dtype.name} tensor as a dense constant")
    array = np.asarray(array, dtype=dtype.np)  # (np.ascontiguousarray would make a scalar 1-D)
    type_ = tf_types.tensor_type(array.shape, dtype)
    if array.size > 1 and all(s == 0 for s, n in zip(array.strides, array.shape) if n > 1):
        one = array[(0,) * array.ndim]  # (the one element: the whole is never copied)
        return splat_dense(type_, np.asarray(one, np.uint8 if dtype.is_bool else dtype.np).tobytes())
    raw = array.astype(np.uint8).tobytes() if dtype.is_bool else array.tobytes()
    return DenseIntOrFPElementsAttr(type_, BytesAttr(raw))
