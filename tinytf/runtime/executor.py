"""The graph executor: runs a module's ``func.func``s, each compiled once into a flat plan.

    program = Program(module)
    outputs = program.run("main", [x, w])      # numpy arrays (Variables for resource arguments)

A plan is a list of steps ``(run, input slots, output slots, slots to free)``. Values live in a
list of slots; constants are decoded once, at compile time; each value is dropped right after
its last use, so memory tracks the live set (and a kernel may later reuse a dying input's
buffer). Shapes declared in the IR are not trusted (TensorFlow prints ``tensor<4x?xf32>`` and
``tensor<*xf32>``): every op's shape rule runs on the actual values.

Ops that call other functions of the module say so with their ``CallsFunctions`` trait, and run
by its kind: a call (``tf.PartitionedCall``, ...), "if" (``tf.If``), "case", "while", and "cluster"
(``tf_device.cluster_func``: its callee runs through the XLA backend). Every other op runs by its
class's rules: ``compute`` or ``kernel``, with a forwarding kernel when the class says how to write
into a buffer (tinytf/runtime/forwarding.py).

``Program(module, trusted=[name])``: the caller guarantees the argument types of those functions
(``tt.function`` checks its arguments against the traced signature), so their plans are static
plans (tinytf/runtime/static_plan.py): shape rules once at compile time, bare kernel calls. Any
other function, called again with arguments of types seen before (a loaded model's entry at each
call, a ``tf.While`` body at each iteration), runs a plan specialized to those types
(tinytf/runtime/specialized_plan.py); a loop whose body keeps its types runs on one such plan.
"""
from __future__ import annotations

import threading

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, NotFoundError, OpError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.op import Op, calls_functions, is_constant, location
from tinytf.framework.variables import Variable
from tinytf.runtime import dispatch
from tinytf.runtime.forwarding import forwarding_kernel

MAX_CALL_DEPTH = 64
_calls = threading.local()  # per-thread call depth of nested function calls


# Runs a tf_device.cluster_func callee: (module, callee name, arrays) -> arrays. Installed by
# tinytf.function, since the XLA backend sits above the runtime in the layer order.
cluster_backend = None


def op_name(op: Operation) -> str:
    """The op's real name (an unregistered op's ``name`` is ``builtin.unregistered``)."""
    name = getattr(op, "op_name", None)
    return name.data if name is not None else op.name


def _where(op: Operation) -> str:
    loc = location(op)
    return f"{loc}: " if loc else ""


def truth(value, what: str) -> bool:
    """TensorFlow's predicate rule: a scalar's value; a non-scalar is true when it is non-empty."""
    if value.__class__ is np.bool_:
        return bool(value)
    value = np.asarray(value)
    if value.dtype.kind == "O":
        raise InvalidArgumentError(f"{what}: predicate must be a numeric or bool tensor")
    return bool(value) if value.ndim == 0 else value.size > 0


class Plan:
    """One function compiled: steps over numbered slots; ``wheres[i]`` is step i's file:line:col."""

    specializable = True  # a plan specialized to its arguments' types may run bare kernels where this cannot

    __slots__ = ("name", "num_args", "arg_types", "steps", "template", "results", "wheres", "calls", "ops")

    def run(self, args: list) -> list:
        slots = list(self.template)
        slots[:len(args)] = args
        index = 0
        try:
            for run, ins, outs, free in self.steps:
                inputs = [slots[i] for i in ins]
                for s in free:  # before the step: its input list is then a dying value's only holder,
                    slots[s] = None  # so the kernel may forward that buffer to its output
                values = run(inputs)
                inputs = None
                for s, v in zip(outs, values):
                    slots[s] = v
                values = v = None  # the slots must hold the only references
                index += 1
        except OpError as err:
            raise _locate(err, self.wheres[index]) from err.__cause__
        return [slots[i] for i in self.results]


