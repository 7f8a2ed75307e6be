"""Reductions, ArgMax/ArgMin (tinytf/ops/reduction.py) and Cumsum (scan.py) against numpy references.

Values for TensorFlow's special cases (integer means, empty reductions, NaN in ArgMax) are what
TensorFlow 2.21 returned for the same inputs.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tinytf  # noqa: F401  (installs the eager context)
from tinytf import dtypes
from tinytf.autodiff import GradientTape
from tinytf.errors import InvalidArgumentError
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import math as m
from tinytf.ops import reduction as r
from tinytf.ops import scan
from tinytf.ops.array import constant as _constant

BF16 = ml_dtypes.bfloat16


def constant(value, dtype=None):
    if dtype is None and isinstance(value, np.ndarray | np.generic):
        dtype = value.dtype
    return _constant(value, dtype=dtype)


def run(cls, *arrays, known=True, **attrs):
    """Shape rule and compute on numpy arrays; the result must match the inferred spec."""
    attrs = cls.complete_attrs(attrs)
    specs = [TensorSpec(a.shape, dtypes.as_dtype(a.dtype), value=a if known else None) for a in arrays]
    out_spec = cls.infer(*specs, **attrs)
    out = np.asarray(cls.compute(np, *arrays, **attrs))
    assert out.dtype == out_spec.dtype.np, (cls.name, out.dtype, out_spec.dtype)
    assert out.shape == out_spec.shape, (cls.name, out.shape, out_spec.shape)
    return out


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return np.asarray(rng.random(shape) > 0.3)
    if dt.kind == "u":
        return rng.integers(0, 5, shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-4, 5, shape).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dt)
    return rng.uniform(-2, 2, shape).astype(dt)


def close(actual, expected, dtype):
    dt = np.dtype(dtype)
    if dt.kind in "iub":
        np.testing.assert_array_equal(actual, expected)
        return
    tol = {np.dtype(BF16): 3e-2, np.dtype(np.float16): 3e-3, np.dtype(np.float32): 1e-5, np.dtype(np.complex64): 1e-5}.get(
        dt, 1e-12)
    wide = np.complex128 if dt.kind == "c" else np.float64
    np.testing.assert_allclose(np.asarray(actual).astype(wide), np.asarray(expected).astype(wide), rtol=tol,
                               atol=tol, equal_nan=True)


def _int_mean(x, axis, keepdims):
    """TensorFlow's integer mean: an exact sum, divided with truncation toward zero."""
    total = np.sum(x.astype(object), axis=axis, keepdims=keepdims)
    count = int(np.prod([x.shape[a] for a in axis])) if axis else 1
    trunc = np.vectorize(lambda s: 0 if count == 0 else (abs(int(s)) // count) * (1 if s >= 0 else -1),
                         otypes=[object])
    return trunc(total).astype(x.dtype)


def _mean(x, axis, keepdims):
    if x.dtype.kind in "iu":
        return _int_mean(x, axis, keepdims)
    wide = np.complex128 if x.dtype.kind == "c" else np.float64
    with np.errstate(all="ignore"):
        return np.mean(x.astype(wide), axis=axis, keepdims=keepdims)


def _wrap(f):
    """An exact reference (object ints / float64) wrapped to the dtype, as TensorFlow's kernels wrap."""
    def ref(x, axis, keepdims):
        if x.dtype.kind in "iu":
            exact = np.asarray(f(x.astype(object), axis=axis, keepdims=keepdims) if x.size else
                               f(x, axis=axis, keepdims=keepdims))
            return exact.astype(np.int64).astype(x.dtype)
        wide = np.complex128 if x.dtype.kind == "c" else np.float64
        return f(x.astype(wide), axis=axis, keepdims=keepdims)
    return ref


def _extreme(f, lowest):
    def ref(x, axis, keepdims):
        if x.dtype.kind == "f" or x.dtype == BF16:
            return f(x.astype(np.float64), axis=axis, keepdims=keepdims, initial=-np.inf if lowest else np.inf)
        init = np.iinfo(x.dtype).min if lowest else np.iinfo(x.dtype).max
        return f(x, axis=axis, keepdims=keepdims, initial=init)
    return ref


REDUCE = [
    (r.Sum, r.reduce_sum, _wrap(np.sum)), (r.Mean, r.reduce_mean, _mean), (r.Prod, r.reduce_prod, _wrap(np.prod)),
    (r.Max, r.reduce_max, _extreme(np.max, True)), (r.Min, r.reduce_min, _extreme(np.min, False)),
    (r.All, r.reduce_all, np.all), (r.Any, r.reduce_any, np.any),
]
CASES = [(c, f, ref, d) for c, f, ref in REDUCE for d in sorted(c.TYPES)]
AXES = [((2, 3, 4), [1]), ((2, 3, 4), -1), ((2, 3, 4), [0, 2]), ((2, 3, 4), [-1, 0]), ((2, 3, 4), []),
        ((2, 3, 4), [0, 1, 2]), ((), []), ((0, 3), [0]), ((0, 3), [1]), ((2, 3), [[1]])]


@pytest.mark.parametrize("cls,fn,ref,dtype", CASES, ids=[f"{c.name}-{d}" for c, _, _, d in CASES])
def test_reductions_match_numpy(cls, fn, ref, dtype):
    np_dtype = dtypes.as_dtype(dtype).np
    for i, (shape, axes) in enumerate(AXES):
        x = sample(np_dtype, shape, seed=i)
        axis_tuple = tuple(sorted(a % len(shape) for a in np.asarray(axes).reshape(-1).tolist()))
        for keep in (False, True):
            out = run(cls, x, np.asarray(axes, np.int32), keep_dims=keep)
            close(out, ref(x, axis=axis_tuple, keepdims=keep), np_dtype)
            eager = fn(constant(x), np.asarray(axes).reshape(-1).tolist(), keepdims=keep).numpy()
            close(eager, out, np_dtype)


def test_reduce_over_all_axes_by_default():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert r.reduce_sum(constant(x)).numpy() == 15
    assert r.reduce_max(constant(x), keepdims=True).numpy().shape == (1, 1)
    assert r.reduce_mean(constant(x), axis=1).numpy().tolist() == [1, 4]
    assert r.reduce_sum(constant(x), axis=-1).numpy().tolist() == [3, 12]
    assert r.reduce_all(constant(np.array([True, False]))).numpy().item() is False
    assert r.reduce_any(constant(np.array([True, False]))).numpy().item() is True
    assert r.reduce_prod(constant([1.0, 2.0, 3.0])).numpy() == 6
    # an int64 axes operand works too
    np.testing.assert_array_equal(r.Sum.compute(np, x, np.array([0], np.int64)), [3, 5, 7])


def test_integer_and_empty_reductions_follow_tensorflow():
    i32, u8, i8 = np.int32, np.uint8, np.int8
    ax = np.array(0, np.int32)
    assert run(r.Mean, np.array([1, 2], i32), ax) == 1
    assert run(r.Mean, np.array([-1, -2], i32), ax) == -1            # truncates toward zero
    assert run(r.Mean, np.array([-1, -2, -2], i32), ax) == -1
    assert run(r.Mean, np.array([200, 200], u8), ax) == 200           # accumulates wide
    assert run(r.Mean, np.array([[200, 100], [250, 7]], u8), np.array([0, 1], i32)) == 139
    assert run(r.Mean, np.array([2**30] * 3, i32), ax) == 2**30
    assert run(r.Mean, np.array([-7, 0, 0], i8), ax) == -2
    assert run(r.Mean, np.array([2**62, 2**62], np.int64), ax) == -2**62   # int64 sums wrap, as TensorFlow's
    assert run(r.Mean, np.array([-2**63, 0], np.int64), ax) == -2**62
    assert run(r.Mean, np.array([5, 0], np.uint64), ax) == 2
    assert not np.signbit(run(r.Sum, np.array([-0.0, -0.0], np.float32), ax))  # TensorFlow's sum starts at +0
    assert run(r.Mean, np.zeros([0], i32), ax) == 0
    assert np.isnan(run(r.Mean, np.zeros([0], np.float32), ax))
    assert run(r.Sum, np.array([100, 100], i8), ax) == -56            # wraps in its dtype
    assert run(r.Prod, np.array([100, 100], i8), ax) == 16
    assert run(r.Max, np.zeros([0], np.float32), ax) == -np.inf
    assert run(r.Max, np.zeros([0], i32), ax) == -2**31
    assert run(r.Min, np.zeros([0], u8), ax) == 255
    assert run(r.Min, np.zeros([0], np.float32), ax) == np.inf
    assert run(r.Prod, np.zeros([0], np.float32), ax) == 1
    assert run(r.All, np.zeros([0], bool), ax).item() is True
    assert run(r.Any, np.zeros([0], bool), ax).item() is False
    assert np.isnan(run(r.Max, np.array([1, np.nan, 3], np.float32), ax))
    assert np.isnan(run(r.Min, np.array([1, np.nan, 3], np.float32), ax))
    assert run(r.Mean, np.array([1 + 1j, 2], np.complex64), ax) == 1.5 + 0.5j


def test_reduction_shape_rule():
    x = TensorSpec([2, None, 4])
    ax = lambda v: TensorSpec(np.shape(v), "int32", value=np.asarray(v, np.int32))
    assert r.Sum.infer(x, ax([1]), keep_dims=False).shape == (2, 4)
    assert r.Sum.infer(x, ax(-1), keep_dims=True).shape == (2, None, 1)
    assert r.Sum.infer(x, TensorSpec([1], "int32"), keep_dims=True).shape == (None, None, None)
    assert r.Sum.infer(x, TensorSpec([1], "int32"), keep_dims=False).shape is None
    assert r.Sum.infer(TensorSpec(None), ax([0]), keep_dims=False).shape is None
    assert r.Sum.infer(TensorSpec([]), ax(np.zeros([0], np.int32)), keep_dims=False).shape == ()


@pytest.mark.parametrize("cls", [r.Sum, r.Mean, r.Max, r.Min, r.Prod])
def test_reduction_errors_name_the_op(cls):
    x = TensorSpec([2, 3])
    ax = lambda v: TensorSpec(np.shape(v), "int32", value=np.asarray(v, np.int32))
    with pytest.raises(InvalidArgumentError, match=rf"{cls.name}: Invalid reduction dimension \(2 for input with 2"):
        cls.infer(x, ax(2), keep_dims=False)
    with pytest.raises(InvalidArgumentError, match=rf"{cls.name}: Invalid reduction dimension \(-3 for input"):
        cls.infer(x, ax([-3]), keep_dims=False)
    with pytest.raises(InvalidArgumentError, match=rf"{cls.name}: Invalid reduction dimension \(0 for input with 0"):
        cls.infer(TensorSpec([]), ax(0), keep_dims=False)
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: .*duplicate dimension: 1"):
        cls.infer(x, ax([1, -1]), keep_dims=False)
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: reduction_indices of dtype float32"):
        cls.infer(x, TensorSpec([], "float32"), keep_dims=False)
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: input of dtype bool"):
        cls.infer(TensorSpec([2], "bool"), ax(0), keep_dims=False)
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: Invalid reduction dimension"):
        cls.compute(np, np.ones((2, 3), np.float32), np.array(5, np.int32), keep_dims=False)
    with pytest.raises(InvalidArgumentError, match=cls.name):
        cls.bind(constant(np.ones((2, 3), np.float32)), constant(np.array([0, 0], np.int32)))


def test_logical_reductions_reject_numbers():
    with pytest.raises(InvalidArgumentError, match="tf.All: input of dtype float32"):
        r.All.infer(TensorSpec([2]), TensorSpec([], "int32"))
    with pytest.raises(InvalidArgumentError, match="tf.Max: input of dtype complex64"):
        r.Max.infer(TensorSpec([2], "complex64"), TensorSpec([], "int32"))


# --- ArgMax, ArgMin ----------------------------------------------------------------------------

ARG_DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int32", "int64", "uint8", "uint64", "bool"]


@pytest.mark.parametrize("dtype", ARG_DTYPES)
@pytest.mark.parametrize("cls,ref", [(r.ArgMax, np.argmax), (r.ArgMin, np.argmin)])
def test_arg_reductions_match_numpy(cls, ref, dtype):
    np_dtype = dtypes.as_dtype(dtype).np
    for shape, axis in [((3, 4), 1), ((3, 4), 0), ((3, 4), -1), ((5,), 0), ((2, 3, 4), 1), ((0, 3), 1)]:
        x = sample(np_dtype, shape, seed=axis + 5)
        out = run(cls, x, np.array(axis, np.int32))
        assert out.dtype == np.int64
        expected = ref(x.astype(np.float64) if np_dtype == BF16 else x, axis=axis)
        np.testing.assert_array_equal(out, expected)
    out = run(cls, np.array([[1, 2], [3, 0]], np_dtype), np.array(0, np.int32), output_type=dtypes.int32)
    assert out.dtype == np.int32


def test_arg_reductions_follow_tensorflow():
    f = lambda *v: np.array(v, np.float32)
    zero = np.array(0, np.int32)
    assert run(r.ArgMax, f(1, np.nan, 3), zero) == 2          # NaN never wins
    assert run(r.ArgMax, f(np.nan, 1), zero) == 1
    assert run(r.ArgMax, f(np.nan, np.nan), zero) == 0
    assert run(r.ArgMin, f(1, np.nan, 3, np.nan), zero) == 0
    assert run(r.ArgMin, f(np.nan, 1, 0), zero) == 2
    assert run(r.ArgMax, f(3, 1, 3), zero) == 0                # first of ties
    assert run(r.ArgMax, f(5, -np.inf), zero) == 0
    x = np.array([[1, np.nan, 3], [np.nan, 2, 1]], np.float32)
    np.testing.assert_array_equal(run(r.ArgMax, x, np.array(1, np.int32)), [2, 1])
    np.testing.assert_array_equal(run(r.ArgMax, x, zero), [0, 1, 0])
    assert run(r.ArgMax, np.array([False, True]), zero) == 1
    assert run(r.ArgMax, f(1, 2), zero, output_type=dtypes.int16).dtype == np.int16
    assert r.argmax(constant(x), axis=1).numpy().tolist() == [2, 1]
    assert r.argmin(constant(x), output_type="int32").dtype == dtypes.int32
    assert r.argmax(constant(x)).dtype == dtypes.int64


def test_arg_reduction_errors():
    s = TensorSpec([2, 3])
    dim = lambda v: TensorSpec(np.shape(v), "int32", value=np.asarray(v, np.int32))
    with pytest.raises(InvalidArgumentError, match=r"tf.ArgMax: Expected dimension in the range \[-2, 2\), but got 2"):
        r.ArgMax.infer(s, dim(2))
    with pytest.raises(InvalidArgumentError, match=r"tf.ArgMin: Expected dimension in the range \[0, 0\), but got 0"):
        r.ArgMin.infer(TensorSpec([]), dim(0))
    with pytest.raises(InvalidArgumentError, match=r"tf.ArgMax: dim must be a scalar, but received tensor of shape: \[1\]"):
        r.ArgMax.infer(s, dim([0]))
    with pytest.raises(InvalidArgumentError, match="tf.ArgMin: output_type int16 is not supported"):
        r.ArgMin.infer(s, dim(0), output_type=dtypes.int16)
    with pytest.raises(InvalidArgumentError, match="tf.ArgMax: input of dtype complex64"):
        r.ArgMax.infer(TensorSpec([2], "complex64"), dim(0))
    with pytest.raises(InvalidArgumentError, match=r"tf.ArgMax: Reduction axis 0 is empty in shape \[0\]"):
        r.ArgMax.compute(np, np.zeros([0], np.float32), np.array(0, np.int32))
    with pytest.raises(InvalidArgumentError, match="tf.ArgMax: Reduction axis 0 is empty"):
        r.argmax(constant(np.zeros([0], np.float32)))
    assert r.ArgMax.infer(TensorSpec([2, None, 4]), TensorSpec([], "int32")).shape == (None, None)
    assert r.ArgMax.infer(TensorSpec([2, None, 4]), dim(-1)).shape == (2, None)


# --- Cumsum ------------------------------------------------------------------------------------

def _cumsum_ref(x, axis, exclusive, reverse):
    y = np.flip(x, axis) if reverse else x
    out = np.cumsum(y.astype(np.float64) if y.dtype.kind == "f" else y, axis=axis).astype(x.dtype)
    if exclusive:
        out = np.roll(out, 1, axis=axis)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(0, 1)
        out[tuple(idx)] = 0
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int8", "int32", "uint8", "complex64"])
def test_cumsum_matches_numpy(dtype):
    np_dtype = dtypes.as_dtype(dtype).np
    for shape, axis in [((3, 4), 1), ((3, 4), 0), ((3, 4), -1), ((5,), 0), ((0, 3), 0), ((2, 0), 1)]:
        x = sample(np_dtype, shape, seed=2)
        for exclusive in (False, True):
            for reverse in (False, True):
                out = run(scan.Cumsum, x, np.array(axis, np.int32), exclusive=exclusive, reverse=reverse)
                close(out, _cumsum_ref(x, axis % x.ndim, exclusive, reverse), np_dtype)
                eager = scan.cumsum(constant(x), axis, exclusive=exclusive, reverse=reverse).numpy()
                close(eager, out, np_dtype)


def test_cumsum_follows_tensorflow():
    zero = np.array(0, np.int32)
    np.testing.assert_array_equal(run(scan.Cumsum, np.array([1, 2, 3], np.float32), zero, exclusive=True, reverse=True),
                                  [5, 3, 0])
    np.testing.assert_array_equal(run(scan.Cumsum, np.array([100, 100], np.int8), zero), [100, -56])
    np.testing.assert_array_equal(run(scan.Cumsum, np.array([1, 2], np.float32), np.array(-1, np.int64)), [1, 3])
    assert not np.signbit(run(scan.Cumsum, np.array([-0.0, -0.0], np.float32), zero)).any()
    with pytest.raises(InvalidArgumentError, match=r"tf.Cumsum: ScanOp: Expected scan axis in the range \[-1, 1\)"):
        scan.Cumsum.infer(TensorSpec([2]), TensorSpec([], "int32", value=np.array(1, np.int32)))
    with pytest.raises(InvalidArgumentError, match=r"tf.Cumsum: ScanOp: Expected scan axis in the range \[0, 0\)"):
        scan.cumsum(constant(1.0), 0)
    with pytest.raises(InvalidArgumentError, match=r"tf.Cumsum: ScanOp: axis must be a scalar, not \[1\]"):
        scan.Cumsum.infer(TensorSpec([2]), TensorSpec([1], "int32"))
    with pytest.raises(InvalidArgumentError, match="tf.Cumsum: input of dtype bool"):
        scan.Cumsum.infer(TensorSpec([2], "bool"), TensorSpec([], "int32"))


# --- gradients ---------------------------------------------------------------------------------

def numeric_grad(f, x, eps=1e-6):
    x = np.array(x, np.float64)
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += eps
        minus[idx] -= eps
        g[idx] = (np.sum(f(plus)) - np.sum(f(minus))) / (2 * eps)
    return g


def check_grad(model, x):
    w = np.random.default_rng(3).uniform(0.5, 1.5, np.shape(model(constant(x)).numpy()))
    t = constant(x)
    with GradientTape() as tape:
        tape.watch(t)
        y = m.multiply(model(t), constant(w))
    g = tape.gradient(y, t)
    assert g is not None and g.shape == x.shape
    np.testing.assert_allclose(g.numpy(), numeric_grad(lambda a: w * model(constant(a)).numpy(), x), atol=1e-5)


X = np.random.default_rng(0).uniform(-2, 2, (2, 3, 4))
WITH_ZEROS = np.array([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, -1.0]])
GRADS = [
    ("sum_all", lambda t: r.reduce_sum(t), X), ("sum_axis", lambda t: r.reduce_sum(t, 1), X),
    ("sum_keep", lambda t: r.reduce_sum(t, [0, 2], keepdims=True), X),
    ("mean", lambda t: r.reduce_mean(t, -1), X), ("mean_keep", lambda t: r.reduce_mean(t, [1], keepdims=True), X),
    ("max", lambda t: r.reduce_max(t, 1), X), ("min_keep", lambda t: r.reduce_min(t, [0, 2], keepdims=True), X),
    ("prod", lambda t: r.reduce_prod(t, 1), X), ("prod_zeros", lambda t: r.reduce_prod(t, 1), WITH_ZEROS),
    ("prod_all_zeros", lambda t: r.reduce_prod(t), WITH_ZEROS[2:] * 0 + np.array([[0.0, 2.0, 3.0]])),
    ("cumsum", lambda t: scan.cumsum(t, 1), X), ("cumsum_rev_excl", lambda t: scan.cumsum(t, -1, True, True), X),
]


