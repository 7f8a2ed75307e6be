"""TensorFlow's v1 control flow in the ``tf_executor`` dialect (the white paper's Switch, Merge,
Enter, Exit, NextIteration), as the GraphDef importer writes a ``tf.while_loop`` or ``tf.cond``:

    %t, %f, %ctl = tf_executor.Switch %x, %pred : tensor<f32>
    %v, %index, %ctl_0 = tf_executor.Merge %t, %f : tensor<f32>
    %e, %ctl_1 = tf_executor.Enter %x frame "while/while_context" parallel_iterations 10 : tensor<f32>
    %next, %token, %ctl_2 = tf_executor.NextIteration.Source : tensor<f32>
    tf_executor.NextIteration.Sink[%token] %v : tensor<f32>

Every op lives directly in a ``tf_executor.graph``, takes optional control inputs after its data,
and (but the Sink) returns a control token last. Custom syntax as tf-opt prints it: a single type
when the data types agree, a functional type when they do not.
"""
from __future__ import annotations

from xdsl.dialects.builtin import FunctionType, IntegerAttr, StringAttr, TensorType, UnrankedTensorType, i1, i32, i64
from xdsl.ir import OpResult
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tinytf.framework.tf_types import RefType, element_type_of
from tinytf.ops.tf_executor_base import (
    ANY,
    CONTROL,
    I1_TENSOR,
    I32_TENSOR,
    TENSOR,
    TOKEN,
    ControlType,
    ExecutorOp,
    TokenType,
    broadcastable_to,
    check_controls_after_data,
    check_parent,
    check_signature,
    create_parsed,
    custom_error,
    has_broadcasted_type,
    is_control,
    many,
    parse_colon_types,
    parse_operand_names,
    parse_short_or_functional,
    print_operand_list,
    print_short_or_functional,
    same_type,
)

DEFAULT_PARALLEL_ITERATIONS = 10


