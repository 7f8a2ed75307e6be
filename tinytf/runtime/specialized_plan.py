"""Plans specialized to the types of their arguments: static plans for functions whose IR types are partial.

    plans = Specializer()
    plan = plans.plan_for(general_plan, [x, v, lst])    # a SpecializedPlan, or None (not yet, or never)
    plan.run([x, v, lst]); plan.fixed_point             # True: the results have the arguments' types

TensorFlow's exports declare partial types (a variable read is ``tensor<*xf32>``, a matmul ``tensor<2x?xf32>``)
and the executor trusts none of them, so a general plan runs every op's shape rule on every call. A function
called again and again with arguments of the same types (a ``tf.While`` body at each iteration, a loaded
model's entry function at each call) gets the same verdicts each time: here the shape rules run once, over
the arguments' types, and the ops whose operand and result types come out static become bare kernel calls
of a static plan (static_plan.py), one generated Python function. The types an argument contributes:

- an array: its shape and dtype (not its values: an integer argument's value is unknown to the rules);
- a variable: its dtype, and its shape when declared static (only then can no assign change it);
- a TensorList: its element shape and dtype (its length and items are values).

The plan is keyed by those types (``signature``); the types of its results come out of the same rules, so a
loop body that maps its arguments' types to themselves (``fixed_point``) keeps its plan for every iteration
without looking at the values again. Ops whose rules read values computed at run time (an integer operand
that is no constant), call functions, or keep partial types run their general runners, as in the general
plan; the general plan stays the reference and gives the same values.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.op import Op, ReturnsOperands, calls_functions, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import AbstractVariable
from tinytf.ops.tensor_list_values import ListSpec, TensorList
from tinytf.runtime import dispatch
from tinytf.runtime.frozen_reads import with_frozen_reads
from tinytf.runtime.static_plan import StaticPlan, _TracedVariable, compile_static

MAX_SIGNATURES = 8  # per function: past this many argument signatures it keeps its general plan
_ndarray = np.ndarray


class SpecializedPlan(StaticPlan):
    """A static plan for one argument signature; ``fixed_point``: its results have its arguments' types."""

    __slots__ = ("fixed_point",)


def _declared_shape(var) -> tuple | None:
    """A variable's shape when no assign can change it (declared static, and not a TF1 ref), else None."""
    declared = getattr(var, "_shape", None)
    if var.is_ref or declared is None or None in declared:
        return None
    return tuple(declared)


def _key(value):
    if isinstance(value, np.generic):
        return value.shape, value.dtype
    if isinstance(value, AbstractVariable):
        try:  # (a variable's dtype and declared shape never change: its key is worked out once)
            return value._signature_key
        except AttributeError:
            key = (AbstractVariable, value.dtype, _declared_shape(value))
            try:
                value._signature_key = key
            except AttributeError:  # (a variable class without a __dict__)
                pass
            return key
    if isinstance(value, TensorList):
        return TensorList, value.element_shape, value.element_dtype
    return (type(value),)


def signature(values) -> tuple:
    """What the specialized plan of ``values`` depends on (see the module docstring), hashable."""
    return tuple([(v.shape, v.dtype) if v.__class__ is _ndarray else _key(v) for v in values])


def argument_spec(value) -> TensorSpec | None:
    """The spec a shape rule sees for an argument of ``signature``'s key (None: nothing known)."""
    if isinstance(value, _ndarray | np.generic):
        try:
            return TensorSpec(value.shape, dtypes.as_dtype(value.dtype))
        except InvalidArgumentError:
            return None
    if isinstance(value, AbstractVariable):
        return TensorSpec((), dtypes.resource, value=_TracedVariable(_declared_shape(value), value.dtype))
    if isinstance(value, TensorList):
        return ListSpec(value.element_shape, value.element_dtype)
    return None


