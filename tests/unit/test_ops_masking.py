"""tf.Where (one argument) and tt.boolean_mask / x[mask]: values against numpy in eager, graph and XLA
modes (under XLA the mask becomes a compile-time constant), gradients, and bad input."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.0
MODES = ["eager", "graph", "xla"]


def run(fn, mode, *args):
    wrapped = fn if mode == "eager" else tt.function(fn, jit_compile=mode == "xla")
    return np.asarray(wrapped(*[tt.constant(a) for a in args]))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("condition", [X > 0, (X % 5).astype(np.int32), np.zeros((2, 3), bool), np.array(True),
                                       np.array([0, 1j, 2], np.complex64)])
def test_where_gives_the_coordinates_of_true_elements(mode, condition):
    got = run(tt.where, mode, condition)
    np.testing.assert_array_equal(got, np.argwhere(condition))
    assert got.dtype == np.int64 and got.shape == (np.count_nonzero(condition), condition.ndim)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("mask, axis, want", [
    (X > 3, None, X[X > 3]),
    ((X > 3)[:, :, 0], None, X[(X > 3)[:, :, 0]]),
    (np.array([True, False, True]), 1, X[:, [0, 2]]),
    (np.array([[False, True, True, False]] * 3), 1, X[:, np.array([[False, True, True, False]] * 3)]),
])
def test_boolean_mask_matches_numpy(mode, mask, axis, want):
    got = run(lambda t, m: tt.boolean_mask(t, m, axis=axis), mode, X, mask)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", MODES)
def test_indexing_with_a_mask_and_its_gradient(mode):
    mask = X % 3 == 0

    def f(t, m):
        with tt.GradientTape() as tape:
            tape.watch(t)
            y = tt.reduce_sum(t[m] ** 2)
        return y, tape.gradient(y, t)

    wrapped = f if mode == "eager" else tt.function(f, jit_compile=mode == "xla")
    y, dt = wrapped(tt.constant(X), tt.constant(mask))
    assert float(y) == float((X[mask] ** 2).sum())
    np.testing.assert_array_equal(dt.numpy(), np.where(mask, 2 * X, 0))


def test_bad_masks():
    with pytest.raises(InvalidArgumentError, match=r"mask shape \[3\] must match the tensor's dims 0..0"):
        tt.boolean_mask(tt.constant(X), [True, False, True])
    with pytest.raises(InvalidArgumentError, match="the mask must be bool, got int32"):
        tt.boolean_mask(tt.constant(X), tt.constant(np.ones(2, np.int32)))
    with pytest.raises(InvalidArgumentError, match="give both x and y, or neither"):
        tt.where(tt.constant(X > 0), tt.constant(X))
