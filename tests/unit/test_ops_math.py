"""Math ops (tinytf/ops/math.py, division.py, elementwise.py, transcendental.py, unary_grads.py,
comparison.py, linalg.py) against numpy.

Each op runs its shape rule and its ``compute(np, ...)`` directly (the result must match the
inferred shape and dtype) and through its public function eagerly. Expected values for TensorFlow's
special cases (integer division, NaN, inf) are the outputs TensorFlow 2.21 printed for the same inputs.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import tinytf  # noqa: F401  (installs the eager context)
from tinytf import dtypes
from tinytf.autodiff import GradientTape
from tinytf.errors import InvalidArgumentError
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import comparison as cmp
from tinytf.ops import division as dv
from tinytf.ops import elementwise as ew
from tinytf.ops import linalg as la
from tinytf.ops import math as m
from tinytf.ops import transcendental as tr
from tinytf.ops import unary_grads as ug
from tinytf.ops.array import constant as _constant

F16, BF16 = np.float16, ml_dtypes.bfloat16


def constant(value, dtype=None):
    """A tensor keeping a numpy array's dtype (tt.constant maps Python floats to float32)."""
    if dtype is None and isinstance(value, np.ndarray | np.generic):
        dtype = value.dtype
    return _constant(value, dtype=dtype)


def spec(a, known=True):
    return TensorSpec(a.shape, dtypes.as_dtype(a.dtype), value=a if known else None)


def run(cls, *arrays, **attrs):
    """Shape rule and compute of ``cls`` on numpy arrays; the result must match the inferred spec."""
    attrs = cls.complete_attrs(attrs)
    out_spec = cls.infer(*[spec(a) for a in arrays], **attrs)
    out = np.asarray(cls.compute(np, *arrays, **attrs))
    assert out.dtype == out_spec.dtype.np, (cls.name, out.dtype, out_spec.dtype)
    assert out.shape == out_spec.shape, (cls.name, out.shape, out_spec.shape)
    return out


def sample(dtype, shape=(2, 3), seed=0, nonzero=False, positive=False):
    """Random values of ``dtype``; floats include NaN, inf, -inf and 0 when there is room."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) > 0.5
    if dt.kind == "u":
        a = rng.integers(1 if nonzero else 0, 10, shape)
    elif dt.kind == "i":
        a = rng.integers(1 if positive else -6, 7, shape)
        if nonzero:
            a[a == 0] = 3
    elif dt.kind == "c":
        a = rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)
    else:
        a = rng.uniform(0.1 if positive else -3, 3, shape)
        flat = a.reshape(-1)
        if not positive and not nonzero and flat.size >= 6:
            flat[:4] = [np.nan, np.inf, -np.inf, 0.0]
    return np.asarray(a).astype(dt)


def close(actual, expected, dtype):
    dt = np.dtype(dtype)
    if dt.kind in "iub":
        np.testing.assert_array_equal(actual, expected)
        return
    rtol = {2: 1e-2 if dt == BF16 else 2e-3, 4: 2e-6, 8: 1e-12, 16: 1e-12}[dt.itemsize if dt.kind != "c" else
                                                                            dt.itemsize // 2]
    a = np.asarray(actual).astype(np.complex128 if dt.kind == "c" else np.float64)
    e = np.asarray(expected).astype(np.complex128 if dt.kind == "c" else np.float64)
    np.testing.assert_allclose(a, e, rtol=rtol, atol=rtol, equal_nan=True)


def finite(a):
    return np.nan_to_num(a, nan=0.5, posinf=2.0, neginf=-2.0) if a.dtype.kind in "fc" else a


def same(actual, expected):
    """Exactly equal (NaN matches NaN; bfloat16 compared as float32, which numpy's NaN check needs)."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.dtype == BF16:
        a, e = a.astype(np.float32), e.astype(np.float32)
    np.testing.assert_array_equal(a, e)


def dtype_names(types):
    return sorted(types)


# --- unary ops ---------------------------------------------------------------------------------

def _sigmoid(x):
    with np.errstate(all="ignore"):
        return 1 / (1 + np.exp(-x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)))


_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])

UNARY = [
    (ew.Neg, ew.negative, np.negative),
    (ew.Abs, ew.abs, np.abs),
    (ew.Sign, ew.sign, np.sign),
    (tr.Exp, tr.exp, np.exp),
    (tr.Log, tr.log, np.log),
    (tr.Log1p, tr.log1p, np.log1p),
    (ew.Sqrt, ew.sqrt, np.sqrt),
    (ew.Rsqrt, ew.rsqrt, lambda x: 1 / np.sqrt(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))),
    (ew.Square, ew.square, lambda x: x * x),
    (tr.Sin, tr.sin, np.sin),
    (tr.Cos, tr.cos, np.cos),
    (ew.Reciprocal, ew.reciprocal, lambda x: 1 / x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)),
    (ew.Floor, ew.floor, np.floor),
    (ew.Ceil, ew.ceil, np.ceil),
    (ew.Round, ew.round, np.round),
    (tr.Tanh, tr.tanh, np.tanh),
    (tr.Sigmoid, tr.sigmoid, _sigmoid),
    (tr.Erf, tr.erf, lambda x: _erf(x.astype(np.float64))),
    (tr.Erfc, tr.erfc, lambda x: _erfc(x.astype(np.float64))),
    (ew.IsNan, ew.is_nan, np.isnan),
    (ew.IsFinite, ew.is_finite, np.isfinite),
    (cmp.LogicalNot, cmp.logical_not, np.logical_not),
]
UNARY_CASES = [(cls, fn, ref, dt) for cls, fn, ref in UNARY for dt in dtype_names(cls.TYPES)]


