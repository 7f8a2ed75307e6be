"""Record TensorFlow's values for tt.signal's mel, window and MDCT functions, tt.linalg's norms, matrix
functions and banded solves, and tt.math's statistics and counting: the reference values of
tests/unit/test_signal_mel.py, test_linalg_norms.py and test_math_statistics.py.

Run by hand with TensorFlow installed, never in CI (tinytf is not imported):

    .venv-bench/bin/python tests/conformance/export_signal_fixtures.py

Writes tests/fixtures/signal/tf_signal.npz, tests/fixtures/linalg/tf_linalg.npz and
tests/fixtures/math/tf_math.npz: ``NAME`` = TensorFlow's result of case NAME (its inputs are made here
from fixed seeds, and the tests make the same ones), and ``__meta__`` = TensorFlow's version.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SIGNAL_OUT = HERE.parent / "fixtures" / "signal" / "tf_signal.npz"
LINALG_OUT = HERE.parent / "fixtures" / "linalg" / "tf_linalg.npz"
MATH_OUT = HERE.parent / "fixtures" / "math" / "tf_math.npz"


def signal_input(seed, *shape, dtype=np.float32):
    """The inputs of the cases: standard normal draws from numpy's PCG64 (the tests draw the same)."""
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


MEL_CASES = {  # name: (num_mel_bins, num_spectrogram_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
    "mel_default": (20, 129, 8000, 125.0, 3800.0, "float32"),
    "mel_40_16k": (40, 129, 16000, 20.0, 4000.0, "float32"),
    "mel_64_257": (64, 257, 22050, 0.0, 11025.0, "float32"),
    "mel_13_odd_f64": (13, 100, 16000, 300.0, 7000.0, "float64"),
}
WINDOW_CASES = {  # name: (function, window_length, kwargs)
    "kaiser_8": ("kaiser_window", 8, {}), "kaiser_9_beta3": ("kaiser_window", 9, {"beta": 3.0}),
    "kaiser_1": ("kaiser_window", 1, {}), "kaiser_16_f64": ("kaiser_window", 16, {"beta": 5.0, "dtype": "float64"}),
    "kbd_8": ("kaiser_bessel_derived_window", 8, {}), "kbd_10_beta4": ("kaiser_bessel_derived_window", 10, {"beta": 4.0}),
    "vorbis_8": ("vorbis_window", 8, {}), "vorbis_7": ("vorbis_window", 7, {}),
    "vorbis_12_f64": ("vorbis_window", 12, {"dtype": "float64"}),
}


def signal_cases(tf):
    out = {}
    for name, (mel, bins, rate, lo, hi, dtype) in MEL_CASES.items():
        out[name] = tf.signal.linear_to_mel_weight_matrix(mel, bins, rate, lo, hi, dtype=getattr(tf, dtype))
    for name, (fn, length, kwargs) in WINDOW_CASES.items():
        kwargs = {k: getattr(tf, v) if k == "dtype" else v for k, v in kwargs.items()}
        out[name] = getattr(tf.signal, fn)(length, **kwargs)
    x = signal_input(1, 2, 3, 40)
    out["mfccs"] = tf.signal.mfccs_from_log_mel_spectrograms(x)
    audio = signal_input(2, 2, 64)
    out["mdct"] = tf.signal.mdct(audio, 16)
    out["mdct_ortho_kbd_pad"] = tf.signal.mdct(audio[:, :60], 8, window_fn=tf.signal.kaiser_bessel_derived_window,
                                               pad_end=True, norm="ortho")
    coefficients = signal_input(3, 2, 5, 8)
    out["inverse_mdct"] = tf.signal.inverse_mdct(coefficients)
    out["inverse_mdct_ortho"] = tf.signal.inverse_mdct(coefficients, norm="ortho")
    out["dct4"] = tf.signal.dct(signal_input(4, 3, 6), type=4)
    out["dct4_ortho"] = tf.signal.dct(signal_input(4, 3, 6), type=4, norm="ortho")
    out["idct4"] = tf.signal.idct(signal_input(4, 3, 6), type=4)
    return out


NORM_CASES = {  # name: (ord, axis, keepdims) on linalg_inputs()["x"] [3, 4, 5]
    "norm_default": ("euclidean", None, False), "norm_fro_01": ("fro", (0, 1), False),
    "norm_1_vec": (1, -1, False), "norm_inf_vec": (np.inf, 0, True), "norm_p3_vec": (3.0, 1, False),
    "norm_p05_all": (0.5, None, True), "norm_2_vec": (2, 2, False), "norm_1_mat": (1, (1, 2), False),
    "norm_inf_mat": (np.inf, (2, 0), True), "norm_2_mat": (2, (-2, -1), False), "norm_2_mat_02": (2, (0, 2), True),
}


