"""The ``tf_type`` dialect (resource, variant, string and ref types; ``#tf_type.shape``,
``#tf_type.func``, ``#tf_type<tensor_proto ...>``) and the bridge between MLIR types and tinytf's
(shape, dtype) view of a tensor.

    !tf_res = tensor<*x!tf_type.resource<tensor<f32>>>   // a resource handle to an f32 scalar
    %r = "tf.VariableV2"() ... : () -> tensor<2x!tf_type.f32ref>   // a TF1 ref variable

A shape is a tuple of dims (``None`` for ``?``), or ``None`` when the rank is unknown.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerType,
    NoneAttr,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError as XdslParseError

import tinytf.dtypes as dtypes
from tinytf.dtypes import DType
from tinytf.errors import InvalidArgumentError

Shape = tuple[int | None, ...] | None


@dataclass(frozen=True, init=False)  # (so that ``subtypes`` is a field: compared, hashed)
class _TypeWithSubtypes(ParametrizedAttribute, TypeAttribute):
    """A type printed as ``!tf_type.NAME`` or ``!tf_type.NAME<tensor<...>, ...>``."""

    subtypes: ArrayAttr[Attribute]

    def __init__(self, subtypes: Sequence[Attribute] = ()):
        super().__init__(ArrayAttr(subtypes))

    def print_parameters(self, printer: Printer) -> None:
        if self.subtypes.data:
            with printer.in_angle_brackets():
                printer.print_list(self.subtypes.data, printer.print_attribute)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[ArrayAttr[Attribute]]:
        if parser.parse_optional_punctuation("<") is None:
            return (ArrayAttr(()),)
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(">")
        return (ArrayAttr(types),)


@irdl_attr_definition
class ResourceType(_TypeWithSubtypes):
    """``!tf_type.resource``: a handle to a variable; the subtype is the variable's tensor type."""

    name = "tf_type.resource"


@irdl_attr_definition
class VariantType(_TypeWithSubtypes):
    """``!tf_type.variant``: an opaque value (TensorList, dataset, ...)."""

    name = "tf_type.variant"


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    name = "tf_type.string"


@irdl_attr_definition
class ControlType(ParametrizedAttribute, TypeAttribute):
    name = "tf_type.control"


class RefType(ParametrizedAttribute, TypeAttribute):
    """A TF1 reference to a mutable tensor (``!tf_type.f32ref``); ``dtype`` is what it refers to."""

    @property
    def dtype(self) -> DType:
        return _REF_NAMES[self.name.removeprefix("tf_type.")]


_REF_NAMES = {
    "f32ref": dtypes.float32, "f64ref": dtypes.float64, "halfref": dtypes.float16,
    "bfloat16ref": dtypes.bfloat16, "int8ref": dtypes.int8, "int16ref": dtypes.int16,
    "int32ref": dtypes.int32, "int64ref": dtypes.int64, "uint8ref": dtypes.uint8,
    "uint16ref": dtypes.uint16, "uint32ref": dtypes.uint32, "uint64ref": dtypes.uint64,
    "boolref": dtypes.bool_, "complex64ref": dtypes.complex64, "complex128ref": dtypes.complex128,
    "stringref": dtypes.string, "resourceref": dtypes.resource, "variantref": dtypes.variant,
}
REF_TYPES: dict[DType, type[RefType]] = {
    dtype: irdl_attr_definition(
        type(f"{ref[:-3].capitalize()}RefType", (RefType,), {"name": f"tf_type.{ref}"})
    )
    for ref, dtype in _REF_NAMES.items()
}


@irdl_attr_definition
class ShapeAttr(ParametrizedAttribute):
    """``#tf_type.shape<2x?x3>`` (a shape attribute; ``#tf_type.shape<*>`` is unranked)."""

    name = "tf_type.shape"
    dims: ArrayAttr[IntAttr] | NoneAttr

    def __init__(self, shape: Shape):
        dims = NoneAttr() if shape is None else ArrayAttr([IntAttr(-1 if d is None else d) for d in shape])
        super().__init__(dims)

    @property
    def shape(self) -> Shape:
        if isinstance(self.dims, NoneAttr):
            return None
        return tuple(None if d.data < 0 else d.data for d in self.dims.data)

    def print_parameters(self, printer: Printer) -> None:
        shape = self.shape
        text = "*" if shape is None else "x".join("?" if d is None else str(d) for d in shape)
        printer.print_string(f"<{text}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation("*") is not None:
            dims = NoneAttr()
        else:
            dims = ArrayAttr([IntAttr(-1 if d == DYNAMIC_INDEX else d) for d in parser.parse_dimension_list()])
        parser.parse_punctuation(">")
        return (dims,)


@irdl_attr_definition
class FuncAttr(ParametrizedAttribute):
    """``#tf_type.func<@f, {attr = 1 : i32}>``: a function and attributes to call it with (``""`` for
    no function: ``#tf_type.func<"", {}>``)."""

    name = "tf_type.func"
    callee: SymbolRefAttr | StringAttr
    attrs: DictionaryAttr

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.callee)
            printer.print_string(", ")
            printer.print_attribute(self.attrs)

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        # TensorFlow's messages (func-attr-invalid.mlir), each where its part should start
        if parser.parse_optional_punctuation("<") is None:
            parser.raise_error("expected '<'")
        start = parser.pos
        callee = parser.parse_optional_attribute()
        if isinstance(callee, StringAttr) and callee.data:
            parser.raise_error("expected empty string or symbol while parsing tf.func attribute", start, start + 1)
        if not isinstance(callee, SymbolRefAttr | StringAttr):
            try:
                parser.raise_error("expected symbol while parsing tf.func attribute", start, start + 1)
            except XdslParseError as err:
                if callee is None:  # (MLIR's attribute parser has already said so)
                    err.errors = ["expected attribute value"]
                raise
        if parser.parse_optional_punctuation(",") is None:
            parser.raise_error("expected ','")
        start = parser.pos
        attrs = parser.parse_optional_attribute()
        if not isinstance(attrs, DictionaryAttr):
            parser.raise_error("expected Dictionary attribute while parsing tf.func attribute", start, start + 1)
        if parser.parse_optional_punctuation(">") is None:
            parser.raise_error("expected '>'")
        return (callee, attrs)


