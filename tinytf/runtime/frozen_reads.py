"""Values computed from variable reads alone, computed once while the variables keep their buffers.

    plan = with_frozen_reads(plan, types)   # the weight steps become one step that reuses its results

An inference function spends part of each call on its weights, not its input: a Keras export rebuilds every
BatchNorm's scale and shift from four variable reads (Reshape, AddV2, Rsqrt, Mul, Sub, Squeeze) and the
fold-batch-norm pass scales convolution kernels by them. TensorFlow's grappler folds such subgraphs once, in
a frozen graph. Here they are the *frozen steps* of a plan: pure ops whose operands are constants, reads of
variables (an op class with ``READS_SNAPSHOT``: its result is the variable's buffer, which no update writes
while a reader holds it) or results of frozen steps. They move to one step at the start of the plan, which
reads the variables and, when every read gives the buffer it gave last time, returns the values it computed
then; else it runs the steps (their general runners) and keeps the results. The kept results are read-only
and held by the step, so no kernel forwards (overwrites) them and no update writes the buffers in place.

Only a function that writes no variable and calls no other function gets frozen steps (moving its reads to
the start then cannot change what they read), and only when they compute something from the reads.
"""
from __future__ import annotations

import numpy as np
from xdsl.traits import Pure

from tinytf.errors import OpError
from tinytf.framework.op import Op, ResourceOp, calls_functions, has_trait
from tinytf.framework.variables import Variable
from tinytf.runtime.executor import Plan, _locate
from tinytf.runtime.static_plan import bare_kernel


def _reads_snapshot(op) -> bool:
    return getattr(type(op), "READS_SNAPSHOT", False)


def frozen_steps(plan) -> list[int]:
    """Indices of the steps computed from variable reads and constants alone (empty when the function may
    write a variable or calls a function, or reads none)."""
    ops = plan.ops
    if any(not isinstance(op, Op) or calls_functions(op) is not None or
           (has_trait(op, ResourceOp) and not _reads_snapshot(op)) for op in ops):
        return []
    known = {s for s, v in enumerate(plan.template) if v is not None and s >= plan.num_args}  # constants
    results, frozen, reads = set(plan.results), [], 0
    for index, ((_, ins, outs, _), op) in enumerate(zip(plan.steps, ops)):
        if any(s in results for s in outs):
            continue  # (a function result is the caller's to keep: never a kept, read-only value)
        if _reads_snapshot(op) and all(s < plan.num_args for s in ins):
            reads += 1
        elif not (op.has_trait(Pure) and ins and all(s in known for s in ins)):
            continue
        frozen.append(index)
        known.update(outs)
    return frozen if reads and len(frozen) > reads else []  # (reads alone: nothing computed to keep)


