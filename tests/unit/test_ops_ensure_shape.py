"""tf.EnsureShape (tt.ensure_shape): its input unchanged when the shape fits, TensorFlow's error when it
does not, in eager, graph and XLA modes; a partial shape refines the traced type."""
import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError

X = np.arange(6, dtype=np.float32).reshape(2, 3)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_passes_its_input_through(mode):
    def f(x):
        return tt.ensure_shape(x, [2, None]) * 2.0

    run = f if mode == "eager" else tt.function(f, jit_compile=mode == "xla")
    np.testing.assert_array_equal(run(tt.constant(X)).numpy(), X * 2.0)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_a_shape_that_does_not_fit_is_refused(mode):
    def f(x):
        return tt.ensure_shape(x, [3, -1])

    run = f if mode == "eager" else tt.function(f, jit_compile=mode == "xla")
    with pytest.raises(InvalidArgumentError, match=r"tf.EnsureShape: Shape of tensor input \[2,3\] is not compatible "
                                                   r"with expected shape \[3,\?\]"):
        run(tt.constant(X))


def test_rank_must_match_and_none_accepts_anything():
    with pytest.raises(InvalidArgumentError, match="expected shape"):
        tt.ensure_shape(tt.constant(X), [6])
    assert tt.ensure_shape(tt.constant(X), None).shape == (2, 3)


def test_a_partial_shape_refines_the_traced_type():
    f = tt.function(lambda x: tt.ensure_shape(x, [None, 3]))
    cf = f.get_concrete_function(tt.TensorSpec([None, None], tt.float32))
    assert "-> tensor<?x3xf32>" in cf.mlir()
