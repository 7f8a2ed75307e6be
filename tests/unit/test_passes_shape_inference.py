"""tf-shape-inference: the refinement rule, input-shapes parsing, calls, and ops it must leave alone."""
import pytest

from tinytf import mlir
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.passes.shape_inference import ShapeInference, join_shapes, parse_input_shapes, refine


def t(shape, dtype="float32"):
    return TensorSpec(shape, dtype).to_type()


def test_refine_only_makes_types_more_specific():
    assert refine(t(None), (2, 3)) == t((2, 3))
    assert refine(t((None, 3)), (2, None)) == t((2, 3))
    assert refine(t((2, 3)), (2, 3)) is None          # nothing new
    assert refine(t((2, 3)), (4, 3)) is None          # conflict: the IR wins
    assert refine(t((2, None)), (2, 3, 4)) is None    # rank conflict
    assert refine(t((2, None)), None) is None         # rule knows less
    assert tf_types.dtype_of(refine(t(None, "int8"), (5,))).name == "int8"


def test_join_shapes():
    assert join_shapes([(4, 2), (3, 2)]) == (None, 2)
    assert join_shapes([(4, 2), (4, 2)]) == (4, 2)
    assert join_shapes([(4, 2), (4,)]) is None
    assert join_shapes([(4, 2), None]) is None


def test_parse_input_shapes():
    assert parse_input_shapes("2,3:4") == [(2, 3), (4,)]
    assert parse_input_shapes("2,3::?,1:*") == [(2, 3), (), (None, 1), None]
    assert parse_input_shapes("-1") == [(None,)]
    with pytest.raises(InvalidArgumentError, match="bad dim 'x'"):
        parse_input_shapes("2,x")


def run(text, **options):
    module = mlir.parse(text)
    ShapeInference(**options).apply(mlir.context(), module)
    return module


def result_types(module, name):
    return [str(r.type) for op in module.walk() if op.name == name for r in op.results]


def test_chain_through_private_callee_and_back():
    module = run("""
func.func @main(%x: tensor<*xf32>, %w: tensor<3x4xf32>) -> tensor<*xf32> {
  %0 = "tf.PartitionedCall"(%x, %w) <{config = "", config_proto = "", executor_type = "", f = @mm}> : (tensor<*xf32>, tensor<3x4xf32>) -> tensor<*xf32>
  %1 = "tf.Relu"(%0) : (tensor<*xf32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
func.func private @mm(%a: tensor<*xf32>, %b: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.MatMul"(%a, %b) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}""", input_shapes="2,3:3,4")
    assert result_types(module, "tf.MatMul") == ["tensor<2x4xf32>"]
    assert result_types(module, "tf.PartitionedCall") == ["tensor<2x4xf32>"]
    assert result_types(module, "tf.Relu") == ["tensor<2x4xf32>"]
    main = next(op for op in module.ops if op.sym_name.data == "main")
    assert str(main.function_type) == "(tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>"
    mlir.verify(module)


def test_rule_errors_unknown_ops_and_wrong_dtypes_are_left_alone():
    module = run("""
func.func @main(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %0 = "tf.AddV2"(%x, %i) : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<*xf32>
  %1 = "tf.NotAnOp"(%x) : (tensor<2x3xf32>) -> tensor<*xf32>
  %2 = "tf.Relu"(%1) : (tensor<*xf32>) -> tensor<*xf32>
  func.return %0, %1, %2 : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}""")
    assert result_types(module, "tf.AddV2") == ["tensor<*xf32>"]
    assert result_types(module, "tf.Relu") == ["tensor<*xf32>"]


def test_dtype_disagreement_is_not_written():
    # The IR says i32 where the rule says f32: the pass must not change the result's type at all.
    module = run("""
func.func @main(%x: tensor<2xf32>) -> tensor<*xi32> {
  %0 = "tf.Relu"(%x) : (tensor<2xf32>) -> tensor<*xi32>
  func.return %0 : tensor<*xi32>
}""")
    assert result_types(module, "tf.Relu") == ["tensor<*xi32>"]


def test_input_shapes_needs_an_entry():
    text = """
func.func @a(%x: tensor<*xf32>) -> tensor<*xf32> { func.return %x : tensor<*xf32> }
func.func @b(%x: tensor<*xf32>) -> tensor<*xf32> { func.return %x : tensor<*xf32> }"""
    with pytest.raises(InvalidArgumentError, match="entry function"):
        run(text, input_shapes="2")
