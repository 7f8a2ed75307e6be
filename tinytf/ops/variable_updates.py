"""Ops that update variables: the one ``update`` rule every engine applies, and the kernel that applies it.

    class AssignAddVariableOp(VariableUpdate):
        @staticmethod
        def update(xp, var, value):          # Given the variable's value var: var := var + value
            return [xp.add(var, value)]

An update op's first ``VARIABLE_OPERANDS`` operands are variables (resources, or TF1 refs) and the rest
tensors of the variable's dtype; those at ``SCALAR_OPERANDS`` are scalars, the others have the
variable's shape. ``update(xp, *values, *tensors, **attrs)`` gives the variables' new values, written
once for numpy and jax.numpy:

- eagerly and in graphs, ``VariableUpdate.kernel`` locks the variables in their global order
  (exclusively with ``use_locking``, else shared: TensorFlow's Hogwild mode), checks the operands under
  the locks and writes the new values into the buffers, or into copies when a reader holds one
  (copy-on-write: a value read earlier never changes);
- under XLA the lowering applies ``update`` to the traced values and marks the variables written.

``USES_CURRENT_VALUE = False`` says an op ignores the old value (AssignVariableOp), so an uninitialised
variable may be its operand. ``VariableValues`` is the ``variables`` an engine passes.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from tinytf.errors import FailedPreconditionError
from tinytf.framework import tf_types
from tinytf.framework.op import Op


class VariableUpdate(Op):
    """Base of the ops whose run-time rule is ``update``; see the module docstring."""

    VARIABLE_OPERANDS: ClassVar[int] = 1
    SCALAR_OPERANDS: ClassVar[tuple] = ()
    USES_CURRENT_VALUE: ClassVar[bool] = True
    # update(xp, variables, *tensors, **attrs): each concrete op defines it

    @classmethod
    def is_ref(cls) -> bool:
        """TF1 ref forms return their ref operand forwarded; resource forms return nothing."""
        return bool(cls.get_irdl_definition().results)

    @classmethod
    def variable_dtype(cls, op):
        """The dtype of the variables ``op`` updates, from its IR types (its first tensor operand's)."""
        return tf_types.dtype_of(op.operands[cls.VARIABLE_OPERANDS].type)

    @classmethod
    def kernel(cls, ctx, *, use_locking=True, **attrs):
        n = cls.VARIABLE_OPERANDS
        variables = [ctx.input_variable(i) for i in range(n)]
        for i, var in enumerate(variables):
            if var.is_ref != cls.is_ref():
                want = "a ref variable (tf.VariableV2)" if cls.is_ref() else "a resource variable"
                raise ctx.error(f"operand {i} must be {want}, got variable {var.name}")
        tensors = [np.asarray(ctx.input(i)) for i in range(n, ctx.num_inputs)]
        with ctx.lock_variable_inputs_in_order(range(n), do_lock=use_locking) as locks:
            _check_operands(ctx, cls, variables, tensors)  # under the locks: another step may reshape a variable
            cls.update(np, VariableValues([locks.buffer(i) for i in range(n)], _buffer, _write_buffer), *tensors, **attrs)
        if cls.is_ref():
            ctx.forward_ref_input_to_ref_output(0, 0)

    @classmethod
    def unchecked_kernel(cls, attrs: dict):
        """``run(variable, *tensors)``: the update under the variable's exclusive lock, for a caller that
        has checked the operands' dtypes and shapes against the variable's (a static plan); None where
        only the kernel will do (several variables, a shared lock, a ref result)."""
        if cls.VARIABLE_OPERANDS != 1 or cls.is_ref() or not attrs.get("use_locking", True):
            return None
        update, name = cls.update, cls.name
        attrs = {k: v for k, v in attrs.items() if k != "use_locking"}

        def run(var, *tensors):
            with var.lock:
                buffer, in_place = var.begin_update(name)
                try:
                    update(np, VariableValues([buffer], _buffer, _write_buffer), *tensors, **attrs)
                finally:
                    var.end_update(buffer, in_place)

        return run


def _check_operands(ctx, cls, variables, tensors) -> None:
    for var in variables:
        if not var.is_initialized:
            raise FailedPreconditionError(f"{ctx.op_name}: attempting to use uninitialized variable {var.name}",
                                          ctx.op_name)
    shape, dtype = variables[0].shape, variables[0].dtype.np
    for i, var in enumerate(variables[1:], 1):
        if var.shape != shape:
            raise ctx.error(f"var and operand {i} do not have the same shape: {list(shape)} vs {list(var.shape)}")
    for i, t in enumerate(tensors, cls.VARIABLE_OPERANDS):
        if t.dtype != dtype:
            raise ctx.error(f"operand {i} has dtype {t.dtype}, the variable has {dtype}")
        if i in cls.SCALAR_OPERANDS:
            if t.ndim:
                raise ctx.error(f"operand {i} is not a scalar: shape {list(t.shape)}")
        elif t.shape != shape:
            raise ctx.error(f"var and operand {i} do not have the same shape: {list(shape)} vs {list(t.shape)}")


class VariableValues:
    """The ``variables`` an update rule reads and assigns, by index: ``read(item)`` and ``write(item,
    value)`` come from the engine (numpy buffers written in place; the XLA lowering's Resources)."""

    __slots__ = ("items", "read", "write")

    def __init__(self, items: list, read, write):
        self.items, self.read, self.write = items, read, write

    def __getitem__(self, i: int):
        return self.read(self.items[i])

    def __setitem__(self, i: int, value) -> None:
        self.write(self.items[i], value)


def _buffer(buffer: np.ndarray) -> np.ndarray:
    return buffer


def _write_buffer(buffer: np.ndarray, value) -> None:
    if value is not buffer:
        np.copyto(buffer, value, casting="same_kind")


def add(xp, var, value, **_):  # var := var + value
    var[0] += value


def subtract(xp, var, value, **_):  # var := var - value
    var[0] -= value
