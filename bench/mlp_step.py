"""MLP forward: 64x256 @ 256x256 -> tanh -> @ 256x10, in tinytf eager and graph mode beside numpy
and (when importable) TensorFlow eager and tf.function, in one run.

    python bench/mlp_step.py [--quick]
    PYTHONPATH=. /work/tfenv/bin/python bench/mlp_step.py           # with TensorFlow beside
    python bench/mlp_step.py --blas-threads 1    # numpy's BLAS single-threaded (a loaded machine)

Target (issue 8): tinytf graph mode beats tf.function.
"""
from __future__ import annotations

import argparse
import os
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

if "--blas-threads" in sys.argv:  # must be set before numpy loads OpenBLAS
    _n = sys.argv[sys.argv.index("--blas-threads") + 1]
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _n

import numpy as np  # noqa: E402


def per_call_us(fn, number: int, repeat: int) -> float:
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    parser.add_argument("--blas-threads", type=int, help="threads for numpy's BLAS (tinytf and numpy rows)")
    args = parser.parse_args(argv)
    number, repeat = (100, 3) if args.quick else (1000, 7)

    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 256)).astype(np.float32)
    w1 = (rng.standard_normal((256, 256)) / 16).astype(np.float32)
    w2 = (rng.standard_normal((256, 10)) / 16).astype(np.float32)
    expected = np.tanh(x @ w1) @ w2
    rows = [("numpy", per_call_us(lambda: np.tanh(x @ w1) @ w2, number, repeat))]

    import tinytf as tt

    tx, tw1, tw2 = tt.constant(x), tt.Variable(w1), tt.Variable(w2)

    def model(x):
        return tt.matmul(tt.tanh(tt.matmul(x, tw1)), tw2)

    graph = tt.function(model)
    for label, fn in (("tinytf eager", lambda: model(tx)), ("tinytf graph", lambda: graph(tx))):
        np.testing.assert_allclose(fn().numpy(), expected, rtol=1e-4, atol=1e-4)
        rows.append((label, per_call_us(fn, number, repeat)))
    try:
        import tensorflow as tf

        fx, fw1, fw2 = tf.constant(x), tf.Variable(w1), tf.Variable(w2)

        def tf_model(x):
            return tf.matmul(tf.tanh(tf.matmul(x, fw1)), fw2)

        tf_graph = tf.function(tf_model)
        for label, fn in (("tensorflow eager", lambda: tf_model(fx)), ("tensorflow tf.function", lambda: tf_graph(fx))):
            np.testing.assert_allclose(fn().numpy(), expected, rtol=1e-4, atol=1e-4)
            rows.append((label, per_call_us(fn, number, repeat)))
    except ImportError:
        pass

    base = rows[0][1]
    print(f"{'MLP forward 64x256x256x10':<26} {'µs/call':>9} {'x numpy':>8}")
    for label, us in rows:
        print(f"{label:<26} {us:9.1f} {us / base:8.2f}")
    times = dict(rows)
    if "tensorflow tf.function" in times:
        ratio = times["tensorflow tf.function"] / times["tinytf graph"]
        print(f"tinytf graph vs tf.function: {ratio:.2f}x {'faster' if ratio > 1 else 'slower'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
