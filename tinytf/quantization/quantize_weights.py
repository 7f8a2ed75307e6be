"""``tf-quantize-weights``: float weight constants become int8 constants, dequantized in the graph
with TensorFlow's pattern (the ``tf.Identity`` keeps constant folding from undoing it).

    %w = "tf.Const"() <{value = dense<...> : tensor<64x32xf32>}> : () -> tensor<64x32xf32>
    %y = "tf.MatMul"(%x, %w) <{...}> : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
    // becomes (per channel, symmetric, inline):
    %scale = "tf.Const"() <{value = dense<[...]> : tensor<32xf32>}> : () -> tensor<32xf32>
    %zp = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %q = "tf.Const"() <{value = dense<"0x..."> : tensor<64x32xi8>}> : () -> tensor<64x32xi8>
    %0 = "tf.Identity"(%q) : (tensor<64x32xi8>) -> tensor<64x32xi8>
    %1 = "tf.Cast"(%0) <{Truncate = false}> : (tensor<64x32xi8>) -> tensor<64x32xi32>
    %2 = "tf.Sub"(%1, %zp) : (tensor<64x32xi32>, tensor<i32>) -> tensor<64x32xi32>
    %3 = "tf.Cast"(%2) <{Truncate = false}> : (tensor<64x32xi32>) -> tensor<64x32xf32>
    %4 = "tf.Mul"(%3, %scale) : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
    %y = "tf.MatMul"(%x, %4) ...

    tinytf-opt m.mlir -p 'tf-quantize-weights{per-channel=false symmetric=false min-elements=16 inline=false}'

With ``inline=false`` the chain is the private function ``@dequantize_i8(%input: tensor<*xi8>,
%scale: tensor<*xf32>, %zp: tensor<*xi32>) -> tensor<*xf32>`` of TensorFlow's quantized function
library, called through ``tf.PartitionedCall``.

Weights: ``b`` of tf.MatMul and ``y`` of tf.BatchMatMulV2 (channel: their output column), the HWIO
``filter`` of tf.Conv2D (O), the [H, W, C, M] ``filter`` of tf.DepthwiseConv2dNative (each (C, M)
pair is an output channel), a constant operand of a two-input tf.Einsum (a label it keeps in the
output that the other input lacks), and ``params`` of tf.GatherV2 (one scale per gathered row).
A weight is a float ``tf.Const`` with at least ``min-elements`` elements, possibly seen through
``tf.Identity`` and float-to-float ``tf.Cast``; one that is also used other than as such a weight
stays float (quantizing it would add bytes and error and remove nothing).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

import tinytf.dtypes as dtypes
from tinytf.framework import tf_types
from tinytf.framework.attributes import numpy_to_dense
from tinytf.ops.array import Cast, Const, Identity
from tinytf.ops.conv import Conv2D, DepthwiseConv2dNative
from tinytf.ops.functional import PartitionedCall
from tinytf.ops.gather import GatherV2
from tinytf.ops.linalg import BatchMatMulV2, Einsum
from tinytf.ops.math import MatMul, Mul, Sub
from tinytf.passes.symbols import fresh_symbol, functions
from tinytf.quantization.int8 import QuantizedWeight, quantize

WEIGHT_OPS = (MatMul, BatchMatMulV2, Conv2D, DepthwiseConv2dNative, Einsum, GatherV2)


# --- which operand is the weight, and which of its axes are output channels -------------------

def weight_indices(op: Operation) -> tuple[int, ...]:
    """Operand indices of ``op`` that may be a weight (in order of preference)."""
    if isinstance(op, GatherV2):
        return (0,)
    if isinstance(op, Einsum):
        return (1, 0) if len(op.operands) == 2 else ()
    if isinstance(op, WEIGHT_OPS):
        return (1,)
    return ()


def channel_axes(op: Operation, index: int, rank: int) -> tuple[int, ...] | None:
    """The weight's output-channel axes (``()``: per tensor only); ``None`` when the op's use of the
    weight is not understood (then it is not quantized)."""
    attrs = op.attr_values()
    if isinstance(op, MatMul):
        return ((0,) if attrs["transpose_b"] else (1,)) if rank == 2 else None
    if isinstance(op, BatchMatMulV2):
        return ((rank - 2,) if attrs["adj_y"] else (rank - 1,)) if rank >= 2 else None
    if isinstance(op, DepthwiseConv2dNative):
        return (2, 3) if rank == 4 else None
    if isinstance(op, Conv2D):
        return (3,) if rank == 4 else None
    if isinstance(op, GatherV2):
        axis = _int_constant(op.operands[2])
        if axis is None or attrs["batch_dims"] != 0:
            return ()  # rows not known statically: one scale for the table
        return (axis % rank,) if -rank <= axis < rank else None
    if isinstance(op, Einsum):
        return _einsum_axes(attrs["equation"], index, rank)
    return None


def _einsum_axes(equation: str, index: int, rank: int) -> tuple[int, ...] | None:
    equation = equation.replace(" ", "")
    if "->" not in equation:
        return None
    inputs, output = equation.split("->")
    terms = inputs.split(",")
    if len(terms) != 2:
        return None
    term, other = terms[index], terms[1 - index]
    if "." in term:
        return ()  # axes under an ellipsis are not named: per tensor
    if len(term) != rank:
        return None
    kept = [i for i, label in enumerate(term) if label in output and label not in other]
    return (kept[-1],) if kept else ()


def _int_constant(value: SSAValue) -> int | None:
    if isinstance(value.owner, Const):
        array = value.owner.attr_values()["value"]
        if array.size == 1 and array.dtype.kind in "iu":
            return int(array.reshape(()))
    return None


# --- the weight behind an operand ---------------------------------------------------------------

def _is_float_cast(op: Operation) -> bool:
    return (isinstance(op, Cast) and tf_types.dtype_of(op.operands[0].type).is_floating
            and tf_types.dtype_of(op.results[0].type).is_floating)


def source_constant(value: SSAValue) -> tuple[Const, list[Operation]] | None:
    """The ``tf.Const`` a value comes from through tf.Identity / float tf.Cast, and those ops."""
    chain = []
    op = value.owner
    while isinstance(op, Identity) or (isinstance(op, Operation) and _is_float_cast(op)):
        chain.append(op)
        op = op.operands[0].owner
    return (op, chain) if isinstance(op, Const) else None


def _only_weight_uses(value: SSAValue) -> bool:
    """Every use of ``value`` (through Identity / float Cast) is a weight operand of a weight op."""
    for use in value.uses:
        user = use.operation
        if isinstance(user, Identity) or _is_float_cast(user):
            if not _only_weight_uses(user.results[0]):
                return False
        elif use.index not in weight_indices(user):
            return False
    return True


# --- building the dequantize pattern -----------------------------------------------------------

def _build(cls, operands, result_type, **attrs) -> Operation:
    return cls.build(operands=list(operands), result_types=[result_type], properties=cls.attrs_to_properties(attrs))


def _const(array: np.ndarray) -> Const:
    dense = numpy_to_dense(array)
    return Const.build(properties={"value": dense}, result_types=[dense.type])


def dequantize_ops(q: SSAValue, scale: SSAValue, zp: SSAValue, shape, dtype: dtypes.DType) -> list[Operation]:
    """TensorFlow's chain on ``q``: Identity, Cast i8->i32, Sub zero point, Cast i32->float, Mul scale."""
    identity = _build(Identity, [q], tf_types.tensor_type(shape, dtypes.int8))
    widened = _build(Cast, [identity.results[0]], tf_types.tensor_type(shape, dtypes.int32), Truncate=False)
    centered = _build(Sub, [widened.results[0], zp], tf_types.tensor_type(shape, dtypes.int32))
    floated = _build(Cast, [centered.results[0]], tf_types.tensor_type(shape, dtype), Truncate=False)
    scaled = _build(Mul, [floated.results[0], scale], tf_types.tensor_type(shape, dtype))
    return [identity, widened, centered, floated, scaled]


