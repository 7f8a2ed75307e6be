"""tt.debugging: assertions and check_numerics raise TensorFlow's errors eagerly, while tracing (known
values) and when a graph runs (tf.Assert / tf.CheckNumerics ops); under XLA they are no-ops, as in
TensorFlow's XLA kernels."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError

d = tt.debugging
X = np.array([1.0, 2.0, 3.0], np.float32)
SPEC = tt.TensorSpec([3], tt.float32)

# (function, passing inputs, failing inputs, the condition's words in the message)
BINARY = [
    (d.assert_equal, (X, X), (X, X + 1), "x == y"), (d.assert_none_equal, (X, X + 1), (X, X), "x != y"),
    (d.assert_less, (X, X + 1), (X, X), "x < y"), (d.assert_less_equal, (X, X), (X + 1, X), "x <= y"),
    (d.assert_greater, (X + 1, X), (X, X), "x > y"), (d.assert_greater_equal, (X, X), (X, X + 1), "x >= y"),
    (d.assert_near, (X, X + 1e-7), (X, X + 1e-3), "tolerance"),
]
UNARY = [
    (d.assert_positive, X, -X, "x > 0"), (d.assert_negative, -X, X, "x < 0"),
    (d.assert_non_negative, X - 1, X - 2, "x >= 0"), (d.assert_non_positive, 1 - X, 2 - X, "x <= 0"),
]


@pytest.mark.parametrize("fn,good,bad,words", BINARY, ids=[c[0].__name__ for c in BINARY])
def test_binary_assertions(fn, good, bad, words):
    assert fn(*[tt.constant(v) for v in good]) is None                           # eager: nothing, or
    with pytest.raises(InvalidArgumentError, match=words):                       # InvalidArgumentError now
        fn(*[tt.constant(v) for v in bad], message="checked")
    traced = tt.function(lambda a, b: (fn(a, b, message="checked"), a + 1)[1])
    np.testing.assert_array_equal(traced(*[tt.constant(v) for v in good]).numpy(), good[0] + 1)
    with pytest.raises(InvalidArgumentError, match=f"assertion failed: \\[checked\\].*{words.split()[0]}"):
        traced(*[tt.constant(v) for v in bad])                                    # the graph's tf.Assert
    assert '"tf.Assert"' in traced.get_concrete_function(SPEC, SPEC).mlir()
    xla = tt.function(lambda a, b: (fn(a, b), a + 1)[1], jit_compile=True)
    np.testing.assert_array_equal(xla(*[tt.constant(v) for v in bad]).numpy(), bad[0] + 1)  # XLA: a no-op


@pytest.mark.parametrize("fn,good,bad,words", UNARY, ids=[c[0].__name__ for c in UNARY])
def test_sign_assertions(fn, good, bad, words):
    assert fn(tt.constant(good)) is None
    with pytest.raises(InvalidArgumentError, match=words):
        fn(tt.constant(bad))
    traced = tt.function(lambda a: (fn(a), a * 2)[1])
    np.testing.assert_array_equal(traced(tt.constant(good)).numpy(), good * 2)
    with pytest.raises(InvalidArgumentError, match="assertion failed"):
        traced(tt.constant(bad))


def test_known_values_raise_while_tracing():
    def f(a):
        d.assert_equal(tt.constant([1, 2]), tt.constant([1, 3]), message="constants")
        return a
    with pytest.raises(InvalidArgumentError, match="constants"):
        tt.function(f).get_concrete_function(SPEC)


def test_assert_and_its_summary():
    d.Assert(True, [tt.constant(X)])
    with pytest.raises(InvalidArgumentError):
        d.Assert(tt.constant(False), [tt.constant(X)])
    traced = tt.function(lambda c, v: (tt.Assert(c, ["v:", v], summarize=2), v)[1])
    traced(tt.constant(True), tt.constant(X))
    with pytest.raises(InvalidArgumentError, match=r"assertion failed: \[v:\] \[\[1.0 2.0...\]\]"):
        traced(tt.constant(False), tt.constant(X))
    with pytest.raises(InvalidArgumentError, match="scalar"):
        tt.function(lambda v: (tt.Assert(v > 0, [v]), v)[1])(tt.constant(X))
    assert tt.Assert is d.Assert and tt.assert_equal is d.assert_equal and tt.assert_rank is d.assert_rank


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_check_numerics(use_function):
    f = tt.function(lambda v: d.check_numerics(v, "v") * 2) if use_function else (lambda v: d.check_numerics(v, "v") * 2)
    np.testing.assert_array_equal(f(tt.constant(X)).numpy(), X * 2)
    for bad, kind in (([np.nan, 1.0], "NaN"), ([np.inf, 1.0], "Inf"), ([np.inf, np.nan], "Inf and NaN")):
        with pytest.raises(InvalidArgumentError, match=f"v : Tensor had {kind} values"):
            f(tt.constant(np.array(bad, np.float32)))
    with pytest.raises(InvalidArgumentError, match="Tensor had NaN"):
        d.assert_all_finite(tt.constant([np.nan]), "w")
    with pytest.raises(InvalidArgumentError):
        d.check_numerics(tt.constant([1, 2]), "ints")                      # float types only, as TensorFlow
    xla = tt.function(lambda v: d.check_numerics(v, "v") * 2, jit_compile=True)
    np.testing.assert_array_equal(xla(tt.constant(np.array([np.nan, 1.0], np.float32))).numpy(), [np.nan, 2.0])


def test_check_numerics_gradient_checks_the_gradient():
    x = tt.constant(X)
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = tt.reduce_sum(d.check_numerics(x, "x") * tt.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [1.0, 2.0, 3.0])
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = tt.reduce_sum(d.check_numerics(x, "x") * tt.constant([1.0, np.inf, 3.0]))
    with pytest.raises(InvalidArgumentError, match="detected in gradient. x : Tensor had Inf"):
        tape.gradient(y, x)


def test_static_checks():
    x = tt.constant(X)
    d.assert_rank(x, 1), d.assert_rank_at_least(x, 1), d.assert_rank_in(x, [0, 1])
    d.assert_scalar(tt.constant(1.0)), d.assert_type(x, tt.float32), d.assert_integer(tt.constant([1]))
    d.assert_proper_iterable([x, x])
    assert d.assert_same_float_dtype([x, x]) is tt.float32
    for fn in (lambda: d.assert_rank(x, 2), lambda: d.assert_rank_at_least(x, 2), lambda: d.assert_rank_in(x, [0, 2]),
               lambda: d.assert_scalar(x), lambda: d.assert_same_float_dtype([x, tt.constant([1])])):
        with pytest.raises(ValueError):
            fn()
    for fn in (lambda: d.assert_type(x, tt.int32), lambda: d.assert_integer(x), lambda: d.assert_proper_iterable(x),
               lambda: d.assert_proper_iterable("ab")):
        with pytest.raises(TypeError):
            fn()
    assert d.is_numeric_tensor(x) and not d.is_numeric_tensor(X) and not d.is_numeric_tensor(tt.constant("s"))
    with pytest.raises(ValueError, match="rank 2"):
        tt.function(lambda v: (d.assert_rank(v, 2), v)[1]).get_concrete_function(SPEC)
