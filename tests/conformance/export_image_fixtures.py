"""Record TensorFlow's results for the tt.image cases (tests/conformance/image_cases.py).

Run by hand with TensorFlow installed, never in CI (tinytf is not imported):

    .venv-bench/bin/python tests/conformance/export_image_fixtures.py [--out tests/fixtures/image/tf_image.npz]

Writes one npz: ``CASE/i`` = output i of CASE (eagerly), ``grad/CASE`` = d sum(out * w) / d input 0 for the
gradient cases, ``grad_boxes/CASE`` the same for crop_and_resize's boxes, and ``__meta__`` = TensorFlow's version.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "fixtures" / "image" / "tf_image.npz"


def load_cases():
    spec = importlib.util.spec_from_file_location("image_cases", HERE / "image_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def resolve(root, path: str):
    for part in path.split("."):
        root = getattr(root, part)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    def tensors(values):  # TensorFlow's image functions want tensors, not arrays
        return [tf.constant(v) if isinstance(v, np.ndarray) else v for v in values]

    cases = load_cases()
    out = {}
    for name, (path, call_args, kwargs) in cases.CASES.items():
        result = resolve(tf, path)(*tensors(call_args), **dict(zip(kwargs, tensors(kwargs.values()), strict=True)))
        results = result if isinstance(result, tuple | list) else [result]
        for i, value in enumerate(results):
            out[f"{name}/{i}"] = np.asarray(value)
    for name in cases.GRADIENT_CASES:
        path, call_args, kwargs = cases.CASES[name]
        call_args, kwargs = list(call_args), dict(kwargs)
        x = tf.constant(call_args[0] if call_args else kwargs["images"])
        with tf.GradientTape() as tape:
            tape.watch(x)
            if call_args:
                call_args[0] = x
            else:
                kwargs["images"] = x
            y = resolve(tf, path)(*call_args, **kwargs)
            loss = tf.reduce_sum(y * cases.weights_for(y.shape))
        out[f"grad/{name}"] = tape.gradient(loss, x).numpy()
    for name in cases.BOX_GRADIENT_CASES:  # crop_and_resize's gradient with respect to the boxes
        path, (image, boxes, *rest), kwargs = cases.CASES[name]
        b = tf.constant(boxes)
        with tf.GradientTape() as tape:
            tape.watch(b)
            y = resolve(tf, path)(tf.constant(image), b, *rest, **kwargs)
            loss = tf.reduce_sum(y * cases.weights_for(y.shape))
        out[f"grad_boxes/{name}"] = tape.gradient(loss, b).numpy()
    out["__meta__"] = np.asarray(json.dumps({"tensorflow": tf.__version__}))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **out)
    print(f"wrote {len(out)} arrays to {args.out}")


if __name__ == "__main__":
    main()