def dequantize_function(module: ModuleOp, dtype: dtypes.DType) -> str:
    """The symbol of ``@dequantize_i8`` (``@dequantize_i8_<dtype>`` for non-f32), added if missing."""
    base = "dequantize_i8" if dtype == dtypes.float32 else f"dequantize_i8_{dtype.name}"
    inputs = [tf_types.tensor_type(None, d) for d in (dtypes.int8, dtype, dtypes.int32)]
    output = tf_types.tensor_type(None, dtype)
    table = functions(module)
    existing = table.get(base)
    if existing is not None and list(existing.function_type.inputs.data) == inputs \
            and list(existing.function_type.outputs.data) == [output]:
        return base
    name = fresh_symbol(table, base)
    block = Block(arg_types=inputs)
    chain = dequantize_ops(*block.args, None, dtype)
    block.add_ops([*chain, ReturnOp(chain[-1].results[0])])
    fn = FuncOp(name, FunctionType.from_lists(inputs, [output]), Region(block), visibility=StringAttr("private"))
    for arg, arg_name in zip(block.args, ("input", "scale", "zp")):
        arg.name_hint = arg_name
    module.body.block.add_op(fn)
    return name


# --- the rewrite -------------------------------------------------------------------------------

@dataclass
class QuantizedSite:
    """One weight the pass replaced: where it is used and its bytes before and after."""

    op: str
    shape: tuple[int, ...]
    channel_axes: tuple[int, ...]
    float_bytes: int
    int8_bytes: int


