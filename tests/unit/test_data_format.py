"""tf.DataFormatVecPermute and tf.BatchMatMul (TensorFlow's first, non-broadcasting form): values against
TensorFlow 2.21's (recorded with tf.raw_ops in .venv-bench) and numpy, eagerly, in graph mode and under XLA;
bad input raises TensorFlow's errors."""
import numpy as np
import pytest

import tinytf as tt
from tinytf import xla
from tinytf.errors import InvalidArgumentError

# (x, src_format, dst_format) -> what tf.raw_ops.DataFormatVecPermute returned in TensorFlow 2.21
RECORDED = [
    ([1, 2, 3, 4], "NCHW", "NHWC", [1, 3, 4, 2]),
    ([1, 2, 3, 4], "NHWC", "HWNC", [2, 3, 1, 4]),
    ([7, 9], "NHWC", "NCHW", [7, 9]),  # two values are the spatial dims: H and W keep their order
    ([7, 9], "NHWC", "NWHC", [9, 7]),
    ([[1, 2], [3, 4], [5, 6], [7, 8]], "NHWC", "NCHW", [[1, 2], [7, 8], [3, 4], [5, 6]]),
    ([1, 2, 3, 4, 5], "NDHWC", "NCDHW", [1, 5, 2, 3, 4]),
]


def _permute(x, **attrs):
    return tt.raw_ops.DataFormatVecPermute(x=x, **attrs)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("x, src, dst, want", RECORDED)
def test_permute_gives_tensorflows_values(mode, x, src, dst, want):
    for dtype in (np.int32, np.int64):
        arr = np.asarray(x, dtype)
        if mode == "eager":
            got = _permute(tt.constant(arr), src_format=src, dst_format=dst).numpy()
        else:
            f = tt.function(lambda t: _permute(t, src_format=src, dst_format=dst), jit_compile=mode == "xla")
            got = f(tt.constant(arr)).numpy()
        assert got.dtype == arr.dtype
        np.testing.assert_array_equal(got, np.asarray(want, dtype))


def test_permute_refuses_what_tensorflow_refuses():
    with pytest.raises(InvalidArgumentError, match=r"1D input must be of size 2 or 4, but got shape \[3\]"):
        _permute(tt.constant([1, 2, 3]))
    with pytest.raises(InvalidArgumentError, match="Destination format must be of length 4 or 5, received "
                                                   "dst_format = NCH"):
        _permute(tt.constant([1, 2, 3, 4]), src_format="NHWC", dst_format="NCH")
    with pytest.raises(InvalidArgumentError, match="must determine a permutation, got NHWC and NCHX"):
        _permute(tt.constant([1, 2, 3, 4]), src_format="NHWC", dst_format="NCHX")
    with pytest.raises(InvalidArgumentError, match=r"Second dimension of 2D input must be of size 2"):
        _permute(tt.constant(np.zeros((4, 3), np.int32)))
    with pytest.raises(InvalidArgumentError, match="int32 or int64"):
        _permute(tt.constant([1.0, 2.0, 3.0, 4.0]))


def test_batch_matmul_matches_numpy_on_every_backend():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 5, 4)).astype(np.float32)
    want = np.matmul(x, np.swapaxes(y, -1, -2))
    eager = tt.raw_ops.BatchMatMul(x=tt.constant(x), y=tt.constant(y), adj_y=True).numpy()
    np.testing.assert_allclose(eager, want, rtol=1e-5, atol=1e-5)
    f = tt.function(lambda a, b: tt.raw_ops.BatchMatMul(x=a, y=b, adj_y=True))
    cf = f.get_concrete_function(tt.TensorSpec(x.shape, tt.float32), tt.TensorSpec(y.shape, tt.float32))
    np.testing.assert_allclose(cf(tt.constant(x), tt.constant(y)).numpy(), want, rtol=1e-5, atol=1e-5)
    assert '"tf.BatchMatMul"' in cf.mlir()
    got = xla.run_module(cf.module, cf.name, [x, y])
    np.testing.assert_allclose(np.asarray(got[0]), want, rtol=1e-5, atol=1e-5)


def test_batch_matmul_does_not_broadcast_batch_dims():
    # TensorFlow 2.21: "In[0].dim(0) and In[1].dim(0) must be the same: [1,2,3] vs [2,3,4]", and for ranks
    # "In[0] and In[1] has different ndims: [2,3] vs. [2,3,4]"
    with pytest.raises(InvalidArgumentError, match=r"In\[0\]\.dim\(0\) and In\[1\]\.dim\(0\) must be the same: "
                                                   r"\[1,2,3\] vs \[2,3,4\]"):
        tt.raw_ops.BatchMatMul(x=tt.constant(np.ones((1, 2, 3), np.float32)),
                               y=tt.constant(np.ones((2, 3, 4), np.float32)))
    with pytest.raises(InvalidArgumentError, match=r"has different ndims: \[2,3\] vs\. \[2,3,4\]"):
        tt.raw_ops.BatchMatMul(x=tt.constant(np.ones((2, 3), np.float32)),
                               y=tt.constant(np.ones((2, 3, 4), np.float32)))


def test_batch_matmul_gradient_is_tensorflows():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((2, 4, 5)).astype(np.float32)
    a, b = tt.constant(x), tt.constant(y)
    with tt.GradientTape() as tape:
        tape.watch([a, b])
        loss = tt.reduce_sum(tt.raw_ops.BatchMatMul(x=a, y=b))
    dx, dy = tape.gradient(loss, [a, b])
    ones = np.ones((2, 3, 5), np.float32)  # d sum(x @ y): dx = 1 @ y^T, dy = x^T @ 1
    np.testing.assert_allclose(dx.numpy(), ones @ np.swapaxes(y, -1, -2), rtol=1e-5)
    np.testing.assert_allclose(dy.numpy(), np.swapaxes(x, -1, -2) @ ones, rtol=1e-5)
