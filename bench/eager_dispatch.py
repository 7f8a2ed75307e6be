"""Eager dispatch cost: a 2x2 float32 add in a loop, tinytf beside numpy (and TensorFlow, PyTorch,
JAX eager when importable), in one run.

    python bench/eager_dispatch.py [--quick]
    PYTHONPATH=. /work/tfenv/bin/python bench/eager_dispatch.py     # with TensorFlow beside
    python bench/eager_dispatch.py --cpu-time     # thread CPU time: steadier on a loaded machine

Target (issue 8): tinytf at most 1 µs per op and at most 3x numpy.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402


def per_call_us(fn, number: int, repeat: int, timer=time.perf_counter) -> float:
    fn()
    return min(timeit.Timer(fn, timer=timer).repeat(number=number, repeat=repeat)) / number * 1e6


def candidates():
    a = np.ones((2, 2), np.float32)
    b = np.full((2, 2), 2.0, np.float32)
    yield "numpy np.add", lambda: np.add(a, b)

    import tinytf as tt

    ta, tb = tt.constant(a), tt.constant(b)
    yield "tinytf tt.add", lambda: tt.add(ta, tb)
    yield "tinytf a + b", lambda: ta + tb
    try:
        import torch

        pa, pb = torch.from_numpy(a), torch.from_numpy(b)
        yield "pytorch torch.add", lambda: torch.add(pa, pb)
    except ImportError:
        pass
    try:
        import tensorflow as tf

        fa, fb = tf.constant(a), tf.constant(b)
        yield "tensorflow tf.add", lambda: tf.add(fa, fb)
    except ImportError:
        pass
    try:
        import jax.numpy as jnp

        ja, jb = jnp.asarray(a), jnp.asarray(b)
        yield "jax jnp.add", lambda: jnp.add(ja, jb).block_until_ready()
    except ImportError:
        pass


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with this thread's CPU clock (steadier on a loaded machine)")
    args = parser.parse_args(argv)
    timer = time.thread_time if args.cpu_time else time.perf_counter
    number, repeat = (20_000, 3) if args.quick else (200_000, 7)
    rows = []
    for label, fn in candidates():
        n = number if not label.startswith(("tensorflow", "jax")) else max(number // 20, 1000)
        rows.append((label, per_call_us(fn, n, repeat, timer)))
    base = rows[0][1]
    print(f"{'2x2 float32 add':<22} {'µs/op':>8} {'x numpy':>8}   ({'CPU' if args.cpu_time else 'wall'} time)")
    for label, us in rows:
        print(f"{label:<22} {us:8.3f} {us / base:8.2f}")
    tiny = dict(rows)["tinytf tt.add"]
    verdict = "meets" if tiny <= 1.0 and tiny <= 3 * base else "misses"
    print(f"tinytf {verdict} the target (<= 1 µs and <= 3x numpy): {tiny:.3f} µs, {tiny / base:.2f}x numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
