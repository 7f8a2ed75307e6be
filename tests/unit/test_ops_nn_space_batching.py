"""tf.nn.with_space_to_batch: an op run on the dilated grid equals the dilated op (TensorFlow documents the
identity with convolutions), eagerly, in graph mode and under XLA; rate 1 runs the op itself. TensorFlow's
values of required_space_to_batch_paddings are in test_ops_nn_tf_values.py."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError

RNG = np.random.default_rng(13)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("padding,rate", [("SAME", [2, 2]), ("VALID", [2, 3]), ("SAME", [3, 1])])
def test_equals_the_dilated_convolution(padding, rate, mode):
    x = RNG.standard_normal((2, 9, 8, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 2, 3, 4)).astype(np.float32)

    def dilated(a, b):
        return tt.nn.with_space_to_batch(a, rate, padding, lambda inp, n, pad: tt.nn.conv2d(inp, b, 1, pad),
                                         filter_shape=[3, 2])

    run = {"eager": dilated, "graph": tt.function(dilated), "xla": tt.function(dilated, jit_compile=True)}[mode]
    got = run(tt.constant(x), tt.constant(w)).numpy()
    want = tt.nn.conv2d(x, w, 1, padding, dilations=[1, *rate, 1]).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_channels_first_spatial_dims():
    x = RNG.standard_normal((1, 2, 7, 6)).astype(np.float32)
    w = RNG.standard_normal((2, 2, 2, 3)).astype(np.float32)
    got = tt.nn.with_space_to_batch(x, [2, 2], "VALID",
                                    lambda inp, n, pad: tt.nn.conv2d(inp, w, 1, pad, data_format="NCHW"),
                                    data_format="NCHW").numpy()
    want = tt.nn.conv2d(x, w, 1, "VALID", data_format="NCHW", dilations=[1, 1, 2, 2]).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_rate_one_runs_the_op_with_the_padding():
    seen = []
    x = tt.constant(RNG.standard_normal((1, 4, 4, 1)).astype(np.float32))
    out = tt.nn.with_space_to_batch(x, [1, 1], "SAME", lambda inp, n, pad: seen.append((n, pad)) or inp)
    assert seen == [(2, "SAME")] and out is x


def test_bad_arguments_are_refused():
    x = tt.zeros([1, 4, 4, 1])
    with pytest.raises(InvalidArgumentError, match="filter_shape must be given for SAME padding"):
        tt.nn.with_space_to_batch(x, [2, 2], "SAME", lambda inp, n, pad: inp)
    with pytest.raises(InvalidArgumentError, match="dilation_rate must be positive"):
        tt.nn.with_space_to_batch(x, [0, 2], "VALID", lambda inp, n, pad: inp)
