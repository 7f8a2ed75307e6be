"""The ``tf_executor`` dialect: a TensorFlow graph as the executor runs it (dataflow plus control
tokens, TF1 control flow), the form TensorFlow's GraphDef importer writes. Custom syntax as tf-opt
prints it; the generic form parses too.

    %r = tf_executor.graph {
      %sum, %ctl = tf_executor.island wraps "tf.AddV2"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %id, %ctl_0 = tf_executor.island(%ctl) {
        %0 = "tf.Identity"(%sum) : (tensor<f32>) -> tensor<f32>
        tf_executor.yield %0 : tensor<f32>
      }
      tf_executor.fetch %id : tensor<f32>
    }

Each op's verifier checks what TensorFlow's definition states, with its messages. Operands and
results are declared loosely (``var_operand_def``) and checked in ``verify_``, so that malformed
generic text gets TensorFlow's diagnostics rather than xDSL's. The control-flow primitives (Switch,
Merge, Enter, ...) are in tf_executor_control_flow.py.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import irdl_op_definition, region_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tinytf.framework.op import SOURCE_SPAN
from tinytf.ops import tf_executor_control_flow as control_flow
from tinytf.ops.tf_executor_base import (
    ANY,
    CONTROL,
    ControlType,
    ExecutorOp,
    SubjectError,
    TokenType,
    check_controls_after_data,
    check_parent,
    check_signature,
    check_single_block,
    custom_error,
    is_control,
    many,
    op_name,
    parse_operand_names,
    parse_values_with_types,
    print_generic_op,
    print_values_with_types,
    same_type,
)


def source_location(op: Operation):
    """The op's location; for one parsed without ``loc(...)``, where the parser found it (MLIR gives
    every parsed op its file:line:col, so ops written apart never share a location)."""
    span = op.__dict__.get(SOURCE_SPAN)
    if not isinstance(op.location, UnknownLoc) or span is None:
        return op.location
    where = span.get_location()
    return where.file, where.line, where.col


def _ensure_terminator(region: Region, terminator: type[Operation]) -> None:
    """MLIR's ensureRegionTerminator: the last block gets one when it does not end in a terminator."""
    if not region.blocks:
        region.add_block(Block())
    block = region.blocks.last
    last = block.last_op
    if last is None or not last.has_trait(IsTerminator, value_if_unregistered=False):
        block.add_op(terminator.create())


# --- graph, fetch, island, yield --------------------------------------------------------------

