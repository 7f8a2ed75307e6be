"""tt.linalg's norms (norm, normalize, global_norm, tt.clip_by_global_norm), matrix functions (expm, sqrtm,
lstsq: tf.MatrixExponential, tf.MatrixSquareRoot, tf.MatrixSolveLs) and banded solves: values against
TensorFlow 2.21's (tests/fixtures/linalg/tf_linalg.npz, recorded by tests/conformance/export_signal_fixtures.py)
and numpy / scipy, in eager, graph and XLA; gradients against TensorFlow's and through its checker."""
from __future__ import annotations

from pathlib import Path

import conformance_modules
import numpy as np
import pytest
import scipy.linalg

import tinytf as tt
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

TESTS = Path(__file__).resolve().parents[1]
TF = np.load(TESTS / "fixtures" / "linalg" / "tf_linalg.npz")
CASES = conformance_modules.load("export_signal_fixtures")
V = CASES.linalg_inputs()
la = tt.linalg
TOL = 1e-12   # float64 throughout: TensorFlow's and tinytf's LAPACK / Padé results agree to round-off


def modes(fn):
    return [fn, tt.function(fn), tt.function(fn, jit_compile=True)]


def check(got, name, tol=TOL):
    want = TF[name]
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    assert got.shape == want.shape and got.dtype == want.dtype, (name, got.shape, want.shape, got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=name)


@pytest.mark.parametrize("name", sorted(CASES.NORM_CASES))
def test_norms_are_tensorflows_in_every_mode(name):
    ord, axis, keepdims = CASES.NORM_CASES[name]
    for f in modes(lambda x: la.norm(x, ord=ord, axis=axis, keepdims=keepdims)):
        check(f(tt.constant(V["x"])), name)
    # and numpy's (its 'fro' is TensorFlow's 'euclidean' over two axes; over all elements a flat vector)
    x = V["x"].reshape(-1) if axis is None else V["x"]
    want = np.linalg.norm(x, ord=2 if ord == "euclidean" else ord, axis=0 if axis is None else axis, keepdims=keepdims)
    np.testing.assert_allclose(np.reshape(la.norm(tt.constant(V["x"]), ord=ord, axis=axis, keepdims=keepdims).numpy(),
                                          np.shape(TF[name])), np.reshape(want, np.shape(TF[name])), rtol=TOL)


def test_normalize_global_norm_and_clipping_are_tensorflows():
    unit, length = la.normalize(tt.constant(V["x"]), ord=1, axis=-1)
    check(unit, "normalize")
    check(length, "normalize_norm")
    for f in modes(lambda x, a: la.global_norm([x, a, None])):
        check(f(tt.constant(V["x"]), tt.constant(V["a"])), "global_norm")
    clipped, total = tt.clip_by_global_norm([tt.constant(V["x"]), tt.constant(V["a"])], 2.0)
    check(total, "clip_global_norm")
    check(clipped[0], "clip_x")
    check(clipped[1], "clip_a")
    small, _ = tt.clip_by_global_norm([tt.constant(V["a"])], 1e6)    # under the limit: unchanged
    np.testing.assert_allclose(small[0].numpy(), V["a"], rtol=1e-15)
    with np.errstate(invalid="ignore"):   # inf - inf: TensorFlow's NaN for a non-finite norm
        nan, _ = tt.clip_by_global_norm([tt.constant([1.0, np.inf])], 1.0)
    assert np.isnan(nan[0].numpy()).all()


