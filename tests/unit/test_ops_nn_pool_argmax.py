"""MaxPoolWithArgmax's gradient ops against numpy (TensorFlow records MaxPoolWithArgmax and
MaxPoolGradWithArgmax in test_ops_nn_tf_values.py; its CPU has no MaxPoolGradGradWithArgmax kernel), and
indices that do not fit the input refused."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError

RNG = np.random.default_rng(9)
ATTRS = dict(ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")


@pytest.mark.parametrize("include_batch", [False, True])
@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_grad_grad_gathers_at_argmax(include_batch, mode):
    x = RNG.standard_normal((2, 4, 6, 3)).astype(np.float32)
    g = RNG.standard_normal(x.shape).astype(np.float32)
    _, argmax = tt.nn.max_pool_with_argmax(x, 2, 2, "VALID", include_batch_in_index=include_batch)
    argmax = argmax.numpy()
    flat = argmax + (0 if include_batch else np.arange(2).reshape(-1, 1, 1, 1) * x[0].size)
    want = g.reshape(-1)[flat]

    def fn(a, b, i):
        return tt.raw_ops.MaxPoolGradGradWithArgmax(input=a, grad=b, argmax=i, include_batch_in_index=include_batch,
                                                    **ATTRS)

    run = {"eager": fn, "graph": tt.function(fn), "xla": tt.function(fn, jit_compile=True)}[mode]
    np.testing.assert_array_equal(run(tt.constant(x), tt.constant(g), tt.constant(argmax)).numpy(), want)


def test_grad_adds_at_argmax_and_maxima_are_the_pool():
    x = RNG.standard_normal((1, 4, 4, 2)).astype(np.float32)
    y, argmax = tt.nn.max_pool_with_argmax(x, 2, 2, "VALID")
    np.testing.assert_array_equal(x.reshape(-1)[argmax.numpy()], y.numpy())
    dy = RNG.standard_normal(y.shape).astype(np.float32)
    dx = tt.raw_ops.MaxPoolGradWithArgmax(input=x, grad=dy, argmax=argmax, **ATTRS).numpy()
    want = np.zeros(x.size, np.float32)
    np.add.at(want, argmax.numpy().reshape(-1), dy.reshape(-1))
    np.testing.assert_array_equal(dx, want.reshape(x.shape))


def test_an_index_outside_the_input_is_refused():
    x = np.zeros((1, 4, 4, 1), np.float32)
    bad = np.full((1, 2, 2, 1), 16, np.int64)
    with pytest.raises(InvalidArgumentError, match=r"tf.MaxPoolGradWithArgmax: argmax holds an index outside \[0, 16\)"):
        tt.raw_ops.MaxPoolGradWithArgmax(input=x, grad=np.ones((1, 2, 2, 1), np.float32), argmax=bad, **ATTRS)
