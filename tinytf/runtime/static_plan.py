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
        s3 = k0(s2)                                      # tf.ReadVariableOp: the variable's dtype and shape checked
        s4 = k1(s0, s3); del s3                          # tf.MatMul: its compute, attributes bound
        s5 = k2(s4); del s4                              # tf.Tanh: writes s4's buffer if it dies here
        _a = [s5, s1]; del s5; s6, = k3(_a); del _a      # an op with partial types: the general runner
        return [s6]

Ops with partial (``?``) types, integer operands computed at run time (unless the op is
elementwise: its shape rule reads no values), kernels (variable updates among them), several
results, or control flow keep the general runner, called as in ``Plan.run``; ops that return their
operands (``ReturnsOperands``) become assignments. Forwarding
works as there: a value's last reader gets it from a local that is deleted right after, and
``forwarding.static_kernel`` forwards it when nothing else holds it.
"""
from __future__ import annotations

import math

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, OpError
from tinytf.framework import tf_types
from tinytf.framework.kernel import allocation_limit
from tinytf.framework.op import Elementwise, Op, ReturnsOperands, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import AbstractVariable
from tinytf.ops.tensor_list_values import ListSpec
from tinytf.runtime import dispatch, forwarding
from tinytf.runtime.dispatch import kernel_failure
from tinytf.runtime.executor import Plan, _locate, op_name

_ndarray = np.ndarray


class StaticPlan(Plan):
    """A plan whose steps run through ``fast``, the function generated from ``source``; the general
    steps stay for a call under a smaller allocation limit than the plan was compiled with."""

    __slots__ = ("fast", "source", "line_steps", "names", "bare", "max_bytes", "specializable")

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


def _list_kernel(compute, attrs, dtype, general):
    """``compute`` of an op on TensorLists (immutable values): a list result as it comes, an array in the
    promised ``dtype``. A failure goes to the general runner, which reports it."""
    def run(*arrays):
        try:
            out = compute(np, *arrays, **attrs)
        except Exception:
            return general(list(arrays))[0]
        if dtype is not None and (out.__class__ is not _ndarray or out.dtype != dtype):
            out = _conform(out, dtype)
        return out

    return run


def _promised(spec, wanted) -> bool:
    """Whether a shape rule's result ``spec`` is the static type ``wanted`` ((shape, numpy dtype) or a ListSpec)."""
    if isinstance(wanted, ListSpec):
        return isinstance(spec, ListSpec) and spec.element_dtype is wanted.element_dtype and \
            _shape_or_none(spec.element_shape) == _shape_or_none(wanted.element_shape)
    return isinstance(spec, TensorSpec) and not isinstance(spec, ListSpec) and spec.shape is not None and \
        tuple(spec.shape) == wanted[0] and spec.dtype.np == wanted[1]


def _shape_or_none(shape):
    return None if shape is None else tuple(shape)


def _values_checked_by_kernel(op) -> set:
    """Positions of the operands whose values the op's compute checks and its shape rule never reads (the
    op class names them in ``VALUES_CHECKED_BY_KERNEL``: a list index, say)."""
    names = getattr(type(op), "VALUES_CHECKED_BY_KERNEL", ())
    if not names:
        return set()
    return {i for i, (name, _) in enumerate(type(op).get_irdl_definition().operands) if name in names}


def _compute_results_kernel(compute, attrs, dtypes_: tuple, general):
    """``_compute_kernel`` for an op of several results: a list of them, in the promised dtypes."""
    count = len(dtypes_)

    def run(*arrays):
        try:
            outs = compute(np, *arrays, **attrs)
        except Exception:
            return general(list(arrays))
        if not isinstance(outs, tuple | list) or len(outs) != count:
            return general(list(arrays))  # (the general runner says what is wrong)
        return [o if o.__class__ is _ndarray and o.dtype == d else _conform(o, d) for o, d in zip(outs, dtypes_)]

    return run


class _TracedVariable(AbstractVariable):
    """A variable as the traced types promise it (a ``resource<tensor<2x3xf32>>`` operand), for running
    a shape rule once at compile time."""

    __slots__ = ("dtype", "shape", "name")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.name = shape, dtypes.as_dtype(dtype), "resource"


