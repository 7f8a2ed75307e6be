// RUN: tinytf-opt %s --split-input-file -p 'tf-quantize-weights{min-elements=8}' | filecheck %s
// RUN: tinytf-opt %s --split-input-file -p 'tf-quantize-weights{min-elements=8 per-channel=false}' | filecheck %s --check-prefix=TENSOR
// RUN: tinytf-opt %s --split-input-file -p 'tf-quantize-weights{min-elements=8 symmetric=false}' | filecheck %s --check-prefix=ASYM
// RUN: tinytf-opt %s --split-input-file -p 'tf-quantize-weights{min-elements=8 inline=false}' | filecheck %s --check-prefix=CALL
// RUN: tinytf-opt %s --split-input-file -p 'tf-quantize-weights{min-elements=9}' | filecheck %s --check-prefix=LARGE
// RUN: tinytf-opt %s --split-input-file -p 'tf-quantize-weights{min-elements=8},tf-quantize-weights{min-elements=8}' | filecheck %s
// RUN: tinytf-opt %S/../../conformance/fixtures/dequantize_matmul.mlir -p 'tf-quantize-weights{min-elements=1}' | filecheck %s --check-prefix=TF

// TensorFlow's own output (the conformance fixture) is already quantized: its MatMul's weight is
// the tf.Mul of the chain, not a constant, so the pass leaves it exactly as it is.

// TF:      %[[S:.*]] = "tf.Const"() <{value = dense<[0.0181840658, {{.*}}]> : tensor<32xf32>}> {device = ""} : () -> tensor<32xf32>
// TF-NEXT: %[[Z:.*]] = "tf.Const"() <{value = dense<3> : tensor<i32>}> {device = ""} : () -> tensor<i32>
// TF-NEXT: %[[Q:.*]] = "tf.Const"() <{value = dense<"0x71202F65{{[0-9A-F]*}}"> : tensor<64x32xi8>}> {device = ""} : () -> tensor<64x32xi8>
// TF-NEXT: %[[I:.*]] = "tf.Identity"(%[[Q]]) {device = ""} : (tensor<64x32xi8>) -> tensor<64x32xi8>
// TF-NEXT: %[[C:.*]] = "tf.Cast"(%[[I]]) <{Truncate = false}> {device = ""} : (tensor<64x32xi8>) -> tensor<64x32xi32>
// TF-NEXT: %[[D:.*]] = "tf.Sub"(%[[C]], %[[Z]]) {device = ""} : (tensor<64x32xi32>, tensor<i32>) -> tensor<64x32xi32>
// TF-NEXT: %[[F:.*]] = "tf.Cast"(%[[D]]) <{Truncate = false}> {device = ""} : (tensor<64x32xi32>) -> tensor<64x32xf32>
// TF-NEXT: %[[W:.*]] = "tf.Mul"(%[[F]], %[[S]]) {device = ""} : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
// TF-NEXT: "tf.MatMul"(%arg0, %[[W]])
// TF-NOT:  "tf.Identity"(%{{.*}}) {{.*}} -> tensor<64x32xi8>

// tf.MatMul's b: per output column (scale [2]) by default, one scale with per-channel=false.
// Symmetric: scale = max|w| / 127 (col 0: 1/127, col 1: 4/127), zero point 0; TensorFlow's chain.

// CHECK-LABEL: func.func @matmul
// CHECK-NEXT:    %[[S:.*]] = "tf.Const"() <{value = dense<[0.00787401571, 0.0314960629]> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT:    %[[Z:.*]] = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
// CHECK-NEXT:    %[[Q:.*]] = "tf.Const"() <{value = dense<{{\[}}[127, -64], [64, 127], [-127, 32], [32, -127]]> : tensor<4x2xi8>}> : () -> tensor<4x2xi8>
// CHECK-NEXT:    %[[I:.*]] = "tf.Identity"(%[[Q]]) : (tensor<4x2xi8>) -> tensor<4x2xi8>
// CHECK-NEXT:    %[[C:.*]] = "tf.Cast"(%[[I]]) <{Truncate = false}> : (tensor<4x2xi8>) -> tensor<4x2xi32>
// CHECK-NEXT:    %[[D:.*]] = "tf.Sub"(%[[C]], %[[Z]]) : (tensor<4x2xi32>, tensor<i32>) -> tensor<4x2xi32>
// CHECK-NEXT:    %[[F:.*]] = "tf.Cast"(%[[D]]) <{Truncate = false}> : (tensor<4x2xi32>) -> tensor<4x2xf32>
// CHECK-NEXT:    %[[W:.*]] = "tf.Mul"(%[[F]], %[[S]]) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    %{{.*}} = "tf.MatMul"(%{{.*}}, %[[W]]) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    return

