"""tf.nn functions against TensorFlow 2.21's own results (tests/fixtures/nn/tf_nn.npz, recorded by
tests/conformance/export_nn_fixtures.py from the cases in tests/conformance/nn_cases.py), eagerly, in
graph mode and under XLA, on the very inputs TensorFlow saw."""
from __future__ import annotations

from pathlib import Path

import conformance_modules
import numpy as np
import pytest

import tinytf as tt

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = np.load(ROOT / "fixtures" / "nn" / "tf_nn.npz")


def _cases():
    return conformance_modules.load("nn_cases")


_MODULE = _cases()
CASES, STATEFUL, STATEFUL_SEED = _MODULE.CASES, _MODULE.STATEFUL, _MODULE.STATEFUL_SEED
GRADIENT_CASES, GRADIENT_WEIGHT_SEED = _MODULE.GRADIENT_CASES, _MODULE.GRADIENT_WEIGHT_SEED


def resolve(path: str):
    fn = tt
    for part in path.split("."):
        fn = getattr(fn, part)
    return fn


def test_every_case_was_recorded():
    recorded = {key.split("/")[0] for key in FIXTURE.files if "/" in key}
    assert all(FIXTURE[key].dtype != object for key in FIXTURE.files)
    assert recorded == {name for name, *_ in CASES + STATEFUL + GRADIENT_CASES}, \
        "rerun tests/conformance/export_nn_fixtures.py"
    assert str(FIXTURE["__version__"]) == "2.21.0"


def _outputs(result):
    outs = list(result) if isinstance(result, tuple | list) else [result]
    return [o for o in outs if o is not None]


def _check(name, outs):
    wants = [FIXTURE[f"{name}/out{i}"] for i in range(len(outs)) if f"{name}/out{i}" in FIXTURE]
    assert len(wants) == len(outs)
    for got, want in zip(outs, wants, strict=True):
        got = np.asarray(got.numpy())
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6 * max(1.0, float(np.abs(want).max(initial=0))))


def test_stateful_cases_match_tensorflow_in_order():
    """Eager stateful draws after set_seed: TensorFlow's values, call after call."""
    tt.random.set_seed(STATEFUL_SEED)
    try:
        for name, path, inputs, kwargs in STATEFUL:
            args = [tt.constant(FIXTURE[f"{name}/in{i}"]) for i in range(len(inputs))]
            _check(name, _outputs(resolve(path)(*args, **kwargs)))
    finally:
        tt.random.set_seed(None)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_tensorflow(case, mode):
    name, path, inputs, kwargs = case
    inputs = [FIXTURE[f"{name}/in{i}"] for i in range(len(inputs))]
    tensors = {k for k, v in kwargs.items() if isinstance(v, np.ndarray)}
    fixed = {k: v for k, v in kwargs.items() if k not in tensors}
    fn = resolve(path)

    def call(*args):
        positional, named = args[:len(inputs)], dict(zip(sorted(tensors), args[len(inputs):], strict=True))
        return fn(*positional, **named, **fixed)

    run = {"eager": call, "graph": tt.function(call), "xla": tt.function(call, jit_compile=True)}[mode]
    args = [tt.constant(x) for x in inputs] + [tt.constant(FIXTURE[f"{name}/kw_{k}"]) for k in sorted(tensors)]
    _check(name, _outputs(run(*args)))


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("case", GRADIENT_CASES, ids=[c[0] for c in GRADIENT_CASES])
def test_gradients_match_tensorflow(case, mode):
    """tinytf's gradient rules give TensorFlow's recorded gradients (tie-breaking, ignored outputs and all)."""
    name, path, inputs, kwargs = case
    positional = [FIXTURE[f"{name}/in{i}"] for i in range(len(inputs))]
    tensors = [k for k, v in kwargs.items() if isinstance(v, np.ndarray)]  # the exporter's order
    fixed = {k: v for k, v in kwargs.items() if k not in tensors}
    values = positional + [FIXTURE[f"{name}/kw_{k}"] for k in tensors]
    floating = [i for i, v in enumerate(values) if v.dtype.kind == "f"]
    fn = resolve(path)

    def grads(*args):
        with tt.GradientTape() as tape:
            watched = [args[i] for i in floating]
            tape.watch(watched)
            result = fn(*args[:len(positional)], **dict(zip(tensors, args[len(positional):], strict=True)), **fixed)
            out = result[0] if isinstance(result, tuple | list) else result
            weights = np.random.default_rng(GRADIENT_WEIGHT_SEED).standard_normal(tuple(out.shape))
            loss = tt.reduce_sum(out * tt.constant(weights.astype(out.dtype.np)))
        return tape.gradient(loss, watched)

    run = {"eager": grads, "graph": tt.function(grads), "xla": tt.function(grads, jit_compile=True)}[mode]
    got = run(*[tt.constant(v) for v in values])
    for i, g in enumerate(got):
        if f"{name}/grad{i}" not in FIXTURE:  # TensorFlow gives this input no gradient
            assert g is None, f"input {i} has a gradient, TensorFlow's has none"
            continue
        want = FIXTURE[f"{name}/grad{i}"]
        np.testing.assert_allclose(np.asarray(g.numpy()), want, rtol=1e-5,
                                   atol=1e-5 * max(1.0, float(np.abs(want).max(initial=0))))
