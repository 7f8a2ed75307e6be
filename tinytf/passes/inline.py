"""``tf-inline``: inline ``tf.PartitionedCall`` / ``tf.StatefulPartitionedCall`` of private functions,
then drop private functions nothing refers to any more.

    %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @sq}> : ...
    func.func private @sq(%a: tensor<f32>) -> tensor<f32> { %1 = "tf.Mul"(%a, %a) ... func.return %1 ... }
    // becomes: %0 = "tf.Mul"(%x, %x) : ...      (and @sq is gone)

Calls inside inlined bodies are inlined too (up to ``max-depth`` levels). As TensorFlow's inliner:

- a callee marked ``tf._noinline = true`` stays a call (unless it is ``tf._XlaMustCompile``);
- a callee with more than one caller is copied, so it is inlined only when each of its ops may be
  duplicated: ops without side effects, ops marked ``is_stateless = true``, and ops tinytf knows (an
  unknown op with effects is not run twice by accident);
- where a call's operand or result type differs from the callee's, a ``tf.Cast`` bridges them;
- the call's ``device`` goes to each inlined tf op that has no device of its own.

Calls of recursive functions (that call themselves, directly or through others) and of callees
whose body is several blocks stay calls. Public functions are never inlined or dropped: something
outside the module may call them.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, UnregisteredOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tinytf.passes.symbols import (
    CALL_OPS,
    callee,
    functions,
    invalid,
    is_private,
    op_name,
    symbol_of,
    symbol_users,
)
from tinytf.passes.tf_rewrite import bool_attr, bool_value, build, is_pure


def inline_call(call: Operation, fn: FuncOp) -> None:
    """Replace ``call`` by a copy of ``fn``'s body with the call's operands for its arguments."""
    body = fn.body.clone()
    block = body.block
    terminator = block.last_op
    if not isinstance(terminator, ReturnOp):
        raise invalid(call, f"cannot inline @{fn.sym_name.data}: its body does not end with func.return")
    parent = call.parent_block()
    for arg, operand in zip(block.args, call.operands):
        arg.replace_all_uses_with(_cast(operand, arg.type, parent, call))
    device = call.attributes.get("device")
    for op in list(block.ops):
        if op is terminator:
            break
        op.detach()
        if isinstance(device, StringAttr) and device.data and op_name(op).startswith("tf."):
            own = op.attributes.get("device")
            if not isinstance(own, StringAttr) or not own.data:
                op.attributes["device"] = device
        parent.insert_op_before(op, call)
    results = [_cast(value, result.type, parent, call) for value, result in zip(terminator.operands, call.results)]
    for old, new in zip(call.results, results):
        old.replace_all_uses_with(new)
    call.detach()
    call.erase()


def _cast(value: SSAValue, type_, block, before: Operation) -> SSAValue:
    """``value`` as ``type_``: itself, or a ``tf.Cast`` to it placed before ``before``."""
    if value.type == type_:
        return value
    cast = build("tf.Cast", [value], [type_], properties={"Truncate": bool_value(False)})
    block.insert_op_before(cast, before)
    return cast.results[0]


def may_duplicate(op: Operation) -> bool:
    """TensorFlow's CanDuplicate: no side effects, or marked stateless, or an op tinytf knows."""
    if is_pure(op):
        return True
    stateless = op.attributes.get("is_stateless") or op.properties.get("is_stateless")
    if isinstance(stateless, IntegerAttr):
        return bool(stateless.value.data)
    return not isinstance(op, UnregisteredOp)


def may_inline(fn: FuncOp, callers: int) -> bool:
    """Whether a call of ``fn`` may be replaced by its body (``callers``: ops naming ``fn``)."""
    if len(fn.body.blocks) != 1:
        return False
    if bool_attr(fn, "tf._noinline") and not bool_attr(fn, "tf._XlaMustCompile"):
        return False
    if callers > 1:  # the body is copied: each op must be safe to run twice
        return all(may_duplicate(op) for op in fn.body.walk())
    return True


def recursive_functions(module: ModuleOp, table: dict[str, FuncOp]) -> set[str]:
    """Functions that call themselves, directly or through others: inlining them would not end."""
    calls = {name: {symbol_of(op, "f") for op in fn.walk() if op.name in CALL_OPS} for name, fn in table.items()}
    recursive = set()
    for start in calls:
        stack, seen = list(calls[start]), set()
        while stack:
            name = stack.pop()
            if name == start:
                recursive.add(start)
                break
            if name not in seen:
                seen.add(name)
                stack.extend(calls.get(name, ()))
    return recursive


def inline_calls(module: ModuleOp, max_depth: int = 16) -> None:
    table = functions(module)
    recursive = recursive_functions(module, table)
    for _ in range(max_depth):
        calls = [op for op in module.walk() if op.name in CALL_OPS]
        inlined = False
        users = symbol_users(module)
        for call in calls:
            fn = callee(module, call, table)
            name = fn.sym_name.data
            if not is_private(fn) or name in recursive or not may_inline(fn, len(users.get(name, ()))):
                continue
            inline_call(call, fn)
            inlined = True
        if not inlined:
            break
    drop_unused_private_functions(module)


def _encloses(fn: FuncOp, op: Operation) -> bool:
    while op is not None:
        if op is fn:
            return True
        op = op.parent_op()
    return False


def drop_unused_private_functions(module: ModuleOp) -> None:
    """Erase private functions no op refers to (repeatedly: dropping one may orphan another)."""
    while True:
        users = symbol_users(module)
        dead = [fn for fn in functions(module).values() if is_private(fn)
                and all(_encloses(fn, op) for op in users.get(fn.sym_name.data, []))]  # only itself calls it
        if not dead:
            return
        for fn in dead:
            fn.detach()
            fn.erase()


@dataclass(frozen=True)
class Inline(ModulePass):
    """Inlines calls of private functions and drops the functions left without callers."""

    name = "tf-inline"
    max_depth: int = 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_calls(op, self.max_depth)
