"""``tt.cond`` and ``tt.while_loop``: data-dependent control flow in both modes, as ``tf.cond`` and
``tf.while_loop``.

    y = tt.cond(x > 0, lambda: x * 2.0, lambda: -x)
    i, acc = tt.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * x), [0, 1.0])

Eagerly, or when the predicate is a Python value, the chosen function runs now, so a tape records
its ops. Inside ``tt.function`` each branch (loop condition, loop body) is traced into a private
function of the module (``function_body.BodyContext``), called by ``tf.If`` (``tf.While``) as
TensorFlow exports them:

    %0 = "tf.If"(%pred, %x) <{else_branch = @cond_false_2, is_stateless = true, then_branch = @cond_true_1}>
           : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>

Gradients, as TensorFlow's: the gradient of a ``tf.If`` is a ``tf.If`` on the same predicate whose
branches replay each branch under a tape. A ``tf.While`` carries an iteration counter (as
TensorFlow's loops do); its gradient runs the loop once more stacking the state each iteration
starts from (TensorFlow's accumulators), then loops from the last iteration to the first, pulling
the upstream gradient back through one replayed body step: O(N) body steps. Under XLA, whose shapes
are static, the stack needs a static ``maximum_iterations`` (as TensorFlow's XLA bridge does); without
one, and for loop variables whose shape changes, the state entering iteration k is recomputed from
the initial values instead: flat memory, O(N^2) body steps.
"""
from __future__ import annotations

import itertools

import numpy as np
from xdsl.dialects import func

import tinytf.dtypes as dtypes
from tinytf.autodiff import grad_util
from tinytf.autodiff.tape import GradientTape, recording_tapes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import context
from tinytf.framework.op import ResourceOp, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.ops.array import zeros
from tinytf.ops.comparison import logical_and
from tinytf.ops.control_flow import If, While
from tinytf.ops.gather import gather
from tinytf.ops.joining import concat
from tinytf.ops.scatter import tensor_scatter_update
from tinytf.ops.shape import expand_dims, reshape
from tinytf.runtime import function_body as fb
from tinytf.runtime.constructors import convert_to_tensor
from tinytf.runtime.function_body import BodyContext, symbolic, tracing_context
from tinytf.runtime.tracing import SymbolicTensor, TracingContext

_ids = itertools.count(1)
# body function of a traced tt.while_loop -> (counter and loop variables, static maximum_iterations or None)
_LOOPS: dict[str, tuple[int, int | None]] = {}


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


def _record(entry_cls, inputs: tuple, results: list, attrs: dict) -> None:
    """Put one call on every recording tape that tracks one of its inputs (variables read inside are watched)."""
    for tape in recording_tapes():
        if tape._watch_accessed_variables:
            for x in inputs:
                if isinstance(x, Variable) and x.trainable:
                    tape._watch_variable(x, x)
        if any(id(x) in tape._tracked for x in inputs):
            tape._record(entry_cls, inputs, tuple(results), attrs)


# --- tt.cond ---------------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``; both return the same structure of tensors."""
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("tt.cond: true_fn and false_fn must be callables taking no arguments")
    ctx = tracing_context()
    if ctx is None or not isinstance(pred, SymbolicTensor):
        return true_fn() if _truth(pred, "tt.cond") else false_fn()
    pred = fb.local(ctx, pred, "tf.If")
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
    if fb.structure_of(then_result) != fb.structure_of(else_result):
        raise InvalidArgumentError("tt.cond: true_fn and false_fn must return the same structure, got "
                                   f"{fb.structure_of(then_result)} and {fb.structure_of(else_result)}", "tf.If")
    then_values = then_ctx.finish_body(grad_util.flatten(then_result))
    else_values = else_ctx.finish_body(grad_util.flatten(else_result))
    specs = []
    for i, (a, b) in enumerate(zip(then_values, else_values)):
        if a.dtype is not b.dtype:
            raise InvalidArgumentError(f"tt.cond: output {i} is {a.dtype.name} in true_fn and {b.dtype.name} in "
                                       "false_fn", "tf.If")
        specs.append(fb.join_specs(a.spec, b.spec))
    results = call_if(ctx, pred, then_ctx.name, else_ctx.name, then_ctx.externals, specs,
                      fb.is_stateless(then_ctx, else_ctx))
    return grad_util.pack_as(then_result, results)


