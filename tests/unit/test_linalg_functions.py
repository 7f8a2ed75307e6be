"""tt.linalg.matvec and tt.tensordot, written with MatMul / Einsum: values against numpy in eager, graph
and XLA modes, gradients against TensorFlow's numerical checker, and bad axes."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

RNG = np.random.default_rng(4)
A = RNG.standard_normal((2, 3, 4)).astype(np.float32)
B = RNG.standard_normal((4, 3, 5)).astype(np.float32)


def modes(fn):
    return [fn, tt.function(fn), tt.function(fn, jit_compile=True)]


@pytest.mark.parametrize("axes", [1, 0, [[1, 2], [1, 0]], ([2], [0]), [[-1], [0]]])
def test_tensordot_matches_numpy(axes):
    want = np.tensordot(A, B, axes=axes if not isinstance(axes, list) else tuple(axes))
    for f in modes(lambda a, b: tt.tensordot(a, b, axes)):
        np.testing.assert_allclose(f(tt.constant(A), tt.constant(B)).numpy(), want, rtol=1e-5, atol=1e-5)


def test_matvec_matches_numpy_batched_and_transposed():
    m, v = RNG.standard_normal((2, 3, 4)).astype(np.float32), RNG.standard_normal((2, 4)).astype(np.float32)
    for f in modes(lambda m, v: tt.linalg.matvec(m, v)):
        np.testing.assert_allclose(f(tt.constant(m), tt.constant(v)).numpy(), np.einsum("bij,bj->bi", m, v), rtol=1e-5)
    w = RNG.standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(tt.linalg.matvec(tt.constant(m[0]), tt.constant(w), transpose_a=True).numpy(),
                               m[0].T @ w, rtol=1e-5)


@pytest.mark.parametrize("use_function", [False, True])
def test_gradients_match_tensorflows_checker(use_function):
    a, b = A.astype(np.float64)[:, :, :2], B.astype(np.float64)[:2, :, :3]
    compare_numerical_and_autodiff_gradients(lambda x, y: tt.tensordot(x, y, [[1, 2], [1, 0]]), [a, b],
                                             use_function, abs_error=1e-6)
    compare_numerical_and_autodiff_gradients(lambda m, v: tt.linalg.matvec(m, v), [a[0], b[:, 0, 0]], use_function,
                                             abs_error=1e-6)


def test_bad_axes():
    with pytest.raises(InvalidArgumentError, match=r"axes 4 must be in \[0, 3\]"):
        tt.tensordot(tt.constant(A), tt.constant(B), 4)
    with pytest.raises(InvalidArgumentError, match="2 axes of a but 1 of b"):
        tt.tensordot(tt.constant(A), tt.constant(B), [[1, 2], [0]])
