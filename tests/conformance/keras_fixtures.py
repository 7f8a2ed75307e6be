"""The Keras exports of tests/conformance/fixtures/keras as runnable inputs: TensorFlow's MLIR text,
the loaded module, and every input and captured variable regenerated from the fixture's seed (shared
by test_keras_models.py and bench/real_models.py, which runs without pytest)."""
from __future__ import annotations

import functools
import gzip
import importlib.util
import json
from pathlib import Path

import numpy as np

import tinytf as tt

FIXTURES = Path(__file__).parent / "fixtures" / "keras"
NAMES = sorted(p.name.split(".")[0] for p in FIXTURES.glob("*.npz"))


def _script():
    spec = importlib.util.spec_from_file_location("export_fixtures", Path(__file__).parent / "export_fixtures.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


EXPORT = _script()


def mlir_text(name: str) -> str:
    plain = FIXTURES / f"{name}.mlir"
    return plain.read_text() if plain.exists() else gzip.decompress((FIXTURES / f"{name}.mlir.gz").read_bytes()).decode()


@functools.lru_cache(maxsize=None)
def module(name: str):
    return tt.load_mlir(mlir_text(name))


def fixture(name: str):
    """(npz data, data inputs, captures (Variables for variables), TensorFlow's outputs)."""
    data = np.load(FIXTURES / f"{name}.npz")
    spec = json.loads(str(data["spec"]))
    seed, n = spec["seed"], len(spec["inputs"])
    inputs = [EXPORT.regenerate(seed, k, e) for k, e in enumerate(spec["inputs"])]
    captures = [EXPORT.regenerate(seed, n + k, e) for k, e in enumerate(spec["captures"])]
    captures = [c if "value" in e else tt.Variable(c) for c, e in zip(captures, spec["captures"])]
    outs = [data[f"out{i}"] for i in range(sum(k.startswith("out") for k in data.files))]
    return data, inputs, captures, outs
