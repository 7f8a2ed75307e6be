"""The kernel API: what an op's ``kernel(ctx, **attrs)`` sees, and the allocation guard.

    @staticmethod
    def kernel(ctx, **attrs):            # tf.ReadVariableOp
        ctx.set_output(0, ctx.input(0).read())

``OpKernelContext`` carries TensorFlow's contract: inputs and outputs; forwarding a dying input's
buffer to an output (only when nothing else references it and dtype, shape and layout fit);
forwarding a ref input to a ref output; locking the variables of several inputs in one global
order (``lock_variable_inputs_in_order``) and assigning / updating variables with copy-on-write:

    with ctx.lock_variable_inputs_in_order([0], do_lock=use_locking) as locks:
        var = locks.buffer(0)                      # writable; a copy if a reader holds the buffer
        var -= ctx.input(1) * ctx.input(2)         # tf.ResourceApplyGradientDescent

Kernels that create data whose size comes from input *values*
(Fill, Range, Tile, BroadcastTo, ...) call ``check_allocation`` first, so a hostile shape raises
``ResourceExhaustedError`` instead of exhausting memory.
"""
from __future__ import annotations

import math
import sys

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, ResourceExhaustedError
from tinytf.framework.variables import Variable

# Largest single output a kernel may allocate, in bytes (TensorFlow has no such limit, but its
# security advisories are mostly kernels trusting an attacker's sizes). Change with set_allocation_limit.
_ALLOCATION_LIMIT = [4 << 30]


def allocation_limit() -> int:
    return _ALLOCATION_LIMIT[0]


def set_allocation_limit(num_bytes: int) -> int:
    """Set the per-output byte limit; returns the previous one."""
    previous = _ALLOCATION_LIMIT[0]
    _ALLOCATION_LIMIT[0] = int(num_bytes)
    return previous


def check_allocation(op_name: str, shape, dtype) -> None:
    """Refuse an output of ``shape`` and ``dtype`` over the allocation limit.

    ``shape`` is a sequence of ints (negative dims are rejected), ``dtype`` a DType, numpy dtype or
    name.  Raises InvalidArgumentError for a negative dim, ResourceExhaustedError when too large.
    """
    dims = [int(d) for d in shape]
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"{op_name}: dimensions must be non-negative, got {list(dims)}", op_name)
    itemsize = dtypes.as_dtype(dtype).np.itemsize or 8
    num_bytes = math.prod(dims) * itemsize
    if num_bytes > _ALLOCATION_LIMIT[0]:
        raise ResourceExhaustedError(
            f"{op_name}: output of shape {list(dims)} ({num_bytes} bytes) exceeds the allocation limit "
            f"of {_ALLOCATION_LIMIT[0]} bytes", op_name)


