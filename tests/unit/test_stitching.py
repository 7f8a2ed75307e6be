"""tf.DynamicStitch: values equal TensorFlow 2.21's (recorded with tf.raw_ops in .venv-bench) eagerly, in graph
mode and under XLA; TensorFlow's kernel errors; TensorFlow's gradient (a gather of the upstream gradient)."""
import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError


def stitch(indices, data):
    return tt.raw_ops.DynamicStitch(indices_and_data=[*indices, *data])


# (indices, data, what tf.raw_ops.DynamicStitch returned in TensorFlow 2.21)
RECORDED = [
    ([[0, 2], 1], [[[1.0, 2.0], [5.0, 6.0]], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    ([[1, 1], [1]], [[10, 20], [30]], [0, 30]),  # a row named twice: the last slice wins; row 0 is 0
    ([[0, 3]], [[7, 8]], [7, 0, 0, 8]),
    ([[[0], [2]], [1, 4]], [np.arange(6.0).reshape(2, 1, 3), np.ones((2, 3))],
     [[0.0, 1.0, 2.0], [1.0, 1.0, 1.0], [3.0, 4.0, 5.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]),
]


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("indices, data, want", RECORDED)
def test_stitch_gives_tensorflows_values(mode, indices, data, want):
    want = np.asarray(want)
    idx = [tt.constant(np.asarray(i, np.int32)) for i in indices]
    vals = [np.asarray(d, want.dtype if want.dtype.kind == "f" else np.int32) for d in data]
    if mode == "eager":
        got = stitch(idx, [tt.constant(d) for d in vals]).numpy()
    else:  # the indices are the function's constants: XLA needs them to know the result's shape
        f = tt.function(lambda *ds: stitch(idx, list(ds)), jit_compile=mode == "xla")
        got = f(*[tt.constant(d) for d in vals]).numpy()
    np.testing.assert_array_equal(got, want.astype(got.dtype))
    assert got.dtype == vals[0].dtype


def test_traced_stitch_has_the_static_shape_its_constant_indices_give():
    idx = [tt.constant(np.array([0, 2], np.int32)), tt.constant(np.int32(1))]
    f = tt.function(lambda a, b: stitch(idx, [a, b]))
    cf = f.get_concrete_function(tt.TensorSpec([2, 3], tt.float32), tt.TensorSpec([3], tt.float32))
    assert "-> tensor<3x3xf32>" in cf.mlir() and '"tf.DynamicStitch"' in cf.mlir()


def test_stitch_refuses_what_tensorflow_refuses():
    with pytest.raises(InvalidArgumentError, match="Must have even number of arguments"):
        tt.raw_ops.DynamicStitch(indices_and_data=[tt.constant([0])])
    with pytest.raises(InvalidArgumentError, match=r"indices\[1\] is out of range"):
        stitch([tt.constant(np.array([0, -1], np.int32))], [tt.constant([1.0, 2.0])])
    with pytest.raises(InvalidArgumentError, match=r"data\[0\]\.shape = \[3\] does not start with indices\[0\]\.shape "
                                                   r"= \[2\]"):
        stitch([tt.constant(np.array([0, 1], np.int32))], [tt.constant([1.0, 2.0, 3.0])])
    with pytest.raises(InvalidArgumentError, match=r"Need data\[0\]\.shape\[1:\] = data\[1\]\.shape\[0:\]"):
        stitch([tt.constant(np.array([0, 1], np.int32)), tt.constant(np.int32(2))],
               [tt.constant(np.ones((2, 3), np.float32)), tt.constant(np.ones(4, np.float32))])
    with pytest.raises(InvalidArgumentError, match="must be int32"):
        stitch([tt.constant(np.array([0, 1], np.int64))], [tt.constant([1.0, 2.0])])


def test_stitch_gradient_is_tensorflows():
    # TensorFlow 2.21, d sum(stitch([[0, 1], [1]], [x, [y]]) * w) = ([[1, 2], [3, 4]], [3, 4]) for
    # w = [[1, 2], [3, 4]]: each data slice gets the gradient of the row it names, overwritten or not.
    x, y = tt.constant([[1.0, 2.0], [3.0, 4.0]]), tt.constant([9.0, 8.0])
    w = tt.constant([[1.0, 2.0], [3.0, 4.0]])
    with tt.GradientTape() as tape:
        tape.watch([x, y])
        merged = stitch([tt.constant(np.array([0, 1], np.int32)), tt.constant(np.array([1], np.int32))],
                        [x, tt.reshape(y, [1, 2])])
        loss = tt.reduce_sum(merged * w)
    dx, dy = tape.gradient(loss, [x, y])
    np.testing.assert_array_equal(dx.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(dy.numpy(), [3.0, 4.0])
