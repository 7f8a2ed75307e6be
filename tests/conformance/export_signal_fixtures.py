"""Record TensorFlow's values for tt.signal's mel, window and MDCT functions and tt.linalg / tt.math's
newer functions: the reference values tests/unit/test_signal_mel.py and its neighbours compare with.

Run by hand with TensorFlow installed, never in CI (tinytf is not imported):

    .venv-bench/bin/python tests/conformance/export_signal_fixtures.py [--out tests/fixtures/signal/tf_signal.npz]

Writes one npz: ``NAME`` = TensorFlow's result of case NAME (its inputs are made here from fixed seeds,
and the tests make the same ones), and ``__meta__`` = TensorFlow's version.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "fixtures" / "signal" / "tf_signal.npz"


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args(argv)
    import tensorflow as tf  # only here: never imported by pytest collection

    arrays = {name: np.asarray(value.numpy() if hasattr(value, "numpy") else value)
              for name, value in signal_cases(tf).items()}
    arrays["__meta__"] = np.asarray(json.dumps({"tensorflow": tf.__version__}))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)
    print(f"wrote {len(arrays) - 1} cases to {args.out}")


if __name__ == "__main__":
    main()
