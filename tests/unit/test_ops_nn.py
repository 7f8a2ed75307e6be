"""tf.nn ops: activations and their gradient ops, Softmax, LogSoftmax, the two cross-entropy ops.

Kernels (``Cls.compute(np, ...)``) and shape rules (``Cls.infer``) run against numpy references from a
spec table; gradient ops against numerical derivatives of those references; the public functions
eagerly and in graph mode, with tinytf's gradient checker on every differentiable op.
"""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import activation_grads as ag
from tinytf.ops import nn
from tinytf.ops import softmax as sm

RNG = np.random.default_rng(1)
SCALE, ALPHA = 1.0507009873554805, 1.6732632423543772


def softmax_ref(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax_ref(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


# (op class, numpy reference in float64, attrs)
ACTIVATIONS = [
    (nn.Relu, lambda x: np.maximum(x, 0), {}),
    (nn.Relu6, lambda x: np.clip(x, 0, 6), {}),
    (nn.Elu, lambda x: np.where(x > 0, x, np.expm1(x)), {}),
    (nn.Selu, lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(x)), {}),
    (nn.Softplus, lambda x: np.logaddexp(0, x), {}),
    (nn.LeakyRelu, lambda x: np.where(x > 0, x, np.float32(0.2) * x), {"alpha": 0.2}),
    (nn.LeakyRelu, lambda x: np.where(x > 0, x, np.float32(0.01) * x), {"alpha": 0.01}),
]
VALUES = np.array([-1e4, -90, -20, -14, -13.5, -3, -1, -0.3, -1e-3, 0, 1e-3, 0.4, 1, 5.9, 6, 6.5, 13.5, 14, 20,
                   90, 1e4])


@pytest.mark.parametrize("cls,ref,attrs", ACTIVATIONS, ids=lambda v: getattr(v, "name", ""))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_activation_values(cls, ref, attrs, dtype):
    x = VALUES.astype(dtype)
    with np.errstate(over="ignore"):
        got = cls.compute(np, x, **attrs)
        want = ref(x.astype(np.float64))
    assert got.dtype == dtype and got.shape == x.shape
    tol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-12}[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(dtype).astype(np.float64), rtol=tol, atol=tol)
    assert cls.infer(TensorSpec([3, None], dtypes.as_dtype(dtype)), **attrs) == \
        TensorSpec([3, None], dtypes.as_dtype(dtype))


def test_activation_shapes_and_integer_inputs():
    assert nn.Relu6.compute(np, np.array([-3, 2, 9], np.int32)).tolist() == [0, 2, 6]
    assert nn.Relu6.compute(np, np.zeros((0, 3), np.float32)).shape == (0, 3)
    assert nn.Elu.compute(np, np.float32(-1.0)).shape == ()
    for cls in (nn.Elu, nn.Selu, nn.Softplus, nn.LeakyRelu):
        with pytest.raises(InvalidArgumentError, match=f"{cls.name}: input of dtype int32 is not supported"):
            cls.infer(TensorSpec([2], dtypes.int32), **({"alpha": 0.2} if cls is nn.LeakyRelu else {}))
    with pytest.raises(InvalidArgumentError, match="tf.Relu6: input of dtype bool"):
        nn.Relu6.infer(TensorSpec([2], dtypes.bool_))


def numeric_derivative(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


# (gradient op, forward reference, second operand from x: the input or the output, attrs)
GRAD_OPS = [
    (ag.Relu6Grad, lambda x: np.clip(x, 0, 6), "input", {}),
    (ag.EluGrad, lambda x: np.where(x > 0, x, np.expm1(x)), "output", {}),
    (ag.SeluGrad, lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(x)), "output", {}),
    (ag.SoftplusGrad, lambda x: np.logaddexp(0, x), "input", {}),
    (ag.LeakyReluGrad, lambda x: np.where(x > 0, x, 0.3 * np.float32(0.3) / 0.3 * x), "input", {"alpha": 0.3}),
]


