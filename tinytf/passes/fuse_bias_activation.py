"""``tf-fuse-bias-activation``: grappler's remapper fusions of a layer, its bias and its activation.

    %y = "tf.Conv2D"(%x, %w) <{...}>                (or tf.DepthwiseConv2dNative, tf.MatMul)
    %b = "tf.BiasAdd"(%y, %bias) <{data_format = "NHWC"}>
    %r = "tf.Relu"(%b)                              (optional: Relu, Relu6, Elu or LeakyRelu)

becomes, as TensorFlow's remapper rewrites it before running a graph on CPU:

    %r = "tf._FusedConv2D"(%x, %w, %bias) <{..., epsilon = 1.000000e-04 : f32, fused_ops = ["BiasAdd", "Relu"],
           leakyrelu_alpha = 2.000000e-01 : f32}>      (num_args = 1 is derived from the operands)

(tinytf/ops/nn_fused.py), whose numpy kernel adds the bias and applies the activation in place on the
product's buffer. Only NHWC layers of floating dtype fuse, and only when each intermediate value has one use
(the BiasAdd's input; the activation's input). Run after ``tf-fold-batch-norm``, whose BiasAdds it fuses.
Values are unchanged bit for bit.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, ModuleOp, StringAttr, f32
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from tinytf.framework import tf_types
from tinytf.passes.symbols import op_name
from tinytf.passes.tf_rewrite import attr, bool_attr, build, carried, defining, inherent

_FUSED = {"tf.Conv2D": "tf._FusedConv2D", "tf.DepthwiseConv2dNative": "tf._FusedDepthwiseConv2dNative",
          "tf.MatMul": "tf._FusedMatMul"}
_ACTIVATIONS = ("tf.Relu", "tf.Relu6", "tf.Elu", "tf.LeakyRelu")


def _nhwc(op: Operation) -> bool:
    value = attr(op, "data_format")
    return not isinstance(value, StringAttr) or value.data == "NHWC"


def _layer(bias_add: Operation) -> Operation | None:
    """The layer whose only use is ``bias_add``'s value operand, when it can fuse with it."""
    value = bias_add.operands[0]
    layer = defining(value)
    if layer is None or op_name(layer) not in _FUSED or not value.has_one_use() or not _nhwc(bias_add):
        return None
    if layer.parent is not bias_add.parent or not _nhwc(layer):
        return None
    if op_name(layer) == "tf.MatMul" and (bool_attr(layer, "grad_a") or bool_attr(layer, "grad_b")):
        return None  # a gradient's matmul: not an inference graph
    if not tf_types.dtype_of(bias_add.results[0].type).is_floating:
        return None
    return layer


def _activation(bias_add: Operation) -> Operation | None:
    result = bias_add.results[0]
    if not result.has_one_use():
        return None
    user = next(iter(result.uses)).operation
    if op_name(user) in _ACTIVATIONS and user.parent is bias_add.parent and user.operands[0] is result:
        return user
    return None


def _rewrite(layer: Operation, bias_add: Operation, activation: Operation | None) -> None:
    last = activation or bias_add
    props = inherent(layer)
    for key in ("grad_a", "grad_b"):
        props.pop(key, None)
    alpha = attr(activation, "alpha") if activation is not None else None
    props.update({
        "fused_ops": ArrayAttr([StringAttr("BiasAdd")] + ([StringAttr(op_name(activation)[3:])] if activation else [])),
        "epsilon": FloatAttr(0.0001, f32),
        "leakyrelu_alpha": alpha if isinstance(alpha, FloatAttr) else FloatAttr(0.2, f32),
    })
    fused = build(_FUSED[op_name(layer)], [layer.operands[0], layer.operands[1], bias_add.operands[1]],
                  [last.results[0].type], properties=props, attributes=carried(layer))
    last.parent.insert_op_before(fused, last)
    last.results[0].replace_all_uses_with(fused.results[0])
    for op in (activation, bias_add, layer):
        if op is not None:
            op.detach()
            op.erase()


def fuse_block(block: Block) -> int:
    """Fuse every layer + BiasAdd (+ activation) chain of ``block``; how many were fused."""
    fused = 0
    for op in list(block.ops):
        if op.parent is block and op_name(op) == "tf.BiasAdd":
            layer = _layer(op)
            if layer is not None:
                _rewrite(layer, op, _activation(op))
                fused += 1
    return fused


def _blocks(module: ModuleOp):
    return [block for fn in module.ops if isinstance(fn, func.FuncOp) for block in fn.body.blocks]


def fuse_module(module: ModuleOp) -> int:
    return sum(fuse_block(block) for block in _blocks(module))


def fused(module: ModuleOp) -> ModuleOp:
    """``module`` with its chains fused (a copy: the module itself when nothing fuses), as the graph executor
    runs a loaded model (XLA fuses on its own)."""
    if not any(op_name(op) == "tf.BiasAdd" and _layer(op) is not None for b in _blocks(module) for op in b.ops):
        return module
    copy = module.clone()
    fuse_module(copy)
    return copy


@dataclass(frozen=True)
class FuseBiasActivation(ModulePass):
    """Fuses Conv2D / DepthwiseConv2dNative / MatMul + BiasAdd (+ Relu, Relu6, Elu, LeakyRelu) into one op."""

    name = "tf-fuse-bias-activation"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fuse_module(op)
