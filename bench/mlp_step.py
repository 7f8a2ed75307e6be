"""MLP forward and training step: 64x256 @ 256x256 -> tanh -> @ 256x10, in tinytf eager, graph and XLA
mode beside numpy, TensorFlow (eager, tf.function, tf.function(jit_compile=True)) and jax.jit, in one run.

    python bench/mlp_step.py [--quick]           # BLAS single-threaded, then default threading
    python bench/mlp_step.py --blas-threads 1    # one thread configuration only
    python bench/mlp_step.py --cpu-time          # process CPU time: steadier on a shared, loaded machine

The training step: forward, mean squared error against fixed targets, tape gradient, SGD update of
both weights (``assign_sub``; the numpy floor updates its arrays in place), LR 0.1.
Rows (each checked against the numpy step before it is timed):
- numpy step: the hand-written floor (forward, manual backward, in-place update);
- tinytf eager / graph (``tt.function(step)``) / XLA (``tt.function(step, jit_compile=True)``);
- jax.jit: the same step by hand with ``jax.value_and_grad``, weights donated;
- tensorflow eager / tf.function / tf.function(jit_compile=True), run by TensorFlow's interpreter
  (this one if it imports TensorFlow, else TINYTF_BENCH_TF_PYTHON, default /work/tfenv/bin/python).
Each thread configuration runs in worker processes (thread pools are fixed when libraries load):
"threads=1" sets OMP/OPENBLAS/MKL_NUM_THREADS=1, TensorFlow's intra/inter-op pools to 1 and XLA's CPU
to one thread; "default" leaves them as this process has them. In a worker the rows are timed
interleaved, round by round (a busy machine slows them alike); best and median of the rounds, and the
load average, are reported. A numpy step timed in TensorFlow's worker too shows how loads compared.

Targets: issue 8, graph-mode forward beats tf.function; issue 9, the graph-mode step takes under half
of tf.function's; issue 4, the XLA step within 1.2x of jax.jit.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "TF_NUM_INTRAOP_THREADS",
               "TF_NUM_INTEROP_THREADS")
if "--blas-threads" in sys.argv:  # must be set before numpy loads OpenBLAS
    _n = sys.argv[sys.argv.index("--blas-threads") + 1]
    for _var in THREAD_VARS:
        os.environ[_var] = _n
    if _n == "1":  # XLA's CPU client (JAX, tinytf's XLA backend): one thread too
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                                   " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").strip()

import numpy as np  # noqa: E402

LR = 0.1
TF_PYTHON = os.environ.get("TINYTF_BENCH_TF_PYTHON", "/work/tfenv/bin/python")
FORWARD = ["numpy", "tinytf eager", "tinytf graph", "tensorflow eager", "tensorflow tf.function"]
STEP = ["numpy step", "tinytf eager", "tinytf graph", "tinytf XLA (jit_compile)", "jax.jit (hand-written)",
        "tensorflow eager", "tensorflow tf.function", "tf.function(jit_compile)", "numpy step (TF process)"]


def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 256)).astype(np.float32)
    y = rng.standard_normal((64, 10)).astype(np.float32)
    w1 = (rng.standard_normal((256, 256)) / 16).astype(np.float32)
    w2 = (rng.standard_normal((256, 10)) / 16).astype(np.float32)
    return x, y, w1, w2


# --- the steps: each returns the loss and updates its weights ------------------------------------

def numpy_step(x, y, w1, w2):
    """The floor: forward, hand-derived backward, in-place SGD on ``w1``, ``w2``."""
    h = np.tanh(x @ w1)
    d = h @ w2 - y
    loss = np.mean(d * d)
    g_out = d * np.float32(2 / d.size)
    g2 = h.T @ g_out
    gh = g_out @ w2.T
    gh *= 1 - h * h
    w1 -= np.float32(LR) * (x.T @ gh)
    w2 -= np.float32(LR) * g2
    return loss


def tinytf_step(v1, v2):
    """The step on tinytf Variables ``v1``, ``v2``: ``step(x, y) -> loss``."""
    import tinytf as tt

    def step(x, y):
        with tt.GradientTape() as tape:
            d = tt.matmul(tt.tanh(tt.matmul(x, v1)), v2) - y
            loss = tt.reduce_mean(d * d)
        g1, g2 = tape.gradient(loss, [v1, v2])
        v1.assign_sub(LR * g1)
        v2.assign_sub(LR * g2)
        return loss

    return step


def tensorflow_step(v1, v2):
    """The same step in TensorFlow, on tf.Variables."""
    import tensorflow as tf

    def step(x, y):
        with tf.GradientTape() as tape:
            d = tf.matmul(tf.tanh(tf.matmul(x, v1)), v2) - y
            loss = tf.reduce_mean(d * d)
        g1, g2 = tape.gradient(loss, [v1, v2])
        v1.assign_sub(LR * g1)
        v2.assign_sub(LR * g2)
        return loss

    return step


def jax_step():
    """The step by hand in JAX: ``jitted(w1, w2, x, y) -> (loss, w1', w2')``, weights donated."""
    import jax
    import jax.numpy as jnp

    def loss_fn(w1, w2, x, y):
        d = jnp.tanh(x @ w1) @ w2 - y
        return jnp.mean(d * d)

    def step(w1, w2, x, y):
        loss, (g1, g2) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w1, w2, x, y)
        return loss, w1 - LR * g1, w2 - LR * g2

    return jax.jit(step, donate_argnums=(0, 1))


def check_step(label, got_loss, got1, got2):
    """One step from the initial weights against numpy's: the loss and both updated weights."""
    x, y, w1, w2 = data()
    loss = numpy_step(x, y, w1, w2)
    for what, got, want in (("loss", got_loss, loss), ("w1", got1, w1), ("w2", got2, w2)):
        if not np.allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5):
            raise AssertionError(f"{label}: {what} differs from the numpy step")


