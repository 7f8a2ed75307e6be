"""``tf-constant-fold``: TensorFlow's folding of tf ops, without its other canonicalizations: each
op's folder and its traits' folds (``tf_canonicalization``), then the constant-folding hook, which
computes an op whose operands are all constants (``tf.Const`` or ``arith.constant``) with the op's
own ``compute`` rule (numpy). ``canonicalize`` runs the same folds before its patterns.

    %a = "tf.Const"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %b = "tf.Mul"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    // becomes: %b = "tf.Const"() <{value = dense<4.0> : tensor<f32>}> : () -> tensor<f32>

The hook refuses what TensorFlow's refuses (``CanBeFolded`` and its size policy): ops without
results, with regions, with side effects (stateful and resource ops), with ``NoConstantFold``
(``tf.Identity``, which keeps an int8 weight from being folded back to float; the stateless random
ops), with variant results, and calls; operands over 2^30 bits; results over 2^16 bits that are
also more than twice the operands. tinytf also refuses ops without ``compute`` or with a
``kernel`` (run time uses it instead), results over ``size-limit`` elements, and any op whose
``infer`` or ``compute`` fails on the constants (left for run time to report). Ops whose results
are all empty numeric tensors fold to empty constants, as TensorFlow's hook does. A folded
constant keeps the op's declared result type (``dense<[1, 2]> : tensor<2xi32>`` typed ``tensor<?xi32>``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.traits import Pure

from tinytf.framework import op as op_module
from tinytf.framework import tf_types
from tinytf.framework.attributes import numpy_to_dense
from tinytf.framework.op import NoConstantFold, Op
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.array import Const
from tinytf.passes import tf_op_traits as traits
from tinytf.passes import tf_rewrite as tfr
from tinytf.passes.symbols import CALL_OPS, op_name

DEFAULT_SIZE_LIMIT = 1 << 20  # elements of one folded result
RESULTS_BITS = 1 << 16  # TensorFlow's policy: results up to 64 Kib, or up to twice the operands
OPERANDS_BITS = 1 << 30  # and never operands over 1 Gib
_NO_FOLD = {"tf.While", "tf.If", "tf.Case", "tf.StatelessWhile", "tf.StatelessIf", "tf.StatelessCase", *CALL_OPS}


def can_be_folded(op: Operation) -> bool:
    """TensorFlow's ``CanBeFolded``: results, no regions, no side effects, no NoConstantFold, no variants, no calls."""
    if not op.results or op.regions or not tfr.is_pure(op) or tfr.is_constant(op):
        return False
    if tfr.tf_name(op) in traits.NO_CONSTANT_FOLD or (not isinstance(op, UnregisteredOp) and op.has_trait(NoConstantFold)):
        return False
    if op_name(op) in _NO_FOLD:
        return False
    return not any(tf_types.dtype_of(r.type).name == "variant" for r in op.results if _is_tensor(r.type))


def _is_tensor(type_) -> bool:
    try:
        tf_types.dtype_of(type_)
        return True
    except Exception:
        return False


def _bits(types) -> int:
    total = 0
    for type_ in types:
        shape = tf_types.shape_of(type_)
        if not tf_types.is_static(shape):
            continue
        try:
            dtype = tf_types.dtype_of(type_)
        except Exception:
            continue
        if dtype.is_numeric or dtype.is_bool:
            total += math.prod(shape) * (1 if dtype.is_bool else 8 * dtype.np.itemsize)
    return total


def size_policy_allows(op: Operation) -> bool:
    operands = _bits(v.type for v in op.operands)
    results = _bits(r.type for r in op.results)
    return operands <= OPERANDS_BITS and (results <= RESULTS_BITS or results <= 2 * operands)


def _empty_numeric(type_) -> bool:
    shape = tf_types.shape_of(type_)
    if not tf_types.is_static(shape) or math.prod(shape) != 0:
        return False
    try:
        dtype = tf_types.dtype_of(type_)
    except Exception:
        return False
    return dtype.is_numeric or dtype.is_bool


def _static_size(type_) -> int | None:
    shape = tf_types.shape_of(type_)
    return math.prod(shape) if tf_types.is_static(shape) else None


def is_foldable(op: Operation) -> bool:
    """tinytf's own rule for traced graphs (``tt.function``): a ``Pure`` tinytf op on ``tf.Const`` operands."""
    # cheapest test first: most ops have an operand that is not a constant
    return (all(isinstance(v.owner, Const) for v in op.operands)
            and isinstance(op, Op) and not isinstance(op, Const) and bool(op.results)
            and op.has_trait(Pure) and not op.has_trait(NoConstantFold))


def fold(op: Operation, size_limit: int = DEFAULT_SIZE_LIMIT, tf_rules: bool = True) -> list[np.ndarray] | None:
    """The op's results as arrays of their declared dtypes, or ``None`` when it must not or cannot fold.
    ``tf_rules``: TensorFlow's ``CanBeFolded`` and size policy; else tinytf's rule for traced graphs."""
    if tf_rules:
        if not op.results or not can_be_folded(op) or not size_policy_allows(op):
            return None
    elif not is_foldable(op):
        return None
    try:
        dtypes = [tf_types.dtype_of(r.type) for r in op.results]
    except Exception:
        return None
    if tf_rules and all(_empty_numeric(r.type) for r in op.results):
        return [np.zeros(tf_types.shape_of(r.type), d.np) for r, d in zip(op.results, dtypes)]
    arrays = [tfr.constant_of(v) for v in op.operands]
    if any(a is None for a in arrays) or not isinstance(op, Op):
        return None
    if getattr(type(op), "compute", None) is None or getattr(type(op), "kernel", None) is not None:
        return None  # run time would use the kernel, not compute
    try:
        if any(not (d.is_numeric or d.is_bool) for d in dtypes):
            return None
        if any((n := _static_size(r.type)) is not None and n > size_limit for r in op.results):
            return None
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
    """What xDSL's ``canonicalize`` runs on tf ops (``tt.function``'s graph optimizer): only constant
    folding with tinytf's rule, the op replaced by ``tf.Const``s and the operand constants left
    without users erased. TensorFlow's folders and patterns are ``tinytf-opt``'s ``canonicalize``."""

    def __init__(self, size_limit: int = DEFAULT_SIZE_LIMIT):
        self.size_limit = size_limit

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        values = fold(op, self.size_limit, tf_rules=False)
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
    from tinytf.passes.tf_canonicalization import TFCanonicalization

    walker = PatternRewriteWalker(GreedyRewritePatternApplier(
        [TFCanonicalization(patterns=False, size_limit=size_limit)], dce_enabled=False))
    walker.rewrite_module(module)


@dataclass(frozen=True)
class ConstantFold(ModulePass):
    """Folds tf ops as TensorFlow does (folders, trait folds, constant operands); ``size-limit`` caps a result's elements."""

    name = "tf-constant-fold"
    size_limit: int = DEFAULT_SIZE_LIMIT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        constant_fold(op, self.size_limit)


# xDSL's canonicalize asks each tf op's TFCanonicalization trait for patterns: fold there, as before.
if not any(isinstance(p, ConstantFoldPattern) for p in op_module.CANONICALIZATION_PATTERNS):
    op_module.CANONICALIZATION_PATTERNS.append(ConstantFoldPattern())
