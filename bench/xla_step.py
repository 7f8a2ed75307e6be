"""MLP training step through XLA: 64x256 @ 256x256 -> tanh -> @ 256x10, mean squared error, tape
gradient, SGD update of both weights, compiled by tinytf's XLA backend beside a hand-written
``jax.jit`` of the same step and (when importable) ``tf.function(jit_compile=True)``.

    python bench/xla_step.py [--quick]
    PYTHONPATH=.venv/lib/python3.11/site-packages:. /work/tfenv/bin/python bench/xla_step.py   # with TensorFlow

Rows:
- tinytf jit_compile: ``tt.function(step, jit_compile=True)`` on ``tt.Variable``s (the weights
  stay on the device between calls, donated to each step; the inputs are numpy tensors);
- tinytf XlaFunction: the same compiled step on device arrays, weights donated and updated in place;
- jax.jit: the step written by hand with ``jax.value_and_grad``, weights donated.
Target (issue 4): tinytf's XLA step within 1.2x of plain JAX. First-call latency is measured
after JAX is initialised (trace + lowering + XLA compile), beside jax.jit's and TensorFlow's.
Also prints XLA's memory analysis (peak = arguments + outputs - alias + temp) of a donating vs a
non-donating SGD step on a 256 MB weight: with batch 1 the update is computed in place (peak halves);
with batch 8 XLA's CPU backend materialises the gradient before the update, so peak stays the same.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from bench import mlp_step  # noqa: E402  (the same data and reference step)
from bench.mlp_step import LR, data  # noqa: E402


def per_call_us(rows, number: int, repeat: int) -> list:
    """[(label, µs per call)], the best of ``repeat`` rounds, the rows interleaved in each round (a
    busy machine slows all of them alike)."""
    best = {label: float("inf") for label, _ in rows}
    for _, fn in rows:
        fn()
    for _ in range(repeat):
        for label, fn in rows:
            best[label] = min(best[label], timeit.timeit(fn, number=number) / number * 1e6)
    return [(label, best[label]) for label, _ in rows]


def numpy_step(x, y, w1, w2):
    """The reference (bench/mlp_step.py's hand-written step) on copies: (loss, new w1, new w2)."""
    w1, w2 = w1.copy(), w2.copy()
    loss = mlp_step.numpy_step(x, y, w1, w2)
    return loss, w1, w2


def tinytf_rows(x, y, w1, w2, rows, first):
    import tinytf as tt

    v1, v2 = tt.Variable(w1), tt.Variable(w2)

    def step(x, y):
        with tt.GradientTape() as tape:
            logits = tt.matmul(tt.tanh(tt.matmul(x, v1)), v2)
            loss = tt.reduce_mean(tt.square(logits - y))
        g1, g2 = tape.gradient(loss, [v1, v2])
        v1.assign_sub(LR * g1)
        v2.assign_sub(LR * g2)
        return loss

    tx, ty = tt.constant(x), tt.constant(y)
    f = tt.function(step, jit_compile=True)
    start = time.perf_counter()
    loss = f(tx, ty)
    first["tinytf jit_compile"] = time.perf_counter() - start
    want = numpy_step(x, y, w1, w2)
    np.testing.assert_allclose(loss.numpy(), want[0], rtol=1e-4)
    np.testing.assert_allclose(v1.numpy(), want[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(v2.numpy(), want[2], rtol=1e-4, atol=1e-5)
    rows.append(("tinytf jit_compile", lambda: f(tx, ty).numpy()))

    import jax

    from tinytf import xla

    cf = f.get_concrete_function(tx, ty)
    fn = xla.XlaFunction(cf.module, cf.name)
    state = [jax.device_put(w1), jax.device_put(w2)]
    xd, yd = jax.device_put(x), jax.device_put(y)

    def device_step():
        outs, updates = fn.call_raw(xd, yd, state[0], state[1])
        state[0], state[1] = updates[2], updates[3]
        return outs[0]

    rows.append(("tinytf XlaFunction", lambda: device_step().block_until_ready()))
    comp = fn.compilation([xd, yd, state[0], state[1]])
    return comp


def jax_rows(x, y, w1, w2, rows, first):
    import jax
    import jax.numpy as jnp

    def loss_fn(w1, w2, x, y):
        d = jnp.tanh(x @ w1) @ w2 - y
        return jnp.mean(d * d)

    def step(w1, w2, x, y):
        loss, (g1, g2) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w1, w2, x, y)
        return loss, w1 - LR * g1, w2 - LR * g2

    jitted = jax.jit(step, donate_argnums=(0, 1))
    state = [jax.device_put(w1), jax.device_put(w2)]
    xd, yd = jax.device_put(x), jax.device_put(y)
    start = time.perf_counter()
    loss, state[0], state[1] = jitted(state[0], state[1], xd, yd)
    loss.block_until_ready()
    first["jax.jit"] = time.perf_counter() - start

    def call():
        loss, state[0], state[1] = jitted(state[0], state[1], xd, yd)
        return loss

    rows.append(("jax.jit (hand-written)", lambda: call().block_until_ready()))


def tf_rows(x, y, w1, w2, rows, first):
    try:
        import tensorflow as tf
    except ImportError:
        return
    v1, v2 = tf.Variable(w1), tf.Variable(w2)

    def step(x, y):
        with tf.GradientTape() as tape:
            d = tf.matmul(tf.tanh(tf.matmul(x, v1)), v2) - y
            loss = tf.reduce_mean(d * d)
        g1, g2 = tape.gradient(loss, [v1, v2])
        v1.assign_sub(LR * g1)
        v2.assign_sub(LR * g2)
        return loss

    f = tf.function(step, jit_compile=True)
    tx, ty = tf.constant(x), tf.constant(y)
    start = time.perf_counter()
    f(tx, ty).numpy()
    first["tf.function(jit_compile=True)"] = time.perf_counter() - start
    rows.append(("tf.function(jit_compile)", lambda: f(tx, ty).numpy()))


def memory_rows(mb: int = 256, batch: int = 1):
    """XLA's memory analysis of an SGD step on an n x n float32 weight (n*n*4 bytes = ``mb`` MB)."""
    from tinytf import mlir, xla

    n = int((mb * 2**20 / 4) ** 0.5)
    res = "tensor<*x!tf_type.resource>"
    x, w = f"tensor<{batch}x{n}xf32>", f"tensor<{n}x{n}xf32>"
    text = f"""func.func @step(%x: {x}, %y: {x}, %w: {res}) -> tensor<f32> {{
  %wv = "tf.ReadVariableOp"(%w) : ({res}) -> {w}
  %p = "tf.MatMul"(%x, %wv) <{{transpose_a = false, transpose_b = false}}> : ({x}, {w}) -> {x}
  %d = "tf.Sub"(%p, %y) : ({x}, {x}) -> {x}
  %sq = "tf.Square"(%d) : ({x}) -> {x}
  %axes = "tf.Const"() <{{value = dense<[0, 1]> : tensor<2xi32>}}> : () -> tensor<2xi32>
  %loss = "tf.Sum"(%sq, %axes) <{{keep_dims = false}}> : ({x}, tensor<2xi32>) -> tensor<f32>
  %g = "tf.MatMul"(%x, %d) <{{transpose_a = true, transpose_b = false}}> : ({x}, {x}) -> {w}
  %lr = "tf.Const"() <{{value = dense<1.000000e-02> : tensor<f32>}}> : () -> tensor<f32>
  %u = "tf.Mul"(%g, %lr) : ({w}, tensor<f32>) -> {w}
  "tf.AssignSubVariableOp"(%w, %u) : ({res}, {w}) -> ()
  func.return %loss : tensor<f32>
}}"""
    module = mlir.parse(text)
    out = []
    for label, donate in (("donating", True), ("not donating", False)):
        stats = xla.compile(module, [(batch, n), (batch, n), (n, n)], input_dtypes=[None, None, "float32"],
                            donate=donate).memory_analysis()
        peak = stats.argument_size_in_bytes + stats.output_size_in_bytes - stats.alias_size_in_bytes + \
            stats.temp_size_in_bytes
        out.append((label, stats.argument_size_in_bytes, stats.output_size_in_bytes, stats.alias_size_in_bytes,
                    stats.temp_size_in_bytes, peak))
    return n, out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    parser.add_argument("--no-memory", action="store_true", help="skip the 256 MB memory analysis")
    args = parser.parse_args(argv)
    number, repeat = (20, 5) if args.quick else (100, 20)
    x, y, w1, w2 = data()

    import jax

    jax.jit(lambda a: a + 1)(np.float32(0)).block_until_ready()  # JAX's start-up is not first-call latency
    rows: list = []
    first: dict = {}
    jax_rows(x, y, w1, w2, rows, first)
    tinytf_rows(x, y, w1, w2, rows, first)
    tf_rows(x, y, w1, w2, rows, first)

    rows = per_call_us(rows, number, repeat)
    base = dict(rows)["jax.jit (hand-written)"]
    print(f"{'MLP training step (64x256x256x10)':<34} {'µs/call':>9} {'x jax.jit':>9}")
    for label, us in rows:
        print(f"{label:<34} {us:9.1f} {us / base:9.2f}")
    print(f"\n{'first call (trace + lower + compile)':<34} {'seconds':>9}")
    for label, seconds in first.items():
        print(f"{label:<34} {seconds:9.3f}")
    if not args.no_memory:
        mib = 2**20
        for batch in (1, 8):
            n, mem = memory_rows(256, batch)
            print(f"\nSGD step, batch {batch}, on a {n}x{n} float32 weight ({n * n * 4 / mib:.0f} MiB): XLA memory "
                  "analysis (MiB)")
            print(f"{'':<14} {'arguments':>10} {'outputs':>10} {'alias':>10} {'temp':>10} {'peak':>10}")
            for label, a, o, al, t, peak in mem:
                print(f"{label:<14} {a / mib:10.1f} {o / mib:10.1f} {al / mib:10.1f} {t / mib:10.1f} "
                      f"{peak / mib:10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