def prepared(label, variable, build, wrap, args):
    """A timed call of ``wrap(build(v1, v2))(*args)`` on fresh variables, after one step on other
    fresh variables was checked against numpy's."""
    _, _, w1, w2 = data()
    c1, c2 = variable(w1), variable(w2)
    loss = wrap(build(c1, c2))(*args)
    check_step(label, loss.numpy(), c1.numpy(), c2.numpy())
    v1, v2 = variable(w1), variable(w2)
    step = wrap(build(v1, v2))
    return lambda: step(*args)


# --- workers: one process per library and thread configuration -----------------------------------

TIMER = [time.perf_counter]  # time.process_time with --cpu-time


def timed(rows, number: int, repeat: int, budget: float) -> dict:
    """label -> [µs per call in each round]; the rows interleaved within each round. A row whose calls
    are slow (BLAS threads fighting over busy cores can take 100x longer) gets fewer calls per round,
    so that a round of it takes about ``budget`` seconds."""
    times = {label: [] for label, _ in rows}
    calls = {}
    for label, fn in rows:
        fn()  # the first call may trace and compile: calibrate on warm calls only
        start = time.perf_counter()
        for _ in range(3):
            fn()
        calls[label] = max(1, min(number, int(budget * 3 / max(time.perf_counter() - start, 1e-9))))
    for _ in range(repeat):
        for label, fn in rows:
            n = calls[label]
            times[label].append(timeit.Timer(fn, timer=TIMER[0]).timeit(number=n) / n * 1e6)
    return times