def linalg_inputs():
    """The inputs of the linalg cases (the tests make the same)."""
    rng = np.random.default_rng(21)
    a = rng.standard_normal((2, 3, 3)) * 0.5
    spd = a @ np.swapaxes(a, -1, -2) + np.eye(3)
    return {"x": rng.standard_normal((3, 4, 5)), "a": a, "spd": spd, "tall": rng.standard_normal((2, 5, 3)),
            "wide": rng.standard_normal((2, 3, 5)), "b_tall": rng.standard_normal((2, 5, 2)),
            "b_wide": rng.standard_normal((2, 3, 2)), "diagonals": rng.standard_normal((2, 3, 6)) + [[0], [4], [0]],
            "rhs": rng.standard_normal((2, 6, 2)), "bands": rng.standard_normal((2, 3, 6)) + [[3], [0], [0]],
            "upper_bands": rng.standard_normal((2, 3, 6)) + [[0], [0], [3]], "w3": rng.standard_normal((2, 3, 3)),
            "w2": rng.standard_normal((2, 3, 2)), "alpha": rng.standard_normal(6), "beta": rng.standard_normal(5),
            "complex_beta": rng.standard_normal(5) + 1j * rng.standard_normal(5),
            "near_identity": np.eye(3) + 0.3 * (rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3)))}


def linalg_cases(tf):
    arrays = linalg_inputs()
    v = {k: tf.constant(x) for k, x in arrays.items()}
    out = {}
    for name, (ord, axis, keepdims) in NORM_CASES.items():
        out[name] = tf.linalg.norm(v["x"], ord=ord, axis=axis, keepdims=keepdims)
    out["normalize"], out["normalize_norm"] = tf.linalg.normalize(v["x"], ord=1, axis=-1)
    out["global_norm"] = tf.linalg.global_norm([v["x"], v["a"], None])
    clipped, out["clip_global_norm"] = tf.clip_by_global_norm([v["x"], v["a"]], 2.0)
    out["clip_x"], out["clip_a"] = clipped
    out["expm"], out["sqrtm"] = tf.linalg.expm(v["a"]), tf.linalg.sqrtm(v["spd"])
    out["lstsq_tall"] = tf.linalg.lstsq(v["tall"], v["b_tall"])
    out["lstsq_tall_l2"] = tf.linalg.lstsq(v["tall"], v["b_tall"], l2_regularizer=0.5)
    out["lstsq_wide"] = tf.linalg.lstsq(v["wide"], v["b_wide"])
    out["lstsq_tall_slow"] = tf.linalg.lstsq(v["tall"], v["b_tall"], fast=False)
    out["tridiagonal_solve"] = tf.linalg.tridiagonal_solve(v["diagonals"], v["rhs"])
    out["tridiagonal_matmul"] = tf.linalg.tridiagonal_matmul(v["diagonals"], v["rhs"])
    out["banded_lower"] = tf.linalg.banded_triangular_solve(v["bands"], v["rhs"])
    out["banded_upper_adjoint"] = tf.linalg.banded_triangular_solve(v["upper_bands"], v["rhs"], lower=False,
                                                                    adjoint=True)
    out["logm"] = tf.linalg.logm(v["near_identity"])
    out["eigh_tridiagonal"] = tf.linalg.eigh_tridiagonal(v["alpha"], v["beta"])
    out["eigh_tridiagonal_i"] = tf.linalg.eigh_tridiagonal(v["alpha"], v["beta"], select="i", select_range=[1, 3])
    out["eigh_tridiagonal_v"] = tf.linalg.eigh_tridiagonal(v["alpha"], v["beta"], select="v", select_range=[-0.5, 1.0])
    out["eigh_tridiagonal_complex"] = tf.linalg.eigh_tridiagonal(tf.cast(v["alpha"], tf.complex128), v["complex_beta"])
    # TensorFlow's gradients of sum(f(inputs) * w)
    for name, fn, args, w in (("expm", tf.linalg.expm, ["a"], "w3"), ("sqrtm", tf.linalg.sqrtm, ["spd"], "w3"),
                              ("lstsq_tall_l2", lambda p, q: tf.linalg.lstsq(p, q, l2_regularizer=0.5),
                               ["tall", "b_tall"], "w2"),
                              ("lstsq_wide", tf.linalg.lstsq, ["wide", "b_wide"], "b_tall"),
                              ("tridiagonal_solve", tf.linalg.tridiagonal_solve, ["diagonals", "rhs"], "rhs")):
        inputs = [tf.constant(arrays[k]) for k in args]
        with tf.GradientTape() as tape:
            tape.watch(inputs)
            loss = tf.reduce_sum(fn(*inputs) * v[w])
        for k, g in zip(args, tape.gradient(loss, inputs)):
            out[f"grad_{name}_{k}"] = g
    return out


