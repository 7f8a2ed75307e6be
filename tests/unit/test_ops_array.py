"""Array ops (tinytf/ops/array.py, sequences.py): StopGradient, Fill, ZerosLike, OnesLike, Range, OneHot and the
tt.zeros / ones / fill / range / one_hot / stop_gradient helpers, against numpy references and the
values TensorFlow 2.21 gives (noted where a case pins TensorFlow behaviour rather than numpy's)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytf as tt
from tinytf import dtypes, gradcheck, mlir
from tinytf.errors import InvalidArgumentError, ResourceExhaustedError
from tinytf.framework.op import NotDifferentiable, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import array as A
from tinytf.ops import sequences as SQ

FIXTURES = Path(__file__).parents[1] / "conformance" / "fixtures"
i32 = lambda *v: np.asarray(v, np.int32)
scalar = lambda v, dtype=np.float32: np.asarray(v, dtype)


def spec_of(a, known=True):
    a = np.asarray(a)
    return TensorSpec(a.shape, a.dtype, value=a if known else None)


def run(cls, operands, attrs=None):
    """compute and infer (values known and unknown) of one op; checks they agree; returns the output."""
    attrs = cls.complete_attrs(attrs or {})
    out = cls.compute(np, *operands, **attrs)
    spec = cls.infer(*[spec_of(o) for o in operands], **attrs)
    assert spec.shape == out.shape and spec.dtype.np == out.dtype
    blind = cls.infer(*[spec_of(o, known=False) for o in operands], **attrs)
    assert blind.is_compatible_with(out.shape) and blind.dtype == spec.dtype
    eager = cls.bind(*operands, **attrs).numpy()
    np.testing.assert_array_equal(eager, out)
    assert eager.dtype == out.dtype
    return out


# --- spec table: op, operands, attrs, numpy reference -----------------------------------------

x23 = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
CASES = [
    ("StopGradient", A.StopGradient, [x23], {}, x23),
    ("StopGradient-int-scalar", A.StopGradient, [scalar(3, np.int64)], {}, scalar(3, np.int64)),
    ("Fill", A.Fill, [i32(2, 3), scalar(1.5)], {}, np.full((2, 3), 1.5, np.float32)),
    ("Fill-int64-dims", A.Fill, [np.asarray([2, 0], np.int64), scalar(7, np.int32)], {}, np.zeros((2, 0), np.int32)),
    ("Fill-scalar", A.Fill, [np.zeros(0, np.int32), scalar(True, np.bool_)], {}, np.asarray(True)),
    ("Fill-f64", A.Fill, [i32(3), scalar(-2.0, np.float64)], {}, np.full(3, -2.0)),
    ("ZerosLike", A.ZerosLike, [x23], {}, np.zeros((2, 3), np.float32)),
    ("ZerosLike-bool", A.ZerosLike, [np.ones((2, 1), bool)], {}, np.zeros((2, 1), bool)),
    ("ZerosLike-c64", A.ZerosLike, [np.ones(2, np.complex64)], {}, np.zeros(2, np.complex64)),
    ("OnesLike", A.OnesLike, [np.arange(4, dtype=np.int8)], {}, np.ones(4, np.int8)),
    ("OnesLike-empty", A.OnesLike, [np.zeros((0, 3), np.float16)], {}, np.ones((0, 3), np.float16)),
    ("Range-int", SQ.Range, [scalar(5, np.int32), scalar(-3, np.int32), scalar(-3, np.int32)], {},
     np.asarray([5, 2, -1], np.int32)),
    ("Range-empty", SQ.Range, [scalar(2, np.int64), scalar(2, np.int64), scalar(1, np.int64)], {},
     np.zeros(0, np.int64)),
    # TensorFlow 2.21's CPU kernel computes start + T(i) * delta in float32 (not a running sum):
    ("Range-f32-tf", SQ.Range, [scalar(0.1), scalar(5.3), scalar(0.7)], {},
     np.asarray([0.10000000149011612, 0.800000011920929, 1.5, 2.1999998092651367, 2.8999998569488525,
                 3.5999999046325684, 4.299999713897705, 5.0], np.float32)),
    ("Range-f64-down", SQ.Range, [scalar(1.0, np.float64), scalar(-0.25, np.float64), scalar(-0.5, np.float64)], {},
     np.asarray([1.0, 0.5, 0.0])),
    ("OneHot", SQ.OneHot, [np.asarray([0, 2, 5, -1], np.int64), scalar(3, np.int32), scalar(2.5), scalar(-1.0)],
     {}, np.where(np.eye(3, dtype=bool)[[0, 2, 0, 0]] & np.asarray([1, 1, 0, 0], bool)[:, None], 2.5, -1.0)
     .astype(np.float32)),
    ("OneHot-axis0", SQ.OneHot, [np.asarray([1, 0], np.int32), scalar(3, np.int32), scalar(1, np.int32),
                                scalar(0, np.int32)], {"axis": 0}, np.asarray([[0, 1], [1, 0], [0, 0]], np.int32)),
    ("OneHot-scalar-uint8", SQ.OneHot, [scalar(1, np.uint8), scalar(2, np.int32), scalar(True, bool),
                                       scalar(False, bool)], {}, np.asarray([False, True])),
    ("OneHot-depth0", SQ.OneHot, [np.zeros((2, 0), np.int8), scalar(0, np.int32), scalar(1.0), scalar(0.0)], {"axis": 1},
     np.zeros((2, 0, 0), np.float32)),
]


@pytest.mark.parametrize("name,cls,operands,attrs,want", CASES, ids=[c[0] for c in CASES])
def test_spec_table(name, cls, operands, attrs, want):
    out = run(cls, operands, attrs)
    np.testing.assert_array_equal(out, want)
    assert out.dtype == want.dtype and out.shape == want.shape


@settings(max_examples=60, deadline=None)
@given(indices=st.lists(st.integers(-2, 6), max_size=6), depth=st.integers(0, 5), axis=st.sampled_from([-1, 0, 1]),
       rows=st.integers(1, 3))
def test_one_hot_matches_numpy(indices, depth, axis, rows):
    ind = np.resize(np.asarray(indices, np.int32), (rows, len(indices)))
    want = (ind[..., None] == np.arange(depth)).astype(np.float32) * 4 - 1  # on 3, off -1
    want = np.moveaxis(want, -1, axis if axis != -1 else -1)
    out = run(SQ.OneHot, [ind, scalar(depth, np.int32), scalar(3.0), scalar(-1.0)], {"axis": axis})
    np.testing.assert_array_equal(out, want)


@settings(max_examples=80, deadline=None)
@given(start=st.integers(-20, 20), limit=st.integers(-20, 20), delta=st.integers(-6, 6).filter(bool),
       dtype=st.sampled_from([np.int32, np.int64, np.float32, np.float64]))
def test_range_matches_numpy(start, limit, delta, dtype):
    operands = [scalar(v, dtype) for v in (start, limit, delta)]
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        with pytest.raises(InvalidArgumentError, match="tf.Range: Requires start"):
            SQ.Range.bind(*operands)
        return
    out = run(SQ.Range, operands)
    np.testing.assert_array_equal(out, np.arange(start, limit, delta).astype(dtype))


ERRORS = [
    (A.Fill, [i32(2, -1), scalar(1.0)], {}, "negative dimension"),
    (A.Fill, [np.ones((1, 2), np.int32), scalar(1.0)], {}, "must be a vector"),
    (A.Fill, [i32(2), np.ones(2, np.float32)], {}, "value must represent a scalar"),
    (A.Fill, [np.asarray([2.0], np.float32), scalar(1.0)], {}, "dims must be int32 or int64"),
    (SQ.Range, [scalar(0), scalar(1), scalar(0)], {}, "Requires delta != 0"),
    (SQ.Range, [scalar(5, np.int32), scalar(1, np.int32), scalar(1, np.int32)], {}, "Requires start <= limit"),
    (SQ.Range, [scalar(1.0), scalar(5.0), scalar(-1.0)], {}, "Requires start >= limit"),
    (SQ.Range, [scalar(0), scalar(1, np.int32), scalar(1)], {}, "same dtype"),
    (SQ.Range, [np.zeros(2, np.int32), scalar(1, np.int32), scalar(1, np.int32)], {}, "start must be a scalar"),
    (SQ.Range, [scalar(0.0), scalar(np.inf), scalar(1.0)], {}, "finite"),
    (SQ.Range, [scalar(True, bool), scalar(True, bool), scalar(True, bool)], {}, "not supported"),
    (SQ.OneHot, [i32(0), scalar(-1, np.int32), scalar(1.0), scalar(0.0)], {}, "depth must be non-negative"),
    (SQ.OneHot, [i32(0), scalar(3, np.int32), scalar(1.0), scalar(0.0)], {"axis": 2}, "Expected axis to be -1"),
    (SQ.OneHot, [i32(0), scalar(3, np.int32), scalar(1.0), scalar(0.0)], {"axis": -2}, "Expected axis to be -1"),
    (SQ.OneHot, [np.zeros(1, np.float32), scalar(3, np.int32), scalar(1.0), scalar(0.0)], {}, "indices of dtype"),
    (SQ.OneHot, [i32(0), i32(3), scalar(1.0), scalar(0.0)], {}, "depth must be a scalar"),
    (SQ.OneHot, [i32(0), scalar(3, np.int32), scalar(1.0), scalar(0, np.int32)], {}, "same dtype"),
    (SQ.OneHot, [i32(0), scalar(3, np.int32), np.ones(1, np.float32), scalar(0.0)], {}, "on_value must be a scalar"),
]


@pytest.mark.parametrize("cls,operands,attrs,match", ERRORS, ids=[f"{e[0].name}-{e[3]}" for e in ERRORS])
def test_bad_input_raises_invalid_argument_naming_the_op(cls, operands, attrs, match):
    with pytest.raises(InvalidArgumentError, match=match) as err:
        cls.bind(*operands, **attrs)
    assert cls.name in str(err.value)


def test_tensorflow_legacy_single_element_operands():
    # As TensorFlow 2.21: Fill takes a scalar dims and a 1-element value; Range 1-element bounds.
    np.testing.assert_array_equal(A.Fill.bind(scalar(2, np.int32), np.ones(1, np.float32)).numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(SQ.Range.bind(i32(0), i32(3), scalar(1, np.int32)).numpy(), [0, 1, 2])


@pytest.mark.parametrize("cls,operands", [
    (A.Fill, [np.asarray([1 << 20, 1 << 20], np.int64), scalar(1.0)]),
    (SQ.Range, [scalar(0, np.int64), scalar(1 << 40, np.int64), scalar(1, np.int64)]),
    (SQ.OneHot, [np.zeros(1 << 16, np.int32), scalar(1 << 30, np.int32), scalar(1.0), scalar(0.0)]),
])
def test_absurd_sizes_are_refused_before_allocating(cls, operands):
    with pytest.raises(ResourceExhaustedError, match=cls.name):
        cls.bind(*operands)
    with pytest.raises(ResourceExhaustedError):  # the shape rule alone refuses it too
        cls.infer(*[spec_of(o) for o in operands], **cls.complete_attrs({}))


def test_shape_rules_with_unknown_values():
    f32, i32t = dtypes.float32, dtypes.int32
    assert A.Fill.infer(TensorSpec([3], i32t), TensorSpec([], f32)) == TensorSpec([None, None, None], f32)
    assert A.Fill.infer(TensorSpec([None], i32t), TensorSpec([], f32)).shape is None
    assert SQ.Range.infer(*[TensorSpec([], f32)] * 3).shape == (None,)
    spec = SQ.OneHot.infer(TensorSpec([2, None], dtypes.int64), TensorSpec([], i32t), TensorSpec([], f32),
                          TensorSpec([], f32), axis=1)
    assert spec == TensorSpec([2, None, None], f32)
    assert SQ.OneHot.infer(TensorSpec(None, i32t), TensorSpec([], i32t), TensorSpec([], f32), TensorSpec([], f32),
                          axis=-1) == TensorSpec(None, f32)


def test_small_integer_results_carry_their_value():
    spec = SQ.Range.infer(spec_of(scalar(0, np.int32)), spec_of(scalar(3, np.int32)), spec_of(scalar(1, np.int32)))
    np.testing.assert_array_equal(spec.value, [0, 1, 2])
    big = SQ.Range.infer(spec_of(scalar(0, np.int32)), spec_of(scalar(1000, np.int32)), spec_of(scalar(1, np.int32)))
    assert big.value is None  # only small shape-like tensors are folded


# --- public functions -----------------------------------------------------------------------------

def test_constant_keeps_scalars_and_numpy_dtypes():
    assert tt.constant(3).shape == () and tt.constant(3).dtype == tt.int32
    assert tt.constant(np.float64(2.5)).dtype == tt.float64 and tt.constant(np.float64(2.5)).shape == ()
    assert tt.constant(np.arange(3)).dtype == tt.int64  # as tf.constant: a numpy array keeps its dtype
    assert tt.constant(2.5).dtype == tt.float32 and tt.constant([1, 2], dtype=tt.int8).dtype == tt.int8


def test_public_functions():
    x = tt.constant(x23)
    np.testing.assert_array_equal(tt.stop_gradient(x).numpy(), x23)
    np.testing.assert_array_equal(A.zeros([2, 3], tt.int32).numpy(), np.zeros((2, 3), np.int32))
    np.testing.assert_array_equal(A.ones(2).numpy(), np.ones(2, np.float32))
    big = A.zeros([40, 40])
    assert big.shape == (40, 40) and not big.numpy().any()
    np.testing.assert_array_equal(A.fill([2, 2], 7).numpy(), np.full((2, 2), 7, np.int32))
    np.testing.assert_array_equal(A.fill(tt.constant([3]), 1.5).numpy(), np.full(3, 1.5, np.float32))
    np.testing.assert_array_equal(tt.zeros_like(x).numpy(), np.zeros((2, 3), np.float32))
    like = tt.ones_like(x, dtype=tt.int64)
    assert like.dtype == tt.int64 and like.numpy().tolist() == [[1] * 3] * 2
    assert tt.zeros_like([1.0, 2.0]).dtype == tt.float32


@pytest.mark.parametrize("args,kwargs,want", [
    ((5,), {}, np.arange(5, dtype=np.int32)),
    ((1, 4), {}, np.asarray([1, 2, 3], np.int32)),
    ((0, 1, 0.25), {}, np.arange(0, 1, 0.25, dtype=np.float32)),
    ((3,), {"dtype": tt.float64}, np.arange(3.0)),
    ((10, 0, -4), {}, np.asarray([10, 6, 2], np.int32)),
])
def test_range_function(args, kwargs, want):
    out = tt.range(*args, **kwargs).numpy()
    np.testing.assert_array_equal(out, want)
    assert out.dtype == want.dtype


def test_range_takes_the_widest_dtype_of_its_arguments():
    assert tt.range(tt.constant(np.int64(4)), 9).dtype == tt.int64
    assert tt.range(0, tt.constant(np.int64(4)), 0.5).dtype == tt.float32
    assert tt.range(tt.constant(2.0, tt.float64)).dtype == tt.float64


def test_one_hot_function():
    out = tt.one_hot([0, 3, 1], 3)
    assert out.dtype == tt.float32
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 0], [0, 0, 0], [0, 1, 0]])
    out = tt.one_hot(tt.constant([1, 0]), 2, on_value=5, off_value=-5, axis=0)
    assert out.dtype == tt.int32
    np.testing.assert_array_equal(out.numpy(), [[-5, 5], [5, -5]])
    assert tt.one_hot([1], 2, dtype=tt.float64).dtype == tt.float64


# --- gradients ---------------------------------------------------------------------------------

def test_traits():
    for cls in (A.StopGradient, A.ZerosLike, A.OnesLike, SQ.Range, SQ.OneHot):
        assert has_trait(cls, NotDifferentiable), cls.name
    assert not has_trait(A.Fill, NotDifferentiable)


@pytest.mark.parametrize("use_function", [False, True])
def test_fill_gradient_is_the_sum(use_function):
    v = tt.constant(np.float64(0.7))
    gradcheck.compare_numerical_and_autodiff_gradients(lambda v: A.fill([2, 3], v) * tt.constant(x23.astype(np.float64)),
                                                       [v], use_function=use_function, abs_error=1e-6)
    (g,) = gradcheck.autodiff_gradients(lambda v: A.fill([2, 3], v) * 2.0, [v], use_function=use_function)
    assert g == pytest.approx(12.0)


def test_stop_gradient_blocks_the_gradient():
    x = tt.constant(np.asarray([1.0, 2.0]))
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = tt.stop_gradient(x * x) + 3.0 * x
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 3.0])
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = tt.stop_gradient(x)
    assert tape.gradient(y, x) is None


# --- graph mode and MLIR -------------------------------------------------------------------------

def test_traced_function_matches_eager_and_prints_tensorflow_properties():
    def f(n, indices):  # (operands that depend on arguments, so no op is folded into a constant)
        r = tt.range(tt.constant(np.float32(0.0)), n, 0.5)
        return tt.one_hot(indices, 3) + tt.reduce_sum(r), tt.fill([2], n)

    fn = tt.function(f)
    n, indices = tt.constant(np.float32(2.0)), tt.constant(np.asarray([2, 0, 7], np.int64))
    for got, want in zip(fn(n, indices), f(n, indices)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    text = fn.get_concrete_function(tt.TensorSpec([], tt.float32), tt.TensorSpec([3], tt.int64)).mlir()
    assert '"tf.OneHot"' in text and "axis = -1 : i64" in text
    assert '"tf.Range"' in text and "-> tensor<?xf32>" in text
    assert '"tf.Fill"' in text


def test_fixture_ops_parse_with_their_properties():
    module = mlir.parse(FIXTURES / "elementwise_zoo.mlir")
    found = {op.name: op for op in module.walk() if op.name in ("tf.OneHot", "tf.Range")}
    assert type(found["tf.OneHot"]) is SQ.OneHot and found["tf.OneHot"].attr_values() == {"axis": -1}
    assert type(found["tf.Range"]) is SQ.Range and found["tf.Range"].attr_values() == {"Tidx": dtypes.float32}


def test_under_xla_values_match_eager():
    def model(x):
        return (tt.fill([3], 1.5) + tt.cast(tt.range(3), tt.float32) + tt.one_hot([1, 0, 4], 3, axis=0)[0]
                + tt.zeros_like(x) + tt.ones_like(x) * tt.stop_gradient(x))

    x = tt.constant(np.asarray([0.5, -1.0, 2.0], np.float32))
    np.testing.assert_array_equal(tt.function(model, jit_compile=True)(x).numpy(), model(x).numpy())