@irdl_attr_definition
class TensorProtoAttr(ParametrizedAttribute, SpacedOpaqueSyntaxAttribute):
    """``#tf_type<tensor_proto : "0x0A..."> : tensor<4xf32>``: a constant as a serialized TensorProto
    (hex), kept as it is; ``tinytf.mlir`` prints its type after it."""

    name = "tf_type.tensor_proto"
    hex: StringAttr
    type: Attribute

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(": ")
        printer.print_string_literal(self.hex.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation(":")
        return (StringAttr(parser.parse_str_literal()), NoneAttr())  # (the type after `>`: tinytf.mlir)

    def with_type(self, type_: Attribute) -> TensorProtoAttr:
        return TensorProtoAttr(self.hex, type_)


TFType = Dialect(
    "tf_type",
    [],
    [ResourceType, VariantType, StringType, ControlType, ShapeAttr, FuncAttr, TensorProtoAttr,
     *REF_TYPES.values()],
)


# --- dtypes <-> element types ------------------------------------------------------------------

_FLOATS = {dtypes.float16: Float16Type, dtypes.bfloat16: BFloat16Type, dtypes.float32: Float32Type,
           dtypes.float64: Float64Type}


@functools.cache
def element_type_from_dtype(dtype: DType) -> Attribute:
    """The MLIR element type of a dtype: f32, i1, ui8, complex<f32>, !tf_type.string, ..."""
    if dtype in _FLOATS:
        return _FLOATS[dtype]()
    if dtype.kind == "b":
        return IntegerType(1)
    if dtype.kind in "iu":
        return IntegerType(8 * dtype.size, Signedness.UNSIGNED if dtype.kind == "u" else Signedness.SIGNLESS)
    if dtype.kind == "c":
        return ComplexType(Float32Type() if dtype is dtypes.complex64 else Float64Type())
    return {dtypes.string: StringType, dtypes.resource: ResourceType, dtypes.variant: VariantType}[dtype]()


def dtype_from_element_type(attr: Attribute) -> DType:
    """The DType of an MLIR element type; a ref type gives the dtype it refers to."""
    if isinstance(attr, IntegerType):
        width = attr.width.data
        if width == 1:
            return dtypes.bool_
        prefix = "uint" if attr.signedness.data == Signedness.UNSIGNED else "int"
        return dtypes.as_dtype(f"{prefix}{width}")
    for dtype, cls in _FLOATS.items():
        if isinstance(attr, cls):
            return dtype
    if isinstance(attr, ComplexType):
        return dtypes.complex64 if isinstance(attr.element_type, Float32Type) else dtypes.complex128
    if isinstance(attr, RefType):
        return attr.dtype
    if isinstance(attr, ResourceType):
        return dtypes.resource
    if isinstance(attr, VariantType):
        return dtypes.variant
    if isinstance(attr, StringType):
        return dtypes.string
    raise InvalidArgumentError(f"unsupported element type {attr}")


# --- tensor types <-> (shape, dtype) ----------------------------------------------------------

def tensor_type(shape: Shape, dtype: DType | Attribute) -> TensorType | UnrankedTensorType:
    """``tensor<2x?xf32>`` from ``((2, None), float32)``; ``tensor<*xf32>`` from ``(None, float32)``."""
    element = element_type_from_dtype(dtype) if isinstance(dtype, DType) else dtype
    if shape is None:
        return UnrankedTensorType(element)
    return TensorType(element, [DYNAMIC_INDEX if d is None else d for d in shape])


def shape_of(type_: Attribute) -> Shape:
    if isinstance(type_, TensorType):
        return tuple(None if d == DYNAMIC_INDEX else d for d in type_.get_shape())
    if isinstance(type_, UnrankedTensorType):
        return None
    return ()  # a bare element type (rare in TF IR) is a scalar


def element_type_of(type_: Attribute) -> Attribute:
    if isinstance(type_, TensorType | UnrankedTensorType):
        return type_.element_type
    return type_


def dtype_of(type_: Attribute) -> DType:
    return dtype_from_element_type(element_type_of(type_))


def is_ref(type_: Attribute) -> bool:
    return isinstance(element_type_of(type_), RefType)


def is_resource(type_: Attribute) -> bool:
    return isinstance(element_type_of(type_), ResourceType)


def resource_subtype(type_: Attribute) -> Attribute | None:
    """The variable's tensor type carried by a resource type, if it has one."""
    element = element_type_of(type_)
    if isinstance(element, ResourceType) and element.subtypes.data:
        return element.subtypes.data[0]
    return None


def is_static(shape: Shape) -> bool:
    return shape is not None and all(d is not None for d in shape)