def test_norm_errors_are_tensorflows():
    x = tt.constant(V["x"])
    with pytest.raises(InvalidArgumentError, match="supported matrix norm"):
        la.norm(x, ord=3, axis=(0, 1))
    with pytest.raises(InvalidArgumentError, match="supported vector norm"):
        la.norm(x, ord=-1, axis=0)
    with pytest.raises(InvalidArgumentError, match="tuple of 2 unique integers"):
        la.norm(x, axis=(1, 1))
    with pytest.raises(InvalidArgumentError, match="sequence of tensors"):
        la.global_norm(x)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_norm_gradients_through_tensorflows_checker(use_function):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4))
    for ord, axis in (("euclidean", None), (1, -1), (np.inf, 0), (3.0, 1), (2, (0, 1)), (1, (0, 1)), ("fro", (1, 0))):
        report = compare_numerical_and_autodiff_gradients(lambda a, ord=ord, axis=axis: tt.reduce_sum(la.norm(a, ord=ord, axis=axis) * 1.5),
                                                          [tt.constant(x)], use_function=use_function, abs_error=1e-6)
        assert all(r.checked for r in report.inputs), (ord, axis)


def test_matrix_functions_are_tensorflows_and_scipys_in_every_mode():
    for f in modes(la.expm):
        check(f(tt.constant(V["a"])), "expm")
    for f in modes(la.sqrtm):
        check(f(tt.constant(V["spd"])), "sqrtm")
    np.testing.assert_allclose(la.expm(tt.constant(V["a"])).numpy(), scipy.linalg.expm(V["a"]), rtol=TOL)
    root = la.sqrtm(tt.constant(V["spd"])).numpy()
    np.testing.assert_allclose(root @ root, V["spd"], rtol=1e-10)
    assert la.expm(tt.constant(V["a"].astype(np.float32))).dtype == tt.float32


def test_lstsq_is_tensorflows_in_every_mode():
    cases = {"lstsq_tall": ("tall", "b_tall", 0.0, True), "lstsq_tall_l2": ("tall", "b_tall", 0.5, True),
             "lstsq_wide": ("wide", "b_wide", 0.0, True), "lstsq_tall_slow": ("tall", "b_tall", 0.0, False)}
    for name, (a, b, lam, fast) in cases.items():
        for f in modes(lambda p, q, lam=lam, fast=fast: la.lstsq(p, q, l2_regularizer=lam, fast=fast)):
            check(f(tt.constant(V[a]), tt.constant(V[b])), name, tol=1e-10)
    want = np.stack([np.linalg.lstsq(m, r, rcond=None)[0] for m, r in zip(V["tall"], V["b_tall"])])
    np.testing.assert_allclose(la.lstsq(tt.constant(V["tall"]), tt.constant(V["b_tall"])).numpy(), want, rtol=1e-10)
    assert "tf.MatrixSolveLs" in tt.function(la.lstsq).get_concrete_function(
        tt.TensorSpec([5, 3], tt.float32), tt.TensorSpec([5, 2], tt.float32)).mlir()


def test_banded_systems_are_tensorflows_in_every_mode():
    for f in modes(la.tridiagonal_solve):
        check(f(tt.constant(V["diagonals"]), tt.constant(V["rhs"])), "tridiagonal_solve", tol=1e-10)
    for f in modes(la.tridiagonal_matmul):
        check(f(tt.constant(V["diagonals"]), tt.constant(V["rhs"])), "tridiagonal_matmul")
    for f in modes(la.banded_triangular_solve):
        check(f(tt.constant(V["bands"]), tt.constant(V["rhs"])), "banded_lower", tol=1e-10)
    check(la.banded_triangular_solve(tt.constant(V["upper_bands"]), tt.constant(V["rhs"]), lower=False, adjoint=True),
          "banded_upper_adjoint", tol=1e-10)
    # the other formats give the same matrix
    d = V["diagonals"]
    sequence = la.tridiagonal_solve((tt.constant(d[:, 0]), tt.constant(d[:, 1]), tt.constant(d[:, 2])),
                                    tt.constant(V["rhs"]), diagonals_format="sequence")
    check(sequence, "tridiagonal_solve", tol=1e-10)
    dense = np.stack([np.diag(m[1]) + np.diag(m[0, :-1], 1) + np.diag(m[2, 1:], -1) for m in d])
    check(la.tridiagonal_solve(tt.constant(dense), tt.constant(V["rhs"]), diagonals_format="matrix"),
          "tridiagonal_solve", tol=1e-10)


