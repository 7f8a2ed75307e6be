"""tf.ReverseV2 (tt.reverse): values, TensorFlow's axis checks, graph mode and XLA."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("axis", [[0], [-1], [0, 2], []])
def test_reverse_matches_numpy_in_every_mode(axis):
    want = np.flip(X, tuple(axis)) if axis else X
    np.testing.assert_array_equal(tt.reverse(tt.constant(X), axis).numpy(), want)
    for jit in (False, True):
        got = tt.function(lambda x: tt.reverse(x, axis), jit_compile=jit)(tt.constant(X))
        np.testing.assert_array_equal(got.numpy(), want)


def test_reverse_bools():
    np.testing.assert_array_equal(tt.reverse(tt.constant([True, False, False]), [0]).numpy(), [False, False, True])


@pytest.mark.parametrize("axis, match", [([3], "out of valid range"), ([1, -2], "specified more than once")])
def test_bad_axes(axis, match):
    with pytest.raises(InvalidArgumentError, match=match):
        tt.reverse(tt.constant(X), axis)


def test_axis_must_be_a_vector_of_ints():
    with pytest.raises(InvalidArgumentError, match="axis"):
        tt.raw_ops.ReverseV2(tensor=tt.constant(X), axis=tt.constant(1))
