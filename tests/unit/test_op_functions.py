"""The one lookup of public op functions by name (tinytf/ops/op_functions.py), which the gradient
rules, the tape and the tensor operators share; and tinytf's error where an op function is missing."""
import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import UnimplementedError
from tinytf.ops.op_functions import op_function, ops


def test_op_function_finds_the_public_function_and_keeps_it():
    assert op_function("multiply") is tt.multiply
    assert ops.multiply is tt.multiply and ops.reduce_sum is tt.reduce_sum
    assert op_function("strided_slice_from_key") is op_function("strided_slice_from_key")


def test_tensor_operators_use_the_same_lookup():
    from tinytf.runtime import tensor

    assert tensor.op_function is op_function
    x = tt.constant([1.0, 2.0])
    np.testing.assert_array_equal((x * 3.0).numpy(), [3.0, 6.0])
    np.testing.assert_array_equal((3.0 - x).numpy(), [2.0, 1.0])      # a reflected operator


def test_a_missing_op_function_is_tinytfs_unimplemented_error():
    with pytest.raises(UnimplementedError, match="'no_such_op'") as err:
        op_function("no_such_op")
    assert err.value.op == "no_such_op" and not isinstance(err.value, NotImplementedError)
    with pytest.raises(UnimplementedError, match="'no_such_op_either'"):
        ops.no_such_op_either  # noqa: B018


def test_python_protocol_names_are_not_looked_up():
    import copy

    assert not hasattr(ops, "__deepcopy__") and not hasattr(ops, "_private")
    assert copy.deepcopy(ops) is not None


def test_jacobian_of_a_dynamic_shape_target_is_unimplemented():
    @tt.function(input_signature=[tt.TensorSpec([None], tt.float32)])
    def jac(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.jacobian(y, x)

    with pytest.raises(UnimplementedError, match="static shape"):
        jac(tt.constant([1.0, 2.0]))
    x = tt.constant([1.0, 2.0])
    with tt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), [[2.0, 0.0], [0.0, 4.0]])
