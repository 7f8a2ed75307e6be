"""tf.AddN (tt.add_n, tt.math.add_n): the sum of same-shaped tensors, as TensorFlow's gradients use it."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError


def test_add_n_sums_in_every_mode():
    xs = [np.full((2, 3), float(i), np.float32) for i in range(1, 4)]
    np.testing.assert_array_equal(tt.add_n([tt.constant(x) for x in xs]).numpy(), np.full((2, 3), 6.0))
    for jit in (False, True):
        got = tt.function(lambda a, b, c: tt.math.add_n([a, b, c]), jit_compile=jit)(*map(tt.constant, xs))
        np.testing.assert_array_equal(got.numpy(), np.full((2, 3), 6.0))


def test_add_n_of_one_tensor_is_that_tensor():
    np.testing.assert_array_equal(tt.add_n([tt.constant([1, 2])]).numpy(), [1, 2])


def test_add_n_does_not_broadcast():
    with pytest.raises(InvalidArgumentError, match="same size and shape"):
        tt.add_n([tt.constant([1.0, 2.0]), tt.constant(1.0)])


def test_add_n_needs_one_dtype():
    with pytest.raises(InvalidArgumentError, match="same dtype"):
        tt.add_n([tt.constant([1.0]), tt.constant([1])])
