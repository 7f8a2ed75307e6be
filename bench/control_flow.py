"""Gradient through a data-dependent loop: an RNN-like recurrence h = tanh(h @ W + x) run N times
by ``tt.while_loop``, loss = sum(h * h), d loss / d W by the tape, beside the same step in
TensorFlow (``tf.while_loop`` in ``tf.function``, eager and jit_compile), JAX (``lax.scan`` under
``jax.jit``), PyTorch (a Python loop under autograd) and hand-written numpy backpropagation through
time (every state stored).

    python bench/control_flow.py [--quick] [--steps 50]

tinytf's forward loop pushes what the gradient reads (here each state and each tanh output) on
TensorLists as it runs (TensorFlow's accumulators; under XLA a [maximum_iterations, ...] buffer
written in place), so the gradient is two passes, forward and backward, and a backward step runs only
the gradient's ops. Rows: per-step time, one process, ratios to
TensorFlow's tf.function (graph) and to jax.jit (XLA). Every row but one ends with the gradient on
the host (``.numpy()``, ``np.asarray``): the XLA row's reference is jax.jit with its inputs already
on the device, as tinytf's are (its ``tt.constant`` inputs keep their device copy from their second
XLA call on, as TensorFlow's eager tensors live on their device, and the Variable lives there), and
two more rows compare jax.jit waiting for the gradient on the device without copying it, and jax.jit
given its input from the host with both results copied back.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from bench.common import Row, mark_missing  # noqa: E402

BATCH, WIDTH = 8, 64


def data(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32) * 0.5
    w = (rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
    return x, w


def numpy_grad(x, w, steps: int):
    """Backpropagation through time by hand: (loss, dW)."""
    hs = [x]
    for _ in range(steps):
        hs.append(np.tanh(hs[-1] @ w + x))
    dh, dw = 2 * hs[-1], np.zeros_like(w)
    for k in range(steps, 0, -1):
        da = dh * (1 - hs[k] * hs[k])
        dw += hs[k - 1].T @ da
        dh = da @ w.T
    return float(np.sum(hs[-1] * hs[-1])), dw


def tinytf_steps(x, w, steps: int) -> dict:
    import tinytf as tt

    v = tt.Variable(w)

    def grad(x, n):
        with tt.GradientTape() as tape:
            _, h = tt.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, tt.tanh(h @ v + x)), [0, x],
                                 maximum_iterations=steps)  # as TensorFlow: a static bound for XLA
            loss = tt.reduce_sum(h * h)
        return loss, tape.gradient(loss, v)

    tx, tn = tt.constant(x), tt.constant(np.int32(steps))
    graph, xla = tt.function(grad), tt.function(grad, jit_compile=True)
    # as the TensorFlow rows: the gradient on the host (an XLA output stays on the device until then)
    return {"tinytf eager": lambda: grad(tx, tn)[1].numpy(), "tinytf graph": lambda: graph(tx, tn)[1].numpy(),
            "tinytf XLA": lambda: xla(tx, tn)[1].numpy()}


def tensorflow_steps(x, w, steps: int) -> dict:
    try:
        import tensorflow as tf
    except ImportError:
        return {}
    v = tf.Variable(w)

    def grad(x, n):
        with tf.GradientTape() as tape:
            _, h = tf.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, tf.tanh(h @ v + x)), (0, x),
                                 maximum_iterations=steps)  # XLA needs a bound for the gradient's stacks
            loss = tf.reduce_sum(h * h)
        return loss, tape.gradient(loss, v)

    tx, tn = tf.constant(x), tf.constant(steps)
    graph, xla = tf.function(grad), tf.function(grad, jit_compile=True)
    return {"TensorFlow eager": lambda: grad(tx, tn)[1].numpy(), "TensorFlow tf.function": lambda: graph(tx, tn)[1].numpy(),
            "TensorFlow jit_compile": lambda: xla(tx, tn)[1].numpy()}


def jax_steps(x, w, steps: int) -> dict:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return {}

    def loss(w, x):
        h, _ = jax.lax.scan(lambda h, _: (jnp.tanh(h @ w + x), None), x, None, length=steps)
        return jnp.sum(h * h)

    step = jax.jit(jax.value_and_grad(loss))
    wd, xd = jax.device_put(w), jax.device_put(x)
    return {"JAX jax.jit(lax.scan)": lambda: np.asarray(step(wd, xd)[1]),  # the gradient to the host, as the others
            "JAX, on the device": lambda: step(wd, xd)[1].block_until_ready(),
            "JAX, host arrays in/out": lambda: [np.asarray(r) for r in step(wd, x)]}


def torch_steps(x, w, steps: int) -> dict:
    try:
        import torch
    except ImportError:
        return {}
    tw, tx = torch.tensor(w, requires_grad=True), torch.tensor(x)

    def grad():
        h = tx
        for _ in range(steps):
            h = torch.tanh(h @ tw + tx)
        return torch.autograd.grad((h * h).sum(), tw)[0]

    return {"PyTorch eager": grad}


def check(x, w, steps: int, candidates: dict) -> None:
    """Every tinytf mode gives numpy's gradient."""
    want = numpy_grad(x, w, steps)[1]
    for label, fn in candidates.items():
        if label.startswith("tinytf"):
            np.testing.assert_allclose(fn(), want, rtol=2e-4, atol=2e-5, err_msg=label)


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--steps", type=int, default=50, help="loop iterations N")
    args = parser.parse_args(argv)
    x, w = data()
    candidates = {"numpy BPTT": lambda: numpy_grad(x, w, args.steps)}
    for make in (tinytf_steps, tensorflow_steps, jax_steps, torch_steps):
        candidates.update(make(x, w, args.steps))
    check(x, w, args.steps, candidates)
    repeat, number = (3, 5) if args.quick else (40, 10)
    best = dict.fromkeys(candidates, float("inf"))
    for fn in candidates.values():
        fn()
    order, rng = list(candidates), random.Random(0)
    for _ in range(repeat):  # round robin: a slow spell of the machine touches every candidate alike
        rng.shuffle(order)  # and no candidate always follows the same one (whose threads may still spin)
        for label in order:
            best[label] = min(best[label], timeit.timeit(candidates[label], number=number) / number * 1e3)
    print(f"gradient of an N={args.steps} tanh recurrence ({BATCH}x{WIDTH} state, {WIDTH}x{WIDTH} W)   ms/step")
    for label, ms in best.items():
        print(f"{label:<26} {ms:9.3f}")
    case = f"d/dW of a {args.steps}-step tanh recurrence, {BATCH}x{WIDTH}"
    get = best.get
    rows = [Row("control_flow", f"{case}, eager", "ms", best["tinytf eager"],
                peers=mark_missing({"numpy": best["numpy BPTT"], "tensorflow": get("TensorFlow eager"),
                                    "pytorch": get("PyTorch eager")}), reference="tensorflow"),
            Row("control_flow", f"{case}, graph (tt.function vs tf.function)", "ms", best["tinytf graph"],
                peers=mark_missing({"numpy": best["numpy BPTT"], "tensorflow": get("TensorFlow tf.function")}),
                reference="tensorflow", target="<= 1.0x", target_ratio=1.0),
            Row("control_flow", f"{case}, XLA, the gradient to the host in both", "ms", best["tinytf XLA"],
                peers=mark_missing({"tensorflow": get("TensorFlow jit_compile"), "jax": get("JAX jax.jit(lax.scan)")}),
                reference="jax", target="<= 1.1x", target_ratio=1.1),
            Row("control_flow", f"{case}, XLA, JAX waiting on the device (no copy to the host)", "ms",
                best["tinytf XLA"], peers=mark_missing({"jax": get("JAX, on the device")}), reference="jax"),
            Row("control_flow", f"{case}, XLA, JAX with host arrays in and out", "ms", best["tinytf XLA"],
                peers=mark_missing({"jax": get("JAX, host arrays in/out")}), reference="jax")]
    return rows


if __name__ == "__main__":
    main()
