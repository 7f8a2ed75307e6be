"""Gradient checkers side by side: sum(tanh(x @ W)), x 8x64, W 64x64 (4096 parameters), float64.

    .venv/bin/python bench/gradcheck.py [--quick] [--cpu-time]

One run times, for the gradient with respect to W:
- tinytf ``check_gradients`` full mode (every element) and fast mode (a random projection);
- a hand-written numpy loop doing the same 2N model evaluations (the floor for a loop);
- ``torch.autograd.gradcheck`` full and ``fast_mode=True``, ``tf.test.compute_gradient`` and
  ``jax.test_util.check_grads``, each where importable: in this interpreter, or else through
  the interpreters named by TINYTF_BENCH_TORCH_PYTHON / TINYTF_BENCH_TF_PYTHON (default
  /work/benchenv/bin/python and /work/tfenv/bin/python), which run this file with ``--peer``.
Then how the time grows from 256 to 16,384 parameters (W 16x16 ... 128x128).

BLAS runs single-threaded everywhere (OMP/OPENBLAS/MKL_NUM_THREADS=1, torch.set_num_threads(1)):
the matrices are small, and one thread per process keeps the comparison fair on a shared machine.
Each time is the best of several runs; "cold" is tinytf's first call for a model, which traces it
(the traces are kept per model and input signature, as tt.function keeps its traces).

Targets (issue 9): full mode >= 5x faster than torch's full gradcheck and within 2x of the numpy
loop; fast mode within 2x of torch's fast mode.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER_PYTHONS = {"torch": os.environ.get("TINYTF_BENCH_TORCH_PYTHON", "/work/benchenv/bin/python"),
                "tensorflow": os.environ.get("TINYTF_BENCH_TF_PYTHON", "/work/tfenv/bin/python")}


def problem(d: int):
    """x (8, d), W (d, d): the same arrays in every process (seeded numpy)."""
    rng = np.random.default_rng(0)
    return rng.standard_normal((8, d)), rng.standard_normal((d, d)) * (1.0 / np.sqrt(d))


def best(fn, repeat: int, timer) -> float:
    times = []
    for _ in range(repeat):
        t = timer()
        fn()
        times.append(timer() - t)
    return min(times)


# --- the candidates -----------------------------------------------------------------------------

def numpy_loop(x, w, eps=1e-6):
    """The same 2N evaluations as a full check, one model call each: the floor for a Python loop."""
    flat = w.reshape(-1)
    grad = np.empty(flat.size)
    p = w.copy()
    pf = p.reshape(-1)
    for i in range(flat.size):
        h = eps * max(1.0, abs(flat[i]))
        pf[i] = flat[i] + h
        up = np.sum(np.tanh(x @ p))
        pf[i] = flat[i] - h
        down = np.sum(np.tanh(x @ p))
        pf[i] = flat[i]
        grad[i] = (up - down) / (2 * h)
    analytic = x.T @ (1 - np.tanh(x @ w) ** 2)
    assert np.allclose(grad, analytic.reshape(-1), rtol=1e-4, atol=1e-6)


def tinytf_runs(d, repeat, timer):
    sys.path.insert(0, ROOT)
    import tinytf as tt
    from tinytf.gradcheck import check_gradients

    def new_model():  # a new function object: nothing traced for it yet
        def model(x, w):
            return tt.reduce_sum(tt.tanh(tt.matmul(x, w)))
        return model

    x, w = problem(d)
    out = {}
    for mode in ("full", "fast"):
        model = new_model()
        t = timer()
        report = check_gradients(model, [x, w], mode=mode, wrt=[1])
        out[f"tinytf {mode} (cold)"] = timer() - t
        assert report.ok, report.failure_message()
        out[f"tinytf {mode}"] = best(lambda m=mode, f=model: check_gradients(f, [x, w], mode=m, wrt=[1]), repeat,
                                     timer)
    return out


def torch_runs(d, repeat, timer):
    import torch

    torch.set_num_threads(1)
    x, w = problem(d)
    tx = torch.tensor(x)
    tw = torch.tensor(w, requires_grad=True)
    f = lambda w: torch.tanh(tx @ w).sum()
    out = {}
    for label, fast in (("torch gradcheck full", False), ("torch gradcheck fast", True)):
        assert torch.autograd.gradcheck(f, (tw,), fast_mode=fast)
        out[label] = best(lambda fast=fast: torch.autograd.gradcheck(f, (tw,), fast_mode=fast),
                          repeat if fast or d <= 64 else 1, timer)
    return out


def tensorflow_runs(d, repeat, timer):
    import tensorflow as tf

    x, w = problem(d)
    tx = tf.constant(x)
    f = lambda w: tf.reduce_sum(tf.tanh(tx @ w))
    theoretical, numerical = tf.test.compute_gradient(f, [tf.constant(w)])
    assert np.allclose(theoretical[0], numerical[0], atol=1e-5)
    return {"tf.test.compute_gradient": best(lambda: tf.test.compute_gradient(f, [tf.constant(w)]), 1, timer)}


def jax_runs(d, repeat, timer):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax.test_util import check_grads

    x, w = problem(d)
    jx = jnp.asarray(x)
    f = lambda w: jnp.sum(jnp.tanh(jx @ w))
    check_grads(f, (jnp.asarray(w),), order=1, modes=("rev",))
    return {"jax check_grads (rev)": best(lambda: check_grads(f, (jnp.asarray(w),), order=1, modes=("rev",)),
                                         repeat, timer)}


PEERS = {"torch": torch_runs, "tensorflow": tensorflow_runs}


def peer(name, d, repeat, timer):
    """A peer's timings: here if importable, else in its own interpreter (``--peer``)."""
    try:
        __import__(name)
        return PEERS[name](d, repeat, timer)
    except ImportError:
        pass
    python = PEER_PYTHONS[name]
    if not os.path.exists(python):
        return {}
    cmd = [python, os.path.abspath(__file__), "--peer", name, "--dim", str(d), "--repeat", str(repeat)]
    if timer is time.thread_time:
        cmd.append("--cpu-time")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        print(f"  ({name} failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode})")
        return {}
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the report ---------------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats; peers only at 4096 parameters")
    parser.add_argument("--cpu-time", action="store_true", help="time with this thread's CPU clock")
    parser.add_argument("--peer", choices=sorted(PEERS), help=argparse.SUPPRESS)
    parser.add_argument("--dim", type=int, default=64, help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    timer = time.thread_time if args.cpu_time else time.perf_counter
    if args.peer:
        print(json.dumps(PEERS[args.peer](args.dim, args.repeat, timer)))
        return 0
    repeat = 3 if args.quick else 7
    x, w = problem(64)
    rows = {"numpy loop (2N evaluations)": best(lambda: numpy_loop(x, w), repeat, timer)}
    rows.update(tinytf_runs(64, repeat, timer))
    for name in PEERS:
        rows.update(peer(name, 64, repeat, timer))
    try:
        rows.update(jax_runs(64, repeat, timer))
    except ImportError:
        pass
    print(f"sum(tanh(x @ W)), x 8x64, W 64x64 = 4096 parameters, float64 ({'CPU' if args.cpu_time else 'wall'} time)")
    for label, seconds in rows.items():
        print(f"  {label:<30} {seconds * 1e3:10.2f} ms")
    full, fast, loop = rows["tinytf full"], rows["tinytf fast"], rows["numpy loop (2N evaluations)"]
    print(f"tinytf full: {loop / full:.1f}x faster than the numpy loop (target: within 2x of it)")
    if "torch gradcheck full" in rows:
        t_full, t_fast = rows["torch gradcheck full"], rows["torch gradcheck fast"]
        print(f"tinytf full: {t_full / full:.1f}x faster than torch gradcheck full (target >= 5x): "
              f"{'meets' if t_full / full >= 5 else 'misses'}")
        print(f"tinytf fast: {fast / t_fast:.2f}x torch gradcheck fast_mode's time (target <= 2x): "
              f"{'meets' if fast / t_fast <= 2 else 'misses'}")
    print("growth with the number of parameters (W d x d, x 8 x d):")
    dims = (16, 32, 64, 128)
    header = ["params", "tinytf full", "tinytf fast", "numpy loop"] + ([] if args.quick else ["torch full",
                                                                                              "torch fast"])
    print("  " + "".join(f"{h:>14}" for h in header))
    for d in dims:
        runs = tinytf_runs(d, repeat, timer)
        xd, wd = problem(d)
        cells = [d * d, runs["tinytf full"], runs["tinytf fast"], best(lambda xd=xd, wd=wd: numpy_loop(xd, wd), 1, timer)]
        if not args.quick:
            t = peer("torch", d, 1, timer)
            cells += [t.get("torch gradcheck full", float("nan")), t.get("torch gradcheck fast", float("nan"))]
        print("  " + f"{cells[0]:>14}" + "".join(f"{c * 1e3:>11.2f} ms" for c in cells[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
