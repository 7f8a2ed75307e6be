"""``tf-device-cluster-outlining``: move each ``tf_device.cluster`` body into a new private function
called by ``tf_device.cluster_func``; values the body uses from outside become its arguments.

    %0 = "tf_device.cluster"() ({
      %1 = "tf.Mul"(%x, %x) : ...
      "tf_device.return"(%1) : (tensor<f32>) -> ()
    }) {_xla_compile_device_type = "CPU"} : () -> tensor<f32>
    // becomes:
    %0 = "tf_device.cluster_func"(%x) <{func = @_func}> {_xla_compile_device_type = "CPU"} : (tensor<f32>) -> tensor<f32>
    func.func private @_func(%arg0: tensor<f32>) -> tensor<f32> { ... func.return %1 ... }

The cluster's discardable attributes and its location move to the cluster_func; the function is
named ``_func`` (``_func_0``, ``_func_1``, ... when taken), as TensorFlow names them, or what the
cluster's ``_cluster_outlined_function_name`` says, and is placed after its caller.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tinytf.framework.op import SOURCE_SPAN
from tinytf.ops.tf_device import ClusterFuncOp, ClusterOp
from tinytf.ops.tf_device import ReturnOp as DeviceReturnOp
from tinytf.passes.symbols import fresh_symbol, functions, invalid


def _inside(op: Operation | None, cluster: Operation) -> bool:
    while op is not None:
        if op is cluster:
            return True
        op = op.parent_op()
    return False


def _defined_inside(value: SSAValue, cluster: Operation) -> bool:
    owner = value.owner
    return _inside(owner if isinstance(owner, Operation) else owner.parent_op(), cluster)


def captured_values(cluster: ClusterOp) -> list[SSAValue]:
    """Values used in the cluster's body but defined outside it, in order of first use."""
    seen: dict[SSAValue, None] = {}
    for op in cluster.body.walk():
        for value in op.operands:
            if value not in seen and not _defined_inside(value, cluster):
                seen[value] = None
    return list(seen)


def outline(cluster: ClusterOp, module: ModuleOp, table: dict[str, FuncOp]) -> ClusterFuncOp:
    block = cluster.body.block
    terminator = block.last_op
    if not isinstance(terminator, DeviceReturnOp):
        raise invalid(cluster, "body must end with tf_device.return")
    if [v.type for v in terminator.operands] != [r.type for r in cluster.results]:
        raise invalid(cluster, "tf_device.return types do not match the cluster's result types")
    captured = captured_values(cluster)
    wanted = cluster.attributes.get("_cluster_outlined_function_name")
    name = fresh_symbol(table, wanted.data if isinstance(wanted, StringAttr) else "_func")
    fn_block = Block(arg_types=[v.type for v in captured])
    for value, arg in zip(captured, fn_block.args):
        value.replace_uses_with_if(arg, lambda use: _inside(use.operation, cluster))
    for op in list(block.ops):
        op.detach()
        if op is terminator:
            fn_block.add_op(ReturnOp(*op.operands))
            op.erase()
        else:
            fn_block.add_op(op)
    fn = FuncOp(name, ([v.type for v in captured], [r.type for r in cluster.results]),
                Region(fn_block), visibility="private")
    table[name] = fn
    caller = cluster
    while caller.parent_op() is not module:
        caller = caller.parent_op()
    module.body.block.insert_op_after(fn, caller)
    call = ClusterFuncOp.build(operands=[captured], result_types=[[r.type for r in cluster.results]],
                               properties={"func": SymbolRefAttr(name)},
                               attributes=dict(cluster.attributes))
    call.location = cluster.location
    if SOURCE_SPAN in cluster.__dict__:  # (an island printed as `wraps` needs one location for both)
        call.__dict__[SOURCE_SPAN] = cluster.__dict__[SOURCE_SPAN]
    parent = cluster.parent_block()
    parent.insert_op_before(call, cluster)
    for old, new in zip(cluster.results, call.results):
        old.replace_all_uses_with(new)
    cluster.detach()
    cluster.erase()
    return call


def outline_clusters(module: ModuleOp) -> None:
    table = functions(module)
    clusters = [op for op in module.walk() if isinstance(op, ClusterOp)]
    for cluster in reversed(clusters):  # innermost first, so a nested cluster is outlined before its parent
        outline(cluster, module, table)


@dataclass(frozen=True)
class ClusterOutlining(ModulePass):
    """Outlines each tf_device.cluster into a private function called by tf_device.cluster_func."""

    name = "tf-device-cluster-outlining"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        outline_clusters(op)
