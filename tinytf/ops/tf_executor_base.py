"""What the ``tf_executor`` ops share: the control and token types, the ops' base class, what
TensorFlow's op definitions (ODS) check, with its messages (operand and result counts and kinds,
"all control inputs after data", the parent op, ``tf_type::BroadcastCompatible`` and
``getBroadcastedType``), and pieces of custom syntax.

    check_signature(op, [ANY, I1_TENSOR, many(CONTROL)], [ANY, ANY, CONTROL])
    # 'tf_executor.Switch' op operand #1 must be tensor of 1-bit signless integer values, but got 'tensor<f32>'

A check about another op than the one being verified (a region's terminator, an op nested in a
graph) raises ``SubjectError``, which names that op, so the diagnostic is reported at its line.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    FunctionType,
    IntegerType,
    Signedness,
    TensorType,
    UnrankedTensorType,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import IRDLOperation, irdl_attr_definition, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tinytf.framework import diagnostics
from tinytf.framework.tf_types import RefType, ResourceType, VariantType, element_type_from_dtype


@irdl_attr_definition
class ControlType(ParametrizedAttribute, TypeAttribute):
    """``!tf_executor.control``: a control token; an op runs after the ops whose tokens it takes."""

    name = "tf_executor.control"


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """``!tf_executor.token``: pairs a ``NextIteration.Source`` with its ``NextIteration.Sink``."""

    name = "tf_executor.token"


class SubjectError(VerifyException):
    """A verifier error about ``subject_op``, found while verifying another op."""

    def __init__(self, subject_op: Operation, message: str):
        super().__init__(message)
        self.subject_op = subject_op


def op_name(op: Operation) -> str:
    return op.op_name.data if op.name == "builtin.unregistered" else op.name


def is_control(type_: Attribute) -> bool:
    return isinstance(type_, ControlType)


def same_type(a: Attribute, b: Attribute) -> bool:
    """Type equality, subtypes included (``!tf_type.variant<tensor<4xi32>>`` is not ``!tf_type.variant``;
    tinytf's resource and variant types compare equal whatever their subtypes)."""
    return a == b and str(a) == str(b)


class ExecutorOp(IRDLOperation):
    """Operands and results of any number and type: ``verify_`` states what the op accepts."""

    args = var_operand_def()
    outs = var_result_def()

    @property
    def control_inputs(self) -> list[SSAValue]:
        return [v for v in self.operands if is_control(v.type)]

    @property
    def control(self) -> SSAValue:
        """The control token every op but fetch, yield and NextIteration.Sink produces last."""
        return self.results[-1]


# --- custom syntax pieces ----------------------------------------------------------------------

def custom_error(parser: Parser, cls: type[Operation], message: str, at=None):
    """A parse error as MLIR words it for a custom parser: ``custom op 'NAME' message``."""
    parser.raise_error(f"custom op '{cls.name}' {message}", at)


def parse_operand_names(parser: Parser) -> list:
    return parser.parse_optional_undelimited_comma_separated_list(
        parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand) or []


def parse_colon_types(parser: Parser) -> list[Attribute]:
    parser.parse_punctuation(":")
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)


def parse_values_with_types(parser: Parser) -> list[SSAValue]:
    """``(%a, %b : T1, T2)?`` -- the operands of fetch and yield."""
    names = parse_operand_names(parser)
    if not names:
        return []
    pos = parser.pos
    return list(parser.resolve_operands(names, parse_colon_types(parser), pos))


def print_values_with_types(printer: Printer, values: Sequence[SSAValue]) -> None:
    if values:
        printer.print_string(" ")
        printer.print_list(values, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)


