"""``tt.cond`` and ``tt.while_loop``: data-dependent control flow in both modes, as ``tf.cond`` and
``tf.while_loop``.

    y = tt.cond(x > 0, lambda: x * 2.0, lambda: -x)
    i, acc = tt.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * x), [0, 1.0])

Eagerly, or when the predicate is a Python value, the chosen function runs now, so a tape records
its ops. Inside ``tt.function`` each branch (loop condition, loop body) is traced into a private
function of the module, called by ``tf.If`` (``tf.While``) as TensorFlow exports them:

    %0 = "tf.If"(%pred, %x) <{else_branch = @cond_false_2, is_stateless = true, then_branch = @cond_true_1}>
           {Tout = [f32]} : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>

Tensors of the enclosing function that a branch uses become its arguments, variables become resource
arguments (TensorFlow's captures). A traced ``tt.cond`` differentiates as TensorFlow's does: the
gradient of a ``tf.If`` is a ``tf.If`` on the same predicate whose branches (``@cond_true_1_grad_3``)
replay each branch function under a tape. Gradients through a traced ``tf.While`` are not
implemented (UnimplementedError); eagerly the loop's ops are recorded one by one.
"""
from __future__ import annotations

import itertools

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Region

import tinytf.dtypes as dtypes
from tinytf.autodiff import grad_util
from tinytf.autodiff.tape import GradientTape, recording_tapes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import context
from tinytf.framework.op import ResourceOp, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.ops.array import Identity
from tinytf.ops.comparison import logical_and
from tinytf.ops.control_flow import If, While
from tinytf.runtime import dispatch
from tinytf.runtime.constructors import convert_to_tensor
from tinytf.runtime.tracing import SymbolicTensor, TracingContext

_ids = itertools.count(1)


class BodyContext(TracingContext):
    """Traces a function nested in another (a branch, a loop body or condition): the enclosing
    function's tensors and the variables it uses become trailing arguments, ``externals`` says whose."""

    def __init__(self, name: str, arg_specs, parent: TracingContext, shared=()):
        super().__init__(name, arg_specs, library=parent.library)
        self.parent = parent
        self.externals: list = []       # per trailing argument: a value of the parent, or a Variable
        self.external_args: list[SymbolicTensor] = []
        self._lifted: dict[int, SymbolicTensor] = {}
        for outer in shared:  # the other branch's captures first, so both take the same arguments
            self.external(outer)

    def external(self, outer) -> SymbolicTensor:
        key = id(outer) if isinstance(outer, Variable) else id(outer.value)
        found = self._lifted.get(key)
        if found is None:
            if isinstance(outer, Variable):
                found = super().capture(outer)
            else:
                arg = self.block.insert_arg(outer.spec.to_type(), len(self.block.args))
                arg.name_hint = f"arg{len(self.block.args) - 1}"
                found = SymbolicTensor(arg, outer.spec, self)
            self._lifted[key] = found
            self.externals.append(outer)
            self.external_args.append(found)
        return found

    def capture(self, var: Variable) -> SymbolicTensor:
        return self.external(var)

    def lift(self, value: SymbolicTensor, op_name: str, i: int) -> SymbolicTensor:
        return self.external(value if value.graph is self.parent else self.parent.lift(value, op_name, i))

    def finish_body(self, outputs: list) -> list[SymbolicTensor]:
        """Add the return of ``outputs`` and the private function to the library; the returned values."""
        with context.pushed(self):  # a variable among the outputs is read here
            values = [_symbolic(self, out) for out in outputs]
        self.block.add_op(func.ReturnOp(*[v.value for v in values]))
        types = ([a.type for a in self.block.args], [v.value.type for v in values])
        self.library[self.name] = func.FuncOp(self.name, types, Region(self.block), "private")
        return values


def _symbolic(ctx: TracingContext, value) -> SymbolicTensor:
    """``value`` (a tensor of this or an enclosing function, a Python number, an eager tensor) in ``ctx``."""
    return ctx._operand(dispatch.op_info(Identity), value, 0, None, None)


def _tracing_context() -> TracingContext | None:
    """The function being traced now (below any tapes), or None when running eagerly."""
    for ctx in reversed(context.stack()):
        if hasattr(ctx, "is_eager"):
            return None if ctx.is_eager else ctx
    return None


