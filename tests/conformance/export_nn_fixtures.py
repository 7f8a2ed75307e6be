"""Record TensorFlow's results for the tf.nn cases (tests/conformance/nn_cases.py).

Run by hand with TensorFlow installed, never in CI (tinytf is not imported):

    .venv-bench/bin/python tests/conformance/export_nn_fixtures.py [--out tests/fixtures/nn/tf_nn.npz]

Writes one npz: ``CASE/in{i}`` = positional input i as given to TensorFlow, ``CASE/out{i}`` = output i
(eager, TensorFlow's CPU kernels), and ``__version__``; the STATEFUL cases run last, in order, after
tf.random.set_seed(STATEFUL_SEED); ``CASE/grad{i}`` = TensorFlow's gradient of each floating input of
a GRADIENT_CASES case (positional inputs, then array keyword arguments).
"""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "fixtures" / "nn" / "tf_nn.npz"


def load_cases(what="CASES"):
    spec = importlib.util.spec_from_file_location("nn_cases", HERE / "nn_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, what)


def resolve(module, path: str):
    for part in path.split("."):
        module = getattr(module, part)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    import tensorflow as tf

    arrays = {"__version__": np.asarray(tf.__version__)}
    cases = load_cases()
    stateful = load_cases("STATEFUL")
    for index, (name, path, inputs, kwargs) in enumerate(cases + stateful):
        if index == len(cases):
            tf.random.set_seed(load_cases("STATEFUL_SEED"))
        tensors = {k: tf.constant(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        result = resolve(tf, path)(*[tf.constant(x) for x in inputs], **tensors)
        outs = result if isinstance(result, tuple | list) else [result]
        for i, x in enumerate(inputs):
            arrays[f"{name}/in{i}"] = np.asarray(x)
        for k, v in kwargs.items():
            if isinstance(v, np.ndarray):
                arrays[f"{name}/kw_{k}"] = v
        for i, out in enumerate(outs):
            if out is not None:
                arrays[f"{name}/out{i}"] = np.asarray(out)
    for name, path, inputs, kwargs in load_cases("GRADIENT_CASES"):
        positional = [tf.constant(x) for x in inputs]
        named = {k: tf.constant(v) for k, v in kwargs.items() if isinstance(v, np.ndarray)}
        fixed = {k: v for k, v in kwargs.items() if not isinstance(v, np.ndarray)}
        sources = [t for t in positional + list(named.values()) if t.dtype.is_floating]
        with tf.GradientTape() as tape:
            tape.watch(sources)
            result = resolve(tf, path)(*positional, **named, **fixed)
            out = result[0] if isinstance(result, tuple | list) else result
            weights = np.random.default_rng(load_cases("GRADIENT_WEIGHT_SEED")).standard_normal(out.shape)
            loss = tf.reduce_sum(out * tf.constant(weights.astype(out.dtype.as_numpy_dtype)))
        for i, x in enumerate(inputs):
            arrays[f"{name}/in{i}"] = np.asarray(x)
        for k, v in kwargs.items():
            if isinstance(v, np.ndarray):
                arrays[f"{name}/kw_{k}"] = v
        for i, g in enumerate(tape.gradient(loss, sources)):
            if g is not None:  # (an input TensorFlow's rule gives no gradient: no array)
                arrays[f"{name}/grad{i}"] = np.asarray(g)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)
    print(f"wrote {len(arrays)} arrays to {args.out}")


if __name__ == "__main__":
    main()
