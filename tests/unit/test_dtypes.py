"""The dtype table: every name form maps to one DType, and the MLIR element types round-trip."""
import ml_dtypes
import numpy as np
import pytest

from tinytf import dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types

TABLE = [
    # dtype, numpy, mlir, tf, tf_enum, xla
    (dtypes.bool_, np.bool_, "i1", "bool", "DT_BOOL", "pred"),
    (dtypes.int8, np.int8, "i8", "int8", "DT_INT8", "s8"),
    (dtypes.int16, np.int16, "i16", "int16", "DT_INT16", "s16"),
    (dtypes.int32, np.int32, "i32", "int32", "DT_INT32", "s32"),
    (dtypes.int64, np.int64, "i64", "int64", "DT_INT64", "s64"),
    (dtypes.uint8, np.uint8, "ui8", "uint8", "DT_UINT8", "u8"),
    (dtypes.float16, np.float16, "f16", "half", "DT_HALF", "f16"),
    (dtypes.bfloat16, ml_dtypes.bfloat16, "bf16", "bfloat16", "DT_BFLOAT16", "bf16"),
    (dtypes.float32, np.float32, "f32", "float", "DT_FLOAT", "f32"),
    (dtypes.float64, np.float64, "f64", "double", "DT_DOUBLE", "f64"),
    (dtypes.complex64, np.complex64, "complex<f32>", "complex64", "DT_COMPLEX64", "c64"),
]


@pytest.mark.parametrize("dtype, np_type, mlir, tf, tf_enum, xla", TABLE)
def test_table_row(dtype, np_type, mlir, tf, tf_enum, xla):
    assert (dtype.np, dtype.mlir, dtype.tf, dtype.tf_enum, dtype.xla) == (np.dtype(np_type), mlir, tf, tf_enum, xla)
    for key in (np_type, np.dtype(np_type), dtype.name, tf_enum, mlir, xla, dtype):
        assert dtypes.as_dtype(key) is dtype
    assert str(tf_types.element_type_from_dtype(dtype)) == mlir
    assert tf_types.dtype_from_element_type(tf_types.element_type_from_dtype(dtype)) is dtype


def test_kinds():
    assert dtypes.float32.is_floating and dtypes.float32.is_differentiable
    assert dtypes.int32.is_integer and not dtypes.int32.is_differentiable
    assert dtypes.bool_.is_bool and not dtypes.bool_.is_numeric
    assert dtypes.complex64.is_complex and dtypes.complex64.is_differentiable
    assert dtypes.bfloat16.size == 2 and dtypes.float64.size == 8


def test_python_values_take_tensorflow_defaults():
    assert dtypes.result_type_of_python(1.5) is dtypes.float32
    assert dtypes.result_type_of_python([1, 2]) is dtypes.int32
    assert dtypes.result_type_of_python(2**40) is dtypes.int64
    assert dtypes.result_type_of_python(True) is dtypes.bool_
    assert dtypes.result_type_of_python(np.float64(1.0)) is dtypes.float32
    assert dtypes.result_type_of_python(np.zeros(2, np.float16)) is dtypes.float16


def test_unknown_dtype_is_invalid_argument():
    with pytest.raises(InvalidArgumentError, match="unknown dtype"):
        dtypes.as_dtype("float33")


def test_dtypes_pickle_to_the_same_object():
    import pickle

    assert pickle.loads(pickle.dumps(dtypes.bfloat16)) is dtypes.bfloat16
