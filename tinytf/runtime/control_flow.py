"""``tt.cond`` and ``tt.switch_case``: data-dependent branches in both modes, as ``tf.cond`` and
``tf.switch_case`` (``tt.while_loop`` is in while_loop.py).

    y = tt.cond(x > 0, lambda: x * 2.0, lambda: -x)
    z = tt.switch_case(k, [lambda: x, lambda: x * x, lambda: -x])

Eagerly, or when the predicate is a Python value, the chosen function runs now, so a tape records
its ops. Inside ``tt.function`` each branch is traced into a private function of the module
(``function_body.BodyContext``) taking every branch's captures, called by ``tf.If`` (``tf.Case``) as
TensorFlow exports them:

    %0 = "tf.If"(%pred, %x) <{else_branch = @cond_false_2, is_stateless = true, then_branch = @cond_true_1}>
           : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>

Gradients, as TensorFlow's: the gradient of a ``tf.If`` (``tf.Case``) is a ``tf.If`` (``tf.Case``) on
the same predicate (index) whose branches replay each branch under a tape (``@cond_true_1_grad_3``).
"""
from __future__ import annotations

import itertools

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr

import tinytf.dtypes as dtypes
from tinytf.autodiff.structures import flatten, pack_as
from tinytf.autodiff.tape import record_call
from tinytf.errors import InvalidArgumentError
from tinytf.framework import context
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.ops.control_flow import Case, If
from tinytf.runtime import function_body as fb
from tinytf.runtime.function_body import BodyContext, symbolic, tracing_context
from tinytf.runtime.tracing import SymbolicTensor, TracingContext

_ids = itertools.count(1)
# branch functions that read a variable after assigning it: a replay would read a later value
_READS_WRITTEN: set[str] = set()


def check_predicate(dtype, shape, what: str) -> None:
    if dtype is not dtypes.bool_ or shape not in ((), None):
        got = f"{dtype.name} {list(shape) if shape is not None else 'of unknown rank'}"
        raise InvalidArgumentError(f"{what}: the predicate must be a scalar bool, got {got}",
                                   "tf.If" if what == "tt.cond" else "tf.While")


def _check_index(dtype, shape) -> None:
    if dtype is not dtypes.int32 or shape not in ((), None):
        got = f"{dtype.name} {list(shape) if shape is not None else 'of unknown rank'}"
        raise InvalidArgumentError(f"tt.switch_case: branch_index must be a scalar int32, got {got}", "tf.Case")


def truth(pred, what: str) -> bool:
    """An eager predicate's value (a Python bool, or a scalar bool tensor as in a traced function)."""
    value = np.asarray(pred)
    check_predicate(dtypes.as_dtype(value.dtype), value.shape, what)
    return bool(value)


def record(entry_cls, inputs: tuple, results: list, attrs: dict) -> None:
    """Put a traced tf.If / tf.Case / tf.While on the tapes (a variable passed in is one it accesses)."""
    record_call(entry_cls, inputs, tuple(results), attrs,
                accessed=[x for x in inputs if isinstance(x, Variable) and x.trainable])


# --- tt.cond ---------------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``; both return the same structure of tensors."""
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("tt.cond: true_fn and false_fn must be callables taking no arguments")
    ctx = tracing_context()
    if ctx is not None and isinstance(pred, Variable):
        pred = pred.value()  # read when the function runs, not when it is traced
    if ctx is None or not isinstance(pred, SymbolicTensor):
        return true_fn() if truth(pred, "tt.cond") else false_fn()
    pred = fb.local(ctx, pred, "tf.If")
    check_predicate(pred.dtype, pred.shape, "tt.cond")
    n = next(_ids)
    return _traced_branches(ctx, pred, [true_fn, false_fn], [f"cond_true_{n}", f"cond_false_{n}"],
                            ["true_fn", "false_fn"], "tt.cond")


def switch_case(branch_index, branch_fns, default=None, name=None):
    """``branch_fns[branch_index]()``; an index out of range runs ``default`` (the last branch when
    None), as ``tf.switch_case``. ``branch_fns``: a list of callables, or a dict {0: fn, 1: fn, ...}."""
    if isinstance(branch_fns, dict):
        if sorted(branch_fns) != list(range(len(branch_fns))):
            raise ValueError(f"tt.switch_case: branch_fns keys must be 0..{len(branch_fns) - 1}, got "
                             f"{sorted(branch_fns)}")
        branch_fns = [branch_fns[k] for k in range(len(branch_fns))]
    fns = list(branch_fns) + ([default] if default is not None else [])
    if not fns or not all(callable(f) for f in fns):
        raise TypeError("tt.switch_case: branch_fns (and default) must be callables taking no arguments")
    ctx = tracing_context()
    if ctx is not None and isinstance(branch_index, Variable):
        branch_index = branch_index.value()  # read when the function runs, not when it is traced
    if ctx is None or not isinstance(branch_index, SymbolicTensor):
        index = np.asarray(branch_index, np.int32 if isinstance(branch_index, int) else None)
        _check_index(dtypes.as_dtype(index.dtype), index.shape)
        return fns[Case.branch_for(int(index), len(fns))]()
    index = fb.local(ctx, branch_index, "tf.Case")
    _check_index(index.dtype, index.shape)
    n = next(_ids)
    return _traced_branches(ctx, index, fns, [f"case_branch{k}_{n}" for k in range(len(fns))],
                            [f"branch {k}" for k in range(len(fns))], "tt.switch_case", case=True)


