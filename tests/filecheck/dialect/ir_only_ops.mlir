// Ops tinytf knows only as IR (XLA, TPU, uniform-quantized, DynamicStitch, BatchFunction) and DataFormatVecPermute:
// valid forms verify and print back with their inherent attributes as properties, sorted as TensorFlow prints them.
// RUN: tinytf-opt %s --split-input-file | filecheck %s

// CHECK-LABEL: func.func @broadcast_a_vector
// CHECK: "tf.XlaBroadcastHelper"(%arg0, %arg1, %{{.*}}) : (tensor<4x3xf32>, tensor<3xf32>, tensor<1xi32>) -> (tensor<4x3xf32>, tensor<1x3xf32>)
func.func @broadcast_a_vector(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<1x3xf32> {
  %dims = "tf.Const"() <{value = dense<1> : tensor<1xi32>}> : () -> tensor<1xi32>
  %l, %r = "tf.XlaBroadcastHelper"(%a, %b, %dims) : (tensor<4x3xf32>, tensor<3xf32>, tensor<1xi32>) -> (tensor<4x3xf32>, tensor<1x3xf32>)
  func.return %r : tensor<1x3xf32>
}

// -----

// CHECK-LABEL: func.func @per_channel_weights
// CHECK: "tf.UniformQuantize"(%arg0, %arg1, %arg2) <{quantization_axis = 1 : i64, quantization_max_val = 127 : i64, quantization_min_val = -127 : i64}>
// CHECK: "tf.UniformDequantize"(%0, %arg1, %arg2) <{quantization_axis = 1 : i64, quantization_max_val = 127 : i64, quantization_min_val = -127 : i64}>
func.func @per_channel_weights(%w: tensor<3x4xf32>, %s: tensor<4xf32>, %z: tensor<4xi32>) -> tensor<3x4xf32> {
  %q = "tf.UniformQuantize"(%w, %s, %z) {quantization_axis = 1 : i64, quantization_min_val = -127 : i64, quantization_max_val = 127 : i64} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xi32>) -> tensor<3x4x!tf_type.qint8>
  %d = "tf.UniformDequantize"(%q, %s, %z) {quantization_axis = 1 : i64, quantization_min_val = -127 : i64, quantization_max_val = 127 : i64} : (tensor<3x4x!tf_type.qint8>, tensor<4xf32>, tensor<4xi32>) -> tensor<3x4xf32>
  func.return %d : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @interleave
// CHECK: "tf.DynamicStitch"(%{{.*}}, %{{.*}}, %arg0, %arg1) : (tensor<2xi32>, tensor<i32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
func.func @interleave(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3x3xf32> {
  %i = "tf.Const"() <{value = dense<[0, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %j = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %0 = "tf.DynamicStitch"(%i, %j, %a, %b) : (tensor<2xi32>, tensor<i32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  func.return %0 : tensor<3x3xf32>
}

// -----

// CHECK-LABEL: func.func @batched_serving
// CHECK: "tf.BatchFunction"(%arg0) <{batch_timeout_micros = 10 : i64, f = @serve, max_batch_size = 8 : i64, num_batch_threads = 2 : i64, operandSegmentSizes = array<i32: 1, 0>}>
func.func private @serve(%x: tensor<?xf32>) -> tensor<?xf32>
func.func @batched_serving(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "tf.BatchFunction"(%x) {batch_timeout_micros = 10 : i64, f = @serve, max_batch_size = 8 : i64, num_batch_threads = 2 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<?xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @nhwc_to_nchw
// CHECK: "tf.DataFormatVecPermute"(%arg0) <{dst_format = "NCHW", src_format = "NHWC"}> : (tensor<4xi32>) -> tensor<4xi32>
func.func @nhwc_to_nchw(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "tf.DataFormatVecPermute"(%x) {src_format = "NHWC", dst_format = "NCHW"} : (tensor<4xi32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}