@irdl_op_definition
class FetchOp(ExecutorOp):
    """Ends a graph: its data operands are the graph's results, its control operands must run.

    tf_executor.fetch %x, %ctl : tensor<f32>, !tf_executor.control
    """

    name = "tf_executor.fetch"
    traits = traits_def(IsTerminator())

    def __init__(self, values: Sequence[SSAValue] = (), attributes: dict | None = None):
        super().__init__(operands=[list(values)], result_types=[[]], attributes=attributes)

    @property
    def fetches(self) -> list[SSAValue]:
        return [v for v in self.operands if not is_control(v.type)]

    def verify_(self) -> None:
        check_parent(self, "tf_executor.graph")
        check_signature(self, [many(ANY)], [])
        check_controls_after_data(self)

    @classmethod
    def parse(cls, parser: Parser) -> FetchOp:
        return cls(parse_values_with_types(parser), parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        print_values_with_types(printer, self.operands)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class GraphOp(ExecutorOp):
    """A TensorFlow graph: one block of tf_executor ops ending in ``fetch``, run with the executor's
    semantics (dataflow, control tokens, deadness). Its results are the fetch's data operands.

    %r = tf_executor.graph { ...  tf_executor.fetch %x : tensor<f32> }
    """

    name = "tf_executor.graph"
    body = region_def()

    def __init__(self, body: Region | Block | Sequence[Operation], attributes: dict | None = None):
        region = body if isinstance(body, Region) else Region(body if isinstance(body, Block) else Block(body))
        _ensure_terminator(region, FetchOp)
        types = []
        for value in region.blocks.last.last_op.operands:  # the data operands before the first control
            if is_control(value.type):
                break
            types.append(value.type)
        super().__init__(operands=[[]], result_types=[types], regions=[region], attributes=attributes)

    @property
    def fetch(self) -> FetchOp:
        return self.body.block.last_op

    def verify_(self) -> None:
        check_signature(self, [], [many(ANY)])
        check_single_block(self)
        for op in self.body.block.ops:
            if op_name(op).split(".")[0] != "tf_executor":
                raise SubjectError(op, "unallowed inside a tf_executor.graph region")
            if isinstance(op, GraphOp):
                raise SubjectError(op, "unallowed directly inside another tf_executor.graph")
        fetch = self.body.block.last_op
        if not isinstance(fetch, FetchOp):
            raise SubjectError(fetch, "invalid tf_executor.graph terminator, fetch expected")
        n = len(self.results)
        if len(fetch.operands) < n:
            raise SubjectError(fetch, "does not have enough operands to cover the graph returned values")
        for i, value in enumerate(fetch.operands):
            if is_control(value.type):
                if i != n:
                    raise SubjectError(fetch, f"operand #{i} is a control type, can't be bound to a graph result")
                break
            if i >= n:
                raise SubjectError(fetch, f"operand #{i} does not have a graph results to bind")
            if not same_type(self.results[i].type, value.type):
                raise SubjectError(fetch, f"operand #{i} type mismatch graph results "
                                          f"({self.results[i].type} != {value.type})")

    @classmethod
    def parse(cls, parser: Parser) -> GraphOp:
        pos = parser.pos
        region = parser.parse_region()
        _ensure_terminator(region, FetchOp)
        if len(region.blocks) != 1:
            custom_error(parser, cls, "expects a single block region", pos)
        if not isinstance(region.block.last_op, FetchOp):
            custom_error(parser, cls, "expects a tf_executor.fetch terminator", pos)
        return cls(region, parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.body)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class YieldOp(ExecutorOp):
    """Ends an island: its operands are the island's data results.

    tf_executor.yield %x : tensor<f32>
    """

    name = "tf_executor.yield"
    traits = traits_def(IsTerminator())

    def __init__(self, values: Sequence[SSAValue] = (), attributes: dict | None = None):
        super().__init__(operands=[list(values)], result_types=[[]], attributes=attributes)

    def verify_(self) -> None:
        check_parent(self, "tf_executor.island")
        check_signature(self, [many(ANY)], [])
        check_controls_after_data(self)

    @classmethod
    def parse(cls, parser: Parser) -> YieldOp:
        return cls(parse_values_with_types(parser), parser.parse_optional_attr_dict())

    def print(self, printer: Printer) -> None:
        print_values_with_types(printer, self.operands)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class IslandOp(ExecutorOp):
    """Ops that run in program order once their control inputs are done; results: the yield's
    operands, then a control token. One op whose results are yielded as they are prints short:

    %y, %ctl = tf_executor.island(%c0) wraps "tf.Relu"(%x) : (tensor<f32>) -> tensor<f32>
    """

    name = "tf_executor.island"
    body = region_def()

    def __init__(self, body: Region | Block | Sequence[Operation], controls: Sequence[SSAValue] = (),
                 attributes: dict | None = None):
        region = body if isinstance(body, Region) else Region(body if isinstance(body, Block) else Block(body))
        _ensure_terminator(region, YieldOp)
        types = [v.type for v in region.blocks.last.last_op.operands] + [ControlType()]
        super().__init__(operands=[list(controls)], result_types=[types], regions=[region], attributes=attributes)

    @classmethod
    def wrap(cls, op: Operation, controls: Sequence[SSAValue] = ()) -> IslandOp:
        """An island around one op, yielding its results (at the op's location)."""
        island = cls(Block([op, YieldOp(op.results)]), controls)
        island._take_location_of(op)
        return island

    def _take_location_of(self, op: Operation) -> None:
        """The island and its yield get ``op``'s location (what the short form prints)."""
        for each in (self, self.yield_op):
            each.location = op.location
            if SOURCE_SPAN in op.__dict__:
                each.__dict__[SOURCE_SPAN] = op.__dict__[SOURCE_SPAN]

    @property
    def yield_op(self) -> YieldOp:
        return self.body.block.last_op

    @property
    def outputs(self) -> list[SSAValue]:
        return list(self.results[:-1])

    def wrapped_op(self) -> Operation | None:
        """The island's one op, when the yield forwards exactly its results (TF's WrapsSingleOp)."""
        if len(self.body.blocks) != 1:
            return None
        ops = list(self.body.block.ops)
        if len(ops) != 2:
            return None
        op, yield_op = ops
        if list(op.results) != list(yield_op.operands):
            return None
        return op

    def verify_(self) -> None:
        check_parent(self, "tf_executor.graph")
        check_signature(self, [many(CONTROL)], [many(ANY), CONTROL])
        check_single_block(self)
        block = self.body.block
        if block.args:
            raise VerifyException("expects body without any arguments")
        yield_op = block.last_op
        if not isinstance(yield_op, YieldOp):
            raise SubjectError(yield_op, "invalid tf_executor.island terminator, yield expected")
        n = len(self.results) - 1
        if len(yield_op.operands) != n:
            raise SubjectError(yield_op, f"has {len(yield_op.operands)} operand, but island returns {n}")
        for i, value in enumerate(yield_op.operands):
            if not same_type(self.results[i].type, value.type):
                raise SubjectError(yield_op, f"operand #{i} type mismatch island results")
        for i in range(n):
            if is_control(self.results[i].type):
                raise SubjectError(yield_op, f"unexpected control type for operand #{i}")

    @classmethod
    def parse(cls, parser: Parser) -> IslandOp:
        controls = []
        if parser.parse_optional_punctuation("(") is not None:
            names = parse_operand_names(parser)
            parser.parse_punctuation(")")
            controls = [parser.resolve_operand(name, ControlType()) for name in names]
        wrapped = None
        if parser.parse_optional_keyword("wraps") is not None:
            if parser._current_token.kind != MLIRTokenKind.STRING_LIT:
                parser.raise_error("expected an operation in generic form after 'wraps'")
            wrapped = parser.parse_operation()  # MLIR's parseGenericOperation: with its location
            region = Region(Block([wrapped, YieldOp(wrapped.results)]))
        else:
            region = parser.parse_region()
        island = cls(region, controls, parser.parse_optional_attr_dict())
        if wrapped is not None:
            island._take_location_of(wrapped)
        return island

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_operands(self.operands)
        wrapped = None if self.attributes else self.wrapped_op()
        # The short form carries one location: use it only when the three ops share it.
        if wrapped is not None and source_location(wrapped) == source_location(self) == source_location(self.yield_op):
            printer.print_string(" wraps ")
            print_generic_op(printer, wrapped)
            return
        printer.print_string(" ")
        printer.print_region(self.body)
        printer.print_op_attributes(self.attributes)


TFExecutor = Dialect(
    "tf_executor",
    [GraphOp, FetchOp, IslandOp, YieldOp, *control_flow.OPS],
    [ControlType, TokenType],
)