@pytest.mark.parametrize("cls,ref,operand,attrs", GRAD_OPS, ids=lambda v: getattr(v, "name", ""))
def test_gradient_ops_are_the_derivatives(cls, ref, operand, attrs):
    x = np.array([-5, -2, -0.7, -0.1, 0.2, 1.5, 5.5, 7.0, 12.0])
    g = RNG.standard_normal(x.shape)
    second = x if operand == "input" else ref(x)
    got = cls.compute(np, g, second, **attrs)
    np.testing.assert_allclose(got, g * numeric_derivative(ref, x), rtol=1e-6, atol=1e-8)
    assert cls.infer(TensorSpec([9], dtypes.float64), TensorSpec([None], dtypes.float64), **attrs) \
        == TensorSpec([9], dtypes.float64)
    with pytest.raises(InvalidArgumentError, match=rf"{cls.name}: gradients \[9\] and features \[8\]"):
        cls.infer(TensorSpec([9]), TensorSpec([8]), **attrs)
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: operands must have the same dtype"):
        cls.infer(TensorSpec([9], dtypes.float32), TensorSpec([9], dtypes.float64), **attrs)


def test_gradient_op_operand_names_follow_tensorflow():
    names = lambda cls: [n for n, _ in cls.get_irdl_definition().operands]  # noqa: E731
    assert names(ag.EluGrad) == names(ag.SeluGrad) == ["gradients", "outputs"]
    assert names(ag.Relu6Grad) == names(ag.SoftplusGrad) == names(ag.LeakyReluGrad) == ["gradients", "features"]
    assert names(nn.Relu) == names(nn.LeakyRelu) == ["features"]
    assert names(sm.SparseSoftmaxCrossEntropyWithLogits) == ["features", "labels"]
    assert [n for n, _ in sm.SparseSoftmaxCrossEntropyWithLogits.get_irdl_definition().results] == ["loss", "backprop"]


# --- softmax family ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 7), (4, 1), (0, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_and_log_softmax(shape, dtype):
    x = (RNG.standard_normal(shape) * 30).astype(dtype)
    x.flat[:1] = 1000  # large logits must not overflow
    got = sm.Softmax.compute(np, x)
    np.testing.assert_allclose(got, softmax_ref(x.astype(np.float64)), rtol=2e-6, atol=1e-30)
    np.testing.assert_allclose(sm.LogSoftmax.compute(np, x), log_softmax_ref(x.astype(np.float64)), rtol=2e-6,
                               atol=1e-5)
    assert got.dtype == dtype and np.isfinite(got).all()
    assert sm.Softmax.infer(TensorSpec(shape, dtypes.as_dtype(dtype))) == TensorSpec(shape, dtypes.as_dtype(dtype))


def test_softmax_bad_input():
    for cls in (sm.Softmax, sm.LogSoftmax):
        with pytest.raises(InvalidArgumentError, match=rf"{cls.name}: logits must have >= 1 dimension, got \[\]"):
            cls.infer(TensorSpec(()))
        with pytest.raises(InvalidArgumentError, match=f"{cls.name}: input of dtype int32"):
            cls.infer(TensorSpec([3], dtypes.int32))


def test_sparse_softmax_cross_entropy():
    f = RNG.standard_normal((4, 5)).astype(np.float32) * 3
    labels = np.array([0, 4, 2, 2], np.int64)
    loss, backprop = sm.SparseSoftmaxCrossEntropyWithLogits.compute(np, f, labels)
    f64 = f.astype(np.float64)
    np.testing.assert_allclose(loss, -log_softmax_ref(f64)[np.arange(4), labels], rtol=1e-6)
    np.testing.assert_allclose(backprop, softmax_ref(f64) - np.eye(5)[labels], atol=1e-7)
    assert loss.dtype == backprop.dtype == np.float32
    out = sm.SparseSoftmaxCrossEntropyWithLogits.infer(TensorSpec([4, None]), TensorSpec([None], dtypes.int32))
    assert out == [TensorSpec([4]), TensorSpec([4, None])]


