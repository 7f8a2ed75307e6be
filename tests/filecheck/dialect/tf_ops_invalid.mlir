// TensorFlow's op verifiers (its op definitions' constraints and C++ verify()), with its messages;
// every expected-error of the file must be reported on its line, and nothing else.
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The valid forms print back unchanged: unknown ranks and dims always pass.
// CHECK-LABEL: func.func @valid_ops
// CHECK: "tf.Reshape"
// CHECK: "tf.Transpose"
// CHECK: "tf.GatherV2"
func.func @valid_ops(%x: tensor<2x3xf32>, %s: tensor<1xi32>, %u: tensor<*xf32>, %i: tensor<4xi32>) -> tensor<*xf32> {
  %0 = "tf.Reshape"(%x, %s) : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<6xf32>
  %perm = "tf.Const"() <{value = dense<[1, 0]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %1 = "tf.Transpose"(%x, %perm) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  %axis = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %2 = "tf.GatherV2"(%u, %i, %axis) <{batch_dims = 0 : i64}> : (tensor<*xf32>, tensor<4xi32>, tensor<i32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// -----

func.func @reshape_rank_from_shape_operand(%x: tensor<6xf32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{'tf.Reshape' op requires 'output' type 'tensor<6xf32>' to be cast compatible with expected type 'tensor<?x?x?xf32>'}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<6xf32>, tensor<3xi32>) -> tensor<6xf32>
  func.return
}

// -----

func.func @reshape_element_count(%x: tensor<6xf32>, %s: tensor<2xi32>) {
  // expected-error @+1 {{requires 'output' number of elements to match 'tensor' number of elements, but got 8 and 6}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @reshape_shape_not_an_index(%x: tensor<*xf32>) {
  %s = "tf.Const"() <{value = dense<3.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  // expected-error @+1 {{operand #1 must be tensor of 32/64-bit signed integer values, but got 'tensor<2xf32>'}}
  %0 = "tf.Reshape"(%x, %s) : (tensor<*xf32>, tensor<2xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

func.func @partitioned_call_to_nothing(%x: tensor<f32>) {
  // expected-error @+1 {{'f' attribute refers to an undefined function: @nowhere}}
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @nowhere}> : (tensor<f32>) -> tensor<f32>
  func.return
}

// -----

func.func @partitioned_call_nested_callee(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @inner::@twice}> : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
module @inner {
  func.func nested @twice(%a: tensor<f32>) -> tensor<f32> {
    func.return %a : tensor<f32>
  }
}
// CHECK-LABEL: func.func @partitioned_call_nested_callee
// CHECK: f = @inner::@twice

// -----

func.func @legacy_call_arity(%x: tensor<f32>) {
  // expected-error @+1 {{argument count mismatch: 'args' has 1 argument(s), but 'pair' expects 2}}
  "tf.LegacyCall"(%x) <{f = @pair}> : (tensor<f32>) -> tensor<f32>
  func.return
}
func.func @pair(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  func.return %a : tensor<f32>
}

// -----

func.func @add_mixed_elements(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{requires compatible element types for all operands and results}}
  %0 = "tf.AddV2"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @compare_result_not_bool(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{result #0 must be tensor of bool values, but got 'tensor<3xf32>'}}
  %0 = "tf.Less"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @transpose_result_dims(%x: tensor<2x3xf32>) {
  %perm = "tf.Const"() <{value = dense<[1, 0]> : tensor<2xi32>}> : () -> tensor<2xi32>
  // expected-error @+1 {{requires y.shape[0] (2) to be equal to x.shape[perm[1]] (3)}}
  %0 = "tf.Transpose"(%x, %perm) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @concat_ranks(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  %axis = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{operand type 'tensor<2xf32>' is not compatible with preceding operands; expected rank: 2}}
  %0 = "tf.ConcatV2"(%a, %b, %axis) : (tensor<2x3xf32>, tensor<2xf32>, tensor<i32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @pack_axis_out_of_range(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{attribute 'axis' should be within range [-2, 2); actual value: 2}}
  %0 = "tf.Pack"(%a, %b) <{axis = 2 : i64}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @split_not_divisible(%x: tensor<5x2xf32>) {
  %dim = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{dimension #0 not divisible by the number of result tensors}}
  %0:2 = "tf.Split"(%dim, %x) : (tensor<i32>, tensor<5x2xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  func.return
}

// -----

func.func @conv_strides_length(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // expected-error @+1 {{requires strides attribute length to be 4}}
  %0 = "tf.Conv2D"(%x, %w) <{padding = "VALID", strides = [1, 1, 1]}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @conv_padding_spelling(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) {
  // expected-error @+1 {{attribute 'padding' failed to satisfy constraint: string attribute whose value is SAME, or VALID, or EXPLICIT}}
  %0 = "tf.Conv2D"(%x, %w) <{padding = "FULL", strides = [1, 1, 1, 1]}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @bias_add_channels(%x: tensor<2x5xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{requires channel dimension and feature dimension to match; found 5 and 4, respectively}}
  %0 = "tf.BiasAdd"(%x, %b) <{data_format = "NHWC"}> : (tensor<2x5xf32>, tensor<4xf32>) -> tensor<2x5xf32>
  func.return
}

// -----

func.func @gather_axis_below_batch_dims(%p: tensor<4x3x2xf32>, %i: tensor<4x5xi32>) {
  %axis = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{requires axis (0) to be greater than or equal to batch_dims (1)}}
  %0 = "tf.GatherV2"(%p, %i, %axis) <{batch_dims = 1 : i64}> : (tensor<4x3x2xf32>, tensor<4x5xi32>, tensor<i32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @one_hot_negative_depth(%i: tensor<3xi32>, %on: tensor<f32>, %off: tensor<f32>) {
  %depth = "tf.Const"() <{value = dense<-2> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{depth must be non-negative, got: -2}}
  %0 = "tf.OneHot"(%i, %depth, %on, %off) <{axis = -1 : i64}> : (tensor<3xi32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @top_k_vector_k(%x: tensor<6xf32>, %k: tensor<2xi32>) {
  // expected-error @+1 {{requires k operand to be 0D tensor}}
  %0:2 = "tf.TopKV2"(%x, %k) : (tensor<6xf32>, tensor<2xi32>) -> (tensor<*xf32>, tensor<*xi32>)
  func.return
}

// -----

func.func @segment_ids_not_a_prefix(%d: tensor<4x2xf32>, %ids: tensor<3xi32>, %n: tensor<i32>) {
  // expected-error @+1 {{requires segment ids shape to be a prefix of data shape, but dimension #0 differs: 3 vs. 4}}
  %0 = "tf.UnsortedSegmentSum"(%d, %ids, %n) : (tensor<4x2xf32>, tensor<3xi32>, tensor<i32>) -> tensor<*xf32>
  func.return
}

// -----

func.func @cumsum_axis_out_of_range(%x: tensor<2x3xf32>) {
  %axis = "tf.Const"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{axis operand should be within range [-2, 2); actual value: 2}}
  %0 = "tf.Cumsum"(%x, %axis) <{exclusive = false, reverse = false}> : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @softmax_of_a_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{requires operand to have rank at least 1}}
  %0 = "tf.Softmax"(%x) : (tensor<f32>) -> tensor<f32>
  func.return
}

// -----

func.func @band_part_result_type(%x: tensor<4x4xf32>, %n: tensor<i64>) {
  // expected-error @+1 {{failed to verify that all of {input, band} have dynamically equal types}}
  %0 = "tf.MatrixBandPart"(%x, %n, %n) : (tensor<4x4xf32>, tensor<i64>, tensor<i64>) -> tensor<4xf32>
  func.return
}

// -----

func.func @max_of_complex(%x: tensor<3xcomplex<f32>>) {
  %axis = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{'tf.Max' op operand #0 must be tensor of bfloat16 or 16-bit float or 32-bit float or 64-bit float or 16-bit integer}}
  %0 = "tf.Max"(%x, %axis) <{keep_dims = false}> : (tensor<3xcomplex<f32>>, tensor<i32>) -> tensor<complex<f32>>
  func.return
}

// -----

func.func @reshape_shape_of_int32_refs(%x: tensor<6xf32>, %s: tensor<2x!tf_type.int32ref>) -> tensor<?x?xf32> {
  %0 = "tf.Reshape"(%x, %s) : (tensor<6xf32>, tensor<2x!tf_type.int32ref>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}
// CHECK-LABEL: func.func @reshape_shape_of_int32_refs
// CHECK: "tf.Reshape"