def _traced_branches(ctx: TracingContext, selector, fns: list, names: list, labels: list, what: str,
                     case: bool = False):
    """Trace each branch into a library function taking the same captures; the tf.If / tf.Case results,
    in the branches' structure (a None output stays None)."""
    bodies, results, flats = [], [], []
    for fn, name in zip(fns, names):
        body = BodyContext(name, [], ctx, shared=bodies[-1].externals if bodies else ())
        with context.pushed(body):
            results.append(fn())
            # here, so that an enclosing tensor or variable returned as it is becomes a capture now
            flats.append([None if v is None else symbolic(body, v) for v in flatten(results[-1])])
        bodies.append(body)
    externals = bodies[-1].externals
    for body in bodies[:-1]:  # the captures a later branch added
        for outer in externals[len(body.externals):]:
            body.external(outer)
    for k in range(1, len(fns)):
        if fb.structure_of(results[k]) != fb.structure_of(results[0]) or \
                [v is None for v in flats[k]] != [v is None for v in flats[0]]:
            raise InvalidArgumentError(f"{what}: {labels[0]} and {labels[k]} must return the same structure, got "
                                       f"{fb.structure_of(results[0])} and {fb.structure_of(results[k])}",
                                       "tf.Case" if case else "tf.If")
    kept = [i for i, v in enumerate(flats[0]) if v is not None]
    values = [body.finish_body([flat[i] for i in kept]) for body, flat in zip(bodies, flats)]
    specs = []
    for i, outs in zip(kept, zip(*values)):
        for k, v in enumerate(outs[1:], 1):
            if v.dtype is not outs[0].dtype:
                raise InvalidArgumentError(f"{what}: output {i} is {outs[0].dtype.name} in {labels[0]} and "
                                           f"{v.dtype.name} in {labels[k]}", "tf.Case" if case else "tf.If")
        spec = outs[0].spec
        for v in outs[1:]:
            spec = fb.join_specs(spec, v.spec)
        specs.append(spec)
    _READS_WRITTEN.update(b.name for b in bodies if b.reads_written)
    outs = call_branches(ctx, selector, tuple(names), externals, specs, fb.is_stateless(*bodies), case)
    flat = [None] * len(flats[0])
    for i, r in zip(kept, outs):
        flat[i] = r
    return pack_as(results[0], flat)


def call_branches(ctx: TracingContext, selector, branches: tuple, externals: list, specs: list, stateless: bool,
                  case: bool = False) -> list:
    """Append ``tf.If(pred, externals...)`` (or ``tf.Case(index, externals...)``) calling library
    functions; record it on the tapes."""
    if case:
        attrs = {"branches": ArrayAttr([SymbolRefAttr(b) for b in branches])}
    else:
        attrs = {"then_branch": branches[0], "else_branch": branches[1]}
    attrs.update(is_stateless=stateless, Tout=[s.dtype for s in specs])
    operands = [selector, *[ctx.capture(x) if isinstance(x, Variable) else x for x in externals]]
    results = ctx.execute(Case if case else If, operands, attrs, result_specs=specs) or []
    reads_written = any(b.removesuffix(fb.REPLAY_SUFFIX) in _READS_WRITTEN for b in branches)
    record(BranchCall, (selector, *externals), results, {"branches": tuple(branches), "stateless": stateless,
                                                          "case": case, "reads_written": reads_written})
    return results


class BranchCall:
    """The tape entry of a traced ``tt.cond`` (``tf.If``) or ``tt.switch_case`` (``tf.Case``)."""

    name = "tf.If"
    traits = ()

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U of y = If(p, then, else)(x): dx = If(p, then', else')(x, U)
        pred, externals = op.raw_inputs[0], list(op.raw_inputs[1:])
        wanted = [i for i, x in enumerate(externals) if fb.differentiable(x) and i + 1 not in op.skip_input_indices]
        seeded = [j for j, dy in enumerate(dys) if dy is not None]
        if not wanted or not seeded:
            return [None] * len(op.raw_inputs)
        fb.refuse_stale_reads(op, "tt.cond")
        ctx = tracing_context()
        specs = [fb.argument_spec(x) for x in externals] + [TensorSpec(op.outputs[j].shape, op.outputs[j].dtype)
                                                         for j in seeded]
        names = [_gradient_branch(ctx, branch, specs, len(externals), wanted, seeded)
                 for branch in op.raw_attrs["branches"]]
        grad_specs = [fb.variable_spec(externals[i]) or TensorSpec(externals[i].shape, externals[i].dtype)
                      for i in wanted]
        grads = call_branches(ctx, pred, names, externals + [dys[j] for j in seeded], grad_specs,
                              op.raw_attrs["stateless"], op.raw_attrs["case"])
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
        grads = fb.pullback(ctx.library[branch], args, [args[i] for i in wanted], seeded, upstream)
    body.finish_body(grads)
    return body.name


def _replay_if(ctx, ins, attrs, specs):
    branches = [fb.without_effects(ctx.library, b) for b in (attrs["then_branch"], attrs["else_branch"])]
    return call_branches(ctx, ins[0], tuple(branches), ins[1:], specs, attrs["is_stateless"])


def _replay_case(ctx, ins, attrs, specs):
    branches = [fb.without_effects(ctx.library, b) for b in Case.branch_names(attrs["branches"])]
    return call_branches(ctx, ins[0], tuple(branches), ins[1:], specs, attrs["is_stateless"], case=True)


fb.REPLAY_RULES.update({"if": _replay_if, "case": _replay_case})