@pytest.mark.parametrize("labels,bad", [([0, 5, 1], 5), ([-1, 0, 0], -1)])
def test_sparse_softmax_cross_entropy_rejects_out_of_range_labels(labels, bad):
    f = np.zeros((3, 5), np.float32)
    message = rf"Received a label value of {bad} which is outside the valid range of \[0, 5\)"
    with pytest.raises(InvalidArgumentError, match=message) as err:
        sm.SparseSoftmaxCrossEntropyWithLogits.compute(np, f, np.array(labels, np.int32))
    assert err.value.op == "tf.SparseSoftmaxCrossEntropyWithLogits"


def test_sparse_softmax_cross_entropy_bad_shapes():
    op = sm.SparseSoftmaxCrossEntropyWithLogits
    with pytest.raises(InvalidArgumentError, match=r"logits must be 2-D, but got shape \[4\]"):
        op.infer(TensorSpec([4]), TensorSpec([4], dtypes.int32))
    with pytest.raises(InvalidArgumentError, match=r"labels must be 1-D, but got shape \[4,1\]"):
        op.infer(TensorSpec([4, 3]), TensorSpec([4, 1], dtypes.int32))
    with pytest.raises(InvalidArgumentError, match=r"same first dimension, got logits shape \[4,3\] and labels shape "
                                                   r"\[3\]"):
        op.infer(TensorSpec([4, 3]), TensorSpec([3], dtypes.int32))
    with pytest.raises(InvalidArgumentError, match="labels of dtype float32 is not supported"):
        op.infer(TensorSpec([4, 3]), TensorSpec([4]))


def test_softmax_cross_entropy_broadcasts():
    f = RNG.standard_normal((4, 5))
    labels = softmax_ref(RNG.standard_normal((1, 5)))
    loss, backprop = sm.SoftmaxCrossEntropyWithLogits.compute(np, f, labels)
    np.testing.assert_allclose(loss, -(labels * log_softmax_ref(f)).sum(-1), rtol=1e-12)
    np.testing.assert_allclose(backprop, softmax_ref(f) - labels, atol=1e-15)
    assert sm.SoftmaxCrossEntropyWithLogits.infer(TensorSpec([4, 5]), TensorSpec([1, 5])) == \
        [TensorSpec([4]), TensorSpec([4, 5])]
    with pytest.raises(InvalidArgumentError, match=r"incompatible shapes \[4,5\] and \[4,3\]"):
        sm.SoftmaxCrossEntropyWithLogits.infer(TensorSpec([4, 5]), TensorSpec([4, 3]))
    with pytest.raises(InvalidArgumentError, match=r"labels must be 2-dimensional, but got shape \[5\]"):
        sm.SoftmaxCrossEntropyWithLogits.infer(TensorSpec([4, 5]), TensorSpec([5]))


def test_cross_entropy_under_jax_gives_nan_for_bad_labels():
    import jax.numpy as jnp

    f = np.zeros((2, 3), np.float32)
    loss, backprop = sm.SparseSoftmaxCrossEntropyWithLogits.compute(jnp, jnp.asarray(f), jnp.asarray([1, 3]))
    loss, backprop = np.asarray(loss), np.asarray(backprop)
    np.testing.assert_allclose(loss[0], np.log(3), rtol=1e-6)
    assert np.isnan(loss[1]) and np.isnan(backprop[1]).all() and not np.isnan(backprop[0]).any()


# --- public functions, eagerly and in graph mode -----------------------------------------------

def tensor(a):
    return tt.constant(a, dtype=a.dtype)  # (tt.constant alone makes a float64 array float32)


def run(fn, *args, use_function=False):
    out = (tt.function(fn) if use_function else fn)(*[tensor(a) for a in args])
    return [np.asarray(o) for o in out] if isinstance(out, list | tuple) else np.asarray(out)