def _variables_as_traced(kernel, name: str, variables: dict, general):
    """``kernel`` behind a check that each variable operand (position -> (shape, numpy dtype)) still has
    the traced dtype and shape: tt.function checks tensor arguments, not what a variable holds now."""
    checks = tuple((i, shape, dtypes.as_dtype(dtype)) for i, (shape, dtype) in variables.items())

    def refuse(arrays, var, shape, dtype):
        if not isinstance(var, AbstractVariable) or var.dtype is not dtype:
            outs = general(list(arrays))  # the general runner says what is wrong
            return outs[0] if outs else None
        raise InvalidArgumentError(f"{name}: variable {var.name} has shape {list(var.shape)}, the function "
                                   f"was traced with {list(shape)}", name)

    if len(checks) == 1:  # the usual case, checked without a loop
        (i, shape, dtype), = checks

        def run_one(*arrays):
            var = arrays[i]
            if getattr(var, "dtype", None) is not dtype or var.shape != shape:
                return refuse(arrays, var, shape, dtype)
            return kernel(*arrays)

        return run_one

    def run(*arrays):
        for i, shape, dtype in checks:
            var = arrays[i]
            if getattr(var, "dtype", None) is not dtype or var.shape != shape:
                return refuse(arrays, var, shape, dtype)
        return kernel(*arrays)

    return run


def ir_types(op) -> tuple:
    """(operands, variables, results) as ``bare_kernel`` takes them, from the types the IR declares:
    (shape, numpy dtype) or None per operand and result; variables: operand position -> the
    (shape, numpy dtype) of the variable a resource operand holds."""
    types = [v.type for v in op.operands]
    variables = {i: _static(tf_types.resource_subtype(t)) for i, t in enumerate(types) if tf_types.is_resource(t)}
    operands = [variables[i] if i in variables else _static(t) for i, t in enumerate(types)]
    return operands, variables, [_static(r.type) for r in op.results]


def bare_kernel(op, general, dying: set, constants: dict, types: tuple | None = None):
    """``(kernel, bytes of its results)`` for ``op`` when its types make the general runner's checks
    redundant, else None. ``dying``: operand positions read for the last time; ``constants``:
    operand position -> value of the constant operands; ``types``: what ``ir_types`` gives, from
    elsewhere (a plan specialized to its arguments' types), else the IR's.

    An op class may say how to run on operands of known types: ``kernel_for(operands, constants,
    **attrs)`` (operands: (shape, numpy dtype) or a ListSpec each) gives ``(kernel, bytes of the
    largest buffer it allocates)``, a plain function of the operands bit for bit the compute's, or None."""
    if not isinstance(op, Op):
        return None
    info = dispatch.op_info(type(op))
    types = ir_types(op) if types is None else types
    if not op.results:
        return _unchecked_update(op, general, types)
    if info.kernel is not None or info.compute is None:
        return None
    operands, variables, results = types
    if any(r is None for r in results) or any(o is None for o in operands) or \
            any(v is None for v in variables.values()):
        return None
    checked = _values_checked_by_kernel(op)
    if not has_trait(op, Elementwise) and any(
            not isinstance(o, ListSpec) and o[1].kind not in "fc" and i not in constants and i not in variables
            and i not in checked for i, o in enumerate(operands)):
        return None  # an integer or bool operand computed at run time: shape rules may read its value
    attrs = op.attr_values()
    specs = [o if isinstance(o, ListSpec) else TensorSpec((), dtypes.resource, value=_TracedVariable(*o))
             if i in variables else TensorSpec(o[0], o[1], value=constants.get(i)) for i, o in enumerate(operands)]
    try:  # the shape rule, once: it must accept these operands and promise the IR's result types
        found = info.infer(*specs, **attrs)
    except Exception:
        return None
    found = found if isinstance(found, list) else [found]
    if len(found) != len(results) or not all(_promised(spec, r) for spec, r in zip(found, results)):
        return None
    kernel_for = getattr(type(op), "kernel_for", None)
    if kernel_for is not None and not variables:  # the class's kernel for these operand types and constants
        try:
            made = kernel_for(operands, constants, **attrs)
        except Exception:  # (operands it cannot take: the kernels below)
            made = None
        if made is not None:
            return made
    if any(isinstance(t, ListSpec) for t in (*operands, *results)):  # TensorLists in or out: the compute
        if variables or len(results) > 1:
            return None
        dtype = None if isinstance(results[0], ListSpec) else results[0][1]
        return _list_kernel(info.compute, attrs, dtype, general), 0 if dtype is None else \
            math.prod(results[0][0]) * dtype.itemsize
    if len(results) > 1:  # (a list of results: the compute, each result in its promised dtype)
        if variables:
            return None
        kernel = _compute_results_kernel(info.compute, attrs, tuple(d for _, d in results), general)
        return kernel, max(math.prod(s) * d.itemsize for s, d in results)
    (shape, dtype), = results
    nbytes = math.prod(shape) * dtype.itemsize
    kernel = None
    if dtype.kind == "f" and all(d == dtype for _, d in operands) and not variables:
        kernel = forwarding.static_kernel(type(op), [s for s, _ in operands], shape, dtype, dying)
    compute_for = getattr(type(op), "compute_for", None)
    if kernel is None and compute_for is not None and dtype.kind in "fc":
        kernel = compute_for(**attrs)
    if kernel is None:
        kernel = _compute_kernel(info.compute, attrs, dtype, general)
    if variables:
        kernel = _variables_as_traced(kernel, info.name, variables, general)
    return kernel, nbytes