class OpKernelContext:
    """Inputs and outputs of one kernel invocation.

    Inputs are numpy arrays, or Variables for resource and ref operands. ``resources`` maps a
    ``shared_name`` to its Variable (the resource manager VarHandleOp looks variables up in).
    A list of inputs is kept as is, not copied: an input that only this list references is a
    dying value the kernel may forward (the executor drops its own reference before the call).
    """

    __slots__ = ("op_name", "inputs", "outputs", "resources", "forwarded")

    def __init__(self, op_name: str, inputs, num_outputs: int = 0, resources: dict | None = None):
        self.op_name = op_name
        self.inputs = inputs if type(inputs) is list else list(inputs)
        self.outputs: list = [None] * num_outputs
        self.resources = resources if resources is not None else {}
        self.forwarded: dict = {}  # output index -> the input index whose buffer it reuses

    @property
    def num_inputs(self) -> int:
        return len(self.inputs)

    @property
    def num_outputs(self) -> int:
        return len(self.outputs)

    def input(self, i: int):
        return self.inputs[i]

    def input_dtype(self, i: int):
        value = self.inputs[i]
        return dtypes.resource if hasattr(value, "assign") else dtypes.as_dtype(np.asarray(value).dtype)

    def allocate_output(self, i: int, shape, dtype) -> np.ndarray:
        check_allocation(self.op_name, shape, dtype)
        out = np.empty(tuple(int(d) for d in shape), dtypes.as_dtype(dtype).np)
        self.set_output(i, out)
        return out

    def set_output(self, i: int, value) -> None:
        if i >= len(self.outputs):
            self.outputs.extend([None] * (i + 1 - len(self.outputs)))
        self.outputs[i] = value

    def error(self, message: str) -> InvalidArgumentError:
        return InvalidArgumentError(f"{self.op_name}: {message}", self.op_name)

    # --- buffer forwarding -----------------------------------------------------------------------

    def forward_refusal(self, input_index: int, shape=None, dtype=None) -> str | None:
        """Why input ``input_index`` cannot become an output of ``shape`` and ``dtype`` (default: its
        own), or None when it can: a writable, C-contiguous array that owns its data, of that dtype
        and shape, referenced by nothing but this context (TensorFlow's ``RefCountIsOne``)."""
        value = self.inputs[input_index]
        if not isinstance(value, np.ndarray):
            return f"input {input_index} is not an array ({type(value).__name__})"
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype).np:
            return f"dtype differs: input {value.dtype}, output {dtypes.as_dtype(dtype).np}"
        if shape is not None and value.shape != tuple(int(d) for d in shape):
            return f"shape differs: input {list(value.shape)}, output {list(shape)}"
        if value.base is not None:
            return "input is a view (it does not own its data)"
        if not value.flags.c_contiguous:
            return "input is not C-contiguous"
        if not value.flags.writeable:
            return "input is read-only"
        # references: self.inputs, ``value`` and getrefcount's argument; more means someone else holds it
        if sys.getrefcount(value) > 3:
            return "input buffer is shared (referenced elsewhere)"
        return None

    def forward_input_to_output(self, input_index: int, output_index: int, shape=None, dtype=None) -> bool:
        """Make output ``output_index`` the buffer of input ``input_index`` when that is safe (see
        ``forward_refusal``); returns whether it did. The kernel may then write the output in place.
        Call it before binding the input to a local name: a local is one more reference, and a
        buffer with other references counts as shared."""
        if self.forward_refusal(input_index, shape, dtype) is not None:
            return False
        self.set_output(output_index, self.inputs[input_index])
        self.forwarded[output_index] = input_index
        return True

    def forward_input_or_allocate_output(self, candidate_input_indices, output_index: int, shape,
                                         dtype) -> tuple[np.ndarray, int]:
        """(the output buffer, the input index it was forwarded from or -1): the first candidate input
        that can be forwarded, else a new allocation (``TF_ForwardInputOrAllocateOutput``)."""
        for i in candidate_input_indices:
            if self.forward_input_to_output(i, output_index, shape, dtype):
                return self.outputs[output_index], i
        return self.allocate_output(output_index, shape, dtype), -1

    def forward_ref_input_to_ref_output(self, input_index: int, output_index: int) -> None:
        """A ref op's output is its ref input, the same variable; a no-op for a resource input (a
        resource op has no ref output), as in TensorFlow."""
        var = self.input_variable(input_index)
        if var.is_ref:
            self.set_output(output_index, var)

    # --- variables -------------------------------------------------------------------------------

    def input_variable(self, i: int) -> Variable:
        """Input ``i`` as a Variable (a resource or ref operand); InvalidArgumentError otherwise."""
        var = self.inputs[i]
        if not isinstance(var, Variable):
            raise self.error(f"operand {i} must be a resource or ref variable, got {type(var).__name__}")
        return var

    def lock_variable_inputs_in_order(self, indices, do_lock: bool = True, sparse: bool = False) -> VariableLocks:
        """Lock the variables of inputs ``indices`` (duplicates once) in their global creation order,
        exclusively when ``do_lock`` else shared (``TF_MaybeLockVariableInputMutexesInOrder``).
        With ``sparse`` each variable switches to copy-on-read once the locks are held. Returns the
        holder, a context manager; releasing it unlocks and drops the references."""
        by_uid = {}
        for i in indices:
            var = self.input_variable(i)
            by_uid[var.uid] = var
        return VariableLocks(self, [by_uid[k] for k in sorted(by_uid)], bool(do_lock), bool(sparse))

    def assign_variable(self, input_index: int, value_index: int, validate_shape: bool = True) -> None:
        """Variable input ``input_index`` := input ``value_index``. The value's buffer is adopted when it
        is a dying input nobody else holds, written into the variable's buffer in place when no reader
        holds that, else copied. InvalidArgumentError on a dtype mismatch, or a shape mismatch when
        ``validate_shape``."""
        var = self.input_variable(input_index)
        adopt = self.forward_refusal(value_index, dtype=var.dtype) is None
        var.store(self.inputs[value_index], self.op_name, validate_shape=validate_shape, adopt=adopt)

    def assign_update_variable(self, input_index: int, value_index: int, update) -> None:
        """``update(buffer, value)`` writes variable input ``input_index`` in place with input
        ``value_index`` (a ufunc such as np.add is called with ``out=buffer``), under the variable's
        exclusive lock, on a copy when a reader holds the buffer (copy-on-write). Shapes must match."""
        var = self.input_variable(input_index)
        value = np.asarray(self.inputs[value_index])
        if dtypes.as_dtype(value.dtype) is not var.dtype:
            raise self.error(f"variable {var.name} has dtype {var.dtype.name}, update has "
                             f"{dtypes.as_dtype(value.dtype).name}")
        with var.lock:
            buffer, in_place = var.begin_update(self.op_name)
            try:
                if buffer.shape != value.shape:
                    raise self.error(f"cannot update variable {var.name} with shape {list(buffer.shape)} using "
                                     f"a tensor with shape {list(value.shape)}, shapes must be equal")
                if isinstance(update, np.ufunc):
                    update(buffer, value, out=buffer)
                else:
                    update(buffer, value)
            finally:
                var.end_update(buffer, in_place)