def call_if(ctx: TracingContext, pred, then_name: str, else_name: str, externals: list, specs: list,
            stateless: bool) -> list:
    """Append ``tf.If(pred, externals...)`` calling two library functions; record it on the tapes."""
    attrs = {"then_branch": then_name, "else_branch": else_name, "is_stateless": stateless,
             "Tout": [s.dtype for s in specs]}
    operands = [pred, *[ctx.capture(x) if isinstance(x, Variable) else x for x in externals]]
    results = ctx.execute(If, operands, attrs, result_specs=specs) or []
    _record(IfCall, (pred, *externals), results, {"branches": (then_name, else_name), "stateless": stateless})
    return results


class IfCall:
    """The tape entry of a traced ``tt.cond``."""

    name = "tf.If"
    traits = ()

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U of y = If(p, then, else)(x): dx = If(p, then', else')(x, U)
        pred, externals = op.raw_inputs[0], list(op.raw_inputs[1:])
        wanted = [i for i, x in enumerate(externals) if fb.differentiable(x) and i + 1 not in op.skip_input_indices]
        seeded = [j for j, dy in enumerate(dys) if dy is not None]
        if not wanted or not seeded:
            return [None] * len(op.raw_inputs)
        ctx = tracing_context()
        specs = [fb.argument_spec(x) for x in externals] + [TensorSpec(op.outputs[j].shape, op.outputs[j].dtype)
                                                         for j in seeded]
        names = [_gradient_branch(ctx, branch, specs, len(externals), wanted, seeded)
                 for branch in op.raw_attrs["branches"]]
        grad_specs = [fb.variable_spec(externals[i]) or TensorSpec(externals[i].shape, externals[i].dtype)
                      for i in wanted]
        grads = call_if(ctx, pred, names[0], names[1], externals + [dys[j] for j in seeded], grad_specs,
                        op.raw_attrs["stateless"])
        out = [None] * len(op.raw_inputs)
        for i, g in zip(wanted, grads):
            out[i + 1] = g
        return out


def _gradient_branch(ctx: TracingContext, branch: str, specs: list, n_externals: int, wanted: list,
                     seeded: list) -> str:
    """A library function (externals..., upstream grads...) -> the wanted externals' gradients."""
    body = BodyContext(f"{branch}_grad_{next(_ids)}", specs, ctx)
    args, upstream = body.inputs[:n_externals], body.inputs[n_externals:]
    with context.pushed(body):
        grads = _pullback(ctx.library[branch], args, [args[i] for i in wanted], seeded, upstream)
    body.finish_body(grads)
    return body.name


def _pullback(fn: func.FuncOp, args: list, sources: list, outputs: list, upstream: list) -> list:
    """The gradients of ``sources`` (some of ``args``) when ``fn(*args)``'s ``outputs`` get ``upstream``."""
    with GradientTape(watch_accessed_variables=False) as tape:
        for s in sources:
            tape.watch(s)
        results = replay(fn, args)
    grads = tape.gradient([results[j] for j in outputs], sources, output_gradients=upstream)
    return [g if g is not None else fb.zeros_for(s) for g, s in zip(grads, sources)]


def replay(fn: func.FuncOp, args: list) -> list:
    """Run ``fn``'s ops through the current context (traced into it, recorded by its tapes); its results.
    Variable updates are left out: they happened when the forward pass ran."""
    values = dict(zip(fn.body.block.args, args))
    ctx = tracing_context()
    for op in fn.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return [values[v] for v in op.operands]
        if has_trait(op, ResourceOp) and not op.results:
            continue
        ins = [values[v] for v in op.operands]
        attrs = op.attr_values()
        specs = [TensorSpec.from_type(r.type) for r in op.results]
        if op.name in ("tf.If", "tf.StatelessIf"):
            outs = call_if(ctx, ins[0], attrs["then_branch"], attrs["else_branch"], ins[1:], specs,
                           attrs["is_stateless"])
        elif op.name == "tf.While" and attrs["body"] in _LOOPS:
            outs = call_while(ctx, ins, attrs, specs)
        else:
            outs = type(op).bind(*ins, **attrs)
            outs = [] if outs is None else outs if isinstance(outs, list) else [outs]
        values.update(zip(op.results, outs))
    raise InvalidArgumentError(f"@{fn.sym_name.data} has no return", "func.func")


# --- tt.while_loop ---------------------------------------------------------------------------