class Program:
    """The functions of one module, compiled on first call; ``resources`` holds VarHandleOp variables."""

    def __init__(self, module: ModuleOp, trusted=()):
        self.module = module
        self.functions: dict[str, func.FuncOp] = {
            op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
        self.plans: dict[str, Plan] = {}
        self.resources: dict = {}
        self.specializer = None  # general plans specialized to their arguments' types (specialized_plan.py)
        # functions whose callers guarantee the declared argument types (tt.function checks its
        # arguments against the traced signature): their plans may rely on static types
        self.trusted = frozenset(trusted)

    def function(self, name: str) -> func.FuncOp:
        fn = self.functions.get(name)
        if fn is None:
            raise NotFoundError(f"function @{name} is not defined in the module")
        return fn

    def plan(self, name: str) -> Plan:
        plan = self.plans.get(name)
        if plan is None:
            plan = self.plans[name] = self._compile(self.function(name))
        return plan

    def run(self, name: str, args: list) -> list:
        plan = self.plan(name)
        if len(args) != plan.num_args:
            raise InvalidArgumentError(f"@{name} takes {plan.num_args} arguments, got {len(args)}")
        if plan.specializable:  # the plan specialized to these arguments' types, if any
            plan = self.specialized(plan, args) or plan
        return self._run_plan(plan, args)

    def specialized(self, plan: Plan, args: list, sightings: int = 2):
        """``plan`` specialized to ``args``' types once they have been seen ``sightings`` times, else None."""
        return self._specializer().plan_for(plan, args, sightings)

    def _specializer(self):
        if self.specializer is None:
            from tinytf.runtime.specialized_plan import Specializer  # (it builds on this module)

            self.specializer = Specializer(self)
        return self.specializer

    def _run_plan(self, plan: Plan, args: list) -> list:
        if not plan.calls:  # runs no other function: it cannot recurse
            return plan.run(args)
        depth = getattr(_calls, "depth", 0)
        if depth >= MAX_CALL_DEPTH:  # a function that calls itself without end: an error, not a crash
            raise InvalidArgumentError(f"@{plan.name}: function calls nested deeper than {MAX_CALL_DEPTH} "
                                       "(recursive PartitionedCall / If / While?)")
        _calls.depth = depth + 1
        try:
            return plan.run(list(args))
        finally:
            _calls.depth = depth

    # --- compiling -----------------------------------------------------------------------------

    def _compile(self, fn: func.FuncOp) -> Plan:
        if not fn.body.blocks:
            raise InvalidArgumentError(f"function @{fn.sym_name.data} has no body")
        block = fn.body.blocks[0]
        slot_of: dict = {}
        template: list = []

        def new_slot(value, init=None):
            slot_of[value] = len(template)
            template.append(init)
            return slot_of[value]

        for arg in block.args:
            new_slot(arg)
        steps, uses, results, wheres, ops = [], [], [], [], []
        for op in block.ops:
            name = op_name(op)
            if isinstance(op, func.ReturnOp) or name == "func.return":
                results = [slot_of[v] for v in op.operands]
                break
            try:
                ins = [slot_of[v] for v in op.operands]
            except KeyError:
                raise _mark(InvalidArgumentError(f"{_where(op)}'{name}' op uses a value defined after it or "
                                                 "in another region", name)) from None
            if is_constant(op):  # decoded once, here
                new_slot(op.results[0], type(op).compute(np, **op.attr_values()))
                continue
            run = self._runner(op, name)
            outs = [new_slot(r) for r in op.results]
            steps.append([run, ins, outs, []])
            uses.append(ins)
            wheres.append(_where(op))
            ops.append(op)
        # Free each value right after its last reader (function results stay).
        last: dict[int, int] = {}
        for index, ins in enumerate(uses):
            for s in ins:
                last[s] = index
        keep = set(results)
        for s, index in last.items():
            if s not in keep:
                steps[index][3].append(s)
        plan = Plan()
        plan.name = fn.sym_name.data
        plan.num_args = len(block.args)
        plan.arg_types = [a.type for a in block.args]
        plan.steps = [tuple(s) for s in steps]
        plan.template = template
        plan.results = results
        plan.wheres = wheres
        plan.calls = any(calls_functions(op) is not None for op in ops)
        plan.ops = ops
        if plan.name in self.trusted:
            from tinytf.runtime import static_plan  # (it builds on this module)

            return static_plan.compile_static(plan, ops)
        return plan

    def _runner(self, op: Operation, name: str):
        where = _where(op)
        n_results = len(op.results)
        trait = calls_functions(op)
        if trait is not None:
            try:
                functions = trait.callees(op)
            except OpError as err:
                raise _mark(type(err)(f"{where}{err.message}", name)) from None
            return self._caller(trait.kind, functions, n_results, name)
        if not isinstance(op, Op):
            raise _mark(UnimplementedError(f"{where}'{name}' op is not implemented (unknown op)", name))
        info = dispatch.op_info(type(op))
        if info.kernel is None and info.compute is None:
            raise _mark(UnimplementedError(f"{where}'{name}' op has no kernel (not implemented)", name))
        try:
            attrs = op.attr_values()
        except OpError as err:
            raise _mark(type(err)(f"{where}{err.message}", name)) from None
        resources = self.resources
        cache: dict = {}  # this op's shape-rule verdicts per input signature
        signature, infer, compute = dispatch.signature, dispatch.infer, dispatch.compute

        plain = info.compute if info.kernel is None else None

        def run(arrays):
            key = signature(arrays)
            dts = cache.get(key) if key is not None else None
            if dts is None:
                dts = dispatch.result_dtypes(infer(info, arrays, attrs))
                if key is not None and len(cache) < 64:
                    cache[key] = dts
            if plain is not None:
                try:
                    out = plain(np, *arrays, **attrs)
                except OpError:
                    raise
                except Exception as err:
                    raise dispatch.kernel_failure(name, err, arrays) from err
                outs = list(out) if isinstance(out, tuple | list) else [out]
            else:
                outs = compute(info, arrays, attrs, resources)
            if len(outs) != n_results:
                raise InvalidArgumentError(
                    f"{name}: the kernel gave {len(outs)} results, the IR declares {n_results}", name)
            for i, dt in enumerate(dts):  # the dtypes the shape rule promised (numpy may promote)
                if dt is not None and getattr(outs[i], "dtype", None) != dt:
                    outs[i] = np.asarray(outs[i], dt)
            return outs

        return forwarding_kernel(type(op), attrs, run) or run

    def _caller(self, kind: str, functions: list[str], n_results: int, name: str):
        """The step runner of an op that calls functions of the module (its CallsFunctions trait)."""
        if kind == "call":
            callee, = functions
            return lambda args: self.run(callee, args)
        if kind == "if":
            then_fn, else_fn = functions
            return lambda args: self.run(then_fn if truth(args[0], name) else else_fn, args[1:])
        if kind == "while":
            cond, body = functions
            return lambda args: self._while(cond, body, args, n_results)
        if kind == "case":
            def case(args):
                index = int(np.asarray(args[0]).reshape(-1)[0]) if np.size(args[0]) == 1 else -1
                # TensorFlow: an out-of-range branch index runs the last branch
                return self.run(functions[index if 0 <= index < len(functions) else -1], args[1:])

            return case
        callee, = functions  # "cluster": a compiled cluster, run by the cluster backend (XLA)

        def cluster(args):
            if cluster_backend is None:
                raise UnimplementedError(f"{name} needs the XLA backend (tinytf.xla)", name)
            return cluster_backend(self.module, callee, args)

        return cluster

    def _while(self, cond: str, body: str, args: list, n_results: int) -> list:
        values = list(args)
        plans = self._loop_plans(cond, body, values, 2)
        if plans is None:  # (types not seen before, or a body that changes them)
            if not truth(self.run(cond, values)[0], "tf.While"):
                return values
            values = self._body(body, values, len(args))
            plans = self._loop_plans(cond, body, values, 1)  # the body runs again: worth compiling
        if plans is not None:
            return self._loop(*plans, values)
        while truth(self.run(cond, values)[0], "tf.While"):
            values = self._body(body, values, len(args))
        return values

    def _body(self, body: str, values: list, count: int) -> list:
        values = self.run(body, values)
        if len(values) != count:
            raise InvalidArgumentError(f"tf.While: body @{body} returned {len(values)} values for "
                                       f"{count} loop variables", "tf.While")
        return values

    def _loop_plans(self, cond: str, body: str, values: list, sightings: int) -> tuple | None:
        """(cond's plan, body's plan) for every iteration that starts with values of ``values``' types:
        plans specialized to these types (once seen ``sightings`` times) when the body gives values of
        the same types again (a fixed point), else traced functions' static plans; None when neither."""
        plans = self.plan(cond), self.plan(body)
        if any(p.num_args != len(values) for p in plans):
            return None
        cond_plan, body_plan = plans
        if body_plan.specializable:
            specializer = self._specializer()
            key = specializer.signature(values)
            made = specializer.plan_for(body_plan, values, sightings, key)
            if made is not None and made.fixed_point:
                body_plan = made
                if cond_plan.specializable:
                    cond_plan = specializer.plan_for(cond_plan, values, sightings, key) or cond_plan
        if Plan in (cond_plan.__class__, body_plan.__class__) or len(body_plan.results) != len(values):
            return None  # (general plans: the loop looks up each iteration's plan by its values' types)
        return cond_plan, body_plan

    def _loop(self, cond: Plan, body: Plan, values: list) -> list:
        run_cond = cond.run if not cond.calls else lambda vs: self._run_plan(cond, vs)
        run_body = body.run if not body.calls else lambda vs: self._run_plan(body, vs)
        while truth(run_cond(values)[0], "tf.While"):
            values = run_body(values)
        return values


def _mark(err: OpError) -> OpError:
    err._located = True  # the message already says where
    return err


def _locate(err: OpError, where: str) -> OpError:
    """``err`` with the op's file:line:col in front (once: a callee's error already has its own)."""
    if not where or getattr(err, "_located", False):
        return err
    try:
        new = type(err)(f"{where}{err.message}", err.op)
    except TypeError:
        return err
    return _mark(new)


def check_argument(value, type_, index: int, fn_name: str):
    """An entry argument as the function expects it: a Variable for a resource, else an array of the
    declared dtype whose shape fits the declared (possibly partial) shape."""
    if tf_types.is_resource(type_):
        if isinstance(value, Variable):
            return value
        return Variable(np.asarray(value), name=f"arg{index}")
    dtype = tf_types.dtype_of(type_)
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    array = np.asarray(value) if isinstance(value, np.ndarray | np.generic) else np.asarray(value, dtype.np)
    if array.dtype != dtype.np:
        raise InvalidArgumentError(
            f"@{fn_name} argument {index}: expected {dtype.name}, got {dtypes.as_dtype(array.dtype).name}")
    shape = tf_types.shape_of(type_)
    if shape is not None and (len(shape) != array.ndim or any(d is not None and d != s
                                                                for d, s in zip(shape, array.shape))):
        want = "x".join("?" if d is None else str(d) for d in shape)
        raise InvalidArgumentError(f"@{fn_name} argument {index}: expected shape [{want}], got {list(array.shape)}")
    return array
