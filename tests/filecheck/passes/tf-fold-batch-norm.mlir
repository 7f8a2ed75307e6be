// RUN: tinytf-opt %s --split-input-file -p tf-fold-batch-norm | filecheck %s

// A Keras inference BatchNorm (a per-channel Mul and AddV2) after Conv2D + BiasAdd: the scale goes into the
// kernel, the bias becomes bias * scale + shift, and one BiasAdd replaces the BiasAdd, Mul and AddV2.

// CHECK-LABEL: func.func @conv_bias_bn
// CHECK:         %[[C:.*]] = "tf.Const"() <{value = dense<3> : tensor<1xi32>}>
// CHECK-NEXT:    %[[S:.*]] = "tf.Reshape"(%arg3, %[[C]]) {device = ""} : (tensor<1x1x1x3xf32>, tensor<1xi32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[T:.*]] = "tf.Reshape"(%arg4, %[[C]]) {device = ""} : (tensor<1x1x1x3xf32>, tensor<1xi32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[W:.*]] = "tf.Mul"(%arg1, %[[S]]) {device = ""} : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
// CHECK-NEXT:    %[[BS:.*]] = "tf.Mul"(%arg2, %[[S]]) {device = ""} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[B:.*]] = "tf.AddV2"(%[[BS]], %[[T]]) {device = ""} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = "tf.Conv2D"(%arg0, %[[W]])
// CHECK-NEXT:    %[[N:.*]] = "tf.BiasAdd"(%[[Y]], %[[B]]) <{data_format = "NHWC"}> {device = ""} : (tensor<1x?x?x?xf32>, tensor<3xf32>) -> tensor<1x?x?x3xf32>
// CHECK-NEXT:    %[[R:.*]] = "tf.Relu"(%[[N]])
// CHECK-NEXT:    return %[[R]]
func.func @conv_bias_bn(%x: tensor<1x4x4x2xf32>, %w: tensor<*xf32>, %b: tensor<3xf32>, %s: tensor<1x1x1x3xf32>, %t: tensor<1x1x1x3xf32>) -> tensor<1x?x?x3xf32> {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> {device = ""} : (tensor<1x4x4x2xf32>, tensor<*xf32>) -> tensor<1x?x?x?xf32>
  %1 = "tf.BiasAdd"(%0, %b) <{data_format = "NHWC"}> {device = ""} : (tensor<1x?x?x?xf32>, tensor<3xf32>) -> tensor<1x?x?x3xf32>
  %2 = "tf.Mul"(%1, %s) {device = ""} : (tensor<1x?x?x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x?x?x3xf32>
  %3 = "tf.AddV2"(%2, %t) {device = ""} : (tensor<1x?x?x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x?x?x3xf32>
  %4 = "tf.Relu"(%3) {device = ""} : (tensor<1x?x?x3xf32>) -> tensor<1x?x?x3xf32>
  return %4 : tensor<1x?x?x3xf32>
}

// -----

// A MatMul without a bias, the operands of Mul and AddV2 in the other order: the shift is the bias.

// CHECK-LABEL: func.func @matmul_bn
// CHECK:         %[[S:.*]] = "tf.Reshape"(%arg2, %{{.*}}) : (tensor<5xf32>, tensor<1xi32>) -> tensor<5xf32>
// CHECK-NEXT:    %[[T:.*]] = "tf.Reshape"(%arg3, %{{.*}}) : (tensor<1x5xf32>, tensor<1xi32>) -> tensor<5xf32>
// CHECK-NEXT:    %[[W:.*]] = "tf.Mul"(%arg1, %[[S]]) : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    %[[Y:.*]] = "tf.MatMul"(%arg0, %[[W]])
// CHECK-NEXT:    %[[N:.*]] = "tf.BiasAdd"(%[[Y]], %[[T]]) <{data_format = "NHWC"}> : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    return %[[N]]
func.func @matmul_bn(%x: tensor<2x4xf32>, %w: tensor<4x5xf32>, %s: tensor<5xf32>, %t: tensor<1x5xf32>) -> tensor<2x5xf32> {
  %0 = "tf.MatMul"(%x, %w) <{transpose_a = false, transpose_b = false}> : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  %1 = "tf.Mul"(%s, %0) : (tensor<5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %2 = "tf.AddV2"(%t, %1) : (tensor<1x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}

// -----

// Not folded: the scale is not a per-channel vector; the convolution's result has another user; the
// scale is computed after the convolution; the layout is NCHW; a transposed matmul's channels are its rows.

// CHECK-LABEL: func.func @not_per_channel
// CHECK:         "tf.Mul"(%{{.*}}, %arg2) : (tensor<1x4x4x3xf32>, tensor<1x4x1x3xf32>)
// CHECK-NEXT:    "tf.AddV2"
func.func @not_per_channel(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x3xf32>, %s: tensor<1x4x1x3xf32>, %t: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = "tf.Mul"(%0, %s) : (tensor<1x4x4x3xf32>, tensor<1x4x1x3xf32>) -> tensor<1x4x4x3xf32>
  %2 = "tf.AddV2"(%1, %t) : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  return %2 : tensor<1x4x4x3xf32>
}

// CHECK-LABEL: func.func @two_users
// CHECK:         %[[Y:.*]] = "tf.Conv2D"(%arg0, %arg1)
// CHECK-NEXT:    "tf.Mul"(%[[Y]], %arg2)
// CHECK-NEXT:    "tf.AddV2"
func.func @two_users(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x3xf32>, %s: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = "tf.Mul"(%0, %s) : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %2 = "tf.AddV2"(%1, %t) : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  return %0, %2 : tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>
}

// CHECK-LABEL: func.func @scale_after
// CHECK:         %[[Y:.*]] = "tf.Conv2D"(%arg0, %arg1)
// CHECK-NEXT:    %[[S:.*]] = "tf.Exp"(%arg2)
// CHECK-NEXT:    "tf.Mul"(%[[Y]], %[[S]])
func.func @scale_after(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x3xf32>, %s: tensor<3xf32>, %t: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x4x4x3xf32>
  %e = "tf.Exp"(%s) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tf.Mul"(%0, %e) : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %2 = "tf.AddV2"(%1, %t) : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  return %2 : tensor<1x4x4x3xf32>
}

// CHECK-LABEL: func.func @nchw
// CHECK:         "tf.Conv2D"(%arg0, %arg1)
// CHECK-NEXT:    "tf.Mul"
func.func @nchw(%x: tensor<1x2x4x4xf32>, %w: tensor<3x3x2x3xf32>, %s: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<1x3x4x4xf32> {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NCHW", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<1x2x4x4xf32>, tensor<3x3x2x3xf32>) -> tensor<1x3x4x4xf32>
  %1 = "tf.Mul"(%0, %s) : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
  %2 = "tf.AddV2"(%1, %t) : (tensor<1x3x4x4xf32>, tensor<4xf32>) -> tensor<1x3x4x4xf32>
  return %2 : tensor<1x3x4x4xf32>
}

// CHECK-LABEL: func.func @transposed_matmul
// CHECK:         "tf.MatMul"(%arg0, %arg1)
// CHECK-NEXT:    "tf.Mul"
func.func @transposed_matmul(%x: tensor<2x4xf32>, %w: tensor<5x4xf32>, %s: tensor<5xf32>, %t: tensor<5xf32>) -> tensor<2x5xf32> {
  %0 = "tf.MatMul"(%x, %w) <{transpose_a = false, transpose_b = true}> : (tensor<2x4xf32>, tensor<5x4xf32>) -> tensor<2x5xf32>
  %1 = "tf.Mul"(%0, %s) : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %2 = "tf.AddV2"(%1, %t) : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  return %2 : tensor<2x5xf32>
}