// TENSOR-LABEL: func.func @matmul
// TENSOR-NEXT:    %[[S:.*]] = "tf.Const"() <{value = dense<0.0314960629> : tensor<f32>}> : () -> tensor<f32>
// TENSOR-NEXT:    %[[Z:.*]] = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
// TENSOR-NEXT:    "tf.Const"() <{value = dense<{{\[}}[32, -64], [16, 127], [-32, 32], [8, -127]]> : tensor<4x2xi8>}>
// TENSOR:         "tf.Mul"(%{{.*}}, %[[S]]) : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>

// CALL-LABEL: func.func @matmul
// CALL-NEXT:    %[[S:.*]] = "tf.Const"() <{value = dense<[0.00787401571, 0.0314960629]> : tensor<2xf32>}>
// CALL-NEXT:    %[[Z:.*]] = "tf.Const"() <{value = dense<0> : tensor<i32>}>
// CALL-NEXT:    %[[Q:.*]] = "tf.Const"() <{value = dense<{{\[}}[127, -64], [64, 127], [-127, 32], [32, -127]]> : tensor<4x2xi8>}>
// CALL-NEXT:    %[[W:.*]] = "tf.PartitionedCall"(%[[Q]], %[[S]], %[[Z]]) <{config = "", config_proto = "", executor_type = "", f = @dequantize_i8}> : (tensor<4x2xi8>, tensor<2xf32>, tensor<i32>) -> tensor<4x2xf32>
// CALL-NEXT:    "tf.MatMul"(%{{.*}}, %[[W]])
// CALL:       func.func private @dequantize_i8(%arg0: tensor<*xi8>, %arg1: tensor<*xf32>, %arg2: tensor<*xi32>) -> tensor<*xf32> {
// CALL-NEXT:    %[[I:.*]] = "tf.Identity"(%arg0) : (tensor<*xi8>) -> tensor<*xi8>
// CALL-NEXT:    %[[C:.*]] = "tf.Cast"(%[[I]]) <{Truncate = false}> : (tensor<*xi8>) -> tensor<*xi32>
// CALL-NEXT:    %[[D:.*]] = "tf.Sub"(%[[C]], %arg2) : (tensor<*xi32>, tensor<*xi32>) -> tensor<*xi32>
// CALL-NEXT:    %[[F:.*]] = "tf.Cast"(%[[D]]) <{Truncate = false}> : (tensor<*xi32>) -> tensor<*xf32>
// CALL-NEXT:    %[[M:.*]] = "tf.Mul"(%[[F]], %arg1) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
// CALL-NEXT:    return %[[M]] : tensor<*xf32>

