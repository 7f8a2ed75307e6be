"""Running independent ops of a graph at the same time, on a thread pool.

    program = ParallelProgram(module, max_workers=4)
    program.run("main", [x, w])      # the two branches of x @ w + tanh(x) ... overlap

numpy releases the GIL inside large kernels (ufuncs, matmul, reductions), so ops that do not
depend on each other gain from running on several threads. A step becomes ready when the steps
producing its inputs have finished; ops that touch state (variables, calls, control flow,
unknown ops) also wait for the previous such op, so their program order — the order TensorFlow's
automatic control dependencies give a ``tf.function`` — is kept. Values are freed, and may be
forwarded, once their last reader starts (as in ``Plan.run``); the reference count keeps a
reader that is still running from having its input overwritten.

A step that runs a nested function (a call, a branch, a loop body) runs that function
sequentially in its worker thread, so nested runs never wait on the pool they are part of.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from tinytf.errors import OpError
from tinytf.framework.op import Op, ResourceOp, calls_functions, has_trait, is_constant
from tinytf.runtime.executor import Plan, Program, _locate, op_name

_worker = threading.local()  # set in pool threads: nested plans run sequentially there


def _stateful(op) -> bool:
    return not isinstance(op, Op) or has_trait(op, ResourceOp) or calls_functions(op) is not None


class ParallelPlan(Plan):
    """A plan with each step's dependencies, run as a dataflow graph on ``pool``."""

    __slots__ = ("deps", "users", "readers", "pool")
    specializable = False  # (its steps run concurrently; a specialized plan would run them in order)

    def run(self, args: list) -> list:
        if getattr(_worker, "active", False) or len(self.steps) < 2:
            return Plan.run(self, args)
        slots = list(self.template)
        slots[:len(args)] = args
        waiting = [len(d) for d in self.deps]
        readers = dict(self.readers)
        keep = set(self.results)
        lock = threading.Lock()
        finished = threading.Event()
        state = {"left": len(self.steps), "error": None, "running": 0}  # steps to finish; started, not over

        def settle():  # under ``lock``: one started step is over
            state["running"] -= 1
            if state["left"] == 0 or (state["error"] is not None and state["running"] == 0):
                finished.set()

        def start(index):  # ``running`` already counts this step
            run, ins, outs, _ = self.steps[index]
            with lock:
                if state["error"] is not None:
                    settle()
                    return
                inputs = [slots[i] for i in ins]
                for s in set(ins):  # the last reader to start: drop the slot, so it may be forwarded
                    readers[s] -= 1
                    if readers[s] == 0 and s not in keep:
                        slots[s] = None
            self.pool.submit(execute, index, run, inputs, outs)

        def execute(index, run, inputs, outs):
            _worker.active = True
            ready = []
            try:
                values = run(inputs)
                inputs = None
                with lock:
                    for s, v in zip(outs, values):
                        slots[s] = v
                    values = v = None
                    state["left"] -= 1
                    for user in self.users[index]:
                        waiting[user] -= 1
                        if waiting[user] == 0:
                            ready.append(user)
                    state["running"] += len(ready)
            except BaseException as err:  # stop scheduling; the caller raises it
                with lock:
                    if state["error"] is None:
                        state["error"] = (index, err)
            finally:
                _worker.active = False
            for user in ready:
                start(user)
            with lock:
                settle()

        initial = [index for index, count in enumerate(waiting) if count == 0]
        state["running"] = len(initial)
        for index in initial:
            start(index)
        finished.wait()
        if state["error"] is not None:
            index, err = state["error"]
            if isinstance(err, OpError):
                raise _locate(err, self.wheres[index]) from None
            raise err
        return [slots[i] for i in self.results]


class ParallelProgram(Program):
    """A Program whose plans run independent ops concurrently on a shared thread pool."""

    def __init__(self, module, max_workers: int = 4):
        super().__init__(module)
        self.pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="tinytf-op")

    def _compile(self, fn):
        base = super()._compile(fn)
        plan = ParallelPlan.__new__(ParallelPlan)  # a larger slot layout: copy, not re-class
        for key in Plan.__slots__:
            setattr(plan, key, getattr(base, key))
        ops = [op for op in fn.body.blocks[0].ops if op_name(op) != "func.return" and not is_constant(op)]
        ops = ops[:len(plan.steps)]  # the steps, in order (constants are folded into the template)
        producer = {}
        deps: list = []
        last_stateful = None
        for index, ((_, ins, outs, _), op) in enumerate(zip(plan.steps, ops)):
            mine = {producer[s] for s in ins if s in producer}
            if _stateful(op):
                if last_stateful is not None:
                    mine.add(last_stateful)
                last_stateful = index
            deps.append(sorted(mine))
            for s in outs:
                producer[s] = index
        users: list = [[] for _ in plan.steps]
        for index, mine in enumerate(deps):
            for d in mine:
                users[d].append(index)
        readers: dict = {}
        for _, ins, _, _ in plan.steps:
            for s in set(ins):
                readers[s] = readers.get(s, 0) + 1
        plan.deps, plan.users, plan.readers, plan.pool = deps, users, readers, self.pool
        return plan

    def close(self) -> None:
        self.pool.shutdown(wait=True)
