"""Op attributes: declared defaults, Python <-> MLIR conversion, derived attributes, dense constants."""
import numpy as np
import pytest

from tinytf import dtypes, mlir
from tinytf.errors import InvalidArgumentError
from tinytf.framework import attributes
from tinytf.framework.op import REGISTRY

KINDS = [
    ("bool", True), ("int", -3), ("float", 0.5), ("str", "SAME"), ("ints", (1, 2, 2, 1)),
    ("floats", (0.5, 1.5)), ("strs", ("a", "b")), ("type", dtypes.int8), ("types", (dtypes.float32, dtypes.int32)),
    ("shape", (2, None)), ("shape", None), ("func", "callee"), ("unit", True),
]


@pytest.mark.parametrize("kind, value", KINDS)
def test_python_round_trip(kind, value):
    attr = attributes.from_python(kind, value)
    assert attributes.to_python(kind, attr) == value


def test_wrong_kind_is_invalid_argument():
    with pytest.raises(InvalidArgumentError, match="expected a bool attribute"):
        attributes.to_python("bool", attributes.from_python("str", "yes"))
    with pytest.raises(InvalidArgumentError, match="expected a bool attribute"):
        attributes.to_python("bool", attributes.from_python("int", 3))


@pytest.mark.parametrize("array", [
    np.array([1.5, np.nan, -np.inf], np.float32), np.arange(6, dtype=np.int8).reshape(2, 3),
    np.array([True, False]), np.array(7, np.int64), np.zeros((0, 3), np.float64),
    np.array([1 + 2j], np.complex64), np.array([0.1, 3.0], dtypes.bfloat16.np),
])
def test_dense_round_trip_is_bit_exact(array):
    dense = attributes.numpy_to_dense(array)
    back = attributes.dense_to_numpy(dense)
    assert back.dtype == array.dtype and back.shape == array.shape
    assert back.tobytes() == array.tobytes()


def test_large_dense_constant_stays_bytes():
    array = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)
    dense = attributes.numpy_to_dense(array)
    view = attributes.dense_to_numpy(dense)
    assert not view.flags.owndata  # a view of the attribute's bytes, not a Python list
    np.testing.assert_array_equal(view, array)


def test_complete_attrs_fills_defaults_and_rejects_unknown():
    matmul = REGISTRY["tf.MatMul"]
    assert matmul.complete_attrs({"transpose_b": True}) == {
        "transpose_a": False, "transpose_b": True, "grad_a": False, "grad_b": False}
    with pytest.raises(InvalidArgumentError, match="unknown attribute 'transpose_c'"):
        matmul.complete_attrs({"transpose_c": True})
    with pytest.raises(InvalidArgumentError, match="missing attribute 'value'"):
        REGISTRY["tf.Const"].complete_attrs({})


def test_attr_values_of_parsed_op_include_derived_and_defaults():
    module = mlir.parse('func.func @f(%x: tensor<2xi8>) {\n'
                        '  %0 = "tf.Cast"(%x) : (tensor<2xi8>) -> tensor<2xi32>\n'
                        '  %1 = "tf.MatMul"(%0, %0) {transpose_a = true} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>\n'
                        '  func.return\n}\n')
    cast, matmul = [op for op in module.walk() if op.name.startswith("tf.")]
    assert cast.attr_values() == {"Truncate": False, "DstT": dtypes.int32}
    assert matmul.attr_values()["transpose_a"] is True and matmul.attr_values()["transpose_b"] is False


def test_properties_leave_out_derived_and_false_units():
    props = REGISTRY["tf.Cast"].attrs_to_properties({"Truncate": False, "DstT": dtypes.int32})
    assert list(props) == ["Truncate"]