def while_loop(cond, body, loop_vars, maximum_iterations=None, parallel_iterations: int = 10, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; the final ``loop_vars``.

    ``loop_vars``: a tensor, or a (nested) list or tuple of them; the body returns the same structure
    with the same dtypes (shapes may change: they are relaxed to what every iteration fits).
    """
    if not callable(cond) or not callable(body):
        raise TypeError("tt.while_loop: cond and body must be callables")
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else loop_vars
    ctx = tracing_context()
    if ctx is None:  # as TensorFlow's eager loop: loop variables are tensors from the start
        values, count = [convert_to_tensor(x) for x in grad_util.flatten(structure)], 0
        while (maximum_iterations is None or count < maximum_iterations) and \
                _truth(cond(*grad_util.pack_as(structure, values)), "tt.while_loop"):
            values = [convert_to_tensor(x) for x in _flat_body(body, structure, values)]
            count += 1
    else:
        values = _traced_while(ctx, cond, body, structure, maximum_iterations, parallel_iterations)
    result = grad_util.pack_as(structure, values)
    if single:
        return result[0]
    return type(loop_vars)(*result) if hasattr(loop_vars, "_fields") else type(loop_vars)(result)


def _flat_body(body, structure, values: list) -> list:
    new = body(*grad_util.pack_as(structure, values))
    if len(structure) == 1 and not isinstance(new, (list, tuple)):
        new = [new]  # as TensorFlow: one loop variable, the body may return it bare
    if fb.structure_of(new) != fb.structure_of(structure):
        got = len(new) if isinstance(new, (list, tuple)) else 1
        raise InvalidArgumentError(f"tt.while_loop: body returned {got} values for {len(structure)} loop variables "
                                   f"(or another structure: {fb.structure_of(new)})", "tf.While")
    return grad_util.flatten(new)


def _traced_while(ctx: TracingContext, cond, body, structure, maximum_iterations, parallel_iterations: int) -> list:
    """Trace cond and body with an iteration counter in front of the loop variables (TensorFlow's form),
    append the ``tf.While`` and record it on the tapes; the final loop variables."""
    initial = [symbolic(ctx, np.int32(0))] + [symbolic(ctx, x) for x in grad_util.flatten(structure)]
    specs = [TensorSpec(x.shape, x.dtype) for x in initial]
    n = next(_ids)
    for _ in range(len(specs) + 1):  # relax shapes until the body maps the specs into themselves
        body_ctx = BodyContext(f"while_body_{n}", specs, ctx)
        with context.pushed(body_ctx):
            counter, *values = body_ctx.inputs
            new = [counter + 1, *_flat_body(body, structure, values)]
            new = [symbolic(body_ctx, v) for v in new]
        for i, (v, s) in enumerate(zip(new[1:], specs[1:])):
            if v.dtype is not s.dtype:
                raise InvalidArgumentError(f"tt.while_loop: loop variable {i} enters as {s.dtype.name} and the body "
                                           f"returns {v.dtype.name}", "tf.While")
        relaxed = [fb.join_specs(s, v.spec) for s, v in zip(specs, new)]
        if [r.shape for r in relaxed] == [s.shape for s in specs]:
            break
        specs = relaxed
    cond_ctx = BodyContext(f"while_cond_{n}", specs, ctx, shared=body_ctx.externals)
    with context.pushed(cond_ctx):
        counter, *values = cond_ctx.inputs
        pred = symbolic(cond_ctx, cond(*grad_util.pack_as(structure, values)))
        _check_predicate(pred.dtype, pred.shape, "tt.while_loop")
        if maximum_iterations is not None:
            pred = logical_and(counter < maximum_iterations, pred)
    for outer in cond_ctx.externals[len(body_ctx.externals):]:
        body_ctx.external(outer)
    body_ctx.finish_body(new + body_ctx.external_args)  # captures pass through unchanged
    cond_ctx.finish_body([pred])
    attrs = {"cond": cond_ctx.name, "body": body_ctx.name, "is_stateless": fb.is_stateless(body_ctx, cond_ctx),
             "parallel_iterations": parallel_iterations,
             "shape_invariant": [s.shape for s in specs] != [x.shape for x in initial]}
    _LOOPS[body_ctx.name] = (len(specs), maximum_iterations if isinstance(maximum_iterations, int) else None)
    result_specs = specs + [fb.argument_spec(x) for x in cond_ctx.externals]
    return call_while(ctx, initial + cond_ctx.externals, attrs, result_specs)[1:len(specs)]


def call_while(ctx: TracingContext, inputs: list, attrs: dict, specs: list) -> list:
    """Append ``tf.While(inputs...)`` (counter, loop variables, then captures) and record it on the tapes."""
    operands = [ctx.capture(x) if isinstance(x, Variable) else x for x in inputs]
    results = ctx.execute(While, operands, attrs, result_specs=specs)
    n, bound = _LOOPS[attrs["body"]]
    _record(WhileCall, tuple(inputs), results, {"body": attrs["body"], "n": n, "bound": bound})
    return results


class WhileCall:
    """The tape entry of a traced ``tt.while_loop``: inputs are (counter, loop variables..., captures...)."""

    name = "tf.While"
    traits = ()

    @staticmethod
    def grad(op, *dys):  # Given U of the final state: for k = N-1 .. 0, U = U * d body(state_k) / d state_k
        n, body = op.raw_attrs["n"], op.raw_attrs["body"]
        initial, externals = list(op.raw_inputs[:n]), list(op.raw_inputs[n:])
        carried = [i for i in range(1, n) if fb.differentiable(initial[i])]
        captured = [j for j, x in enumerate(externals) if fb.differentiable(x) and n + j not in op.skip_input_indices]
        if not any(dys[i] is not None for i in carried):
            return [None] * len(op.raw_inputs)
        ctx = tracing_context()
        fn, iterations = ctx.library[body], op.outputs[0]
        states = _recorded_states(fn, initial, externals, iterations, op.outputs[1:n], op.raw_attrs["bound"],
                                  ctx.for_xla)
        upstream = [dys[i] if dys[i] is not None else grad_util.zeros_like(op.outputs[i]) for i in carried]
        sums = [fb.zeros_for(externals[j]) for j in captured]

        def step(k, state_grads, capture_grads):
            here = tracing_context()
            ext = [fb.local(here, x) for x in externals]
            if states is not None:  # the state entering iteration k - 1, as the recording loop stored it
                state = [k - 1, *[gather(fb.local(here, s), k - 1) for s in states]]
            else:  # ... recomputed from the initial values (XLA, or shapes that change between iterations)
                start = [fb.local(here, x) for x in initial]
                state = while_loop(lambda *s: s[0] < k - 1, lambda *s: replay(fn, [*s, *ext])[:n], start)
            sources = [state[i] for i in carried] + [ext[j] for j in captured]
            grads = _pullback(fn, [*state, *ext], sources, carried, list(state_grads))
            return k - 1, grads[:len(carried)], [a + g for a, g in zip(capture_grads, grads[len(carried):])]

        _, state_grads, capture_grads = while_loop(lambda k, *_: k > 0, step, [iterations, upstream, sums])
        out = [None] * len(op.raw_inputs)
        for i, g in zip(carried, state_grads):
            out[i] = g
        for j, g in zip(captured, capture_grads):
            out[n + j] = g
        return out


def _recorded_states(fn, initial, externals, iterations, finals, bound: int | None, for_xla: bool) -> list | None:
    """The loop run again for ``iterations`` steps, stacking the state each step starts from: one
    [iterations, ...] tensor per loop variable (TensorFlow's accumulators). It grows by ConcatV2 in a
    graph; XLA's shapes are static, so there it is a [bound, ...] tensor written in place
    (TensorScatterUpdate, a dynamic-update-slice) and needs a static ``maximum_iterations``. None when
    there is nothing to stack into: XLA without a bound, or a loop variable whose shape is not static
    and the same throughout."""
    starts = initial[1:]
    if (for_xla and bound is None) or \
            any(s.shape is None or None in s.shape or f.shape != s.shape for s, f in zip(starts, finals)):
        return None
    here = tracing_context()
    ext = [fb.local(here, x) for x in externals]
    n = len(initial)

    def record(*values):
        state, stacks = list(values[:n]), values[n:]
        if not for_xla:
            stacks = [concat([s, expand_dims(v, 0)], 0) for s, v in zip(stacks, state[1:])]
        else:
            at = reshape(state[0], [1, 1])
            stacks = [tensor_scatter_update(s, at, expand_dims(v, 0)) for s, v in zip(stacks, state[1:])]
        return [*replay(fn, [*state, *ext])[:n], *stacks]

    empty = [zeros((bound if for_xla else 0, *s.shape), s.dtype) for s in starts]
    return while_loop(lambda *v: v[0] < iterations, record, [fb.local(here, x) for x in initial] + empty)[n:]
