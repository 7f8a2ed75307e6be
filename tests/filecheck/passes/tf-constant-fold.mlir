// RUN: tinytf-opt %s --split-input-file -p tf-constant-fold | filecheck %s
// RUN: tinytf-opt %s --split-input-file -p canonicalize | filecheck %s
// RUN: tinytf-opt %s --split-input-file -p 'tf-constant-fold{size-limit=3}' | filecheck %s --check-prefix=LIMIT
// RUN: tinytf-opt %S/../../conformance/fixtures/dequantize_matmul.mlir -p canonicalize,tf-constant-fold | filecheck %s --check-prefix=FIXTURE

// A chain of pure ops on constants folds to one constant; the operand constants go.

// CHECK-LABEL: func.func @fold_chain
// CHECK-NEXT:    %{{.*}} = "tf.Const"() <{value = dense<[6.000000e+00, 9.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT:    return
// LIMIT-LABEL: func.func @fold_chain
// LIMIT-NOT:     "tf.Mul"
// LIMIT:         "tf.Const"() <{value = dense<[6.000000e+00, 9.000000e+00]> : tensor<2xf32>}>
func.func @fold_chain() -> tensor<2xf32> {
  %a = "tf.Const"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %b = "tf.Const"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
  %c = "tf.Mul"(%a, %b) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %d = "tf.AddV2"(%c, %b) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %d : tensor<2xf32>
}

// -----

// The folded value keeps the op's declared result type (users and the return still type-check).

