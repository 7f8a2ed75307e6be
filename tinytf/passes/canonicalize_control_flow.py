"""TensorFlow's canonicalization patterns for control flow and resources: If / Case on a constant
become calls (IfRegion inlines its branch), values passed straight through IfRegion, CaseRegion and
WhileRegion leave them, ``output_shapes`` is dropped, an Assert of a constant true goes, and a
ReadVariableOp reads through a tf.Cast of its handle.

    %0 = "tf.If"(%true, %x) {then_branch = @a, else_branch = @b, is_stateless = true}
    // -> "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @a}>
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult
from xdsl.rewriter import InsertPoint, Rewriter

from tinytf.passes import tf_rewrite as tfr
from tinytf.passes.tf_canonicalization import pattern

_EMPTY_CALL = {"config": StringAttr(""), "config_proto": StringAttr(""), "executor_type": StringAttr("")}


def _scalar_constant(value):
    array = tfr.constant_of(value)
    if array is None or array.size == 0:
        return None
    return array.reshape(-1)[0]


@pattern("tf.If")
def fold_constant_if(op, rewriter):
    """If on a constant predicate -> a call of the taken branch (stateful when the If is)."""
    cond = tfr.constant_of(op.operands[0])
    if cond is None or cond.size != 1:
        return False
    branch = tfr.attr(op, "then_branch" if bool(cond.reshape(-1)[0]) else "else_branch")
    if not isinstance(branch, SymbolRefAttr):
        return False
    call = "tf.PartitionedCall" if tfr.bool_attr(op, "is_stateless") else "tf.StatefulPartitionedCall"
    tfr.replace_with(rewriter, op, call, op.operands[1:], properties={**_EMPTY_CALL, "f": branch})
    return True


@pattern("tf.Case")
def fold_constant_case(op, rewriter):
    """Case on a constant index -> a call of that branch (the last one when out of range)."""
    index = _scalar_constant(op.operands[0])
    branches = tfr.attr(op, "branches")
    if index is None or not isinstance(branches, ArrayAttr) or not branches.data:
        return False
    index = int(index)
    if index < 0 or index >= len(branches.data):
        index = len(branches.data) - 1
    tfr.replace_with(rewriter, op, "tf.PartitionedCall", op.operands[1:],
                     properties={**_EMPTY_CALL, "f": branches.data[index]})
    return True


@pattern("tf.If", "tf.Case")
def drop_output_shapes(op, rewriter):
    found = False
    for table in (op.attributes, op.properties):
        if "output_shapes" in table:
            del table["output_shapes"]
            found = True
    if found:
        rewriter.notify_op_modified(op)
    return found


@pattern("tf.IfRegion")
def fold_constant_if_region(op, rewriter):
    """IfRegion on a constant predicate -> the taken branch, inlined (Cast where the yield's type differs)."""
    cond = _scalar_constant(op.operands[0])
    if cond is None or len(op.regions) != 2 or not op.regions[0].blocks or not op.regions[1].blocks:
        return False
    block = op.regions[0 if bool(cond) else 1].blocks[0]
    yield_ = block.last_op
    values = list(yield_.operands)
    casts = []
    for i, (value, result) in enumerate(zip(values, op.results)):
        if value.type != result.type:
            cast = tfr.build("tf.Cast", [value], [result.type], {"Truncate": tfr.bool_value(False)})
            casts.append(cast)
            values[i] = cast.results[0]
    for cast in casts:
        rewriter.insert_op(cast, InsertPoint.before(yield_))
    rewriter.erase(yield_)
    rewriter.inline_block(block, InsertPoint.before(op))
    rewriter.replace(op, [], values)
    return True


def _defined_in(value, block: Block) -> bool:
    if isinstance(value, BlockArgument):
        return value.block is block
    return isinstance(value, OpResult) and value.op.parent_block() is block


def _rebuilt(op: Operation, operands, result_types) -> Operation:
    """A copy of ``op`` with new operands and result types, its regions moved over (inherent
    attributes as properties, as TensorFlow prints them)."""
    regions = [Rewriter.move_region_contents_to_new_regions(r) for r in op.regions]
    return tfr.build(tfr.op_name(op), operands, result_types, tfr.inherent(op), tfr.carried(op), regions)


@pattern("tf.IfRegion", "tf.CaseRegion")
def eliminate_pass_through_branches(op, rewriter):
    """Results every branch yields from outside the op -> that outside value."""
    branches = [r for r in op.regions]
    if not branches or any(not r.blocks for r in branches):
        return False
    yields = [r.blocks[0].last_op for r in branches]
    extern, kept = {}, []
    for index in range(len(op.results)):
        value = yields[0].operands[index]
        if _defined_in(value, branches[0].blocks[0]):
            kept.append(index)
            continue
        if any(y.operands[index] is not value for y in yields[1:]):
            return False
        extern[index] = value
    if not extern:
        return False
    for y in yields:
        y.operands = [v for i, v in enumerate(y.operands) if i not in extern]
    new = _rebuilt(op, op.operands, [op.results[i].type for i in kept])
    values = [extern[i] if i in extern else new.results[kept.index(i)] for i in range(len(op.results))]
    rewriter.replace(op, [new], values)
    return True


def look_through_identity(value):
    while (owner := tfr.defining(value)) is not None and tfr.op_name(owner) in ("tf.Identity", "tf.IdentityN"):
        value = owner.operands[value.index]
    return value


@pattern("tf.WhileRegion")
def while_region_explicit_cast(op, rewriter):
    """Make an operand's implicit cast to its loop variable's type a tf.Cast before the loop."""
    if len(op.regions) != 2 or not op.regions[0].blocks or not op.regions[1].blocks:
        return False
    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    if len(cond.args) != len(op.operands) or len(body.args) != len(op.operands):
        return False
    operands = list(op.operands)
    changed = False
    for i, value in enumerate(operands):
        if body.args[i].type == cond.args[i].type and body.args[i].type != value.type:
            cast = tfr.build("tf.Cast", [value], [body.args[i].type])
            rewriter.insert_op(cast, InsertPoint.before(op))
            operands[i] = cast.results[0]
            changed = True
    if changed:
        op.operands = operands
        rewriter.notify_op_modified(op)
    return changed


@pattern("tf.WhileRegion")
def while_region_eliminate_pass_through(op, rewriter):
    """Loop variables the body passes through unchanged -> the operand; unused ones leave the loop."""
    if len(op.regions) != 2 or not op.regions[0].blocks or not op.regions[1].blocks:
        return False
    cond, body = op.regions[0].blocks[0], op.regions[1].blocks[0]
    n = len(op.operands)
    if len(cond.args) != n or len(body.args) != n or len(op.results) != n:
        return False
    body_yield, cond_yield = body.last_op, cond.last_op
    forwards = len(cond_yield.operands) > 1
    removed = []
    for i in range(n):
        body_arg, cond_arg, operand = body.args[i], cond.args[i], op.operands[i]
        yielded = look_through_identity(body_yield.operands[i])
        cond_yielded = look_through_identity(cond_yield.operands[i + 1]) if forwards else None
        if (yielded is body_arg or yielded is operand) and \
                (not forwards or cond_yielded is cond_arg or cond_yielded is operand):
            if body_arg.type == operand.type:
                body_arg.replace_all_uses_with(operand)
            if cond_arg.type == operand.type:
                cond_arg.replace_all_uses_with(operand)
            if op.results[i].type == operand.type:
                op.results[i].replace_all_uses_with(operand)
        if not body.args[i].uses and not cond.args[i].uses and not op.results[i].uses:
            removed.append(i)
    if not removed:
        return False
    kept = [i for i in range(n) if i not in removed]
    body_yield.operands = [v for i, v in enumerate(body_yield.operands) if i not in removed]
    if forwards:
        cond_yield.operands = [v for i, v in enumerate(cond_yield.operands) if i - 1 not in removed]
    for i in reversed(removed):
        body.erase_arg(body.args[i])
        cond.erase_arg(cond.args[i])
    new = _rebuilt(op, [op.operands[i] for i in kept], [op.results[i].type for i in kept])
    values = [new.results[kept.index(i)] if i in kept else None for i in range(n)]
    rewriter.replace(op, [new], values)
    return True


@pattern("tf.Assert")
def assert_true(op, rewriter):
    cond = _scalar_constant(op.operands[0]) if op.operands else None
    if cond is None or not bool(np.asarray(cond)):
        return False
    rewriter.erase(op)
    return True


@pattern("tf.ReadVariableOp")
def read_variable_of_cast(op, rewriter):
    """ReadVariableOp(Cast(handle)) -> ReadVariableOp(handle) when the cast only feeds reads."""
    cast = tfr.defining(op.operands[0], "tf.Cast")
    if cast is None or any(tfr.op_name(u.operation) != "tf.ReadVariableOp" for u in cast.results[0].uses):
        return False
    tfr.replace_with(rewriter, op, "tf.ReadVariableOp", [cast.operands[0]])
    return True
