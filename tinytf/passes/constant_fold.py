"""``tf-constant-fold``: replace an op whose operands are all ``tf.Const`` by the ``tf.Const`` of its
result, computed with the op's own ``compute`` rule (numpy). ``canonicalize`` runs the same pattern.

    %a = "tf.Const"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %b = "tf.Mul"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    // becomes: %b = "tf.Const"() <{value = dense<4.0> : tensor<f32>}> : () -> tensor<f32>

Never folded: ops with the ``NoConstantFold`` trait (``tf.Identity`` keeps an int8 weight from being
folded back to float, which TensorFlow's quantized function library relies on; stateful and
resource ops), ops without ``Pure``, unknown ops, ops without ``compute``, and results over
``size-limit`` elements, and ops with a ``kernel`` (run time uses it instead of ``compute``). As at
run time, the op's shape rule sees the constants first: an op whose ``infer`` or ``compute`` fails
on them is left as it is, for run time to report. A splat operand (``dense<0.0> : tensor<4096x4096xf32>``)
reaches ``compute`` as a read-only broadcast view; one over the allocation limit is not folded, and
run time refuses it with ResourceExhaustedError.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.traits import Pure

from tinytf.framework import op as op_module
from tinytf.framework import tf_types
from tinytf.framework.attributes import numpy_to_dense
from tinytf.framework.op import NoConstantFold, Op
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.array import Const

DEFAULT_SIZE_LIMIT = 1 << 20  # elements of one folded result


def is_foldable(op: Operation) -> bool:
    # cheapest test first: most ops have an operand that is not a constant
    return (all(isinstance(v.owner, Const) for v in op.operands)
            and isinstance(op, Op) and not isinstance(op, Const) and bool(op.results)
            and op.has_trait(Pure) and not op.has_trait(NoConstantFold)
            and getattr(type(op), "compute", None) is not None
            and getattr(type(op), "kernel", None) is None)  # run time would use the kernel, not compute


def _static_size(type_) -> int | None:
    shape = tf_types.shape_of(type_)
    return math.prod(shape) if tf_types.is_static(shape) else None


def fold(op: Operation, size_limit: int = DEFAULT_SIZE_LIMIT) -> list[np.ndarray] | None:
    """The op's results as arrays of their declared dtypes, or ``None`` when it must not or cannot fold."""
    if not is_foldable(op):
        return None
    try:
        dtypes = [tf_types.dtype_of(r.type) for r in op.results]
        if any(not (d.is_numeric or d.is_bool) for d in dtypes):
            return None
        if any((n := _static_size(r.type)) is not None and n > size_limit for r in op.results):
            return None
        arrays = [v.owner.attr_values()["value"] for v in op.operands]
        attrs = op.attr_values()
        infer = getattr(type(op), "infer", None)
        if infer is not None:  # as at run time: the shape rule first, so bad operands are not folded
            infer(*(TensorSpec(a.shape, a.dtype, value=a) for a in arrays), **attrs)
        with np.errstate(all="ignore"):
            out = type(op).compute(np, *arrays, **attrs)
    except Exception:  # a rule that fails on these constants: leave the op for run time to report
        return None
    out = list(out) if isinstance(out, tuple | list) else [out]
    if len(out) != len(op.results):
        return None
    results = []
    for value, result, dtype in zip(out, op.results, dtypes):
        value = np.asarray(value)
        if value.size > size_limit:
            return None
        if value.dtype != dtype.np:
            if np.dtype(value.dtype).kind != np.dtype(dtype.np).kind:
                return None  # the rule disagrees with the IR's result type: not ours to guess
            value = value.astype(dtype.np)
        declared = tf_types.shape_of(result.type)
        if declared is not None and (len(declared) != value.ndim or any(
                d is not None and d != n for d, n in zip(declared, value.shape))):
            return None
        results.append(value)
    return results


class ConstantFoldPattern(RewritePattern):
    """Folds one op to ``tf.Const``s and erases the operand constants left without users."""

    def __init__(self, size_limit: int = DEFAULT_SIZE_LIMIT):
        self.size_limit = size_limit

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        values = fold(op, self.size_limit)
        if values is None:
            return
        try:
            consts = [Const.build(properties={"value": numpy_to_dense(v, tf_types.dtype_of(r.type))},
                                  result_types=[r.type])  # the IR's type: users and returns still match
                      for v, r in zip(values, op.results)]
        except Exception:
            return
        operands = {v.owner for v in op.operands}
        rewriter.replace(op, consts, [c.results[0] for c in consts])
        for const in operands:
            if not const.results[0].uses:
                rewriter.erase(const)


def constant_fold(module: ModuleOp, size_limit: int = DEFAULT_SIZE_LIMIT) -> None:
    walker = PatternRewriteWalker(GreedyRewritePatternApplier([ConstantFoldPattern(size_limit)], dce_enabled=False))
    walker.rewrite_module(module)


@dataclass(frozen=True)
class ConstantFold(ModulePass):
    """Folds ops whose operands are all constants; ``size-limit`` caps a folded result's elements."""

    name = "tf-constant-fold"
    size_limit: int = DEFAULT_SIZE_LIMIT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        constant_fold(op, self.size_limit)


# xDSL's canonicalize asks each tf op's TFCanonicalization trait for patterns: fold there too.
if not any(isinstance(p, ConstantFoldPattern) for p in op_module.CANONICALIZATION_PATTERNS):
    op_module.CANONICALIZATION_PATTERNS.append(ConstantFoldPattern())
