"""Stress tests, bounded in time: concurrent training steps on shared variables neither deadlock nor
lose updates, and concurrent readers never see a partially written value. Resource and ref forms.

Updates are integer-valued float64, so the expected final values are exact sums."""
from __future__ import annotations

import itertools
import threading
import time

import numpy as np
import pytest

import tinytf as tt
from tinytf.framework.kernel import OpKernelContext
from tinytf.framework.variables import RefVariable
from tinytf.ops import ref_variables, training

THREADS = 8
STEPS = 2000
SIZE = 20_000  # large enough that an unsynchronised in-place write would be seen half done
DEADLINE_S = 120.0
ORDERS = list(itertools.permutations(range(3)))  # six orders, thread t takes ORDERS[t % 6] (and reversed)


def _order(t: int) -> list:
    order = list(ORDERS[t % len(ORDERS)])
    return order[::-1] if t >= len(ORDERS) else order


def _delta(t: int, s: int) -> float:
    return float((t * 7 + s) % 5 + 1)


def _run(workers, readers, variables):
    """Start workers and readers; fail if any worker is still running at the deadline (a deadlock)
    or raised; return what the readers saw."""
    errors: list = []
    stop = threading.Event()
    seen = {"reads": 0, "torn": [], "backwards": []}

    def guard(fn):
        def body():
            try:
                fn()
            except BaseException as err:  # reported by the main thread
                errors.append(err)
        return body

    def reader():
        last = [-1.0] * len(variables)
        while not stop.is_set():
            for i, read in enumerate(readers):
                value = read()
                first = value[0]
                if not np.all(value == first):
                    seen["torn"].append((i, np.unique(value)[:4]))
                if first < last[i]:
                    seen["backwards"].append((i, last[i], first))
                last[i] = first
                seen["reads"] += 1

    threads = [threading.Thread(target=guard(w), daemon=True) for w in workers]
    reading = [threading.Thread(target=guard(reader), daemon=True) for _ in range(2)]
    for th in reading + threads:
        th.start()
    deadline = time.monotonic() + DEADLINE_S
    for th in threads:
        th.join(max(0.0, deadline - time.monotonic()))
    stop.set()
    for th in reading:
        th.join(10)
    alive = [th for th in threads if th.is_alive()]
    assert not alive, f"{len(alive)} workers still running after {DEADLINE_S}s: deadlock"
    assert not errors, errors[0]
    return seen


def _expected():
    totals = [0.0, 0.0, 0.0]
    for t in range(THREADS):
        order = _order(t)
        for s in range(STEPS):
            totals[order[s % 3]] += _delta(t, s)
    return totals


def _check(variables, seen):
    for var, total in zip(variables, _expected()):
        np.testing.assert_array_equal(var.numpy(), np.full(SIZE, total))
    assert seen["reads"] > 0
    assert not seen["torn"], f"readers saw partially written values: {seen['torn'][:3]}"
    assert not seen["backwards"], f"a reader saw a variable go back: {seen['backwards'][:3]}"


@pytest.mark.parametrize("form", ["resource", "ref"])
def test_training_op_steps_from_eight_threads(form):
    """8 threads x 2,000 steps of (Resource)ApplyGradientDescent(use_locking=True), cycling through three
    shared variables in a different order per thread: var += delta (alpha = -1)."""
    if form == "resource":
        variables = [tt.Variable(np.zeros(SIZE)) for _ in range(3)]
        apply = training.resource_apply_gradient_descent
        readers = [v.read_value for v in variables]  # tf.ReadVariableOp
    else:
        variables = [ref_variables.variable_v2([SIZE], tt.float64) for _ in range(3)]
        for v in variables:
            ref_variables.assign(v, np.zeros(SIZE))
        apply = training.apply_gradient_descent
        readers = [v.read for v in variables]
    minus_one = np.float64(-1.0)

    def worker(t):
        def run():
            order = _order(t)
            deltas = {k: np.full(SIZE, float(k)) for k in range(1, 6)}  # shared by steps: read-only use
            for s in range(STEPS):
                apply(variables[order[s % 3]], minus_one, deltas[_delta(t, s)], use_locking=True)
        return run

    readers = [lambda r=r: np.asarray(r()) for r in readers]
    seen = _run([worker(t) for t in range(THREADS)], readers, variables)
    _check(variables, seen)


@pytest.mark.parametrize("form", ["resource", "ref"])
def test_kernels_locking_three_variables_in_different_orders(form):
    """A kernel that locks all three variables at once, its inputs in a different order per thread
    (the classic lock-order deadlock), adding delta to each under the locks."""
    make = tt.Variable if form == "resource" else RefVariable
    variables = [make(np.zeros(SIZE)) for _ in range(3)]

    def worker(t):
        def run():
            order = _order(t)
            inputs = [variables[j] for j in order]
            for s in range(STEPS):
                k = s % 3
                delta = np.full(SIZE, _delta(t, s))
                ctx = OpKernelContext("tf.TestApply3", inputs + [delta])
                with ctx.lock_variable_inputs_in_order([0, 1, 2], do_lock=True) as locks:
                    # only the step's variable changes, so the totals match the single-variable test
                    buffer = locks.buffer(k)  # input k is variables[order[k]]
                    buffer += ctx.input(3)
                    locks.buffer((k + 1) % 3)  # touched, not changed: must stay exact
        return run

    readers = [v.read for v in variables]
    seen = _run([worker(t) for t in range(THREADS)], readers, variables)
    _check(variables, seen)