@pytest.mark.parametrize("use_function", [False, True])
def test_public_functions(use_function):
    x = RNG.standard_normal((3, 4))
    cases = [
        (tt.nn.relu6, lambda v: np.clip(v * 4, 0, 6), lambda v: tt.nn.relu6(v * 4.0)),
        (tt.nn.elu, lambda v: np.where(v > 0, v, np.expm1(v)), tt.nn.elu),
        (tt.nn.selu, lambda v: SCALE * np.where(v > 0, v, ALPHA * np.expm1(v)), tt.nn.selu),
        (tt.nn.softplus, lambda v: np.logaddexp(0, v), tt.nn.softplus),
        (tt.nn.leaky_relu, lambda v: np.where(v > 0, v, np.float64(np.float32(0.2)) * v), tt.nn.leaky_relu),
        (tt.nn.softmax, lambda v: softmax_ref(v, 0), lambda v: tt.nn.softmax(v, axis=0)),
        (tt.nn.log_softmax, log_softmax_ref, tt.nn.log_softmax),
        (tt.nn.gelu, lambda v: 0.5 * v * (1 + np.vectorize(__import__("math").erf)(v / np.sqrt(2))), tt.nn.gelu),
        (tt.nn.gelu, lambda v: 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3))),
         lambda v: tt.nn.gelu(v, approximate=True)),
    ]
    for _, ref, fn in cases:
        np.testing.assert_allclose(run(fn, x, use_function=use_function), ref(x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("use_function", [False, True])
def test_cross_entropy_public_functions(use_function):
    logits = RNG.standard_normal((2, 3, 5))
    labels = RNG.integers(0, 5, (2, 3)).astype(np.int32)
    got = run(lambda lab, lg: tt.nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=lg), labels, logits,
              use_function=use_function)
    want = -np.take_along_axis(log_softmax_ref(logits), labels[..., None].astype(np.int64), -1)[..., 0]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    dist = softmax_ref(RNG.standard_normal((5, 3)), 0)  # classes along axis 0
    lg = RNG.standard_normal((5, 3))
    got = run(lambda a, b: tt.nn.softmax_cross_entropy_with_logits(a, b, axis=0), dist, lg, use_function=use_function)
    np.testing.assert_allclose(got, -(dist * log_softmax_ref(lg, 0)).sum(0), rtol=1e-12)
    got = run(lambda a, b: tt.nn.softmax_cross_entropy_with_logits(a, b), dist.T, lg.T, use_function=use_function)
    np.testing.assert_allclose(got, -(dist * log_softmax_ref(lg, 0)).sum(0), rtol=1e-12)


def test_eager_errors_name_the_op():
    with pytest.raises(InvalidArgumentError, match="tf.SparseSoftmaxCrossEntropyWithLogits: Received a label value of 7"):
        tt.nn.sparse_softmax_cross_entropy_with_logits(labels=tt.constant([7]), logits=tt.constant([[1.0, 2.0]]))
    with pytest.raises(InvalidArgumentError, match="tf.Softmax"):
        tt.nn.softmax(tt.constant([1, 2]))


# --- gradients: the tape against central differences ------------------------------------------

def weights(x, values):
    """A constant in x's dtype (so one model serves float32 and float64 checks)."""
    return tt.constant(np.asarray(values, x.dtype.np), dtype=x.dtype)


GRAD_MODELS = {
    "relu6": (lambda x: tt.nn.relu6(x * 4.0), [np.array([[-1.1, 0.3, 0.9], [1.6, 2.2, -0.2]])]),
    "elu": (tt.nn.elu, [RNG.standard_normal((2, 3))]),
    "selu": (tt.nn.selu, [RNG.standard_normal((2, 3))]),
    "softplus": (tt.nn.softplus, [RNG.standard_normal((2, 3)) * 5]),
    "leaky_relu": (lambda x: tt.nn.leaky_relu(x, 0.1), [RNG.standard_normal((2, 3))]),
    "softmax": (lambda x: tt.nn.softmax(x) * weights(x, [[1, 2, 3]]), [RNG.standard_normal((2, 3))]),
    "softmax_axis0": (lambda x: tt.nn.softmax(x, axis=0) * weights(x, [[1, 2, 3]]), [RNG.standard_normal((2, 3))]),
    "log_softmax": (lambda x: tt.nn.log_softmax(x) * weights(x, [[1, -2, 3]]), [RNG.standard_normal((2, 3))]),
    "sparse_xent": (lambda x, lab: tt.nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=x)
                    * weights(x, [1, 3]), [RNG.standard_normal((2, 4)), np.array([3, 0], np.int32)]),
    "xent": (lambda x, p: tt.nn.softmax_cross_entropy_with_logits(p, x) * weights(x, [1, 3]),
             [RNG.standard_normal((2, 4)), softmax_ref(RNG.standard_normal((2, 4)))]),
    "gelu": (tt.nn.gelu, [RNG.standard_normal((2, 3))]),
    "bias_add": (lambda x, b: tt.nn.bias_add(x, b) * x, [RNG.standard_normal((2, 3)), RNG.standard_normal(3)]),
}