@pytest.mark.parametrize("name,model,x", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_numeric(name, model, x):
    check_grad(model, x)


def test_max_gradient_splits_ties():
    t = constant(np.array([1.0, 3.0, 3.0]))
    with GradientTape() as tape:
        tape.watch(t)
        y = r.reduce_max(t)
    np.testing.assert_array_equal(tape.gradient(y, t).numpy(), [0, 0.5, 0.5])  # as TensorFlow


def test_arg_and_logical_reductions_have_no_gradient():
    t = constant(X)
    with GradientTape(persistent=True) as tape:
        tape.watch(t)
        ys = [r.argmax(t, 1), r.argmin(t), r.reduce_any(m.Maximum.bind(t, t) > 0.0)]
    for y in ys:
        assert tape.gradient(y, t) is None


# --- the same compute under JAX (xp = jax.numpy); axes stay numpy constants, as under XLA ------

@pytest.mark.parametrize("cls", [r.Sum, r.Mean, r.Max, r.Min, r.Prod, r.All, r.Any, r.ArgMax, r.ArgMin, scan.Cumsum])
def test_compute_under_jax_matches_numpy(cls):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    types = getattr(cls, "TYPES", {"float32", "int32"})
    for dtype in sorted(types & {"float32", "int32", "bool"}):
        x = sample(dtypes.as_dtype(dtype).np, (3, 4, 2), seed=1)
        if cls in (r.ArgMax, r.ArgMin, scan.Cumsum):
            cases = [(np.array(a, np.int32), {}) for a in (0, -1)]
            if cls is scan.Cumsum:
                cases.append((np.array(1, np.int32), {"exclusive": True, "reverse": True}))
        else:
            cases = [(np.array(a, np.int32), {"keep_dims": k}) for a, k in (([1], False), ([0, -1], True), ([], False))]
        for axes, attrs in cases:
            expected = run(cls, x, axes, **attrs)
            with jax.enable_x64(True):  # ArgMax's int64 result, as the XLA backend runs it
                got = np.asarray(cls.compute(jnp, jnp.asarray(x), axes, **cls.complete_attrs(attrs)))
            assert got.dtype == expected.dtype, (cls.name, dtype)
            close(got, expected, x.dtype)


def test_argmax_bfloat16_skips_nan():
    x = np.array([1, np.nan, 3, 2], BF16)
    assert run(r.ArgMax, x, np.array(0, np.int32)) == 2
    assert run(r.ArgMin, x, np.array(0, np.int32)) == 0


def test_graph_mode_matches_eager_and_prints_properties():
    from tinytf.function import function

    def model(x):
        return [r.reduce_sum(x, [0, -1]), r.reduce_mean(x, 1, keepdims=True), r.reduce_max(x), r.argmax(x, -1),
                r.argmin(x, 0, output_type="int32"), scan.cumsum(x, 1, exclusive=True, reverse=True),
                r.reduce_prod(x, 2), r.reduce_any(x > 0.0, [1])]

    x = constant(sample(np.float32, (2, 3, 4), seed=4))
    traced = function(model)
    for eager, graph in zip(model(x), traced(x)):
        np.testing.assert_array_equal(graph.numpy(), eager.numpy())
    text = traced.get_concrete_function(TensorSpec([2, 3, 4])).mlir()
    assert '"tf.Sum"' in text and "<{keep_dims = false}> : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<3xf32>" in text
    assert "<{keep_dims = true}> : (tensor<2x3x4xf32>, tensor<i32>) -> tensor<2x1x4xf32>" in text
    assert '"tf.ArgMax"(%arg0, %' in text and "-> tensor<2x3xi64>" in text
    assert "-> tensor<3x4xi32>" in text  # ArgMin's output_type shows only in its result type
    assert "<{exclusive = true, reverse = true}>" in text


@pytest.mark.parametrize("name,model,x", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_in_graph_mode(name, model, x):
    """The same rules traced into a tt.function with the tape (tinytf.gradcheck's use_function=True)."""
    from tinytf.gradcheck import autodiff_gradients

    w = np.random.default_rng(3).uniform(0.5, 1.5, np.shape(model(constant(x)).numpy()))
    weighted = lambda t: m.multiply(model(t), constant(w))
    (g,) = autodiff_gradients(weighted, [constant(x)], use_function=True)
    np.testing.assert_allclose(g, numeric_grad(lambda a: weighted(constant(a)).numpy(), x), atol=1e-5)


@pytest.mark.parametrize("signature", [[None, 3], [None, None]])
def test_gradients_with_unknown_dims_in_graph_mode(signature):
    from tinytf.function import function

    def grad(x):
        with GradientTape() as tape:
            tape.watch(x)
            y = [r.reduce_sum(x, 1), r.reduce_max(x, 1), r.reduce_mean(x, 1), r.reduce_prod(x, 1),
                 r.reduce_mean(x, [0, 1]), r.reduce_min(x, 0, keepdims=True)]
        return tape.gradient(y, x)

    x = np.array([[1.0, 5.0, 2.0], [3.0, 3.0, 0.0]], np.float32)
    traced = function(grad, input_signature=[TensorSpec(signature, "float32")])
    np.testing.assert_allclose(traced(constant(x)).numpy(), grad(constant(x)).numpy(), rtol=1e-6)
    # per element: sum 1, max (ties split), mean 1/3, prod of the others (exact at the zero), mean-all 1/6, min
    third, sixth = 1 / 3, 1 / 6
    np.testing.assert_allclose(grad(constant(x)).numpy(),
                               [[1 + 0 + third + 10 + sixth + 1, 1 + 1 + third + 2 + sixth, 1 + third + 5 + sixth],
                                [1 + 0.5 + third + 0 + sixth, 1 + 0.5 + third + 0 + sixth + 1,
                                 1 + third + 9 + sixth + 1]], rtol=1e-6)


def test_fuzz_reductions_raise_only_tinytf_errors():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tinytf.errors import OpError

    ops = [r.Sum, r.Mean, r.Max, r.Min, r.Prod, r.All, r.Any, r.ArgMax, r.ArgMin, scan.Cumsum]
    kinds = ["float32", "bfloat16", "int8", "int32", "uint8", "bool", "complex64"]
    outcomes = {"ok": 0, "error": 0}

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.data())
    def check(data):
        cls = data.draw(st.sampled_from(ops))
        x = sample(dtypes.as_dtype(data.draw(st.sampled_from(kinds))).np,
                   tuple(data.draw(st.lists(st.integers(0, 3), max_size=3))))
        axes = np.asarray(data.draw(st.one_of(st.integers(-4, 4), st.lists(st.integers(-4, 4), max_size=3))),
                          data.draw(st.sampled_from([np.int32, np.int64, np.float32])))
        attrs = {"keep_dims": data.draw(st.booleans())} if cls.name not in ("tf.ArgMax", "tf.ArgMin", "tf.Cumsum") \
            else {}
        try:
            out = cls.bind(constant(x), constant(axes), **attrs)
        except OpError:
            outcomes["error"] += 1
            return
        outcomes["ok"] += 1
        assert out.numpy().shape == tuple(out.shape)

    check()
    assert outcomes["ok"] > 30 and outcomes["error"] > 30, outcomes
