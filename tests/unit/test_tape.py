"""GradientTape: recording, watching, persistence, nesting, stop_gradient, custom_gradient, jacobian,
eagerly and inside tt.function. Expected values are worked out by hand or with numpy."""
import numpy as np
import pytest
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf as tt
from tinytf.autodiff import GradientTape, custom_gradient
from tinytf.framework import context
from tinytf.framework.op import REGISTRY, Op, register
from tinytf.framework.tensor_spec import TensorSpec


def close(t, expected, tol=1e-6):
    np.testing.assert_allclose(np.asarray(t), np.asarray(expected), rtol=tol, atol=tol)


# --- basics -------------------------------------------------------------------------------------

def test_square_and_product_rule():
    x = tt.constant([1.0, 2.0, -3.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x * 3.0
    close(tape.gradient(y, x), [6.0, 12.0, -18.0])


def test_tape_pushes_and_pops_itself():
    bottom = context.current()
    with GradientTape() as tape:
        assert context.current() is tape
    assert context.current() is bottom


def test_unwatched_constant_has_no_gradient():
    x = tt.constant(2.0)
    with GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_matmul_gradient_is_tensorflows():
    a = tt.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tt.constant([[0.5, -1.0], [1.0, 1.0]])
    with GradientTape() as tape:
        tape.watch([a, b])
        p = tt.matmul(a, b)
    da, db = tape.gradient(p, [a, b])
    close(da, [[-0.5, 2.0], [-0.5, 2.0]])
    close(db, [[4.0, 4.0], [6.0, 6.0]])


def test_broadcast_gradients_are_summed_to_the_input_shape():
    x = tt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    row = tt.constant([1.0, 2.0, 3.0])
    col = tt.constant([[2.0], [3.0]])
    s = tt.constant(4.0)
    with GradientTape() as tape:
        tape.watch([row, col, s])
        y = (x + row) * col * s
    g_row, g_col, g_s = tape.gradient(y, [row, col, s])
    assert tuple(g_row.shape) == (3,) and tuple(g_col.shape) == (2, 1) and tuple(g_s.shape) == ()
    close(g_row, [20.0, 20.0, 20.0])                          # sum over rows of col * s
    xr = np.arange(6).reshape(2, 3) + np.array([1.0, 2.0, 3.0])
    close(g_col, (xr.sum(axis=1) * 4.0).reshape(2, 1))
    close(g_s, (xr * np.array([[2.0], [3.0]])).sum())


def test_multiple_targets_add_up_and_output_gradients_scale():
    x = tt.constant([1.0, 2.0])
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y1 = x * 2.0
        y2 = x * x
    close(tape.gradient([y1, y2], x), [2.0 + 2.0, 2.0 + 4.0])
    close(tape.gradient(y2, x, output_gradients=tt.constant([10.0, -1.0])), [20.0, -4.0])


def test_gradient_with_respect_to_an_intermediate():
    x = tt.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * 2.0
    dz_dx, dz_dy = tape.gradient(z, [x, y])
    close(dz_dx, 12.0)
    close(dz_dy, 2.0)


def test_nested_sources_keep_their_structure():
    x, y = tt.constant(1.0), tt.constant(2.0)
    with GradientTape() as tape:
        tape.watch([x, y])
        z = x * y
    grads = tape.gradient(z, {"a": [x], "b": (y,)})
    assert set(grads) == {"a", "b"} and isinstance(grads["a"], list) and isinstance(grads["b"], tuple)
    close(grads["a"][0], 2.0)
    close(grads["b"][0], 1.0)


def test_unconnected_gradients_none_or_zero():
    x, u = tt.constant([1.0, 2.0]), tt.constant([[1.0, 1.0]])
    with GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
    assert tape.gradient(y, u) is None
    zero = tape.gradient(y, u, unconnected_gradients="zero")
    close(zero, [[0.0, 0.0]])
    assert tuple(zero.shape) == (1, 2)
    with pytest.raises(ValueError):
        tape.gradient(y, u, unconnected_gradients="nan")


def test_non_persistent_tape_allows_one_gradient_call():
    x = tt.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient(y, x), 4.0)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_persistent_tape_allows_many_calls():
    x = tt.constant(2.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    close(tape.gradient(y, x), 4.0)
    close(tape.gradient(z, x), 12.0)


def test_gradient_inside_the_tape_context():
    x = tt.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
        close(tape.gradient(y, x), 6.0)


def test_stop_recording():
    x = tt.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = x * 100.0      # not recorded: no path to x
        w = y + z
    close(tape.gradient(w, x), 4.0)


def test_stop_gradient_blocks_the_path():
    x = tt.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * tt.stop_gradient(x * x)   # d/dx = stop(x^2) = 4
    close(tape.gradient(y, x), 4.0)


def test_integer_and_boolean_results_are_not_differentiable():
    x = tt.constant([1.0, 5.0, 3.0])
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        i = tt.argmax(x)
        b = x > 2.0
        y = tt.cast(b, tt.float32) * x
    assert tape.gradient(i, x) is None
    assert tape.gradient(b, x) is None
    close(tape.gradient(y, x), [0.0, 1.0, 1.0])


# --- variables ----------------------------------------------------------------------------------

def test_trainable_variables_are_watched_automatically():
    v = tt.Variable([1.0, 2.0])
    frozen = tt.Variable([3.0, 4.0], trainable=False)
    with GradientTape() as tape:
        y = tt.reduce_sum(v * v + frozen.value() * v * frozen.value())
    assert tape.watched_variables() == (v,)
    gv, gf = tape.gradient(y, [v, frozen])
    close(gv, 2 * np.array([1.0, 2.0]) + np.array([9.0, 16.0]))
    assert gf is None


def test_a_variable_given_to_an_op_directly_is_a_read():
    v = tt.Variable([[1.0, 2.0], [3.0, 4.0]])
    x = tt.constant([[1.0, 1.0]])
    with GradientTape() as tape:
        y = tt.matmul(x, v)          # the kernel reads v: no ReadVariableOp, still a variable read
    close(tape.gradient(y, v), [[1.0, 1.0], [1.0, 1.0]])


def test_watch_accessed_variables_false():
    v = tt.Variable(3.0)
    with GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    with GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = v * v
    close(tape.gradient(y, v), 6.0)


# --- higher order -------------------------------------------------------------------------------

def test_nested_tapes_give_second_derivatives():
    x = tt.constant(2.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy = inner.gradient(y, x)          # recorded by the outer tape
    close(dy, 12.0)
    close(outer.gradient(dy, x), 12.0)     # 6x


def test_persistent_tape_differentiates_its_own_gradient():
    x = tt.constant(1.5)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tt.exp(x)
        dy = tape.gradient(y, x)
    close(tape.gradient(dy, x), np.exp(1.5), 1e-5)


def test_third_derivative_through_three_tapes():
    x = tt.constant(0.5)
    with GradientTape() as t3:
        t3.watch(x)
        with GradientTape() as t2:
            t2.watch(x)
            with GradientTape() as t1:
                t1.watch(x)
                y = tt.sin(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    close(t3.gradient(d2, x), -np.cos(0.5), 1e-5)


# --- jacobian -----------------------------------------------------------------------------------

def test_jacobian():
    x = tt.constant([1.0, 2.0, 3.0])
    w = tt.constant([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0]])
    with GradientTape() as tape:
        tape.watch(x)
        y = tt.matmul(w, tt.reshape(x * x, [3, 1]))     # (2, 1)
    jac = tape.jacobian(y, x)
    assert tuple(jac.shape) == (2, 1, 3)
    close(np.asarray(jac).reshape(2, 3), np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0]]) * 2 * np.array([1.0, 2.0, 3.0]))


