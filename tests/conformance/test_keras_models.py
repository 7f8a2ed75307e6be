"""Real Keras models exported by TensorFlow 2.21 run by tinytf on the graph executor and under XLA,
and give TensorFlow's numbers.

tests/conformance/fixtures/keras holds NAME.mlir (NAME.mlir.gz for the large ones: TensorFlow's text,
unchanged) and NAME.npz with no weights: "spec" says how to regenerate every input and captured
variable from a seed (``regenerate`` in export_fixtures.py, which wrote them), out0, ... are
TensorFlow's outputs for those values, and a training step's var0_after, ... its variables after the
step. The models: Keras RNNs (LSTM, GRU, Bidirectional, SimpleRNN, ConvLSTM2D: ``tf.While`` loops
carrying TensorLists), a Transformer encoder block, keras.applications at small inputs, and training
steps (manual assign_sub, keras SGD with momentum, Adam through an LSTM: TensorFlow's own gradient
loops pop the TensorLists its forward loop pushed). Tolerance: 1e-4 of each output's range.
"""
from __future__ import annotations

import numpy as np
import pytest
from keras_fixtures import EXPORT, FIXTURES, NAMES, fixture, mlir_text, module  # tests/conformance, beside this file

import tinytf as tt
from tinytf import mlir

RTOL = 1e-4  # of the output's range (max |value|)
# Small enough to print and parse twice in a test; convnext_tiny's calls hold non-UTF-8 config_proto bytes.
ROUND_TRIP = [n for n in NAMES if n.startswith(("train_", "lstm", "gru", "simple_rnn", "bidirectional", "conv"))]


def check_close(got, want, what: str) -> float:
    """The error relative to ``want``'s range; asserts it is within RTOL."""
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    scale = float(np.max(np.abs(want))) if want.size else 1.0
    err = float(np.max(np.abs(got.astype(np.float64) - want))) / (scale or 1.0) if want.size else 0.0
    assert err <= RTOL, f"{what}: max error {err:.2e} of the output range {scale:.3g}"
    return err


def test_every_exported_model_is_here():
    assert NAMES == sorted(EXPORT.KERAS_MODELS)


def test_fixtures_hold_no_weights():
    for name in NAMES:
        data = np.load(FIXTURES / f"{name}.npz")
        assert not [k for k in data.files if k.startswith("arg")], name
        stored = sum(data[k].size for k in data.files if not k.startswith(("spec", "out")) and not k.endswith("_after"))
        assert stored == 0, f"{name}: {stored} stored values besides the outputs"


@pytest.mark.parametrize("backend", ["graph", "xla"])
@pytest.mark.parametrize("name", NAMES)
def test_model_matches_tensorflow(name, backend):
    data, inputs, captures, outs = fixture(name)
    variables = [c for c in captures if isinstance(c, tt.Variable)]
    before = [v.numpy().copy() for v in variables]
    got = module(name).run(*inputs, *captures, backend=backend)
    assert len(got) == len(outs)
    for i, (g, w) in enumerate(zip(got, outs)):
        check_close(g, w, f"{name} ({backend}) out{i}")
    if name.startswith("train_"):  # a training step: the variables are updated as TensorFlow updates them
        assert sum(k.endswith("_after") for k in data.files) == len(variables)
        for i, v in enumerate(variables):
            check_close(v.numpy(), data[f"var{i}_after"], f"{name} ({backend}) variable {i}")
        assert sum(not np.array_equal(v.numpy(), b) for v, b in zip(variables, before)) >= len(variables) // 2
    else:
        for v, b in zip(variables, before):
            np.testing.assert_array_equal(v.numpy(), b)


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_print_parse_is_a_fixed_point(name):
    first = mlir.print(mlir.parse(mlir_text(name)))
    assert first == mlir.print(mlir.parse(first))


def test_config_proto_bytes_survive_a_round_trip():
    text = mlir_text("convnext_tiny")
    assert "config_proto = \"\\0A" in text  # TensorFlow's serialized ConfigProto: not UTF-8
    again = mlir.print(mlir.parse(text))
    assert again.count("config_proto = \"\\0A\\07\\0A\\03CPU") == text.count("config_proto = \"\\0A\\07\\0A\\03CPU") > 0