@irdl_op_definition
class SwitchOp(ExecutorOp):
    """Forwards ``data`` to result 1 when ``predicate`` is true, else to result 0; the other is dead."""

    name = "tf_executor.Switch"

    def verify_(self) -> None:
        check_signature(self, [ANY, I1_TENSOR, many(CONTROL)], [ANY, ANY, CONTROL])
        check_controls_after_data(self)
        check_parent(self)
        for i, which in ((0, "true"), (1, "false")):  # TensorFlow's wording, results 0 and 1
            if not broadcastable_to(self.operands[0].type, self.results[i].type):
                raise VerifyException(f"failed to verify that data operand must be broadcastable to {which} result")

    @classmethod
    def parse(cls, parser: Parser) -> SwitchOp:
        pos, names = parser.pos, parse_operand_names(parser)
        types = parse_colon_types(parser)
        pair = " expects a single data type and a predicate"
        if len(types) == 1 and (len(types[0].inputs) if isinstance(types[0], FunctionType) else len(names)) < 2:
            custom_error(parser, cls, pair, pos)
        short = lambda t: ([t, TensorType(i1, []), *[ControlType()] * (len(names) - 2)], [t, t, ControlType()])
        operands, results = parse_short_or_functional(parser, cls, names, types, short, pos)
        return create_parsed(cls, operands, results, parser)

    def print(self, printer: Printer) -> None:
        print_operand_list(printer, self)
        data = self.operands[0].type
        print_short_or_functional(printer, self, same_type(self.results[0].type, data) and same_type(self.results[1].type, data)
                    and not isinstance(self.operands[1].type, UnrankedTensorType))
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class SwitchNOp(ExecutorOp):
    """Forwards ``data`` to the result ``index`` names, of ``num_outs``; the others are dead."""

    name = "tf_executor._SwitchN"
    num_outs = opt_prop_def(IntegerAttr)

    def verify_(self) -> None:
        check_signature(self, [ANY, I32_TENSOR, many(CONTROL)], [many(ANY), CONTROL])
        check_controls_after_data(self)
        check_parent(self)
        if self.num_outs is None:
            raise VerifyException("expects a `num_outs` integer attribute")
        n = self.num_outs.value.data
        if len(self.results) != n + 1:
            raise VerifyException(f"expect `num_outs` ({n}) results but got {len(self.results) - 1}")
        data = self.operands[0].type
        if not isinstance(data, TensorType | UnrankedTensorType):
            raise VerifyException(f"expects data operand to have tensor type but got '{data}'")
        for out in self.result_types:
            if is_control(out):
                break
            if not isinstance(out, TensorType | UnrankedTensorType):
                raise VerifyException(f"expects outputs to have tensor type but got '{out}'")
            if isinstance(element_type_of(out), RefType) and not isinstance(element_type_of(data), RefType):
                raise VerifyException(f"expects same operand and output element type but got '{data}' vs '{out}'")
            if not has_broadcasted_type(data, out):
                raise VerifyException("expects data operand to be broadcastable with all output types "
                                      f"but got '{data}' vs '{out}'")

    @classmethod
    def parse(cls, parser: Parser) -> SwitchNOp:
        pos, names = parser.pos, parse_operand_names(parser)
        if len(names) != 2:
            parser.raise_error(f"expected 2 operands, got {len(names)}", pos)
        parser.parse_keyword("of")
        count = parser.parse_integer(allow_boolean=False)
        if parser.parse_optional_punctuation("(") is not None:
            names += parse_operand_names(parser)
            parser.parse_punctuation(")")
        types = parse_colon_types(parser)
        if len(types) != 1:
            custom_error(parser, cls, " expects only a single data type", pos)
        if count <= 0:
            custom_error(parser, cls, " expects a positive number of outputs", pos)
        operand_types = [types[0], TensorType(i32, []), *[ControlType()] * (len(names) - 2)]
        operands = parser.resolve_operands(names, operand_types, parser.pos)
        return create_parsed(cls, operands, [types[0]] * count + [ControlType()], parser,
                       {"num_outs": IntegerAttr(count, i64)})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands[:2], printer.print_operand)
        printer.print_string(f" of {len(self.results) - 1}")
        if len(self.operands) > 2:
            printer.print_string(" ")
            printer.print_operands(self.operands[2:])
        printer.print_string(" : ")
        printer.print_attribute(self.results[0].type)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class MergeOp(ExecutorOp):
    """Forwards the first of its data inputs to become alive, and that input's index."""

    name = "tf_executor.Merge"

    def verify_(self) -> None:
        check_signature(self, [many(ANY)], [TENSOR, I32_TENSOR, CONTROL])
        check_controls_after_data(self)
        check_parent(self)
        if not self.operands:
            raise VerifyException("expects at least one operand")
        if is_control(self.operands[0].type):
            raise VerifyException("expects a non-control input")
        out = self.results[0].type
        for t in self.operand_types:
            if is_control(t):
                break
            if not isinstance(t, TensorType | UnrankedTensorType):
                raise VerifyException(f"expects data operands to have tensor type but got '{t}'")
            if isinstance(element_type_of(out), RefType) and not isinstance(element_type_of(t), RefType):
                raise VerifyException(f"expects same operand and output element type but got '{t}' vs '{out}'")
            if not has_broadcasted_type(out, t):
                raise VerifyException(f"expects all operands to be broadcastable with output type but got "
                                      f"'{t}' vs '{out}'")

    @classmethod
    def parse(cls, parser: Parser) -> MergeOp:
        pos, names = parser.pos, parse_operand_names(parser)
        types = parse_colon_types(parser)
        short = lambda t: ([t, t, *[ControlType()] * (len(names) - 2)], [t, TensorType(i32, []), ControlType()])
        operands, results = parse_short_or_functional(parser, cls, names, types, short, pos)
        return create_parsed(cls, operands, results, parser)

    def print(self, printer: Printer) -> None:
        print_operand_list(printer, self)
        data = [t for t in self.operand_types if not is_control(t)]
        out = self.results[0].type
        # Short only for exactly two data operands of the output's type (what the short form parses).
        print_short_or_functional(printer, self, len(data) == 2 and all(same_type(t, out) for t in data))
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class EnterOp(ExecutorOp):
    """Forwards ``data`` into the loop frame ``frame_name`` (each iteration when ``is_constant``)."""

    name = "tf_executor.Enter"
    frame_name = prop_def(StringAttr)
    is_constant = opt_prop_def(IntegerAttr)
    parallel_iterations = opt_prop_def(IntegerAttr)

    def verify_(self) -> None:
        check_signature(self, [ANY, many(CONTROL)], [ANY, CONTROL])
        check_controls_after_data(self)
        check_parent(self)
        if not broadcastable_to(self.operands[0].type, self.results[0].type):
            raise VerifyException("failed to verify that data operand must be broadcastable to result")

    @classmethod
    def parse(cls, parser: Parser) -> EnterOp:
        pos, names = parser.pos, parse_operand_names(parser)
        if not names:
            parser.raise_error(" expects at least one data operand", pos)
        parser.parse_keyword("frame")
        props = {"frame_name": StringAttr(parser.parse_str_literal())}
        iterations = DEFAULT_PARALLEL_ITERATIONS
        if parser.parse_optional_keyword("parallel_iterations") is not None:
            iterations = parser.parse_integer(allow_boolean=False)
        props["parallel_iterations"] = IntegerAttr(iterations, i64)
        props["is_constant"] = IntegerAttr(int(parser.parse_optional_keyword("constant") is not None), i1)
        types = parse_colon_types(parser)
        if isinstance(types[0], FunctionType) and not types[0].inputs.data:
            custom_error(parser, cls, " expects a data input", pos)
        short = lambda t: ([t, *[ControlType()] * (len(names) - 1)], [t, ControlType()])
        operands, results = parse_short_or_functional(parser, cls, names, types, short, pos)
        return create_parsed(cls, operands, results, parser, props)

    def print(self, printer: Printer) -> None:
        print_operand_list(printer, self)
        printer.print_string(" frame ")
        printer.print_string_literal(self.frame_name.data)
        if self.parallel_iterations is not None and self.parallel_iterations.value.data != DEFAULT_PARALLEL_ITERATIONS:
            printer.print_string(f" parallel_iterations {self.parallel_iterations.value.data}")
        if self.is_constant is not None and self.is_constant.value.data:
            printer.print_string(" constant ")  # tf-opt's spacing: "constant  : T"
        print_short_or_functional(printer, self, same_type(self.operands[0].type, self.results[0].type))
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ExitOp(ExecutorOp):
    """Forwards ``data`` out of its loop frame."""

    name = "tf_executor.Exit"

    def verify_(self) -> None:
        check_signature(self, [ANY, many(CONTROL)], [ANY, CONTROL])
        check_parent(self)
        if not broadcastable_to(self.operands[0].type, self.results[0].type):
            raise VerifyException("failed to verify that data operand must be broadcastable to result")

    @classmethod
    def parse(cls, parser: Parser) -> ExitOp:
        names = parse_operand_names(parser)
        types = parse_colon_types(parser)
        operands = parser.resolve_operands(names, [*types, *[ControlType()] * (len(names) - 1)], parser.pos)
        return create_parsed(cls, operands, [types[0], ControlType()], parser)

    def print(self, printer: Printer) -> None:
        print_operand_list(printer, self)
        print_short_or_functional(printer, self, True)  # tf-opt always prints the short form here
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class NextIterationSourceOp(ExecutorOp):
    """The value fed back by the paired Sink, for the next iteration; the token names the pair."""

    name = "tf_executor.NextIteration.Source"

    def verify_(self) -> None:
        check_signature(self, [], [ANY, TOKEN, CONTROL])
        check_parent(self)
        uses = list(self.results[1].uses)
        if len(uses) != 1:
            raise VerifyException("expects a single user for produced token")
        if not isinstance(uses[0].operation, NextIterationSinkOp):
            raise VerifyException("token should be consumed by a sink op")

    @classmethod
    def parse(cls, parser: Parser) -> NextIterationSourceOp:
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return create_parsed(cls, [], [t, TokenType(), ControlType()], parser)

    def print(self, printer: Printer) -> None:
        printer.print_string(" : ")
        printer.print_attribute(self.results[0].type)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class NextIterationSinkOp(ExecutorOp):
    """Feeds ``input`` back to the Source that produced ``token``."""

    name = "tf_executor.NextIteration.Sink"

    def verify_(self) -> None:
        check_signature(self, [TOKEN, ANY, many(CONTROL)], [])
        check_parent(self)
        token = self.operands[0]
        if not isinstance(token, OpResult):
            raise VerifyException("expects a token directly produced by a tf_executor.NextIteration.Source op: ")
        source = token.op
        if not isinstance(source, NextIterationSourceOp):
            raise VerifyException("expects a token produced by a tf_executor.NextIteration.Source op: ")
        if not same_type(source.results[0].type, self.operands[1].type):
            raise VerifyException(f"input type '{self.operands[1].type}' mismatch the "
                                  f"tf_executor.NextIteration.Source output type: '{source.results[0].type}'")

    @classmethod
    def parse(cls, parser: Parser) -> NextIterationSinkOp:
        parser.parse_punctuation("[")
        token = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        names = [token, *parse_operand_names(parser)]
        types = parse_colon_types(parser)
        operand_types = [TokenType(), types[0], *[ControlType()] * (len(names) - 2)]
        return create_parsed(cls, parser.resolve_operands(names, operand_types, parser.pos), [], parser)

    def print(self, printer: Printer) -> None:
        printer.print_string("[")
        printer.print_operand(self.operands[0])
        printer.print_string("] ")
        printer.print_list(self.operands[1:], printer.print_operand)
        printer.print_string(" : ")
        printer.print_attribute(self.operands[1].type)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class LoopCondOp(ExecutorOp):
    """Forwards the loop's boolean condition to its Switches."""

    name = "tf_executor.LoopCond"

    def verify_(self) -> None:
        check_signature(self, [I1_TENSOR, many(CONTROL)], [I1_TENSOR, CONTROL])
        check_parent(self)

    @classmethod
    def parse(cls, parser: Parser) -> LoopCondOp:
        pos, names = parser.pos, parse_operand_names(parser)
        if not names:
            parser.raise_error(f"custom op '{cls.name}' expects at least one operand", pos)
        types = parse_colon_types(parser)
        if isinstance(types[0], FunctionType):
            if sum(not is_control(t) for t in types[0].inputs.data) != 1:
                custom_error(parser, cls, " expects a single data type", pos)
        short = lambda t: ([t, *[ControlType()] * (len(names) - 1)], [t, ControlType()])
        operands, results = parse_short_or_functional(parser, cls, names, types, short, pos)
        return create_parsed(cls, operands, results, parser)

    def print(self, printer: Printer) -> None:
        print_operand_list(printer, self)
        print_short_or_functional(printer, self, same_type(self.operands[0].type, self.results[0].type))
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ControlTriggerOp(ExecutorOp):
    """A no-op whose control token is alive even when its inputs are dead."""

    name = "tf_executor.ControlTrigger"

    def verify_(self) -> None:
        check_signature(self, [many(CONTROL)], [CONTROL])
        check_parent(self)

    @classmethod
    def parse(cls, parser: Parser) -> ControlTriggerOp:
        names = parse_operand_names(parser)
        operands = parser.resolve_operands(names, [ControlType()] * len(names), parser.pos)
        return create_parsed(cls, operands, [ControlType()], parser)

    def print(self, printer: Printer) -> None:
        if self.operands:
            print_operand_list(printer, self)
        elif not self.attributes:
            # tf-opt prints nothing here, and then reads the next line's `%x = ...` as an operand.
            printer.print_string(" {}")
        printer.print_op_attributes(self.attributes)


OPS = [SwitchOp, SwitchNOp, MergeOp, EnterOp, ExitOp, NextIterationSourceOp, NextIterationSinkOp, LoopCondOp,
       ControlTriggerOp]