def tinytf_worker(number, repeat, budget) -> tuple[dict, dict, dict]:
    import tinytf as tt

    x, y, w1, w2 = data()
    tx, ty = tt.constant(x), tt.constant(y)
    missing = {}
    expected = np.tanh(x @ w1) @ w2
    fv1, fv2 = tt.Variable(w1), tt.Variable(w2)

    def model(x):
        return tt.matmul(tt.tanh(tt.matmul(x, fv1)), fv2)

    graph = tt.function(model)
    forward = [("numpy", lambda: np.tanh(x @ w1) @ w2), ("tinytf eager", lambda: model(tx)),
               ("tinytf graph", lambda: graph(tx))]
    for _, fn in forward[1:]:
        np.testing.assert_allclose(fn().numpy(), expected, rtol=1e-4, atol=1e-4)

    nw1, nw2 = w1.copy(), w2.copy()
    steps = [("numpy step", lambda: numpy_step(x, y, nw1, nw2))]
    for label, wrap in (("tinytf eager", lambda f: f), ("tinytf graph", tt.function),
                        ("tinytf XLA (jit_compile)", lambda f: tt.function(f, jit_compile=True))):
        try:
            steps.append((label, prepared(label, tt.Variable, tinytf_step, wrap, (tx, ty))))
        except Exception as err:  # no XLA backend (yet), or it fails on this step: a "missing" row, with why
            if "XLA" not in label or isinstance(err, AssertionError):  # a wrong value is never "missing"
                raise
            missing[label] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:160]
    try:
        import jax

        jitted = jax_step()
        xd, yd = jax.device_put(x), jax.device_put(y)

        check_step("jax.jit", *jitted(jax.device_put(w1), jax.device_put(w2), xd, yd))
        state = [jax.device_put(w1), jax.device_put(w2)]

        def jax_call():
            loss, state[0], state[1] = jitted(state[0], state[1], xd, yd)
            return loss.block_until_ready()

        steps.append(("jax.jit (hand-written)", jax_call))
    except ImportError as err:
        missing["jax.jit (hand-written)"] = f"ImportError: {err}"
    return timed(forward, number, repeat, budget), timed(steps, number, repeat, budget), missing


def tensorflow_worker(number, repeat, budget) -> tuple[dict, dict, dict]:
    import tensorflow as tf

    threads = os.environ.get("TF_NUM_INTRAOP_THREADS")
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(int(threads))
        tf.config.threading.set_inter_op_parallelism_threads(int(threads))
    x, y, w1, w2 = data()
    fx, fy = tf.constant(x), tf.constant(y)
    fw1, fw2 = tf.Variable(w1), tf.Variable(w2)

    def tf_model(x):
        return tf.matmul(tf.tanh(tf.matmul(x, fw1)), fw2)

    tf_graph = tf.function(tf_model)
    forward = [("tensorflow eager", lambda: tf_model(fx)), ("tensorflow tf.function", lambda: tf_graph(fx))]
    for _, fn in forward:
        np.testing.assert_allclose(fn().numpy(), np.tanh(x @ w1) @ w2, rtol=1e-4, atol=1e-4)
    nw1, nw2 = w1.copy(), w2.copy()
    steps = [("numpy step (TF process)", lambda: numpy_step(x, y, nw1, nw2))]
    missing = {}
    for label, wrap in (("tensorflow eager", lambda f: f), ("tensorflow tf.function", tf.function),
                        ("tf.function(jit_compile)", lambda f: tf.function(f, jit_compile=True))):
        try:
            steps.append((label, prepared(label, tf.Variable, tensorflow_step, wrap, (fx, fy))))
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as err:  # a TF build without XLA
            if "jit" not in label:
                raise
            missing[label] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:160]
    return timed(forward, number, repeat, budget), timed(steps, number, repeat, budget), missing