@pytest.mark.parametrize("cls,fn,ref,dtype", UNARY_CASES, ids=[f"{c.name}-{d}" for c, _, _, d in UNARY_CASES])
def test_unary_matches_numpy(cls, fn, ref, dtype):
    np_dtype = dtypes.as_dtype(dtype).np
    for shape in [(2, 3), (), (0, 3)]:
        x = sample(np_dtype, shape)
        with np.errstate(all="ignore"):
            expected = ref(x)
        out = run(cls, x)
        if out.dtype == np.bool_:
            np.testing.assert_array_equal(out, expected)
        else:
            assert out.dtype == np_dtype
            close(out, expected, np_dtype)
        same(fn(constant(x)).numpy(), out)


def test_unary_tensorflow_special_values():
    f = np.float32
    np.testing.assert_array_equal(run(ew.Round, np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4], f)),
                                  np.array([0, 2, 2, -0.0, -2, 2], f))
    np.testing.assert_array_equal(run(ew.Round, np.array([3, -4], np.int32)), [3, -4])
    np.testing.assert_array_equal(run(ew.Sign, np.array([-2, 0, np.nan, 3], f)), [-1, 0, np.nan, 1])
    np.testing.assert_allclose(run(ew.Sign, np.array([3 + 4j, 0j], np.complex64)), [0.6 + 0.8j, 0])
    np.testing.assert_array_equal(run(tr.Sigmoid, np.array([-100, 100, np.nan], f)), [0, 1, np.nan])
    np.testing.assert_array_equal(run(ew.Abs, np.array([-2**31], np.int32)), [-2**31])  # wraps, as TF
    np.testing.assert_array_equal(run(ew.Square, np.array([100], np.int8)), [16])
    np.testing.assert_array_equal(run(ew.Rsqrt, np.array([0, -1], f)), [np.inf, np.nan])
    np.testing.assert_array_equal(run(tr.Log1p, np.array([-1, -2], f)), [-np.inf, np.nan])
    np.testing.assert_allclose(run(tr.Erf, np.array([0.5], f)), [0.5204999], rtol=1e-6)
    np.testing.assert_allclose(run(tr.Tanh, np.array([1 + 1j], np.complex64)), [1.0839232 + 0.27175257j], rtol=1e-6)


@pytest.mark.parametrize("cls,dtype", [
    (tr.Exp, "int32"), (ew.Abs, "complex64"), (ew.Abs, "uint8"), (ew.Neg, "uint8"), (ew.Floor, "int32"),
    (ew.Reciprocal, "int32"), (tr.Erf, "complex64"), (ew.IsNan, "int32"), (cmp.LogicalNot, "float32"),
    (ew.Round, "int8"), (ew.Sqrt, "bool"),
])
def test_unary_rejects_dtype(cls, dtype):
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: .*{dtype}"):
        cls.infer(TensorSpec([2], dtype))


def test_unary_unknown_shapes_pass_through():
    assert tr.Exp.infer(TensorSpec(None, "float32")) == TensorSpec(None, "float32")
    assert ew.IsNan.infer(TensorSpec([None, 3], "float16")) == TensorSpec([None, 3], "bool")


# --- binary ops --------------------------------------------------------------------------------

def _trunc_div(x, y):
    return np.array([abs(int(a)) // abs(int(b)) * (1 if (a < 0) == (b < 0) else -1)
                     for a, b in zip(x.reshape(-1), y.reshape(-1))], np.int64).reshape(x.shape)


def _int_or(int_ref, float_ref):
    def ref(x, y):
        if x.dtype.kind in "iu":
            a, b = np.broadcast_arrays(x, y)
            return int_ref(a, b)
        return float_ref(x, y)
    return ref


def _wide(f):
    def ref(x, y):
        k = np.complex128 if x.dtype.kind == "c" else np.float64
        return f(x.astype(k), y.astype(k))
    return ref


BINARY = [
    (m.AddV2, m.add, _wide(np.add), {}),
    (m.Add, None, _wide(np.add), {}),
    (m.Sub, m.subtract, _wide(np.subtract), {}),
    (m.Mul, m.multiply, _wide(np.multiply), {}),
    (dv.Div, None, _int_or(_trunc_div, _wide(np.divide)), {"nonzero": True}),
    (dv.RealDiv, dv.realdiv, _wide(np.divide), {}),
    (dv.DivNoNan, dv.div_no_nan, _wide(lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y))), {}),
    (dv.FloorDiv, dv.floordiv, _int_or(lambda a, b: np.vectorize(lambda p, q: int(p) // int(q), otypes=[object])(a, b),
                                     _wide(lambda x, y: np.floor(x / y))), {"nonzero": True}),
    (dv.FloorMod, dv.floormod, _int_or(lambda a, b: np.vectorize(lambda p, q: int(p) % int(q), otypes=[object])(a, b),
                                     _wide(np.mod)), {"nonzero": True, "finite": True}),
    (m.Pow, m.pow, _int_or(lambda a, b: np.vectorize(lambda p, q: int(p) ** int(q), otypes=[object])(a, b), _wide(np.power)),
     {"positive": True}),
    (m.Maximum, m.maximum, _wide(np.maximum), {}),
    (m.Minimum, m.minimum, _wide(np.minimum), {}),
    (m.SquaredDifference, m.squared_difference,
     _wide(lambda x, y: (x - y) * np.conj(x - y)), {}),
]
BINARY_CASES = [(cls, fn, ref, opts, dt) for cls, fn, ref, opts in BINARY
                for dt in dtype_names(cls.TYPES) if dt != "string"]
SHAPES = [((2, 3), (2, 3)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (3,)), ((0, 3), (1, 3)), ((), ())]


def _wrap_int(expected, dtype):
    """Integer references are exact Python ints; TensorFlow's kernels wrap them to the dtype."""
    if np.dtype(dtype).kind in "iu":
        return np.asarray(expected).astype(np.int64).astype(dtype)
    return expected


@pytest.mark.parametrize("cls,fn,ref,opts,dtype", BINARY_CASES,
                         ids=[f"{c.name}-{d}" for c, _, _, _, d in BINARY_CASES])
