"""Gradients through tt.cond and tt.while_loop give TensorFlow's numbers: the model of
export_fixtures.ref_control_flow_gradients written with tinytf, in eager, graph and XLA modes, against
TensorFlow 2.21's values (tf.function, both branches, 0, 3 and 7 loop steps). Tolerance as the other
conformance tests: rtol 1e-5, atol 1e-6."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinytf as tt

REFERENCE = np.load(Path(__file__).parent / "fixtures" / "control_flow_gradients.npz")


def model(x, w, steps):
    with tt.GradientTape() as tape:
        tape.watch([x, w])
        h = tt.cond(tt.reduce_sum(x) > 0, lambda: tt.tanh(x) * 2.0, lambda: x * x)
        _, h = tt.while_loop(lambda i, h: i < steps, lambda i, h: (i + 1, tt.tanh(tt.linalg.matvec(w, h) + x)), (0, h))
        loss = tt.reduce_sum(h * h)
    dx, dw = tape.gradient(loss, [x, w], unconnected_gradients="zero")  # eagerly, 0 steps leave w unused
    return loss, dx, dw


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("branch", ["pos", "neg"])
@pytest.mark.parametrize("steps", [0, 3, 7])
def test_gradients_through_cond_and_while_match_tensorflow(mode, branch, steps):
    run = model if mode == "eager" else tt.function(model, jit_compile=mode == "xla")
    x, w = tt.constant(REFERENCE[f"x_{branch}"]), tt.constant(REFERENCE["w"])
    for key, got in zip(("loss", "dx", "dw"), run(x, w, tt.constant(np.int32(steps)))):
        np.testing.assert_allclose(got.numpy(), REFERENCE[f"{key}_{branch}_{steps}"], rtol=1e-5, atol=1e-6,
                                   err_msg=f"{key}, {mode}, sum(x) {branch}, {steps} steps")