def _check_predicate(dtype, shape, what: str) -> None:
    if dtype is not dtypes.bool_ or shape not in ((), None):
        got = f"{dtype.name} {list(shape) if shape is not None else 'of unknown rank'}"
        raise InvalidArgumentError(f"{what}: the predicate must be a scalar bool, got {got}",
                                   "tf.If" if what == "tt.cond" else "tf.While")


def _truth(pred, what: str) -> bool:
    """An eager predicate's value (a Python bool, or a scalar bool tensor as in a traced function)."""
    value = np.asarray(pred)
    _check_predicate(dtypes.as_dtype(value.dtype), value.shape, what)
    return bool(value)


def _operand(ctx: TracingContext, x):
    return ctx.capture(x) if isinstance(x, Variable) else x


def _spec(x) -> TensorSpec:
    """An argument spec for what ``x`` stands for: a resource knowing its variable, or the tensor's type."""
    if isinstance(x, Variable):
        return TensorSpec((), dtypes.resource, value=x)
    return x.spec


def _join(a: TensorSpec, b: TensorSpec) -> TensorSpec:
    """The most specific spec both fit (dims that differ become unknown)."""
    if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
        return TensorSpec(None, a.dtype)
    return TensorSpec([x if x == y else None for x, y in zip(a.shape, b.shape)], a.dtype)


def _skeleton(structure):
    if isinstance(structure, (list, tuple)):
        return type(structure).__name__, [_skeleton(x) for x in structure]
    if isinstance(structure, dict):
        return "dict", sorted((k, _skeleton(v)) for k, v in structure.items())
    return None


def _stateless(*contexts: TracingContext) -> bool:
    return not any(has_trait(op, ResourceOp) for ctx in contexts for op in ctx.block.walk())


# --- tt.cond ---------------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``; both return the same structure of tensors."""
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("tt.cond: true_fn and false_fn must be callables taking no arguments")
    ctx = _tracing_context()
    if ctx is None or not isinstance(pred, SymbolicTensor):
        return true_fn() if _truth(pred, "tt.cond") else false_fn()
    if pred.graph is not ctx:
        pred = ctx.lift(pred, "tf.If", 0)
    _check_predicate(pred.dtype, pred.shape, "tt.cond")
    n = next(_ids)
    then_ctx = BodyContext(f"cond_true_{n}", [], ctx)
    with context.pushed(then_ctx):
        then_result = true_fn()
    else_ctx = BodyContext(f"cond_false_{n}", [], ctx, shared=then_ctx.externals)
    with context.pushed(else_ctx):
        else_result = false_fn()
    for outer in else_ctx.externals[len(then_ctx.externals):]:
        then_ctx.external(outer)
    if _skeleton(then_result) != _skeleton(else_result):
        raise InvalidArgumentError("tt.cond: true_fn and false_fn must return the same structure, got "
                                   f"{_skeleton(then_result)} and {_skeleton(else_result)}", "tf.If")
    then_flat, else_flat = grad_util.flatten(then_result), grad_util.flatten(else_result)
    then_values, else_values = then_ctx.finish_body(then_flat), else_ctx.finish_body(else_flat)
    specs = []
    for i, (a, b) in enumerate(zip(then_values, else_values)):
        if a.dtype is not b.dtype:
            raise InvalidArgumentError(f"tt.cond: output {i} is {a.dtype.name} in true_fn and {b.dtype.name} in "
                                       "false_fn", "tf.If")
        specs.append(_join(a.spec, b.spec))
    results = call_if(ctx, pred, then_ctx.name, else_ctx.name, then_ctx.externals, specs,
                      _stateless(then_ctx, else_ctx))
    return grad_util.pack_as(then_result, results)


