"""Region control flow runs: tt.load_mlir outlines tf.IfRegion / tf.WhileRegion / tf.CaseRegion into tf.If /
tf.While / tf.Case of private functions (TensorFlow's tf-region-control-flow-to-functional), captured values
becoming arguments; the results equal numpy's on the graph backend and under XLA."""
import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.passes.region_outlining import outlined

BACKENDS = ["graph", "xla"]

IF_REGION = """
func.func @main(%p: tensor<i1>, %x: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  %0 = "tf.IfRegion"(%p) ({
    %1 = "tf.Mul"(%x, %s) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    "tf.Yield"(%1) : (tensor<3xf32>) -> ()
  }, {
    %2 = "tf.Neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    "tf.Yield"(%2) : (tensor<3xf32>) -> ()
  }) {is_stateless = true} : (tensor<i1>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
"""

# sum of x**2 for x = n, n-1, ..., 1, the step read from outside the loop (a captured value)
WHILE_REGION = """
func.func @main(%n: tensor<i32>, %step: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %zero = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = "tf.WhileRegion"(%n, %zero) ({
  ^bb0(%i: tensor<i32>, %acc: tensor<i32>):
    %more = "tf.Greater"(%i, %zero) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%more, %i, %acc) : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %acc: tensor<i32>):
    %sq = "tf.Mul"(%i, %i) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %next_acc = "tf.AddV2"(%acc, %sq) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %next_i = "tf.Sub"(%i, %step) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "tf.Yield"(%next_i, %next_acc) : (tensor<i32>, tensor<i32>) -> ()
  }) {is_stateless = true} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  func.return %0#0, %0#1 : tensor<i32>, tensor<i32>
}
"""

CASE_REGION = """
func.func @main(%k: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.CaseRegion"(%k) ({
    "tf.Yield"(%x) : (tensor<2xf32>) -> ()
  }, {
    %e = "tf.Exp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%e) : (tensor<2xf32>) -> ()
  }, {
    %q = "tf.Square"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%q) : (tensor<2xf32>) -> ()
  }) {is_stateless = true} : (tensor<i32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""

# an IfRegion inside a WhileRegion's body: subtract 1 from odd values, halve even ones, until below 2
NESTED = """
func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %two = "tf.Const"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
  %0 = "tf.WhileRegion"(%x) ({
  ^bb0(%v: tensor<i32>):
    %more = "tf.GreaterEqual"(%v, %two) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%more) : (tensor<i1>) -> ()
  }, {
  ^bb0(%v: tensor<i32>):
    %r = "tf.FloorMod"(%v, %two) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %zero = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %even = "tf.Equal"(%r, %zero) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %next = "tf.IfRegion"(%even) ({
      %h = "tf.FloorDiv"(%v, %two) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "tf.Yield"(%h) : (tensor<i32>) -> ()
    }, {
      %one = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %o = "tf.Sub"(%v, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "tf.Yield"(%o) : (tensor<i32>) -> ()
    }) {is_stateless = true} : (tensor<i1>) -> tensor<i32>
    "tf.Yield"(%next) : (tensor<i32>) -> ()
  }) {is_stateless = true} : (tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_if_region_runs(backend):
    m = tt.load_mlir(IF_REGION)
    x = np.array([1.0, -2.0, 3.5], np.float32)
    for p, want in ((True, x * np.float32(2.5)), (False, -x)):
        got, = m.run(np.array(p), x, np.float32(2.5), backend=backend)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_region_runs_with_a_captured_value(backend):
    m = tt.load_mlir(WHILE_REGION)
    for n, step in ((5, 1), (7, 2), (0, 1)):
        i, acc = m.run(np.int32(n), np.int32(step), backend=backend)
        xs = list(range(n, 0, -step))
        assert int(acc) == sum(x * x for x in xs) and int(i) == (xs[-1] - step if xs else n)


@pytest.mark.parametrize("backend", BACKENDS)
def test_case_region_runs_with_tensorflows_out_of_range_rule(backend):
    m = tt.load_mlir(CASE_REGION)
    x = np.array([0.5, -1.0], np.float32)
    for k, want in ((0, x), (1, np.exp(x)), (2, np.square(x)), (7, np.square(x)), (-1, np.square(x))):
        got, = m.run(np.int32(k), x, backend=backend)
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_region_ops_run(backend):
    def reference(v):
        while v >= 2:
            v = v // 2 if v % 2 == 0 else v - 1
        return v

    m = tt.load_mlir(NESTED)
    for x in (1, 6, 7, 40):
        got, = m.run(np.int32(x), backend=backend)
        assert int(got) == reference(x)


def test_outlining_leaves_the_loaded_module_as_written():
    module = mlir.parse_text(NESTED)
    text = mlir.print(module)
    converted = outlined(module)
    assert mlir.print(module) == text  # (a copy is converted)
    mlir.verify(converted)
    names = [op.sym_name.data for op in converted.ops]
    assert names == ["main", "main_then", "main_else", "main_cond", "main_body"]
    assert "Region" not in mlir.print(converted)
    assert str(tt.load_mlir(NESTED)) == text