def quantize_weights(module: ModuleOp, per_channel: bool = True, symmetric: bool = True,
                     min_elements: int = 1024, inline: bool = True) -> list[QuantizedSite]:
    """Rewrite every eligible weight of ``module``; what was quantized, one entry per weight."""
    sites: list[QuantizedSite] = []
    stored: dict[tuple, tuple[QuantizedWeight, list[Const]]] = {}  # (weight const, axes) -> int8 consts
    chains: dict[tuple, SSAValue] = {}  # (weight const, axes, block) -> dequantized value
    dead: list[Operation] = []
    for op in list(module.walk()):
        for index in weight_indices(op):
            found = source_constant(op.operands[index])
            if found is None:
                continue
            const, passed = found
            weight = const.attr_values()["value"]
            dtype = tf_types.dtype_of(op.operands[index].type)
            if not (weight.dtype.kind == "f" and dtype.is_floating) or weight.size < max(min_elements, 1):
                continue
            axes = channel_axes(op, index, weight.ndim)
            if axes is None or not _only_weight_uses(const.results[0]):
                continue
            axes = axes if per_channel else ()
            key = (const, axes)
            if key not in stored:
                q = quantize(np.asarray(weight, dtype.np), axes, symmetric)
                new = [_const(q.scale), _const(q.zero_point), _const(q.values)]
                Rewriter.insert_op(new, InsertPoint.before(const))
                stored[key] = (q, new)
                sites.append(QuantizedSite(op.name, tuple(weight.shape), axes,
                                           weight.astype(dtype.np).nbytes, q.nbytes))
            q, (scale, zp, values) = stored[key]
            block = op.parent_block()
            chain_key = (const, axes, block)
            if chain_key not in chains:
                shape = tuple(weight.shape)
                if inline:
                    new_ops = dequantize_ops(values.results[0], scale.results[0], zp.results[0], shape, dtype)
                else:
                    callee = dequantize_function(module, dtype)
                    operands = [values.results[0], scale.results[0], zp.results[0]]
                    new_ops = [PartitionedCall.build(  # variadic args and results: one list each
                        operands=[operands], result_types=[[tf_types.tensor_type(shape, dtype)]],
                        properties=PartitionedCall.attrs_to_properties(
                            {"config": "", "config_proto": "", "executor_type": "", "f": callee}))]
                Rewriter.insert_op(new_ops, InsertPoint.before(op))
                chains[chain_key] = new_ops[-1].results[0]
            op.operands[index] = chains[chain_key]
            dead.extend([*passed, const])
            break
    for op in dead:  # the float weight and the Identity / Cast it came through, once unused
        if op.parent is not None and not any(r.uses for r in op.results):
            Rewriter.erase_op(op)
    return sites


def constant_bytes(module: ModuleOp) -> int:
    """Bytes of every ``tf.Const`` value in the module: a model's weights once its variables are frozen."""
    return sum(op.attr_values()["value"].nbytes for op in module.walk() if isinstance(op, Const))


@dataclass(frozen=True)
class QuantizeWeights(ModulePass):
    """Stores large float weights as int8 with TensorFlow's dequantize pattern (see the module docstring)."""

    name = "tf-quantize-weights"
    per_channel: bool = True
    symmetric: bool = True
    min_elements: int = 1024
    inline: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        quantize_weights(op, self.per_channel, self.symmetric, self.min_elements, self.inline)
