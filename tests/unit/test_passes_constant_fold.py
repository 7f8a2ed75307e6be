"""tf-constant-fold and canonicalize's folding: folded values equal numpy's, no-fold rules hold."""
import numpy as np
import pytest
from xdsl.transforms.canonicalize import CanonicalizePass

import tinytf.passes  # noqa: F401  (hooks folding into canonicalize)
from tinytf import mlir
from tinytf.framework.attributes import numpy_to_dense
from tinytf.passes.constant_fold import ConstantFold, fold

RNG = np.random.default_rng(0)


def const(name, array):
    dense = numpy_to_dense(array)
    return f'%{name} = "tf.Const"() <{{value = {dense}}}> : () -> {dense.type}'


def module_with(consts, body, result_type):
    lines = "\n  ".join([const(n, a) for n, a in consts] + [body])
    return mlir.parse(f"func.func @f() -> {result_type} {{\n  {lines}\n  func.return %r : {result_type}\n}}")


def folded_value(module):
    ops = [op for op in module.walk() if op.name.startswith("tf.")]
    assert [op.name for op in ops] == ["tf.Const"], [op.name for op in ops]
    return ops[0].attr_values()["value"]


@pytest.mark.parametrize("pass_", [ConstantFold(), CanonicalizePass()], ids=["tf-constant-fold", "canonicalize"])
@pytest.mark.parametrize("op,ref", [("AddV2", np.add), ("Sub", np.subtract), ("Mul", np.multiply)])
def test_binary_broadcast_folds_to_numpy(pass_, op, ref):
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal((4,)).astype(np.float32)
    module = module_with([("a", a), ("b", b)],
                         f'%r = "tf.{op}"(%a, %b) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>', "tensor<3x4xf32>")
    pass_.apply(mlir.context(), module)
    np.testing.assert_array_equal(folded_value(module), ref(a, b))


def test_matmul_and_chain_fold():
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    b = RNG.standard_normal((2, 4)).astype(np.float32)
    body = ('%m = "tf.MatMul"(%a, %b) <{grad_a = false, grad_b = false, transpose_a = true, transpose_b = false}> '
            ': (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>\n'
            '  %r = "tf.Relu"(%m) : (tensor<3x4xf32>) -> tensor<3x4xf32>')
    module = module_with([("a", a), ("b", b)], body, "tensor<3x4xf32>")
    ConstantFold().apply(mlir.context(), module)
    np.testing.assert_allclose(folded_value(module), np.maximum(a.T @ b, 0), rtol=1e-6)


def test_int8_dequantize_chain_folds_without_identity_only():
    w = np.array([[1, -128], [127, 5]], np.int8)
    chain = ('%c = "tf.Cast"(%IN) <{Truncate = false}> : (tensor<2x2xi8>) -> tensor<2x2xf32>\n'
             '  %r = "tf.Mul"(%c, %s) : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>')
    scale = np.array(0.25, np.float32)
    plain = module_with([("w", w), ("s", scale)], chain.replace("%IN", "%w"), "tensor<2x2xf32>")
    CanonicalizePass().apply(mlir.context(), plain)
    np.testing.assert_array_equal(folded_value(plain), w.astype(np.float32) * scale)

    kept = module_with([("w", w), ("s", scale)],
                       '%i = "tf.Identity"(%w) : (tensor<2x2xi8>) -> tensor<2x2xi8>\n  ' + chain.replace("%IN", "%i"),
                       "tensor<2x2xf32>")
    CanonicalizePass().apply(mlir.context(), kept)
    ConstantFold().apply(mlir.context(), kept)
    names = [op.name for op in kept.walk() if op.name.startswith("tf.")]
    assert names == ["tf.Const", "tf.Const", "tf.Identity", "tf.Cast", "tf.Mul"]


def test_size_limit():
    a = np.ones((4, 4), np.float32)
    text = '%r = "tf.AddV2"(%a, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>'
    small = module_with([("a", a)], text, "tensor<4x4xf32>")
    ConstantFold(size_limit=15).apply(mlir.context(), small)
    assert "tf.AddV2" in [op.name for op in small.walk()]
    ConstantFold(size_limit=16).apply(mlir.context(), small)
    np.testing.assert_array_equal(folded_value(small), a + a)


def test_fold_refuses_failing_rule_and_wrong_result_type():
    a = np.ones((2, 3), np.float32)
    bad = module_with([("a", a)], '%r = "tf.MatMul"(%a, %a) <{grad_a = false, grad_b = false, transpose_a = false, '
                                  'transpose_b = false}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>', "tensor<*xf32>")
    wrong = module_with([("a", a)], '%r = "tf.AddV2"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>',
                        "tensor<3x2xf32>")
    for module, name in [(bad, "tf.MatMul"), (wrong, "tf.AddV2")]:
        op = next(op for op in module.walk() if op.name == name)
        assert fold(op) is None


def test_result_keeps_declared_type_and_dtype():
    a = np.array([7, 2], np.int32)
    module = module_with([("a", a)], '%r = "tf.Sub"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<*xi32>', "tensor<*xi32>")
    ConstantFold().apply(mlir.context(), module)
    c = next(op for op in module.walk() if op.name == "tf.Const")
    assert str(c.results[0].type) == "tensor<*xi32>"
    value = c.attr_values()["value"]
    assert value.dtype == np.int32 and value.tolist() == [0, 0]


def test_shape_rule_runs_first():
    # numpy would add f32 and i32; TensorFlow's AddV2 rejects mixed dtypes, so folding must not hide it.
    f = np.ones(2, np.float32)
    i = np.ones(2, np.int32)
    module = module_with([("f", f), ("i", i)], '%r = "tf.AddV2"(%f, %i) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>',
                         "tensor<2xf32>")
    ConstantFold().apply(mlir.context(), module)
    assert "tf.AddV2" in [op.name for op in module.walk()]
