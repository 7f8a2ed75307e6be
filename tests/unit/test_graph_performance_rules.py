"""What makes graph mode fast, checked by value and structure (never by time): gradient rules skip
inputs nobody asked for (``op.skip_input_indices``), ``tt.function`` optimizes the traced module
(canonicalize with constant folding, cse, dce), and a traced function runs as a static plan (shape
rules once at compile time, bare kernels, buffer forwarding) with the general plan's semantics."""
from __future__ import annotations

import re
import tracemalloc
import warnings

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InternalError, InvalidArgumentError, ResourceExhaustedError
from tinytf.framework.custom_op import register_op, unregister_op
from tinytf.framework.kernel import set_allocation_limit
from tinytf.framework.op import REGISTRY
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.linalg import BatchMatMulV2
from tinytf.ops.math import MatMul
from tinytf.runtime import forwarding
from tinytf.runtime.executor import Program
from tinytf.runtime.static_plan import StaticPlan


def _count(text: str, op: str) -> int:
    return len(re.findall(rf'"{re.escape(op)}"\(', text))


def _mlp_data(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((8, 16)).astype(np.float32), rng.standard_normal((8, 3)).astype(np.float32),
            (rng.standard_normal((16, 16)) / 4).astype(np.float32), (rng.standard_normal((16, 3)) / 4).astype(np.float32))


def _numpy_step(x, y, w1, w2, lr=0.1):
    h = np.tanh(x @ w1)
    d = h @ w2 - y
    g = d * np.float32(2 / d.size)
    g1 = x.T @ ((g @ w2.T) * (1 - h * h))
    return np.mean(d * d), w1 - lr * g1, w2 - lr * (h.T @ g)


def _tt_step(v1, v2, lr=0.1):
    def step(x, y):
        with tt.GradientTape() as tape:
            d = tt.matmul(tt.tanh(tt.matmul(x, v1)), v2) - y
            loss = tt.reduce_mean(d * d)
        g1, g2 = tape.gradient(loss, [v1, v2])
        v1.assign_sub(lr * g1)
        v2.assign_sub(lr * g2)
        return loss
    return step


# --- skip_input_indices ----------------------------------------------------------------------------

@pytest.fixture
def recorded_skips(monkeypatch):
    """MatMul.grad wrapped to record ``op.skip_input_indices`` of each call."""
    seen = []
    rule = MatMul.grad

    def spy(op, dy):
        seen.append(tuple(op.skip_input_indices))
        return rule(op, dy)

    monkeypatch.setattr(MatMul, "grad", staticmethod(spy))
    return seen


def test_skip_input_indices_name_the_inputs_no_source_reaches(recorded_skips):
    a = tt.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tt.Variable(np.array([[0.5, -1.0], [1.0, 1.0]], np.float32))
    with tt.GradientTape(persistent=True) as tape:
        tape.watch(a)
        p = tt.matmul(a, b)
    db = tape.gradient(p, b)
    da = tape.gradient(p, a)
    both = tape.gradient(p, [a, b])
    assert recorded_skips == [(0,), (1,), ()]
    # TensorFlow's documented values: dA = [[-0.5, 2], [-0.5, 2]]
    np.testing.assert_allclose(da.numpy(), [[-0.5, 2.0], [-0.5, 2.0]])
    np.testing.assert_allclose(both[0].numpy(), da.numpy())
    np.testing.assert_allclose(db.numpy(), a.numpy().T @ np.ones((2, 2), np.float32))
    np.testing.assert_allclose(both[1].numpy(), db.numpy())


def test_matmul_gradient_of_the_weight_only_traces_no_data_gradient():
    x, y, w1, w2 = _mlp_data()
    v1, v2 = tt.Variable(w1), tt.Variable(w2)
    f = tt.function(_tt_step(v1, v2))
    loss = f(tt.constant(x), tt.constant(y))
    want_loss, want1, want2 = _numpy_step(x, y, w1, w2)
    np.testing.assert_allclose(loss.numpy(), want_loss, rtol=1e-5)
    np.testing.assert_allclose(v1.numpy(), want1, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(v2.numpy(), want2, rtol=1e-4, atol=1e-6)
    text = f.get_concrete_function(tt.TensorSpec([8, 16]), tt.TensorSpec([8, 3])).mlir()
    # forward: 2; backward: dW2, dH, dW1 -- no gradient of x (an argument no source reaches)
    assert _count(text, "tf.MatMul") == 5
    assert _count(text, "tf.Neg") == 0  # the Sub's gradient of y is not computed either


@pytest.mark.parametrize("transpose_a,transpose_b", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_skipped_gradients_keep_the_values(transpose_a, transpose_b):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4) if not transpose_a else (4, 3))
    b = rng.standard_normal((4, 2) if not transpose_b else (2, 4))
    va, vb = tt.Variable(a), tt.Variable(b)
    with tt.GradientTape(persistent=True) as tape:
        p = tt.matmul(va, vb, transpose_a=transpose_a, transpose_b=transpose_b)
    both = tape.gradient(p, [va, vb])
    only_a, only_b = tape.gradient(p, va), tape.gradient(p, vb)
    np.testing.assert_allclose(only_a.numpy(), both[0].numpy(), rtol=1e-15)
    np.testing.assert_allclose(only_b.numpy(), both[1].numpy(), rtol=1e-15)
    ones = np.ones((3, 2))
    da = ones @ (b.T if not transpose_b else b)
    np.testing.assert_allclose(only_a.numpy(), da if not transpose_a else da.T, rtol=1e-12)