def print_generic_op(printer: Printer, op: Operation) -> None:
    """MLIR's printGenericOp: the op in generic form, without its results and location."""
    attributes = dict(op.attributes)
    if isinstance(op, UnregisteredOp):
        name = attributes.pop("op_name__").data
    else:
        name = op.name
    printer.print_string(f'"{name}"')
    printer.print_operands(op.operands)
    if op.successors:
        printer.print_successors(op.successors)
    if op.properties:
        printer.print_string(" <")
        printer.print_attr_dict(op.properties)
        printer.print_string(">")
    printer.print_regions(op.regions)
    printer.print_op_attributes(attributes)
    printer.print_string(" : ")
    printer.print_function_type(op.operand_types, op.result_types)


def parse_short_or_functional(parser: Parser, cls, names, types, short, pos):
    """Operands and result types from ``: T`` (``short(T)`` gives both) or ``: (..) -> (..)``."""
    if len(types) != 1:
        custom_error(parser, cls, " expects only a single data type", pos)
    if isinstance(types[0], FunctionType):
        operand_types, result_types = list(types[0].inputs.data), list(types[0].outputs.data)
    else:
        operand_types, result_types = short(types[0])
    return list(parser.resolve_operands(names, operand_types, parser.pos)), result_types


def print_operand_list(printer: Printer, op) -> None:
    """`` %a, %b``: the operands, bare."""
    printer.print_string(" ")
    printer.print_list(op.operands, printer.print_operand)


def print_short_or_functional(printer: Printer, op, short: bool) -> None:
    """`` : T`` (the first result's type) or `` : (operand types) -> (result types)``."""
    printer.print_string(" : ")
    if short:
        printer.print_attribute(op.results[0].type)
    else:
        printer.print_function_type(op.operand_types, op.result_types)


def create_parsed(cls, operands, result_types, parser: Parser, properties=None):
    """The op, with the attribute dictionary that ends its custom syntax."""
    return cls.create(operands=operands, result_types=result_types, properties=properties or {},
                      attributes=parser.parse_optional_attr_dict())


# --- ODS-style constraints ---------------------------------------------------------------------

@dataclass(frozen=True)
class Constraint:
    test: Callable[[Attribute], bool]
    description: str
    variadic: bool = False


def many(c: Constraint) -> Constraint:
    return Constraint(c.test, "variadic of " + c.description, variadic=True)


def _is_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType | UnrankedTensorType)


def _tensor_of(bits: int) -> Callable[[Attribute], bool]:
    return lambda t: (_is_tensor(t) and isinstance(t.element_type, IntegerType)
                      and t.element_type.width.data == bits and t.element_type.signedness.data == Signedness.SIGNLESS)


ANY = Constraint(lambda t: True, "any type")
CONTROL = Constraint(is_control, "control")
TOKEN = Constraint(lambda t: isinstance(t, TokenType), "token")
TENSOR = Constraint(_is_tensor, "tensor of any type values")
I1_TENSOR = Constraint(_tensor_of(1), "tensor of 1-bit signless integer values")
I32_TENSOR = Constraint(_tensor_of(32), "tensor of 32-bit signless integer values")


def check_signature(op: Operation, operands: Sequence[Constraint], results: Sequence[Constraint]) -> None:
    _check_list(list(op.operand_types), operands, "operand")
    _check_list(list(op.result_types), results, "result")


def _check_list(types: list[Attribute], constraints: Sequence[Constraint], what: str) -> None:
    fixed = sum(not c.variadic for c in constraints)
    if any(c.variadic for c in constraints):
        if len(types) < fixed:
            raise VerifyException(f"expected {fixed} or more {what}s, but found {len(types)}")
    elif len(types) != fixed:
        if fixed == 0:
            raise VerifyException(f"requires zero {what}s")
        raise VerifyException(f"expected {fixed} {what}s, but found {len(types)}")
    spare = len(types) - fixed
    index = 0
    for c in constraints:
        for _ in range(spare if c.variadic else 1):
            if not c.test(types[index]):
                raise VerifyException(f"{what} #{index} must be {c.description}, but got '{types[index]}'")
            index += 1


def check_parent(op: Operation, parent: str = "tf_executor.graph") -> None:
    if op.parent_op() is None or op.parent_op().name != parent:
        raise VerifyException(f"expects parent op '{parent}'")


