"""String constants in the IR: MLIR's ``DenseStringElementsAttr``, as TensorFlow prints them.

    %k = "tf.Const"() <{value = dense<"x"> : tensor<!tf_type.string>}> : () -> tensor<!tf_type.string>
    %n = "tf.Const"() <{value = dense<["a", "b\\00c"]> : tensor<2x!tf_type.string>}> : () -> tensor<2x!tf_type.string>
    %e = "tf.Const"() <{value = dense<> : tensor<0x!tf_type.string>}> : () -> tensor<0x!tf_type.string>

Each element is bytes (a TF string holds any bytes); at run time a string tensor is a numpy object
array of ``bytes``. A tensor whose elements are all equal prints as a splat (``dense<"x">``), as
MLIR prints it. Bytes that are not printable ASCII print as ``\\XX`` (LLVM's ``printEscapedString``).

xDSL has no such attribute: ``tinytf.mlir``'s parser and printer call ``parse_literal`` /
``print_attr`` here, and ``attributes.dense_to_numpy`` / ``numpy_to_dense`` convert it.
"""
from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, BytesAttr, TensorType
from xdsl.ir import ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.mlir_lexer import MLIRTokenKind, StringLiteral

from tinytf.framework import tf_types


@irdl_attr_definition
class DenseStringElementsAttr(ParametrizedAttribute):
    """``dense<"a"> : tensor<!tf_type.string>``: a string tensor constant (every element stored)."""

    name = "tf_type.dense_string"  # only for xDSL's generic printer: tinytf.mlir prints dense<...>
    tensor_type: TensorType
    values: ArrayAttr[BytesAttr]

    @property
    def type(self) -> TensorType:
        return self.tensor_type

    @staticmethod
    def from_numpy(array) -> DenseStringElementsAttr:
        array = np.asarray(array, dtype=object)
        flat = [v.encode() if isinstance(v, str) else bytes(v) for v in array.reshape(-1)]
        type_ = tf_types.tensor_type(array.shape, tf_types.StringType())
        return DenseStringElementsAttr(type_, ArrayAttr([BytesAttr(v) for v in flat]))

    def to_numpy(self) -> np.ndarray:
        shape = tuple(self.tensor_type.get_shape())
        out = np.empty(len(self.values.data), dtype=object)
        for i, v in enumerate(self.values.data):
            out[i] = v.data
        out.flags.writeable = False  # a constant: kernels must copy before writing
        return out.reshape(shape)


def is_string_type(type_) -> bool:
    return isinstance(type_, TensorType) and isinstance(type_.element_type, tf_types.StringType)


# --- text ----------------------------------------------------------------------------------------

def escape(data: bytes) -> str:
    """``"..."`` as MLIR prints a string: printable ASCII as is, ``\\`` doubled, others ``\\XX``."""
    out = []
    for b in data:
        if b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F and b != 0x22:
            out.append(chr(b))
        else:
            out.append(f"\\{b:02X}")
    return '"' + "".join(out) + '"'


def print_attr(printer, attr: DenseStringElementsAttr) -> None:
    values = [v.data for v in attr.values.data]
    shape = list(attr.tensor_type.get_shape())
    if not values:
        body = ""
    elif len(set(values)) == 1:  # a splat: MLIR prints one element for the whole tensor
        body = escape(values[0])
    else:
        body = _nested(values, shape)
    printer.print_string(f"dense<{body}> : ")
    printer.print_attribute(attr.tensor_type)


def _nested(values: list[bytes], shape: list[int]) -> str:
    if not shape:
        return escape(values[0])
    step = len(values) // shape[0] if shape[0] else 0
    return "[" + ", ".join(_nested(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"


def parse_literal(parser):
    """The contents of ``dense<...>`` before the type: elements (bytes, or xDSL's numeric literal
    elements) in row-major order and the literal's shape (``[]`` for one element, a splat). xDSL's
    ``_parse_tensor_literal`` with string literals allowed as elements."""
    kind = parser._current_token.kind
    if kind is MLIRTokenKind.STRING_LIT or kind is MLIRTokenKind.BYTES_LIT:  # (BYTES_LIT: not UTF-8)
        token = parser._consume_token(kind)
        return [StringLiteral.from_span(token.span).bytes_contents], []
    parts = parser.parse_optional_comma_separated_list(parser.Delimiter.SQUARE, lambda: parse_literal(parser))
    if parts is None:
        return [parser._parse_tensor_literal_element()], []
    if not parts:
        return [], [0]
    inner = parts[0][1]
    if any(shape != inner for _, shape in parts):
        parser.raise_error("Tensor literal has inconsistent ranks between elements")
    return [e for elements, _ in parts for e in elements], [len(parts), *inner]


def from_literal(parser, type_, elements: list, literal_shape: list[int]) -> DenseStringElementsAttr:
    """The attribute of a parsed string literal and its type, a splat filled to the type's size."""
    shape = list(type_.get_shape())
    count = math.prod(shape)
    if not all(isinstance(e, bytes) for e in elements):
        parser.raise_error("expected string elements for a tensor of !tf_type.string")
    if not literal_shape and count != 1:  # a splat
        elements = elements * count
    elif literal_shape and literal_shape != shape and not (count == 0 and literal_shape == [0]):
        parser.raise_error(f"Shape mismatch in dense literal. Expected {shape} shape from the type, "
                           f"but got {literal_shape} shape.")
    return DenseStringElementsAttr(type_, ArrayAttr([BytesAttr(e) for e in elements]))


def parse_dense_type(parser):
    """The type after ``dense<...> :``: xDSL's check (a static tensor of numbers), or a string tensor."""
    from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, ComplexType, IndexType, IntegerType, RankedStructure
    from xdsl.irdl import base

    type_ = parser.expect(parser.parse_optional_type, "Dense attribute must be typed!")
    if not is_string_type(type_) and not base(
            RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType]).verifies(type_):
        parser.raise_error("Expected memref, vector or tensor type of integer, index, float, or complex type")
    if any(dim == DYNAMIC_INDEX for dim in type_.get_shape()):
        parser.raise_error("Dense literal attribute should have a static shape.")
    return type_
