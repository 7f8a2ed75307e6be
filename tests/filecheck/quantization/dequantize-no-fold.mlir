// RUN: tinytf-opt %s --split-input-file -p 'tf-quantize-weights{min-elements=8},canonicalize,tf-constant-fold' | filecheck %s
// RUN: tinytf-opt %s --split-input-file -p 'tf-quantize-weights{min-elements=8 inline=false},tf-inline,tf-shape-inference,canonicalize,tf-constant-fold' | filecheck %s --check-prefix=INLINED
// RUN: tinytf-opt %s --split-input-file -p 'tf-quantize-weights{min-elements=8 symmetric=false},canonicalize,tf-constant-fold' | filecheck %s --check-prefix=ASYM

// Why the pattern starts with tf.Identity: canonicalize and tf-constant-fold fold ops whose
// operands are all constants, and would turn the int8 weight back into a float constant.
// tf.Identity is never folded, so the int8 constant and the whole chain survive both passes
// (also after tf-inline has inlined @dequantize_i8: its arguments are unranked, as in TensorFlow's
// quantized function library, so the inlined chain needs tf-shape-inference before x - 0 can fold).
// Symmetric quantization has zero point 0, and canonicalize folds x - 0 to x as TensorFlow's
// IdentityArithmeticOpFolder does (a scalar zero, operand and result of one type): the chain is
// then Identity -> Cast -> Cast -> Mul. An asymmetric zero point (ASYM) keeps the tf.Sub.

// CHECK-LABEL: func.func @quantized
// CHECK:         %[[Q:.*]] = "tf.Const"() <{value = dense<{{\[}}[127, -64], [64, 127], [-127, 32], [32, -127]]> : tensor<4x2xi8>}>
// CHECK:         %[[I:.*]] = "tf.Identity"(%[[Q]]) : (tensor<4x2xi8>) -> tensor<4x2xi8>
// CHECK-NEXT:    %[[C:.*]] = "tf.Cast"(%[[I]]) <{Truncate = false}> : (tensor<4x2xi8>) -> tensor<4x2xi32>
// CHECK-NEXT:    %[[F:.*]] = "tf.Cast"(%[[C]]) <{Truncate = false}> : (tensor<4x2xi32>) -> tensor<4x2xf32>
// CHECK-NEXT:    %[[W:.*]] = "tf.Mul"(%[[F]], %{{.*}}) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    "tf.MatMul"(%{{.*}}, %[[W]])
// CHECK-NOT:     tensor<4x2xf32>}>

// INLINED-LABEL: func.func @quantized
// INLINED-NOT:     tf.PartitionedCall
// INLINED:         %[[Q:.*]] = "tf.Const"() <{value = dense<{{\[}}[127, -64], [64, 127], [-127, 32], [32, -127]]> : tensor<4x2xi8>}>
// INLINED:         %[[I:.*]] = "tf.Identity"(%[[Q]])
// INLINED-NEXT:    "tf.Cast"(%[[I]])
// INLINED-NEXT:    "tf.Cast"
// INLINED-NEXT:    "tf.Mul"
// INLINED-NEXT:    "tf.MatMul"

// ASYM-LABEL: func.func @quantized
// ASYM:         %[[ZP:.*]] = "tf.Const"() <{value = dense<-1> : tensor<2xi32>}> : () -> tensor<2xi32>
// ASYM:         %[[Q:.*]] = "tf.Const"() <{value = dense<{{\[}}[126, -65], [63, 126], [-128, 31], [31, -128]]> : tensor<4x2xi8>}>
// ASYM-NEXT:    %[[I:.*]] = "tf.Identity"(%[[Q]]) : (tensor<4x2xi8>) -> tensor<4x2xi8>
// ASYM-NEXT:    %[[C:.*]] = "tf.Cast"(%[[I]]) <{Truncate = false}> : (tensor<4x2xi8>) -> tensor<4x2xi32>
// ASYM-NEXT:    %[[D:.*]] = "tf.Sub"(%[[C]], %[[ZP]]) : (tensor<4x2xi32>, tensor<2xi32>) -> tensor<4x2xi32>
// ASYM-NEXT:    %[[F:.*]] = "tf.Cast"(%[[D]]) <{Truncate = false}> : (tensor<4x2xi32>) -> tensor<4x2xf32>
// ASYM-NEXT:    %[[W:.*]] = "tf.Mul"(%[[F]], %{{.*}}) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// ASYM-NEXT:    "tf.MatMul"(%{{.*}}, %[[W]])
// ASYM-NOT:     tensor<4x2xf32>}>
func.func @quantized(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = "tf.Const"() <{value = dense<[[1.0, -2.0], [0.5, 4.0], [-1.0, 1.0], [0.25, -4.0]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %y = "tf.MatMul"(%x, %w) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// The same chain without the tf.Identity folds: the weight is a float constant again
// ((q - 1) * 0.5), and no int8 value is left.

// CHECK-LABEL: func.func @without_identity
// CHECK-NEXT:    %[[W:.*]] = "tf.Const"() <{value = dense<{{\[}}[0.000000e+00], [-1.500000e+00], [1.000000e+00], [-2.500000e+00]]> : tensor<4x1xf32>}> : () -> tensor<4x1xf32>
// CHECK-NEXT:    "tf.MatMul"(%{{.*}}, %[[W]])
// CHECK-NOT:     xi8>
// CHECK-NOT:     xi32>
// CHECK:         return
func.func @without_identity(%x: tensor<1x4xf32>) -> tensor<1x1xf32> {
  %q = "tf.Const"() <{value = dense<[[1], [-2], [3], [-4]]> : tensor<4x1xi8>}> : () -> tensor<4x1xi8>
  %zp = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %scale = "tf.Const"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %1 = "tf.Cast"(%q) <{Truncate = false}> : (tensor<4x1xi8>) -> tensor<4x1xi32>
  %2 = "tf.Sub"(%1, %zp) : (tensor<4x1xi32>, tensor<i32>) -> tensor<4x1xi32>
  %3 = "tf.Cast"(%2) <{Truncate = false}> : (tensor<4x1xi32>) -> tensor<4x1xf32>
  %4 = "tf.Mul"(%3, %scale) : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %5 = "tf.MatMul"(%x, %4) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<1x4xf32>, tensor<4x1xf32>) -> tensor<1x1xf32>
  func.return %5 : tensor<1x1xf32>
}