def check_controls_after_data(op: Operation) -> None:
    """TensorFlow's ControlOperandsAfterAllData trait: its check's error, then the trait's own."""
    seen_control = False
    for i, t in enumerate(op.operand_types):
        if is_control(t):
            seen_control = True
        elif seen_control:
            trait = f"'{op.name}' op failed to verify that all control inputs must appear after any non-control input"
            raise diagnostics.Error(f"found non-control operand #{i} after control operand", errors=[trait])


def check_single_block(op: Operation, name: str = "body") -> None:
    """SizedRegion<1> and the SingleBlock trait, for the op's one region."""
    region = op.regions[0]
    if len(region.blocks) != 1:
        raise VerifyException(f"region #0 ('{name}') failed to verify constraint: region with 1 blocks")
    if region.block.first_op is None:
        raise VerifyException("expects a non-empty block")


# --- TensorFlow's broadcasting of types --------------------------------------------------------

def drop_ref(t: Attribute) -> Attribute:
    return _with_element(t, lambda e: element_type_from_dtype(e.dtype) if isinstance(e, RefType) else e)


def drop_subtypes(t: Attribute) -> Attribute:
    return _with_element(t, lambda e: type(e)() if isinstance(e, ResourceType | VariantType) else e)


def _with_element(t: Attribute, change: Callable[[Attribute], Attribute]) -> Attribute:
    if isinstance(t, TensorType):
        return TensorType(change(t.element_type), t.get_shape())
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(change(t.element_type))
    return change(t)


def broadcast_shape(a: Sequence[int], b: Sequence[int]) -> bool:
    """MLIR's getBroadcastedShape, as a yes/no: trailing dims equal, 1, or unknown."""
    for x, y in zip(reversed(a), reversed(b)):
        if x < 0 or y < 0:  # unknown (DYNAMIC_INDEX, or -1 as some builders write it)
            continue
        if x != y and x != 1 and y != 1:
            return False
    return True


def broadcast_compatible(a: Attribute, b: Attribute) -> bool:
    """``tf_type::BroadcastCompatible`` of two types (refs dropped; resource and variant element
    types match when either has no subtypes)."""
    a, b = drop_ref(a), drop_ref(b)
    if not (_is_tensor(a) and _is_tensor(b)):
        return a == b
    ea, eb = a.element_type, b.element_type
    kinds = ResourceType | VariantType
    # Subtypes compared explicitly: tinytf's resource and variant types compare equal without them.
    if ea != eb or (isinstance(ea, kinds) and isinstance(eb, kinds) and ea.subtypes.data != eb.subtypes.data):
        if not (isinstance(ea, kinds) and isinstance(eb, kinds)):
            return False
        if ea.subtypes.data and eb.subtypes.data:
            if not all(broadcast_compatible(x, y) for x, y in zip(ea.subtypes.data, eb.subtypes.data)):
                return False
    if not (isinstance(a, TensorType) and isinstance(b, TensorType)):
        return True
    return broadcast_shape(a.get_shape(), b.get_shape())


def broadcastable_to(a: Attribute, b: Attribute) -> bool:
    """TF_OpIsBroadcastableToRes: both shaped, and broadcast compatible."""
    return _is_tensor(a) and _is_tensor(b) and broadcast_compatible(a, b)


def has_broadcasted_type(a: Attribute, b: Attribute) -> bool:
    """Whether MLIR's ``getBroadcastedType`` of the two types (refs and subtypes dropped) exists."""
    a, b = drop_ref(drop_subtypes(a)), drop_ref(drop_subtypes(b))
    element = a.element_type if _is_tensor(a) else a
    if (b.element_type if _is_tensor(b) else b) != element:
        return False
    if isinstance(a, UnrankedTensorType) or isinstance(b, UnrankedTensorType):
        return True
    shape = a.get_shape() if isinstance(a, TensorType) else ()
    return broadcast_shape(shape, b.get_shape() if isinstance(b, TensorType) else ())
