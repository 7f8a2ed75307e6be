"""tt.cond and tt.while_loop: the same code eagerly, traced into tf.If / tf.While with private branch
functions, and under XLA; tt.cond's gradients (first and second order, tensors and variables) in
every mode, checked against analytic values and TensorFlow's numerical checker."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError, UnimplementedError
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


# --- tt.while_loop -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_while_loop_counts_and_captures(mode):
    def f(x, n):
        return tt.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * x + 1.0), [0, tt.ones_like(x)])

    i, acc = run(f, mode, X, np.int32(4))
    want = np.ones(3, np.float32)
    for _ in range(4):
        want = want * X + 1.0
    assert i == 4 and i.dtype == np.int32
    np.testing.assert_allclose(acc, want)


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_maximum_iterations_and_a_single_loop_variable(mode):
    def f(x):
        return tt.while_loop(lambda v: tt.reduce_sum(v) < 100.0, lambda v: v * 2.0, x, maximum_iterations=3)

    np.testing.assert_allclose(run(f, mode, X), X * 8.0)


def test_traced_while_loop_is_a_while_with_private_cond_and_body():
    def f(x, n):
        return tt.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tt.cond(v[0] > 0.0, lambda: v - 1.0,
                                                                                  lambda: v * 2.0)), [0, x])

    text = tt.function(f).get_concrete_function(tt.constant(X), tt.constant(np.int32(3))).mlir()
    assert '"tf.While"' in text and "@while_body_" in text and "@while_cond_" in text and '"tf.If"' in text
    want = X.copy()
    for _ in range(3):
        want = want - 1.0 if want[0] > 0 else want * 2.0
    for mode in MODES:
        i, v = run(f, mode, X, np.int32(3))
        np.testing.assert_allclose(v, want)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_while_loop_relaxes_a_shape_that_grows(mode):
    def f(x):
        return tt.while_loop(lambda v: tt.size(v) < 10, lambda v: tt.concat([v, v], 0), [x])[0]

    np.testing.assert_allclose(run(f, mode, X), np.tile(X, 4))
    if mode == "graph":
        text = tt.function(f).get_concrete_function(tt.constant(X)).mlir()
        assert "shape_invariant" in text and "tensor<?xf32>" in text


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_gradient_of_the_loop_variables(mode):
    def f(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.reduce_sum(tt.while_loop(lambda v: tt.reduce_sum(v) < 50.0, lambda v: v * v, [x])[0])
        return tape.gradient(y, x)

    x = np.array([1.5, 2.0], np.float32)  # 3 squarings: y = x^8, dy/dx = 8x^7
    np.testing.assert_allclose(run(f, mode, x), 8 * x ** 7, rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_while_loop_gradient_of_captured_tensors_and_variables(mode):
    w = tt.Variable(np.array([0.9, -0.5], np.float32))

    def f(x, h0, n):  # an RNN-like recurrence: h = tanh(h * w + x), n steps
        with tt.GradientTape() as tape:
            tape.watch([x, h0])
            _, h = tt.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, tt.tanh(h * w + x)), [0, h0])
            y = tt.reduce_sum(h * h)
        return tape.gradient(y, [x, h0, w], unconnected_gradients="zero")  # eagerly, 0 steps use no x, w

    x, h0, wv = np.array([0.3, -0.2], np.float32), np.array([0.1, 0.4], np.float32), np.asarray(w.numpy())

    def numpy_grads(n):  # reverse mode by hand, storing every state
        hs = [h0.astype(np.float64)]
        for _ in range(n):
            hs.append(np.tanh(hs[-1] * wv + x))
        dh, dx, dw = 2 * hs[-1], np.zeros(2), np.zeros(2)
        for k in range(n, 0, -1):
            da = dh * (1 - hs[k] ** 2)
            dx, dw, dh = dx + da, dw + da * hs[k - 1], da * wv
        return dx, dh, dw

    for n in (0, 1, 5):
        for got, want in zip(run(f, mode, x, h0, np.int32(n)), numpy_grads(n)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("use_function", [False, True])
def test_tensorflow_checker_agrees_through_while_loop(use_function):
    def model(x, y):
        return tt.while_loop(lambda v, s: tt.reduce_sum(s) < 10.0, lambda v, s: (v * y, s + v * v), [x, x])[1]

    rng = np.random.default_rng(1)
    compare_numerical_and_autodiff_gradients(model, [rng.uniform(0.5, 1.0, 3), rng.uniform(1.0, 1.2, 3)],
                                             use_function, abs_error=1e-6)


@pytest.mark.parametrize("bound", [None, 10])
@pytest.mark.parametrize("jit_compile", [False, True])
def test_traced_while_loop_gradient_stacks_states_or_recomputes_them(jit_compile, bound):
    def f(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.while_loop(lambda v: tt.reduce_sum(v) < 50.0, lambda v: v * v, x, maximum_iterations=bound)
        return tape.gradient(y, x)

    text = tt.function(f, jit_compile=jit_compile).get_concrete_function(tt.constant(X)).mlir()
    bodies = [text.split("func.func private @")[k] for k in range(1, text.count("func.func private @") + 1)]
    loops = [b for b in bodies if b.startswith("while_body_")]
    # forward, a recording loop stacking each state (growing by ConcatV2 in a graph, written into a
    # preallocated [bound, ...] stack by TensorScatterUpdate under XLA), a backward loop reading them
    # (GatherV2); XLA without a bound (static shapes, no stack): forward, backward, and inside the
    # backward body a loop recomputing each state
    stacked = bound is not None or not jit_compile
    assert len(loops) == 3
    assert any('"tf.ConcatV2"' in b for b in loops) == (not jit_compile)
    assert any('"tf.TensorScatterUpdate"' in b for b in loops) == (jit_compile and bound is not None)
    assert any('"tf.While"' in b for b in loops) == (not stacked)
    x = np.array([2.0, 1.5, 0.5], np.float32)  # sums 4, 6.5, 21.1, 281.6: 3 squarings, y = x^8
    np.testing.assert_allclose(np.asarray(tt.function(f, jit_compile=jit_compile)(tt.constant(x))), 8 * x ** 7,
                               rtol=1e-5)


@pytest.mark.parametrize("mode", MODES[:2])
def test_while_loop_gradient_when_the_shape_changes(mode):
    def f(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.reduce_sum(tt.while_loop(lambda v: tt.size(v) < 10, lambda v: tt.concat([v, v * 2.0], 0), x))
        return tape.gradient(y, x)

    np.testing.assert_allclose(run(f, mode, X), np.full(3, 9.0))  # sizes 3, 6, 12: each element counts (1 + 2) ** 2 times


def test_gradients_through_a_cond_in_a_loop_in_a_cond_agree_in_every_mode():
    w = tt.Variable(np.array([0.7, -0.4, 0.2], np.float32))

    def f(x, n):
        def loop():
            return tt.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, tt.cond(
                tt.reduce_sum(h) > 0, lambda: tt.tanh(h * w + x), lambda: h * 0.5 + w)), [0, x], maximum_iterations=10)[1]

        with tt.GradientTape() as tape:
            tape.watch(x)
            loss = tt.reduce_sum(tt.square(tt.cond(tt.reduce_sum(x) > -5.0, loop, lambda: x)))
        return [loss, *tape.gradient(loss, [x, w])]

    x = np.array([0.3, -0.9, 0.5], np.float32)  # sum(h): -0.1, 0.45, ...: both inner branches run
    eager = run(f, "eager", x, np.int32(4))
    for mode in ("graph", "xla"):
        for got, want in zip(run(f, mode, x, np.int32(4)), eager):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    # and eager is right: TensorFlow's checker on the same loop in float64
    w64 = tt.Variable(np.array([0.7, -0.4, 0.2]))

    def model(x):
        return tt.while_loop(lambda i, h: i < 4, lambda i, h: (i + 1, tt.cond(
            tt.reduce_sum(h) > 0, lambda: tt.tanh(h * w64 + x), lambda: h * 0.5 + w64)), [0, x])[1]

    compare_numerical_and_autodiff_gradients(model, [x.astype(np.float64)], use_function=True, abs_error=1e-7)


# --- reviewed corner cases ---------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_a_branch_may_return_an_enclosing_tensor_or_variable_as_it_is(mode):
    w = tt.Variable(np.array([1.5, -2.0, 0.5], np.float32))

    def f(a, b, p):
        return [tt.cond(p, lambda: a * 2.0, lambda: b), tt.cond(p, lambda: w, lambda: a),
                tt.cond(p, lambda: a, lambda: tt.zeros([3]))]

    for p in (True, False):
        got = run(f, mode, X, -X, np.bool_(p))
        want = [X * 2.0, np.asarray(w.numpy()), X] if p else [-X, X, np.zeros(3)]
        for g, v in zip(got, want):
            np.testing.assert_allclose(g, v)


@pytest.mark.parametrize("mode", MODES)
def test_a_gradient_uses_the_value_a_branch_read_not_a_later_one(mode):
    w = tt.Variable(np.array([1.0, 1.0], np.float32))

    def f(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.cond(tt.reduce_sum(x) > 0, lambda: x * x * w.read_value(), lambda: x)
            w.assign(tt.constant(np.array([5.0, 5.0], np.float32)))
            s = tt.reduce_sum(y)
        return tape.gradient(s, x)

    x = np.array([1.5, 2.0], np.float32)
    np.testing.assert_allclose(run(f, mode, x), 2 * x)  # with w = 1, as the forward pass read it
    w.assign(np.ones(2, np.float32))


def test_a_loop_that_reads_a_variable_it_assigns_refuses_a_traced_gradient():
    w = tt.Variable(np.array([1.0, 1.0], np.float32))

    def f(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            def body(i, h):
                out = h * w.read_value()
                w.assign_add(tt.ones([2]))
                return i + 1, out
            y = tt.reduce_sum(tt.while_loop(lambda i, h: i < 3, body, [0, x])[1])
        return y, tape.gradient(y, x)

    y, dx = f(tt.constant(np.array([1.5, 2.0], np.float32)))  # eagerly: h * 1 * 2 * 3
    np.testing.assert_allclose(dx.numpy(), [6.0, 6.0])
    w.assign(np.ones(2, np.float32))
    with pytest.raises(UnimplementedError, match="reads a variable it also assigns"):
        tt.function(f)(tt.constant(np.array([1.5, 2.0], np.float32)))
    assert float(w.numpy()[0]) == 1.0  # refused while tracing: nothing ran


def test_a_variable_predicate_or_index_is_read_at_each_call():
    flag, k = tt.Variable(True), tt.Variable(np.int32(0))
    f = tt.function(lambda x: [tt.cond(flag, lambda: x * 2.0, lambda: x * 3.0),
                               tt.switch_case(k, [lambda: x, lambda: -x])])
    a, b = f(tt.constant(X))
    flag.assign(False)
    k.assign(np.int32(1))
    c, d = f(tt.constant(X))
    np.testing.assert_allclose([a.numpy(), b.numpy(), c.numpy(), d.numpy()], [X * 2.0, X, X * 3.0, -X])


@pytest.mark.parametrize("mode", MODES)
def test_namedtuples_keep_their_type(mode):
    from collections import namedtuple

    Pair = namedtuple("Pair", "a b")

    def f(x, p):
        pair = tt.cond(p, lambda: Pair(x, x * 2.0), lambda: Pair(x, x))
        loop = tt.while_loop(lambda q: q.a < 3, lambda q: (Pair(q.a + 1, q.b * x),), [Pair(0, x)])[0]
        return pair.b, loop.b

    b, looped = run(f, mode, X, np.bool_(True))
    np.testing.assert_allclose(b, X * 2.0)
    np.testing.assert_allclose(looped, X ** 4)


@pytest.mark.parametrize("mode", MODES)
def test_a_loop_that_may_not_run_and_python_indices(mode):
    def f(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.reduce_sum(tt.while_loop(lambda v: tt.reduce_sum(v) < 50.0, lambda v: v * x, x,
                                            maximum_iterations=0))
        return tape.gradient(y, x), tt.switch_case(1, [lambda: x, lambda: -x])

    dx, picked = run(f, mode, X)
    np.testing.assert_allclose(dx, np.ones(3))
    np.testing.assert_allclose(picked, -X)


@pytest.mark.parametrize("mode", MODES)
def test_a_tensor_only_the_loop_condition_reads_has_no_gradient(mode):
    def f(x, limit):
        with tt.GradientTape() as tape:
            tape.watch([x, limit])
            y = tt.reduce_sum(tt.while_loop(lambda v: tt.reduce_sum(v) < limit, lambda v: v * 2.0, x))
        return tape.gradient(y, [x, limit])

    dx, dlimit = run_pair(f, mode, np.array([1.5, 2.0], np.float32), np.float32(20.0))
    np.testing.assert_allclose(dx, [8.0, 8.0])  # sums 3.5, 7, 14, 28: three doublings
    assert dlimit is None


@pytest.mark.parametrize("mode", MODES)
def test_updates_in_nested_control_flow_and_optimizer_steps_are_seen_by_later_reads(mode):
    w, v = tt.Variable(np.float32(1.0)), tt.Variable(np.float32(1.0))
    opt = tt.optimizers.SGD(0.25)

    def f(x):
        def outer():
            tt.cond(x > 0, lambda: w.assign(5.0), lambda: w.assign(7.0))
            return x * w.read_value()

        def body(i, total):  # an optimizer step inside a loop, then a read of the stepped variable
            opt.apply_gradients([(tt.constant(np.float32(1.0)), v)])
            return i + 1, total + v.read_value()

        steps = tt.while_loop(lambda i, t: i < 3, body, [0, tt.constant(np.float32(0.0))])[1]
        return tt.cond(x > -10.0, outer, lambda: x), steps

    first, steps = run(f, mode, np.float32(2.0))
    assert float(first) == 10.0 and float(steps) == pytest.approx(0.75 + 0.5 + 0.25)
    assert float(w.numpy()) == 5.0 and float(v.numpy()) == pytest.approx(0.25)


@pytest.mark.parametrize("mode", MODES)
def test_a_gradient_does_not_repeat_the_updates_of_nested_branches(mode):
    count = tt.Variable(np.float32(0.0))

    def f(x):
        with tt.GradientTape() as tape:
            tape.watch(x)

            def body(i, h):
                tt.cond(i >= 0, lambda: count.assign_add(1.0), lambda: count.assign_add(0.0))
                return i + 1, h * x

            y = tt.while_loop(lambda i, h: i < 3, body, [0, x])[1]
        return tape.gradient(y, x)

    np.testing.assert_allclose(run(f, mode, np.float32(2.0)), 32.0)  # d x^4 / dx = 4 x^3
    assert float(count.numpy()) == 3.0  # three iterations: the gradient's replays update nothing


def test_64_bit_variables_under_xla_and_unwatched_variables_have_no_gradient():
    n, d = tt.Variable(np.int64(0)), tt.Variable(np.float64(1.5))
    f = tt.function(lambda x: (n.assign_add(1), d.assign(d * 2.0), x * tt.cast(d.read_value(), tt.float32))[2],
                    jit_compile=True)
    assert float(f(tt.constant(1.0))) == 3.0 and float(f(tt.constant(1.0))) == 6.0
    assert n.numpy() == 2 and n.numpy().dtype == np.int64 and d.numpy().dtype == np.float64
    v = tt.Variable(np.float32(3.0))

    def g(x):
        with tt.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(x)
            y = tt.cond(x > 0, lambda: x + v, lambda: x) + x * 2.0 + v
        return tape.gradient(y, [v, x])

    for mode in ("eager", "graph"):
        dv, dx = (g if mode == "eager" else tt.function(g))(tt.constant(np.float32(1.0)))
        assert dv is None and float(dx) == 3.0, mode  # as TensorFlow: v was not watched


def run_pair(fn, mode, *args):
    wrapped = fn if mode == "eager" else tt.function(fn, jit_compile=mode == "xla")
    return [None if o is None else np.asarray(o) for o in wrapped(*[tt.constant(a) for a in args])]


# --- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fn, message", [
    (lambda x: tt.cond(x[0] > 0, lambda: x, lambda: (x, x)), "true_fn and false_fn must return the same structure"),
    (lambda x: tt.cond(x[0] > 0, lambda: x, lambda: tt.cast(x, tt.int32)),
     "output 0 is float32 in true_fn and int32 in false_fn"),
    (lambda x: tt.cond(x > 0, lambda: x, lambda: x), r"tt.cond: the predicate must be a scalar bool, got bool \[3\]"),
    (lambda x: tt.cond(x[0], lambda: x, lambda: x), "tt.cond: the predicate must be a scalar bool, got float32 \\[\\]"),
    (lambda x: tt.while_loop(lambda v: v[0] < 5.0, lambda v: tt.cast(v * 2.0, tt.int32), [x]),
     "loop variable 0 enters as float32 and the body returns int32"),
    (lambda x: tt.while_loop(lambda v: v < 5.0, lambda v: v * 2.0, [x]),
     r"tt.while_loop: the predicate must be a scalar bool, got bool \[3\]"),
    (lambda x: tt.while_loop(lambda v: v[0] < 5.0, lambda v: (v * 2.0, v), [x]),
     "body returned 2 values for 1 loop variables"),
])
def test_bad_control_flow_is_an_invalid_argument_error(fn, message):
    with pytest.raises(InvalidArgumentError, match=message):
        tt.function(fn)(tt.constant(X))


@pytest.mark.parametrize("fn", [
    lambda x: tt.cond(x > 0, lambda: x, lambda: x),
    lambda x: tt.while_loop(lambda v: v < 5.0, lambda v: v * 2.0, [x]),
])
def test_eager_predicates_are_checked_as_traced_ones(fn):
    with pytest.raises(InvalidArgumentError, match="the predicate must be a scalar bool"):
        fn(tt.constant(X))


def test_branches_must_be_callables():
    with pytest.raises(TypeError, match="true_fn and false_fn must be callables"):
        tt.cond(True, 1.0, 2.0)
