"""tt.cast to and from string is TensorFlow's UnimplementedError at the call (eager, traced and parsed
MLIR alike), and TF2's tt.math.divide_no_nan is the TF1 div_no_nan op."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import UnimplementedError


@pytest.mark.parametrize("dtype", ["string", tt.string, "DT_STRING"])
def test_cast_number_to_string_is_unimplemented_eagerly(dtype):
    # TensorFlow: "Cast float to string is not supported" (tf.strings.as_string formats numbers)
    with pytest.raises(UnimplementedError, match=r"^tf.Cast: Cast float to string is not supported$") as err:
        tt.cast(tt.constant([1.5, 2.0]), dtype)
    assert err.value.op == "tf.Cast"
    with pytest.raises(UnimplementedError, match="Cast int32 to string is not supported"):
        tt.cast(tt.constant([1, 2]), dtype)
    with pytest.raises(UnimplementedError, match="Cast bool to string is not supported"):
        tt.cast(tt.constant([True]), dtype)


def test_cast_to_string_is_unimplemented_when_traced():
    f = tt.function(lambda x: tt.cast(x, tt.string))
    with pytest.raises(UnimplementedError, match="tf.Cast: Cast double to string is not supported"):
        f(tt.constant(np.array([1.0, 2.0])))


def test_cast_to_string_in_parsed_mlir_is_unimplemented():
    m = tt.load_mlir("""func.func @main(%x: tensor<2xf32>) -> tensor<2x!tf_type.string> {
  %y = "tf.Cast"(%x) <{Truncate = false}> : (tensor<2xf32>) -> tensor<2x!tf_type.string>
  return %y : tensor<2x!tf_type.string>
}""")
    with pytest.raises(UnimplementedError, match="tf.Cast: Cast float to string is not supported"):
        m.run(np.ones(2, np.float32))


def test_numeric_casts_still_convert():
    np.testing.assert_array_equal(tt.cast(tt.constant([1.7, -2.5]), tt.int32).numpy(), np.array([1, -2], np.int32))
    y = tt.cast(tt.constant([1, 0]), "bool")
    assert y.dtype == tt.bool
    np.testing.assert_array_equal(y.numpy(), [True, False])


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_divide_no_nan_is_tf2s_name_for_div_no_nan(use_function):
    x = np.array([[1.0, -2.0, 3.0], [0.0, 4.0, -6.0]], np.float32)
    y = np.array([[2.0, 0.0, -1.5], [0.0, 8.0, 0.0]], np.float32)
    want = np.array([[0.5, 0.0, -2.0], [0.0, 0.5, 0.0]], np.float32)
    f = tt.function(tt.math.divide_no_nan) if use_function else tt.math.divide_no_nan
    np.testing.assert_array_equal(f(tt.constant(x), tt.constant(y)).numpy(), want)
    assert tt.math.divide_no_nan is tt.math.div_no_nan
    assert not hasattr(tt, "divide_no_nan")  # TF2 exports it under tf.math only
    text = tt.function(tt.math.divide_no_nan).get_concrete_function(
        tt.TensorSpec([2, 3], tt.float32), tt.TensorSpec([2, 3], tt.float32)).mlir()
    assert '"tf.DivNoNan"' in text