def call_if(ctx: TracingContext, pred, then_name: str, else_name: str, externals: list, specs: list,
            stateless: bool) -> list:
    """Append ``tf.If(pred, externals...)`` calling two library functions; record it on the tapes."""
    attrs = {"then_branch": then_name, "else_branch": else_name, "is_stateless": stateless,
             "Tout": [s.dtype for s in specs]}
    results = ctx.execute(If, [pred, *[_operand(ctx, x) for x in externals]], attrs, result_specs=specs) or []
    inputs = (pred, *externals)
    for tape in recording_tapes():
        if tape._watch_accessed_variables:
            for x in externals:
                if isinstance(x, Variable) and x.trainable:
                    tape._watch_variable(x, x)
        if any(id(x) in tape._tracked for x in inputs):
            tape._record(IfCall, inputs, tuple(results), {"branches": (then_name, else_name), "stateless": stateless})
    return results


def _differentiable(x) -> bool:
    variable = x if isinstance(x, Variable) else getattr(getattr(x, "spec", None), "value", None)
    if isinstance(variable, Variable) and (x is variable or x.dtype is dtypes.resource):
        return variable.trainable and variable.dtype.is_differentiable
    return grad_util.is_differentiable(x)


class IfCall:
    """The tape entry of a traced ``tt.cond``."""

    name = "tf.If"
    traits = ()

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U of y = If(p, then, else)(x): dx = If(p, then', else')(x, U)
        pred, externals = op.raw_inputs[0], list(op.raw_inputs[1:])
        wanted = [i for i, x in enumerate(externals) if _differentiable(x) and i + 1 not in op.skip_input_indices]
        seeded = [j for j, dy in enumerate(dys) if dy is not None]
        if not wanted or not seeded:
            return [None] * len(op.raw_inputs)
        ctx = _tracing_context()
        specs = [_spec(x) for x in externals] + [TensorSpec(op.outputs[j].shape, op.outputs[j].dtype) for j in seeded]
        names = [_gradient_function(ctx, branch, specs, len(externals), wanted, seeded)
                 for branch in op.raw_attrs["branches"]]
        grad_specs = [_variable_spec(externals[i]) or TensorSpec(externals[i].shape, externals[i].dtype)
                      for i in wanted]
        grads = call_if(ctx, pred, names[0], names[1], externals + [dys[j] for j in seeded], grad_specs,
                        op.raw_attrs["stateless"])
        out = [None] * len(op.raw_inputs)
        for i, g in zip(wanted, grads):
            out[i + 1] = g
        return out


def _variable_spec(x) -> TensorSpec | None:
    variable = x if isinstance(x, Variable) else getattr(x.spec, "value", None) if x.dtype is dtypes.resource else None
    return TensorSpec(variable.shape, variable.dtype) if isinstance(variable, Variable) else None


def _gradient_function(ctx: TracingContext, branch: str, specs: list, n_externals: int, wanted: list,
                       seeded: list) -> str:
    """A library function (externals..., upstream grads...) -> grads of the wanted externals: the branch
    replayed under a tape."""
    body = BodyContext(f"{branch}_grad_{next(_ids)}", specs, ctx)
    args, upstream = body.inputs[:n_externals], body.inputs[n_externals:]
    sources = [args[i] for i in wanted]
    with context.pushed(body):
        with GradientTape(persistent=False, watch_accessed_variables=False) as tape:
            for s in sources:
                tape.watch(s)
            outs = replay(ctx.library[branch], args)
        grads = tape.gradient([outs[j] for j in seeded], sources, output_gradients=upstream)
        grads = [g if g is not None else grad_util.zeros_for(_variable_spec(s) or s) for g, s in zip(grads, sources)]
        body.finish_body(grads)
    return body.name


def replay(fn: func.FuncOp, args: list) -> list:
    """Run ``fn``'s ops through the current context (traced into it, recorded by its tapes); its results."""
    values = dict(zip(fn.body.block.args, args))
    ctx = _tracing_context()
    for op in fn.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return [values[v] for v in op.operands]
        if has_trait(op, ResourceOp) and not op.results:
            continue  # a variable update already happened in the forward pass
        ins = [values[v] for v in op.operands]
        attrs = op.attr_values()
        if op.name in ("tf.If", "tf.StatelessIf"):
            specs = [TensorSpec.from_type(r.type) for r in op.results]
            outs = call_if(ctx, ins[0], attrs["then_branch"], attrs["else_branch"], ins[1:], specs,
                           attrs["is_stateless"])
        else:
            outs = type(op).bind(*ins, **attrs)
            outs = [] if outs is None else outs if isinstance(outs, list) else [outs]
        values.update(zip(op.results, outs))
    raise InvalidArgumentError(f"@{fn.sym_name.data} has no return", "func.func")


