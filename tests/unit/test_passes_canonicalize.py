"""tinytf-opt's ``canonicalize`` (TensorFlow's folders and patterns) keeps what a program computes,
and xDSL's ``canonicalize`` (``tt.function``'s optimizer) keeps doing only constant folding."""
from pathlib import Path

import numpy as np
from xdsl.transforms.canonicalize import CanonicalizePass

import tinytf as tt
from tinytf import mlir
from tinytf.loaded_module import LoadedModule
from tinytf.passes import Canonicalize, ConstantFold
from tinytf.passes.symbols import op_name

FIXTURES = Path(__file__).parents[1] / "conformance" / "fixtures"


def names(module) -> list[str]:
    return [op_name(op) for op in module.walk() if op_name(op).startswith("tf.")]


def run_before_and_after(text: str, *inputs, passes=None):
    before = LoadedModule(mlir.parse_text(text)).run(*inputs)
    module = mlir.parse_text(text)
    for p in passes or (Canonicalize(),):
        p.apply(mlir.context(), module)
    mlir.verify(module)
    return before, LoadedModule(module).run(*inputs), module


LIST_GET_ITEM = """
func.func @main(%x: tensor<5x3xf32>, %i: tensor<i32>) -> tensor<3xf32> {
  %s = "tf.Const"() <{value = dense<3> : tensor<1xi32>}> : () -> tensor<1xi32>
  %l = "tf.TensorListFromTensor"(%x, %s) : (tensor<5x3xf32>, tensor<1xi32>) -> tensor<!tf_type.variant<tensor<3xf32>>>
  %y = "tf.TensorListGetItem"(%l, %i, %s) : (tensor<!tf_type.variant<tensor<3xf32>>>, tensor<i32>, tensor<1xi32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
"""


def test_tensor_list_get_item_becomes_a_gather_tinytf_runs():
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    before, after, module = run_before_and_after(LIST_GET_ITEM, x, np.int32(3))
    assert "tf.GatherV2" in names(module) and "tf.Gather" not in names(module)
    assert "tf.TensorListGetItem" not in names(module)
    np.testing.assert_array_equal(after[0], x[3])
    np.testing.assert_array_equal(after[0], before[0])


ARITHMETIC = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = "tf.Const"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %ones = "tf.Const"() <{value = dense<[1.0, 1.0, 1.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zeros = "tf.Const"() <{value = dense<0.0> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %0 = "tf.Sub"(%x, %zero) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = "tf.Mul"(%ones, %x) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "tf.AddV2"(%y, %zeros) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = "tf.Neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "tf.AddV2"(%y, %n) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
"""


def test_identity_arithmetic_and_patterns_keep_the_values():
    x = np.array([[1.0, -2.0, 3.0], [4.5, 0.0, -6.0]], np.float32)
    y = np.array([0.5, 1.5, -2.5], np.float32)
    before, after, module = run_before_and_after(ARITHMETIC, x, y)
    # x - 0 and 1 * x fold to x; y + zeros broadcasts y to the result's shape, so it stays
    assert names(module).count("tf.Sub") == 1  # y + -x -> y - x
    assert "tf.Neg" not in names(module)
    for a, b in zip(after, before):
        np.testing.assert_allclose(a, b, rtol=0, atol=0)
    np.testing.assert_allclose(after[2], np.broadcast_to(y, (2, 3)))
    np.testing.assert_allclose(after[3], y - x)


def test_equal_constants_are_one_whether_stored_as_splat_or_not():
    text = """
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a = "tf.Const"() <{value = dense<[2.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %b = "tf.Const"() <{value = dense<2.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = "tf.Mul"(%x, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.Maximum"(%x, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
"""
    x = np.array([3.0, -1.0], np.float32)
    before, after, module = run_before_and_after(text, x)
    consts = [op for op in module.walk() if op_name(op) == "tf.Const"]
    assert len(consts) == 1 and "dense<2.000000e+00>" in str(consts[0])
    np.testing.assert_allclose(after[0], x * 2)
    np.testing.assert_allclose(after[1], np.maximum(x, 2))
    np.testing.assert_allclose(after[1], before[1])


def test_empty_constant_operands_fold():
    """dense<> : tensor<0xi32> is a constant like any other (TensorFlow folds BroadcastGradientArgs of it)."""
    text = """
func.func @main() -> (tensor<3xi32>, tensor<3xi32>) {
  %s0 = "tf.Const"() <{value = dense<[]> : tensor<0xi32>}> : () -> tensor<0xi32>
  %s1 = "tf.Const"() <{value = dense<[1, 1, 1]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %r0, %r1 = "tf.BroadcastGradientArgs"(%s0, %s1) : (tensor<0xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)
  func.return %r0, %r1 : tensor<3xi32>, tensor<3xi32>
}
"""
    for p in (Canonicalize(), ConstantFold()):
        module = mlir.parse_text(text)
        p.apply(mlir.context(), module)
        assert "tf.BroadcastGradientArgs" not in names(module)
        out = LoadedModule(module).run()
        for r in out:
            np.testing.assert_array_equal(r, [0, 1, 2])


def test_dequantize_chain_keeps_values_and_int8_weight():
    ref = np.load(FIXTURES / "dequantize_matmul.npz")
    module = mlir.parse(FIXTURES / "dequantize_matmul.mlir")
    for p in (Canonicalize(), ConstantFold()):
        p.apply(mlir.context(), module)
    assert "tf.Identity" in names(module)
    consts = [op for op in module.walk() if op_name(op) == "tf.Const"]
    assert any(c.attr_values()["value"].dtype == np.int8 for c in consts)
    (out,) = LoadedModule(module).run(ref["arg0"])
    np.testing.assert_allclose(out, ref["out0"], rtol=1e-5, atol=1e-5)


def test_xdsl_canonicalize_only_folds_constants():
    """tt.function's optimizer: x * 1 and -(-x) stay (TensorFlow's folders are tinytf-opt's), constants fold."""
    text = """
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %one = "tf.Const"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %two = "tf.Const"() <{value = dense<2.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = "tf.Mul"(%x, %one) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %n = "tf.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.Neg"(%n) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "tf.AddV2"(%one, %two) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
"""
    x = np.array([1.5, -3.0], np.float32)
    before, after, module = run_before_and_after(text, x, passes=(CanonicalizePass(),))
    assert names(module).count("tf.Mul") == 1 and names(module).count("tf.Neg") == 2
    assert "tf.AddV2" not in names(module)
    np.testing.assert_allclose(after[2], [3.0, 3.0])
    for a, b in zip(after, before):
        np.testing.assert_array_equal(a, b)


def test_tt_function_graph_keeps_its_multiplies():
    """A traced graph is not rewritten by TensorFlow's patterns: x * 1.0 stays a tf.Mul."""
    f = tt.function(lambda x: x * 1.0 * x)
    cf = f.get_concrete_function(tt.TensorSpec([2], tt.float32))
    assert cf.mlir().count('"tf.Mul"') == 2
    np.testing.assert_allclose(f(np.array([2.0, -3.0], np.float32)).numpy(), [4.0, 9.0])