def eager_check(model, inputs, atol=1e-6, rtol=1e-5):
    """Eager tape gradients of sum(model) against central differences of the eager model, in float64."""
    tensors = [tensor(a) for a in inputs]
    floats = [i for i, a in enumerate(inputs) if a.dtype.kind == "f"]
    with tt.GradientTape() as tape:
        for i in floats:
            tape.watch(tensors[i])
        y = tt.reduce_sum(model(*tensors))
    grads = tape.gradient(y, [tensors[i] for i in floats])
    for i, g in zip(floats, grads):
        numerical = np.zeros(inputs[i].shape)
        for k in range(inputs[i].size):
            shifted = []
            for sign in (1, -1):
                a = inputs[i].copy()
                a.flat[k] += sign * 1e-6
                args = [tensor(a) if j == i else t for j, t in enumerate(tensors)]
                shifted.append(float(np.asarray(tt.reduce_sum(model(*args)))))
            numerical.flat[k] = (shifted[0] - shifted[1]) / 2e-6
        np.testing.assert_allclose(np.asarray(g), numerical, atol=atol, rtol=rtol, err_msg=f"input {i}")


@pytest.mark.parametrize("name", sorted(GRAD_MODELS))
def test_gradients_eager(name):
    model, inputs = GRAD_MODELS[name]
    eager_check(model, inputs)


@pytest.mark.parametrize("name", sorted(GRAD_MODELS))
def test_gradients_graph_mode(name):
    """tinytf's vectorised checker: the model and its tape traced to graphs, every element, float64."""
    model, inputs = GRAD_MODELS[name]
    report = tt.gradcheck.check_gradients(model, inputs)  # atol 1e-5, rtol 1e-3 on random output projections
    assert report.ok and any(r.skipped is None for r in report.inputs)


def second_order(fn):
    """The model d(sum fn(x)^2)/dx: checking its gradient checks the gradient ops' own gradients."""
    def model(*xs):
        with tt.GradientTape() as tape:
            tape.watch(xs[0])
            y = fn(*xs)
            y = tt.reduce_sum(y * y)
        return tape.gradient(y, xs[0])
    return model


@pytest.mark.parametrize("name", ["relu6", "elu", "selu", "softplus", "leaky_relu", "softmax", "log_softmax",
                                  "sparse_xent", "xent"])
def test_second_order_gradients_match_numerical(name):
    model, inputs = GRAD_MODELS[name]
    eager_check(second_order(model), inputs, atol=1e-5, rtol=1e-4)
    tt.gradcheck.check_gradients(second_order(model), inputs)


