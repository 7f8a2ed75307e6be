// RUN: tinytf-opt %s --split-input-file -p tf-fuse-bias-activation | filecheck %s

// Conv2D + BiasAdd + Relu: one _FusedConv2D with the convolution's attributes, fused_ops and TF's defaults.

// CHECK-LABEL: func.func @conv_bias_relu
// CHECK-NEXT:    %[[F:.*]] = "tf._FusedConv2D"(%arg0, %arg1, %arg2) <{data_format = "NHWC", dilations = [1, 1, 1, 1], epsilon = 9.99999974E-5 : f32, explicit_paddings = [], fused_ops = ["BiasAdd", "Relu"], leakyrelu_alpha = 2.000000e-01 : f32, padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> {device = ""} : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
// CHECK-NEXT:    return %[[F]]
func.func @conv_bias_relu(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> {device = ""} : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = "tf.BiasAdd"(%0, %b) <{data_format = "NHWC"}> {device = ""} : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %2 = "tf.Relu"(%1) {device = ""} : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %2 : tensor<1x4x4x3xf32>
}

// -----

// Depthwise + BiasAdd + Relu6, MatMul + BiasAdd + LeakyRelu (its alpha kept), MatMul + BiasAdd alone.

// CHECK-LABEL: func.func @depthwise_matmul
// CHECK-NEXT:    %[[D:.*]] = "tf._FusedDepthwiseConv2dNative"(%arg0, %arg1, %arg2) <{{{.*}}fused_ops = ["BiasAdd", "Relu6"]{{.*}}}> : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    %[[M:.*]] = "tf._FusedMatMul"(%arg3, %arg4, %arg5) <{epsilon = 9.99999974E-5 : f32, fused_ops = ["BiasAdd", "LeakyRelu"], leakyrelu_alpha = 1.000000e-01 : f32, transpose_a = false, transpose_b = true}> : (tensor<2x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %[[N:.*]] = "tf._FusedMatMul"(%[[M]], %arg6, %arg5) <{epsilon = 9.99999974E-5 : f32, fused_ops = ["BiasAdd"], leakyrelu_alpha = 2.000000e-01 : f32, transpose_a = false, transpose_b = false}> : (tensor<2x5xf32>, tensor<5x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    return %[[D]], %[[N]]
func.func @depthwise_matmul(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>, %b: tensor<2xf32>, %a: tensor<2x4xf32>, %m: tensor<5x4xf32>, %c: tensor<5xf32>, %m2: tensor<5x5xf32>) -> (tensor<1x4x4x2xf32>, tensor<2x5xf32>) {
  %0 = "tf.DepthwiseConv2dNative"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "SAME", strides = [1, 1, 1, 1]}> : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x4x4x2xf32>
  %1 = "tf.BiasAdd"(%0, %b) <{data_format = "NHWC"}> : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  %2 = "tf.Relu6"(%1) : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %3 = "tf.MatMul"(%a, %m) <{transpose_a = false, transpose_b = true}> : (tensor<2x4xf32>, tensor<5x4xf32>) -> tensor<2x5xf32>
  %4 = "tf.BiasAdd"(%3, %c) <{data_format = "NHWC"}> : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %5 = "tf.LeakyRelu"(%4) <{alpha = 1.000000e-01 : f32}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %6 = "tf.MatMul"(%5, %m2) <{transpose_a = false, transpose_b = false}> : (tensor<2x5xf32>, tensor<5x5xf32>) -> tensor<2x5xf32>
  %7 = "tf.BiasAdd"(%6, %c) <{data_format = "NHWC"}> : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  return %2, %7 : tensor<1x4x4x2xf32>, tensor<2x5xf32>
}

// -----

// The BiasAdd's value is used again: the layer and the bias fuse, the activation stays (as TF's remapper
// fuses only the activation whose input has no other use).

// CHECK-LABEL: func.func @bias_used_twice
// CHECK-NEXT:    %[[F:.*]] = "tf._FusedConv2D"(%arg0, %arg1, %arg2) <{{{.*}}fused_ops = ["BiasAdd"]{{.*}}}>
// CHECK-NEXT:    %[[R:.*]] = "tf.Elu"(%[[F]])
// CHECK-NEXT:    return %[[R]], %[[F]]
func.func @bias_used_twice(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x3xf32>, %b: tensor<3xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "VALID", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = "tf.BiasAdd"(%0, %b) <{data_format = "NHWC"}> : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %2 = "tf.Elu"(%1) : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %2, %1 : tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>
}

// -----

// Not fused: the convolution's result has another use; NCHW layouts; an integer matmul; an activation
// after a plain AddV2; a Sigmoid (not one of the fused activations) stays after a fused MatMul + BiasAdd.

// CHECK-LABEL: func.func @not_fused
// CHECK-NEXT:    "tf.Conv2D"
// CHECK-NEXT:    "tf.BiasAdd"
// CHECK-NEXT:    "tf.Conv2D"
// CHECK-NEXT:    "tf.BiasAdd"
// CHECK-NEXT:    "tf.MatMul"
// CHECK-NEXT:    "tf.BiasAdd"
// CHECK-NEXT:    "tf.MatMul"
// CHECK-NEXT:    "tf.AddV2"
// CHECK-NEXT:    "tf.Relu"
// CHECK-NEXT:    %[[F:.*]] = "tf._FusedMatMul"{{.*}}fused_ops = ["BiasAdd"]
// CHECK-NEXT:    "tf.Sigmoid"(%[[F]])
// CHECK-NOT:     _Fused
func.func @not_fused(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x3xf32>, %b: tensor<3xf32>, %xc: tensor<1x2x4x4xf32>, %wc: tensor<1x1x2x3xf32>, %i: tensor<2x3xi32>, %j: tensor<3x3xi32>, %k: tensor<3xi32>, %a: tensor<2x3xf32>, %m: tensor<3x3xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>, tensor<1x3x4x4xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "VALID", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = "tf.BiasAdd"(%0, %b) <{data_format = "NHWC"}> : (tensor<1x4x4x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  %2 = "tf.Conv2D"(%xc, %wc) <{data_format = "NCHW", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "VALID", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<1x2x4x4xf32>, tensor<1x1x2x3xf32>) -> tensor<1x3x4x4xf32>
  %3 = "tf.BiasAdd"(%2, %b) <{data_format = "NCHW"}> : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %4 = "tf.MatMul"(%i, %j) <{transpose_a = false, transpose_b = false}> : (tensor<2x3xi32>, tensor<3x3xi32>) -> tensor<2x3xi32>
  %5 = "tf.BiasAdd"(%4, %k) <{data_format = "NHWC"}> : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %6 = "tf.MatMul"(%a, %m) <{transpose_a = false, transpose_b = false}> : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %7 = "tf.AddV2"(%6, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = "tf.Relu"(%7) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = "tf.MatMul"(%8, %m) <{transpose_a = false, transpose_b = false}> : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %10 = "tf.BiasAdd"(%9, %b) <{data_format = "NHWC"}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %11 = "tf.Sigmoid"(%10) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1, %0, %3, %5, %8, %11 : tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>, tensor<1x3x4x4xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>
}
