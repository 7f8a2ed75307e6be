"""tf.ShapeN and tf.VariableShape (TensorFlow's gradient graphs use both)."""
from __future__ import annotations

import numpy as np

import tinytf as tt


def test_shape_n_gives_each_shape():
    a, b = tt.shape_n([tt.constant(np.zeros((2, 3))), tt.constant([1, 2, 3, 4])], out_type=tt.int64)
    np.testing.assert_array_equal(a.numpy(), [2, 3])
    np.testing.assert_array_equal(b.numpy(), [4])
    assert a.dtype is tt.int64


def test_shape_n_of_a_partial_shape_reads_it_at_run_time():
    f = tt.function(lambda x: tt.shape_n([x, x]), input_signature=[tt.TensorSpec([None, 3], tt.float32)])
    got = f(tt.constant(np.zeros((5, 3), np.float32)))
    np.testing.assert_array_equal(got[0].numpy(), [5, 3])


def test_variable_shape_in_graph_mode_and_under_xla():
    v = tt.Variable(np.zeros((3, 4), np.float32))
    for jit in (False, True):
        got = tt.function(lambda: tt.raw_ops.VariableShape(input=v), jit_compile=jit)()
        np.testing.assert_array_equal(got.numpy(), [3, 4])
