"""Weights computed from variable reads (tinytf/runtime/frozen_reads.py): computed once while the variables keep
their buffers, computed again after any update, never overwritten by a kernel, and never kept when they are a
function's result; a function that writes a variable keeps its reads in order."""
from __future__ import annotations

import numpy as np

import tinytf as tt
from tinytf.runtime.specialized_plan import SpecializedPlan

# A Keras BatchNorm after a convolution, as exported: scale and shift rebuilt from four variable reads each call.
KERAS_BN = """
func.func @main(%x: tensor<1x4x4x2xf32>, %w: tensor<*x!tf_type.resource>, %g: tensor<*x!tf_type.resource>,
                %b: tensor<*x!tf_type.resource>, %m: tensor<*x!tf_type.resource>, %v: tensor<*x!tf_type.resource>)
                -> tensor<1x?x?x3xf32> {
  %eps = "tf.Const"() <{value = dense<1.000000e-03> : tensor<f32>}> : () -> tensor<f32>
  %shape = "tf.Const"() <{value = dense<[1, 1, 1, 3]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %0 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %1 = "tf.Reshape"(%0, %shape) : (tensor<*xf32>, tensor<4xi32>) -> tensor<1x1x1x3xf32>
  %2 = "tf.AddV2"(%1, %eps) : (tensor<1x1x1x3xf32>, tensor<f32>) -> tensor<1x1x1x3xf32>
  %3 = "tf.Rsqrt"(%2) : (tensor<1x1x1x3xf32>) -> tensor<1x1x1x3xf32>
  %4 = "tf.ReadVariableOp"(%g) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %5 = "tf.Reshape"(%4, %shape) : (tensor<*xf32>, tensor<4xi32>) -> tensor<1x1x1x3xf32>
  %6 = "tf.Mul"(%3, %5) : (tensor<1x1x1x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x1x1x3xf32>
  %7 = "tf.ReadVariableOp"(%b) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %8 = "tf.Reshape"(%7, %shape) : (tensor<*xf32>, tensor<4xi32>) -> tensor<1x1x1x3xf32>
  %9 = "tf.ReadVariableOp"(%m) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %10 = "tf.Reshape"(%9, %shape) : (tensor<*xf32>, tensor<4xi32>) -> tensor<1x1x1x3xf32>
  %11 = "tf.Mul"(%10, %6) : (tensor<1x1x1x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x1x1x3xf32>
  %12 = "tf.Sub"(%8, %11) : (tensor<1x1x1x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x1x1x3xf32>
  %13 = "tf.ReadVariableOp"(%w) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %14 = "tf.Conv2D"(%x, %13) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<1x4x4x2xf32>, tensor<*xf32>) -> tensor<1x?x?x?xf32>
  %15 = "tf.Mul"(%14, %6) : (tensor<1x?x?x?xf32>, tensor<1x1x1x3xf32>) -> tensor<1x?x?x3xf32>
  %16 = "tf.AddV2"(%15, %12) : (tensor<1x?x?x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x?x?x3xf32>
  %17 = "tf.Relu"(%16) : (tensor<1x?x?x3xf32>) -> tensor<1x?x?x3xf32>
  return %17 : tensor<1x?x?x3xf32>
}
"""


def _conv_bn_reference(x, w, gamma, beta, mean, var):
    conv = np.zeros(x.shape[:3] + (w.shape[3],), np.float64)  # SAME 1x1 output of a 3x3 kernel, by hand
    padded = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    for i in range(x.shape[1]):
        for j in range(x.shape[2]):
            conv[:, i, j] = np.tensordot(padded[:, i:i + 3, j:j + 3], w, axes=([1, 2, 3], [0, 1, 2]))
    scale = gamma / np.sqrt(var + 1e-3)
    return np.maximum(conv * scale + (beta - mean * scale), 0)


def _bn_weights(seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((3, 3, 2, 3)).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32),
            rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32),
            rng.uniform(0.1, 1, 3).astype(np.float32)]


