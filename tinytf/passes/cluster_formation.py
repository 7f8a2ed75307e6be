"""``tf-device-cluster-formation`` (TensorFlow's pass): group the ops of a block that carry the same
non-empty ``device`` attribute into ``tf_device.launch`` regions on that device.

    %0 = "tf.A"(%arg0) : ...                          %0 = "tf.A"(%arg0) : ...
    %1 = "tf.B"(%0) {device = "tpu0"} : ...     ->    %1 = "tf_device.launch"() <{device = "tpu0"}> ({
    %2 = "tf.C"(%0, %1) {device = "tpu0"} : ...         %3 = "tf.B"(%0) : ...
    %4 = "tf.D"(%2) : ...                               %4 = "tf.C"(%0, %3) : ...
                                                        tf_device.return %4 : tensor<?xi32>
                                                      }) : () -> tensor<?xi32>
                                                      %2 = "tf.D"(%1) : ...

The blocks are each function's body and each ``tf_executor.island``'s body. Walking a block in
order, an op with a device joins the nearest open group of its device when

- each operand is a block argument, comes from another block, is defined before the group's first
  op, or is defined inside the group's span by an op on the same device (a group need not be
  contiguous: ops of other devices or of none may sit between its members); and
- no side-effecting op that must run before it (a control predecessor) sits after the group's
  last op, for moving it up into the group would reorder the two.

Otherwise the open group is closed and the op starts a new one. A closed group becomes a launch
placed right after its last op, returning the results used outside it; the members lose their
``device`` attribute (the launch carries it), and users of the results that sit before the launch
(with their own users) move after it, so every value is still defined before its uses.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tinytf.ops.tf_device import LaunchOp, ReturnOp
from tinytf.ops.tf_executor import IslandOp
from tinytf.passes import tf_op_traits as traits
from tinytf.passes.tf_rewrite import bool_attr, is_pure, tf_name


@dataclass
class DeviceGroup:
    """Ops of one device, in block order, that will share one ``tf_device.launch``."""

    device: str
    ops: list[Operation] = field(default_factory=list)


def device_of(op: Operation) -> str:
    """The op's ``device`` attribute, "" when it has none (region ops keep theirs as a property)."""
    device = op.attributes.get("device")
    return device.data if isinstance(device, StringAttr) else ""


def effect_of(op: Operation) -> str | None:
    """None for no side effects, "read" for ops that only read state, "write" for anything else
    (an op TensorFlow does not declare is assumed to write, unless it says ``is_stateless``)."""
    if is_pure(op) or bool_attr(op, "is_stateless"):
        return None
    return "read" if tf_name(op) in traits.READ_ONLY else "write"


def _ordered(first: Operation, second: Operation) -> bool:
    """Must ``first`` run before ``second``, as side-effect analysis orders them."""
    a, b = effect_of(first), effect_of(second)
    return a is not None and b is not None and "write" in (a, b)


def _index(op: Operation) -> int:
    return op.parent_block().get_operation_index(op)


def can_join(group: DeviceGroup, op: Operation) -> bool:
    block = group.ops[0].parent_block()
    first, last = _index(group.ops[0]), _index(group.ops[-1])
    here = _index(op)
    if effect_of(op) is not None:
        between = list(block.ops)[last + 1:here]
        if any(_ordered(other, op) for other in between):
            return False
    for operand in op.operands:
        if isinstance(operand, BlockArgument):
            continue
        owner = operand.owner
        if owner.parent_block() is not block:
            continue
        at = _index(owner)
        if at < first or (at <= last and device_of(owner) == group.device):
            continue
        return False
    return True


def _ancestor_in(block: Block, op: Operation) -> Operation | None:
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


def build_launch(group: DeviceGroup) -> LaunchOp:
    block = group.ops[-1].parent_block()
    members = set(group.ops)
    live_outs: list[SSAValue] = [
        result for op in group.ops for result in op.results
        if any(_ancestor_in(block, use.operation) not in members for use in result.uses)]
    body = Block()
    launch = LaunchOp.build(properties={"device": StringAttr(group.device)}, regions=[Region(body)],
                            result_types=[[v.type for v in live_outs]])
    block.insert_op_after(launch, group.ops[-1])
    for op in group.ops:
        op.detach()
        op.attributes.pop("device", None)
        body.add_op(op)
    body.add_op(ReturnOp.build(operands=[live_outs]))
    for value, result in zip(live_outs, launch.results):
        for use in list(value.uses):
            if _ancestor_in(block, use.operation) is not launch:
                use.operation.operands[use.index] = result
    move_users_after(launch)
    return launch


def move_users_after(launch: Operation) -> None:
    """Users of the launch's results placed before it (and their users, in turn) move after it."""
    block = launch.parent_block()
    here = _index(launch)
    to_move: dict[Operation, None] = {}
    work = list(launch.results)
    while work:
        value = work.pop()
        for use in value.uses:
            op = _ancestor_in(block, use.operation)
            if op is None or _index(op) > here or op in to_move:
                continue
            to_move[op] = None
            work.extend(op.results)
    anchor = launch
    for op in sorted(to_move, key=_index):
        op.detach()
        block.insert_op_after(op, anchor)
        anchor = op


def form_launches(block: Block) -> None:
    open_groups: dict[str, DeviceGroup] = {}
    for op in list(block.ops):
        device = device_of(op)
        if not device:
            continue
        group = open_groups.get(device)
        if group is not None and can_join(group, op):
            group.ops.append(op)
            continue
        if group is not None:
            build_launch(group)
        open_groups[device] = DeviceGroup(device, [op])
    for group in open_groups.values():
        build_launch(group)


def form_launches_in(fn: FuncOp) -> None:
    for block in list(fn.body.blocks):
        form_launches(block)
    for island in [op for op in fn.walk() if isinstance(op, IslandOp)]:
        form_launches(island.regions[0].blocks.first)


@dataclass(frozen=True)
class ClusterFormation(ModulePass):
    """Groups ops by their ``device`` attribute into ``tf_device.launch`` regions (TensorFlow's pass)."""

    name = "tf-device-cluster-formation"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in list(op.walk()):
            if isinstance(fn, FuncOp) and fn.body.blocks:
                form_launches_in(fn)