def _result_specs(op, operands: list, count: int, calls) -> list:
    """What the op's shape rule (``calls``: the functions it calls) promises for operands of these specs;
    None for a result it cannot say."""
    unknown = [None] * count
    if has_trait(op, ReturnsOperands):
        return operands if len(operands) == count else unknown
    trait = calls_functions(op)
    if trait is not None:
        found = None if calls is None else calls(trait, op, operands)
        return found if found is not None and len(found) == count else unknown
    if not isinstance(op, Op) or any(o is None for o in operands):
        return unknown
    info = dispatch.op_info(type(op))
    if info.infer is None:
        return unknown
    try:
        found = info.infer(*operands, **op.attr_values())
    except Exception:  # the general runner will raise it, with the run-time values, as it always does
        return unknown
    found = found if isinstance(found, list) else [found]
    if len(found) != count or not all(isinstance(s, TensorSpec) for s in found):
        return unknown
    return found


def _static(spec) -> tuple | ListSpec | None:
    """(shape, numpy dtype) of a spec with a static shape and a numeric or bool dtype; a list's spec when its
    element dtype is known; else None."""
    if isinstance(spec, ListSpec):
        return spec if spec.element_dtype is not None else None
    if spec is None or not tf_types.is_static(spec.shape):
        return None
    dtype = spec.dtype
    if not (dtype.is_numeric or dtype.is_bool) or dtype.np.kind not in "biufc":
        return None
    return tuple(spec.shape), dtype.np


def _operand_types(operands: list, results: list) -> tuple:
    """(operands, variables, results) in static_plan.ir_types' form."""
    statics, variables = [], {}
    for i, spec in enumerate(operands):
        if spec is not None and spec.dtype is dtypes.resource:
            var = spec.value
            shape = getattr(var, "shape", None)
            variables[i] = (tuple(shape), var.dtype.np) if isinstance(var, _TracedVariable) and \
                tf_types.is_static(shape) and var.dtype.np.kind in "biufc" else None
            statics.append(variables[i])
        else:
            statics.append(_static(spec))
    return statics, variables, [_static(r) for r in results]


def propagate(plan, arguments: list, calls=None) -> tuple[list, list]:
    """(spec per slot, types per step) of ``plan`` called with arguments of these specs (None: anything);
    ``calls(trait, op, operand specs)`` gives the result specs of an op that calls functions, or None."""
    specs: list = [None] * len(plan.template)
    specs[:plan.num_args] = arguments
    for slot, value in enumerate(plan.template):
        if value is not None and slot >= plan.num_args:  # a constant: its value is known to the rules
            specs[slot] = argument_spec(value)
            if specs[slot] is not None:
                specs[slot].value = value
    types = []
    trusted = isinstance(plan, StaticPlan)  # a traced function's: its IR types hold where the rules cannot say
    for (_, ins, outs, _), op in zip(plan.steps, plan.ops):
        operands = [specs[s] for s in ins]
        results = _result_specs(op, operands, len(outs), calls)
        if trusted:
            results = [r if r is not None else _declared(v.type) for r, v in zip(results, op.results)]
        for s, spec in zip(outs, results):
            specs[s] = spec
        types.append(_operand_types(operands, results))
    return specs, types


def _declared(type_) -> TensorSpec | None:
    """The spec of a tensor type of a traced function (None for a resource or a variant)."""
    if tf_types.is_resource(type_):
        return None
    try:
        spec = TensorSpec.from_type(type_)
    except Exception:
        return None
    return None if spec.dtype.kind == "o" else spec


def _fits(before, after) -> bool:
    """Whether every value of spec ``after`` is a value of spec ``before`` (None: anything)."""
    if before is None:
        return True
    if after is None:
        return False
    if isinstance(before, ListSpec) or isinstance(after, ListSpec):
        return isinstance(before, ListSpec) and isinstance(after, ListSpec) and \
            before.element_dtype in (None, after.element_dtype) and _shape_fits(before.element_shape,
                                                                             after.element_shape)
    if before.dtype is dtypes.resource:
        return after is before  # (a handle is carried as it is: the argument returned)
    return after.dtype is before.dtype and _shape_fits(before.shape, after.shape)


