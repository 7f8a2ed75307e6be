"""Tensor: values, dtypes, repr, Python operators (through the public op functions), indexing."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError


def test_constant_dtypes_follow_tensorflow():
    assert tt.constant(1.0).dtype is tt.float32
    assert tt.constant(1).dtype is tt.int32
    assert tt.constant(True).dtype is tt.bool
    assert tt.constant([1, 2], dtype=tt.int64).dtype is tt.int64
    assert tt.constant(np.zeros(2, np.float64)).dtype is tt.float64
    assert tt.constant(2.0, shape=[2, 3]).numpy().tolist() == [[2.0] * 3] * 2


def test_repr_and_str_like_tensorflow():
    x = tt.constant([1.0, 2.0])
    assert repr(x) == "<tt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert str(x) == "tt.Tensor([1. 2.], shape=(2,), dtype=float32)"
    assert x.shape == (2,) and x.ndim == 1


def test_numpy_and_array_protocol():
    x = tt.constant([[1, 2], [3, 4]])
    np.testing.assert_array_equal(x.numpy(), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.asarray(x), [[1, 2], [3, 4]])
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    assert len(x) == 2
    assert [t.numpy().tolist() for t in x] == [[1, 2], [3, 4]]
    assert int(tt.constant(3)) == 3 and float(tt.constant(2.5)) == 2.5
    assert [10, 20, 30][tt.constant(1)] == 20


@pytest.mark.parametrize("op, ref", [
    (lambda a, b: a + b, np.add), (lambda a, b: a - b, np.subtract), (lambda a, b: a * b, np.multiply),
    (lambda a, b: a / b, np.divide), (lambda a, b: a ** b, np.power), (lambda a, b: a @ b, np.matmul),
    (lambda a, b: a < b, np.less), (lambda a, b: a <= b, np.less_equal), (lambda a, b: a > b, np.greater),
    (lambda a, b: a >= b, np.greater_equal), (lambda a, b: a == b, np.equal), (lambda a, b: a != b, np.not_equal),
])
def test_binary_operators_match_numpy(op, ref):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2, (3, 3)).astype(np.float32)
    b = rng.uniform(0.5, 2, (3, 3)).astype(np.float32)
    got = op(tt.constant(a), tt.constant(b))
    assert isinstance(got, tt.Tensor)
    np.testing.assert_allclose(got.numpy(), ref(a, b), rtol=1e-6)
    assert got.numpy().dtype == ref(a, b).dtype


def test_unary_operators():
    x = tt.constant([-1.5, 2.0])
    np.testing.assert_array_equal((-x).numpy(), [1.5, -2.0])
    np.testing.assert_array_equal(abs(x).numpy(), [1.5, 2.0])
    b = tt.constant([True, False])
    np.testing.assert_array_equal((~b).numpy(), [False, True])
    np.testing.assert_array_equal((b & tt.constant([True, True])).numpy(), [True, False])


def test_floordiv_and_mod_round_like_tensorflow():
    a, b = tt.constant([7, -7]), tt.constant([2, 2])
    np.testing.assert_array_equal((a // b).numpy(), [3, -4])
    np.testing.assert_array_equal((a % b).numpy(), [1, 1])


def test_python_scalars_adopt_the_tensor_dtype():
    x = tt.constant([1.0, 2.0], dtype=tt.float64)
    for y in (x + 1, 1 + x, x * 2.5, 3 - x, x / 2):
        assert y.dtype is tt.float64
    np.testing.assert_array_equal((3 - x).numpy(), [2.0, 1.0])
    i = tt.constant([1, 2], dtype=tt.int8)
    assert (i + 1).dtype is tt.int8
    h = tt.constant([1.0], dtype=tt.float16)
    assert (h * 2.0).dtype is tt.float16


def test_numpy_operands_keep_their_dtype_and_reflect():
    x = tt.constant([1.0, 2.0])
    y = np.array([1.0, 1.0], np.float32) + x  # numpy defers to the tensor
    assert isinstance(y, tt.Tensor) and y.numpy().tolist() == [2.0, 3.0]
    with pytest.raises(InvalidArgumentError, match="float32.*float64|float64.*float32"):
        x + np.array([1.0, 1.0])  # float64 array: no implicit promotion


def test_mixed_dtypes_raise_naming_op_and_dtypes():
    with pytest.raises(InvalidArgumentError) as err:
        tt.constant([1.0]) + tt.constant([1])
    message = str(err.value)
    assert "AddV2" in message and "float32" in message and "int32" in message
    with pytest.raises(InvalidArgumentError, match="MatMul"):
        tt.constant([[1.0]]) @ tt.constant([[1]], dtype=tt.float64)


def test_float_scalar_into_int_tensor_is_refused():
    with pytest.raises(InvalidArgumentError):
        tt.constant([1, 2]) + 1.5
    assert (tt.constant([1, 2]) + 2.0).numpy().tolist() == [3, 4]  # an integral float is exact


def test_overflowing_scalar_is_refused():
    with pytest.raises(InvalidArgumentError):
        tt.constant([1], dtype=tt.int8) + 300


def test_tensors_hash_by_identity():
    a, b = tt.constant(1.0), tt.constant(1.0)
    d = {a: "a", b: "b"}
    assert d[a] == "a" and d[b] == "b"
    assert len({a, b, a}) == 2


def test_getitem_through_strided_slice():
    arr = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = tt.constant(arr)
    for key in [1, -1, (0, 1), (slice(None), 1), (Ellipsis, 2), (slice(1, None), slice(None, None, 2)),
                (None, 0), (0, slice(None, None, -1)), (slice(None), None, slice(1, 3))]:
        np.testing.assert_array_equal(x[key].numpy(), arr[key], err_msg=str(key))


def test_convert_to_tensor():
    x = tt.constant([1.0])
    assert tt.convert_to_tensor(x) is x
    assert tt.convert_to_tensor([1, 2]).dtype is tt.int32
    assert tt.convert_to_tensor([1, 2], dtype_hint=tt.float32).dtype is tt.float32
    assert tt.convert_to_tensor([1.5], dtype_hint=tt.int32).dtype is tt.float32  # a hint never truncates
    with pytest.raises(InvalidArgumentError):
        tt.convert_to_tensor(x, dtype=tt.int32)
    v = tt.Variable([3.0])
    assert tt.convert_to_tensor(v).numpy().tolist() == [3.0]


def test_zeros_ones_fill():
    z = tt.zeros([2, 3])
    assert z.dtype is tt.float32 and z.numpy().tolist() == [[0.0] * 3] * 2
    o = tt.ones((2,), dtype=tt.int32)
    assert o.dtype is tt.int32 and o.numpy().tolist() == [1, 1]
    f = tt.fill([2, 2], 7)
    assert f.numpy().tolist() == [[7, 7], [7, 7]] and f.dtype is tt.int32


def test_bool_of_tensor():
    assert bool(tt.constant(True)) and not bool(tt.constant(0.0))