// LARGE-LABEL: func.func @matmul
// LARGE-NOT:     tf.Identity
// LARGE:         "tf.MatMul"(%{{.*}}, %{{.*}}) {{.*}} : (tensor<3x4xf32>, tensor<4x2xf32>)
func.func @matmul(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = "tf.Const"() <{value = dense<[[1.0, -2.0], [0.5, 4.0], [-1.0, 1.0], [0.25, -4.0]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %y = "tf.MatMul"(%x, %w) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// Asymmetric: [min(w, 0), max(w, 0)] onto [-128, 127]. Column 0 spans [0, 2.55]: scale 0.01 and
// zero point -128 (0.0 -> -128); column 1 spans [-2.55, 0]: scale 0.01, zero point 127. The zero
// point is per channel (i32 [2]); symmetric mode stores a scalar 0.

// ASYM-LABEL: func.func @asymmetric
// ASYM-NEXT:    %[[S:.*]] = "tf.Const"() <{value = dense<0.00999999977> : tensor<2xf32>}> : () -> tensor<2xf32>
// ASYM-NEXT:    %[[Z:.*]] = "tf.Const"() <{value = dense<[-128, 127]> : tensor<2xi32>}> : () -> tensor<2xi32>
// ASYM-NEXT:    %[[Q:.*]] = "tf.Const"() <{value = dense<{{\[}}[-128, 127], [127, -128], [-28, 27], [-78, 77]]> : tensor<4x2xi8>}>
// ASYM-NEXT:    "tf.Identity"(%[[Q]])
// ASYM-NEXT:    "tf.Cast"
// ASYM-NEXT:    "tf.Sub"(%{{.*}}, %[[Z]]) : (tensor<4x2xi32>, tensor<2xi32>) -> tensor<4x2xi32>
// ASYM-NEXT:    "tf.Cast"
// ASYM-NEXT:    "tf.Mul"(%{{.*}}, %[[S]]) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-LABEL: func.func @asymmetric
// CHECK:         "tf.Const"() <{value = dense<0> : tensor<i32>}>
func.func @asymmetric(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = "tf.Const"() <{value = dense<[[0.0, 0.0], [2.55, -2.55], [1.0, -1.0], [0.5, -0.5]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %y = "tf.MatMul"(%x, %w) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}
// -----

// tf.MatMul with transpose_b: b is [N, K], so the channel is dim 0 and the scale is [N, 1].

// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK:         %[[S:.*]] = "tf.Const"() <{value = dense<{{\[}}[0.00787401571], [0.0314960629]]> : tensor<2x1xf32>}>
// CHECK:         "tf.Mul"(%{{.*}}, %[[S]]) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    "tf.MatMul"
func.func @matmul_transpose_b(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = "tf.Const"() <{value = dense<[[1.0, 0.5, -1.0, 0.25], [-2.0, 4.0, 1.0, -4.0]]> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
  %y = "tf.MatMul"(%x, %w) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = true}> : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// tf.Conv2D's HWIO filter: one scale per output channel O (the last dim).

// CHECK-LABEL: func.func @conv2d
// CHECK:         %[[S:.*]] = "tf.Const"() <{value = dense<[{{.*}}]> : tensor<3xf32>}>
// CHECK:         %[[Q:.*]] = "tf.Const"() <{value = {{.*}} : tensor<2x2x2x3xi8>}>
// CHECK:         "tf.Identity"(%[[Q]])
// CHECK:         %[[W:.*]] = "tf.Mul"(%{{.*}}, %[[S]]) : (tensor<2x2x2x3xf32>, tensor<3xf32>) -> tensor<2x2x2x3xf32>
// CHECK-NEXT:    "tf.Conv2D"(%{{.*}}, %[[W]])
func.func @conv2d(%x: tensor<1x4x4x2xf32>) -> tensor<1x3x3x3xf32> {
  %w = "tf.Const"() <{value = dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[-1.0, -2.0, -3.0], [0.5, 0.25, 0.125]]], [[[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], [[3.0, 3.0, 3.0], [-4.0, 8.0, -16.0]]]]> : tensor<2x2x2x3xf32>}> : () -> tensor<2x2x2x3xf32>
  %y = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "VALID", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<1x4x4x2xf32>, tensor<2x2x2x3xf32>) -> tensor<1x3x3x3xf32>
  func.return %y : tensor<1x3x3x3xf32>
}

// -----

// tf.DepthwiseConv2dNative's [H, W, C, M] filter: output channel c*M + m has its own scale, [C, M].

// CHECK-LABEL: func.func @depthwise
// CHECK:         %[[S:.*]] = "tf.Const"() <{value = dense<{{\[}}[{{.*}}], [{{.*}}]]> : tensor<2x2xf32>}>
// CHECK:         %[[W:.*]] = "tf.Mul"(%{{.*}}, %[[S]]) : (tensor<2x2x2x2xf32>, tensor<2x2xf32>) -> tensor<2x2x2x2xf32>
// CHECK-NEXT:    "tf.DepthwiseConv2dNative"(%{{.*}}, %[[W]])
func.func @depthwise(%x: tensor<1x4x4x2xf32>) -> tensor<1x3x3x4xf32> {
  %w = "tf.Const"() <{value = dense<[[[[1.0, 2.0], [3.0, 4.0]], [[-1.0, -2.0], [0.5, 0.25]]], [[[1.0, 1.0], [2.0, 2.0]], [[3.0, 3.0], [-4.0, 8.0]]]]> : tensor<2x2x2x2xf32>}> : () -> tensor<2x2x2x2xf32>
  %y = "tf.DepthwiseConv2dNative"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "VALID", strides = [1, 1, 1, 1]}> : (tensor<1x4x4x2xf32>, tensor<2x2x2x2xf32>) -> tensor<1x3x3x4xf32>
  func.return %y : tensor<1x3x3x4xf32>
}

// -----

// tf.GatherV2 of an embedding table: one scale per row (the gathered axis), [V, 1].

// CHECK-LABEL: func.func @embedding
// CHECK:         %[[S:.*]] = "tf.Const"() <{value = dense<{{\[}}[0.00787401571], [0.0157480314], [0.0236220472], [0.0314960629]]> : tensor<4x1xf32>}>
// CHECK:         %[[W:.*]] = "tf.Mul"(%{{.*}}, %[[S]]) : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    "tf.GatherV2"(%[[W]], %{{.*}}, %{{.*}}) <{batch_dims = 0 : i64}>
func.func @embedding(%ids: tensor<3xi32>) -> tensor<3x2xf32> {
  %table = "tf.Const"() <{value = dense<[[1.0, -0.5], [2.0, 1.0], [-3.0, 0.0], [0.5, 4.0]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %axis = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %y = "tf.GatherV2"(%table, %ids, %axis) <{batch_dims = 0 : i64}> : (tensor<4x2xf32>, tensor<3xi32>, tensor<i32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// tf.Einsum: the weight's channel is the label it keeps in the output ("n" of "bk,kn->bn");
// tf.BatchMatMulV2 with adj_y: y is [N, K], the channel is dim -2.

// CHECK-LABEL: func.func @einsum_and_batch_matmul
// CHECK:         %[[S1:.*]] = "tf.Const"() <{value = dense<[0.00787401571, 0.0314960629]> : tensor<2xf32>}>
// CHECK:         %[[W1:.*]] = "tf.Mul"(%{{.*}}, %[[S1]]) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:    "tf.Einsum"(%{{.*}}, %[[W1]]) <{equation = "bk,kn->bn"}>
// CHECK:         %[[S2:.*]] = "tf.Const"() <{value = dense<{{\[}}[0.00787401571], [0.0314960629]]> : tensor<2x1xf32>}>
// CHECK:         %[[W2:.*]] = "tf.Mul"(%{{.*}}, %[[S2]]) : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    "tf.BatchMatMulV2"(%{{.*}}, %[[W2]])
func.func @einsum_and_batch_matmul(%x: tensor<3x4xf32>, %z: tensor<5x3x4xf32>) -> (tensor<3x2xf32>, tensor<5x3x2xf32>) {
  %w = "tf.Const"() <{value = dense<[[1.0, -2.0], [0.5, 4.0], [-1.0, 1.0], [0.25, -4.0]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %y = "tf.Einsum"(%x, %w) <{equation = "bk,kn->bn"}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %v = "tf.Const"() <{value = dense<[[1.0, 0.5, -1.0, 0.25], [-2.0, 4.0, 1.0, -4.0]]> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
  %u = "tf.BatchMatMulV2"(%z, %v) <{adj_x = false, adj_y = true, grad_x = false, grad_y = false}> : (tensor<5x3x4xf32>, tensor<2x4xf32>) -> tensor<5x3x2xf32>
  func.return %y, %u : tensor<3x2xf32>, tensor<5x3x2xf32>
}

// -----

// A weight seen through tf.Identity and a float tf.Cast (f16 -> f32) is quantized in the
// consumer's dtype; the Identity, the Cast and the f16 constant go.

// CHECK-LABEL: func.func @through_identity_and_cast
// CHECK-NOT:     f16
// CHECK:         "tf.Const"() <{value = dense<{{\[}}[127, -64], [64, 127], [-127, 32], [32, -127]]> : tensor<4x2xi8>}>
// CHECK-NOT:     f16
// CHECK:         "tf.MatMul"
func.func @through_identity_and_cast(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = "tf.Const"() <{value = dense<[[1.0, -2.0], [0.5, 4.0], [-1.0, 1.0], [0.25, -4.0]]> : tensor<4x2xf16>}> : () -> tensor<4x2xf16>
  %i = "tf.Identity"(%w) : (tensor<4x2xf16>) -> tensor<4x2xf16>
  %c = "tf.Cast"(%i) <{Truncate = false}> : (tensor<4x2xf16>) -> tensor<*xf32>
  %y = "tf.MatMul"(%x, %c) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<*xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// Two weights share one @dequantize_i8; a weight used by two MatMuls is stored once.

// CALL-LABEL: func.func @two_weights
// CALL-COUNT-2: "tf.Const"() <{value = dense<{{.*}}> : tensor<4x2xi8>}>
// CALL-NOT:     "tf.Const"() <{value = dense<{{.*}}> : tensor<4x2xi8>}>
// CALL-NEXT:    "tf.PartitionedCall"{{.*}}f = @dequantize_i8}
// CALL-NEXT:    "tf.MatMul"
// CALL-NEXT:    "tf.MatMul"
// CALL-NEXT:    "tf.PartitionedCall"{{.*}}f = @dequantize_i8}
// CALL-NEXT:    "tf.MatMul"
// CALL:       func.func private @dequantize_i8(
// CALL-NOT:   func.func
// CHECK-LABEL: func.func @two_weights
// CHECK-COUNT-2: "tf.Identity"
// CHECK-NOT:     "tf.Identity"
func.func @two_weights(%x: tensor<3x4xf32>, %h: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = "tf.Const"() <{value = dense<[[1.0, -2.0], [0.5, 4.0], [-1.0, 1.0], [0.25, -4.0]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %v = "tf.Const"() <{value = dense<[[2.0, -2.0], [0.5, 4.0], [-1.0, 1.0], [0.25, -4.0]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %a = "tf.MatMul"(%x, %w) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %b = "tf.MatMul"(%h, %w) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %c = "tf.MatMul"(%x, %v) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  func.return %a, %b, %c : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Left alone: an integer weight, a weight also used other than as a weight (quantizing it would
// keep the float copy too), a weight that is not a constant, and a constant on MatMul's a side.

// CHECK-LABEL: func.func @untouched
// CALL-LABEL:  func.func @untouched
// CHECK-NOT:     "tf.Identity"
// CHECK-NOT:     xi8>
// CHECK:         return
func.func @untouched(%x: tensor<3x4xi32>, %y: tensor<3x4xf32>, %w2: tensor<4x2xf32>) -> (tensor<3x2xi32>, tensor<3x2xf32>, tensor<4x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>) {
  %wi = "tf.Const"() <{value = dense<[[1, -2], [5, 4], [-1, 1], [2, -4]]> : tensor<4x2xi32>}> : () -> tensor<4x2xi32>
  %a = "tf.MatMul"(%x, %wi) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xi32>, tensor<4x2xi32>) -> tensor<3x2xi32>
  %w = "tf.Const"() <{value = dense<[[1.0, -2.0], [0.5, 4.0], [-1.0, 1.0], [0.25, -4.0]]> : tensor<4x2xf32>}> : () -> tensor<4x2xf32>
  %b = "tf.MatMul"(%y, %w) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %c = "tf.AddV2"(%w, %w) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %d = "tf.MatMul"(%y, %w2) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %l = "tf.Const"() <{value = dense<[[1.0, -2.0, 0.5, 4.0], [-1.0, 1.0, 0.25, -4.0]]> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
  %e = "tf.MatMul"(%l, %w2) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<2x4xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  func.return %a, %b, %c, %d, %e : tensor<3x2xi32>, tensor<3x2xf32>, tensor<4x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>
}