def test_sparse_updates_with_copy_on_read_readers():
    """Updates that lock with ``sparse=True`` switch the variable to copy-on-read: readers then copy
    under the variable's lock, and still never see a half-written value; no update is lost."""
    var = tt.Variable(np.zeros(SIZE))

    def worker(t):
        def run():
            for s in range(STEPS // 4):
                ctx = OpKernelContext("tf.TestSparseApply", [var, np.full(SIZE, _delta(t, s))])
                with ctx.lock_variable_inputs_in_order([0], do_lock=True, sparse=True) as locks:
                    buffer = locks.buffer(0)
                    buffer += ctx.input(1)
        return run

    seen = _run([worker(t) for t in range(THREADS)], [var.read], [var])
    assert var._copy_on_read
    total = sum(_delta(t, s) for t in range(THREADS) for s in range(STEPS // 4))
    np.testing.assert_array_equal(var.numpy(), np.full(SIZE, total))
    assert seen["reads"] > 0 and not seen["torn"] and not seen["backwards"]


def test_assign_add_from_threads_with_readers():
    """tf.AssignAddVariableOp and tf.AssignAdd (use_locking) from 8 threads: exact sums, no torn reads."""
    resource = tt.Variable(np.zeros(SIZE))
    ref = RefVariable(np.zeros(SIZE))

    def worker(t):
        def run():
            for s in range(STEPS // 4):
                delta = np.full(SIZE, _delta(t, s))
                resource.assign_add(delta)
                ref_variables.assign_add(ref, delta, use_locking=True)
        return run

    seen = _run([worker(t) for t in range(THREADS)], [resource.read, ref.read], [resource, ref])
    total = sum(_delta(t, s) for t in range(THREADS) for s in range(STEPS // 4))
    np.testing.assert_array_equal(resource.numpy(), np.full(SIZE, total))
    np.testing.assert_array_equal(ref.numpy(), np.full(SIZE, total))
    assert not seen["torn"] and not seen["backwards"]


# --- independent ops on a thread pool (tinytf/runtime/parallel.py) ---------------------------------

class _Overlap:
    """How many sleepy kernels are running at once, and the most seen (``peak``)."""

    def __init__(self):
        self.cond = threading.Condition()
        self.running = self.peak = 0


_OVERLAP = _Overlap()


def _sleepy_kernel(ctx, *, seconds):
    with _OVERLAP.cond:
        _OVERLAP.running += 1
        _OVERLAP.peak = max(_OVERLAP.peak, _OVERLAP.running)
        _OVERLAP.cond.notify_all()
        # wait (the GIL released, as numpy does inside large kernels) up to ``seconds`` for another
        # kernel to be running beside this one: run one at a time, each waits the full time
        _OVERLAP.cond.wait_for(lambda: _OVERLAP.running >= 2, timeout=seconds)
    try:
        ctx.set_output(0, ctx.input(0) + 1)
    finally:
        with _OVERLAP.cond:
            _OVERLAP.running -= 1


@pytest.fixture(scope="module")
def sleepy():
    from tinytf.framework.custom_op import register_op, unregister_op
    from tinytf.framework.tensor_spec import TensorSpec

    op = register_op("TestSleepAddOne", inputs=["x"], outputs=["y"], attrs={"seconds": 0.3},
                     kernel=_sleepy_kernel, shape_fn=lambda x, *, seconds: TensorSpec(x.shape, x.dtype))
    yield op
    unregister_op("TestSleepAddOne")


def test_parallel_program_overlaps_independent_ops_and_keeps_state_order(sleepy):
    from tinytf.runtime.executor import Program
    from tinytf.runtime.parallel import ParallelProgram

    v = tt.Variable(np.zeros(3))

    @tt.function
    def f(x):
        a, b, c = sleepy(x), sleepy(x * 2.0), sleepy(x - 1.0)  # independent: may overlap
        v.assign(a)
        v.assign_add(b)  # state ops keep program order: v = a + b, never b alone
        return a + b + c, v.read_value()

    cf = f.get_concrete_function(tt.TensorSpec([3], tt.float64))
    x = np.ones(3)
    peaks, outs = {}, {}
    for cls in (Program, ParallelProgram):
        program = cls(cf.module)
        _OVERLAP.peak = 0
        outs[cls] = program.run(cf.name, [x, v])
        peaks[cls] = _OVERLAP.peak  # the most sleepy kernels that ran at the same time
    for got, want in zip(outs[ParallelProgram], outs[Program]):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(outs[ParallelProgram][0], [6.0, 6.0, 6.0])  # x = 1: a, b, c = 2, 3, 1
    np.testing.assert_array_equal(outs[ParallelProgram][1], [5.0, 5.0, 5.0])
    assert _OVERLAP.running == 0
    assert peaks[Program] == 1  # one op after another
    assert peaks[ParallelProgram] >= 2  # independent ops overlapped


def test_parallel_program_reports_the_failing_op():
    from tinytf.errors import InvalidArgumentError
    from tinytf.runtime.parallel import ParallelProgram

    module = tt.load_mlir("""
func.func @main(%x: tensor<2xf32>, %s: tensor<1xi32>) -> tensor<2xf32> {
  %a = "tf.Exp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = "tf.Reshape"(%x, %s) : (tensor<2xf32>, tensor<1xi32>) -> tensor<2xf32>
  %c = "tf.AddV2"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}""")
    program = ParallelProgram(module.module)
    with pytest.raises(InvalidArgumentError, match="Reshape"):
        program.run("main", [np.ones(2, np.float32), np.array([5], np.int32)])  # 2 elements into 5
    out = program.run("main", [np.ones(2, np.float32), np.array([2], np.int32)])[0]  # the program still works
    np.testing.assert_allclose(out, np.full(2, np.e + 1.0, np.float32), rtol=1e-6)
