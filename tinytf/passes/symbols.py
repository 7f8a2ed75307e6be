"""What every pass needs from a module: its functions by symbol, callees of call ops, argument
attributes, fresh symbol names, and located diagnostics.

    fn = lookup_function(module, "device_func", cluster_func)   # NotFoundError "f.mlir:3:5: ..." if absent
    set_arg_attr(fn, 0, "tf.aliasing_output", IntegerAttr(1, i64))

Malformed input never ends in a Python traceback: it raises a ``tinytf.errors`` error whose
message starts with the offending op's ``file:line:col``.
"""
from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation

from tinytf.errors import InvalidArgumentError, NotFoundError
from tinytf.mlir import location

CALL_OPS = ("tf.PartitionedCall", "tf.StatefulPartitionedCall", "tf.LegacyCall")


def op_name(op: Operation) -> str:
    """The op's real name, also for unregistered ops (``"tf.SomeOp"``, not ``builtin.unregistered``)."""
    return op.op_name.data if op.name == "builtin.unregistered" else op.name


def diagnostic(op: Operation, message: str) -> str:
    where = location(op)
    return f"{where + ': ' if where else ''}'{op_name(op)}' op {message}"


def invalid(op: Operation, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(diagnostic(op, message), op_name(op))


def functions(module: ModuleOp) -> dict[str, FuncOp]:
    """The module's top-level functions by symbol name."""
    return {fn.sym_name.data: fn for fn in module.ops if isinstance(fn, FuncOp)}


def symbol_of(op: Operation, key: str) -> str:
    """The symbol a call-like op names in property (or attribute) ``key``; a located error if it is not one."""
    value = op.properties.get(key) or op.attributes.get(key)
    if value is None:
        raise invalid(op, f"requires a '{key}' symbol reference attribute")
    if not isinstance(value, SymbolRefAttr):
        raise invalid(op, f"attribute '{key}' must be a symbol reference, got {value}")
    return value.root_reference.data


def lookup_function(module: ModuleOp, name: str, user: Operation, table: dict[str, FuncOp] | None = None) -> FuncOp:
    fn = (table if table is not None else functions(module)).get(name)
    if fn is None:
        raise NotFoundError(diagnostic(user, f"callee @{name} is not a function in this module"), op_name(user))
    return fn


def callee(module: ModuleOp, op: Operation, table: dict[str, FuncOp] | None = None) -> FuncOp:
    """The function a ``tf.*PartitionedCall`` (``f``) or ``tf_device.cluster_func`` (``func``) calls."""
    key = "func" if op.name == "tf_device.cluster_func" else "f"
    fn = lookup_function(module, symbol_of(op, key), op, table)
    if len(fn.function_type.inputs.data) != len(op.operands):
        raise invalid(op, f"passes {len(op.operands)} operands to @{fn.sym_name.data}, which takes "
                          f"{len(fn.function_type.inputs.data)}")
    if len(fn.function_type.outputs.data) != len(op.results):
        raise invalid(op, f"expects {len(op.results)} results from @{fn.sym_name.data}, which returns "
                          f"{len(fn.function_type.outputs.data)}")
    return fn


def arg_attrs(fn: FuncOp, index: int) -> dict[str, Attribute]:
    if fn.arg_attrs is None:
        return {}
    return dict(fn.arg_attrs.data[index].data)


def set_arg_attr(fn: FuncOp, index: int, key: str, value: Attribute) -> None:
    count = len(fn.function_type.inputs.data)
    dicts = list(fn.arg_attrs.data) if fn.arg_attrs is not None else [DictionaryAttr({}) for _ in range(count)]
    entries = dict(dicts[index].data)
    entries[key] = value
    dicts[index] = DictionaryAttr(entries)
    fn.arg_attrs = ArrayAttr(dicts)


def fresh_symbol(table: dict, base: str) -> str:
    """``base`` or ``base_0``, ``base_1``, ... : a name no function in ``table`` has yet."""
    if base not in table:
        return base
    i = 0
    while f"{base}_{i}" in table:
        i += 1
    return f"{base}_{i}"


def is_private(fn: FuncOp) -> bool:
    return fn.sym_visibility is not None and fn.sym_visibility == StringAttr("private")


def _symbols_in(attr: Attribute):
    if isinstance(attr, SymbolRefAttr):
        yield attr.root_reference.data
    elif isinstance(attr, ArrayAttr):
        for item in attr.data:
            yield from _symbols_in(item)
    elif isinstance(attr, DictionaryAttr):
        for item in attr.data.values():
            yield from _symbols_in(item)


def symbol_users(module: ModuleOp) -> dict[str, list[Operation]]:
    """Every op that names a symbol in a property or attribute (call ops, tf.While's body, ...), by symbol."""
    users: dict[str, list[Operation]] = {}
    for op in module.walk():
        if isinstance(op, FuncOp | ModuleOp):
            continue
        for attr in (*op.properties.values(), *op.attributes.values()):
            for name in _symbols_in(attr):
                users.setdefault(name, []).append(op)
    return users
