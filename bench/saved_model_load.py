"""Load time of a Keras MobileNetV2 SavedModel: ``tt.saved_model.load`` beside TensorFlow's
``tf.saved_model.load``, in one run (issue 15's goal: faster than TensorFlow).

    .venv-bench/bin/python bench/saved_model_load.py [--quick] [--size 224] [--repeat 5]

TensorFlow writes the SavedModel first (keras.applications.MobileNetV2, weights from a seed, one
``serve`` signature taking a [1, size, size, 3] image) into a temporary directory; then each library
loads it ``--repeat`` times, interleaved, and the best time counts. Both loaded models run the
signature once on the same image and must agree to 1e-4 of the output range (a load that computes
the wrong thing does not count).
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


def export_mobilenet_v2(tf, path: str, size: int) -> None:
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.applications.MobileNetV2(weights=None, input_shape=(size, size, 3), classes=10,
                                              classifier_activation=None)

    class Serving(tf.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        @tf.function(input_signature=[tf.TensorSpec([1, size, size, 3], tf.float32, name="image")])
        def serve(self, image):
            return {"logits": self.model(image, training=False)}

    module = Serving()
    tf.saved_model.save(module, path, signatures={"serving_default": module.serve})


def best_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 96x96 model, three loads each")
    parser.add_argument("--size", type=int, help="image size (default 224, quick 96)")
    parser.add_argument("--repeat", type=int, help="loads per library (default 5, quick 3)")
    args = parser.parse_args(argv)
    size, repeat = args.size or (96 if args.quick else 224), args.repeat or (3 if args.quick else 5)
    case = f"load a Keras MobileNetV2 SavedModel ({size}x{size})"
    if not peer_available("tensorflow"):  # TensorFlow writes the model: without it there is nothing to load
        print("TensorFlow is not installed: nothing to measure")
        return [Row("saved_model_load", case, "s", None, peers={"tensorflow": MISSING}, reference="tensorflow")]
    import tensorflow as tf

    import tinytf as tt

    work = tempfile.mkdtemp(prefix="saved_model_load-")
    try:
        path = os.path.join(work, "mobilenet_v2")
        export_mobilenet_v2(tf, path, size)
        megabytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs) / 1e6
        image = np.random.default_rng(1).uniform(-1, 1, (1, size, size, 3)).astype(np.float32)
        want = tf.saved_model.load(path).signatures["serving_default"](image=tf.constant(image))["logits"].numpy()
        got = np.asarray(tt.saved_model.load(path).signatures["serving_default"](image=image)["logits"])
        err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) or 1.0))
        if err > 1e-4:
            raise AssertionError(f"tinytf's loaded MobileNetV2 differs from TensorFlow's by {err:.2e} of the range")
        best = {"tinytf": float("inf"), "tensorflow": float("inf")}
        for _ in range(repeat):  # interleaved: both see the same machine load
            best["tinytf"] = min(best["tinytf"], best_seconds(lambda: tt.saved_model.load(path), 1))
            best["tensorflow"] = min(best["tensorflow"], best_seconds(lambda: tf.saved_model.load(path), 1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{case}, {megabytes:.1f} MB on disk, best of {repeat}; outputs agree to {err:.1e} of the range")
    for label, seconds in best.items():
        print(f"  {label:<12} {seconds * 1e3:9.1f} ms")
    row = Row("saved_model_load", case, "s", best["tinytf"], peers={"tensorflow": best["tensorflow"]},
              reference="tensorflow", target="faster than TensorFlow", target_ratio=1.0,
              note=f"{megabytes:.1f} MB; signature outputs agree to {err:.1e}")
    print(f"target: {row.target}: time ratio {row.ratio:.2f}x")
    return [row]


if __name__ == "__main__":
    main()
