"""SavedModels written by TensorFlow 2.21 (tests/conformance/fixtures/saved_models, made by
export_saved_model_fixtures.py): tt.saved_model.load runs every signature on the graph executor and
under XLA and gives TensorFlow's outputs (rtol 1e-5; atol 1e-6 for values near zero)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinytf as tt

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
    assert NAMES == ["keras_cnn", "keras_mlp", "multi_signature"]


@pytest.mark.parametrize("backend", ["graph", "xla"])
@pytest.mark.parametrize("name", NAMES)
def test_every_signature_gives_tensorflows_outputs(name, backend):
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
