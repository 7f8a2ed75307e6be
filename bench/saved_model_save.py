"""Save time of a small MLP as a SavedModel: ``tt.saved_model.save`` beside TensorFlow's
``tf.saved_model.save`` of the same model, in one run.

    .venv-bench/bin/python bench/saved_model_save.py [--quick] [--hidden 512] [--repeat 5]

The model is a ``Module`` with three dense layers (784 -> hidden -> hidden -> 10, the same weights in
both libraries) and one ``serving_default`` signature taking a [None, 784] batch. Each library saves it
``--repeat`` times into fresh directories, interleaved, and the best time counts (tracing is done
before timing in both). TensorFlow then loads tinytf's SavedModel and its signature must give the
tinytf model's output to 1e-5 (a save TensorFlow cannot load does not count).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

from bench.common import MISSING, Row, peer_available  # noqa: E402


def weights(hidden: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    sizes = [784, hidden, hidden, 10]
    return [((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32), np.full(b, 0.01, np.float32))
            for a, b in zip(sizes, sizes[1:])]


def tinytf_model(tt, params):
    class Dense(tt.Module):
        def __init__(self, w, b):
            super().__init__()
            self.w, self.b = tt.Variable(w, name="w"), tt.Variable(b, name="b")

    class MLP(tt.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(w, b) for w, b in params]

        @tt.function(input_signature=[tt.TensorSpec([None, 784], tt.float32)])
        def serve(self, x):
            for i, layer in enumerate(self.layers):
                x = x @ layer.w + layer.b
                x = tt.nn.relu(x) if i < len(self.layers) - 1 else tt.nn.softmax(x)
            return {"probs": x}

    return MLP()


def tf_model(tf, params):
    class Dense(tf.Module):
        def __init__(self, w, b):
            super().__init__()
            self.w, self.b = tf.Variable(w, name="w"), tf.Variable(b, name="b")

    class MLP(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(w, b) for w, b in params]

        @tf.function(input_signature=[tf.TensorSpec([None, 784], tf.float32)])
        def serve(self, x):
            for i, layer in enumerate(self.layers):
                x = x @ layer.w + layer.b
                x = tf.nn.relu(x) if i < len(self.layers) - 1 else tf.nn.softmax(x)
            return {"probs": x}

    return MLP()


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="hidden 128, three saves each")
    parser.add_argument("--hidden", type=int, help="hidden width (default 512, quick 128)")
    parser.add_argument("--repeat", type=int, help="saves per library (default 5, quick 3)")
    args = parser.parse_args(argv)
    hidden, repeat = args.hidden or (128 if args.quick else 512), args.repeat or (3 if args.quick else 5)
    case = f"save a 3-layer MLP SavedModel (784-{hidden}-{hidden}-10)"
    if not peer_available("tensorflow"):
        print("TensorFlow is not installed: nothing to compare with")
        return [Row("saved_model_save", case, "s", None, peers={"tensorflow": MISSING}, reference="tensorflow")]
    import tensorflow as tf

    import tinytf as tt

    params = weights(hidden)
    ours, theirs = tinytf_model(tt, params), tf_model(tf, params)
    x = np.random.default_rng(1).standard_normal((4, 784)).astype(np.float32)
    want = ours.serve(x)["probs"].numpy()  # (traces both before timing)
    theirs.serve(tf.constant(x))
    work = tempfile.mkdtemp(prefix="saved_model_save-")
    best = {"tinytf": float("inf"), "tensorflow": float("inf")}
    try:
        for i in range(repeat):  # interleaved: both see the same machine load
            for label, fn in (("tinytf", lambda p: tt.saved_model.save(ours, p, signatures={"serving_default": ours.serve})),
                              ("tensorflow", lambda p: tf.saved_model.save(theirs, p,
                                                                           signatures={"serving_default": theirs.serve}))):
                path = os.path.join(work, f"{label}-{i}")
                start = time.perf_counter()
                fn(path)
                best[label] = min(best[label], time.perf_counter() - start)
        path = os.path.join(work, "tinytf-0")
        megabytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs) / 1e6
        got = tf.saved_model.load(path).signatures["serving_default"](x=tf.constant(x))["probs"].numpy()
        err = float(np.max(np.abs(got - want)))
        if err > 1e-5:
            raise AssertionError(f"TensorFlow's run of tinytf's SavedModel differs from tinytf by {err:.2e}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{case}, {megabytes:.1f} MB on disk, best of {repeat}; TensorFlow loads tinytf's save, outputs agree to "
          f"{err:.1e}")
    for label, seconds in best.items():
        print(f"  {label:<12} {seconds * 1e3:9.1f} ms")
    row = Row("saved_model_save", case, "s", best["tinytf"], peers={"tensorflow": best["tensorflow"]},
              reference="tensorflow", target="faster than TensorFlow", target_ratio=1.0,
              note=f"{megabytes:.1f} MB; TensorFlow loads it, outputs agree to {err:.1e}")
    print(f"target: {row.target}: time ratio {row.ratio:.2f}x")
    return [row]


if __name__ == "__main__":
    main()