def _shape_fits(before, after) -> bool:
    if before is None:
        return True
    return after is not None and len(after) == len(before) and all(b is None or b == a for b, a in zip(before, after))


def _without_value(spec):
    """The spec without its known value (a loop variable's value changes; its type stays)."""
    if spec is None or spec.value is None or isinstance(spec, ListSpec) or spec.dtype is dtypes.resource:
        return spec
    return TensorSpec(spec.shape, spec.dtype)


def specialize(plan, values: list, calls=None) -> SpecializedPlan:
    """``plan`` (a general plan) compiled for arguments of ``values``' signature (``calls``: as ``propagate``)."""
    arguments = [argument_spec(v) for v in values]
    specs, types = propagate(plan, arguments, calls)
    compiled, types = with_frozen_reads(plan, types)  # (weights' steps: computed once per variable buffers)
    out = compile_static(compiled, compiled.ops, types, cls=SpecializedPlan)
    out.specializable = False
    out.fixed_point = len(plan.results) == plan.num_args and all(
        slot == i or _fits(arguments[i], specs[slot]) for i, slot in enumerate(plan.results))
    return out


class Specializer:
    """A program's specialized plans: function name -> {signature: plan, or the times it was seen}."""

    def __init__(self, program=None):
        self.program = program  # (its functions' plans, for the result specs of calls)
        self.tables: dict[str, dict] = {}
        self._open: set = set()  # functions whose specs are being propagated (a recursive call: unknown)

    signature = staticmethod(signature)

    def plan_for(self, plan, values: list, sightings: int = 2, key=None) -> SpecializedPlan | None:
        """The plan specialized to ``values``' signature (``key``, when the caller has it) once that
        signature has been seen ``sightings`` times (a signature seen once may never come back: compiling
        it would cost more than it saves); None before, and for a function called with more than
        MAX_SIGNATURES signatures."""
        table = self.tables.get(plan.name)
        if table is None:
            table = self.tables[plan.name] = {}
        if key is None:
            key = signature(values)
        found = table.get(key)
        if found.__class__ is SpecializedPlan:
            return found
        if found is None and len(table) >= MAX_SIGNATURES:
            return None
        seen = (found or 0) + 1
        if seen < sightings:
            table[key] = seen
            return None
        table[key] = made = specialize(plan, values, self.call_results)
        return made

    def call_results(self, trait, op, operands: list) -> list | None:
        """Result specs of an op calling functions of the program: a call's callee results; the results
        all branches agree on; a loop's operands when its body maps their specs into themselves (then
        every iteration does, by induction; None specs are anything). None when unknown."""
        if self.program is None:
            return None
        try:
            names = trait.callees(op)
        except Exception:
            return None
        if trait.kind == "call":
            return self._results(names[0], operands)
        if trait.kind in ("if", "case"):
            branches = [self._results(name, operands[1:]) for name in names]
            if any(b is None for b in branches) or len({len(b) for b in branches}) != 1:
                return None
            return [_without_value(first) if all(_fits(first, b[i]) and _fits(b[i], first) for b in branches[1:])
                    else None for i, first in enumerate(branches[0])]
        if trait.kind == "while":
            start = [_without_value(o) for o in operands]
            after = self._results(names[1], start)
            if after is None or len(after) != len(start) or not all(_fits(b, a) for b, a in zip(start, after)):
                return None
            return start
        return None

    def _results(self, name: str, operands: list) -> list | None:
        """The specs of function ``name``'s results for arguments of ``operands``' specs."""
        if name in self._open:
            return None
        try:
            plan = self.program.plan(name)
        except Exception:  # (a missing or broken callee: the general runner reports it)
            return None
        if not plan.specializable or plan.num_args != len(operands):
            return None  # (a traced function's plan that is all bare kernels: its IR types are its own)
        self._open.add(name)
        try:
            specs, _ = propagate(plan, list(operands), self.call_results)
        finally:
            self._open.discard(name)
        return [specs[s] for s in plan.results]
