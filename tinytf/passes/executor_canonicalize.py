"""TensorFlow's canonicalization patterns of the ``tf_executor`` ops, run by xDSL's ``canonicalize``.

    tinytf-opt graph.mlir -p canonicalize

- a graph holding only its fetch is replaced by the values it fetches;
- a graph holding one island (and its fetch) is replaced by the island's ops: the graph's results
  become what the island yields (or what the fetch takes from outside the island);
- an island with no ops, no control inputs and no data results is erased, and so is every use of
  its control token (an operand of a fetch or island);
- an island with no ops, no control inputs, one data result and an unused token is replaced by
  the value it yields;
- an island with no ops, one control input and no data results is replaced by that input (TF's
  folder for the island);
- a ControlTrigger with no control inputs is erased with every use of its token.

Importing this module hooks the patterns into ``canonicalize`` through a trait on those op classes
(xDSL's ``OpTraits.add_trait``, as ``TFCanonicalization`` does for the tf ops).
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.traits import HasCanonicalizationPatternsTrait

from tinytf.ops.tf_executor import GraphOp, IslandOp, YieldOp
from tinytf.ops.tf_executor_base import is_control
from tinytf.ops.tf_executor_control_flow import ControlTriggerOp


def only_yield(island: IslandOp) -> bool:
    block = island.body.block
    return block.first_op is not None and block.first_op is block.last_op and isinstance(block.first_op, YieldOp)


def drop_uses(value: SSAValue) -> None:
    """Remove ``value`` from the operands of every op using it (a control token nobody needs)."""
    for use in list(value.uses):
        user = use.operation
        user.operands = [v for i, v in enumerate(user.operands) if i != use.index]


class DropEmptyGraph(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GraphOp, rewriter: PatternRewriter, /):
        block = op.body.block
        if block.first_op is not block.last_op:
            return
        rewriter.replace(op, [], op.fetch.fetches)


class HoistInnerOpsSingleIslandGraph(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GraphOp, rewriter: PatternRewriter, /):
        ops = list(op.body.block.ops)
        if len(ops) != 2 or not isinstance(ops[0], IslandOp):
            return
        island, fetch = ops
        values = []
        for value in fetch.operands:
            if is_control(value.type):
                break
            values.append(island.yield_op.operands[value.index] if value.owner is island else value)
        inner = list(island.body.block.ops)[:-1]
        for each in inner:
            each.detach()
        rewriter.replace(op, inner, values)


class DropEmptyIslandNoOperandNoDataResult(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IslandOp, rewriter: PatternRewriter, /):
        if op.operands or len(op.results) != 1 or not only_yield(op):
            return
        drop_uses(op.control)
        rewriter.erase(op)


class DropEmptyIslandNoOperandOneDataResult(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IslandOp, rewriter: PatternRewriter, /):
        if op.operands or len(op.results) != 2 or op.control.uses or not only_yield(op):
            return
        op.results[0].replace_all_uses_with(op.yield_op.operands[0])
        rewriter.erase(op, safe_erase=False)


class ForwardEmptyIslandControl(RewritePattern):
    """TensorFlow's IslandOp folder: an empty island with one control input is that input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IslandOp, rewriter: PatternRewriter, /):
        if len(op.operands) != 1 or len(op.results) != 1 or not only_yield(op):
            return
        rewriter.replace(op, [], [op.operands[0]])


class DropEmptyControlTrigger(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ControlTriggerOp, rewriter: PatternRewriter, /):
        if op.operands:
            return
        drop_uses(op.results[0])
        rewriter.erase(op)


PATTERNS = (DropEmptyGraph(), HoistInnerOpsSingleIslandGraph(), DropEmptyIslandNoOperandNoDataResult(),
            DropEmptyIslandNoOperandOneDataResult(), ForwardEmptyIslandControl(), DropEmptyControlTrigger())


@dataclass(frozen=True)
class ExecutorCanonicalization(HasCanonicalizationPatternsTrait):
    """Hands ``canonicalize`` the tf_executor patterns (each matches only its own op class)."""

    @classmethod
    def get_canonicalization_patterns(cls):
        return PATTERNS


for _cls in (GraphOp, IslandOp, ControlTriggerOp):
    if _cls.get_trait(ExecutorCanonicalization) is None:
        _cls.traits.add_trait(ExecutorCanonicalization())
