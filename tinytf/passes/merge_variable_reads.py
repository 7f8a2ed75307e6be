"""``tf-merge-variable-reads``: a ``tf.ReadVariableOp`` of a resource already read in the same block,
with nothing in between that may write it, is replaced by the earlier read.

    %0 = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
    %1 = "tf.Mul"(%0, %x) ...
    %2 = "tf.ReadVariableOp"(%v) : ...        // removed: its users take %0
    "tf.AssignSubVariableOp"(%v, %d) ...      // a write: the next read of %v stays

Reads are not ``Pure`` (a variable changes), so ``cse`` leaves them; a gradient tape that keeps the
value an op read (``x @ v``) asks for a second read. Any other op taking a resource as an operand
(an update, a call, tf.If, tf.While) or holding a region (a cluster that may write inside) ends what
is known about every resource: two resource arguments may name one variable. Only reads of function
arguments are merged (two ``tf.VarHandleOp`` results may name one variable too).
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument
from xdsl.passes import ModulePass

from tinytf.framework import tf_types


def merge_reads(block: Block) -> int:
    """Merge the repeated reads in ``block`` (and the blocks nested in its ops); how many were removed."""
    known: dict = {}  # resource SSA value -> the read of it that is still valid
    removed = 0
    for op in list(block.ops):
        for region in op.regions:
            for inner in region.blocks:
                removed += merge_reads(inner)
        resources = [v for v in op.operands if tf_types.is_resource(v.type)]
        if op.name == "tf.ReadVariableOp" and len(op.operands) == 1 and resources and \
                isinstance(resources[0], BlockArgument):
            earlier = known.get(resources[0])
            if earlier is not None and earlier.type == op.results[0].type:
                op.results[0].replace_all_uses_with(earlier)
                op.detach()
                op.erase()
                removed += 1
            else:
                known[resources[0]] = op.results[0]
            continue
        if resources or op.regions:  # it may write a resource, and arguments may alias: forget them all
            known.clear()
    return removed


@dataclass(frozen=True)
class MergeVariableReads(ModulePass):
    """Removes reads of a variable that an earlier read in the same block already gives."""

    name = "tf-merge-variable-reads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        merge_reads(op.body.block)
