"""SavedModels written by TensorFlow 2.21 (tests/conformance/fixtures/saved_models, made by
export_saved_model_fixtures.py): tt.saved_model.load runs every signature on the graph executor and
under XLA and gives TensorFlow's outputs (rtol 1e-5; atol 1e-6 for values near zero): tf.saved_model.save of
Keras models and a tf.Module (two signatures, variables, while and cond), Keras' model.export of an LSTM, a
TensorFlow 1 Session's SignatureDefs, and that graph frozen into a GraphDef."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir

FIXTURES = Path(__file__).parent / "fixtures" / "saved_models"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.npz"))


def calls(name: str) -> dict:
    """signature -> (inputs, TensorFlow's outputs), from NAME.npz."""
    data = np.load(FIXTURES / f"{name}.npz")
    out: dict = {}
    for key in data.files:
        signature, _, rest = key.partition(".")
        inputs, outputs = out.setdefault(signature, ({}, {}))
        if rest.startswith("out."):
            outputs[rest[4:]] = data[key]
        else:
            inputs[rest] = data[key]
    return out


def test_the_fixtures_are_here():
    assert NAMES == ["keras_cnn", "keras_lstm", "keras_mlp", "multi_signature", "tf1_session"]


@pytest.mark.parametrize("backend", ["graph", "xla"])
@pytest.mark.parametrize("name", NAMES)
def test_every_signature_gives_tensorflows_outputs(name, backend):
    """(Keras' LSTM export reserves its TensorList with element shape [-1, 4]: under XLA the buffer takes its
    shape from the loop body, as in TensorFlow's XLA bridge.)"""
    loaded = tt.saved_model.load(str(FIXTURES / name), backend=backend)
    expected = calls(name)
    assert sorted(loaded.signatures) == sorted(expected)
    for signature, (inputs, want) in expected.items():
        got = loaded.signatures[signature](**inputs)
        assert sorted(got) == sorted(want), signature
        for key, value in want.items():
            np.testing.assert_allclose(np.asarray(got[key]), value, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name} {signature} {key} ({backend})")
            assert np.asarray(got[key]).dtype == value.dtype


def test_the_variables_are_tensorflows():
    """The restored variables hold what TensorFlow saved (read back through tt.train.load_checkpoint)."""
    reader = tt.train.load_checkpoint(str(FIXTURES / "multi_signature" / "variables" / "variables"))
    shapes = reader.get_variable_to_shape_map()
    values = {k: reader.get_tensor(k) for k in shapes if k.endswith("VARIABLE_VALUE")}
    assert sorted(v.shape for v in values.values()) == [(3,), (3, 3)]
    rng = np.random.default_rng(3)  # the exporter's initial values
    w, b = rng.standard_normal((3, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    by_shape = {v.shape: v for v in values.values()}
    np.testing.assert_array_equal(by_shape[(3, 3)], w)
    np.testing.assert_array_equal(by_shape[(3,)], b)


def test_the_frozen_graph_gives_the_sessions_outputs():
    """tf1_session's graph with its variables frozen into constants (frozen.pb), imported as a GraphDef."""
    from tinytf.formats import protos
    from tinytf.formats.graphdef_import import import_graph_def

    graph_def = protos.parse(protos.graph_pb2.GraphDef, (FIXTURES / "frozen.pb").read_bytes(), "frozen.pb")
    assert {n.op for n in graph_def.node} >= {"Placeholder", "Const", "MatMul", "Relu"}
    assert not {n.op for n in graph_def.node} & {"VariableV2", "VarHandleOp"}  # frozen: no variables left
    (inputs, want), = calls("tf1_session").values()
    module = tt.load_mlir(mlir.print(import_graph_def(graph_def, inputs=["x"], input_shapes=[(4, 3)],
                                                         outputs=["y"])))
    for backend in ("graph", "xla"):
        got, = module.run(inputs["x"], backend=backend)
        np.testing.assert_allclose(got, want["y"], rtol=1e-5, atol=1e-6, err_msg=backend)
