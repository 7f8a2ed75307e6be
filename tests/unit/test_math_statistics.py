"""tt.math's statistics reductions (reduce_logsumexp, reduce_variance, reduce_std, reduce_euclidean_norm:
tf.EuclideanNorm, count_nonzero, is_non_decreasing, is_strictly_increasing), counting (bincount:
tf.DenseBincount, confusion_matrix), polyval and accumulate_n: values against TensorFlow 2.21's
(tests/fixtures/math/tf_math.npz, recorded by tests/conformance/export_signal_fixtures.py) and numpy /
scipy, in eager, graph and XLA; gradients against TensorFlow's and through its checker; TF's errors."""
from __future__ import annotations

from pathlib import Path

import conformance_modules
import numpy as np
import pytest
import scipy.special

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

TESTS = Path(__file__).resolve().parents[1]
TF = np.load(TESTS / "fixtures" / "math" / "tf_math.npz")
CASES = conformance_modules.load("export_signal_fixtures")
V = CASES.math_inputs()
m = tt.math


def modes(fn, xla=True):
    return [fn, tt.function(fn)] + ([tt.function(fn, jit_compile=True)] if xla else [])


def check(got, name, tol=1e-12):
    want = TF[name]
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    assert got.shape == want.shape and got.dtype == want.dtype, (name, got.shape, want.shape, got.dtype, want.dtype)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)