def run_worker(kind: str, python: str, threads, number: int, repeat: int, cpu_time: bool, quick: bool) -> dict:
    """A worker's result: {"forward": {...}, "step": {...}, "missing": {...}, "load": [before, after]},
    or {"error": message}."""
    cmd = [python, os.path.abspath(__file__), "--worker", kind, "--number", str(number), "--repeat", str(repeat)]
    if quick:
        cmd.append("--quick")
    if threads is not None:
        cmd += ["--blas-threads", str(threads)]
    if cpu_time:
        cmd.append("--cpu-time")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    except (OSError, subprocess.TimeoutExpired) as err:
        return {"error": f"{type(err).__name__}: {err}"}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit status {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def tensorflow_python() -> str | None:
    if importlib.util.find_spec("tensorflow") is not None:
        return sys.executable
    return TF_PYTHON if os.path.exists(TF_PYTHON) else None


# --- the report ------------------------------------------------------------------------------------

def merge(results: list[dict], part: str) -> dict:
    out: dict = {}
    for r in results:
        for label, times in r.get(part, {}).items():
            out.setdefault(label, []).extend(times)
    return out


def print_table(title: str, labels, times: dict, missing: dict, base: str) -> dict:
    """Prints ``label  best  median  x base``; returns label -> best µs."""
    best = {label: min(t) for label, t in times.items()}
    print(f"{title:<34} {'µs/call':>9} {'median':>9} {'x numpy':>8}")
    for label in labels:
        if label in best:
            print(f"{label:<34} {best[label]:9.1f} {statistics.median(times[label]):9.1f} "
                  f"{best[label] / best[base]:8.2f}")
        elif label in missing:
            print(f"{label:<34} {'missing':>9}   ({missing[label]})")
    return best


def verdicts(fwd: dict, step: dict) -> list[str]:
    lines = []
    if "tensorflow tf.function" in fwd and "tinytf graph" in fwd:
        ratio = fwd["tensorflow tf.function"] / fwd["tinytf graph"]
        lines.append(f"forward: tinytf graph vs tf.function: {ratio:.2f}x {'faster' if ratio > 1 else 'slower'} "
                     f"(target: faster): {'meets' if ratio > 1 else 'misses'}")
    if "tensorflow tf.function" in step and "tinytf graph" in step:
        share = step["tinytf graph"] / step["tensorflow tf.function"]
        lines.append(f"step: tinytf graph takes {share:.2f} of tf.function's time (target < 0.5): "
                     f"{'meets' if share < 0.5 else 'misses'}")
    for label in ("tinytf graph", "tinytf eager", "tinytf XLA (jit_compile)"):
        if label in step:
            over = step[label] - step["numpy step"]
            lines.append(f"step: {label} over the numpy floor: {over:+.1f} µs ({step[label] / step['numpy step']:.2f}x)")
    if "tinytf XLA (jit_compile)" in step and "jax.jit (hand-written)" in step:
        ratio = step["tinytf XLA (jit_compile)"] / step["jax.jit (hand-written)"]
        lines.append(f"step: tinytf XLA vs jax.jit: {ratio:.2f}x its time (target <= 1.2): "
                     f"{'meets' if ratio <= 1.2 else 'misses'}")
    return lines


def rows_for(config: str, fwd: dict, step: dict, how: str):
    from bench.common import MISSING, Row

    rows = []
    for mode in ("eager", "graph"):
        tf_label = f"tensorflow {'eager' if mode == 'eager' else 'tf.function'}"
        if f"tinytf {mode}" in fwd:
            rows.append(Row("mlp_step", f"MLP forward 64x256x256x10, {mode} (TF: {tf_label.split()[-1]}), {config}",
                            "µs", fwd[f"tinytf {mode}"], peers={"numpy": fwd.get("numpy"),
                                                                 "tensorflow": fwd.get(tf_label, MISSING)},
                            reference="tensorflow", target="faster than tf.function" if mode == "graph" else "",
                            target_ratio=1.0 if mode == "graph" else None, note=how))
    for label, tf_label, jax_label, target, ratio in (
            ("tinytf eager", "tensorflow eager", None, "", None),
            ("tinytf graph", "tensorflow tf.function", None, "< 0.5x tf.function", 0.5),
            ("tinytf XLA (jit_compile)", "tf.function(jit_compile)", "jax.jit (hand-written)", "<= 1.2x jax.jit", 1.2)):
        peers = {"numpy": step.get("numpy step"), "tensorflow": step.get(tf_label, MISSING)}
        if jax_label:
            peers["jax"] = step.get(jax_label, MISSING)
        rows.append(Row("mlp_step", f"MLP training step, {label.split(' (')[0]}, {config}", "µs", step.get(label),
                        peers=peers, reference="jax" if jax_label else "tensorflow", target=target,
                        target_ratio=ratio, note="forward + MSE + tape gradient + SGD assign_sub; numpy: the "
                                                 f"hand-written step; {how}"))
        if ratio == 0.5 and rows[-1].ratio is not None:  # strictly under half
            rows[-1].met = rows[-1].ratio < 0.5
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations, one round")
    parser.add_argument("--blas-threads", type=int, help="measure only this thread configuration (numpy's BLAS, "
                                                         "TensorFlow's pools, XLA)")
    parser.add_argument("--rounds", type=int, help="worker runs per configuration (default 1 quick, 2 full)")
    parser.add_argument("--cpu-time", action="store_true", help="time with the process's CPU clock (all its "
                        "threads): steadier on a loaded machine; above wall time where threads run in parallel")
    parser.add_argument("--worker", choices=["tinytf", "tensorflow"], help=argparse.SUPPRESS)
    parser.add_argument("--number", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    number, repeat = (20, 5) if args.quick else (50, 10)
    number, repeat = args.number or number, args.repeat or repeat
    if args.cpu_time:
        TIMER[0] = time.process_time
    if args.worker:
        load = os.getloadavg()[0]
        worker = tinytf_worker if args.worker == "tinytf" else tensorflow_worker
        forward, step, missing = worker(number, repeat, 0.03 if args.quick else 0.1)
        print(json.dumps({"forward": forward, "step": step, "missing": missing, "load": [load, os.getloadavg()[0]]}))
        return 0

    configs = [args.blas_threads] if args.blas_threads else [1, None]
    rounds = args.rounds or (1 if args.quick else 2)
    tf_python = tensorflow_python()
    rows = []
    for threads in configs:
        if threads is None:
            have = os.environ.get("OPENBLAS_NUM_THREADS")
            config = f"default threads ({f'OPENBLAS_NUM_THREADS={have}' if have else f'{os.cpu_count()} cores'})"
        else:
            config = f"threads={threads}"
        results, missing = [], {}
        for _ in range(rounds):
            results.append(run_worker("tinytf", sys.executable, threads, number, repeat, args.cpu_time, args.quick))
            if tf_python:
                results.append(run_worker("tensorflow", tf_python, threads, number, repeat, args.cpu_time, args.quick))
        for r in results:
            missing.update(r.get("missing", {}))
            if "error" in r:
                print(f"  (a worker failed: {r['error']})")
        if not tf_python:
            missing.update(dict.fromkeys([*FORWARD[3:], *STEP[5:]], "TensorFlow not installed"))
        loads = [f"{a:.1f}->{b:.1f}" for r in results for a, b in [r.get("load", (0, 0))]]
        clock = "process CPU time" if args.cpu_time else "wall time"
        print(f"\n== {config}; {clock}; {rounds} round(s) of {repeat} x up to {number} calls; load average (1 min) at "
              f"start->end of each worker: {', '.join(loads)}")
        fwd = print_table("MLP forward 64x256x256x10", FORWARD, merge(results, "forward"), missing, "numpy")
        print()
        step = print_table("MLP training step 64x256x256x10", STEP, merge(results, "step"), missing, "numpy step")
        for line in verdicts(fwd, step):
            print(line)
        rows += rows_for(config, fwd, step, f"{clock}; load average at start->end of each worker: {', '.join(loads)}")
    return rows


if __name__ == "__main__":
    main()
    sys.exit(0)
