"""``tf-device-cluster-function-body``: wrap each public function's computation in one
``tf_device.cluster``, with variable reads before it and variable writes after it, the shape the
TF-to-XLA bridge compiles and ``tf-device-mark-input-output-aliases`` pairs up.

    %w = "tf.ReadVariableOp"(%arg0) : (...) -> tensor<3xf32>
    %0 = "tf_device.cluster"() ({
      %1 = "tf.Mul"(%w, %c) : ...
      "tf_device.return"(%1) : (tensor<3xf32>) -> ()
    }) : () -> tensor<3xf32>
    "tf.AssignVariableOp"(%arg0, %0) : (...) -> ()

- A ``tf.ReadVariableOp`` of a resource defined outside the cluster moves before it, unless a
  write to that resource comes first; later reads of a resource already read reuse the first read
  (a read is a snapshot, and no write comes between).
- A ``tf.AssignVariableOp`` moves after it when nothing later touches its resource.
- ``tf.AssignSubVariableOp`` / ``tf.AssignAddVariableOp`` are first decomposed, as TensorFlow's
  ``tf-decompose-resource-ops`` does, into read, ``tf.Sub`` / ``tf.AddV2`` and ``tf.AssignVariableOp``,
  so the update is computed in the cluster and the plain assign can alias the variable's buffer.
- ``tf.VarHandleOp`` stays outside. Functions that already have a cluster are left alone.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tinytf.framework import tf_types
from tinytf.ops.resource import AssignVariableOp, ReadVariableOp
from tinytf.ops.tf_device import ClusterFuncOp, ClusterOp, ReturnOp
from tinytf.passes.decompose_resource_ops import decompose
from tinytf.passes.symbols import is_private, op_name

_UPDATES = ("tf.AssignSubVariableOp", "tf.AssignAddVariableOp")
_OUTSIDE = ("tf.VarHandleOp",)


def decompose_updates(block: Block) -> None:
    """``AssignSubVariableOp(r, d)`` -> ``AssignVariableOp(r, Sub(ReadVariableOp(r), d))`` (and Add), by
    tf-device-decompose-resource-ops' rules."""
    decompose([op for op in block.ops if op_name(op) in _UPDATES])


def _touches(op: Operation, resource: SSAValue) -> bool:
    return any(v is resource for v in op.operands) or any(
        _touches(inner, resource) for region in op.regions for inner in region.walk())


def _writes(op: Operation) -> set[SSAValue]:
    """The resource values an op may write (conservatively: every resource operand of a non-read)."""
    if isinstance(op, ReadVariableOp):
        return set()
    operands = [v for inner in op.walk() for v in inner.operands]
    return {v for v in operands if tf_types.is_resource(v.type)}


def form_cluster(fn: FuncOp) -> ClusterOp | None:
    block = fn.body.block
    decompose_updates(block)
    body = list(block.ops)[:-1]  # everything but the terminator
    outside_values = set(block.args)
    before: list[Operation] = []
    first_read: dict[SSAValue, ReadVariableOp] = {}
    written: set[SSAValue] = set()
    for op in body:
        if op_name(op) in _OUTSIDE and all(v in outside_values for v in op.operands):
            before.append(op)
            outside_values.update(op.results)
        elif isinstance(op, ReadVariableOp) and op.resource in outside_values and op.resource not in written:
            earlier = first_read.get(op.resource)
            if earlier is not None and _can_reuse(earlier, op):
                op.results[0].replace_all_uses_with(earlier.results[0])
                op.detach()
                op.erase()
                continue
            first_read.setdefault(op.resource, op)
            before.append(op)
            outside_values.update(op.results)
        else:
            written |= _writes(op)
    body = [op for op in list(block.ops)[:-1] if op not in before]
    after: list[Operation] = []
    for i in range(len(body) - 1, -1, -1):
        op = body[i]
        if (isinstance(op, AssignVariableOp) and op.resource in outside_values
                and not any(_touches(later, op.resource) for later in body[i + 1:] if later not in after)):
            after.insert(0, op)
    inside = [op for op in body if op not in after]
    if not inside:
        return None
    return _wrap(block, inside, after)


def _can_reuse(earlier: ReadVariableOp, op: ReadVariableOp) -> bool:
    """A later read may use an earlier read's value when the types agree or only tf ops see it."""
    if earlier.results[0].type == op.results[0].type:
        return True
    return all(op_name(use.operation).startswith("tf.") for use in op.results[0].uses)


def _wrap(block: Block, inside: list[Operation], after: list[Operation]) -> ClusterOp:
    inside_set = set(inside)
    escaping: list[SSAValue] = []
    for op in inside:
        for result in op.results:
            if any(_top_level(use.operation, block) not in inside_set for use in result.uses):
                escaping.append(result)
    terminator = block.last_op
    cluster_block = Block()
    cluster = ClusterOp.build(regions=[Region(cluster_block)], result_types=[[v.type for v in escaping]])
    block.insert_op_before(cluster, terminator)  # after the reads left outside, which stay in place
    for op in inside:
        op.detach()
        cluster_block.add_op(op)
    cluster_block.add_op(ReturnOp.build(operands=[escaping]))
    for value, result in zip(escaping, cluster.results):
        for use in list(value.uses):
            if _top_level(use.operation, block) is not cluster:
                use.operation.operands[use.index] = result
    for op in after:
        op.detach()
        block.insert_op_before(op, terminator)
    return cluster


def _top_level(op: Operation, block: Block) -> Operation | None:
    """The ancestor of ``op`` (or ``op`` itself) that sits directly in ``block``."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


def form_clusters(module: ModuleOp) -> None:
    for fn in list(module.ops):
        if not isinstance(fn, FuncOp) or is_private(fn) or not fn.body.blocks:
            continue
        if any(isinstance(op, ClusterOp | ClusterFuncOp) for op in fn.walk()):
            continue
        form_cluster(fn)


@dataclass(frozen=True)
class ClusterFunctionBody(ModulePass):
    """Wraps each public function's computation in one tf_device.cluster (reads before, writes after)."""

    name = "tf-device-cluster-function-body"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        form_clusters(op)