// CHECK-LABEL: func.func @keeps_result_type
// CHECK-NEXT:    %{{.*}} = "tf.Const"() <{value = dense<[4, -1]> : tensor<2xi32>}> : () -> tensor<*xi32>
// CHECK-NEXT:    return
func.func @keeps_result_type() -> tensor<*xi32> {
  %a = "tf.Const"() <{value = dense<[7, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %b = "tf.Const"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
  %c = "tf.Sub"(%a, %b) : (tensor<2xi32>, tensor<i32>) -> tensor<*xi32>
  func.return %c : tensor<*xi32>
}

// -----

// The int8 dequantize chain behind tf.Identity is not folded: the weight stays int8.

// CHECK-LABEL: func.func @dequantize_behind_identity
// CHECK:         %[[W:.*]] = "tf.Const"() <{value = dense<{{\[}}[1], [-2], [3], [-4]]> : tensor<4x1xi8>}>
// CHECK:         "tf.Identity"(%[[W]])
// CHECK-NEXT:    "tf.Cast"
// CHECK-NEXT:    "tf.Sub"
// CHECK-NEXT:    "tf.Cast"
// CHECK-NEXT:    "tf.Mul"
// CHECK-NEXT:    "tf.MatMul"
func.func @dequantize_behind_identity(%x: tensor<1x4xf32>) -> tensor<1x1xf32> {
  %w = "tf.Const"() <{value = dense<[[1], [-2], [3], [-4]]> : tensor<4x1xi8>}> : () -> tensor<4x1xi8>
  %zp = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %scale = "tf.Const"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %shape = "tf.Const"() <{value = dense<[4, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %0 = "tf.Identity"(%w) {device = ""} : (tensor<4x1xi8>) -> tensor<4x1xi8>
  %1 = "tf.Cast"(%0) <{Truncate = false}> : (tensor<4x1xi8>) -> tensor<4x1xi32>
  %2 = "tf.Sub"(%1, %zp) : (tensor<4x1xi32>, tensor<i32>) -> tensor<4x1xi32>
  %3 = "tf.Cast"(%2) <{Truncate = false}> : (tensor<4x1xi32>) -> tensor<4x1xf32>
  %4 = "tf.Mul"(%3, %scale) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %5 = "tf.MatMul"(%x, %4) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<1x4xf32>, tensor<4x1xf32>) -> tensor<1x1xf32>
  func.return %5 : tensor<1x1xf32>
}

// -----

// Without the Identity the same chain folds to a float constant ((w - 1) * 0.5); the MatMul on an
// argument stays. With size-limit=3 the 4-element results are not folded.

// CHECK-LABEL: func.func @dequantize_without_identity
// CHECK-NEXT:    %{{.*}} = "tf.Const"() <{value = dense<{{\[}}[0.000000e+00], [-1.500000e+00], [1.000000e+00], [-2.500000e+00]]> : tensor<4x1xf32>}>
// CHECK-NEXT:    "tf.MatMul"
// LIMIT-LABEL: func.func @dequantize_without_identity
// LIMIT:         "tf.Cast"
// LIMIT:         "tf.Sub"
// LIMIT:         "tf.Cast"
// LIMIT:         "tf.Mul"
func.func @dequantize_without_identity(%x: tensor<1x4xf32>) -> tensor<1x1xf32> {
  %w = "tf.Const"() <{value = dense<[[1], [-2], [3], [-4]]> : tensor<4x1xi8>}> : () -> tensor<4x1xi8>
  %zp = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %scale = "tf.Const"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %1 = "tf.Cast"(%w) <{Truncate = false}> : (tensor<4x1xi8>) -> tensor<4x1xi32>
  %2 = "tf.Sub"(%1, %zp) : (tensor<4x1xi32>, tensor<i32>) -> tensor<4x1xi32>
  %3 = "tf.Cast"(%2) <{Truncate = false}> : (tensor<4x1xi32>) -> tensor<4x1xf32>
  %4 = "tf.Mul"(%3, %scale) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %5 = "tf.MatMul"(%x, %4) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<1x4xf32>, tensor<4x1xf32>) -> tensor<1x1xf32>
  func.return %5 : tensor<1x1xf32>
}

// -----

// Not folded: ops whose rule fails on the constants (mismatched matmul), stateful calls, unknown
// ops, and an op whose declared result type disagrees with what it computes.

// CHECK-LABEL: func.func @not_folded
// CHECK:         "tf.MatMul"
// CHECK:         "tf.StatefulPartitionedCall"
// CHECK:         "tf.SomeUnknownOp"
// CHECK:         "tf.AddV2"
func.func @not_folded() -> (tensor<?x?xf32>, tensor<f32>, tensor<f32>, tensor<3xf32>) {
  %a = "tf.Const"() <{value = dense<1.0> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %s = "tf.Const"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %0 = "tf.MatMul"(%a, %a) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<?x?xf32>
  %1 = "tf.StatefulPartitionedCall"(%s) <{config = "", config_proto = "", executor_type = "", f = @callee}> : (tensor<f32>) -> tensor<f32>
  %2 = "tf.SomeUnknownOp"(%s) : (tensor<f32>) -> tensor<f32>
  %3 = "tf.AddV2"(%a, %s) : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %0, %1, %2, %3 : tensor<?x?xf32>, tensor<f32>, tensor<f32>, tensor<3xf32>
}
func.func private @callee(%arg0: tensor<f32>) -> tensor<f32> {
  func.return %arg0 : tensor<f32>
}

// The real TensorFlow export: the int8 weight behind tf.Identity survives canonicalize and
// tf-constant-fold, and so does the dequantize chain after it.

// FIXTURE:       %[[W:.*]] = "tf.Const"() <{value = dense<"0x{{[0-9A-F]+}}"> : tensor<64x32xi8>}>
// FIXTURE:       %[[ID:.*]] = "tf.Identity"(%[[W]])
// FIXTURE-NEXT:  "tf.Cast"(%[[ID]]) <{Truncate = false}> {device = ""} : (tensor<64x32xi8>) -> tensor<64x32xi32>
// FIXTURE-NEXT:  "tf.Sub"
// FIXTURE-NEXT:  "tf.Cast"
// FIXTURE-NEXT:  "tf.Mul"
// FIXTURE-NEXT:  "tf.MatMul"

// -----

// An empty constant (dense<> : tensor<0xi32>, a scalar's shape) is a constant operand like any
// other: the broadcast of shapes [] and [1, 1, 1] reduces dims 0, 1 and 2 of both inputs.

// CHECK-LABEL: func.func @empty_constant_operand
// CHECK-NEXT:    "tf.Const"() <{value = dense<[0, 1, 2]> : tensor<3xi32>}> : () -> tensor<3xi32>
// CHECK-NOT:     "tf.BroadcastGradientArgs"
// CHECK:         return
func.func @empty_constant_operand() -> (tensor<3xi32>, tensor<3xi32>) {
  %s0 = "tf.Const"() <{value = dense<[]> : tensor<0xi32>}> : () -> tensor<0xi32>
  %s1 = "tf.Const"() <{value = dense<[1, 1, 1]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %r0, %r1 = "tf.BroadcastGradientArgs"(%s0, %s1) : (tensor<0xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)
  func.return %r0, %r1 : tensor<3xi32>, tensor<3xi32>
}
