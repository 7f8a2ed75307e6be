"""Shape ops (tinytf/ops/shape.py, transpose.py): Reshape, Squeeze, ExpandDims, Shape, Size, Rank, BroadcastTo,
Transpose, InvertPermutation — compute and shape rules against numpy, TensorFlow's error cases
(messages as TensorFlow 2.21 words them), gradients in eager and graph mode, and the fixtures' IR."""
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
from tinytf.ops import shape as S
from tinytf.ops import transpose as T

FIXTURES = Path(__file__).parents[1] / "conformance" / "fixtures"
i32 = lambda *v: np.asarray(v, np.int32)
i64 = lambda *v: np.asarray(v, np.int64)


def spec_of(a, known=True):
    a = np.asarray(a)
    return TensorSpec(a.shape, a.dtype, value=a if known else None)


def run(cls, operands, attrs=None):
    """compute, the shape rule with and without operand values, and eager bind must agree."""
    attrs = cls.complete_attrs(attrs or {})
    out = cls.compute(np, *operands, **attrs)
    spec = cls.infer(*[spec_of(o) for o in operands], **attrs)
    assert spec.shape == np.shape(out) and spec.dtype.np == out.dtype
    blind = cls.infer(*[spec_of(o, known=False) for o in operands], **attrs)
    assert blind.is_compatible_with(np.shape(out)) and blind.dtype == spec.dtype
    unranked = cls.infer(*[TensorSpec(None, o.dtype) if i == 0 else spec_of(o) for i, o in enumerate(operands)],
                         **attrs)
    assert unranked.is_compatible_with(np.shape(out))
    eager = cls.bind(*operands, **attrs).numpy()
    np.testing.assert_array_equal(eager, out)
    return out


x234 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
CASES = [
    ("Reshape", S.Reshape, [x234, i32(4, -1)], {}, x234.reshape(4, 6)),
    ("Reshape-int64-shape", S.Reshape, [x234, i64(-1)], {}, x234.reshape(-1)),
    ("Reshape-to-scalar", S.Reshape, [np.ones((1, 1), np.int8), np.zeros(0, np.int32)], {}, np.asarray(1, np.int8)),
    ("Reshape-empty-minus1", S.Reshape, [np.zeros((0, 3)), i32(0, -1)], {}, np.zeros((0, 3))),
    ("Reshape-empty-to-minus1", S.Reshape, [np.zeros((2, 0)), i32(-1)], {}, np.zeros(0)),
    ("Reshape-legacy-scalar-shape", S.Reshape, [np.ones(1, np.float32), np.int32(1)], {}, np.ones(1, np.float32)),
    ("Squeeze-all", S.Squeeze, [np.ones((1, 1, 1, 8), np.float32)], {}, np.ones(8, np.float32)),
    ("Squeeze-dims", S.Squeeze, [np.ones((1, 2, 1))], {"squeeze_dims": (-1,)}, np.ones((1, 2))),
    ("Squeeze-none", S.Squeeze, [np.ones((2, 3))], {}, np.ones((2, 3))),
    ("Squeeze-to-scalar", S.Squeeze, [np.full((1,), True)], {"squeeze_dims": (0,)}, np.asarray(True)),
    ("ExpandDims", S.ExpandDims, [x234, np.int32(1)], {}, x234[:, None]),
    ("ExpandDims-neg", S.ExpandDims, [x234, np.int64(-1)], {}, x234[..., None]),
    ("ExpandDims-front-of-scalar", S.ExpandDims, [np.float64(2.0), np.int32(-1)], {}, np.asarray([2.0])),
    ("ExpandDims-legacy-vector", S.ExpandDims, [x234, i32(3)], {}, x234[..., None]),
    ("Shape", S.Shape, [x234], {}, i32(2, 3, 4)),
    ("Shape-int64-scalar", S.Shape, [np.float32(1)], {"out_type": dtypes.int64}, np.zeros(0, np.int64)),
    ("Size", S.Size, [x234], {}, np.asarray(24, np.int32)),
    ("Size-empty-int64", S.Size, [np.zeros((3, 0))], {"out_type": dtypes.int64}, np.asarray(0, np.int64)),
    ("Rank", S.Rank, [np.zeros((3, 0, 1))], {}, np.asarray(3, np.int32)),
    ("Rank-scalar", S.Rank, [np.int8(1)], {}, np.asarray(0, np.int32)),
    ("BroadcastTo", S.BroadcastTo, [np.arange(3.0), i32(2, 3)], {}, np.broadcast_to(np.arange(3.0), (2, 3))),
    ("BroadcastTo-ones", S.BroadcastTo, [np.ones((2, 1, 1), np.int32), i64(3, 2, 4, 0)], {}, np.ones((3, 2, 4, 0),
                                                                                                  np.int32)),
    ("BroadcastTo-scalar", S.BroadcastTo, [np.float32(5), i32(2)], {}, np.full(2, 5, np.float32)),
    ("Transpose", T.Transpose, [x234, i32(2, 0, 1)], {}, x234.transpose(2, 0, 1)),
    ("Transpose-negative-perm", T.Transpose, [np.ones((2, 3)), i32(-1, 0)], {}, np.ones((3, 2))),  # TF accepts it
    ("Transpose-scalar", T.Transpose, [np.float32(1), np.zeros(0, np.int32)], {}, np.asarray(1, np.float32)),
    ("InvertPermutation", T.InvertPermutation, [i32(2, 0, 3, 1)], {}, i32(1, 3, 0, 2)),
    ("InvertPermutation-empty", T.InvertPermutation, [np.zeros(0, np.int64)], {}, np.zeros(0, np.int64)),
]


