"""``tf-fold-batch-norm``: an inference batch norm after a convolution or matmul folds into its weights.

Keras exports an inference BatchNormalization as a per-channel scale and shift of the layer before it:

    %y = "tf.Conv2D"(%x, %w) ...                    (or tf.MatMul; NHWC, channels last)
    %b = "tf.BiasAdd"(%y, %bias) ...                (optional)
    %m = "tf.Mul"(%b, %scale) : (..., tensor<1x1x1x64xf32>) -> ...
    %n = "tf.AddV2"(%m, %shift) ...

which becomes, as TensorFlow's grappler folds it (conv(x, w) * s + t = conv(x, w * s) + t):

    %s = "tf.Reshape"(%scale, [64]); %t = "tf.Reshape"(%shift, [64])
    %ws = "tf.Mul"(%w, %s)                          (the kernel's output channels are its last dim)
    %y = "tf.Conv2D"(%x, %ws) ...
    %bt = "tf.AddV2"("tf.Mul"(%bias, %s), %t)       (or %t alone without a BiasAdd)
    %n = "tf.BiasAdd"(%y, %bt)

Two passes over the activations (Mul, AddV2) become one (BiasAdd); the new weight ops depend on weights only,
which the graph executor computes once while the variables keep their values (runtime/frozen_reads.py). The
scale and shift must be per-channel vectors (shape [C] or [1, ..., 1, C]) defined before the convolution,
and each intermediate value used once. Values change by rounding only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tinytf.framework import tf_types
from tinytf.passes.symbols import op_name
from tinytf.passes.tf_rewrite import attr, bool_attr, build, carried, const, defining, shape


@dataclass
class _Match:
    add: Operation
    mul: Operation
    bias_add: Operation | None
    layer: Operation  # the Conv2D or MatMul
    scale: SSAValue
    shift: SSAValue
    channels: int


def _string(op: Operation, key: str, default: str) -> str:
    value = attr(op, key)
    return value.data if isinstance(value, StringAttr) else default


def _channel_vector(value: SSAValue, rank: int) -> int | None:
    """C when ``value`` has the static shape [C] or [1, ..., 1, C] (at most ``rank`` dims), else None."""
    dims = shape(value)
    if dims is None or not dims or len(dims) > rank or None in dims or any(d != 1 for d in dims[:-1]):
        return None
    return dims[-1]


def _before(value: SSAValue, op: Operation, position: dict) -> bool:
    """Whether ``value`` is available where ``op`` is (a block argument, or defined earlier in its block)."""
    owner = value.owner
    if isinstance(owner, Block):
        return owner is op.parent
    return owner in position and position[owner] < position[op]


def _layer(value: SSAValue) -> tuple | None:
    """(the Conv2D / MatMul making ``value``, the BiasAdd after it or None, the layer's output rank)."""
    op = defining(value)
    if op is None or not value.has_one_use():
        return None
    bias_add = None
    if op_name(op) == "tf.BiasAdd":
        if _string(op, "data_format", "NHWC") != "NHWC" or not op.operands[0].has_one_use():
            return None
        bias_add, op = op, defining(op.operands[0])
        if op is None:
            return None
    if op_name(op) == "tf.Conv2D" and _string(op, "data_format", "NHWC") == "NHWC":
        return op, bias_add, 4
    if op_name(op) == "tf.MatMul" and not bool_attr(op, "transpose_b"):
        return op, bias_add, 2
    return None


def _match(add: Operation, position: dict) -> _Match | None:
    for scaled, shift in ((add.operands[0], add.operands[1]), (add.operands[1], add.operands[0])):
        mul = defining(scaled, "tf.Mul")
        if mul is None or not scaled.has_one_use():
            continue
        for value, scale in ((mul.operands[0], mul.operands[1]), (mul.operands[1], mul.operands[0])):
            found = _layer(value)
            if found is None:
                continue
            layer, bias_add, rank = found
            channels = _channel_vector(scale, rank)
            out = shape(layer.results[0])
            if channels is None or _channel_vector(shift, rank) != channels or \
                    (out is not None and out[-1] not in (None, channels)):
                continue
            values = [scale, shift, layer.operands[1]] + ([bias_add.operands[1]] if bias_add else [])
            if not all(_before(v, layer, position) for v in values[:2]) or \
                    (bias_add is not None and not _before(bias_add.operands[1], layer, position)):
                continue
            kinds = {tf_types.element_type_of(v.type) for v in values + [add.results[0]]}
            if len(kinds) != 1 or not tf_types.dtype_of(add.results[0].type).is_floating:
                continue
            return _Match(add, mul, bias_add, layer, scale, shift, channels)
    return None


def _vector_type(value: SSAValue, channels: int):
    return tf_types.tensor_type((channels,), tf_types.dtype_of(value.type))


def _rewrite(m: _Match) -> None:
    keep = carried(m.add)
    vector = const(np.array([m.channels], np.int32))
    scale = build("tf.Reshape", [m.scale, vector.results[0]], [_vector_type(m.scale, m.channels)], attributes=keep)
    shift = build("tf.Reshape", [m.shift, vector.results[0]], [_vector_type(m.shift, m.channels)], attributes=keep)
    weights = m.layer.operands[1]
    scaled = build("tf.Mul", [weights, scale.results[0]], [weights.type], attributes=keep)
    new = [vector, scale, shift, scaled]
    bias = shift
    if m.bias_add is not None:
        old = m.bias_add.operands[1]
        times = build("tf.Mul", [old, scale.results[0]], [_vector_type(old, m.channels)], attributes=keep)
        bias = build("tf.AddV2", [times.results[0], shift.results[0]], [_vector_type(old, m.channels)],
                     attributes=keep)
        new += [times, bias]
    block = m.layer.parent
    block.insert_ops_before(new, m.layer)
    m.layer.operands = [m.layer.operands[0], scaled.results[0], *m.layer.operands[2:]]
    result = build("tf.BiasAdd", [m.layer.results[0], bias.results[0]], [m.add.results[0].type],
                   properties={"data_format": StringAttr("NHWC")}, attributes=keep)
    block.insert_op_before(result, m.add)
    m.add.results[0].replace_all_uses_with(result.results[0])
    for op in (m.add, m.mul, m.bias_add):
        if op is not None:
            op.detach()
            op.erase()


def fold_block(block: Block) -> int:
    """Fold every batch norm of ``block`` into its layer; how many were folded."""
    folded = 0
    position = {op: i for i, op in enumerate(block.ops)}
    for op in list(block.ops):
        if op.parent is block and op_name(op) == "tf.AddV2":
            found = _match(op, position)
            if found is not None:
                _rewrite(found)
                folded += 1
                position = {o: i for i, o in enumerate(block.ops)}
    return folded


def fold_module(module: ModuleOp) -> int:
    return sum(fold_block(block) for fn in module.ops if isinstance(fn, func.FuncOp) for block in fn.body.blocks)


def has_batch_norm_to_fold(module: ModuleOp) -> bool:
    """Whether the pass would change ``module`` (without changing it)."""
    for fn in module.ops:
        if isinstance(fn, func.FuncOp):
            for block in fn.body.blocks:
                position = {op: i for i, op in enumerate(block.ops)}
                if any(op_name(op) == "tf.AddV2" and _match(op, position) is not None for op in block.ops):
                    return True
    return False


def folded(module: ModuleOp) -> ModuleOp:
    """``module`` with its batch norms folded (a copy: the module itself when there is nothing to fold), as
    the graph executor runs a loaded model (XLA fuses on its own)."""
    if not has_batch_norm_to_fold(module):
        return module
    copy = module.clone()
    fold_module(copy)
    return copy


@dataclass(frozen=True)
class FoldBatchNorm(ModulePass):
    """Folds inference batch norms (a per-channel Mul and AddV2) into the convolution or matmul before them."""

    name = "tf-fold-batch-norm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fold_module(op)