def math_inputs():
    """The inputs of the tt.math cases (the tests make the same)."""
    rng = np.random.default_rng(31)
    return {"x": rng.standard_normal((3, 4)), "z": rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)),
            "ints": rng.integers(-5, 6, (3, 4)).astype(np.int32), "arr": rng.integers(0, 7, 12).astype(np.int32),
            "rows": rng.integers(0, 5, (2, 6)).astype(np.int64), "w": rng.uniform(0, 1, 12).astype(np.float32),
            "labels": np.array([0, 1, 2, 2, 3, 1]), "predictions": np.array([0, 2, 2, 1, 3, 1]),
            "coeffs": [1.5, -2.0, 0.5, 3.0], "g": rng.standard_normal((3, 4))}


def math_cases(tf):
    v = math_inputs()
    x = tf.constant(v["x"])
    out = {
        "logsumexp_1": tf.math.reduce_logsumexp(x, axis=1),
        "logsumexp_all_keep": tf.math.reduce_logsumexp(x, keepdims=True),
        "logsumexp_inf": tf.math.reduce_logsumexp(tf.constant([[-np.inf, -np.inf], [np.inf, 1.0], [1000.0, 1000.0]]),
                                                  axis=1),
        "variance_0": tf.math.reduce_variance(x, axis=0), "std_all": tf.math.reduce_std(x),
        "variance_complex": tf.math.reduce_variance(tf.constant(v["z"]), axis=1),
        "euclidean_1": tf.math.reduce_euclidean_norm(x, axis=1),
        "euclidean_ints": tf.math.reduce_euclidean_norm(tf.constant(v["ints"]), axis=0, keepdims=True),
        "euclidean_complex": tf.math.reduce_euclidean_norm(tf.constant(v["z"])),
        "count_nonzero_0": tf.math.count_nonzero(tf.constant(v["ints"]), axis=0),
        "count_nonzero_strings": tf.math.count_nonzero(tf.constant(["", "a", "", "bc"])),
        "bincount": tf.math.bincount(tf.constant(v["arr"])),
        "bincount_weights_min": tf.math.bincount(tf.constant(v["arr"]), weights=v["w"], minlength=10),
        "bincount_max_binary": tf.math.bincount(tf.constant(v["arr"]), maxlength=4, binary_output=True),
        "bincount_rows": tf.math.bincount(tf.constant(v["rows"]), axis=-1, dtype=tf.float32),
        "confusion": tf.math.confusion_matrix(v["labels"], v["predictions"]),
        "confusion_weighted": tf.math.confusion_matrix(v["labels"], v["predictions"], num_classes=5,
                                                       weights=np.linspace(0.5, 3.0, 6), dtype=tf.float64),
        "polyval": tf.math.polyval([tf.constant(c, tf.float64) for c in v["coeffs"]], x),
        "monotonic": tf.stack([tf.math.is_non_decreasing([1, 1, 2]), tf.math.is_strictly_increasing([1, 1, 2]),
                               tf.math.is_strictly_increasing([3]), tf.math.is_non_decreasing([[1, 2], [0, 3]])]),
        "accumulate_n": tf.math.accumulate_n([x, x * 2.0, x * 3.0]),
    }
    for name, fn in (("logsumexp", lambda t: tf.math.reduce_logsumexp(t, axis=1)),
                     ("std", lambda t: tf.math.reduce_std(t, axis=0)),
                     ("euclidean", lambda t: tf.math.reduce_euclidean_norm(t, axis=1, keepdims=True))):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
            loss = tf.reduce_sum(y * tf.reshape(tf.constant(v["g"].reshape(-1)[:int(tf.size(y))]), tf.shape(y)))
        out[f"grad_{name}"] = tape.gradient(loss, x)
    alpha = tf.constant([0.4, 1.0, 3.0], tf.float64)   # tf.random.stateless_gamma's gradient in alpha
    with tf.GradientTape() as tape:
        tape.watch(alpha)
        sample = tf.random.stateless_gamma([5, 3], seed=[4, 2], alpha=alpha, dtype=tf.float64)
        loss = tf.reduce_sum(sample * np.linspace(-1.0, 2.0, 15).reshape(5, 3))
    out["stateless_gamma"], out["grad_stateless_gamma"] = sample, tape.gradient(loss, alpha)
    return out


def write(path, cases, version):
    arrays = {name: np.asarray(value.numpy() if hasattr(value, "numpy") else value) for name, value in cases.items()}
    arrays["__meta__"] = np.asarray(json.dumps({"tensorflow": version}))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    print(f"wrote {len(arrays) - 1} cases to {path}")


def main(argv=None):
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    import tensorflow as tf  # only here: never imported by pytest collection

    write(SIGNAL_OUT, signal_cases(tf), tf.__version__)
    write(LINALG_OUT, linalg_cases(tf), tf.__version__)
    write(MATH_OUT, math_cases(tf), tf.__version__)


if __name__ == "__main__":
    main()
