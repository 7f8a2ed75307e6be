"""bench/mlp_step.py's training steps compute the right thing: loss and SGD-updated weights equal a float64
numpy reference (whose gradient is itself checked by central differences), for one and two steps, in every
mode the benchmark times. Values only, never timings."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import tinytf as tt  # noqa: E402
from bench import mlp_step  # noqa: E402


def loss64(x, y, w1, w2):
    d = np.tanh(x @ w1) @ w2 - y
    return np.sum(d * d) / d.size


def reference(steps: int):
    """(losses, w1, w2) after ``steps`` SGD steps, in float64; gradients by the chain rule."""
    x, y, w1, w2 = (a.astype(np.float64) for a in mlp_step.data())
    losses = []
    for _ in range(steps):
        h = np.tanh(x @ w1)
        r = h @ w2 - y
        losses.append(np.sum(r * r) / r.size)
        dr = 2 * r / r.size
        g1, g2 = x.T @ ((dr @ w2.T) * (1 - h ** 2)), h.T @ dr
        w1, w2 = w1 - mlp_step.LR * g1, w2 - mlp_step.LR * g2
    return losses, w1, w2


def test_reference_gradient_matches_central_differences():
    x, y, w1, w2 = (a.astype(np.float64) for a in mlp_step.data())
    _, n1, n2 = reference(1)
    g1, g2 = (w1 - n1) / mlp_step.LR, (w2 - n2) / mlp_step.LR
    eps = 1e-6
    for w, g, index in ((w1, g1, (3, 7)), (w1, g1, (200, 255)), (w2, g2, (0, 0)), (w2, g2, (129, 9))):
        up, down = w.copy(), w.copy()
        up[index] += eps
        down[index] -= eps
        args = (up, w2) if w is w1 else (w1, up)
        args_down = (down, w2) if w is w1 else (w1, down)
        numeric = (loss64(x, y, *args) - loss64(x, y, *args_down)) / (2 * eps)
        assert numeric == pytest.approx(g[index], rel=1e-5, abs=1e-9)


def assert_matches(loss, w1, w2, steps):
    losses, r1, r2 = reference(steps)
    np.testing.assert_allclose(float(np.asarray(loss)), losses[-1], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(w1), r1, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(w2), r2, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("steps", [1, 2])
def test_numpy_step(steps):
    x, y, w1, w2 = mlp_step.data()
    for _ in range(steps):
        loss = mlp_step.numpy_step(x, y, w1, w2)  # updates w1, w2 in place
    assert loss.dtype == np.float32 and w1.dtype == w2.dtype == np.float32
    assert_matches(loss, w1, w2, steps)


MODES = {"eager": lambda f: f, "graph": tt.function, "xla": lambda f: tt.function(f, jit_compile=True)}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("steps", [1, 2])
def test_tinytf_step(mode, steps):
    x, y, w1, w2 = mlp_step.data()
    v1, v2 = tt.Variable(w1), tt.Variable(w2)
    step = MODES[mode](mlp_step.tinytf_step(v1, v2))
    tx, ty = tt.constant(x), tt.constant(y)
    for _ in range(steps):
        loss = step(tx, ty)
    assert loss.shape == () and v1.dtype == tt.float32
    assert_matches(loss.numpy(), v1.numpy(), v2.numpy(), steps)


@pytest.mark.parametrize("steps", [1, 2])
def test_jax_step(steps):
    import jax
    x, y, w1, w2 = mlp_step.data()
    jitted = mlp_step.jax_step()
    a, b = jax.device_put(w1), jax.device_put(w2)
    for _ in range(steps):
        loss, a, b = jitted(a, b, x, y)
    assert_matches(loss, a, b, steps)


def test_prepared_step_refuses_a_wrong_step():
    x, y, *_ = mlp_step.data()
    tx, ty = tt.constant(x), tt.constant(y)

    def wrong(v1, v2):  # forgets to update w2
        def step(x, y):
            with tt.GradientTape() as tape:
                d = tt.matmul(tt.tanh(tt.matmul(x, v1)), v2) - y
                loss = tt.reduce_mean(d * d)
            v1.assign_sub(mlp_step.LR * tape.gradient(loss, v1))
            return loss
        return step

    with pytest.raises(AssertionError, match="w2 differs"):
        mlp_step.prepared("wrong", tt.Variable, wrong, tt.function, (tx, ty))
    call = mlp_step.prepared("right", tt.Variable, mlp_step.tinytf_step, tt.function, (tx, ty))
    np.testing.assert_allclose(call().numpy(), reference(1)[0][0], rtol=1e-5)  # its own fresh weights


def test_verdicts_and_rows():
    fwd = {"numpy": 100.0, "tinytf eager": 150.0, "tinytf graph": 120.0, "tensorflow tf.function": 200.0}
    step = {"numpy step": 240.0, "tinytf eager": 900.0, "tinytf graph": 290.0, "tensorflow tf.function": 610.0,
            "tinytf XLA (jit_compile)": 300.0, "jax.jit (hand-written)": 260.0}
    lines = mlp_step.verdicts(fwd, step)
    assert "forward: tinytf graph vs tf.function: 1.67x faster (target: faster): meets" in lines
    assert "step: tinytf graph takes 0.48 of tf.function's time (target < 0.5): meets" in lines
    assert "step: tinytf graph over the numpy floor: +50.0 µs (1.21x)" in lines
    assert "step: tinytf XLA vs jax.jit: 1.15x its time (target <= 1.2): meets" in lines
    rows = {r.case: r for r in mlp_step.rows_for("threads=1", fwd, step, "wall time")}
    graph = rows["MLP training step, tinytf graph, threads=1"]
    assert graph.tinytf == 290.0 and graph.peers == {"numpy": 240.0, "tensorflow": 610.0}
    assert graph.ratio == pytest.approx(290 / 610) and graph.verdict is True
    xla = rows["MLP training step, tinytf XLA, threads=1"]
    assert xla.reference == "jax" and xla.verdict is True
    assert rows["MLP training step, tinytf eager, threads=1"].peers["tensorflow"] == "missing"
    step["tinytf graph"] = 306.0  # 0.502 of tf.function: not under half
    assert {r.case: r for r in mlp_step.rows_for("t", fwd, step, "")}["MLP training step, tinytf graph, t"].verdict \
        is False