def test_batch_matmul_gradient_of_one_input_only(monkeypatch):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5))
    vw = tt.Variable(w)
    returned = []
    rule = BatchMatMulV2.grad

    def spy(op, dy):
        returned.append(rule(op, dy))
        return returned[-1]

    monkeypatch.setattr(BatchMatMulV2, "grad", staticmethod(spy))
    with tt.GradientTape() as tape:
        loss = tt.reduce_sum(tt.matmul(tt.constant(x), vw))
    got = tape.gradient(loss, vw)
    np.testing.assert_allclose(got.numpy(), x.sum(axis=(0, 1))[:, None] * np.ones((1, 5)), rtol=1e-12)
    assert len(returned) == 1 and returned[0][0] is None and returned[0][1] is not None  # no dX computed
    xs = tt.Variable(x)
    with tt.GradientTape() as tape:
        loss = tt.reduce_sum(tt.matmul(xs, vw))
    dx, dw = tape.gradient(loss, [xs, vw])
    np.testing.assert_allclose(dx.numpy(), np.ones((2, 3, 5)) @ w.T, rtol=1e-12)
    np.testing.assert_allclose(dw.numpy(), got.numpy(), rtol=1e-12)


def test_eager_step_computes_five_matmuls(monkeypatch):
    returned = []
    rule = MatMul.grad

    def spy(op, dy):
        returned.append(rule(op, dy))
        return returned[-1]

    monkeypatch.setattr(MatMul, "grad", staticmethod(spy))
    x, y, w1, w2 = _mlp_data()
    v1, v2 = tt.Variable(w1), tt.Variable(w2)
    loss = _tt_step(v1, v2)(tt.constant(x), tt.constant(y))
    # backward: dH and dW2 for h @ w2, only dW1 for x @ w1 (with the 2 forward products: 5 matmuls)
    assert [[g is not None for g in grads] for grads in returned] == [[True, True], [False, True]]
    want_loss, want1, want2 = _numpy_step(x, y, w1, w2)
    np.testing.assert_allclose(loss.numpy(), want_loss, rtol=1e-5)
    np.testing.assert_allclose(v1.numpy(), want1, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(v2.numpy(), want2, rtol=1e-4, atol=1e-6)


def test_second_derivative_still_flows_through_skipped_rules():
    x = tt.Variable(np.array(3.0))
    with tt.GradientTape() as outer:
        with tt.GradientTape() as inner:
            y = x * x * x
        dy = inner.gradient(y, x)
    np.testing.assert_allclose(dy.numpy(), 27.0)
    np.testing.assert_allclose(outer.gradient(dy, x).numpy(), 18.0)


# --- the traced module is optimized ------------------------------------------------------------------

def test_traced_module_is_canonicalized_cse_and_dce():
    x, y, w1, w2 = _mlp_data()
    v1, v2 = tt.Variable(w1), tt.Variable(w2)
    text = tt.function(_tt_step(v1, v2)).get_concrete_function(tt.TensorSpec([8, 16]), tt.TensorSpec([8, 3])).mlir()
    assert _count(text, "tf.BroadcastTo") == 0 and _count(text, "tf.Reshape") == 0  # folded constants
    muls = re.findall(r'"tf.Mul"\((%\w+), (%\w+)\)', text)
    assert len(muls) == len(set(muls))  # no product computed twice
    assert _count(text, "tf.Identity") == 1  # the return's Identity stays
    assert _count(text, "tf.AssignSubVariableOp") == 2 and _count(text, "tf.ReadVariableOp") == 2  # one per weight
    tt.mlir.verify(tt.mlir.parse(text))


def test_constant_folding_never_folds_identity_or_resource_ops():
    v = tt.Variable(np.float32(2.0))

    @tt.function
    def f(x):
        c = tt.identity(tt.constant(3.0)) * 2.0  # Identity keeps its constant (NoConstantFold)
        v.assign_add(tt.constant(1.0) + 1.0)     # the value folds, the update stays
        return x * c + tt.constant(1.0) * 4.0

    out = f(tt.constant([1.0, 2.0]))
    np.testing.assert_allclose(out.numpy(), [10.0, 16.0])
    np.testing.assert_allclose(v.numpy(), 4.0)
    text = f.get_concrete_function(tt.TensorSpec([2])).mlir()
    assert _count(text, "tf.Identity") == 2 and _count(text, "tf.AssignAddVariableOp") == 1
    assert "dense<4.000000e+00>" in text and "dense<2.000000e+00>" in text  # 1*4 and 1+1 folded
    f(tt.constant([1.0, 2.0]))
    np.testing.assert_allclose(v.numpy(), 6.0)


def test_unused_results_are_dropped_but_side_effects_stay():
    v = tt.Variable(np.zeros(2, np.float32))

    @tt.function
    def f(x):
        tt.exp(x) * 3.0   # unused: dead
        v.assign_add(x)   # a side effect: kept
        return x + 1.0

    np.testing.assert_allclose(f(tt.constant([1.0, 2.0])).numpy(), [2.0, 3.0])
    np.testing.assert_allclose(v.numpy(), [1.0, 2.0])
    text = f.get_concrete_function(tt.TensorSpec([2])).mlir()
    assert _count(text, "tf.Exp") == 0 and _count(text, "tf.AssignAddVariableOp") == 1


# --- static plans --------------------------------------------------------------------------------------

def _plan(f, *specs):
    cf = f.get_concrete_function(*specs)
    return cf, cf._program.plan(cf.name)


def test_traced_functions_run_as_static_plans_with_the_general_plans_values():
    x, y, w1, w2 = _mlp_data(3)
    results = {}
    for label in ("static", "general"):
        v1, v2 = tt.Variable(w1), tt.Variable(w2)
        f = tt.function(_tt_step(v1, v2))
        cf, plan = _plan(f, tt.TensorSpec([8, 16]), tt.TensorSpec([8, 3]))
        if label == "general":
            program = Program(cf.module)  # not trusted: shape rules at run time
            losses = [program.run(cf.name, [x, y, v1, v2])[0] for _ in range(3)]
        else:
            assert isinstance(plan, StaticPlan) and "def plan(" in plan.source
            losses = [cf(tt.constant(x), tt.constant(y)).numpy() for _ in range(3)]
        results[label] = (losses, v1.numpy(), v2.numpy())
    for got, want in zip(results["static"], results["general"]):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))  # bit-identical
    np.testing.assert_array_equal(x, _mlp_data(3)[0])  # arguments are never written


