"""Record TensorFlow's results for the tt.random cases (tests/conformance/random_cases.py).

Run by hand with TensorFlow installed, never in CI (tinytf is not imported):

    .venv-bench/bin/python tests/conformance/export_random_fixtures.py [--out tests/fixtures/random/tf_random.npz]

Writes one npz: ``CASE/i`` = output i of CASE, floats stored as their bits (uint16/32/64: npz has no
bfloat16, and bits compare -0.0 and NaN exactly), and ``__meta__`` = TensorFlow's version, the C
library's, TensorFlow's intra-op thread count (fixed: Multinomial's kernel shards rows over the threads)
and each output's dtype. Stateless and eager cases run eagerly; function cases with
tf.function (TensorFlow's CPU kernels: its own XLA bridge draws other bits).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "fixtures" / "random" / "tf_random.npz"
INTRA_OP_THREADS = 4


def load_cases():
    spec = importlib.util.spec_from_file_location("random_cases", HERE / "random_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def as_bits(array: np.ndarray) -> np.ndarray:
    """Floats as unsigned ints of their width; everything else as it is."""
    array = np.asarray(array)
    if array.dtype.kind == "f" or array.dtype.name == "bfloat16":
        return array.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[array.dtype.itemsize])
    return array


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(INTRA_OP_THREADS)  # Multinomial's shards depend on it

    out = {}
    dtypes = {}
    for name, (kind, fn) in load_cases().items():
        compile = tf.function if kind == "function" else (lambda f: f)
        for i, value in enumerate(fn(tf, compile)):
            value = np.asarray(value)
            out[f"{name}/{i}"] = as_bits(value)
            dtypes[f"{name}/{i}"] = value.dtype.name
    meta = {"tensorflow": tf.__version__, "libc": " ".join(platform.libc_ver()), "machine": platform.machine(),
            "intra_op_threads": INTRA_OP_THREADS, "dtypes": dtypes}
    out["__meta__"] = np.asarray(json.dumps(meta))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **out)
    print(f"wrote {len(out) - 1} arrays of {len(load_cases())} cases to {args.out}")


if __name__ == "__main__":
    main()
