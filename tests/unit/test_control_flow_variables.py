"""Control flow and variables, and the corner cases two reviews found: branches returning enclosing
tensors, variables read (passed in as values) or assigned (passed as resources) in branches and loop
bodies, updates in nested control flow and optimizer steps, gradients that must not repeat updates,
Variable predicates, namedtuples, loops that may not run."""
from __future__ import annotations

import numpy as np
import pytest
from test_cond import MODES, X, run

import tinytf as tt
from tinytf.errors import UnimplementedError


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


@pytest.mark.parametrize("mode", MODES)
def test_a_loop_body_may_return_a_captured_value_as_a_loop_variable(mode):
    w = tt.Variable(np.float32(3.0))

    def f(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            x3 = x * 3.0
            y = tt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, x3 * w), [0, tt.constant(np.float32(0.0))])[1]
            z = y * y
        return tape.gradient(z, [x, w])

    dx, dw = run(f, mode, np.float32(2.0))
    assert float(dx) == 2 * 18.0 * 9.0 and float(dw) == 2 * 18.0 * 6.0  # z = (9x)^2 at w = 3; dz/dw = 2(3xw)(3x)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_a_variable_the_loop_condition_assigns_is_read_fresh_in_the_body(mode):
    c = tt.Variable(np.float32(0.0))

    def f(x):
        def cond(i, y):
            c.assign_add(1.0)
            return i < 3

        return tt.while_loop(cond, lambda i, y: (i + 1, y + c.read_value()), [0, x])[1]

    assert float(run(f, mode, np.float32(2.0))) == 2.0 + 1.0 + 2.0 + 3.0 and float(c.numpy()) == 4.0
    with pytest.raises(UnimplementedError, match="the condition @while_cond_.* assigns a variable"):
        tt.function(f, jit_compile=True)(tt.constant(np.float32(2.0)))  # an XLA loop condition cannot


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_a_gradient_does_not_repeat_tf1_ref_updates(mode):
    from tinytf.framework.variables import RefVariable
    from tinytf.ops import ref_variables as rv

    r = RefVariable(np.float32(0.0))

    def f(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.cond(x > 0, lambda: (rv.assign_add(r, tt.constant(np.float32(1.0))), x * x)[1], lambda: x)
        return tape.gradient(y, x)

    assert float(run(f, mode, np.float32(2.0))) == 4.0 and float(r.numpy()) == 1.0


def test_a_tape_uses_a_variable_value_from_when_the_op_ran():
    x, w = tt.constant(np.float32(3.0)), tt.Variable(np.float32(2.0))
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = x * w  # the variable given to the op itself, not read first
    w.assign(100.0)
    dx, dw = tape.gradient(y, [x, w])
    assert float(dx) == 2.0 and float(dw) == 3.0


def test_a_nested_branch_that_reads_a_variable_it_assigns_refuses_a_traced_gradient():
    v = tt.Variable(np.array([2.0], np.float32))

    def f(x):
        v.assign(np.array([2.0], np.float32))
        with tt.GradientTape() as tape:
            tape.watch(x)

            def inner():
                a = v * x
                v.assign(a)
                return a + v * x

            y = tt.cond(tt.constant(True), lambda: tt.cond(tt.constant(True), inner, lambda: x), lambda: x)
            v.assign(np.array([100.0], np.float32))
        return tape.gradient(y, x)

    np.testing.assert_allclose(f(tt.constant(np.array([3.0], np.float32))).numpy(), [8.0])
    with pytest.raises(UnimplementedError, match="reads a variable it also assigns"):
        tt.function(f)(tt.constant(np.array([3.0], np.float32)))
