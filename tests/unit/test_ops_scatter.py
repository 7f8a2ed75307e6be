"""tf.TensorScatterUpdate: values against numpy in eager, graph and XLA modes; TensorFlow's shape and
index errors."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError

RNG = np.random.default_rng(3)
CASES = [  # tensor shape, indices, updates shape
    ((5, 3), [[1], [3]], (2, 3)),
    ((4,), [[0], [2], [3]], (3,)),
    ((3, 2, 2), [[2, 1], [0, 0]], (2, 2)),
    ((2, 3), [[1, 2]], (1,)),
    ((4, 2), np.zeros((0, 1), np.int64), (0, 2)),
    ((5,), np.zeros((2, 0), np.int32), (2, 5)),  # depth 0: each update is the whole tensor; the last wins
    ((), np.zeros((1, 0), np.int32), (1,)),
]


def numpy_update(tensor, indices, updates):
    out = tensor.copy()
    indices = np.asarray(indices)
    if indices.shape[-1] == 0:
        return updates.reshape((-1, *tensor.shape))[-1] if updates.size else out
    out[tuple(indices[..., i] for i in range(indices.shape[-1]))] = updates
    return out


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("shape, indices, updates_shape", CASES)
def test_values_match_numpy(mode, shape, indices, updates_shape):
    tensor = RNG.standard_normal(shape).astype(np.float32)
    updates = RNG.standard_normal(updates_shape).astype(np.float32)

    def f(t, u):
        return tt.tensor_scatter_nd_update(t, indices, u)

    run = f if mode == "eager" else tt.function(f, jit_compile=mode == "xla")
    got = np.asarray(run(tt.constant(tensor), tt.constant(updates)))
    np.testing.assert_array_equal(got, numpy_update(tensor, indices, updates))
    assert got.dtype == np.float32


def test_under_xla_a_constant_tensor_works_and_an_index_out_of_range_drops_its_update():
    base = np.arange(5, dtype=np.float32)
    f = tt.function(lambda u: [tt.tensor_scatter_nd_update(base, [[1]], u),
                               tt.tensor_scatter_nd_update(tt.constant(base), [[-1], [5], [2]], tt.concat([u, u, u], 0))],
                    jit_compile=True)
    first, second = f(tt.constant(np.array([9.0], np.float32)))
    np.testing.assert_array_equal(first.numpy(), [0, 9, 2, 3, 4])
    np.testing.assert_array_equal(second.numpy(), [0, 1, 9, 3, 4])  # TensorFlow's XLA kernel; eagerly an error


def test_the_input_is_not_changed():
    tensor = np.zeros(3, np.float32)
    tt.tensor_scatter_nd_update(tt.constant(tensor), [[1]], tt.constant(np.ones(1, np.float32)))
    assert not tensor.any()


@pytest.mark.parametrize("tensor_shape, indices, updates_shape, message", [
    ((5, 3), [[7]], (1, 3), r"indices\[0\] = \[7\] does not index into shape \[5,3\]"),
    ((5, 3), [[-1]], (1, 3), r"indices\[0\] = \[-1\] does not index into shape"),
    ((5, 3), [[1]], (2, 3), r"updates shape \[2,3\] must be indices.shape\[:-1\] \+ tensor.shape\[1:\] = \[1,3\]"),
    ((5, 3), [[1, 1, 1]], (1,), r"indices.shape\[-1\] = 3 must be <= the rank of tensor \[5,3\]"),
])
def test_bad_input_is_an_invalid_argument_error(tensor_shape, indices, updates_shape, message):
    with pytest.raises(InvalidArgumentError, match=message):
        tt.tensor_scatter_nd_update(tt.zeros(tensor_shape), indices, tt.zeros(updates_shape))


def test_dtypes_must_agree():
    with pytest.raises(InvalidArgumentError, match="updates are int32 but tensor is float32"):
        tt.tensor_scatter_nd_update(tt.zeros((3,)), [[0]], tt.constant(np.array([1], np.int32)))
    with pytest.raises(InvalidArgumentError, match="indices must be int32 or int64, got float32"):
        tt.tensor_scatter_nd_update(tt.zeros((3,)), tt.constant(np.array([[0.0]], np.float32)), tt.zeros((1,)))


def test_tensor_scatter_update_bad_indices_policy():
    """TensorFlow's ``bad_indices_policy``: "IGNORE" drops an update whose index is out of range; the
    default refuses it (as TensorFlow's CPU kernel)."""
    from tinytf import mlir
    from tinytf.loaded_module import LoadedModule

    text = """func.func @main(%t: tensor<4xf32>, %i: tensor<3x1xi32>, %u: tensor<3xf32>) -> tensor<4xf32> {
  %0 = "tf.TensorScatterUpdate"(%t, %i, %u) <{bad_indices_policy = "POLICY"}> : (tensor<4xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}"""
    t, i, u = np.zeros(4, np.float32), np.array([[1], [7], [3]], np.int32), np.array([5, 6, 7], np.float32)
    (out,) = LoadedModule(mlir.parse(text.replace("POLICY", "IGNORE"))).run(t, i, u)
    np.testing.assert_array_equal(out, [0, 5, 0, 7])
    with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = \[7\] does not index into shape \[4\]"):
        LoadedModule(mlir.parse(text.replace("POLICY", ""))).run(t, i, u)