# --- custom gradients ---------------------------------------------------------------------------

@custom_gradient
def clip_gradient(x):
    def grad(dy):
        return tt.clip_by_value(dy, -0.5, 0.5)
    return tt.identity(x), grad


@custom_gradient
def log1pexp(x):
    e = tt.exp(x)

    def grad(dy):
        return dy * (1.0 - 1.0 / (1.0 + e))
    return tt.math.log(1.0 + e), grad


def test_custom_gradient_replaces_the_rule():
    x = tt.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = clip_gradient(x) * 3.0
    close(tape.gradient(y, x), [0.5, 0.5])


def test_custom_gradient_value_and_gradient():
    x = tt.constant(0.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    close(y, np.log(2.0))
    close(tape.gradient(y, x), 0.5)


@custom_gradient
def softplus_recomputing(x):
    def grad(dy):
        # As in TensorFlow, the forward pass is not recorded: a grad function that should be
        # differentiable again computes from the inputs, not from forward intermediates.
        return dy * tt.sigmoid(x)
    return tt.math.log(1.0 + tt.exp(x)), grad


def test_custom_gradient_is_differentiable_again():
    x = tt.constant(0.3)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            y = softplus_recomputing(x)
        dy = inner.gradient(y, x)        # sigmoid(x), computed by the user's grad function
    s = 1 / (1 + np.exp(-0.3))
    close(dy, s, 1e-5)
    close(outer.gradient(dy, x), s * (1 - s), 1e-5)


def test_custom_gradient_with_variables():
    v = tt.Variable(2.0)

    @custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            return dy * 10.0, [dy * 100.0]
        return x * v.value(), grad

    x = tt.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    close(y, 6.0)
    gx, gv = tape.gradient(y, [x, v])
    close(gx, 10.0)
    close(gv, 100.0)


# --- graph mode ---------------------------------------------------------------------------------

def test_tape_inside_tt_function_traces_the_gradient():
    @tt.function
    def grad_of_cube(x):
        with GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        return tape.gradient(y, x)

    close(grad_of_cube(tt.constant([1.0, 2.0])), [3.0, 12.0])
    text = grad_of_cube.get_concrete_function(TensorSpec([2], tt.float32)).mlir()
    assert text.count('"tf.Mul"') >= 4    # forward x*x*x and the product-rule terms, all in the graph


def test_second_derivative_inside_tt_function():
    @tt.function
    def second(x):
        with GradientTape() as outer:
            outer.watch(x)
            with GradientTape() as inner:
                inner.watch(x)
                y = tt.tanh(x)
            dy = inner.gradient(y, x)
        return outer.gradient(dy, x)

    x = np.array([0.1, -0.7], np.float32)
    t = np.tanh(x)
    close(second(tt.constant(x)), -2 * t * (1 - t * t), 1e-5)


def test_variables_captured_by_a_function_get_gradients():
    w = tt.Variable([[1.0, 2.0], [3.0, 4.0]])

    @tt.function
    def step(x):
        with GradientTape() as tape:
            loss = tt.reduce_sum(tt.matmul(x, w) * 2.0)
        return tape.gradient(loss, w)

    close(step(tt.constant([[1.0, -1.0]])), [[2.0, 2.0], [-2.0, -2.0]])


def test_tape_around_a_tt_function_call_records_it_inline():
    f = tt.function(lambda x: tt.exp(x) * 2.0)
    x = tt.constant(0.5)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    close(tape.gradient(y, x), 2 * np.exp(0.5), 1e-6)


# --- errors -------------------------------------------------------------------------------------

@register
class _NoGradientOp(Op):
    """A test-only op with neither a gradient nor NotDifferentiable."""

    name = "tinytf_test.NoGradient"
    x = operand_def()
    y = result_def()
    traits = traits_def(Pure())

    @staticmethod
    def infer(x):
        return x

    @staticmethod
    def compute(xp, x):
        return x * 2


REGISTRY.pop(_NoGradientOp.name)   # keep the registry walk of the real op library clean


def test_missing_gradient_raises_lookup_error_naming_the_op():
    x = tt.constant(1.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = _NoGradientOp.bind(x) * 2.0
    with pytest.raises(LookupError, match="tinytf_test.NoGradient"):
        tape.gradient(y, x)


def test_watch_rejects_non_tensors():
    with GradientTape() as tape:
        with pytest.raises(ValueError):
            tape.watch("not a tensor")


def test_broadcast_reduction_with_unknown_dims():
    @tt.function(input_signature=[TensorSpec([None, 3], tt.float32), TensorSpec([3], tt.float32)])
    def grads(x, b):
        with GradientTape() as tape:
            tape.watch([x, b])
            y = x * b
        return tape.gradient(y, [x, b])

    gx, gb = grads(tt.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), tt.constant([1.0, 10.0, 100.0]))
    close(gx, [[1.0, 10.0, 100.0], [1.0, 10.0, 100.0]])
    close(gb, [5.0, 7.0, 9.0])


@pytest.mark.parametrize("use_function", [False, True])
def test_gradient_of_a_broadcast_variable_has_the_variable_shape(use_function):
    x = tt.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
    b = tt.Variable(np.zeros(1, np.float32))

    def grad(x):
        with tt.GradientTape() as tape:
            loss = tt.reduce_mean(x * x + b)  # b is broadcast over all 8 elements
        return tape.gradient(loss, b)

    db = (tt.function(grad) if use_function else grad)(x)
    np.testing.assert_allclose(db.numpy(), [1.0])


@pytest.mark.parametrize("traced", [False, True])
def test_complex_matmul_gradients_are_against_the_conjugates(traced):
    """TensorFlow: for P = A @ B, dA = G @ B^H and dB = A^H @ G (tf.Conj of the operands); here
    G = conj(U), Mul's gradient against the conjugate of the other factor (values from TF 2.21)."""
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(np.complex128)
    b = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex128)
    u = (rng.standard_normal((2, 4)) + 1j * rng.standard_normal((2, 4))).astype(np.complex128)

    def grads(a, b):
        with tt.GradientTape() as tape:
            tape.watch([a, b])
            loss = tt.math.reduce_sum(tt.matmul(a, b) * u)
        return tape.gradient(loss, [a, b])

    da, db = (tt.function(grads) if traced else grads)(tt.constant(a), tt.constant(b))
    np.testing.assert_allclose(da.numpy(), u.conj() @ b.conj().T, rtol=1e-12)
    np.testing.assert_allclose(db.numpy(), a.conj().T @ u.conj(), rtol=1e-12)
    assert tt.math.conj(tt.constant([1.0, 2.0])).numpy().tolist() == [1.0, 2.0]  # real: returned as it is