def test_binary_matches_numpy(cls, fn, ref, opts, dtype):
    np_dtype = dtypes.as_dtype(dtype).np
    for i, (sx, sy) in enumerate(SHAPES):
        x = sample(np_dtype, sx, seed=i, positive=opts.get("positive", False) and np_dtype.kind in "iu")
        y = sample(np_dtype, sy, seed=i + 10, nonzero=opts.get("nonzero", False),
                   positive=opts.get("positive", False) and np_dtype.kind in "iu")
        if opts.get("finite") and np_dtype.kind == "f":
            x, y = np.nan_to_num(x, posinf=2, neginf=-2), np.nan_to_num(y, nan=1.5, posinf=2, neginf=-2)
            y = np.where(y == 0, np.asarray(1.5, np_dtype), y)
        with np.errstate(all="ignore"):
            expected = _wrap_int(ref(x, y), np_dtype)
        out = run(cls, x, y)
        assert out.shape == np.broadcast_shapes(sx, sy)
        close(out, expected, np_dtype)
        if fn is not None:
            same(fn(constant(x), constant(y)).numpy(), out)


def test_integer_division_follows_tensorflow():
    i = lambda *v: np.array(v, np.int32)
    np.testing.assert_array_equal(run(dv.Div, i(-7, 7, -7), i(2, -2, -2)), [-3, -3, 3])
    np.testing.assert_array_equal(run(dv.FloorDiv, i(-7, 7, -7), i(2, -2, -2)), [-4, -4, 3])
    np.testing.assert_array_equal(run(dv.FloorMod, i(-7, 7, -7, 7), i(2, -2, -2, 2)), [1, -1, -1, 1])
    np.testing.assert_array_equal(run(dv.FloorMod, i(-2**31), i(-1)), [0])
    np.testing.assert_array_equal(run(m.Pow, i(2, 3, 0), i(3, 2, 0)), [8, 9, 1])
    for cls in (dv.Div, dv.FloorDiv, dv.FloorMod):
        with pytest.raises(InvalidArgumentError, match=f"{cls.name}: Integer division by zero"):
            cls.compute(np, i(1, 2), i(1, 0))
        with pytest.raises(InvalidArgumentError, match="Integer division by zero"):
            cls.bind(constant(i(1)), constant(i(0)))
    with pytest.raises(InvalidArgumentError, match="tf.Pow: Integers to negative integer powers"):
        m.pow(constant(i(2)), constant(i(-1)))


