// TensorFlow's verifiers of Bitcast, BroadcastGradientArgs, the FakeQuant ops, ToBool, Concat,
// TPUPartitionedInputV2 and the shape ops' warning, with TensorFlow's messages. Every expectation must be
// reported on its line, and nothing else.
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @valid
// CHECK: "tf.Bitcast"
// CHECK: "tf.FakeQuantWithMinMaxVarsPerChannel"
// CHECK: "tf.BroadcastGradientArgs"
func.func @valid(%x: tensor<5x4xi8>, %q: tensor<2x3xf32>, %lo: tensor<3xf32>, %hi: tensor<3xf32>) -> (tensor<5xi32>, tensor<2x3xf32>) {
  %0 = "tf.Bitcast"(%x) : (tensor<5x4xi8>) -> tensor<5xi32>
  %1 = "tf.FakeQuantWithMinMaxVarsPerChannel"(%q, %lo, %hi) <{num_bits = 6 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %a = "tf.Const"() <{value = dense<[3, 1, 2]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %b = "tf.Const"() <{value = dense<[2]> : tensor<1xi32>}> : () -> tensor<1xi32>
  %r0, %r1 = "tf.BroadcastGradientArgs"(%a, %b) : (tensor<3xi32>, tensor<1xi32>) -> (tensor<1xi32>, tensor<2xi32>)
  func.return %0, %1 : tensor<5xi32>, tensor<2x3xf32>
}

// -----

func.func @bitcast_narrow_to_wide_needs_the_ratio_last(%x: tensor<5x3xi8>) -> tensor<5xi32> {
  // expected-error @+1 {{input rightmost dimension size is not equal to the divisor. the last dimension of input is expected to be 4}}
  %0 = "tf.Bitcast"(%x) : (tensor<5x3xi8>) -> tensor<5xi32>
  func.return %0 : tensor<5xi32>
}

// -----

func.func @bitcast_wide_to_narrow_adds_a_dim(%x: tensor<6xf64>) -> tensor<6xf32> {
  // expected-error @+1 {{rank of input tensor is 1. rank of output tensor is expected to be 2, instead of 1.}}
  %0 = "tf.Bitcast"(%x) : (tensor<6xf64>) -> tensor<6xf32>
  func.return %0 : tensor<6xf32>
}

// -----

func.func @bitcast_same_width_keeps_the_shape(%x: tensor<2x2xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{output tensor shape shall be equal to input tensor shape}}
  %0 = "tf.Bitcast"(%x) : (tensor<2x2xi32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @broadcast_gradient_args_of_shapes_that_do_not_broadcast() -> (tensor<0xi32>, tensor<0xi32>) {
  %a = "tf.Const"() <{value = dense<[3, 5]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %b = "tf.Const"() <{value = dense<[4]> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error @+1 {{requires broadcast compatible shape tensors for 's0' and 's1', but got dense<[3, 5]> : tensor<2xi32> and dense<4> : tensor<1xi32>}}
  %r0, %r1 = "tf.BroadcastGradientArgs"(%a, %b) : (tensor<2xi32>, tensor<1xi32>) -> (tensor<0xi32>, tensor<0xi32>)
  func.return %r0, %r1 : tensor<0xi32>, tensor<0xi32>
}

// -----

func.func @broadcast_gradient_args_result_length() -> (tensor<1xi32>, tensor<1xi32>) {
  %a = "tf.Const"() <{value = dense<[3, 1, 2]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %b = "tf.Const"() <{value = dense<[2]> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error @+1 {{requires dimension 0 size of 'r1' to be 2 but got 1}}
  %r0, %r1 = "tf.BroadcastGradientArgs"(%a, %b) : (tensor<3xi32>, tensor<1xi32>) -> (tensor<1xi32>, tensor<1xi32>)
  func.return %r0, %r1 : tensor<1xi32>, tensor<1xi32>
}

// -----

func.func @broadcast_gradient_args_mixed_widths(%a: tensor<2xi64>, %b: tensor<2xi32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %r0, %r1 = "tf.BroadcastGradientArgs"(%a, %b) : (tensor<2xi64>, tensor<2xi32>) -> (tensor<?xi32>, tensor<?xi32>)
  func.return
}

// -----

func.func @fake_quant_one_bit(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires num_bits to be between 2 and 16, inclusive}}
  %0 = "tf.FakeQuantWithMinMaxArgs"(%x) <{num_bits = 1 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @fake_quant_vars_vector_range(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires max to be a 0d float tensor}}
  %0 = "tf.FakeQuantWithMinMaxVars"(%x, %lo, %hi) : (tensor<4xf32>, tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @fake_quant_vars_half_range(%x: tensor<4xf32>, %lo: tensor<f16>, %hi: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #1 must be tensor of 32-bit float values, but got 'tensor<f16>'}}
  %0 = "tf.FakeQuantWithMinMaxVars"(%x, %lo, %hi) : (tensor<4xf32>, tensor<f16>, tensor<f32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @fake_quant_per_channel_range_length(%x: tensor<2x3xf32>, %lo: tensor<2xf32>, %hi: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{requires min and max to have same size as last dimension of inputs}}
  %0 = "tf.FakeQuantWithMinMaxVarsPerChannel"(%x, %lo, %hi) : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @to_bool_gives_a_scalar(%x: tensor<3xf32>) -> tensor<3xi1> {
  // expected-error @+2 {{'tf.ToBool' op failed to infer returned types}}
  // expected-error @+1 {{'tf.ToBool' op inferred type(s) 'tensor<i1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  %0 = "tf.ToBool"(%x) : (tensor<3xf32>) -> tensor<3xi1>
  func.return %0 : tensor<3xi1>
}

// -----

func.func @concat_with_a_matrix_axis(%x: tensor<2x2xf32>, %axis: tensor<2x1xi32>) -> tensor<*xf32> {
  // expected-error @+1 {{requires axis to be of scalar type (or vector type for older versions)}}
  %0 = "tf.Concat"(%axis, %x, %x) : (tensor<2x1xi32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @concat_v2_without_operands() -> tensor<*xf32> {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0 = "tf.ConcatV2"() : () -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @partitioned_input_piece_count(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expected 4 inputs, got 2}}
  %0 = "tf.TPUPartitionedInputV2"(%a, %b) <{partition_dims = [2, 2]}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x4xf32>
  func.return %0 : tensor<4x4xf32>
}

// -----

// A static shape for an unranked operand is only a warning: the function still prints.
// CHECK-LABEL: func.func @shape_of_unranked
// CHECK: "tf.Shape"
func.func @shape_of_unranked(%x: tensor<*xf32>) -> tensor<3xi32> {
  // expected-warning @+1 {{has static shape result for unranked operand}}
  %0 = "tf.Shape"(%x) : (tensor<*xf32>) -> tensor<3xi32>
  func.return %0 : tensor<3xi32>
}

// -----

func.func @shape_n_of_unranked(%x: tensor<2xf32>, %y: tensor<*xf32>) -> tensor<4xi32> {
  // expected-warning @+1 {{has static shape result #1 for unranked operand #1}}
  %0:2 = "tf.ShapeN"(%x, %y) : (tensor<2xf32>, tensor<*xf32>) -> (tensor<1xi32>, tensor<4xi32>)
  func.return %0#1 : tensor<4xi32>
}
