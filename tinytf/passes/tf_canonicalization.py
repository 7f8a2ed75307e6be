"""TensorFlow's canonicalization of tf ops, as one xDSL ``RewritePattern`` that tinytf's ``canonicalize``
(``tinytf-opt -p canonicalize``) runs on every tf op, with or without a tinytf class. xDSL's own
``CanonicalizePass`` (``tt.function``'s graph optimizer) does not run it: there tf ops get only
``constant_fold.ConstantFoldPattern``, so traced graphs stay as they were. Per op, in MLIR's order:

1. the op's folder (``@folder("tf.Reshape")``: the op's results as existing values or arrays),
2. the folds of its traits (involution, idempotence, constants last for commutative ops),
3. the constant-folding hook (``constant_fold.fold``: compute on constant operands),
4. its canonicalization patterns (``@pattern("tf.Add")``: rewrite and say True).

    @folder("tf.Cast")
    def fold_same_type_cast(op):          # -> [value | np.ndarray | dense attribute], or None
        x = op.operands[0]
        return [x] if x.type == op.results[0].type else None

A folded array becomes a ``tf.Const`` of the op's result type, before the op (``canonicalize``
hoists and uniques constants as MLIR does). A folded value must have the result's exact type.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tinytf.framework.op import Commutative
from tinytf.passes import tf_op_traits as traits
from tinytf.passes import tf_rewrite as tfr
from tinytf.passes.symbols import op_name

Folder = Callable[[Operation], "list | None"]
Pattern = Callable[[Operation, PatternRewriter], bool]

FOLDERS: dict[str, list[Folder]] = {}
PATTERNS: dict[str, list[Pattern]] = {}


def folder(*names: str):
    """Register a fold rule for the named ops."""
    def register(fn):
        for name in names:
            FOLDERS.setdefault(name, []).append(fn)
        return fn
    return register


def pattern(*names: str):
    """Register a canonicalization pattern for the named ops."""
    def register(fn):
        for name in names:
            PATTERNS.setdefault(name, []).append(fn)
        return fn
    return register


def materialize(op: Operation, folded: list, rewriter: PatternRewriter) -> bool:
    """Replace ``op`` by its folded results; False (nothing changed) when one cannot stand in."""
    if len(folded) != len(op.results):
        return False
    new_ops, values = [], []
    for item, result in zip(folded, op.results):
        if isinstance(item, SSAValue):
            if item.type != result.type:
                return False
            values.append(item)
            continue
        try:
            const = tfr.const_from_attr(item, result.type) if isinstance(item, Attribute) \
                else tfr.const(np.asarray(item), result.type)
        except Exception:  # a value no dense constant can hold: leave the op
            return False
        new_ops.append(const)
        values.append(const.results[0])
    rewriter.replace(op, new_ops, values)
    return True


# --- the folds of TensorFlow's traits ----------------------------------------------------------

def fold_traits(op: Operation, rewriter: PatternRewriter) -> bool:
    name = tfr.tf_name(op)
    if len(op.operands) == 1 and len(op.results) == 1:
        inner = tfr.defining(op.operands[0], op_name(op))
        if inner is not None and len(inner.operands) == 1:
            if name in traits.INVOLUTION and inner.operands[0].type == op.results[0].type:
                rewriter.replace(op, [], [inner.operands[0]])  # f(f(x)) = x
                return True
            if name in traits.IDEMPOTENT and inner.results[0].type == op.results[0].type:
                rewriter.replace(op, [], [inner.results[0]])  # f(f(x)) = f(x)
                return True
    if len(op.operands) >= 2 and _commutative(op):
        operands = list(op.operands)
        order = sorted(range(len(operands)), key=lambda i: tfr.is_constant(operands[i].owner
                                                                           if isinstance(operands[i].owner, Operation)
                                                                           else None))
        if order != list(range(len(operands))):  # MLIR moves constant operands last (stably)
            op.operands = [operands[i] for i in order]
            rewriter.notify_op_modified(op)
            return True
    return False


def _commutative(op: Operation) -> bool:
    if not isinstance(op, UnregisteredOp) and op.has_trait(Commutative):
        return True
    return tfr.tf_name(op) in traits.COMMUTATIVE


# --- the pattern -------------------------------------------------------------------------------

class TFCanonicalization(RewritePattern):
    """Dead-op removal, folders, trait folds, constant folding and (unless ``patterns`` is False,
    as in ``tf-constant-fold``) the patterns of one tf op; ``size_limit`` caps a folded result."""

    def __init__(self, patterns: bool = True, size_limit: int | None = None):
        self.patterns = patterns
        self.size_limit = size_limit

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        name = op_name(op)
        if not name.startswith("tf."):
            return
        if tfr.is_trivially_dead(op):
            rewriter.erase(op)
            return
        if tfr.is_constant(op):
            return
        for fold in FOLDERS.get(name, ()):
            folded = fold(op)
            if folded is not None and materialize(op, folded, rewriter):
                return
        if fold_traits(op, rewriter):
            return
        from tinytf.passes.constant_fold import fold as constant_fold

        folded = constant_fold(op) if self.size_limit is None else constant_fold(op, self.size_limit)
        if folded is not None and materialize(op, folded, rewriter):
            return
        if not self.patterns:
            return
        for rewrite in PATTERNS.get(name, ()):
            if rewrite(op, rewriter):
                return


TF_CANONICALIZATION = TFCanonicalization()