@pytest.mark.parametrize("name,inputs,weight", [
    ("expm", ["a"], "w3"), ("sqrtm", ["spd"], "w3"), ("lstsq_tall_l2", ["tall", "b_tall"], "w2"),
    ("lstsq_wide", ["wide", "b_wide"], "b_tall"), ("tridiagonal_solve", ["diagonals", "rhs"], "rhs")])
def test_gradients_are_tensorflows(name, inputs, weight):
    fn = {"expm": la.expm, "sqrtm": la.sqrtm, "lstsq_tall_l2": lambda p, q: la.lstsq(p, q, l2_regularizer=0.5),
          "lstsq_wide": la.lstsq, "tridiagonal_solve": la.tridiagonal_solve}[name]
    tensors = [tt.constant(V[k]) for k in inputs]

    def grads(*xs):
        with tt.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            loss = tt.reduce_sum(fn(*xs) * V[weight])
        return tape.gradient(loss, list(xs))

    for mode in (grads, tt.function(grads)):
        for k, g in zip(inputs, mode(*tensors)):
            # TensorFlow's tridiagonal gradient leaves the ignored corners (super[-1], sub[0]) at zero, as ours
            check(g, f"grad_{name}_{k}", tol=1e-9)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_matrix_function_gradients_through_tensorflows_checker(use_function):
    rng = np.random.default_rng(9)
    w = rng.standard_normal((3, 3))
    a = rng.standard_normal((3, 3)) * 0.4
    cases = [(lambda x: tt.reduce_sum(la.expm(x) * w), [a]),
             (lambda x: tt.reduce_sum(la.sqrtm(x) * w), [a @ a.T + np.eye(3)]),
             (lambda x, y: tt.reduce_sum(la.lstsq(x, y, l2_regularizer=0.1) * w[:2, :2]), [rng.standard_normal((4, 2)),
                                                                                           rng.standard_normal((4, 2))]),
             (lambda x, y: tt.reduce_sum(la.banded_triangular_solve(x, y) * w), [rng.standard_normal((2, 3)) + [[3], [0]],
                                                                                 rng.standard_normal((3, 3))]),
             (lambda x, y: tt.reduce_sum(la.tridiagonal_matmul(x, y) * w), [rng.standard_normal((3, 3)),
                                                                            rng.standard_normal((3, 3))])]
    for model, inputs in cases:
        report = compare_numerical_and_autodiff_gradients(model, [tt.constant(x) for x in inputs],
                                                          use_function=use_function, abs_error=1e-6)
        assert all(r.checked for r in report.inputs)


def test_matrix_function_errors():
    with pytest.raises(InvalidArgumentError, match="square"):
        la.expm(tt.constant(np.ones((2, 3))))
    with pytest.raises(InvalidArgumentError, match="rank >= 2"):
        la.sqrtm(tt.constant(np.ones(3)))
    with pytest.raises(InvalidArgumentError, match="same rank and number of rows"):
        la.lstsq(tt.constant(np.ones((4, 2))), tt.constant(np.ones((3, 1))))
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        la.lstsq(tt.constant(np.zeros((4, 2))), tt.constant(np.ones((4, 1))))
    with pytest.raises(InvalidArgumentError, match="l2_regularizer must be 0"):
        la.lstsq(tt.constant(np.eye(3)), tt.constant(np.ones((3, 1))), l2_regularizer=0.5, fast=False)
    with pytest.raises(UnimplementedError, match="fast=False"):
        with tt.GradientTape() as tape:
            a = tt.constant(np.eye(3))
            tape.watch(a)
            y = tt.reduce_sum(la.lstsq(a, tt.constant(np.ones((3, 1))), fast=False))
        tape.gradient(y, a)
    with pytest.raises(InvalidArgumentError, match=r"\[\.\.\., 3, M\]"):
        la.tridiagonal_solve(tt.constant(np.ones((2, 4))), tt.constant(np.ones((4, 1))))