def _unchecked_update(op, general, types: tuple):
    """A variable update whose operand types are static and the variable's: its class's unchecked
    kernel behind the traced-variable check (``(kernel, 0)``), else None."""
    unchecked = getattr(type(op), "unchecked_kernel", None)
    operands, variables, _ = types
    var = variables.get(0)
    if unchecked is None or var is None or any(o is None or o[1] != var[1] for o in operands[1:]):
        return None
    scalars = getattr(type(op), "SCALAR_OPERANDS", ())
    if any(o[0] != (() if i in scalars else var[0]) for i, o in enumerate(operands) if i > 0):
        return None
    kernel = unchecked(op.attr_values())
    return None if kernel is None else (_variables_as_traced(kernel, op_name(op), {0: var}, general), 0)


def compile_static(plan: Plan, ops: list, types: list | None = None, cls=None) -> StaticPlan:
    """``plan`` (steps compiled for ``ops``) as a StaticPlan: bare kernels where types allow, the
    whole plan generated as one Python function. ``types``: per op, what ``ir_types`` gives, when
    they are known from elsewhere than the IR; ``cls``: a StaticPlan subclass to make."""
    out = (cls or StaticPlan).__new__(cls or StaticPlan)
    for key in Plan.__slots__:
        setattr(out, key, getattr(plan, key))
    produced = {s for _, _, outs, _ in plan.steps for s in outs}  # values of steps, not arguments / constants
    names = [f"s{i}" for i in range(plan.num_args)]
    namespace: dict = {f"s{i}": v for i, v in enumerate(plan.template) if i >= plan.num_args and v is not None}
    lines = [f"def plan({', '.join(names)}):"]
    line_steps, bare, max_bytes = {}, set(), 0
    for index, ((run, ins, outs, free), op) in enumerate(zip(plan.steps, ops)):
        dying = {p for p, s in enumerate(ins) if s in free and s in produced and ins.count(s) == 1}
        args = ", ".join(f"s{s}" for s in ins)
        gone = [f"s{s}" for s in free if s in produced]
        if has_trait(op, ReturnsOperands) and outs:
            # no copy: values are never written in place (but dying ones)
            code = f"{', '.join(f's{o}' for o in outs)}, = {', '.join(f's{i}' for i in ins)},"
        else:
            found = bare_kernel(op, run, dying, {p: plan.template[s] for p, s in enumerate(ins)
                                                       if plan.template[s] is not None and s >= plan.num_args},
                                None if types is None else types[index])
            namespace[f"k{index}"] = found[0] if found else run
            if found:
                bare.add(index)
                max_bytes = max(max_bytes, found[1])
                targets = f"s{outs[0]}" if len(outs) == 1 else "".join(f"s{s}, " for s in outs)
                code = f"{targets} = k{index}({args})" if outs else f"k{index}({args})"
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
    # general runners left (partial types, values read at run time): specializing to argument types may help
    out.specializable = any(i not in bare and not has_trait(op, ReturnsOperands) for i, op in enumerate(ops))
    return out
