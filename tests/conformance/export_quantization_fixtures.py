"""Record TensorFlow's values for the fake-quantization ops, Bitcast, BroadcastArgs and
BroadcastGradientArgs: the reference values tests/unit/test_ops_fake_quant.py and
tests/unit/test_ops_bitcast_broadcast_args.py compare with.

Run by hand with TensorFlow installed, never in CI (tinytf is not imported):

    .venv-bench/bin/python tests/conformance/export_quantization_fixtures.py [--out tests/fixtures/quantization/tf_values.npz]

Writes one npz: ``NAME`` = TensorFlow's result of case NAME (``NAME/dx``, ``NAME/dmin``, ``NAME/dmax`` for
gradients; inputs are made here from fixed seeds and the tests make the same ones), and ``__meta__``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "fixtures" / "quantization" / "tf_values.npz"


def quant_input(seed, *shape):
    """Uniform draws over [-3, 3) from numpy's PCG64 (the tests draw the same), with values on and
    beside the grid's edges."""
    x = np.random.default_rng(seed).uniform(-3.0, 3.0, shape).astype(np.float32)
    x.reshape(-1)[:4] = [-1.0, 1.0, 0.0, 0.5]
    return x


def weights(shape):
    """The upstream gradient of the gradient cases: 1, 2, 3, ... over the output."""
    return np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape)


# name: (op, input shape, seed, attrs or (min, max) arrays)
ARGS_CASES = {
    "args_default": ((3, 5), 1, {}),
    "args_m1_1_8bit": ((4, 4), 2, {"min": -1.0, "max": 1.0, "num_bits": 8}),
    "args_narrow_4bit": ((2, 3, 4), 3, {"min": -0.7, "max": 2.3, "num_bits": 4, "narrow_range": True}),
    "args_positive_range": ((10,), 4, {"min": 0.3, "max": 1.7, "num_bits": 3}),
}
VARS_CASES = {
    "vars_m2_1": ((3, 4), 5, -2.0, 1.0, {}),
    "vars_narrow_5bit": ((6,), 6, -0.4, 0.9, {"num_bits": 5, "narrow_range": True}),
}
PER_CHANNEL_CASES = {
    "per_channel_3": ((4, 3), 7, [-1.0, -0.5, 0.2], [1.0, 2.5, 3.0], {}),
    "per_channel_narrow": ((2, 2, 4), 8, [-2.0, -1.0, 0.0, -0.1], [2.0, 0.5, 1.0, 0.1], {"num_bits": 6,
                                                                                        "narrow_range": True}),
}
BITCAST_CASES = {  # name: (input array, output dtype)
    "bitcast_i16_to_i32": (np.arange(-3, 3, dtype=np.int16).reshape(3, 2), "int32"),
    "bitcast_i32_to_u8": (np.array([[1, -2], [65536, 7]], np.int32), "uint8"),
    "bitcast_f32_to_i32": (np.array([1.0, -0.5, 3.25], np.float32), "int32"),
    "bitcast_f64_to_f32": (np.array([1.5, -2.0], np.float64), "float32"),
}
BROADCAST_CASES = {  # name: (s0, s1)
    "bga_trailing": ([2, 1, 3], [3]),
    "bga_scalar_side": ([], [2, 1]),
    "bga_equal": ([4, 5], [4, 5]),
    "bga_ones": ([1, 1], [1]),
    "bga_leading_one": ([5], [1, 5]),
    "bga_zero_dim": ([0, 1], [1, 3]),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    import tensorflow as tf

    out = {}
    for name, (shape, seed, attrs) in ARGS_CASES.items():
        x = tf.constant(quant_input(seed, *shape))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.quantization.fake_quant_with_min_max_args(x, **attrs)
            loss = tf.reduce_sum(y * weights(shape))
        out[name] = y.numpy()
        out[name + "/dx"] = tape.gradient(loss, x).numpy()
    for cases, fn in ((VARS_CASES, tf.quantization.fake_quant_with_min_max_vars),
                      (PER_CHANNEL_CASES, tf.quantization.fake_quant_with_min_max_vars_per_channel)):
        for name, (shape, seed, low, high, attrs) in cases.items():
            x = tf.constant(quant_input(seed, *shape))
            low, high = tf.constant(low, tf.float32), tf.constant(high, tf.float32)
            with tf.GradientTape() as tape:
                tape.watch([x, low, high])
                y = fn(x, low, high, **attrs)
                loss = tf.reduce_sum(y * weights(shape))
            dx, dmin, dmax = tape.gradient(loss, [x, low, high])
            out[name], out[name + "/dx"], out[name + "/dmin"], out[name + "/dmax"] = \
                y.numpy(), dx.numpy(), dmin.numpy(), dmax.numpy()
    for name, (x, dtype) in BITCAST_CASES.items():
        out[name] = tf.bitcast(tf.constant(x), getattr(tf, dtype)).numpy()
    for name, (s0, s1) in BROADCAST_CASES.items():
        r0, r1 = tf.raw_ops.BroadcastGradientArgs(s0=tf.constant(s0, tf.int32), s1=tf.constant(s1, tf.int32))
        out[name + "/r0"], out[name + "/r1"] = r0.numpy(), r1.numpy()
        out[name + "/shape"] = tf.raw_ops.BroadcastArgs(s0=tf.constant(s0, tf.int32), s1=tf.constant(s1, tf.int32)).numpy()
    out["__meta__"] = np.array(json.dumps({"tensorflow": tf.__version__}))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, **out)
    print(f"wrote {len(out) - 1} arrays to {args.out}")


if __name__ == "__main__":
    main()
