"""Real Keras models exported by TensorFlow 2.21: tinytf's graph executor and XLA backend beside
TensorFlow's ``tf.function`` and ``tf.function(jit_compile=True)`` on the same model, weights and input.

    python bench/real_models.py [--quick] [--only resnet50 lstm] [--blas-threads 1]

The models are tests/conformance/fixtures/keras (inference ones; the training steps change their
variables): tinytf runs TensorFlow's exported MLIR; TensorFlow rebuilds the Keras model with the
exporter (tests/conformance/export_fixtures.py) and sets every weight from the same seed, so both
compute the same numbers (checked to 1e-4 of the output range before timing). Rows: ms per call (the best
call; the four candidates are called in turns),
ratio to ``tf.function`` (graph) and to TensorFlow's XLA; geometric means over the CNNs and the
recurrent models. ``--blas-threads N`` reruns this script with numpy's BLAS and TensorFlow's
intra-op pool at N threads (the environment must be set before either library loads); a full run
(no ``--quick`` or ``--only``) measures at the default threads, then at one.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))

import numpy as np  # noqa: E402

from bench.common import Row, mark_missing  # noqa: E402

RECURRENT = ("lstm", "gru", "bidirectional_lstm", "simple_rnn", "conv_lstm2d", "transformer_encoder")
QUICK = ("mobilenet_v2", "resnet50", "lstm", "gru")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "TF_NUM_INTRAOP_THREADS")


def inference_models() -> list[str]:
    from keras_fixtures import NAMES

    return [n for n in NAMES if not n.startswith("train_")]


def tinytf_calls(name: str) -> tuple[dict, list]:
    """{"tinytf graph": fn, "tinytf XLA": fn} for one exported model, and its graph-mode outputs."""
    from keras_fixtures import fixture, module

    _, inputs, captures, _ = fixture(name)
    loaded = module(name)
    calls = {f"tinytf {label}": (lambda b=backend: loaded.run(*inputs, *captures, backend=b))
             for label, backend in (("graph", "graph"), ("XLA", "xla"))}
    return calls, calls["tinytf graph"]()


def tensorflow_calls(name: str) -> tuple[dict, list] | None:
    """The same model rebuilt in TensorFlow with the same weights: tf.function and jit_compile."""
    try:
        import tensorflow as tf
    except ImportError:
        return None
    import export_fixtures as export

    recorded = {}

    def record(tf, out_dir, name, model, shape, seed, log, low=-1.0, high=1.0):  # export's _keras_inference
        graph = tf.function(lambda inp: model(inp, training=False))
        concrete = graph.get_concrete_function(tf.TensorSpec(shape, tf.float32, name="x"))
        _, data = export._input_entries(seed, [(shape, low, high)])
        export._capture_entries(tf, export._captures(tf, concrete, model.weights), len(data), seed,
                                export._layer_classes(tf, model), None)
        jit = tf.function(lambda inp: model(inp, training=False), jit_compile=True)
        recorded[name] = (graph, jit, tf.constant(data[0]), model)  # the model: its variables stay alive

    real, export._keras_inference = export._keras_inference, record
    try:
        with tempfile.TemporaryDirectory() as tmp:
            export.KERAS_MODELS[name](tf, tmp, [])
    finally:
        export._keras_inference = real
    graph, jit, x, _ = recorded[name]

    def flat(result):
        return [t.numpy() for t in tf.nest.flatten(result)]

    calls = {"TensorFlow tf.function": lambda: flat(graph(x)), "TensorFlow jit_compile": lambda: flat(jit(x))}
    return calls, calls["TensorFlow tf.function"]()


def same_numbers(name: str, got: list, want: list) -> None:
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        scale = float(np.max(np.abs(w))) or 1.0
        err = float(np.max(np.abs(np.asarray(g, np.float64) - w))) / scale
        if err > 1e-4:
            raise AssertionError(f"{name}: output {i} differs from TensorFlow's by {err:.2e} of its range")


def best_ms(calls: dict, repeat: int, budget_s: float) -> dict:
    """{label: the best of ``repeat`` calls, in ms} (after a warm-up call each), the calls taken in
    turns, in a shuffled order each round (a slow spell of the machine touches every candidate alike),
    stopping early past ``budget_s``."""
    for fn in calls.values():
        fn()
    times = {label: [] for label in calls}
    order, rng, start = list(calls), random.Random(0), time.perf_counter()
    for _ in range(repeat):
        rng.shuffle(order)
        for label in order:
            t = time.perf_counter()
            calls[label]()
            times[label].append(time.perf_counter() - t)
        if time.perf_counter() - start > budget_s:
            break
    return {label: min(spent) * 1e3 for label, spent in times.items()}


def geomean(values) -> float | None:
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def measure(names: list[str], repeat: int) -> dict:
    """name -> {label: ms}."""
    table = {}
    for name in names:
        calls, outs = tinytf_calls(name)
        tf_side = tensorflow_calls(name)
        if tf_side is not None:
            same_numbers(name, outs, tf_side[1])
            calls.update(tf_side[0])
        table[name] = best_ms(calls, repeat, budget_s=20.0 * len(calls))
        print(name, "  ".join(f"{k}={v:.2f}ms" for k, v in table[name].items()), flush=True)
    return table


def rows_for(table: dict, threads: str) -> list[Row]:
    rows = []
    for name, ms in table.items():
        for mode, peer in (("graph", "TensorFlow tf.function"), ("XLA", "TensorFlow jit_compile")):
            rows.append(Row("real_models", f"{name}, {mode}, BLAS threads {threads}", "ms", ms.get(f"tinytf {mode}"),
                            peers=mark_missing({"tensorflow": ms.get(peer)}), reference="tensorflow",
                            target="<= 1.5x" if mode == "graph" else "<= 1.0x",
                            target_ratio=1.5 if mode == "graph" else 1.0))
    for group, members in (("CNNs", [n for n in table if n not in RECURRENT]),
                           ("recurrent models", [n for n in table if n in RECURRENT])):
        for mode, peer, goal in (("graph", "TensorFlow tf.function", 1.0), ("XLA", "TensorFlow jit_compile", 1.0)):
            mine = geomean(table[n].get(f"tinytf {mode}") for n in members)
            theirs = geomean(table[n].get(peer) for n in members)
            if mine is not None:
                rows.append(Row("real_models", f"geometric mean over {len(members)} {group}, {mode}, BLAS threads "
                                f"{threads}", "ms", mine, peers=mark_missing({"tensorflow": theirs}),
                                reference="tensorflow", target=f"<= {goal}x", target_ratio=goal))
    return rows


def main(argv=None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}, fewer calls")
    parser.add_argument("--only", nargs="*", help="these models")
    parser.add_argument("--blas-threads", help="rerun with BLAS and TensorFlow's intra-op pool at this many threads")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="end with the rows as one JSON line")
    args = parser.parse_args(argv)
    if args.blas_threads and os.environ.get("OMP_NUM_THREADS") != args.blas_threads:
        env = {**os.environ, **dict.fromkeys(THREAD_VARIABLES, args.blas_threads)}
        rest = argv if argv is not None else sys.argv[1:]
        out = subprocess.run([sys.executable, __file__, *rest, "--json"], env=env, check=True,
                             stdout=subprocess.PIPE, text=True).stdout.splitlines()
        print("\n".join(out[:-1]))
        return [Row.from_dict(r) for r in json.loads(out[-1])]
    names = args.only or (list(QUICK) if args.quick else inference_models())
    table = measure(names, args.repeat or (3 if args.quick else 10))
    rows = rows_for(table, os.environ.get("OMP_NUM_THREADS", "default"))
    for row in rows:
        ratio = "n/a" if row.ratio is None else f"{row.ratio:.2f}x"
        print(f"{row.case:<72} tinytf {row.tinytf:9.2f} ms   vs TensorFlow {ratio}")
    if args.json:
        print(json.dumps([r.to_dict() for r in rows]))
    elif not (args.quick or args.only or args.blas_threads):  # the full run: at one thread too, side by side
        rows += main([*(argv if argv is not None else sys.argv[1:]), "--blas-threads", "1"])
    return rows


if __name__ == "__main__":
    main()
