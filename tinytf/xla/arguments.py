"""The arguments of a function compiled for XLA: which are parameters, resources or constants, with
which static shapes and dtypes; which an output aliases; which resources the function writes.

    module, fn = resolve(module_or_text_or_concrete_function, entry)
    args = arguments(fn, [(2,), (2,)], ["parameter", "resource"], ["float32", "float32"])
    written_resources(module, "main")        # {1}: argument 1 is assigned (also through calls)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, OpError
from tinytf.framework import tf_types
from tinytf.framework.op import ReturnsOperands, calls_functions, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.resource import ReadVariableOp
from tinytf.ops.variable_updates import VariableUpdate
from tinytf.xla.result import XlaShape
from tinytf.xla.values import functions

ALIASING_ATTR = "tf.aliasing_output"
KINDS = ("parameter", "resource", "constant")

# Region ops (not calls) whose operands become their region's block arguments, by op class:
# rule(op, operand_index) -> [block arguments]. tinytf/xla/spmd.py adds tf_device.replicate's, so a
# variable written inside a replicated region is a written resource (donated, updated).
REGION_ARGUMENTS: dict = {}


@dataclass
class Argument:
    """One argument of the compiled function as XLA sees it."""

    index: int
    kind: str               # parameter | resource | constant
    dtype: dtypes.DType
    shape: tuple
    value: object = None    # a constant argument's value
    name: str = ""

    @property
    def xla_shape(self) -> XlaShape:
        return XlaShape(self.dtype, self.shape)


# --- the function and its arguments ------------------------------------------------------------

def resolve(func_or_module, entry: str | None = None) -> tuple[ModuleOp, func.FuncOp]:
    """(module, function) from a func.func, a module (+ entry), MLIR text, a loaded module or a
    concrete function of ``tt.function``."""
    from tinytf.runtime.module import find_entry

    obj = func_or_module
    if hasattr(obj, "module") and hasattr(obj, "name") and not isinstance(obj, ModuleOp | func.FuncOp):
        entry = entry or (obj.name if isinstance(getattr(obj, "name", None), str) and
                          obj.name in functions(obj.module) else None)
        obj = obj.module
    if isinstance(obj, str):
        import tinytf.mlir as mlir

        obj = mlir.parse(obj)
        mlir.verify(obj)
    if isinstance(obj, func.FuncOp):
        module = obj.parent_op()
        if not isinstance(module, ModuleOp):
            module = ModuleOp([obj.clone()])
            return module, next(iter(module.ops))
        return module, obj
    if isinstance(obj, ModuleOp):
        return obj, find_entry(obj, entry)
    raise InvalidArgumentError(f"tt.xla.compile: expected a func.func, a module or MLIR text, got {type(obj).__name__}")


def _resource_dtype_from_uses(arg: BlockArgument, depth: int = 0):
    """An untyped resource's dtype from how the function reads or writes it (also in callees)."""
    if depth > 16:
        return None
    for use in arg.uses:
        op = use.operation
        if isinstance(op, ReadVariableOp):
            return tf_types.dtype_of(op.results[0].type)
        if isinstance(op, VariableUpdate) and len(op.operands) > type(op).VARIABLE_OPERANDS:
            return type(op).variable_dtype(op)
        if has_trait(op, ReturnsOperands):
            found = _resource_dtype_from_uses(op.results[use.index], depth + 1)
            if found is not None:
                return found
        for callee, index in _callee_arguments(op, use.index):
            module = op.get_toplevel_object()
            fn = functions(module).get(callee) if isinstance(module, ModuleOp) else None
            if fn is not None and fn.body.blocks and index < len(fn.body.blocks[0].args):
                found = _resource_dtype_from_uses(fn.body.blocks[0].args[index], depth + 1)
                if found is not None:
                    return found
    return None


def _callee_arguments(op, operand_index: int) -> list[tuple[str, int]]:
    """(callee, argument index) pairs that operand ``operand_index`` of a call-like op becomes."""
    trait = calls_functions(op)
    try:
        return trait.callee_arguments(op, operand_index) if trait is not None else []
    except OpError:  # malformed control flow is reported when it is lowered
        return []


def _shape_and_dtype(entry):
    """An input_shapes entry as (shape or None, dtype or None)."""
    if entry is None:
        return None, None
    if isinstance(entry, TensorSpec):
        return entry.shape, entry.dtype
    if hasattr(entry, "shape") and hasattr(entry, "dtype"):
        return tuple(entry.shape), dtypes.as_dtype(entry.dtype)
    if isinstance(entry, int):
        return (entry,), None
    if isinstance(entry, str):
        entry = [d for d in entry.split(",") if d.strip()]
    try:
        return tuple(int(d) for d in entry), None
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"bad input shape {entry!r}: expected a tuple of dims") from None


