"""tt.while_loop: a Python loop eagerly, tf.While with private condition and body functions when
traced, and under XLA; its gradient (stacked states, or recomputed ones under XLA without a bound)
against analytic values, hand-written BPTT and TensorFlow's numerical checker; bad input to tt.cond and
tt.while_loop."""
from __future__ import annotations

import numpy as np
import pytest
from test_cond import MODES, X, run

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.gradcheck import compare_numerical_and_autodiff_gradients


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
    # two passes: the forward loop pushing what the gradient reads on TensorLists as it runs (under XLA
    # a preallocated [bound, ...] buffer; the body it replays stays in the library), a backward loop
    # reading them;
    # XLA without a bound (static shapes, no stack): forward, backward, and inside the backward body a
    # loop recomputing each state
    stacked = bound is not None or not jit_compile
    assert len(loops) == 3
    assert text.count('"tf.While"') == (2 if stacked else 3)
    assert any('"tf.TensorListPushBack"' in b for b in loops) == stacked
    assert any('"tf.While"' in b for b in loops) == (not stacked)
    x = np.array([2.0, 1.5, 0.5], np.float32)  # sums 4, 6.5, 21.1, 281.6: 3 squarings, y = x^8
    np.testing.assert_allclose(np.asarray(tt.function(f, jit_compile=jit_compile)(tt.constant(x))), 8 * x ** 7,
                               rtol=1e-5)


@pytest.mark.parametrize("jit_compile", [False, True])
def test_gradient_of_the_gradient_reaches_the_states_the_forward_loop_stacked(jit_compile):
    def f(x, w):  # y = x * w^4; the inner gradient 4 x w^3 reads the stacked states w^k x
        with tt.GradientTape() as outer:
            outer.watch(w)
            with tt.GradientTape() as inner:
                inner.watch(w)
                y = tt.reduce_sum(tt.while_loop(lambda v: tt.constant(True), lambda v: v * w, x, maximum_iterations=4))
            g = inner.gradient(y, w)
            s = tt.reduce_sum(g)
        return g, outer.gradient(s, w)

    x, w = np.array([2.0, -1.5, 0.5], np.float32), np.array([1.5, 0.5, -2.0], np.float32)
    g, gg = tt.function(f, jit_compile=jit_compile)(tt.constant(x), tt.constant(w))
    np.testing.assert_allclose(np.asarray(g), 4 * x * w ** 3, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gg), 12 * x * w ** 2, rtol=1e-6)


def _bptt(x, w, steps):  # hand-written backpropagation through h = tanh(h @ w + x), loss sum(h^2)
    hs = [x]
    for _ in range(steps):
        hs.append(np.tanh(hs[-1] @ w + x))
    dh, dw = 2 * hs[-1], np.zeros_like(w)
    for k in range(steps, 0, -1):
        da = dh * (1 - hs[k] ** 2)
        dw, dh = dw + hs[k - 1].T @ da, da @ w.T
    return dw


