"""Plans for functions traced by tinytf: static shapes, checked once, then bare kernel calls.

    program = Program(module, trusted=["f"])   # tt.function: the caller checks f's argument types
    program.run("f", [x, v])

A traced function's types are the shape rules' own results, and ``tt.function`` checks every
argument against the traced signature before a call, so an op whose operand and result types are
all static (and whose integer operands, which shape rules may read, are constants) gets the same
verdict from its shape rule on every call: the rule runs once, here, and the step calls the kernel
directly. The plan becomes one generated Python function (``plan.source``), a line per step, with
values in locals and ``del`` after their last use:

    def plan(s0, s1, s2):
        s3 = k0(s2)                                      # tf.ReadVariableOp: dtype and shape checked
        s4 = k1(s0, s3); del s3                          # tf.MatMul: np.matmul itself
        s5 = k2(s4); del s4                              # tf.Tanh: writes s4's buffer if it dies here
        _a = [s5, s1]; del s5; s6, = k3(_a); del _a      # an op with partial types: the general runner
        return [s6]

Ops with partial (``?``) types, integer operands computed at run time (unless the op is
elementwise: its shape rule reads no values), kernels (other than reading and updating variables),
several results, or control flow keep the general runner, called as in ``Plan.run``. Forwarding
works as there: a value's last reader gets it from a local that is deleted right after, and
``forwarding.static_kernel`` forwards it when nothing else holds it.
"""
from __future__ import annotations

import math

import numpy as np

from tinytf.errors import InvalidArgumentError, OpError
from tinytf.framework import tf_types
from tinytf.framework.kernel import allocation_limit
from tinytf.framework.op import Elementwise, Op, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.runtime import dispatch, forwarding
from tinytf.runtime.dispatch import kernel_failure
from tinytf.runtime.executor import Plan, _locate, _read, op_name

_ndarray = np.ndarray
_UPDATES = {"tf.AssignAddVariableOp": np.add, "tf.AssignSubVariableOp": np.subtract}


class StaticPlan(Plan):
    """A plan whose steps run through ``fast``, the function generated from ``source``; the general
    steps stay for a call under a smaller allocation limit than the plan was compiled with."""

    __slots__ = ("fast", "source", "line_steps", "names", "bare", "max_bytes")

    def run(self, args: list) -> list:
        if allocation_limit() < self.max_bytes:  # the general runners check each allocation
            return Plan.run(self, args)
        try:
            return self.fast(*args)
        except Exception as err:
            index = self._failed_step(err)
            if index is None:
                raise
            if not isinstance(err, OpError):
                if index not in self.bare:
                    raise  # a general runner's own failure: as Plan.run lets it through
                raise _locate(kernel_failure(self.names[index], err, ()), self.wheres[index]) from err
            raise _locate(err, self.wheres[index]) from err.__cause__

    def _failed_step(self, err) -> int | None:
        code = self.fast.__code__
        tb = err.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is code:
                return self.line_steps.get(tb.tb_lineno)
            tb = tb.tb_next
        return None


def _static(type_) -> tuple | None:
    """(shape, numpy dtype) of a tensor type with a static shape and a numeric or bool dtype, else None."""
    if tf_types.is_resource(type_):
        return None
    shape = tf_types.shape_of(type_)
    if not tf_types.is_static(shape):
        return None
    try:
        dtype = tf_types.dtype_of(type_)
    except Exception:
        return None
    if not (dtype.is_numeric or dtype.is_bool) or dtype.np.kind not in "biufc":
        return None
    return tuple(shape), dtype.np


def _conform(out, dtype):
    """The general runner's result handling for an unusual result: a 1-tuple, another dtype."""
    if isinstance(out, tuple | list):
        out = out[0]
    if getattr(out, "dtype", None) != dtype:
        out = np.asarray(out, dtype)
    return out


def _compute_kernel(compute, attrs, dtype, general):
    """``compute`` on numpy with the attrs bound; the dtype the shape rule promised. A failure goes
    to the general runner, which reports it as TensorFlow does."""
    def run(*arrays):
        try:
            out = compute(np, *arrays, **attrs)
        except Exception:
            return general(list(arrays))[0]
        if out.__class__ is not _ndarray or out.dtype != dtype:
            out = _conform(out, dtype)
        return out

    return run


def _matmul_kernel(transpose_a: bool, transpose_b: bool):
    matmul = np.matmul
    if not transpose_a and not transpose_b:
        return matmul
    if transpose_a and transpose_b:
        return lambda a, b: matmul(a.T, b.T)
    if transpose_a:
        return lambda a, b: matmul(a.T, b)
    return lambda a, b: matmul(a, b.T)


def _read_kernel(dtype, shape):
    def read(var):
        if not isinstance(var, Variable) or var.dtype is not dtype:
            return _read(var, dtype)  # its error
        value = var.read()
        if value.shape != shape:  # tt.function traces only variables of a fixed shape
            raise InvalidArgumentError(f"tf.ReadVariableOp: variable {var.name} has shape {list(value.shape)}, "
                                       f"the function was traced with {list(shape)}", "tf.ReadVariableOp")
        return value

    return read


def _update_kernel(name, ufunc, dtype, shape):
    """AssignAdd / AssignSub as ``OpKernelContext.assign_update_variable`` does it: in place under the
    variable's exclusive lock, on a copy when a reader holds the buffer. The value's dtype and shape
    are the variable's (static types); a variable of another dtype or shape goes the checked way."""
    def update(var, value):
        if not isinstance(var, Variable):
            raise InvalidArgumentError(f"{name}: operand 0 must be a resource (a variable), got "
                                       f"{type(var).__name__}", name)
        if var.dtype is not dtype or var.shape != shape:
            var.update(value, ufunc, name)  # its error
            return
        with var.lock:
            buffer, in_place = var.begin_update(name)
            try:
                ufunc(buffer, value, out=buffer)
            finally:
                var.end_update(buffer, in_place)

    return update


