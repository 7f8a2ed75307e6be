// Uniform-quantized ops whose scales and zero points do not fit their quantization axis, DynamicStitch,
// DataFormatVecPermute, BatchMatMul, BatchFunction and ParseExampleV2's lengths, refused with TensorFlow's
// messages, each on its line.
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics

func.func @per_axis_scales_for_a_per_tensor_quantize(%x: tensor<4xf32>, %s: tensor<4xf32>, %z: tensor<4xi32>) -> tensor<4x!tf_type.qint8> {
  // expected-error @+1 {{'tf.UniformQuantize' op quantization_axis is -1, scales must have 0 rank.}}
  %0 = "tf.UniformQuantize"(%x, %s, %z) {quantization_min_val = -128 : i64, quantization_max_val = 127 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) -> tensor<4x!tf_type.qint8>
  func.return %0 : tensor<4x!tf_type.qint8>
}

// -----

func.func @per_axis_with_scalar_zero_point(%q: tensor<2x3x!tf_type.qint8>, %s: tensor<3xf32>, %z: tensor<i32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tf.UniformDequantize' op quantization_axis is not -1, zero_points must have 1 rank.}}
  %0 = "tf.UniformDequantize"(%q, %s, %z) {quantization_axis = 1 : i64, quantization_min_val = -128 : i64, quantization_max_val = 127 : i64} : (tensor<2x3x!tf_type.qint8>, tensor<3xf32>, tensor<i32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @per_axis_lengths_differ(%x: tensor<2x3xf32>, %w: tensor<3x4x!tf_type.qint8>, %s: tensor<4xf32>, %z: tensor<3xi32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tf.UniformQuantizedDotHybrid' op scales and zero points must have same number of elements.}}
  %0 = "tf.UniformQuantizedDotHybrid"(%x, %w, %s, %z) {rhs_quantization_axis = 1 : i64, rhs_quantization_min_val = -128 : i64, rhs_quantization_max_val = 127 : i64} : (tensor<2x3xf32>, tensor<3x4x!tf_type.qint8>, tensor<4xf32>, tensor<3xi32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// The output's pair is checked too, after the lhs and rhs pairs.
func.func @output_zero_point_a_vector(%a: tensor<2x!tf_type.qint32>, %s: tensor<f32>, %z: tensor<i32>, %zv: tensor<2xi32>) -> tensor<2x!tf_type.qint32> {
  // expected-error @+1 {{'tf.UniformQuantizedAdd' op quantization_axis is -1, zero_points must have 0 rank.}}
  %0 = "tf.UniformQuantizedAdd"(%a, %a, %s, %z, %s, %z, %s, %zv) {lhs_quantization_min_val = -2147483648 : i64, lhs_quantization_max_val = 2147483647 : i64, rhs_quantization_min_val = -2147483648 : i64, rhs_quantization_max_val = 2147483647 : i64, output_quantization_min_val = -2147483648 : i64, output_quantization_max_val = 2147483647 : i64} : (tensor<2x!tf_type.qint32>, tensor<2x!tf_type.qint32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<2xi32>) -> tensor<2x!tf_type.qint32>
  func.return %0 : tensor<2x!tf_type.qint32>
}

// -----

func.func @quantize_int_input(%x: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4x!tf_type.qint8> {
  // expected-error @+1 {{'tf.UniformQuantize' op operand #0 must be tensor of 32-bit float values, but got 'tensor<4xi32>'}}
  %0 = "tf.UniformQuantize"(%x, %s, %z) {quantization_min_val = -128 : i64, quantization_max_val = 127 : i64} : (tensor<4xi32>, tensor<f32>, tensor<i32>) -> tensor<4x!tf_type.qint8>
  func.return %0 : tensor<4x!tf_type.qint8>
}

// -----

func.func @stitch_with_a_gap(%a: tensor<2xf32>, %b: tensor<f32>) -> tensor<4xf32> {
  %i = "tf.Const"() <{value = dense<[0, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %j = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{'tf.DynamicStitch' op missing index 2}}
  %0 = "tf.DynamicStitch"(%i, %j, %a, %b) : (tensor<2xi32>, tensor<i32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @stitch_into_too_many_rows(%a: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %i = "tf.Const"() <{value = dense<[1, 0]> : tensor<2xi32>}> : () -> tensor<2xi32>
  // expected-error @+1 {{'tf.DynamicStitch' op has invalid output type; should be compatible with inferred type 'tensor<2x3xf32>'}}
  %0 = "tf.DynamicStitch"(%i, %a) : (tensor<2xi32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  func.return %0 : tensor<3x3xf32>
}

// -----

func.func @stitch_items_of_two_widths(%i: tensor<2xi32>, %j: tensor<2xi32>, %a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tf.DynamicStitch' op has inconsistent shaped data and index pairs; inferred item shapes [3] and [4] don't match}}
  %0 = "tf.DynamicStitch"(%i, %j, %a, %b) : (tensor<2xi32>, tensor<2xi32>, tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @permute_a_three_vector(%x: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{'tf.DataFormatVecPermute' op requires 1D input of size 4 or size 2}}
  %0 = "tf.DataFormatVecPermute"(%x) : (tensor<3xi32>) -> tensor<3xi32>
  func.return %0 : tensor<3xi32>
}

// -----

func.func @batch_matmul_v1_does_not_broadcast(%x: tensor<1x2x3xf32>, %y: tensor<4x3x5xf32>) -> tensor<4x2x5xf32> {
  // expected-error @+1 {{'tf.BatchMatMul' op found mismatching batch dimensions for lhs shape 'tensor<1x2x3xf32>' and rhs shape 'tensor<4x3x5xf32>'}}
  %0 = "tf.BatchMatMul"(%x, %y) : (tensor<1x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  func.return %0 : tensor<4x2x5xf32>
}

// -----

func.func @batch_function_of_a_missing_function(%x: tensor<2xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'f' attribute refers to an undefined function: serve_batch}}
  %0 = "tf.BatchFunction"(%x) {batch_timeout_micros = 10 : i64, f = @serve_batch, max_batch_size = 8 : i64, num_batch_threads = 2 : i64, operandSegmentSizes = array<i32: 1, 0>} : (tensor<2xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @parse_example_ragged_lengths_differ(%s: tensor<4x!tf_type.string>, %keys: tensor<1x!tf_type.string>) -> tensor<?xf32> {
  %none = "tf.Const"() <{value = dense<> : tensor<0xi64>}> : () -> tensor<0xi64>
  // expected-error @+1 {{attribute 'ragged_value_types' should have same length as attribute 'ragged_split_types'}}
  %r:3 = "tf.ParseExampleV2"(%s, %s, %keys, %keys, %keys) {dense_shapes = [], num_sparse = 0 : i64, resultSegmentSizes = array<i32: 0, 0, 0, 0, 1, 2>} : (tensor<4x!tf_type.string>, tensor<4x!tf_type.string>, tensor<1x!tf_type.string>, tensor<1x!tf_type.string>, tensor<1x!tf_type.string>) -> (tensor<?xf32>, tensor<?xi32>, tensor<?xi32>)
  func.return %r#0 : tensor<?xf32>
}
