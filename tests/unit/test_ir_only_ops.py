"""Ops tinytf knows only as IR (``tinytf.framework.op.IR_ONLY``): region control flow, XLA and TPU ops,
the uniform-quantized family. They parse, verify with TensorFlow's checks and print unchanged; running
one raises UnimplementedError naming it, on both backends (region control flow excepted: tt.load_mlir
outlines it into tf.If / tf.While / tf.Case, tests/unit/test_region_control_flow.py); they are not part of
the op API."""
import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.op import IR_ONLY, REGISTRY

IF_REGION = """func.func @main(%arg0: tensor<i1>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.IfRegion"(%arg0) <{is_stateless = true}> ({
    %1 = "tf.Neg"(%arg1) : (tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%1) : (tensor<2xf32>) -> ()
  }, {
    "tf.Yield"(%arg1) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def test_the_ir_only_ops():
    assert {"tf.IfRegion", "tf.WhileRegion", "tf.CaseRegion", "tf.Yield", "tf.XlaConvV2", "tf.UniformQuantize",
            "tf.BatchFunction"} <= set(IR_ONLY)
    assert not set(IR_ONLY) & set(REGISTRY)
    for name in IR_ONLY:
        assert not hasattr(tt.raw_ops, name.removeprefix("tf.")), f"{name} is in tt.raw_ops but cannot run"
        assert IR_ONLY[name].__doc__, f"{name} has no docstring"


def test_a_region_op_parses_verifies_and_prints_unchanged():
    module = mlir.parse_text(IF_REGION)
    mlir.verify(module)
    text = mlir.print(module)
    assert text == "module {\n" + "".join("  " + line + "\n" if line else "\n" for line in
                                            IF_REGION.splitlines()) + "}\n"
    assert type(module.body.block.first_op.body.block.first_op).__name__ == "IfRegion"


XLA_ONLY = """func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> tensor<?xf32> {
  %cst = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0 = "tf.XlaSetDynamicDimensionSize"(%arg0, %cst, %arg1) : (tensor<4xf32>, tensor<i32>, tensor<i32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


@pytest.mark.parametrize("backend", ["graph", "xla"])
def test_running_an_ir_only_op_is_unimplemented_naming_it(backend):
    with pytest.raises(UnimplementedError, match=r"<string>:3:3: '?tf.XlaSetDynamicDimensionSize"):
        tt.load_mlir(XLA_ONLY).run(np.ones(4, np.float32), np.int32(2), backend=backend)


def test_a_bad_region_op_is_an_invalid_argument_at_its_line():
    bad = IF_REGION.replace('"tf.Yield"(%arg1) : (tensor<2xf32>) -> ()', '"tf.Yield"(%arg0) : (tensor<i1>) -> ()')
    with pytest.raises(InvalidArgumentError, match=r"<string>:2:3: 'tf.IfRegion' op else result type tensor<i1> is "
                                                   r"incompatible with result type tensor<2xf32> at index 0"):
        mlir.verify(mlir.parse_text(bad))