# --- the same compute under jax.numpy (what XLA lowers) ----------------------------------------

def test_compute_under_jax_numpy_matches_numpy():
    import jax.numpy as jnp

    x = (RNG.standard_normal((3, 5)) * 8).astype(np.float32)
    g = RNG.standard_normal((3, 5)).astype(np.float32)
    cases = [(cls, (x,), attrs) for cls, _, attrs in ACTIVATIONS]
    cases += [(cls, (g, x), attrs) for cls, _, _, attrs in GRAD_OPS] + [(ag.ReluGrad, (g, x), {})]
    cases += [(sm.Softmax, (x,), {}), (sm.LogSoftmax, (x,), {}), (nn.BiasAdd, (x, g[0]), {"data_format": "NHWC"}),
              (sm.SparseSoftmaxCrossEntropyWithLogits, (x, np.array([0, 4, 2], np.int32)), {}),
              (sm.SoftmaxCrossEntropyWithLogits, (x, softmax_ref(g).astype(np.float32)), {})]
    for cls, args, attrs in cases:
        want = cls.compute(np, *args, **attrs)
        got = cls.compute(jnp, *[jnp.asarray(a) for a in args], **attrs)
        for w, o in zip(want if isinstance(want, tuple) else [want], got if isinstance(got, tuple) else [got]):
            np.testing.assert_allclose(np.asarray(o), w, rtol=2e-6, atol=1e-6, err_msg=cls.name)
            assert np.asarray(o).dtype == w.dtype, cls.name


def test_every_op_in_the_module_has_its_rules():
    from tinytf.framework.op import REGISTRY

    ops = [cls for cls in REGISTRY.values() if cls.__module__ in (nn.__name__, ag.__name__, sm.__name__)]
    assert {cls.name for cls in ops} >= {"tf.Relu6", "tf.Elu", "tf.Selu", "tf.Softplus", "tf.LeakyRelu", "tf.Softmax",
                                         "tf.LogSoftmax", "tf.SparseSoftmaxCrossEntropyWithLogits",
                                         "tf.SoftmaxCrossEntropyWithLogits", "tf.Relu6Grad", "tf.EluGrad",
                                         "tf.SeluGrad", "tf.SoftplusGrad", "tf.LeakyReluGrad"}
    for cls in ops:
        assert callable(cls.infer) and callable(cls.compute) and callable(cls.grad), cls.name


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tinytf.errors import OpError  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=3), st.lists(st.integers(0, 4), max_size=3),
       st.sampled_from(["float32", "float64", "int32", "int64", "bool"]), st.integers(-3, 6))
def test_random_inputs_raise_only_tinytf_errors(fshape, lshape, dtype, label):
    """The checked path (shape rule on the values, then compute) raises tinytf errors or succeeds."""
    f = np.ones(fshape, dtype)
    lab = np.full(lshape, label, np.int32 if dtype in ("float32", "float64") else dtype)
    cases = [(cls, (f,)) for cls in (sm.Softmax, sm.LogSoftmax, nn.Elu, nn.Softplus, nn.Relu6)]
    cases += [(sm.SparseSoftmaxCrossEntropyWithLogits, (f, lab)), (sm.SoftmaxCrossEntropyWithLogits, (f, lab)),
              (sm.SoftmaxCrossEntropyWithLogits, (f, lab.astype(f.dtype))), (ag.EluGrad, (f, lab)),
              (ag.LeakyReluGrad, (f, f))]
    for cls, arrays in cases:
        attrs = cls.complete_attrs({})
        try:
            specs = cls.infer(*[TensorSpec(a.shape, dtypes.as_dtype(a.dtype), value=a) for a in arrays], **attrs)
            out = cls.compute(np, *arrays, **attrs)
        except OpError:
            continue
        outs, specs = (out, specs) if isinstance(out, tuple) else ((out,), [specs])
        assert [o.shape for o in outs] == [s.shape for s in specs], cls.name
