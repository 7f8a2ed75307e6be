"""What the gradient of a traced loop reads from each iteration: TensorFlow's accumulated intermediates.

    found = residuals(fn, n, externals, library, for_xla)   # once, when the forward loop is traced
    found.args      # [2]: loop variables whose value entering an iteration the gradient reads
    found.values    # [%3]: results of body ops it reads (values that change from iteration to iteration)

The forward loop stacks exactly these as it runs (while_loop.py); each backward step reads its rows and
``Stored.read_instead`` points the gradient's ops at them, erasing the replayed forward ops nothing reads
any more: a backward step costs the gradient's ops alone, as TensorFlow's while-loop gradients. The
values are found by tracing the body's pullback aside, into a scratch function that is thrown away, with
every differentiable loop variable and capture as a source; a backward step, which may want fewer,
reads a subset of them.
"""
from __future__ import annotations

from xdsl.ir import OpResult

from tinytf.autodiff.tape import GradientTape
from tinytf.errors import InternalError
from tinytf.framework import context
from tinytf.framework.op import NoConstantFold, calls_functions, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.runtime import function_body as fb
from tinytf.runtime.tracing import SymbolicTensor, TracingContext


class Residuals:
    """Which values of a loop body the forward loop stacks: loop variables (by position) and op results."""

    __slots__ = ("args", "values")

    def __init__(self, args: list[int], values: list):
        self.args, self.values = args, values

    @classmethod
    def all_states(cls, n: int) -> Residuals:
        """Every loop variable (the counter aside): a backward step replays the whole body from them."""
        return cls(list(range(1, n)), [])


def residuals(fn, n: int, externals: list, library: dict, for_xla: bool) -> Residuals | None:
    """What the pullback of body ``fn`` (``n`` loop variables, counter first, then ``externals``) reads that
    changes between iterations. None where the body calls functions (a nested loop or branch replays its
    own body), takes a variable, or reads a value with no static shape or that no body op stands for."""
    block = fn.body.block
    if any(calls_functions(op) is not None for op in block.ops) or any(isinstance(x, Variable) for x in externals):
        return None
    specs = [TensorSpec.from_type(a.type) for a in block.args]
    if any(s.dtype.name == "resource" for s in specs):
        return None
    carried = [i for i in range(1, n) if specs[i].dtype.is_differentiable]
    captured = [n + j for j, x in enumerate(externals) if fb.differentiable(x) and fb.used(fn, n + j)]
    # a copy of the library: functions a gradient rule adds here must not reach the module
    scratch = TracingContext("loop_residuals", specs + [specs[i] for i in carried], library=dict(library),
                             for_xla=for_xla)
    values: dict = {}
    try:
        with context.pushed(scratch):
            ins = scratch.inputs
            with GradientTape(watch_accessed_variables=False) as tape:
                for i in carried + captured:
                    tape.watch(ins[i])
                results = fb.replay(fn, ins[:len(specs)], values)
            forward = list(scratch.block.ops)
            tape.gradient([results[i] for i in carried], [ins[i] for i in carried + captured],
                          output_gradients=ins[len(specs):])
    except Exception:  # (an op without a gradient, say: the backward steps replay the body, and say so if asked)
        return None
    varying = {id(ins[i].value) for i in range(n)}  # the loop variables, the counter among them
    for op in forward:
        if has_trait(op, NoConstantFold) or any(id(x) in varying for x in op.operands):
            varying.update(id(r) for r in op.results)
    known = {id(op) for op in forward}
    read = {id(x): x for op in scratch.block.ops if id(op) not in known for x in op.operands if id(x) in varying}
    state = {id(ins[i].value): i for i in range(1, n)}
    body_value = {id(t.value): v for v, t in values.items() if isinstance(t, SymbolicTensor)}
    found = Residuals(sorted(state[k] for k in read if k in state), [])
    for key, x in read.items():
        if key in state or key == id(ins[0].value):  # (the backward loop counts iterations itself)
            continue
        v = body_value.get(key)
        shape = TensorSpec.from_type(x.type).shape
        if v is None or shape is None or None in shape:
            return None
        found.values.append(v)
    order = {id(r): k for k, op in enumerate(block.ops) for r in op.results}
    found.values.sort(key=lambda v: order[id(v)])
    return found


class Stored:
    """A backward step's rows of the forward loop's stacks, for ``function_body.pullback``: ``rows`` maps
    body values to the row standing for them, ``upstream`` body values to a further upstream gradient (a
    stack's own gradient: a gradient of the gradient), ``placeholders`` stand for loop variables the
    gradient does not read."""

    __slots__ = ("rows", "upstream", "placeholders")

    def __init__(self, rows: dict, upstream: dict, placeholders: list):
        self.rows, self.upstream, self.placeholders = rows, upstream, placeholders

    def seeds(self, values: dict) -> list:
        """(replayed value, upstream gradient) pairs for the tape."""
        return [(values[v], g) for v, g in self.upstream.items()]

    def read_instead(self, block, start, end, values: dict, keep: list) -> None:
        """Point the uses of stored values replayed between ops ``start`` (exclusive) and ``end`` at
        their rows, then erase the replayed ops nothing reads any more (``keep``: values still wanted)."""
        replayed = []
        op = None if end is None or end is start else block.first_op if start is None else start.next_op
        while op is not None:
            replayed.append(op)
            op = None if op is end else op.next_op
        mine = {id(op) for op in replayed}
        for v, row in self.rows.items():
            t = values.get(v)
            if isinstance(t, SymbolicTensor) and isinstance(t.value, OpResult) and id(t.value.op) in mine:
                t.value.replace_all_uses_with(row.value)
        wanted = {id(g.value) for g in keep if isinstance(g, SymbolicTensor)}
        standing_in = {id(p.value) for p in self.placeholders}
        for op in reversed(replayed):
            if not any(r.uses or id(r) in wanted for r in op.results):
                op.detach()
                op.erase()
            elif any(id(x) in standing_in for x in op.operands):
                raise InternalError(f"tt.while_loop gradient: {op.name} still reads a loop variable the forward "
                                    "loop did not stack")