def test_float_division_special_values_follow_tensorflow():
    f = lambda *v: np.array(v, np.float32)
    np.testing.assert_array_equal(run(dv.FloorDiv, f(-7, 7, 1, -1, 0, 5.5, 1), f(2, -2, 0, 0, 0, 0.5, 0.1)),
                                  [-4, -4, np.inf, -np.inf, np.nan, 11, 10])
    out = run(dv.FloorMod, f(-7, 7, 1, 5.5, -0.0, np.inf, -1, 1, -2), f(2, -2, 0, np.inf, 3, 2, np.inf, -np.inf, 1))
    np.testing.assert_array_equal(out, [1, -1, np.nan, 5.5, -0.0, np.nan, np.inf, -np.inf, -0.0])
    assert np.signbit(out[4]) and np.signbit(out[8])
    np.testing.assert_array_equal(run(dv.DivNoNan, f(1, 0, np.nan, 1, np.inf), f(0, 0, 0, np.nan, 0)),
                                  [0, 0, 0, np.nan, 0])
    np.testing.assert_array_equal(run(dv.Div, f(1, -1, 0), f(0, 0, 0)), [np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(run(m.Maximum, f(np.nan, 1), f(1, np.nan)), [np.nan, np.nan])
    np.testing.assert_array_equal(run(m.Minimum, f(np.nan, 1), f(1, np.nan)), [np.nan, np.nan])
    np.testing.assert_array_equal(run(m.Pow, f(-2, 0, 2), f(0.5, -1, 0)), [np.nan, np.inf, 1])


def test_add_concatenates_strings():
    x, y = np.array([b"a", b"c"], object), np.array([b"b"], object)
    assert m.Add.infer(TensorSpec([2], "string"), TensorSpec([1], "string")) == TensorSpec([2], "string")
    assert list(m.Add.compute(np, x, y)) == [b"ab", b"cb"]


@pytest.mark.parametrize("cls", [c for c, *_ in BINARY])
def test_binary_errors_name_the_op(cls):
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: .*float32 and int32"):
        cls.infer(TensorSpec([2], "float32"), TensorSpec([2], "int32"))
    with pytest.raises(InvalidArgumentError, match=rf"{cls.name}: incompatible shapes \[2,3\] and \[4\]"):
        cls.infer(TensorSpec([2, 3], "float32"), TensorSpec([4], "float32"))
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: .*bool"):
        cls.infer(TensorSpec([2], "bool"), TensorSpec([2], "bool"))
    with pytest.raises(InvalidArgumentError, match=cls.name):
        cls.bind(constant(np.ones((2, 3), np.float32)), constant(np.ones(4, np.float32)))


@pytest.mark.parametrize("cls,dtype", [
    (dv.RealDiv, "int32"), (dv.DivNoNan, "int32"), (dv.FloorMod, "complex64"), (m.Maximum, "complex64"),
    (m.Pow, "uint8"), (m.SquaredDifference, "int8"), (m.AddV2, "string"),
])
def test_binary_rejects_dtype(cls, dtype):
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: .*{dtype}"):
        cls.infer(TensorSpec([2], dtype), TensorSpec([2], dtype))


def test_binary_partial_shapes():
    s = m.AddV2.infer(TensorSpec([None, 3], "float32"), TensorSpec([4, 1, 1], "float32"))
    assert s.shape == (4, None, 3)
    assert m.Mul.infer(TensorSpec(None, "float32"), TensorSpec([2], "float32")).shape is None


def test_truediv_divide_and_mod():
    out = dv.truediv(constant(np.array([1, 2], np.int32)), 2)
    assert out.dtype == dtypes.float64
    np.testing.assert_array_equal(out.numpy(), [0.5, 1.0])
    assert dv.divide(constant(np.array([3], np.int8)), constant(np.array([2], np.int8))).dtype == dtypes.float32
    np.testing.assert_array_equal(dv.divide(constant([3.0]), 2.0).numpy(), [1.5])
    np.testing.assert_array_equal(dv.mod(constant([-7]), 3).numpy(), [2])


def test_clip_by_value():
    t = np.array([1, 5, np.nan, 3], np.float32)
    np.testing.assert_array_equal(run(m.ClipByValue, t, np.float32(2), np.float32(4)), [2, 4, np.nan, 3])
    np.testing.assert_array_equal(run(m.ClipByValue, t, np.array([0, 6, 0, 0], np.float32), np.float32(4)),
                                  [1, 6, np.nan, 3])
    # min > max: TensorFlow applies min(t, hi) then max(., lo)
    np.testing.assert_array_equal(run(m.ClipByValue, np.array([1, 5], np.float32), np.float32(4), np.float32(2)),
                                  [4, 4])
    np.testing.assert_array_equal(m.clip_by_value(constant([1, 5, 9]), 2, 6).numpy(), [2, 5, 6])
    with pytest.raises(InvalidArgumentError, match="tf.ClipByValue: clip_value_min and clip_value_max must be"):
        m.ClipByValue.infer(TensorSpec([2, 2]), TensorSpec([2]), TensorSpec([]))
    with pytest.raises(InvalidArgumentError, match="tf.ClipByValue: .*float32 and int32"):
        m.ClipByValue.infer(TensorSpec([2]), TensorSpec([], "int32"), TensorSpec([]))


# --- gradient ops ------------------------------------------------------------------------------

@pytest.mark.parametrize("cls,ref", [
    (ug.TanhGrad, lambda y, dy: dy * (1 - y * y)),
    (ug.SigmoidGrad, lambda y, dy: dy * y * (1 - y)),
    (ug.RsqrtGrad, lambda y, dy: -0.5 * dy * y ** 3),
    (ug.SqrtGrad, lambda y, dy: 0.5 * dy / y),
    (ug.ReciprocalGrad, lambda y, dy: -dy * y * y),
])
def test_gradient_ops(cls, ref):
    for dtype in (np.float32, np.float64, np.complex64, F16):
        y, dy = sample(dtype, (2, 3), seed=1, positive=True), sample(dtype, (2, 3), seed=2)
        close(run(cls, y, dy), ref(y.astype(np.complex128 if y.dtype.kind == "c" else np.float64), dy), dtype)
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: y and dy must have the same shape"):
        cls.infer(TensorSpec([2]), TensorSpec([1]))
    with pytest.raises(InvalidArgumentError, match=f"{cls.name}: .*int32"):
        cls.infer(TensorSpec([2], "int32"), TensorSpec([2], "int32"))
    np.testing.assert_allclose(cls.bind(constant([0.5]), constant([2.0])).numpy(),
                               ref(np.array([0.5]), np.array([2.0])), rtol=1e-6)


# --- comparisons and selection -----------------------------------------------------------------

COMPARE = [
    (cmp.Equal, cmp.equal, np.equal), (cmp.NotEqual, cmp.not_equal, np.not_equal), (cmp.Less, cmp.less, np.less),
    (cmp.LessEqual, cmp.less_equal, np.less_equal), (cmp.Greater, cmp.greater, np.greater),
    (cmp.GreaterEqual, cmp.greater_equal, np.greater_equal), (cmp.LogicalAnd, cmp.logical_and, np.logical_and),
    (cmp.LogicalOr, cmp.logical_or, np.logical_or),
]
COMPARE_CASES = [(c, f, r, d) for c, f, r in COMPARE for d in dtype_names(c.TYPES) if d != "string"]


@pytest.mark.parametrize("cls,fn,ref,dtype", COMPARE_CASES, ids=[f"{c.name}-{d}" for c, _, _, d in COMPARE_CASES])
def test_comparisons_match_numpy(cls, fn, ref, dtype):
    np_dtype = dtypes.as_dtype(dtype).np
    for i, (sx, sy) in enumerate(SHAPES):
        x, y = sample(np_dtype, sx, seed=i), sample(np_dtype, sy, seed=i)  # same seed: some equal elements
        out = run(cls, x, y)
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, ref(x, y))
        np.testing.assert_array_equal(fn(constant(x), constant(y)).numpy(), out)


def test_equal_semantics():
    f = lambda *v: np.array(v, np.float32)
    np.testing.assert_array_equal(run(cmp.Equal, f(np.nan, 1), f(np.nan, 1)), [False, True])
    assert cmp.Equal.infer(TensorSpec([2], "string"), TensorSpec([1], "string")) == TensorSpec([2], "bool")
    np.testing.assert_array_equal(cmp.Equal.compute(np, np.array([b"a", b"b"], object), np.array([b"a"], object)),
                                  [True, False])
    # incompatible_shape_error = false: a scalar False (Equal) / True (NotEqual), as TensorFlow
    assert run(cmp.Equal, f(1, 2), f(1, 2, 3), incompatible_shape_error=False).item() is False
    assert run(cmp.NotEqual, f(1, 2), f(1, 2, 3), incompatible_shape_error=False).item() is True
    np.testing.assert_array_equal(run(cmp.Equal, f(1, 2), f(1, 3), incompatible_shape_error=False), [True, False])
    with pytest.raises(InvalidArgumentError, match=r"tf.Equal: incompatible shapes \[2\] and \[3\]"):
        cmp.Equal.infer(TensorSpec([2]), TensorSpec([3]), incompatible_shape_error=True)
    with pytest.raises(InvalidArgumentError, match="tf.Less: .*bool"):
        cmp.Less.infer(TensorSpec([2], "bool"), TensorSpec([2], "bool"))
    with pytest.raises(InvalidArgumentError, match="tf.LogicalAnd: .*float32"):
        cmp.LogicalAnd.infer(TensorSpec([2]), TensorSpec([2]))


def test_select_v1_rows_and_scalar():
    c = np.array([True, False])
    t, e = np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)
    np.testing.assert_array_equal(run(cmp.Select, c, t, e), [[1, 1, 1], [0, 0, 0]])
    np.testing.assert_array_equal(run(cmp.Select, np.array(True), t, e), t)
    np.testing.assert_array_equal(run(cmp.Select, c, np.float32([1, 2]), np.float32([3, 4])), [1, 4])
    full = np.array([[True, False, True], [False, True, False]])
    np.testing.assert_array_equal(run(cmp.Select, full, t, e), full.astype(np.float32))
    with pytest.raises(InvalidArgumentError, match="tf.Select: 'then' and 'else' must have the same shape"):
        cmp.Select.infer(TensorSpec([2], "bool"), TensorSpec([2]), TensorSpec([1]))
    with pytest.raises(InvalidArgumentError, match=r"tf.Select: condition \[3\]"):
        cmp.Select.infer(TensorSpec([3], "bool"), TensorSpec([2, 2]), TensorSpec([2, 2]))
    with pytest.raises(InvalidArgumentError, match=r"tf.Select: condition \[1,2\]"):
        cmp.Select.infer(TensorSpec([1, 2], "bool"), TensorSpec([2, 2]), TensorSpec([2, 2]))
    with pytest.raises(InvalidArgumentError, match="tf.Select: condition of dtype float32"):
        cmp.Select.infer(TensorSpec([2]), TensorSpec([2]), TensorSpec([2]))