# --- tt.while_loop ---------------------------------------------------------------------------

def while_loop(cond, body, loop_vars, maximum_iterations=None, parallel_iterations: int = 10, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; the final ``loop_vars``.

    ``loop_vars`` is a list or tuple (possibly nested) of tensors; the body returns the same structure
    with the same dtypes (shapes may change: they are relaxed to what every iteration fits).
    """
    if not callable(cond) or not callable(body):
        raise TypeError("tt.while_loop: cond and body must be callables")
    single = not isinstance(loop_vars, (list, tuple))
    loop_vars = [loop_vars] if single else loop_vars
    if maximum_iterations is not None:  # TensorFlow's form: a counter in front of the loop variables
        user_cond, user_body, limit = cond, body, maximum_iterations

        def cond(i, *values):
            return logical_and(i < limit, user_cond(*values))

        def body(i, *values):
            return (i + 1, *_as_sequence(user_body(*values), len(values)))

        loop_vars = [np.int32(0), *loop_vars]
    ctx = _tracing_context()
    if ctx is None:  # as TensorFlow's eager loop: loop variables are tensors from the start
        values = [convert_to_tensor(x) for x in loop_vars]
        while _truth(cond(*values), "tt.while_loop"):
            values = [convert_to_tensor(x) for x in _as_sequence(body(*values), len(values))]
    else:
        values = _traced_while(ctx, cond, body, loop_vars, parallel_iterations)
    if maximum_iterations is not None:
        values = values[1:]
    result = type(loop_vars)(values) if not hasattr(loop_vars, "_fields") else type(loop_vars)(*values)
    return result[0] if single else result


def _as_sequence(values, n: int) -> list:
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    if len(values) != n:
        raise InvalidArgumentError(f"tt.while_loop: body returned {len(values)} values for {n} loop variables",
                                   "tf.While")
    return values


def _traced_while(ctx: TracingContext, cond, body, loop_vars, parallel_iterations: int) -> list:
    initial = [_symbolic(ctx, x) for x in loop_vars]
    specs = [TensorSpec(x.shape, x.dtype) for x in initial]
    n = next(_ids)
    for _ in range(len(specs) + 1):  # relax shapes until the body maps the specs into themselves
        body_ctx = BodyContext(f"while_body_{n}", specs, ctx)
        with context.pushed(body_ctx):
            new = [_symbolic(body_ctx, v) for v in _as_sequence(body(*body_ctx.inputs), len(specs))]
        for i, (v, s) in enumerate(zip(new, specs)):
            if v.dtype is not s.dtype:
                raise InvalidArgumentError(f"tt.while_loop: loop variable {i} enters as {s.dtype.name} and the body "
                                           f"returns {v.dtype.name}", "tf.While")
        relaxed = [_join(s, v.spec) for s, v in zip(specs, new)]
        if [r.shape for r in relaxed] == [s.shape for s in specs]:
            break
        specs = relaxed
    cond_ctx = BodyContext(f"while_cond_{n}", specs, ctx, shared=body_ctx.externals)
    with context.pushed(cond_ctx):
        pred = _symbolic(cond_ctx, cond(*cond_ctx.inputs))
    _check_predicate(pred.dtype, pred.shape, "tt.while_loop")
    for outer in cond_ctx.externals[len(body_ctx.externals):]:
        body_ctx.external(outer)
    body_ctx.finish_body(new + body_ctx.external_args)  # captures pass through unchanged
    cond_ctx.finish_body([pred])
    externals = cond_ctx.externals
    attrs = {"cond": cond_ctx.name, "body": body_ctx.name, "is_stateless": _stateless(body_ctx, cond_ctx),
             "parallel_iterations": parallel_iterations,
             "shape_invariant": [s.shape for s in specs] != [x.shape for x in initial]}
    operands = initial + [_operand(ctx, x) for x in externals]
    # through the whole stack: a tape records the loop (its gradient rule says it is not implemented)
    results = context.current().execute(While, operands, attrs)
    return results[:len(specs)]