@pytest.mark.parametrize("name,cls,operands,attrs,want", CASES, ids=[c[0] for c in CASES])
def test_spec_table(name, cls, operands, attrs, want):
    out = run(cls, operands, attrs)
    np.testing.assert_array_equal(out, want)
    assert out.dtype == want.dtype and out.shape == want.shape


def test_broadcast_to_returns_a_copy_not_a_view():
    out = S.BroadcastTo.compute(np, np.arange(3.0), i32(2, 3))
    assert out.flags.owndata and out.flags.writeable


# --- the reshape rule, exactly as TensorFlow -------------------------------------------------------

@pytest.mark.parametrize("in_shape,sizes,want", [
    ((3, 4), [2, -1], (2, 6)), ((0, 3), [0, -1], (0, 3)), ((0,), [-1], (0,)), ((2, 0, 3), [-1, 0], (6, 0)),
    ((3, None), [-1, 2], (None, 2)), ((None,), [2, 3], (2, 3)),
])
def test_reshape_dims(in_shape, sizes, want):
    assert S.reshape_dims("tf.Reshape", in_shape, sizes) == want


@pytest.mark.parametrize("in_shape,sizes,match", [
    ((3, 4), [5, -1], "Input to reshape is a tensor with 12 values, but the requested shape requires a multiple of 5"),
    ((3, 4), [5, 2], "Input to reshape is a tensor with 12 values, but the requested shape has 10"),
    ((3, 4), [-1, -1], "Only one input size may be -1, not both 0 and 1"),
    ((3, 4), [-2, 6], "Size 0 must be non-negative, not -2"),
    ((2, 3), [0, -1], "requested shape has 0"),
])
def test_reshape_dims_errors(in_shape, sizes, match):
    with pytest.raises(InvalidArgumentError, match=match):
        S.reshape_dims("tf.Reshape", in_shape, sizes)


@settings(max_examples=80, deadline=None)
@given(dims=st.lists(st.integers(0, 4), max_size=4), data=st.data())
def test_reshape_with_minus_one_matches_numpy(dims, data):
    x = np.arange(int(np.prod(dims)), dtype=np.float32).reshape(dims)
    split = data.draw(st.permutations(dims))
    target = list(split)
    if target and all(target):
        target[data.draw(st.integers(0, len(target) - 1))] = -1
    np.testing.assert_array_equal(run(S.Reshape, [x, np.asarray(target, np.int32)]), x.reshape(target))


