"""tf_type types and the (shape, dtype) bridge to MLIR tensor types."""
import pytest
from xdsl.dialects.builtin import TensorType, UnrankedTensorType

from tinytf import dtypes, mlir
from tinytf.framework import tf_types
from tinytf.framework.tensor_spec import TensorSpec


@pytest.mark.parametrize("shape, dtype, text", [
    ((2, 3), dtypes.float32, "tensor<2x3xf32>"),
    ((), dtypes.int64, "tensor<i64>"),
    ((None, 4), dtypes.bool_, "tensor<?x4xi1>"),
    (None, dtypes.bfloat16, "tensor<*xbf16>"),
    ((0,), dtypes.uint8, "tensor<0xui8>"),
])
def test_tensor_type_round_trip(shape, dtype, text):
    type_ = tf_types.tensor_type(shape, dtype)
    assert str(type_) == text
    assert tf_types.shape_of(type_) == shape and tf_types.dtype_of(type_) is dtype
    spec = TensorSpec.from_type(type_)
    assert (spec.shape, spec.dtype) == (shape, dtype) and spec.to_type() == type_


def test_resource_subtype_and_refs():
    module = mlir.parse('func.func @f(%r: tensor<*x!tf_type.resource<tensor<2xf32>>>, %s: tensor<3x!tf_type.int32ref>) {\n'
                        '  func.return\n}\n')
    func = module.body.block.first_op
    resource, ref = (arg.type for arg in func.body.block.args)
    assert isinstance(resource, UnrankedTensorType) and tf_types.is_resource(resource)
    assert tf_types.resource_subtype(resource) == TensorType(tf_types.element_type_from_dtype(dtypes.float32), [2])
    assert tf_types.is_ref(ref) and tf_types.dtype_of(ref) is dtypes.int32
    assert tf_types.shape_of(ref) == (3,)


def test_every_ref_type_names_its_dtype():
    for dtype, cls in tf_types.REF_TYPES.items():
        assert cls().dtype is dtype


def test_shape_attr():
    assert tf_types.ShapeAttr((2, None)).shape == (2, None)
    assert str(tf_types.ShapeAttr((2, None))) == "#tf_type.shape<2x?>"
    assert str(tf_types.ShapeAttr(None)) == "#tf_type.shape<*>"
    assert str(tf_types.ShapeAttr(())) == "#tf_type.shape<>"


def test_tensor_spec_compatibility():
    spec = TensorSpec([2, None], dtypes.float32)
    assert spec.is_compatible_with((2, 7)) and not spec.is_compatible_with((3, 7))
    assert not spec.is_fully_defined and TensorSpec([2], "int32").is_fully_defined
    assert TensorSpec([2], "float32") == TensorSpec((2,), dtypes.float32)