class VariableLocks:
    """The locks of ``lock_variable_inputs_in_order``, held from creation until ``release`` (or the
    end of a ``with`` block). ``buffer(i)`` is input ``i``'s variable buffer, writable: in place when
    held exclusively and no reader holds it, else a copy swapped in on release (copy-on-write)."""

    __slots__ = ("ctx", "variables", "exclusive", "_updates")

    def __init__(self, ctx: OpKernelContext, variables: list, exclusive: bool, sparse: bool):
        self.ctx = ctx
        self.variables: tuple = ()
        self.exclusive = exclusive
        self._updates: dict = {}  # id(variable) -> (variable, buffer, in_place)
        taken = []
        try:
            for var in variables:  # ascending uid: the global order that rules out deadlock
                var.lock.acquire(exclusive)
                taken.append(var)
        except BaseException:
            for var in reversed(taken):
                var.lock.release()
            raise
        self.variables = tuple(taken)
        if sparse:  # only now: switching before the locks are held could race with a writer
            for var in taken:
                var.enable_copy_on_read()

    def buffer(self, input_index: int) -> np.ndarray:
        var = self.ctx.input_variable(input_index)
        if not any(v is var for v in self.variables):
            raise self.ctx.error(f"input {input_index}'s variable {var.name} is not locked by this holder")
        entry = self._updates.get(id(var))
        if entry is None:
            buffer, in_place = var.begin_update(self.ctx.op_name)
            entry = self._updates[id(var)] = (var, buffer, in_place)
        return entry[1]

    def release(self) -> None:
        updates, self._updates = self._updates, {}
        for var, buffer, in_place in updates.values():
            var.end_update(buffer, in_place)
        variables, self.variables = self.variables, ()
        for var in reversed(variables):
            var.lock.release()
        self.ctx = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False