def test_static_plan_forwards_dying_buffers_only():
    @tt.function
    def f(x):
        y = tt.math.exp(x)
        a = tt.math.negative(y)          # y is read again below: not forwarded here
        b = tt.math.abs(y) * 2.0
        return a + b + tt.math.square(y) + tt.tanh(x)

    x = np.array([0.0, 1.0, -1.0, 2.0])
    keep = x.copy()
    y = np.exp(x)
    for _ in range(2):  # a second run sees the same constants
        out = f(tt.constant(x)).numpy()
        np.testing.assert_allclose(out, -y + np.abs(y) * 2.0 + y * y + np.tanh(x), rtol=1e-15)
    np.testing.assert_array_equal(x, keep)


def test_static_plan_memory_tracks_one_buffer_down_a_chain():
    @tt.function
    def f(x):
        for i in range(10):
            x = tt.math.tanh(x) if i % 2 else x * 0.5
        return x

    x = np.random.default_rng(0).normal(size=250_000)
    tx = tt.constant(x)
    f(tx)  # trace and compile first
    tracemalloc.start()
    out = f(tx)
    peak = tracemalloc.get_traced_memory()[1] / x.nbytes
    tracemalloc.stop()
    want = x
    for i in range(10):
        want = np.tanh(want) if i % 2 else want * 0.5
    np.testing.assert_array_equal(out.numpy(), want)
    assert peak <= 1.1  # the output's buffer, reused by every step


def test_static_plan_never_writes_a_variables_buffer():
    v = tt.Variable(np.array([1.0, 2.0]))

    @tt.function
    def f(x):
        return tt.exp(v.value()) + x  # the read value dies at Exp: it is the variable's buffer

    x = tt.constant(np.zeros(2))
    np.testing.assert_allclose(f(x).numpy(), np.exp([1.0, 2.0]), rtol=1e-15)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(f(x + 1.0).numpy(), np.exp([1.0, 2.0]) + 1.0, rtol=1e-15)