def test_weights_computed_from_reads_are_reused_while_the_variables_keep_their_buffers():
    m = tt.load_mlir(KERAS_BN)
    x = np.random.default_rng(9).standard_normal((1, 4, 4, 2)).astype(np.float32)
    weights = _bn_weights(10)
    variables = [tt.Variable(w) for w in weights]
    for _ in range(3):
        (got,) = m.run(x, *variables)
        np.testing.assert_allclose(got, _conv_bn_reference(x, *weights), rtol=1e-5, atol=1e-5)
    plan, = [p for p in m._program.specializer.tables["main"].values() if isinstance(p, SpecializedPlan)]
    frozen = plan.steps[0][0]
    # the batch norm folded into the kernel (tf-fold-batch-norm), whose scaling is a weight step too, then the
    # convolution, bias and Relu fused (tf-fuse-bias-activation)
    assert plan.names == ["frozen reads", "tf._FusedConv2D"]
    kept = frozen.last[1]
    assert all(not k.flags.writeable for k in kept)  # no kernel may write over a kept value
    m.run(x, *variables)
    assert all(a is b for a, b in zip(frozen.last[1], kept))  # the same buffers read: the same values
    # ... and once the same variables come again holding the same buffers, nothing is read at all
    assert frozen.last[2] is not None and {id(v) for v in frozen.last[2]} == {id(v) for v in variables}
    kernels, frozen.read_kernels = frozen.read_kernels, [None] * len(frozen.read_kernels)
    steps, frozen.steps = frozen.steps, None  # (a read would need them)
    (got,) = m.run(x, *variables)
    frozen.read_kernels, frozen.steps = kernels, steps
    np.testing.assert_allclose(got, _conv_bn_reference(x, *weights), rtol=1e-5, atol=1e-5)
    # an update (in place or not, eagerly or by another function) gives the variable a new buffer
    variables[1].assign(weights[1] * 2)
    weights[1] = weights[1] * 2
    variables[3].assign_add(np.ones(3, np.float32))
    weights[3] = weights[3] + 1
    (got,) = m.run(x, *variables)
    np.testing.assert_allclose(got, _conv_bn_reference(x, *weights), rtol=1e-5, atol=1e-5)
    assert not all(a is b for a, b in zip(frozen.last[1], kept))  # (the kernel's read is the same buffer)
    # other variables of the same types: their own buffers
    others = _bn_weights(11)
    (got,) = m.run(x, *[tt.Variable(w) for w in others])
    np.testing.assert_allclose(got, _conv_bn_reference(x, *others), rtol=1e-5, atol=1e-5)


def test_a_function_that_writes_a_variable_keeps_its_reads_in_place():
    text = """
    func.func @main(%x: tensor<3xf32>, %v: tensor<*x!tf_type.resource>) -> tensor<*xf32> {
      %0 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
      %1 = "tf.AddV2"(%0, %x) : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
      "tf.AssignVariableOp"(%v, %1) : (tensor<*x!tf_type.resource>, tensor<*xf32>) -> ()
      %2 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
      %3 = "tf.Mul"(%2, %2) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
      return %3 : tensor<*xf32>
    }"""
    m = tt.load_mlir(text)
    v = tt.Variable(np.zeros(3, np.float32))
    x = np.array([1, 2, 3], np.float32)
    for k in range(1, 5):
        (got,) = m.run(x, v)
        np.testing.assert_array_equal(got, (k * x) ** 2)  # the read after the assign sees the new value
    plan, = [p for p in m._program.specializer.tables["main"].values() if isinstance(p, SpecializedPlan)]
    assert "frozen reads" not in plan.names


def test_a_result_computed_from_reads_is_the_callers_own():
    text = """
    func.func @main(%v: tensor<*x!tf_type.resource>) -> tensor<*xf32> {
      %0 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
      %1 = "tf.Exp"(%0) : (tensor<*xf32>) -> tensor<*xf32>
      %2 = "tf.Neg"(%1) : (tensor<*xf32>) -> tensor<*xf32>
      return %2 : tensor<*xf32>
    }"""
    m = tt.load_mlir(text)
    v = tt.Variable(np.array([0.0, 1.0], np.float32))
    outs = [m.run(v)[0] for _ in range(3)]
    for out in outs:
        np.testing.assert_allclose(out, -np.exp([0.0, 1.0]), rtol=1e-6)
        out += 1.0  # writable, and no later call sees it
    assert outs[0] is not outs[2]