REDUCTIONS = {  # name: (function of the inputs, numpy / scipy reference or None)
    "logsumexp_1": (lambda: m.reduce_logsumexp(tt.constant(V["x"]), axis=1), scipy.special.logsumexp(V["x"], axis=1)),
    "logsumexp_all_keep": (lambda: m.reduce_logsumexp(tt.constant(V["x"]), keepdims=True),
                           scipy.special.logsumexp(V["x"], keepdims=True)),
    "variance_0": (lambda: m.reduce_variance(tt.constant(V["x"]), axis=0), np.var(V["x"], axis=0)),
    "std_all": (lambda: m.reduce_std(tt.constant(V["x"])), np.std(V["x"])),
    "variance_complex": (lambda: m.reduce_variance(tt.constant(V["z"]), axis=1), np.var(V["z"], axis=1)),
    "euclidean_1": (lambda: m.reduce_euclidean_norm(tt.constant(V["x"]), axis=1), np.linalg.norm(V["x"], axis=1)),
    "euclidean_ints": (lambda: m.reduce_euclidean_norm(tt.constant(V["ints"]), axis=0, keepdims=True), None),
    "euclidean_complex": (lambda: m.reduce_euclidean_norm(tt.constant(V["z"])), None),
    "count_nonzero_0": (lambda: m.count_nonzero(tt.constant(V["ints"]), axis=0), np.count_nonzero(V["ints"], axis=0)),
    "polyval": (lambda: m.polyval(V["coeffs"], tt.constant(V["x"])), np.polyval(V["coeffs"], V["x"])),
    "accumulate_n": (lambda: m.accumulate_n([tt.constant(V["x"]), tt.constant(V["x"] * 2.0), tt.constant(V["x"] * 3.0)]),
                     V["x"] * 6.0),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_values_are_tensorflows_and_numpys_in_every_mode(name):
    fn, reference = REDUCTIONS[name]
    for f in modes(fn):
        check(f(), name)
    if reference is not None:
        np.testing.assert_allclose(fn().numpy(), reference, rtol=1e-12)


def test_logsumexp_of_infinities_and_large_values_is_tensorflows():
    x = tt.constant([[-np.inf, -np.inf], [np.inf, 1.0], [1000.0, 1000.0]])
    with np.errstate(divide="ignore"):
        for f in modes(lambda v: m.reduce_logsumexp(v, axis=1)):
            check(f(x), "logsumexp_inf")


def test_strings_and_monotonic_checks_are_tensorflows():
    check(m.count_nonzero(tt.constant(["", "a", "", "bc"])), "count_nonzero_strings")
    got = np.array([m.is_non_decreasing([1, 1, 2]).numpy(), m.is_strictly_increasing([1, 1, 2]).numpy(),
                    m.is_strictly_increasing([3]).numpy(), m.is_non_decreasing([[1, 2], [0, 3]]).numpy()])
    np.testing.assert_array_equal(got, TF["monotonic"])
    for f in modes(m.is_strictly_increasing):
        assert bool(f(tt.constant([0.5, 1.0, 2.0])).numpy()) and not bool(f(tt.constant([0.5, 0.5])).numpy())


def test_bincount_is_tensorflows():
    arr = tt.constant(V["arr"])
    check(m.bincount(arr), "bincount")
    check(m.bincount(arr, weights=V["w"], minlength=10), "bincount_weights_min", tol=1e-6)
    check(m.bincount(arr, maxlength=4, binary_output=True), "bincount_max_binary")
    check(m.bincount(tt.constant(V["rows"]), axis=-1, dtype=tt.float32), "bincount_rows")
    np.testing.assert_array_equal(m.bincount(arr).numpy(), np.bincount(V["arr"]))
    # in a graph the size is data (max + 1); pinned by minlength = maxlength it is static, as XLA needs
    check(tt.function(m.bincount)(arr), "bincount")
    pinned = np.bincount(V["arr"], minlength=10)[:10].astype(np.int32)
    for f in modes(lambda a: m.bincount(a, minlength=10, maxlength=10)):
        np.testing.assert_array_equal(f(arr).numpy(), pinned)


def test_confusion_matrix_is_tensorflows():
    for f in modes(lambda: m.confusion_matrix(V["labels"], V["predictions"])):
        check(f(), "confusion")
    check(m.confusion_matrix(V["labels"], V["predictions"], num_classes=5, weights=np.linspace(0.5, 3.0, 6),
                             dtype=tt.float64), "confusion_weighted")


def test_errors_are_tensorflows():
    with pytest.raises(InvalidArgumentError, match="non-negative"):
        m.bincount(tt.constant([1, -1, 2]))
    with pytest.raises(InvalidArgumentError, match="mutually exclusive"):
        m.bincount([1, 2], weights=[1.0, 1.0], binary_output=True)
    with pytest.raises(InvalidArgumentError, match="negative values"):
        m.confusion_matrix([0, -1], [0, 1])
    with pytest.raises(InvalidArgumentError, match="out of bound"):
        m.confusion_matrix([0, 3], [0, 1], num_classes=3)
    with pytest.raises(InvalidArgumentError, match="real or complex"):
        m.reduce_variance(tt.constant([1, 2, 3]))
    with pytest.raises(InvalidArgumentError, match="same shape and dtype"):
        m.accumulate_n([tt.constant([1.0]), tt.constant([1.0, 2.0])])
    with pytest.raises(InvalidArgumentError, match="Invalid reduction dimension"):
        m.reduce_euclidean_norm(tt.constant([1.0, 2.0]), axis=3)


@pytest.mark.parametrize("name", ["logsumexp", "std", "euclidean"])
def test_gradients_are_tensorflows(name):
    fn = {"logsumexp": lambda t: m.reduce_logsumexp(t, axis=1), "std": lambda t: m.reduce_std(t, axis=0),
          "euclidean": lambda t: m.reduce_euclidean_norm(t, axis=1, keepdims=True)}[name]

    def grad(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
            weight = V["g"].reshape(-1)[:int(np.prod(tuple(y.shape)))].reshape(tuple(y.shape))
            loss = tt.reduce_sum(y * weight)
        return tape.gradient(loss, x)

    for f in (grad, tt.function(grad)):
        check(f(tt.constant(V["x"])), f"grad_{name}")


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_gradients_through_tensorflows_checker(use_function):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4))
    w = rng.standard_normal(4)
    for model in (lambda a: tt.reduce_sum(m.reduce_logsumexp(a, axis=0) * w),
                  lambda a: tt.reduce_sum(m.reduce_variance(a, axis=0) * w),
                  lambda a: m.reduce_std(a),
                  lambda a: tt.reduce_sum(m.reduce_euclidean_norm(a, axis=0) * w),
                  lambda a: tt.reduce_sum(m.polyval([a[0], 2.0, a[1]], a[2]) * w)):
        report = compare_numerical_and_autodiff_gradients(model, [tt.constant(x)], use_function=use_function,
                                                          abs_error=1e-6)
        assert all(r.checked for r in report.inputs)