def test_partial_shapes_keep_the_general_runners():
    @tt.function(input_signature=[tt.TensorSpec([None, 2])])
    def f(x):
        return tt.reduce_sum(x * 2.0, axis=0) + tt.constant([1.0, 1.0]) * 3.0

    for n in (1, 3):
        x = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
        np.testing.assert_allclose(f(tt.constant(x)).numpy(), (x * 2).sum(axis=0) + 3.0)
    plan = f.get_concrete_function()._program.plan(f.get_concrete_function().name)
    assert "_a = [" in plan.source  # the partially shaped ops run through their general runner


def test_a_variable_declared_with_unknown_dims_keeps_the_general_plan():
    v = tt.Variable(np.zeros(2, np.float32), shape=[None])

    @tt.function
    def f(x):
        return tt.reduce_sum(v.value()) + x

    np.testing.assert_allclose(f(tt.constant(1.0)).numpy(), 1.0)
    v.assign(np.ones(2, np.float32))
    np.testing.assert_allclose(f(tt.constant(1.0)).numpy(), 3.0)
    cf = f.get_concrete_function(tt.TensorSpec([], tt.float32))
    assert not isinstance(cf._program.plan(cf.name), StaticPlan)


def test_a_smaller_allocation_limit_after_compiling_is_still_enforced():
    @tt.function
    def f(a, b):
        return a + b  # a broadcast result larger than either input

    a, b = tt.constant(np.ones((300, 1))), tt.constant(np.ones((1, 300)))
    np.testing.assert_array_equal(f(a, b).numpy(), np.full((300, 300), 2.0))
    previous = set_allocation_limit(1000)
    try:
        with pytest.raises(ResourceExhaustedError, match="tf.AddV2"):
            f(a, b)
    finally:
        set_allocation_limit(previous)
    np.testing.assert_array_equal(f(a, b).numpy(), np.full((300, 300), 2.0))


@pytest.fixture
def picky_op():
    def compute(xp, x):
        if np.any(x < 0):
            raise ValueError("negative input")
        return xp.sqrt(x)

    op = register_op("TestPickySqrt", inputs=["x"], outputs=["y"], compute=compute,
                     shape_fn=lambda x: TensorSpec(x.shape, x.dtype))
    yield op
    unregister_op("TestPickySqrt")


def test_a_bare_kernel_failure_is_reported_like_the_general_runner(picky_op):
    @tt.function
    def f(x):
        return picky_op(tt.exp(x) - 2.0) * 3.0

    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(f(tt.constant(x)).numpy(), np.sqrt(np.exp(x) - np.float32(2)) * np.float32(3), rtol=1e-6)
    cf = f.get_concrete_function(tt.TensorSpec([2], tt.float32))
    # a compute raising a plain ValueError is a kernel bug (bad input is the shape rule's to refuse)
    with pytest.raises(InternalError, match="tf.TestPickySqrt.*negative input") as static_err:
        f(tt.constant([0.0, 2.0]))
    with pytest.raises(InternalError, match="tf.TestPickySqrt.*negative input") as general_err:
        Program(cf.module).run(cf.name, [np.array([0.0, 2.0], np.float32)])
    assert str(static_err.value) == str(general_err.value)
    assert isinstance(static_err.value.__cause__, ValueError) and isinstance(general_err.value.__cause__, ValueError)


# --- kernels -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("into", ["y", "dy", "new"])
def test_tanh_grad_forwarding_writer_into_either_input(into):
    rng = np.random.default_rng(4)
    y, dy = np.tanh(rng.standard_normal(64)).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    want = tt.raw_ops.TanhGrad(y=y, dy=dy).numpy() if hasattr(tt, "raw_ops") else dy * (1 - y * y)
    arrays = [y.copy(), dy.copy()]
    out = {"y": arrays[0], "dy": arrays[1], "new": np.empty_like(y)}[into]
    forwarding.writer(REGISTRY["tf.TanhGrad"])(arrays, out)
    np.testing.assert_array_equal(out, want)


def test_float_mean_values_and_empty_mean_without_warnings():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(tt.reduce_mean(x, axis=0).numpy(), x.mean(axis=0))
    np.testing.assert_array_equal(tt.reduce_mean(x, axis=[-1], keepdims=True).numpy(), x.mean(axis=1, keepdims=True))
    assert tt.reduce_mean(x).numpy().dtype == np.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(tt.reduce_mean(np.zeros((0, 3), np.float32)).numpy())
        np.testing.assert_array_equal(tt.reduce_mean(np.zeros((0, 3), np.float64), axis=0).numpy(), [np.nan] * 3)
    np.testing.assert_array_equal(tt.reduce_mean(np.array([-1, -2], np.int32)).numpy(), -1)
    with pytest.raises(InvalidArgumentError, match="Invalid reduction dimension"):
        tt.reduce_mean(x, axis=2)
    with pytest.raises(InvalidArgumentError, match="duplicate"):
        tt.reduce_mean(x, axis=[1, -1])