@settings(max_examples=60, deadline=None)
@given(dims=st.lists(st.integers(0, 3), max_size=4), data=st.data())
def test_transpose_matches_numpy(dims, data):
    x = np.arange(int(np.prod(dims))).reshape(dims).astype(np.int16)
    perm = data.draw(st.permutations(range(len(dims))))
    np.testing.assert_array_equal(run(T.Transpose, [x, np.asarray(perm, np.int64)]), x.transpose(perm))


@settings(max_examples=80, deadline=None)
@given(src=st.lists(st.integers(0, 3), max_size=3), dst=st.lists(st.integers(0, 3), max_size=4))
def test_broadcast_to_matches_numpy(src, dst):
    x = np.arange(int(np.prod(src)), dtype=np.float64).reshape(src)
    try:
        want = np.broadcast_to(x, dst)
    except ValueError:
        with pytest.raises(InvalidArgumentError, match="Unable to broadcast tensor of shape"):
            S.BroadcastTo.bind(x, np.asarray(dst, np.int32))
        return
    np.testing.assert_array_equal(run(S.BroadcastTo, [x, np.asarray(dst, np.int32)]), want)


ERRORS = [
    (S.Reshape, [x234, np.ones((1, 2), np.int32)], {}, "sizes input must be 1-D"),
    (S.Reshape, [x234, np.asarray([2.0, 12.0], np.float32)], {}, "shape must be int32 or int64"),
    (S.Squeeze, [np.ones((1, 2))], {"squeeze_dims": (1,)}, r"Can not squeeze dim\[1\], expected a dimension of 1, got 2"),
    (S.Squeeze, [np.ones((1, 2))], {"squeeze_dims": (2,)}, "Tried to squeeze dim index 2 for tensor with 2 dimensions"),
    (S.ExpandDims, [x234, np.int32(4)], {}, "Tried to expand dim index 4 for tensor with 3 dimensions"),
    (S.ExpandDims, [x234, np.int32(-5)], {}, "Tried to expand dim index -5"),
    (S.ExpandDims, [x234, i32(0, 1)], {}, "'dim' must be a tensor with a single value"),
    (S.Shape, [x234], {"out_type": dtypes.float32}, "out_type must be int32 or int64"),
    (S.BroadcastTo, [np.ones(3), i32(2, 2)], {}, r"Unable to broadcast tensor of shape \[3\] to tensor of shape \[2,2\]"),
    (S.BroadcastTo, [np.ones((2, 3)), i32(3)], {}, "Unable to broadcast"),
    (S.BroadcastTo, [np.ones(3), i32(-1, 3)], {}, "negative dimension"),
    (S.BroadcastTo, [np.ones(3), np.int32(3)], {}, "must be a vector"),
    (T.Transpose, [x234, i32(0, 1)], {}, "transpose expects a vector of size 3. But input.1. is a vector of size 2"),
    (T.Transpose, [x234, i32(0, 1, 1)], {}, r"2 is missing from \{0,1,1\}"),
    (T.Transpose, [x234, i32(0, 1, 3)], {}, r"3 is out of range \[0 .. 3\)"),
    (T.InvertPermutation, [i32(0, 0)], {}, "not a valid permutation"),
    (T.InvertPermutation, [np.zeros((1, 1), np.int32)], {}, "must be a vector"),
]


@pytest.mark.parametrize("cls,operands,attrs,match", ERRORS, ids=[f"{e[0].name}-{e[3][:30]}" for e in ERRORS])
def test_bad_input_raises_invalid_argument_naming_the_op(cls, operands, attrs, match):
    with pytest.raises(InvalidArgumentError, match=match) as err:
        cls.bind(*operands, **attrs)
    assert cls.name in str(err.value)


def test_broadcast_to_refuses_absurd_sizes():
    with pytest.raises(ResourceExhaustedError, match="tf.BroadcastTo"):
        S.BroadcastTo.bind(np.float32(1), np.asarray([1 << 30, 1 << 30], np.int64))


