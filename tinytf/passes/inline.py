"""``tf-inline``: inline ``tf.PartitionedCall`` / ``tf.StatefulPartitionedCall`` of private functions,
then drop private functions nothing refers to any more.

    %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @sq}> : ...
    func.func private @sq(%a: tensor<f32>) -> tensor<f32> { %1 = "tf.Mul"(%a, %a) ... func.return %1 ... }
    // becomes: %0 = "tf.Mul"(%x, %x) : ...      (and @sq is gone)

Calls inside inlined bodies are inlined too (up to ``max-depth`` levels); calls of recursive
functions (that call themselves, directly or through others) stay calls. Public functions are never inlined or
dropped: something outside the module may call them.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation
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


def inline_call(call: Operation, fn: FuncOp) -> None:
    """Replace ``call`` by a copy of ``fn``'s body with the call's operands for its arguments."""
    if len(fn.body.blocks) != 1:
        raise invalid(call, f"cannot inline @{fn.sym_name.data}: its body must be one block")
    body = fn.body.clone()
    block = body.block
    terminator = block.last_op
    if not isinstance(terminator, ReturnOp):
        raise invalid(call, f"cannot inline @{fn.sym_name.data}: its body does not end with func.return")
    for arg, operand in zip(block.args, call.operands):
        arg.replace_all_uses_with(operand)
    results = list(terminator.operands)
    parent = call.parent_block()
    for op in list(block.ops):
        if op is terminator:
            break
        op.detach()
        parent.insert_op_before(op, call)
    for old, new in zip(call.results, results):
        old.replace_all_uses_with(new)
    call.detach()
    call.erase()


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
        for call in calls:
            fn = callee(module, call, table)
            if not is_private(fn) or fn.sym_name.data in recursive or not _types_fit(call, fn):
                continue
            inline_call(call, fn)
            inlined = True
        if not inlined:
            break
    drop_unused_private_functions(module)


def _types_fit(call: Operation, fn: FuncOp) -> bool:
    """Inlining hands the call's users the callee's result types: fine for tf ops, which accept any
    compatible type, but not for func.return and other typed users when the types differ."""
    for result, type_ in zip(call.results, fn.function_type.outputs.data):
        if result.type != type_ and any(not op_name(use.operation).startswith("tf.") for use in result.uses):
            return False
    return True


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