def test_select_v2_broadcasts():
    c = np.array([True, False])
    out = run(cmp.SelectV2, c, np.ones((3, 1), np.float32), np.float32(0))
    np.testing.assert_array_equal(out, np.where(c, np.ones((3, 1)), 0))
    np.testing.assert_array_equal(cmp.where(constant(c), constant([1, 2]), 7).numpy(), [1, 7])
    with pytest.raises(InvalidArgumentError, match=r"tf.SelectV2: condition \[3\], then \[2,2\], and else \[\] must be"):
        cmp.SelectV2.infer(TensorSpec([3], "bool"), TensorSpec([2, 2]), TensorSpec([]))
    with pytest.raises(InvalidArgumentError, match="tf.SelectV2: .*float32 and int32"):
        cmp.SelectV2.infer(TensorSpec([], "bool"), TensorSpec([2]), TensorSpec([2], "int32"))
    with pytest.raises(InvalidArgumentError, match="give both x and y, or neither"):
        cmp.where(constant([True]), constant([1.0]))


# --- BatchMatMulV2, Einsum, matmul -------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64, F16, BF16])
@pytest.mark.parametrize("sx,sy", [((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2)), ((4, 3), (3, 2)),
                                   ((0, 2, 3), (3, 4)), ((2, 3, 0), (2, 0, 5))])
def test_batch_matmul(dtype, sx, sy):
    x, y = sample(dtype, sx, seed=3), sample(dtype, sy, seed=4)
    x, y = finite(x), finite(y)
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    close(run(la.BatchMatMulV2, x, y), np.matmul(x.astype(wide), y.astype(wide)), dtype)
    xt, yt = np.swapaxes(np.conj(x), -1, -2).copy(), np.swapaxes(np.conj(y), -1, -2).copy()
    close(run(la.BatchMatMulV2, xt, yt, adj_x=True, adj_y=True), np.matmul(x.astype(wide), y.astype(wide)), dtype)


def test_batch_matmul_errors_and_shapes():
    bmm = la.BatchMatMulV2
    with pytest.raises(InvalidArgumentError, match="tf.BatchMatMulV2: In\\[0\\] ndims must be >= 2: 1"):
        bmm.infer(TensorSpec([2]), TensorSpec([2, 2]), adj_x=False, adj_y=False)
    with pytest.raises(InvalidArgumentError, match="compatible batch dimensions: \\[2,2,3\\] vs. \\[3,3,4\\]"):
        bmm.infer(TensorSpec([2, 2, 3]), TensorSpec([3, 3, 4]), adj_x=False, adj_y=False)
    with pytest.raises(InvalidArgumentError, match="Matrix size-incompatible: In\\[0\\]: \\[2,2,3\\], In\\[1\\]"):
        bmm.infer(TensorSpec([2, 2, 3]), TensorSpec([2, 4, 4]), adj_x=False, adj_y=False)
    with pytest.raises(InvalidArgumentError, match="tf.BatchMatMulV2: .*int8"):
        bmm.infer(TensorSpec([2, 2], "int8"), TensorSpec([2, 2], "int8"))
    assert bmm.infer(TensorSpec([None, 5, 16]), TensorSpec([16, None])).shape == (None, 5, None)
    assert bmm.infer(TensorSpec(None), TensorSpec([16, 3])).shape is None
    assert bmm.infer(TensorSpec([2, 1, 3, 4]), TensorSpec([5, 4, 2])).shape == (2, 5, 3, 2)


def test_matmul_picks_the_op():
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(m.matmul(constant(a), constant(b)).numpy(), a @ b)
    np.testing.assert_array_equal(m.matmul(constant(b), constant(a), transpose_a=True, transpose_b=True).numpy(),
                                  b.T @ a.T)
    a3 = np.stack([a, 2 * a])
    np.testing.assert_array_equal(m.matmul(constant(a3), constant(b)).numpy(), a3 @ b)
    np.testing.assert_array_equal(m.matmul(constant(a3), constant(a), transpose_b=True).numpy(), a3 @ a.T)


EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,kj->ik", [(3, 4), (5, 4)]), ("BTNH,BSNH->BNTS", [(2, 5, 2, 8), (2, 4, 2, 8)]),
    ("BNTS,BSNH->BTNH", [(2, 2, 5, 4), (2, 4, 2, 8)]), ("ii->i", [(3, 3)]), ("ij->", [(2, 3)]), ("ij->ji", [(2, 3)]),
    ("...j,jk->...k", [(2, 3, 4), (4, 5)]), ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("i,j->ij", [(2,), (3,)]),
    ("AB->BA", [(2, 3)]), ("bij,bjk->bik", [(0, 2, 3), (0, 3, 1)]), ("i,i->", [(4,), (4,)]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64, BF16])