@pytest.mark.parametrize("jit_compile", [False, True])
def test_backward_steps_read_the_stacked_intermediates_instead_of_replaying_the_body(jit_compile):
    rng = np.random.default_rng(3)
    x, w0 = rng.standard_normal((4, 8)).astype(np.float32), (rng.standard_normal((8, 8)) / 3).astype(np.float32)
    w = tt.Variable(w0)

    def f(x):
        with tt.GradientTape() as tape:
            _, h = tt.while_loop(lambda i, h: i < 6, lambda i, h: (i + 1, tt.tanh(h @ w + x)), [0, x],
                                 maximum_iterations=6)
            loss = tt.reduce_sum(h * h)
        return tape.gradient(loss, w)

    fn = tt.function(f, jit_compile=jit_compile)
    text = fn.get_concrete_function(tt.constant(x)).mlir()
    backward = [b for b in text.split("func.func private @")[1:] if b.startswith("while_body_")][-1]
    # tanh's gradient reads the stored tanh output, MatMul's the stored state: no forward op is replayed
    assert '"tf.Tanh"' not in backward and '"tf.TanhGrad"' in backward
    assert backward.count('"tf.MatMul"') == 2 and backward.count('"tf.TensorListGetItem"') == 2
    np.testing.assert_allclose(np.asarray(fn(tt.constant(x))), _bptt(x, w0, 6), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("jit_compile", [False, True])
def test_gradient_of_the_gradient_reaches_a_stacked_intermediate(jit_compile):
    def f(x, w):  # y = tanh(w x) twice; the inner gradient reads the stored tanh outputs
        with tt.GradientTape() as outer:
            outer.watch(w)
            with tt.GradientTape() as inner:
                inner.watch(w)
                y = tt.reduce_sum(tt.while_loop(lambda v: tt.constant(True), lambda v: tt.tanh(v * w), x,
                                                maximum_iterations=2))
            s = tt.reduce_sum(inner.gradient(y, w))
        return s, outer.gradient(s, w)

    def numeric(x, w):  # the inner gradient by hand, then its derivative in w by central differences
        def s(w):
            a = np.tanh(w * x)
            b = np.tanh(w * a)
            db = 1 - b * b
            return np.sum(db * (a + w * (1 - a * a) * x))
        eps = 1e-3
        return s(w), np.array([(s(w + eps * e) - s(w - eps * e)) / (2 * eps) for e in np.eye(len(w))])

    x, w = np.array([0.5, -1.0, 0.25]), np.array([0.8, 0.3, -0.6])
    got_s, got_gg = tt.function(f, jit_compile=jit_compile)(tt.constant(x.astype(np.float32)),
                                                            tt.constant(w.astype(np.float32)))
    want_s, want_gg = numeric(x, w)
    np.testing.assert_allclose(float(got_s), want_s, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(got_gg), want_gg, rtol=1e-3, atol=1e-4)


def test_a_watched_loop_through_an_op_without_a_gradient_runs_and_its_gradient_says_so():
    def f(x, w):  # tf.AdjustContrastv2 has no gradient (as in TensorFlow): the forward loop must still run
        with tt.GradientTape() as tape:
            tape.watch(w)
            y = tt.while_loop(lambda v: tt.constant(True), lambda v: tt.image.adjust_contrast(v * w, 2.0), x,
                              maximum_iterations=2)
        return y

    x = np.full((2, 2, 1), 0.25, np.float32) + np.eye(2, dtype=np.float32)[:, :, None] * 0.5
    w = np.ones((2, 2, 1), np.float32)
    want = x
    for _ in range(2):
        want = (want - want.mean()) * 2.0 + want.mean()
    np.testing.assert_allclose(np.asarray(tt.function(f)(tt.constant(x), tt.constant(w))), want, rtol=1e-6)

    def g(x, w):
        with tt.GradientTape() as tape:
            tape.watch(w)
            y = tt.while_loop(lambda v: tt.constant(True), lambda v: tt.image.adjust_contrast(v * w, 2.0), x,
                              maximum_iterations=2)
        return tape.gradient(y, w)

    with pytest.raises(LookupError, match="AdjustContrastv2"):
        tt.function(g)(tt.constant(x), tt.constant(w))


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


@pytest.mark.parametrize("mode", MODES)
def test_rows_indexed_by_the_loop_counter_and_shapes_from_tensors(mode):
    """Under XLA a run-time index is a dynamic-slice (its size is static); zeros([n, 2]) may mix a tensor in."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def f(x):
        rows = tt.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s + x[i]), [0, tt.zeros([3])])[1]
        cols = tt.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + x[:, i]), [0, tt.zeros([tt.shape(x)[0]])])[1]
        block = tt.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s + tt.slice(x, tt.stack([i, 1]), [1, 2])),
                              [0, tt.zeros([1, 2])])[1]
        return rows, cols, block

    rows, cols, block = run(f, mode, x)
    np.testing.assert_array_equal(rows, x.sum(0))
    np.testing.assert_array_equal(cols, x.sum(1))
    np.testing.assert_array_equal(block, x[:, 1:].sum(0, keepdims=True))


def test_shape_invariants_as_tensorflow():
    def grow(x):  # TensorFlow's positional order: cond, body, loop_vars, shape_invariants
        return tt.while_loop(lambda v: tt.size(v) < 10, lambda v: tt.concat([v, v], 0), [x], [tt.TensorSpec([None])])[0]

    cf = tt.function(grow).get_concrete_function(tt.constant(X))
    assert "shape_invariant" in cf.mlir() and "tensor<?xf32>" in cf.mlir()
    np.testing.assert_array_equal(cf(tt.constant(X)).numpy(), np.tile(X, 4))
    np.testing.assert_array_equal(grow(tt.constant(X)).numpy(), np.tile(X, 4))
    with pytest.raises(InvalidArgumentError, match=r"has shape \[6\] after one iteration, which does not fit its "
                                                   r"shape invariant \[3\]"):
        tt.function(lambda x: tt.while_loop(lambda v: tt.size(v) < 10, lambda v: tt.concat([v, v], 0), [x],
                                            shape_invariants=[[3]]))(tt.constant(X))
    with pytest.raises(InvalidArgumentError, match="does not fit its shape invariant"):
        tt.function(lambda x: tt.while_loop(lambda v: False, lambda v: v, x, shape_invariants=[2]))(tt.constant(X))
