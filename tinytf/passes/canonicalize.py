"""``canonicalize``: MLIR's canonicalizer as TensorFlow's tools run it, on every tf op (with or
without a tinytf class) and on the ops of the other dialects (their xDSL patterns and folders).

    tinytf-opt model.mlir -p canonicalize

- Each tf op gets TensorFlow's folders, trait folds, constant folding and canonicalization
  patterns (``tf_canonicalization``; the rules live in ``fold_rules``, ``canonicalize_arithmetic``,
  ``canonicalize_shapes``, ``canonicalize_versions`` and ``canonicalize_control_flow``).
- Unused ops without side effects are erased (TensorFlow's op traits say which ops have none).
- Constants are uniqued and hoisted, as MLIR's ``OperationFolder`` does before each round: one
  constant per (dialect, value, type) in a function (a uniform ``dense<[2, 2]>`` is ``dense<2>``),
  kept in the function's entry block (an island of ``tf_executor`` keeps its own). A constant
  already at the front, or right after one kept there, stays; any other moves before the first
  op, so constants met later come first (``OperationFolder::insertKnownConstant``). A folded
  constant is made where its op was, and is hoisted in the next round.
- Rounds repeat until nothing changes.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.traits import IsolatedFromAbove
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.dead_code_elimination import region_dce

# the rules register themselves with tf_canonicalization when imported
from tinytf.passes import (  # noqa: F401
    canonicalize_arithmetic,
    canonicalize_control_flow,
    canonicalize_shapes,
    canonicalize_versions,
    fold_rules,
)
from tinytf.passes import tf_rewrite as tfr
from tinytf.passes.symbols import op_name
from tinytf.passes.tf_canonicalization import TF_CANONICALIZATION

MAX_ROUNDS = 20


def _insertion_region(block: Block) -> Region:
    """Where a constant used in ``block`` lives: the nearest region of an isolated-from-above op
    (a function), of a top-level op, or of a ``tf_executor.island``."""
    while True:
        region = block.parent
        parent = region.parent if region is not None else None
        if parent is None or parent.parent_block() is None or parent.has_trait(IsolatedFromAbove) \
                or op_name(parent) == "tf_executor.island":
            return region
        block = parent.parent_block()


def _key(op: Operation):
    value = tfr.attr(op, "value")
    if isinstance(value, DenseIntOrFPElementsAttr):  # MLIR stores a uniform value as a splat: so do the keys
        raw, size = value.data.data, value.type.element_type.compile_time_size
        if size and raw and raw == raw[:size] * (len(raw) // size):
            raw = raw[:size]
        value = (value.type, raw)
    return (op_name(op).split(".")[0], value, op.results[0].type)


def unique_constants(root: Operation | Region) -> bool:
    """Merge equal constants and move them to the front of their insertion region, as MLIR's folder
    does when it populates its worklist (a pre-order walk). Returns whether anything changed."""
    changed = False
    seen: dict[int, dict] = {}
    owned: set[int] = set()
    constants = [op for op in root.walk() if tfr.is_constant(op) and len(op.results) == 1]
    for op in constants:
        block = op.parent_block()
        if block is None:
            continue
        region = _insertion_region(block)
        table = seen.setdefault(id(region), {})
        try:
            key = _key(op)
            existing = table.get(key)
        except TypeError:  # an attribute that cannot be hashed: leave the constant alone
            continue
        if existing is not None:
            op.results[0].replace_all_uses_with(existing.results[0])
            op.detach()
            op.erase()
            changed = True
            continue
        table[key] = op
        owned.add(id(op))
        entry = region.blocks[0]
        first = entry.first_op
        previous = op.prev_op
        if block is not entry or (first is not op and (previous is None or id(previous) not in owned)):
            op.detach()
            entry.insert_op_before(op, entry.first_op) if entry.first_op is not None else entry.add_op(op)
            changed = changed or first is not op
    return changed


class _Canonicalization(CanonicalizationRewritePattern):
    """TensorFlow's rules for tf ops; the ops' own patterns (xDSL's traits) for the others."""

    def match_and_rewrite(self, op, rewriter, /):
        if op_name(op).startswith("tf."):
            TF_CANONICALIZATION.match_and_rewrite(op, rewriter)
        else:
            super().match_and_rewrite(op, rewriter)


def canonicalize(module: ModuleOp, ctx: Context | None = None) -> None:
    import tinytf.mlir as mlir

    ctx = ctx or mlir.context()
    walker = PatternRewriteWalker(
        GreedyRewritePatternApplier([_Canonicalization()], ctx=ctx, folding_enabled=True),
        apply_recursively=True)
    for _ in range(MAX_ROUNDS):
        changed = unique_constants(module)
        changed |= walker.rewrite_module(module)
        changed |= region_dce(module.body)
        if not changed:
            break
    unique_constants(module)


@dataclass(frozen=True)
class Canonicalize(ModulePass):
    """MLIR's canonicalizer with TensorFlow's folders and patterns for every tf op."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        canonicalize(op, ctx)