class FrozenReads:
    """The step running a plan's frozen steps, the variable reads first: ``run(resources) -> [values the rest
    of the plan uses]``, the values of the last run when every read gives the same buffer as then."""

    __slots__ = ("steps", "reads", "wheres", "inputs", "outputs", "constants", "last", "read_kernels", "sources")

    name = "frozen reads"
    traits = ()  # (a step of its own, no IR op: engines see no trait)

    def __init__(self, steps: list, reads: int, wheres: list, inputs: list, outputs: list, constants: dict):
        self.steps, self.reads, self.wheres, self.inputs, self.outputs = steps, reads, wheres, inputs, outputs
        self.constants = constants  # slot -> the value of each constant the steps read
        self.read_kernels = [None] * reads  # the reads' bare kernels, where their types allow (static_plan.py)
        self.last = None  # (buffers read, values computed from them, the variables read)
        self.sources = [inputs.index(steps[k][1][0]) for k in range(reads)]  # each read's variable, in ``resources``

    def __call__(self, resources: list) -> list:
        last = self.last
        if last is not None and last[2] is not None:  # the hot path: the same variables, each still holding
            if all(resources[k] is v and v.current_buffer() is b  # the buffer it gave last time (no reads)
                   for k, v, b in zip(self.sources, last[2], last[0])):
                return list(last[1])
        values = dict(zip(self.inputs, resources))
        index = 0
        try:
            buffers = []
            for index in range(self.reads):
                run, ins, outs, _ = self.steps[index]
                kernel = self.read_kernels[index]
                buffers.append(run([values[s] for s in ins])[0] if kernel is None else kernel(*[values[s] for s in ins]))
            if last is not None and all(a is b for a, b in zip(last[0], buffers)):
                self.last = (last[0], last[1], self._variables(resources, buffers))
                return list(last[1])
            values.update(self.constants)
            for index in range(self.reads):
                values[self.steps[index][2][0]] = buffers[index]
            for index in range(self.reads, len(self.steps)):
                run, ins, outs, _ = self.steps[index]
                for s, v in zip(outs, run([values[s] for s in ins])):
                    values[s] = v
        except OpError as err:
            raise _locate(err, self.wheres[index]) from err.__cause__
        kept = []
        for s in self.outputs:
            value = values[s]
            if isinstance(value, np.ndarray) and value.flags.writeable:
                value.flags.writeable = False  # no kernel may overwrite a kept value
            kept.append(value)
        self.last = (tuple(buffers), tuple(kept), self._variables(resources, buffers))
        return kept

    def _variables(self, resources: list, buffers: list) -> tuple | None:
        """The variables read, when each holds the very buffer its read gave (not a copy-on-read one's copy)."""
        variables = tuple(resources[k] for k in self.sources)
        if all(isinstance(v, Variable) and v.current_buffer() is b for v, b in zip(variables, buffers)):
            return variables
        return None


def with_frozen_reads(plan, types: list) -> tuple:
    """(``plan`` with its frozen steps as one first step, ``types`` to match); the plan itself when it has
    none."""
    frozen = frozen_steps(plan)
    if not frozen:
        return plan, types
    chosen = set(frozen)
    rest = [i for i in range(len(plan.steps)) if i not in chosen]
    made = {s for i in frozen for s in plan.steps[i][2]}
    used = {s for i in rest for s in plan.steps[i][1]} | set(plan.results)
    reads_first = sorted(frozen, key=lambda i: not (_reads_snapshot(plan.ops[i]) and
                                                    all(s < plan.num_args for s in plan.steps[i][1])))
    inputs = sorted({s for i in frozen for s in plan.steps[i][1] if s < plan.num_args})
    outputs = sorted(s for s in made if s in used)
    reads = sum(_reads_snapshot(plan.ops[i]) and all(s < plan.num_args for s in plan.steps[i][1]) for i in frozen)
    constants = {s: plan.template[s] for i in frozen for s in plan.steps[i][1] if s >= plan.num_args
                 and plan.template[s] is not None}
    step = FrozenReads([plan.steps[i] for i in reads_first], reads, [plan.wheres[i] for i in reads_first], inputs,
                       outputs, constants)
    for k, i in enumerate(reads_first[:reads]):  # (a read checks its variable's type as a bare kernel does)
        found = bare_kernel(plan.ops[i], plan.steps[i][0], set(), {}, types[i])
        step.read_kernels[k] = found[0] if found else None
    out = Plan()
    for key in Plan.__slots__:
        setattr(out, key, getattr(plan, key))
    out.steps = [(step, inputs, outputs, [])] + [plan.steps[i] for i in rest]
    out.ops = [step] + [plan.ops[i] for i in rest]
    out.wheres = [plan.wheres[reads_first[0]]] + [plan.wheres[i] for i in rest]
    # each value is freed after its last reader in the new order (function results stay)
    last = {}
    for index, (_, ins, _, _) in enumerate(out.steps):
        for s in ins:
            last[s] = index
    frees = [[] for _ in out.steps]
    for s, index in last.items():
        if s not in plan.results:
            frees[index].append(s)
    out.steps = [(run, ins, outs, frees[i]) for i, (run, ins, outs, _) in enumerate(out.steps)]
    return out, [None] + [types[i] for i in rest]
