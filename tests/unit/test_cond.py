"""tt.cond and tt.switch_case: the same code eagerly, traced into tf.If / tf.Case with private branch
functions, and under XLA; their gradients (first and second order, tensors and variables) in every
mode, checked against analytic values and TensorFlow's numerical checker. (Helpers shared with
test_while_loop.py and test_control_flow_variables.py.)"""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients

X = np.array([1.0, -2.0, 3.0], np.float32)
MODES = ["eager", "graph", "xla"]


def run(fn, mode, *args):
    wrapped = fn if mode == "eager" else tt.function(fn, jit_compile=mode == "xla")
    out = wrapped(*[tt.constant(a) for a in args])
    return [np.asarray(o) for o in out] if isinstance(out, (list, tuple)) else np.asarray(out)


def piecewise(x):
    return tt.cond(tt.reduce_sum(x) > 0.0, lambda: x * x, lambda: tt.sin(x) * 3.0)


# --- tt.cond -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_takes_the_branch_the_predicate_picks(mode, sign):
    x = X * sign
    want = x * x if x.sum() > 0 else np.sin(x) * 3.0
    np.testing.assert_allclose(run(piecewise, mode, x), want, rtol=1e-6)


def test_traced_cond_is_an_if_calling_private_branch_functions():
    cf = tt.function(piecewise).get_concrete_function(tt.TensorSpec([3], tt.float32))
    text = cf.mlir()
    (if_line,) = [line for line in text.splitlines() if '"tf.If"' in line]
    assert "is_stateless = true" in if_line and "(tensor<i1>, tensor<3xf32>) -> tensor<3xf32>" in if_line
    assert text.count("func.func private @cond_true_") == 1 and text.count("func.func private @cond_false_") == 1
    # what tinytf prints, it reads back and runs to the same values
    loaded = tt.load_mlir(mlir.print(mlir.parse(text)))
    for x in (X, -X):
        np.testing.assert_allclose(loaded.run(x)[0], np.asarray(piecewise(tt.constant(x))), rtol=1e-6)


def test_branches_capture_tensors_and_variables_and_take_the_same_arguments():
    w = tt.Variable(np.array([0.5, -1.0, 2.0], np.float32))

    def f(x, y):
        return tt.cond(x[0] > 0.0, lambda: x * w, lambda: y - 1.0)

    text = tt.function(f).get_concrete_function(tt.constant(X), tt.constant(X)).mlir()
    true_head = next(line for line in text.splitlines() if "@cond_true_" in line and "func.func" in line)
    false_head = next(line for line in text.splitlines() if "@cond_false_" in line and "func.func" in line)
    assert true_head.split("(", 1)[1] == false_head.split("(", 1)[1]  # one signature: x, w's value, y
    # w is only read: the caller reads it before the If and passes the value (its gradient replays that value)
    assert "resource" not in true_head and text.index('"tf.ReadVariableOp"') < text.index('"tf.If"')
    for mode in MODES:
        np.testing.assert_allclose(run(f, mode, X, X), X * np.asarray(w.numpy()))
        np.testing.assert_allclose(run(f, mode, -X, X), X - 1.0)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_branches_run_for_their_effects_return_none(mode):
    v = tt.Variable(np.float32(0.0))

    def bump():
        v.assign_add(1.0)

    def f(p):
        out = tt.cond(p, bump, lambda: None)
        return out is None, v.read_value()

    wrapped = f if mode == "eager" else tt.function(f)
    is_none, value = wrapped(tt.constant(True))
    assert is_none and float(value) == 1.0


def test_a_python_predicate_traces_only_its_branch():
    def f(x):
        return tt.cond(True, lambda: x + 1.0, lambda: x - 1.0)

    text = tt.function(f).get_concrete_function(tt.constant(X)).mlir()
    assert "tf.If" not in text and "tf.AddV2" in text and "tf.Sub" not in text


@pytest.mark.parametrize("mode", MODES)
def test_nested_cond_with_structured_outputs(mode):
    def f(x):
        def outer_true():
            inner = tt.cond(x[1] > 0.0, lambda: {"a": x, "b": x * 2.0}, lambda: {"a": -x, "b": x * 3.0})
            return inner["a"] + 1.0, inner["b"]
        return tt.cond(x[0] > 0.0, outer_true, lambda: (x, x))

    for x, want in ((X, (-X + 1.0, X * 3.0)), (-X, (-X, -X)), (np.abs(X), (np.abs(X) + 1.0, np.abs(X) * 2.0))):
        got = run(f, mode, x)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_a_branch_that_updates_a_variable_runs_only_when_taken(mode):
    v = tt.Variable(np.float32(1.0))

    def step(p):
        tt.cond(p, lambda: v.assign_add(2.0), lambda: v.assign_sub(1.0))
        return v.read_value()

    assert float(run(step, mode, np.bool_(True))) == 3.0
    assert float(run(step, mode, np.bool_(False))) == 2.0
    assert float(v.numpy()) == 2.0


# --- tt.switch_case ----------------------------------------------------------------------------

def three_way(k, x):
    return tt.switch_case(k, [lambda: x * x, lambda: tt.sin(x), lambda: x * 3.0])


