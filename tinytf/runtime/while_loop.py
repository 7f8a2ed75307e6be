"""``tt.while_loop``: a loop in both modes, as ``tf.while_loop``; its gradient.

    i, acc = tt.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * x), [0, 1.0])

Eagerly the loop is a Python loop (a tape records each iteration's ops). Inside ``tt.function`` the
condition and body are traced into private functions called by ``tf.While``, with an iteration
counter in front of the loop variables and the captures behind them, as TensorFlow's loops:

    %n, %acc = "tf.While"(%zero, %x) <{body = @while_body_1, cond = @while_cond_1, is_stateless = true,
                  parallel_iterations = 10 : i64}> : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>)

When a tape will record the loop, the forward loop itself stacks what the gradient of its body
reads (TensorFlow's accumulated intermediates, loop_residuals.py): the gradient then loops from the
last iteration to the first, pulling the upstream gradient back through one body step that reads
those rows instead of replaying the body: two passes, O(N) steps. A loop traced without a tape
watching (or whose body assigns variables) is run once more by its gradient to stack them. A stack
is a TensorList (a push is O(1)); under XLA, whose shapes are static, a [maximum_iterations, ...]
buffer, so it needs a static ``maximum_iterations`` (as TensorFlow's XLA bridge does); without one,
and for loop variables whose shape changes, the state entering iteration k is recomputed from the
initial values instead: flat memory, O(N^2) body steps.
"""
from __future__ import annotations

import itertools

import numpy as np

from tinytf.autodiff.gradient_arithmetic import zeros_like
from tinytf.autodiff.structures import flatten, pack_as
from tinytf.autodiff.tape import pause_all, would_record
from tinytf.errors import InvalidArgumentError
from tinytf.framework import context
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.ops.array import zeros
from tinytf.ops.comparison import logical_and
from tinytf.ops.control_flow import While
from tinytf.ops.gather import gather
from tinytf.ops.tensor_list import empty_tensor_list, tensor_list_stack
from tinytf.ops.tensor_list_items import tensor_list_get_item, tensor_list_push_back
from tinytf.ops.tensor_list_values import ListSpec
from tinytf.runtime import function_body as fb
from tinytf.runtime.constructors import convert_to_tensor
from tinytf.runtime.control_flow import check_predicate, record, truth
from tinytf.runtime.function_body import BodyContext, symbolic, tracing_context
from tinytf.runtime.loop_residuals import Residuals, Stored, residuals
from tinytf.runtime.tracing import TracingContext

