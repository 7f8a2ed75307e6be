"""Training ops (resource and ref forms), ref variable ops, and tt.optimizers, against numpy references
of TensorFlow's update rules, eagerly, traced, and from parsed MLIR."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import optimizers
from tinytf.errors import FailedPreconditionError, InvalidArgumentError
from tinytf.framework.variables import RefVariable
from tinytf.ops import ref_variables, training

# --- numpy references (TensorFlow's training_ops.cc functors) --------------------------------------

def ref_gd(var, alpha, delta):
    return var - alpha * delta


def ref_momentum(var, accum, lr, grad, momentum, nesterov):
    accum = accum * momentum + grad
    var = var - (grad * lr + accum * momentum * lr) if nesterov else var - lr * accum
    return var, accum


def ref_adam(var, m, v, b1p, b2p, lr, b1, b2, eps, grad, nesterov):
    lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
    m = m + (grad - m) * (1 - b1)
    v = v + (grad * grad - v) * (1 - b2)
    step = (grad * (1 - b1) + b1 * m) if nesterov else m
    return var - step * lr_t / (np.sqrt(v) + eps), m, v


RTOL = {np.float32: 1e-6, np.float64: 1e-13}
rng = np.random.default_rng(5)


def _var(form, value):
    return tt.Variable(value) if form == "resource" else RefVariable(value)


def _ops(form):
    if form == "resource":
        return training.resource_apply_gradient_descent, training.resource_apply_momentum, training.resource_apply_adam
    return training.apply_gradient_descent, training.apply_momentum, training.apply_adam


# --- values ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["resource", "ref"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradient_descent(form, dtype):
    x, d = rng.normal(size=(3, 4)).astype(dtype), rng.normal(size=(3, 4)).astype(dtype)
    var = _var(form, x)
    out = _ops(form)[0](var, 0.25, d, use_locking=True)
    np.testing.assert_allclose(var.numpy(), ref_gd(x, dtype(0.25), d), rtol=RTOL[dtype])
    assert out is (var if form == "ref" else None)  # the ref form returns the ref forwarded


@pytest.mark.parametrize("form", ["resource", "ref"])
@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_momentum(form, nesterov, dtype):
    x = rng.normal(size=5).astype(dtype)
    var, accum = _var(form, x), _var(form, np.zeros(5, dtype))
    want_var, want_accum = x, np.zeros(5, dtype)
    for _ in range(3):
        g = rng.normal(size=5).astype(dtype)
        _ops(form)[1](var, accum, 0.1, g, 0.9, use_nesterov=nesterov)
        want_var, want_accum = ref_momentum(want_var, want_accum, dtype(0.1), g, dtype(0.9), nesterov)
    np.testing.assert_allclose(var.numpy(), want_var, rtol=RTOL[dtype])
    np.testing.assert_allclose(accum.numpy(), want_accum, rtol=RTOL[dtype])


@pytest.mark.parametrize("form", ["resource", "ref"])
@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam(form, nesterov, dtype):
    x = rng.normal(size=(2, 3)).astype(dtype)
    var, m, v = _var(form, x), _var(form, np.zeros((2, 3), dtype)), _var(form, np.zeros((2, 3), dtype))
    want = (x, np.zeros((2, 3), dtype), np.zeros((2, 3), dtype))
    b1, b2, lr, eps = dtype(0.9), dtype(0.999), dtype(0.01), dtype(1e-7)
    for t in range(1, 4):
        g = rng.normal(size=(2, 3)).astype(dtype)
        b1p, b2p = dtype(b1 ** t), dtype(b2 ** t)
        _ops(form)[2](var, m, v, b1p, b2p, lr, b1, b2, eps, g, use_locking=True, use_nesterov=nesterov)
        want = ref_adam(*want, b1p, b2p, lr, b1, b2, eps, g, nesterov)
    for got, expected in zip((var, m, v), want):
        np.testing.assert_allclose(got.numpy(), expected, rtol=RTOL[dtype] * 10)


def test_adam_first_step_moves_each_weight_by_about_lr():
    var = tt.Variable(np.zeros(3))
    m, v = tt.Variable(np.zeros(3)), tt.Variable(np.zeros(3))
    training.resource_apply_adam(var, m, v, 0.9, 0.999, 0.5, 0.9, 0.999, 1e-12, np.array([3.0, -0.2, 7.0]))
    np.testing.assert_allclose(var.numpy(), [-0.5, 0.5, -0.5], rtol=1e-9)  # Adam's step is lr * sign(g) at t=1


def test_same_variable_twice_locks_once():
    v = tt.Variable(np.ones(3))
    training.resource_apply_momentum(v, v, 0.5, np.ones(3), 0.5, use_locking=True)  # var and accum alias
    # accum = 1 * 0.5 + 1 = 1.5 (written into v), then v -= 0.5 * 1.5
    np.testing.assert_allclose(v.numpy(), [0.75, 0.75, 0.75])


def test_a_readers_snapshot_is_not_changed_by_a_step():
    var = tt.Variable(np.ones(4))
    before = var.value()
    training.resource_apply_gradient_descent(var, 1.0, np.ones(4), use_locking=True)
    np.testing.assert_array_equal(before.numpy(), np.ones(4))
    np.testing.assert_array_equal(var.numpy(), np.zeros(4))


# --- errors ----------------------------------------------------------------------------------------

def test_training_op_errors():
    var = tt.Variable(np.zeros(3, np.float32))
    with pytest.raises(InvalidArgumentError, match="not a scalar"):
        training.resource_apply_gradient_descent(var, np.ones(3, np.float32), np.ones(3, np.float32))
    with pytest.raises(InvalidArgumentError, match="same shape"):
        training.resource_apply_gradient_descent(var, 0.1, np.ones(4, np.float32))
    with pytest.raises(InvalidArgumentError, match="dtype"):
        training.resource_apply_gradient_descent(var, 0.1, np.ones(3, np.float64))
    with pytest.raises(InvalidArgumentError, match="resource"):
        training.resource_apply_gradient_descent(tt.constant([1.0, 2.0, 3.0]), 0.1, np.ones(3, np.float32))
    with pytest.raises(InvalidArgumentError, match="same shape"):
        training.resource_apply_momentum(var, tt.Variable(np.zeros(2, np.float32)), 0.1, np.ones(3, np.float32), 0.9)
    np.testing.assert_array_equal(var.numpy(), np.zeros(3))  # nothing was half applied


def test_ref_and_resource_forms_do_not_mix():
    with pytest.raises(InvalidArgumentError, match="ref variable"):
        training.apply_gradient_descent(tt.Variable(np.zeros(2)), 0.1, np.ones(2))
    with pytest.raises(InvalidArgumentError, match="resource variable"):
        ResourceApplyGradientDescent = tt.raw_ops.ResourceApplyGradientDescent
        ResourceApplyGradientDescent(var=RefVariable(np.zeros(2)), alpha=np.float64(0.1), delta=np.ones(2))


def test_uninitialised_variables_fail_with_failed_precondition():
    ref = ref_variables.variable_v2([2], tt.float32)
    with pytest.raises(FailedPreconditionError, match="uninitialized"):
        training.apply_gradient_descent(ref, 0.1, np.ones(2, np.float32))
    with pytest.raises(FailedPreconditionError, match="uninitialized"):
        ref.read()
    handle = tt.raw_ops.VarHandleOp(shared_name="test_training_uninit", dtype=tt.float32, shape=(2,))
    with pytest.raises(FailedPreconditionError, match="uninitialized"):
        training.resource_apply_gradient_descent(handle, 0.1, np.ones(2, np.float32))


def test_shape_errors_are_found_while_tracing():
    var = tt.Variable(np.zeros(3, np.float32))

    @tt.function
    def bad(g):
        training.resource_apply_gradient_descent(var, 0.1, g)
        return var.read_value()

    with pytest.raises(InvalidArgumentError, match="same shape"):
        bad.get_concrete_function(tt.TensorSpec([4], tt.float32))


# --- ref variable ops ------------------------------------------------------------------------------

def test_ref_assign_ops():
    ref = ref_variables.variable_v2([2], tt.float32, shared_name="test_ref_assign_ops")
    assert isinstance(ref, RefVariable) and ref.shape == (2,) and ref.dtype is tt.float32
    assert ref_variables.assign(ref, np.array([1.0, 2.0], np.float32)) is ref
    assert ref_variables.assign_add(ref, np.array([1.0, 1.0], np.float32), use_locking=True) is ref
    assert ref_variables.assign_sub(ref, tt.constant([0.5, 0.5])) is ref
    np.testing.assert_array_equal(ref.numpy(), [1.5, 2.5])
    again = ref_variables.variable_v2([2], tt.float32, shared_name="test_ref_assign_ops")
    assert again is ref  # the same shared_name is the same variable
    with pytest.raises(InvalidArgumentError, match="shape"):
        ref_variables.assign(ref, np.zeros(3, np.float32))
    with pytest.raises(InvalidArgumentError, match="dtype"):
        ref_variables.assign_add(ref, np.zeros(2, np.float64))
    with pytest.raises(InvalidArgumentError, match="ref variable"):
        ref_variables.assign(tt.Variable([1.0]), np.zeros(1, np.float32))
    ref_variables.assign(ref, np.zeros((2, 2), np.float32), validate_shape=False)
    assert ref.shape == (2, 2)


REF_MODULE = """
func.func @main(%g: tensor<2xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %v = "tf.VariableV2"() <{container = "", shape = #tf_type.shape<2>, shared_name = "w"}> : () -> tensor<2x!tf_type.f32ref>
  %m = "tf.VariableV2"() <{container = "", shape = #tf_type.shape<2>, shared_name = "m"}> : () -> tensor<2x!tf_type.f32ref>
  %lr = "tf.Const"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %mom = "tf.Const"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "tf.Const"() <{value = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %a = "tf.Assign"(%v, %init) <{use_locking = true, validate_shape = true}> : (tensor<2x!tf_type.f32ref>, tensor<2xf32>) -> tensor<2x!tf_type.f32ref>
  %b = "tf.Assign"(%m, %z) <{use_locking = true, validate_shape = true}> : (tensor<2x!tf_type.f32ref>, tensor<2xf32>) -> tensor<2x!tf_type.f32ref>
  %c = "tf.ApplyMomentum"(%a, %b, %lr, %g, %mom) <{use_locking = true, use_nesterov = false}> : (tensor<2x!tf_type.f32ref>, tensor<2x!tf_type.f32ref>, tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2x!tf_type.f32ref>
  %d = "tf.ApplyGradientDescent"(%c, %lr, %g) <{use_locking = false}> : (tensor<2x!tf_type.f32ref>, tensor<f32>, tensor<2xf32>) -> tensor<2x!tf_type.f32ref>
  %r = "tf.Identity"(%init) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
"""


def test_parsed_ref_graph_runs_and_keeps_its_variables():
    module = tt.load_mlir(REF_MODULE)
    module.run(np.array([2.0, 4.0], np.float32), np.array([10.0, 10.0], np.float32))
    w = module._program.resources[("ref", "", "w")]
    # accum = g; w = 10 - 0.5 * g; then w -= 0.5 * g
    np.testing.assert_array_equal(w.numpy(), [8.0, 6.0])
    np.testing.assert_array_equal(module._program.resources[("ref", "", "m")].numpy(), [2.0, 4.0])
    text = tt.mlir.print(module.module)
    assert "tensor<2x!tf_type.f32ref>" in text and '"tf.ApplyMomentum"' in text


def test_traced_training_ops_print_tensorflows_form():
    var, m, v = (tt.Variable(np.zeros(3, np.float32)) for _ in range(3))

    @tt.function
    def step(g):
        training.resource_apply_adam(var, m, v, 0.9, 0.999, 0.1, 0.9, 0.999, 1e-7, g, use_nesterov=True)
        return var.read_value()

    out = step(tt.constant([1.0, -1.0, 2.0]))
    # Nesterov at t=1: step = lr * (g (1 - b1) + b1 m) / |g| (1 - b1) = 1.9 lr sign(g)
    np.testing.assert_allclose(out.numpy(), [-0.19, 0.19, -0.19], rtol=1e-4)
    text = step.get_concrete_function(tt.TensorSpec([3], tt.float32)).mlir()
    assert '"tf.ResourceApplyAdam"(%arg1, %arg2, %arg3,' in text
    assert "<{use_locking = false, use_nesterov = true}>" in text
    reparsed = tt.mlir.print(tt.mlir.parse(text))
    assert '"tf.ResourceApplyAdam"' in reparsed


def test_traced_ref_ops_have_ref_types():
    @tt.function
    def f(x):
        ref = ref_variables.variable_v2([2], tt.float32, shared_name="test_traced_ref")
        ref = ref_variables.assign(ref, x)
        return training.apply_gradient_descent(ref, 1.0, x)

    text = f.get_concrete_function(tt.TensorSpec([2], tt.float32)).mlir()
    assert '"tf.VariableV2"() <{container = "", shape = #tf_type.shape<2>, shared_name = "test_traced_ref"}>' \
           ' : () -> tensor<2x!tf_type.f32ref>' in text
    assert "(tensor<2x!tf_type.f32ref>, tensor<f32>, tensor<2xf32>) -> tensor<2x!tf_type.f32ref>" in text
    np.testing.assert_array_equal(f(tt.constant([1.0, 2.0])).numpy(), [0.0, 0.0])  # x - 1 * x


# --- optimizers ------------------------------------------------------------------------------------

def _reference_run(name, grads, x0):
    x = x0.copy()
    slots = [np.zeros_like(x), np.zeros_like(x)]
    for t, g in enumerate(grads, 1):
        if name == "sgd":
            x = ref_gd(x, 0.1, g)
        elif name == "sgd_momentum":  # Keras: v = m v - lr g; x += v (nesterov: x += m v - lr g)
            slots[0] = 0.9 * slots[0] - 0.1 * g
            x = x + 0.9 * slots[0] - 0.1 * g
        elif name == "momentum":
            x, slots[0] = ref_momentum(x, slots[0], 0.1, g, 0.9, False)
        else:
            x, slots[0], slots[1] = ref_adam(x, slots[0], slots[1], 0.9 ** t, 0.999 ** t, 0.1, 0.9, 0.999, 1e-7, g,
                                             False)
    return x


MAKERS = {
    "sgd": lambda: optimizers.SGD(0.1),
    "sgd_momentum": lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "momentum": lambda: optimizers.Momentum(0.1, 0.9),
    "adam": lambda: optimizers.Adam(0.1),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("mode", ["eager", "function"])
def test_optimizers_match_the_reference(name, mode):
    x0 = rng.normal(size=(2, 2))
    grads = [rng.normal(size=(2, 2)) for _ in range(4)]
    var, other = tt.Variable(x0), tt.Variable(np.zeros(3))
    opt = MAKERS[name]()

    def step(g):
        opt.apply_gradients([(g, var), (None, other)])  # a None gradient is skipped
        return var.read_value()

    run = tt.function(step) if mode == "function" else step
    for g in grads:
        run(tt.constant(g))
    np.testing.assert_allclose(var.numpy(), _reference_run(name, grads, x0), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(other.numpy(), np.zeros(3))
    assert int(opt.iterations.numpy()) == 4


def test_optimizer_minimize_and_slots():
    w = tt.Variable(np.array([3.0, -2.0]))
    opt = optimizers.Momentum(0.1, 0.5)
    for _ in range(200):
        opt.minimize(lambda: tt.math.reduce_sum(tt.square(w)), [w])
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0], atol=1e-6)
    assert opt.get_slot(w, "momentum").shape == (2,)


def test_optimizer_errors():
    with pytest.raises(InvalidArgumentError, match="no gradients"):
        optimizers.SGD().apply_gradients([(None, tt.Variable(1.0))])
    with pytest.raises(InvalidArgumentError, match="not a tt.Variable"):
        optimizers.SGD().apply_gradients([(np.ones(2), np.zeros(2))])
    with pytest.raises(InvalidArgumentError, match="momentum"):
        optimizers.SGD(momentum=-1.0)
