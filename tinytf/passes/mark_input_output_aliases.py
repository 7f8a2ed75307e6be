"""``tf-device-mark-input-output-aliases``: mark which cluster_func outputs may reuse which input
buffers, with TensorFlow's (conservative) rules.

    %0 = "tf.ReadVariableOp"(%w) : (...) -> tensor<f32>
    %1 = "tf_device.cluster_func"(%0) <{func = @device}> : (tensor<f32>) -> tensor<f32>
    "tf.AssignVariableOp"(%w, %1) : (...) -> ()
    // becomes: func.func @device(%arg0: tensor<f32> {tf.aliasing_output = 0 : i64}) ...

For each cluster_func: every result with exactly one use that (directly, or through the
tf_device.return of an enclosing tf_device.parallel_execute whose matching result has one use) is
a tf.AssignVariableOp gives that resource its output index; every operand made by a
tf.ReadVariableOp with one use, of a resource already assigned, gives its input index. Two assigns
to one resource, or two reads of one, leave the whole cluster_func unmarked. Resource identity is
the SSA value, as in TensorFlow. An existing ``tf.aliasing_output`` is kept; a different one is an error.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass

from tinytf.ops.resource import AssignVariableOp, ReadVariableOp
from tinytf.ops.tf_device import ClusterFuncOp, ParallelExecuteOp
from tinytf.passes.symbols import arg_attrs, callee, functions, invalid, set_arg_attr

ALIASING_ATTR = "tf.aliasing_output"


def _region_outputs(execute: ParallelExecuteOp, region_index: int) -> list[OpResult]:
    """The parallel_execute results that region ``region_index`` yields (regions yield in order)."""
    start = 0
    for region in execute.regions[:region_index]:
        start += len(region.block.last_op.operands) if region.blocks and region.block.last_op else 0
    count = len(execute.regions[region_index].block.last_op.operands)
    return list(execute.results[start:start + count])


def _assign_of(result: OpResult) -> AssignVariableOp | None:
    """The AssignVariableOp that stores ``result`` (which has one use), seen through parallel_execute."""
    use = result.get_unique_use()
    user = use.operation
    parent = user.parent_op()
    if isinstance(parent, ParallelExecuteOp):
        region_index = parent.regions.index(user.parent_region())
        outputs = _region_outputs(parent, region_index)
        if use.index >= len(outputs):
            return None
        outer = outputs[use.index].get_unique_use()
        if outer is None:
            return None
        user = outer.operation
    return user if isinstance(user, AssignVariableOp) else None


def alias_pairs(cluster_func: ClusterFuncOp) -> dict[int, int]:
    """input index -> output index for the cluster_func's aliasing resources; ``{}`` when it must stay unmarked."""
    outputs: dict[SSAValue, int] = {}
    for result in cluster_func.results:
        if result.get_unique_use() is None:
            continue
        assign = _assign_of(result)
        if assign is None:
            continue
        if assign.resource in outputs:  # two assigns to one resource: TF skips the whole cluster_func
            return {}
        outputs[assign.resource] = result.index
    inputs: dict[SSAValue, int] = {}
    for index, operand in enumerate(cluster_func.operands):
        read = operand.owner
        if not isinstance(read, ReadVariableOp) or read.results[0].get_unique_use() is None:
            continue
        if read.resource not in outputs:
            continue
        if read.resource in inputs:  # two reads of one resource: TF skips the whole cluster_func
            return {}
        inputs[read.resource] = index
    return {inputs[res]: outputs[res] for res in inputs}


def mark_aliases(module: ModuleOp) -> None:
    table = functions(module)
    for op in module.walk():
        if not isinstance(op, ClusterFuncOp):
            continue
        device_func = callee(module, op, table)  # a missing callee is an error even with nothing to mark
        pairs = alias_pairs(op)
        for input_index, output_index in sorted(pairs.items()):
            _set_alias(op, device_func, input_index, output_index)


def _set_alias(op: Operation, device_func, input_index: int, output_index: int) -> None:
    existing = arg_attrs(device_func, input_index).get(ALIASING_ATTR)
    if existing is None:
        set_arg_attr(device_func, input_index, ALIASING_ATTR, IntegerAttr(output_index, i64))
    elif not isinstance(existing, IntegerAttr) or existing.value.data != output_index:
        raise invalid(op, f"argument {input_index} of @{device_func.sym_name.data} already has "
                          f"{ALIASING_ATTR} = {existing}, but output {output_index} aliases it")


@dataclass(frozen=True)
class MarkInputOutputAliases(ModulePass):
    """Sets ``tf.aliasing_output`` on cluster_func callee arguments whose buffer an output may reuse."""

    name = "tf-device-mark-input-output-aliases"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        mark_aliases(op)