def test_shape_rules_with_partial_information():
    f32, i32t = dtypes.float32, dtypes.int32
    assert S.Reshape.infer(TensorSpec([2, None]), TensorSpec([3], i32t)) == TensorSpec([None] * 3, f32)
    assert S.Reshape.infer(TensorSpec([2, None]), spec_of(i32(-1, 4))) == TensorSpec([None, 4], f32)
    assert S.Squeeze.infer(TensorSpec([1, None]), squeeze_dims=()).shape is None  # which dims are 1 is unknown
    assert S.Squeeze.infer(TensorSpec([1, None]), squeeze_dims=(0,)) == TensorSpec([None], f32)
    assert S.ExpandDims.infer(TensorSpec([2, 3]), TensorSpec([], i32t)) == TensorSpec([None] * 3, f32)
    assert S.Shape.infer(TensorSpec([2, None]), out_type=dtypes.int64) == TensorSpec([2], dtypes.int64)
    assert S.Shape.infer(TensorSpec([2, None]), out_type=i32t).value is None
    np.testing.assert_array_equal(S.Shape.infer(TensorSpec([2, 5]), out_type=i32t).value, [2, 5])
    assert S.Size.infer(TensorSpec(None), out_type=i32t) == TensorSpec([], i32t)
    assert S.Rank.infer(TensorSpec([None, 4])).value == 2
    assert T.Transpose.infer(TensorSpec([2, None, 3]), spec_of(i32(2, 1, 0))) == TensorSpec([3, None, 2], f32)
    assert T.Transpose.infer(TensorSpec(None), TensorSpec([2], i32t)) == TensorSpec([None, None], f32)
    assert S.BroadcastTo.infer(TensorSpec([None]), spec_of(i32(2, 3))) == TensorSpec([2, 3], f32)


# --- public functions -------------------------------------------------------------------------------

def test_public_functions():
    x = tt.constant(x234)
    assert tt.reshape(x, [6, -1]).shape == (6, 4)
    assert tt.reshape(x, tt.shape(tt.zeros([4, 6]))).shape == (4, 6)
    assert tt.squeeze(tt.zeros([1, 2, 1])).shape == (2,)
    assert tt.squeeze(tt.zeros([1, 2, 1]), axis=0).shape == (2, 1)
    assert tt.squeeze(tt.zeros([1, 2, 1]), axis=[0, 2]).shape == (2,)
    assert tt.expand_dims(x, -2).shape == (2, 3, 1, 4)
    np.testing.assert_array_equal(tt.shape(x).numpy(), [2, 3, 4])
    assert tt.shape(x, out_type=tt.int64).dtype == tt.int64
    assert int(tt.size(x)) == 24 and int(tt.rank(x)) == 3
    np.testing.assert_array_equal(tt.broadcast_to([1, 2], [2, 2]).numpy(), [[1, 2], [1, 2]])
    np.testing.assert_array_equal(tt.transpose(x).numpy(), x234.transpose())
    np.testing.assert_array_equal(tt.transpose(x, [1, 0, 2]).numpy(), x234.transpose(1, 0, 2))
    np.testing.assert_array_equal(tt.math.invert_permutation([1, 2, 0]).numpy(), [2, 0, 1])


def test_traits():
    for cls in (S.Shape, S.Size, S.Rank, T.InvertPermutation):
        assert has_trait(cls, NotDifferentiable)
    for cls in (S.Reshape, S.Squeeze, S.ExpandDims, S.BroadcastTo, T.Transpose):
        assert not has_trait(cls, NotDifferentiable) and callable(cls.grad)


# --- gradients, eager and traced ------------------------------------------------------------------

rng = np.random.default_rng(7)
GRADS = [
    ("reshape", lambda x: tt.reshape(x, [3, -1]), (2, 3, 2)),
    ("squeeze", lambda x: tt.squeeze(x), (1, 3, 1)),
    ("squeeze-axis", lambda x: tt.squeeze(x, axis=[-1]), (2, 1)),
    ("expand_dims", lambda x: tt.expand_dims(x, 1), (3, 2)),
    ("transpose", lambda x: tt.transpose(x, [2, 0, 1]), (2, 3, 4)),
    ("transpose-reverse", lambda x: tt.transpose(x), (2, 3)),
    ("broadcast_to", lambda x: tt.broadcast_to(x, [2, 2, 3]), (1, 3)),
]


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("name,model,shape", GRADS, ids=[g[0] for g in GRADS])
def test_gradients(name, model, shape, use_function):
    x = tt.constant(rng.standard_normal(shape))
    weights = tt.constant(rng.standard_normal(model(x).shape))
    gradcheck.compare_numerical_and_autodiff_gradients(lambda x: model(x) * weights, [x], use_function=use_function,
                                                       abs_error=1e-6)


