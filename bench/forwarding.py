"""Graph-mode peak memory of a chain of 20 elementwise ops on a 100 MB tensor, with and without
buffer forwarding (issue 5), measured with tracemalloc (numpy reports its allocations to it).

    python bench/forwarding.py [--size-mb 100] [--ops 20]

Three executors run the same traced function:
- keep-all: every value lives to the end of the run (no liveness), the naive graph runner;
- liveness: tinytf's executor, each value freed after its last use (tinytf/runtime/executor.py);
- forwarding: liveness plus kernels reusing a dying input's buffer (tinytf/runtime/forwarding.py).
The peak counts the input argument, which the caller holds. Target: forwarding at most 3x the tensor.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import tinytf as tt  # noqa: E402
from tinytf.runtime import forwarding  # noqa: E402
from tinytf.runtime.executor import Program  # noqa: E402


class KeepAllProgram(Program):
    """No liveness: nothing is freed before the run ends."""

    def _compile(self, fn):
        plan = super()._compile(fn)
        plan.steps = [(run, ins, outs, []) for run, ins, outs, _ in plan.steps]
        return plan


def chain(x, n_ops: int):
    """n_ops elementwise ops: unary ones and binary ones with a scalar constant (broadcast)."""
    steps = [lambda v: tt.math.abs(v), lambda v: v * 0.5, lambda v: tt.math.sqrt(v), lambda v: v + 1.0,
             lambda v: tt.math.tanh(v), lambda v: tt.math.negative(v), lambda v: tt.math.exp(v),
             lambda v: v - 0.25, lambda v: tt.math.square(v), lambda v: tt.nn.relu(v)]
    for i in range(n_ops):
        x = steps[i % len(steps)](x)
    return x


def measure(program_cls, module, name, x, forward: bool = True) -> tuple[float, float, np.ndarray]:
    program = program_cls(module)
    if not forward:  # compile without forwarding kernels (also once the executor itself forwards)
        forwarding.ENABLED = False
    try:
        program.plan(name)
    finally:
        forwarding.ENABLED = True
    tracemalloc.start()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    start = time.perf_counter()
    out = program.run(name, [x])[0]
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (peak - base) + x.nbytes, seconds, out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=100.0)
    parser.add_argument("--ops", type=int, default=20)
    args = parser.parse_args(argv)
    n = int(args.size_mb * 1e6 // 4)
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    fn = tt.function(lambda v: chain(v, args.ops))
    cf = fn.get_concrete_function(tt.TensorSpec([n], tt.float32))
    module, name = cf.module, cf.name
    ops = sum(1 for op in module.walk() if op.name.startswith("tf.") and op.name != "tf.Const") - 1  # less Identity
    results = {}
    outs = {}
    for label, cls, forward in (("keep-all", KeepAllProgram, False), ("liveness", Program, False),
                                ("forwarding", Program, True)):
        peak, seconds, outs[label] = measure(cls, module, name, x, forward)
        results[label] = (peak, seconds)
    assert all(np.array_equal(outs["keep-all"], o, equal_nan=True) for o in outs.values()), "results differ"
    size = x.nbytes
    print(f"chain of {ops} elementwise ops on a {size / 1e6:.0f} MB float32 tensor (peak includes the input)")
    for label, (peak, seconds) in results.items():
        print(f"  {label:<11} peak {peak / 1e6:8.1f} MB = {peak / size:5.2f}x the tensor   {seconds * 1e3:7.1f} ms")
    ok = results["forwarding"][0] <= 3 * size
    print(f"target: forwarding peak <= 3x the tensor: {'met' if ok else 'NOT met'}")
    return results


if __name__ == "__main__":
    main()