def bare_kernel(op, name: str, general, dying: set, constants: dict):
    """``(kernel, bytes of its result)`` for ``op`` when its types make the general runner's checks
    redundant, else None. ``dying``: operand positions read for the last time; ``constants``:
    operand position -> value of the constant operands."""
    if not isinstance(op, Op) or len(op.results) > 1:
        return None
    types = [v.type for v in op.operands]
    if name == "tf.ReadVariableOp":
        sub = tf_types.resource_subtype(types[0]) if types else None
        result = _static(op.results[0].type)
        if sub is None or result is None or _static(sub) != result:
            return None
        return _read_kernel(op.attr_values()["dtype"], result[0]), 0
    if name in _UPDATES:
        sub = tf_types.resource_subtype(types[0]) if len(types) == 2 else None
        value = _static(types[1]) if len(types) == 2 else None
        if sub is None or value is None or _static(sub) != value:
            return None
        return _update_kernel(name, _UPDATES[name], tf_types.dtype_of(sub), value[0]), 0
    info = dispatch.op_info(type(op))
    if info.kernel is not None or info.compute is None or info.resource or len(op.results) != 1:
        return None
    result = _static(op.results[0].type)
    operands = [_static(t) for t in types]
    if result is None or any(o is None for o in operands):
        return None
    if not has_trait(op, Elementwise) and any(o[1].kind not in "fc" and i not in constants
                                              for i, o in enumerate(operands)):
        return None  # an integer or bool operand computed at run time: shape rules may read its value
    attrs = op.attr_values()
    try:  # the shape rule, once: it must accept these operands and promise the IR's result type
        spec = info.infer(*[TensorSpec(s, d, value=constants.get(i)) for i, (s, d) in enumerate(operands)], **attrs)
    except Exception:
        return None
    if isinstance(spec, list):
        spec = spec[0] if len(spec) == 1 else None
    if not isinstance(spec, TensorSpec) or spec.shape is None or tuple(spec.shape) != result[0] \
            or spec.dtype.np != result[1]:
        return None
    shape, dtype = result
    nbytes = math.prod(shape) * dtype.itemsize
    kernel = None
    if dtype.kind == "f" and all(d == dtype for _, d in operands):
        kernel = forwarding.static_kernel(name, [s for s, _ in operands], shape, dtype, dying)
    if kernel is None and name == "tf.MatMul" and dtype.kind in "fc":
        kernel = _matmul_kernel(attrs["transpose_a"], attrs["transpose_b"])
    if kernel is None:
        kernel = _compute_kernel(info.compute, attrs, dtype, general)
    return kernel, nbytes


def compile_static(plan: Plan, ops: list) -> StaticPlan:
    """``plan`` (steps compiled for ``ops``) as a StaticPlan: bare kernels where types allow, the
    whole plan generated as one Python function."""
    out = StaticPlan.__new__(StaticPlan)
    for key in Plan.__slots__:
        setattr(out, key, getattr(plan, key))
    produced = {s for _, _, outs, _ in plan.steps for s in outs}  # values of steps, not arguments / constants
    names = [f"s{i}" for i in range(plan.num_args)]
    namespace: dict = {f"s{i}": v for i, v in enumerate(plan.template) if i >= plan.num_args and v is not None}
    lines = [f"def plan({', '.join(names)}):"]
    line_steps, bare, max_bytes = {}, set(), 0
    for index, ((run, ins, outs, free), op) in enumerate(zip(plan.steps, ops)):
        name = op_name(op)
        dying = {p for p, s in enumerate(ins) if s in free and s in produced and ins.count(s) == 1}
        args = ", ".join(f"s{s}" for s in ins)
        gone = [f"s{s}" for s in free if s in produced]
        if name == "tf.Identity" and len(ins) == 1 and len(outs) == 1:
            code = f"s{outs[0]} = s{ins[0]}"  # no copy: values are never written in place (but dying ones)
        else:
            found = bare_kernel(op, name, run, dying, {p: plan.template[s] for p, s in enumerate(ins)
                                                       if plan.template[s] is not None and s >= plan.num_args})
            namespace[f"k{index}"] = found[0] if found else run
            if found:
                bare.add(index)
                max_bytes = max(max_bytes, found[1])
                code = f"s{outs[0]} = k{index}({args})" if outs else f"k{index}({args})"
            else:  # the general runner takes a list that is a dying value's only holder
                targets = "".join(f"s{s}, " for s in outs)
                dead = [f"s{s}" for s in free if s in produced]
                code = f"_a = [{args}]; " + (f"del {', '.join(dead)}; " if dead else "") + \
                    (f"{targets}= k{index}(_a)" if outs else f"k{index}(_a)")
                gone = ["_a"]
        if gone:
            code += f"; del {', '.join(gone)}"
        lines.append("    " + code)
        line_steps[len(lines)] = index
    lines.append(f"    return [{', '.join(f's{s}' for s in plan.results)}]")
    out.source = "\n".join(lines) + "\n"
    exec(compile(out.source, f"<tinytf plan {plan.name}>", "exec"), namespace)  # noqa: S102
    out.fast = namespace["plan"]
    out.line_steps = line_steps
    out.names = [op_name(op) for op in ops]
    out.bare = bare
    out.max_bytes = max_bytes
    return out