@pytest.mark.parametrize("mode", MODES)
def test_switch_case_picks_a_branch_and_the_last_for_an_index_out_of_range(mode):
    for k, want in ((0, X * X), (1, np.sin(X)), (2, X * 3.0), (7, X * 3.0), (-1, X * 3.0)):
        np.testing.assert_allclose(run(three_way, mode, np.int32(k), X), want, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_switch_case_gradient_is_the_taken_branch_gradient(mode):
    def grad(k, x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.reduce_sum(three_way(k, x))
        return tape.gradient(y, x)

    for k, want in ((0, 2 * X), (1, np.cos(X)), (5, np.full(3, 3.0))):
        np.testing.assert_allclose(run(grad, mode, np.int32(k), X), want, rtol=1e-5)


def test_traced_switch_case_is_a_case_and_a_default_is_the_last_branch():
    def f(k, x):
        return tt.switch_case(k, {0: lambda: x + 1.0, 1: lambda: x - 1.0}, default=lambda: x * 0.0)

    text = tt.function(f).get_concrete_function(tt.constant(np.int32(0)), tt.constant(X)).mlir()
    assert '"tf.Case"' in text and text.count("func.func private @case_branch") == 3
    np.testing.assert_allclose(run(f, "graph", np.int32(9), X), np.zeros(3))
    np.testing.assert_allclose(run(f, "eager", np.int32(1), X), X - 1.0)


def test_switch_case_bad_input():
    with pytest.raises(InvalidArgumentError, match="branch_index must be a scalar int32, got float32"):
        tt.function(lambda x: tt.switch_case(x[0], [lambda: x]))(tt.constant(X))
    with pytest.raises(InvalidArgumentError, match="branch 0 and branch 1 must return the same structure"):
        tt.function(lambda k, x: tt.switch_case(k, [lambda: x, lambda: (x, x)]))(tt.constant(np.int32(0)),
                                                                                   tt.constant(X))
    with pytest.raises(ValueError, match="keys must be 0..1"):
        tt.switch_case(0, {0: lambda: 1, 2: lambda: 2})


# --- gradients through tt.cond -----------------------------------------------------------------

def grad_of_piecewise(x):
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = tt.reduce_sum(piecewise(x))
    return tape.gradient(y, x)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_gradient_is_the_taken_branch_gradient(mode, sign):
    x = X * sign
    want = 2 * x if x.sum() > 0 else 3.0 * np.cos(x)
    np.testing.assert_allclose(run(grad_of_piecewise, mode, x), want, rtol=1e-5)


def test_traced_cond_gradient_is_an_if_of_gradient_branches():
    text = tt.function(grad_of_piecewise).get_concrete_function(tt.constant(X)).mlir()
    assert text.count('"tf.If"') == 2
    assert "@cond_true_" in text and "_grad_" in text and '"tf.Cos"' in text


@pytest.mark.parametrize("mode", MODES)
def test_second_derivative_through_cond(mode):
    def d2(x):
        with tt.GradientTape() as outer:
            outer.watch(x)
            with tt.GradientTape() as inner:
                inner.watch(x)
                y = tt.cond(x > 0.0, lambda: x * x * x, lambda: tt.sin(x))
            dy = inner.gradient(y, x)
        return dy, outer.gradient(dy, x)

    for x, want in ((2.0, (12.0, 12.0)), (-1.0, (np.cos(-1.0), -np.sin(-1.0)))):
        got = run(d2, mode, np.float32(x))
        np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_variable_gradients_through_nested_cond(mode):
    w = tt.Variable(np.array([0.5, -1.0, 2.0], np.float32))
    b = tt.Variable(np.float32(0.25))

    def loss(x, flag):
        with tt.GradientTape() as tape:
            y = tt.cond(flag, lambda: tt.reduce_sum(x * w) + b,
                        lambda: tt.cond(tt.reduce_sum(x) > 100.0, lambda: b * b,
                                        lambda: tt.reduce_sum(tt.tanh(w)) * b))
        return [y, *tape.gradient(y, [w, b])]

    wv, bv = np.asarray(w.numpy()), float(b.numpy())
    y, dw, db = run(loss, mode, X, np.bool_(True))
    np.testing.assert_allclose([y, *dw, db], [(X * wv).sum() + bv, *X, 1.0], rtol=1e-5)
    y, dw, db = run(loss, mode, X, np.bool_(False))
    t = np.tanh(wv)
    np.testing.assert_allclose([y, *dw, db], [t.sum() * bv, *((1 - t * t) * bv), t.sum()], rtol=1e-5)


@pytest.mark.parametrize("use_function", [False, True])
def test_tensorflow_checker_agrees_through_cond(use_function):
    def model(x, y):
        return tt.cond(tt.reduce_sum(x) > 0.0, lambda: tt.exp(x) * y, lambda: x * y * y)

    rng = np.random.default_rng(0)
    for x in (rng.uniform(0.5, 1.0, 4), -rng.uniform(0.5, 1.0, 4)):
        compare_numerical_and_autodiff_gradients(model, [x, rng.uniform(-1, 1, 4)], use_function, abs_error=1e-6)
