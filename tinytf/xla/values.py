"""What a lowered function computes on: values and resources.

A value is a numpy array when known at compile time and a JAX value (a tracer) otherwise; a
variable is a ``Resource`` holding its current value.
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, OpError
from tinytf.framework import tf_types
from tinytf.framework.variables import AbstractVariable

WIDE = (dtypes.float64, dtypes.int64, dtypes.uint64, dtypes.complex128)  # need jax.enable_x64


class NeedsConstant(InvalidArgumentError):
    """An op needs the value of an operand that is only known at run time (Range's limit,
    Reshape's shape): TensorFlow compiles such arguments as compile-time constants."""

    def __init__(self, message: str, op: str | None = None, operand_indices=()):
        super().__init__(message, op)
        self.operand_indices = list(operand_indices)
        self.ssa_values: list = []

    def entry_arguments(self, fn) -> set[int] | None:
        """The arguments of ``fn`` the offending operands are computed from; None when they come
        from elsewhere (another function's arguments, a variable)."""
        from xdsl.ir import BlockArgument

        entry_block = fn.body.blocks[0]
        stack, seen, found = list(self.ssa_values), set(), set()
        while stack:
            value = stack.pop()
            if value in seen:
                continue
            seen.add(value)
            if isinstance(value, BlockArgument):
                if value.block is not entry_block or tf_types.is_resource(value.type):
                    return None
                found.add(value.index)
            else:
                stack.extend(value.owner.operands)
        return found or None


class Resource(AbstractVariable):
    """A variable inside a lowered function: its current value (numpy or JAX) and whether it was written.
    Op rules read it as any variable (``read()``, ``dtype``, ``shape``, ``name``)."""

    __slots__ = ("value", "dtype", "shape", "name", "modified")

    def __init__(self, value, dtype, name: str = "resource"):
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self.shape = None if value is None else tuple(value.shape)
        self.name = name
        self.modified = False

    def read(self):
        if self.value is None:
            raise InvalidArgumentError(f"tf.ReadVariableOp: resource {self.name} is uninitialized",
                                       "tf.ReadVariableOp")
        return self.value


def op_name(op: Operation) -> str:
    name = getattr(op, "op_name", None)  # an unregistered op's real name
    return name.data if name is not None else op.name


def where(op: Operation) -> str:
    import tinytf.mlir as mlir

    loc = mlir.location(op)
    return f"{loc}: " if loc else ""


def is_concrete(value) -> bool:
    return isinstance(value, np.ndarray | np.generic)


def is_array(value) -> bool:
    """A numpy or JAX array (not a Resource, nor a structured value such as a TensorList's buffer)."""
    return isinstance(getattr(value, "dtype", None), np.dtype)


def functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}


def located(err: OpError, loc: str) -> OpError:
    if not loc or getattr(err, "_located", False) or err.message.startswith(loc):
        return err
    try:
        new = type(err)(f"{loc}{err.message}", err.op)
    except TypeError:
        return err
    if isinstance(err, NeedsConstant):
        new.operand_indices = err.operand_indices
    new._located = True
    return new