_ids = itertools.count(1)
# body function of a traced tt.while_loop -> (counter and loop variables, static maximum_iterations or None,
# whether the body or condition reads a variable the body assigns)
_LOOPS: dict[str, tuple[int, int | None, bool]] = {}


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations: int = 10, back_prop: bool = True,
               swap_memory: bool = False, maximum_iterations=None, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; the final ``loop_vars``.

    ``loop_vars``: a tensor, or a (nested) list or tuple of them; the body returns the same structure
    with the same dtypes. Shapes may change: traced, they are relaxed to what every iteration fits, or
    start from ``shape_invariants`` (a shape, with None dims, per loop variable), as TensorFlow's.
    """
    if not callable(cond) or not callable(body):
        raise TypeError("tt.while_loop: cond and body must be callables")
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else loop_vars
    ctx = tracing_context()
    if ctx is None:  # as TensorFlow's eager loop: loop variables are tensors from the start
        values, count = [convert_to_tensor(x) for x in flatten(structure)], 0
        while (maximum_iterations is None or count < maximum_iterations) and \
                truth(cond(*pack_as(structure, values)), "tt.while_loop"):
            new = [convert_to_tensor(x, dtype_hint=v.dtype) for x, v in zip(_flat_body(body, structure, values), values)]
            _check_dtypes(values, new)
            values, count = new, count + 1
    else:
        invariants = None if shape_invariants is None else \
            _leaves_like(structure, [shape_invariants] if single else shape_invariants)
        values = _traced_while(ctx, cond, body, structure, maximum_iterations, parallel_iterations, invariants)
    result = pack_as(structure, values)
    if single:
        return result[0]
    return type(loop_vars)(*result) if hasattr(loop_vars, "_fields") else type(loop_vars)(result)


def _flat_body(body, structure, values: list, *counter) -> list:
    new = body(*counter, *pack_as(structure, values))
    if len(structure) == 1 and not isinstance(new, (list, tuple)):
        new = [new]  # as TensorFlow: one loop variable, the body may return it bare
    if fb.structure_of(new) != fb.structure_of(structure):
        got = len(new) if isinstance(new, (list, tuple)) else 1
        raise InvalidArgumentError(f"tt.while_loop: body returned {got} values for {len(structure)} loop variables "
                                   f"(or another structure: {fb.structure_of(new)})", "tf.While")
    return flatten(new)


def _check_dtypes(before: list, after: list) -> None:
    for i, (s, v) in enumerate(zip(before, after)):
        if v.dtype is not s.dtype:
            raise InvalidArgumentError(f"tt.while_loop: loop variable {i} enters as {s.dtype.name} and the body "
                                       f"returns {v.dtype.name}", "tf.While")


def _leaves_like(structure, other) -> list:
    """``other``'s entries at the places of ``structure``'s leaves (a shape there is one entry)."""
    if isinstance(structure, (list, tuple, dict)):
        keys = sorted(structure) if isinstance(structure, dict) else range(len(structure))
        if not isinstance(other, type(structure) if isinstance(structure, dict) else (list, tuple)) or \
                len(other) != len(structure):
            raise InvalidArgumentError("tt.while_loop: shape_invariants must have the structure of loop_vars",
                                       "tf.While")
        return [leaf for k in keys for leaf in _leaves_like(structure[k], other[k])]
    return [other]


def _invariant(x, shape) -> TensorSpec:
    """The spec a loop variable starts from under its shape invariant (which its value must fit)."""
    dims = getattr(shape, "shape", shape)
    spec = TensorSpec(None if dims is None else list(dims), x.dtype)
    if not spec.is_compatible_with(x.shape):
        raise InvalidArgumentError(f"tt.while_loop: a loop variable of shape {list(x.shape)} does not fit its shape "
                                   f"invariant {None if dims is None else list(dims)}", "tf.While")
    return spec


def _traced_while(ctx: TracingContext, cond, body, structure, maximum_iterations, parallel_iterations: int,
                  invariants=None, counted: bool = False) -> list:
    """Trace cond and body with an iteration counter in front of the loop variables (TensorFlow's form),
    append the ``tf.While`` and record it on the tapes; the final loop variables. ``counted``: cond and
    body also take the counter, first, and the final counter comes first in the result."""
    first = () if not counted else (0,)
    initial = [symbolic(ctx, np.int32(0))] + [symbolic(ctx, x) for x in flatten(structure)]
    specs = [x.spec if isinstance(x.spec, ListSpec) else TensorSpec(x.shape, x.dtype) for x in initial]
    if invariants is not None:
        specs[1:] = [_invariant(x, shape) for x, shape in zip(initial[1:], invariants)]
    n, writes = next(_ids), set()
    for _ in range(len(specs) + 3):  # relax shapes until the body maps the specs into themselves
        body_ctx = BodyContext(f"while_body_{n}", specs, ctx, writes=writes)
        with context.pushed(body_ctx):
            counter, *values = body_ctx.inputs
            new = [counter + 1, *_flat_body(body, structure, values, *[counter for _ in first])]
            new = [symbolic(body_ctx, convert_to_tensor(v, dtype_hint=s.dtype)) for v, s in zip(new, specs)]
        _check_dtypes(specs[1:], new[1:])
        for i, (s, v) in enumerate(zip(specs[1:], new[1:])):
            if invariants is not None and not s.is_compatible_with(v.shape):
                raise InvalidArgumentError(f"tt.while_loop: loop variable {i} has shape {list(v.shape)} after one "
                                           f"iteration, which does not fit its shape invariant {list(s.shape)}",
                                           "tf.While")
        cond_ctx = BodyContext(f"while_cond_{n}", specs, ctx, shared=body_ctx.externals, writes=body_ctx.writes)
        with context.pushed(cond_ctx):
            counter, *values = cond_ctx.inputs
            pred = symbolic(cond_ctx, cond(*[counter for _ in first], *pack_as(structure, values)))
            check_predicate(pred.dtype, pred.shape, "tt.while_loop")
            if maximum_iterations is not None:
                pred = logical_and(counter < maximum_iterations, pred)
        relaxed = [fb.join_specs(s, v.spec) for s, v in zip(specs, new)]
        written = body_ctx.writes | cond_ctx.writes
        stale = (body_ctx.snapshots | cond_ctx.snapshots) & written  # read before the loop, assigned in it
        if [r.shape for r in relaxed] == [s.shape for s in specs] and not stale:
            break
        specs, writes = relaxed, writes | written
    for outer in cond_ctx.externals[len(body_ctx.externals):]:
        body_ctx.external(outer)
    body_ctx.finish_body(new + body_ctx.external_args)  # captures pass through unchanged
    cond_ctx.finish_body([pred])
    attrs = {"cond": cond_ctx.name, "body": body_ctx.name, "is_stateless": fb.is_stateless(body_ctx, cond_ctx),
             "parallel_iterations": parallel_iterations,
             "shape_invariant": [s.shape for s in specs] != [x.shape for x in initial]}
    bound = maximum_iterations if isinstance(maximum_iterations, int) else None
    _LOOPS[body_ctx.name] = (len(specs), bound, body_ctx.reads_written or cond_ctx.reads_written)
    result_specs = specs + [fb.argument_spec(x) for x in cond_ctx.externals]
    inputs = initial + cond_ctx.externals
    if not written and [s.shape for s in specs] == [x.shape for x in initial] and \
            any(fb.differentiable(x) for x in initial[1:]) and \
            would_record(tuple(inputs), [x for x in inputs if isinstance(x, Variable) and x.trainable]):
        recorded = _recording_while(ctx, body_ctx.name, cond_ctx.name, initial, cond_ctx.externals, bound)
        if recorded is not None:
            return recorded[1 - len(first):]
    return call_while(ctx, inputs, attrs, result_specs)[1 - len(first):len(specs)]


def _recording_while(ctx, body: str, cond: str, initial: list, externals: list, bound: int | None) -> list | None:
    """The loop of ``body`` and ``cond`` run once, stacking what the gradient reads as it goes
    (TensorFlow's accumulators), put on the tapes as the loop itself with the stacks beside it: its
    gradient then runs one backward loop, no replay of the forward one. None where the stacks would
    not have static shapes (see ``_recorded_states``)."""
    fn, cond_fn = ctx.library[body], ctx.library[cond]
    n = len(initial)
    with pause_all():  # the tapes see the loop (below), not the recording loop's ops
        found = residuals(fn, n, externals, ctx.library, ctx.for_xla) or Residuals.all_states(n)
        out, lists = _stacking_loop(fn, initial, externals, bound, ctx.for_xla,
                                    lambda state, ext: fb.replay(cond_fn, [*state, *ext])[0], found)
    if out is None:
        return None
    record(WhileCall, tuple(initial + externals), out, {"body": body, "n": n, "bound": bound, "reads_written": False,
                                                           "stacks": out[n:], "lists": lists, "residuals": found})
    return out[:n]


def call_while(ctx: TracingContext, inputs: list, attrs: dict, specs: list) -> list:
    """Append ``tf.While(inputs...)`` (counter, loop variables, then captures) and record it on the tapes."""
    operands = [ctx.capture(x) if isinstance(x, Variable) else x for x in inputs]
    results = ctx.execute(While, operands, attrs, result_specs=specs)
    n, bound, reads_written = _LOOPS[attrs["body"].removesuffix(fb.REPLAY_SUFFIX)]  # (a replay's copy: its loop's)
    record(WhileCall, tuple(inputs), results, {"body": attrs["body"], "n": n, "bound": bound,
                                               "reads_written": reads_written})
    return results


class WhileCall:
    """The tape entry of a traced ``tt.while_loop``: inputs are (counter, loop variables..., captures...)."""

    name = "tf.While"
    traits = ()
    TAKES_MISSING_GRADIENTS_AS_NONE = True  # (a stack nothing differentiates needs no zeros read back)

    @staticmethod
    def grad(op, *dys):  # Given U of the final state: for k = N-1 .. 0, U = U * d body(state_k) / d state_k
        n, body = op.raw_attrs["n"], op.raw_attrs["body"]
        initial, externals = list(op.raw_inputs[:n]), list(op.raw_inputs[n:])
        carried = [i for i in range(1, n) if fb.differentiable(initial[i])]
        captured = [j for j, x in enumerate(externals) if fb.differentiable(x) and n + j not in op.skip_input_indices]
        stacks = op.raw_attrs.get("stacks")  # (the forward loop's, outputs n.. beside the final state)
        stack_grads = list(dys[n:]) if stacks else []
        if not any(dys[i] is not None for i in carried) and not any(g is not None for g in stack_grads):
            return [None] * len(op.raw_inputs)
        fb.refuse_stale_reads(op, "tt.while_loop")
        ctx = tracing_context()
        fn, iterations = ctx.library[body], op.outputs[0]
        captured = [j for j in captured if fb.used(fn, n + j)]  # (one only the condition reads has none)
        found, lists = op.raw_attrs.get("residuals"), op.raw_attrs.get("lists")
        if not stacks:
            found, stacks, lists = _recorded_states(ctx, fn, initial, externals, iterations, op.outputs[1:n],
                                                    op.raw_attrs["bound"])
            stack_grads = [None] * len(stacks or ())
        if lists is not None and would_record(tuple(stacks)):
            lists = None  # a tape watches the stacked tensors: read them, so that its gradient reaches them
        upstream = [dys[i] if dys[i] is not None else zeros_like(op.outputs[i]) for i in carried]
        sums = [fb.zeros_for(externals[j]) for j in captured]

        def step(k, state_grads, capture_grads):
            here = tracing_context()
            ext = [fb.local(here, x) for x in externals]
            stored = None
            if stacks is not None:  # iteration k - 1's rows, as the recording loop stored them
                state, stored = _stored_rows(here, found, stacks, lists, stack_grads, initial, k - 1)
            else:  # the state entering it recomputed from the initial values (XLA, or shapes that change)
                start = [fb.local(here, x) for x in initial]
                state = while_loop(lambda *s: s[0] < k - 1, lambda *s: fb.replay(fn, [*s, *ext])[:n], start)
            sources = [state[i] for i in carried] + [ext[j] for j in captured]
            grads = fb.pullback(fn, [*state, *ext], sources, carried, list(state_grads), stored)
            if stacks is not None:  # a stacked loop variable's gradient (a gradient of the gradient) reaches it
                extra = {i: d for i, d in zip(found.args, stack_grads) if d is not None}
                grads[:len(carried)] = [g + gather(fb.local(here, extra[i]), k - 1) if i in extra else g
                                        for g, i in zip(grads, carried)]
            return k - 1, grads[:len(carried)], [a + g for a, g in zip(capture_grads, grads[len(carried):])]

        _, state_grads, capture_grads = while_loop(lambda k, *_: k > 0, step, [iterations, upstream, sums])
        out = [None] * len(op.raw_inputs)
        for i, g in zip(carried, state_grads):
            out[i] = g
        for j, g in zip(captured, capture_grads):
            out[n + j] = g
        return out


def _recorded_states(ctx, fn, initial, externals, iterations, finals, bound: int | None) -> tuple:
    """(what was stacked, the stacks, their TensorLists) of the loop run again for ``iterations`` steps (a
    loop that was not put on a tape as it ran: see ``_recording_while``); Nones where it cannot stack."""
    if any(f.shape != s.shape for s, f in zip(initial[1:], finals)):
        return None, None, None
    n = len(initial)
    found = residuals(fn, n, externals, ctx.library, ctx.for_xla) or Residuals.all_states(n)
    out, lists = _stacking_loop(fn, initial, externals, bound, ctx.for_xla, lambda state, ext: state[0] < iterations,
                                found)
    return (None, None, None) if out is None else (found, out[n:], lists)


def _stacking_loop(fn, initial, externals, bound: int | None, for_xla: bool, cond, found: Residuals) -> tuple:
    """The loop of body ``fn`` while ``cond(state, captures)``, also stacking what ``found`` names:
    ((counter, final loop variables..., one [iterations, ...] tensor per stacked value...), their
    TensorLists). A stack is a TensorList pushed on each iteration, stacked into a tensor after the loop
    (which a gradient reading the lists leaves dead). XLA's shapes are static: there a list is a
    [bound, ...] buffer written in place (a dynamic-update-slice), which needs a static
    ``maximum_iterations``, as TensorFlow's XLA bridge. (None, None) when there is nothing to stack
    into: XLA without a bound, or a loop variable without a static shape."""
    if (for_xla and bound is None) or any(s.shape is None or None in s.shape for s in initial[1:]):
        return None, None
    here = tracing_context()
    ext = [fb.local(here, x) for x in externals]
    n = len(initial)

    def recording_step(counter, *values):  # (the loop's own counter stands for fn's)
        state, stacks, seen = [counter, *values[:n - 1]], values[n - 1:], {}
        out = fb.replay(fn, [*state, *ext], seen)[1:n]
        rows = [state[i] for i in found.args] + [seen[v] for v in found.values]
        return [*out, *[tensor_list_push_back(s, r) for s, r in zip(stacks, rows)]]

    specs = [initial[i].spec for i in found.args] + [TensorSpec.from_type(v.type) for v in found.values]
    rows = max(bound, 1) if for_xla else -1  # (XLA: at least a row, which the never-run backward step reads)
    empty = [empty_tensor_list(list(s.shape), s.dtype, rows) for s in specs]
    structure = [fb.local(here, x) for x in initial[1:]] + empty
    out = _traced_while(here, lambda *v: cond(list(v[:n]), ext), recording_step, structure, None, 10, counted=True)
    lists = out[n:]
    out[n:] = [tensor_list_stack(s, spec.dtype, rows, list(spec.shape)) for s, spec in zip(lists, specs)]
    return out, lists


def _stored_rows(here, found: Residuals, stacks: list, lists: list | None, stack_grads: list, initial: list,
                 k) -> tuple:
    """(the state a backward step replays the body on, its ``Stored`` rows) for iteration ``k``: stacked
    loop variables read their rows (from the TensorLists when given: no copy), the others stand in as
    zeros the gradient never reads."""
    if lists is not None:
        rows = [tensor_list_get_item(fb.local(here, x), k, s.dtype, list(s.shape[1:])) for x, s in zip(lists, stacks)]
    else:
        rows = [gather(fb.local(here, s), k) for s in stacks]
    stacked = dict(zip(found.args, rows))
    state = [k] + [stacked[i] if i in stacked else zeros(list(initial[i].shape), initial[i].dtype)
                   for i in range(1, len(initial))]
    upstream = {v: gather(fb.local(here, d), k)
                for v, d in zip(found.values, stack_grads[len(found.args):]) if d is not None}
    placeholders = [x for i, x in enumerate(state) if i and i not in stacked]
    return state, Stored(dict(zip(found.values, rows[len(found.args):])), upstream, placeholders)


def _replay_while(ctx, ins, attrs, specs):
    if attrs["body"].removesuffix(fb.REPLAY_SUFFIX) not in _LOOPS:
        return None  # a loop read from MLIR: a plain op
    body, cond = (fb.without_effects(ctx.library, attrs[key]) for key in ("body", "cond"))
    return call_while(ctx, ins, {**attrs, "body": body, "cond": cond}, specs)


fb.REPLAY_RULES["while"] = _replay_while