def test_transpose_gradient_is_the_inverse_permutation():
    x = tt.constant(rng.standard_normal((2, 3, 4)))
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = tt.transpose(x, [1, 2, 0])
    dy = tt.constant(rng.standard_normal((3, 4, 2)))
    np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=dy).numpy(), dy.numpy().transpose(2, 0, 1))


@pytest.mark.parametrize("jit_compile", [None, False, True])
def test_conjugate_transpose_of_complex_tensors(jit_compile):
    z = (rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))).astype(np.complex64)
    dy = (rng.standard_normal((3, 4, 2)) + 1j * rng.standard_normal((3, 4, 2))).astype(np.complex64)

    def f(x, dy):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = tt.transpose(x, [1, 2, 0], conjugate=True)
        return y, tape.gradient(y, x, output_gradients=dy)

    run_ = f if jit_compile is None else tt.function(f, jit_compile=jit_compile)
    y, dx = run_(tt.constant(z), tt.constant(dy))
    np.testing.assert_array_equal(y.numpy(), z.transpose(1, 2, 0).conj())
    np.testing.assert_allclose(dx.numpy(), dy.transpose(2, 0, 1).conj())  # the adjoint of conj-transpose
    real = tt.transpose(tt.constant(z.real), conjugate=True)  # a real tensor: a plain Transpose
    np.testing.assert_array_equal(real.numpy(), z.real.T)


def test_traced_shapes_stay_static_and_print_as_tensorflow():
    f = tt.function(lambda x: tt.transpose(tt.reshape(tt.squeeze(x), [-1, 2]), [1, 0]))
    x = tt.constant(np.arange(6.0, dtype=np.float32).reshape(1, 6))
    np.testing.assert_array_equal(f(x).numpy(), np.arange(6.0).reshape(3, 2).T)
    text = f.get_concrete_function(tt.TensorSpec([1, 6], tt.float32)).mlir()
    assert '"tf.Squeeze"' in text and "squeeze_dims = []" in text
    assert '"tf.Reshape"' in text and "-> tensor<3x2xf32>" in text
    assert '"tf.Transpose"' in text and "-> tensor<2x3xf32>" in text


def test_fixture_ops_parse_and_keep_their_properties():
    module = mlir.parse(FIXTURES / "keras_cnn.mlir")
    squeezes = [op for op in module.walk() if op.name == "tf.Squeeze"]
    assert squeezes and all(type(op) is S.Squeeze and op.attr_values() == {"squeeze_dims": ()} for op in squeezes)
    module = mlir.parse(FIXTURES / "elementwise_zoo.mlir")
    (squeeze,) = [op for op in module.walk() if op.name == "tf.Squeeze"]
    assert squeeze.attr_values() == {"squeeze_dims": (0,)}
    assert any(type(op) is T.Transpose for op in module.walk())
    assert "squeeze_dims = [0]" in mlir.print(module)


def test_under_xla_values_and_gradients_match_eager():
    models = [lambda x: tt.transpose(tt.reshape(x, [6, -1]), [1, 0]), lambda x: tt.squeeze(tt.expand_dims(x, 0), [0]),
              lambda x: tt.broadcast_to(x[:, :1], [2, 3, 4]) * tt.cast(tt.size(x) + tt.rank(x), tt.float32),
              lambda x: tt.reshape(x, tt.shape(x)[::-1])]
    x = tt.constant(x234.astype(np.float32))
    for model in models:
        np.testing.assert_allclose(tt.function(model, jit_compile=True)(x).numpy(), model(x).numpy())

    def grad(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = sum(tt.reduce_sum(model(x) * model(x)) for model in models)
        return tape.gradient(y, x)

    np.testing.assert_allclose(tt.function(grad, jit_compile=True)(x).numpy(), grad(x).numpy(), rtol=1e-6)