@pytest.mark.parametrize("equation,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_numpy(equation, shapes, dtype):
    inputs = [finite(sample(dtype, s, seed=i)) for i, s in enumerate(shapes)]
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    expected = np.einsum(equation, *(a.astype(wide) for a in inputs))
    close(run(la.Einsum, *inputs, equation=equation), expected, dtype)
    close(la.einsum(equation, *(constant(a) for a in inputs)).numpy(), expected, dtype)


def test_einsum_errors_follow_tensorflow():
    e = la.Einsum.infer
    with pytest.raises(InvalidArgumentError, match="tf.Einsum: Expecting exactly one '->'"):
        e(TensorSpec([2, 3]), TensorSpec([3, 5]), equation="ij,jk")
    with pytest.raises(InvalidArgumentError, match="tf.Einsum: Expecting 1 or 2 input subscripts"):
        e(TensorSpec([2]), TensorSpec([2]), TensorSpec([2]), equation="i,i,i->")
    with pytest.raises(InvalidArgumentError, match="tf.Einsum: Expected dimension 3 at axis 0 of the input shaped"):
        e(TensorSpec([2, 3]), TensorSpec([4, 5]), equation="ij,jk->ik")
    with pytest.raises(InvalidArgumentError, match="tf.Einsum: Expected input 0 to have rank 3 but got: 2"):
        e(TensorSpec([2, 3]), equation="ijk->k")
    with pytest.raises(InvalidArgumentError, match="tf.Einsum: Invalid broadcasting dimensions"):
        e(TensorSpec([2, 1, 3]), TensorSpec([4, 3, 5]), equation="...ij,...jk->...ik")
    with pytest.raises(InvalidArgumentError, match="tf.Einsum: Output contains 2 broadcasting dimension"):
        e(TensorSpec([2, 3, 4]), equation="...j->j")
    with pytest.raises(InvalidArgumentError, match="tf.Einsum: invalid subscripts 'i j '"):
        e(TensorSpec([2, 3]), equation="i j -> j i")
    with pytest.raises(InvalidArgumentError, match="tf.Einsum: output label 'k'"):
        e(TensorSpec([2, 3]), equation="ij->k")
    with pytest.raises(InvalidArgumentError, match="tf.Einsum: .*float32 and int32"):
        e(TensorSpec([2]), TensorSpec([2], "int32"), equation="i,i->")
    assert e(TensorSpec([None, 3]), TensorSpec([3, None]), equation="ij,jk->ik").shape == (None, None)
    assert e(TensorSpec(None), TensorSpec([3, 4]), equation="ij,jk->ik").shape is None


def test_einsum_implicit_output():
    a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    np.testing.assert_array_equal(la.einsum("ij,jk", constant(a), constant(b)).numpy(), np.einsum("ij,jk", a, b))


# --- gradients: the tape against central differences ------------------------------------------

def numeric_grad(f, xs, i, eps=1e-6):
    """d sum(w * f(xs)) / d xs[i] by central differences, in float64."""
    xs = [np.array(a, np.float64) for a in xs]
    g = np.zeros_like(xs[i])
    for idx in np.ndindex(g.shape):
        plus, minus = [a.copy() for a in xs], [a.copy() for a in xs]
        plus[i][idx] += eps
        minus[i][idx] -= eps
        g[idx] = (np.sum(f(*plus)) - np.sum(f(*minus))) / (2 * eps)
    return g


def check_grads(model, *arrays, atol=1e-5):
    """The tape's gradient of sum(w * model(...)) against numeric differences of the numpy forward."""
    w = np.random.default_rng(9).uniform(0.5, 1.5, np.shape(model(*[constant(a) for a in arrays]).numpy()))

    def forward(*xs):
        return w * model(*[constant(a) for a in xs]).numpy()

    tensors = [constant(a) for a in arrays]
    with GradientTape() as tape:
        for t in tensors:
            tape.watch(t)
        y = m.multiply(model(*tensors), constant(w))
    grads = tape.gradient(y, tensors)
    for i, g in enumerate(grads):
        assert g is not None, f"no gradient for input {i}"
        assert g.shape == arrays[i].shape
        np.testing.assert_allclose(g.numpy(), numeric_grad(forward, list(arrays), i), atol=atol, rtol=1e-5)


rng = np.random.default_rng(0)
POS = rng.uniform(0.5, 2.0, (2, 3))
ANY = rng.uniform(-2.0, 2.0, (2, 3))
ROW = rng.uniform(0.5, 2.0, (3,))

GRADS = [
    ("neg", ew.negative, [ANY]), ("abs", ew.abs, [ANY]), ("exp", tr.exp, [ANY]), ("log", tr.log, [POS]),
    ("log1p", tr.log1p, [POS]), ("sqrt", ew.sqrt, [POS]), ("rsqrt", ew.rsqrt, [POS]), ("square", ew.square, [ANY]),
    ("sin", tr.sin, [ANY]), ("cos", tr.cos, [ANY]), ("reciprocal", ew.reciprocal, [POS]), ("tanh", tr.tanh, [ANY]),
    ("sigmoid", tr.sigmoid, [ANY]), ("erf", tr.erf, [ANY]), ("erfc", tr.erfc, [ANY]),
    ("add", m.add, [ANY, ROW]), ("sub", m.subtract, [ANY, ROW]), ("mul", m.multiply, [ANY, ROW]),
    ("realdiv", dv.realdiv, [ANY, ROW]), ("div", lambda x, y: dv.Div.bind(x, y), [ANY, ROW]),
    ("div_no_nan", dv.div_no_nan, [ANY, ROW]), ("floormod", dv.floormod, [ANY, ROW]), ("pow", m.pow, [POS, ANY]),
    ("maximum", m.maximum, [ANY, ROW]), ("minimum", m.minimum, [ANY, ROW]),
    ("squared_difference", m.squared_difference, [ANY, ROW]),
    ("clip_by_value", m.clip_by_value, [ANY, np.float64(-1.0), np.float64(1.0)]),
    ("where", lambda x, y: cmp.where(cmp.greater(x, 0.0), x, y), [ANY, ROW]),
    ("select", lambda x, y: cmp.Select.bind(cmp.greater(x, 0.0), x, y), [ANY, POS]),
    ("matmul", m.matmul, [ANY, rng.uniform(-1, 1, (3, 4))]),
    ("batch_matmul", m.matmul, [rng.uniform(-1, 1, (2, 2, 3)), rng.uniform(-1, 1, (3, 4))]),
    ("batch_matmul_adj", lambda x, y: la.BatchMatMulV2.bind(x, y, adj_x=True, adj_y=True),
     [rng.uniform(-1, 1, (2, 3, 2)), rng.uniform(-1, 1, (4, 3))]),
    ("einsum", lambda x, y: la.einsum("ij,kj->ik", x, y), [ANY, POS]),
    ("einsum_summed", lambda x, y: la.einsum("ij,k->ik", x, y), [ANY, ROW]),
    ("tanh_grad", lambda y, dy: ug.TanhGrad.bind(y, dy), [ANY, POS]),
    ("sigmoid_grad", lambda y, dy: ug.SigmoidGrad.bind(y, dy), [ANY, POS]),
    ("rsqrt_grad", lambda y, dy: ug.RsqrtGrad.bind(y, dy), [POS, ANY]),
    ("sqrt_grad", lambda y, dy: ug.SqrtGrad.bind(y, dy), [POS, ANY]),
    ("reciprocal_grad", lambda y, dy: ug.ReciprocalGrad.bind(y, dy), [ANY, POS]),
]


@pytest.mark.parametrize("name,model,arrays", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_numeric(name, model, arrays):
    check_grads(model, *arrays)


def test_not_differentiable_ops_give_no_gradient():
    x = constant(ANY)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        ys = [ew.floor(x), ew.ceil(x), ew.round(x), dv.floordiv(x, 2.0), ew.is_nan(x), cmp.less(x, 0.0)]
    for y in ys:
        assert tape.gradient(y, x) is None
    with GradientTape() as tape:
        tape.watch(x)
        y = ew.sign(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.zeros_like(ANY))  # zeros, as TensorFlow


# --- the same compute under JAX (xp = jax.numpy), as the XLA backend runs it ------------------

JAX_UNARY = [cls for cls, _, _ in UNARY]
JAX_BINARY = [cls for cls, *_ in BINARY if cls is not m.Add] + [cls for cls, _, _ in COMPARE]


@pytest.mark.parametrize("cls", JAX_UNARY + JAX_BINARY, ids=[c.name for c in JAX_UNARY + JAX_BINARY])
def test_compute_under_jax_matches_numpy(cls):
    jnp = pytest.importorskip("jax.numpy")
    for dtype in sorted(cls.TYPES & {"float32", "int32", "bool", "complex64"}):
        np_dtype = dtypes.as_dtype(dtype).np
        arity = 1 if cls in JAX_UNARY else 2
        arrays = [sample(np_dtype, (3, 4) if i == 0 else (4,), seed=i, nonzero=i > 0,
                         positive=cls is m.Pow and np_dtype.kind == "i") for i in range(arity)]
        expected = run(cls, *arrays)
        got = np.asarray(cls.compute(jnp, *(jnp.asarray(a) for a in arrays)))
        assert got.dtype == expected.dtype, (cls.name, dtype)
        close(got, expected, np_dtype)


@pytest.mark.parametrize("cls,arrays,attrs", [
    (la.BatchMatMulV2, [(2, 3, 4), (4, 5)], {"adj_x": False, "adj_y": False}),
    (la.BatchMatMulV2, [(2, 4, 3), (5, 4)], {"adj_x": True, "adj_y": True}),
    (la.Einsum, [(2, 5, 2, 8), (2, 4, 2, 8)], {"equation": "BTNH,BSNH->BNTS"}),
    (m.ClipByValue, [(3, 4), (), ()], {}),
    (m.MatMul, [(3, 4), (5, 4)], {"transpose_b": True}),
    (cmp.SelectV2, [(3, 1), (3, 4), ()], {}),
    (cmp.Select, [(3,), (3, 4), (3, 4)], {}),
    (ug.TanhGrad, [(3, 4), (3, 4)], {}),
    (ug.RsqrtGrad, [(3, 4), (3, 4)], {}),
])
def test_structured_compute_under_jax(cls, arrays, attrs):
    jnp = pytest.importorskip("jax.numpy")
    values = [sample(np.bool_ if cls in (cmp.Select, cmp.SelectV2) and i == 0 else np.float32, s, seed=i)
              for i, s in enumerate(arrays)]
    values = [finite(v) if v.dtype != np.bool_ else v for v in values]
    if cls is m.ClipByValue:
        values[1:] = [np.float32(-1), np.float32(1)]
    expected = run(cls, *values, **attrs)
    full = cls.complete_attrs(attrs)
    got = np.asarray(cls.compute(jnp, *(jnp.asarray(v) for v in values), **full))
    close(got, expected, np.float32)


# --- IR: TensorFlow's printed properties, and graph mode ---------------------------------------

TF_TEXT = [
    '%0 = "tf.Equal"(%arg0, %arg1) <{incompatible_shape_error = true}> : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>',
    '%1 = "tf.NotEqual"(%arg0, %arg1) <{incompatible_shape_error = false}> : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<*xi1>',
    '%2 = "tf.BatchMatMulV2"(%arg0, %arg2) <{adj_x = false, adj_y = true, grad_x = false, grad_y = false}> : (tensor<3x4xf32>, tensor<16x?xf32>) -> tensor<3x16xf32>',
    '%3 = "tf.Einsum"(%arg0, %arg0) <{equation = "ij,kj->ik"}> : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>',
    '%4 = "tf.SelectV2"(%0, %arg0, %arg1) : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>',
    '%5 = "tf.ClipByValue"(%arg0, %arg1, %arg1) : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf32>',
    '%6 = "tf.TanhGrad"(%arg0, %arg0) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>',
    '%7 = "tf.FloorMod"(%arg0, %arg1) {device = ""} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>',
    '%8 = "tf.Erfc"(%arg0) {device = ""} : (tensor<3x4xf32>) -> tensor<3x4xf32>',
    '%9 = "tf.Select"(%0, %arg0, %arg0) : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>',
]


def test_ops_print_tensorflow_text_unchanged():
    from tinytf import mlir

    body = "\n".join("    " + line for line in TF_TEXT)
    text = ("func.func @f(%arg0: tensor<3x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<16x?xf32>) -> tensor<3x4xf32> {\n"
            f"{body}\n    func.return %4 : tensor<3x4xf32>\n  }}")
    module = mlir.parse("builtin.module {\n  " + text + "\n}")
    mlir.verify(module)
    printed = mlir.print(module)
    for line in TF_TEXT:
        assert line in printed
    ops = {op.name: op for op in module.walk()}
    assert ops["tf.NotEqual"].attr_values() == {"incompatible_shape_error": False}
    assert ops["tf.BatchMatMulV2"].attr_values()["adj_y"] is True
    assert ops["tf.Einsum"].attr_values() == {"equation": "ij,kj->ik"}
    assert type(ops["tf.Erfc"]) is tr.Erfc and type(ops["tf.Select"]) is cmp.Select


def test_graph_mode_matches_eager():
    from tinytf.function import function

    def model(x, v):
        return [m.add(tr.erfc(x), tr.sigmoid(v)), cmp.where(cmp.less(x, v), dv.floormod(x, v), m.maximum(x, v)),
                la.einsum("ij,kj->ik", x, x), m.matmul(x, x, transpose_b=True), dv.divide(x, v),
                ew.round(ew.square(x)), m.pow(ew.abs(x), v), ug.TanhGrad.bind(tr.tanh(x), x)]

    x, v = constant(sample(np.float32, (3, 4), seed=1)), constant(sample(np.float32, (4,), seed=2, positive=True))
    traced = function(model)
    for eager, graph in zip(model(x, v), traced(x, v)):
        same(graph.numpy(), eager.numpy())
    text = traced.get_concrete_function(TensorSpec([3, 4]), TensorSpec([4])).mlir()
    assert '"tf.Einsum"(%arg0, %arg0) <{equation = "ij,kj->ik"}>' in text
    assert '"tf.FloorMod"' in text and '"tf.SelectV2"' in text and '"tf.RealDiv"' in text


@pytest.mark.parametrize("name,model,arrays", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_in_graph_mode(name, model, arrays):
    """The same rules traced into a tt.function with the tape (tinytf.gradcheck's use_function=True)."""
    from tinytf.gradcheck import autodiff_gradients

    w = np.random.default_rng(9).uniform(0.5, 1.5, np.shape(model(*[constant(a) for a in arrays]).numpy()))

    def weighted(*xs):
        return m.multiply(model(*xs), constant(w))

    grads = autodiff_gradients(weighted, [constant(np.asarray(a)) for a in arrays], use_function=True)
    for i, g in enumerate(grads):
        expected = numeric_grad(lambda *xs: weighted(*[constant(a) for a in xs]).numpy(), list(arrays), i)
        np.testing.assert_allclose(g, expected, atol=1e-5, rtol=1e-5)


# --- fuzzing: random shapes and dtypes give a result or a tinytf error, nothing else ------------

FUZZ_OPS = [cls for cls, _, _ in UNARY] + [cls for cls, *_ in BINARY] + [cls for cls, _, _ in COMPARE] + [
    ug.TanhGrad, ug.SigmoidGrad, ug.RsqrtGrad, ug.SqrtGrad, ug.ReciprocalGrad, m.ClipByValue, cmp.Select,
    cmp.SelectV2, la.BatchMatMulV2, m.MatMul]
FUZZ_DTYPES = ["float32", "float16", "bfloat16", "float64", "int8", "int32", "int64", "uint8", "uint32", "bool",
               "complex64"]


def _fuzz_array(draw, st):
    dtype = dtypes.as_dtype(draw(st.sampled_from(FUZZ_DTYPES))).np
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    return sample(dtype, shape, seed=draw(st.integers(0, 3)))


def test_fuzz_ops_raise_only_tinytf_errors():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tinytf.errors import OpError

    outcomes = {"ok": 0, "error": 0}

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.data())
    def check(data):
        cls = data.draw(st.sampled_from(FUZZ_OPS + [la.Einsum]))
        arity = len(cls.get_irdl_definition().operands)
        attrs = {}
        if cls is la.Einsum:
            arity = data.draw(st.integers(1, 2))
            attrs["equation"] = data.draw(st.sampled_from(["ij,jk->ik", "ii->i", "...j->...", "ab->ba", "i,i->",
                                                           "ij->k", "i,j", "..."]))
        if cls is la.BatchMatMulV2:
            attrs = {"adj_x": data.draw(st.booleans()), "adj_y": data.draw(st.booleans())}
        arrays = [_fuzz_array(data.draw, st) for _ in range(arity)]
        try:
            out = cls.bind(*(constant(a) for a in arrays), **attrs)
        except OpError:
            outcomes["error"] += 1
            return
        outcomes["ok"] += 1
        assert out.numpy().shape == tuple(out.shape)

    check()
    assert outcomes["ok"] > 30 and outcomes["error"] > 30, outcomes


def test_matmul_adjoint_conjugates_complex():
    a = (np.arange(6).reshape(2, 3) + 1j * np.arange(6, 12).reshape(2, 3)).astype(np.complex64)
    b = (np.arange(6).reshape(2, 3) - 2j).astype(np.complex64)
    np.testing.assert_allclose(m.matmul(constant(a), constant(b), adjoint_a=True).numpy(), a.conj().T @ b)
    np.testing.assert_allclose(m.matmul(constant(a), constant(b), adjoint_b=True).numpy(), a @ b.conj().T)
    np.testing.assert_allclose(m.matmul(constant(a), constant(b), transpose_b=True).numpy(), a @ b.T)