def arguments(fn: func.FuncOp, input_shapes=None, input_types=None, input_dtypes=None,
              constants: dict | None = None) -> list[Argument]:
    """Each argument's kind, dtype and static shape, from the caller's shapes/kinds/dtypes and the IR."""
    fn_name = fn.sym_name.data
    types = list(fn.function_type.inputs.data)
    n = len(types)
    if isinstance(input_shapes, str):
        from tinytf.passes.shape_inference import parse_input_shapes

        input_shapes = parse_input_shapes(input_shapes)
    if input_shapes is not None and len(input_shapes) != n:
        raise InvalidArgumentError(f"@{fn_name} has {n} arguments, but {len(input_shapes)} input shapes were given")
    if input_types is not None and len(input_types) != n:
        raise InvalidArgumentError(f"@{fn_name} has {n} arguments, but {len(input_types)} input types were given")
    if input_dtypes is not None and len(input_dtypes) != n:
        raise InvalidArgumentError(f"@{fn_name} has {n} arguments, but {len(input_dtypes)} input data types "
                                   "were given")
    constants = dict(constants or {})
    block_args = fn.body.blocks[0].args if fn.body.blocks else ()
    out = []
    for i, type_ in enumerate(types):
        is_resource = tf_types.is_resource(type_)
        kind = input_types[i] if input_types is not None else ("resource" if is_resource else "parameter")
        if kind not in KINDS:
            raise InvalidArgumentError(f"unsupported XLA argument kind at index {i}: '{kind}' "
                                       "(parameter, resource or constant)")
        if kind == "resource" and not is_resource:
            raise InvalidArgumentError(f"@{fn_name} argument {i} is a resource argument but has type {type_}")
        if kind != "resource" and is_resource:
            raise InvalidArgumentError(f"@{fn_name} argument {i} has resource type {type_}, but its kind is '{kind}'")
        given_shape, given_dtype = _shape_and_dtype(input_shapes[i] if input_shapes is not None else None)
        if input_dtypes is not None and input_dtypes[i] is not None:
            given_dtype = dtypes.as_dtype(input_dtypes[i])
        declared = tf_types.resource_subtype(type_) if is_resource else type_
        declared_shape = tf_types.shape_of(declared) if declared is not None else None
        declared_dtype = tf_types.dtype_of(declared) if declared is not None else None
        if is_resource and declared_dtype is None and block_args:
            declared_dtype = _resource_dtype_from_uses(block_args[i])
        value = None
        if kind == "constant":
            if i not in constants:
                raise InvalidArgumentError(f"@{fn_name} argument {i} is a constant argument: give its value in "
                                           "constants={index: value}")
            value = np.asarray(constants[i], (given_dtype or declared_dtype).np if (given_dtype or declared_dtype)
                               else None)
            given_shape, given_dtype = value.shape, dtypes.as_dtype(value.dtype)
        dtype = given_dtype or declared_dtype
        if dtype is None:
            raise InvalidArgumentError(f"@{fn_name} argument {i}: the resource's dtype is unknown; give input_dtypes")
        if declared_dtype is not None and dtype is not declared_dtype:
            raise InvalidArgumentError(f"@{fn_name} argument {i}: type {type_} cannot take a {dtype.name} value")
        shape = given_shape if given_shape is not None else declared_shape
        if shape is None or any(d is None for d in shape):
            raise InvalidArgumentError(f"@{fn_name} argument {i} of type {type_} needs a static input shape")
        if declared_shape is not None and not TensorSpec(declared_shape, dtype).is_compatible_with(shape):
            raise InvalidArgumentError(f"@{fn_name} argument {i} of type {type_} cannot have shape "
                                       f"[{','.join(str(d) for d in shape)}]")
        out.append(Argument(i, kind, dtype, tuple(int(d) for d in shape), value, f"arg{i}"))
    return out


def aliasing_outputs(fn: func.FuncOp) -> dict[int, int]:
    """argument index -> output index, from ``tf.aliasing_output`` argument attributes."""
    if fn.arg_attrs is None:
        return {}
    out = {}
    for i, attrs in enumerate(fn.arg_attrs.data):
        value = attrs.data.get(ALIASING_ATTR)
        if isinstance(value, IntegerAttr):
            out[i] = value.value.data
    return out


def written_resources(module: ModuleOp, name: str, memo: dict | None = None) -> set[int]:
    """Indices of ``@name``'s arguments that an assign may write (through calls and control flow too)."""
    memo = {} if memo is None else memo
    if name in memo:
        return memo[name]
    memo[name] = set()  # recursion: assume nothing until known
    table = functions(module)
    fn = table.get(name)
    if fn is None or not fn.body.blocks:
        return set()
    args = {a: a.index for a in fn.body.blocks[0].args}
    alias = dict(args)  # values that are (Identity copies of) an argument
    written: set[int] = set()
    for op in fn.walk():  # (an op before the ops of its regions)
        region_arguments = REGION_ARGUMENTS.get(type(op))
        if region_arguments is not None:
            for operand_index, operand in enumerate(op.operands):
                if operand in alias:
                    alias.update((arg, alias[operand]) for arg in region_arguments(op, operand_index))
        if has_trait(op, ReturnsOperands):
            alias.update((r, alias[v]) for v, r in zip(op.operands, op.results) if v in alias)
        if isinstance(op, VariableUpdate):
            written.update(alias[v] for v in op.operands[:type(op).VARIABLE_OPERANDS] if v in alias)
            continue
        for operand_index, operand in enumerate(op.operands):
            if operand not in alias:
                continue
            for callee, index in _callee_arguments(op, operand_index):
                if index in written_resources(module, callee, memo):
                    written.add(alias[operand])
    memo[name] = written
    return written
