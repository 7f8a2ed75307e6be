// XLA and TPU ops of TensorFlow's bridge that its verifiers refuse, with its messages, each on its line.
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics

func.func @broadcast_dims_longer_than_the_smaller_rank(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  %dims = "tf.Const"() <{value = dense<[0, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  // expected-error @+2 {{'tf.XlaBroadcastHelper' op failed to infer returned types}}
  // expected-error @+1 {{broadcast_dims must have size equal to the smaller argument rank}}
  %l, %r = "tf.XlaBroadcastHelper"(%a, %b, %dims) : (tensor<4x3xf32>, tensor<3xf32>, tensor<2xi32>) -> (tensor<4x3xf32>, tensor<1x3xf32>)
  func.return
}

// -----

func.func @broadcast_result_of_the_wrong_shape(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  %dims = "tf.Const"() <{value = dense<1> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error @+2 {{'tf.XlaBroadcastHelper' op failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<4x3xf32>, tensor<1x3xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>, tensor<3x1xf32>'}}
  %l, %r = "tf.XlaBroadcastHelper"(%a, %b, %dims) : (tensor<4x3xf32>, tensor<3xf32>, tensor<1xi32>) -> (tensor<4x3xf32>, tensor<3x1xf32>)
  func.return
}

// -----

func.func @conv_padding_not_pairs(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<*xf32> {
  %strides = "tf.Const"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<2xi32>
  %padding = "tf.Const"() <{value = dense<0> : tensor<2x3xi32>}> : () -> tensor<2x3xi32>
  %dilation = "tf.Const"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<2xi32>
  %groups = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+1 {{'tf.XlaConvV2' op expects padding to be a matrix with minor dimension 2}}
  %0 = "tf.XlaConvV2"(%x, %w, %strides, %padding, %dilation, %dilation, %groups) {dimension_numbers = "", precision_config = ""} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>, tensor<2xi32>, tensor<2x3xi32>, tensor<2xi32>, tensor<2xi32>, tensor<i32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32>

func.func @reduce_window_strides_for_another_rank(%x: tensor<4x6xf32>, %init: tensor<f32>) -> tensor<*xf32> {
  %two = "tf.Const"() <{value = dense<2> : tensor<2xi32>}> : () -> tensor<2xi32>
  %three = "tf.Const"() <{value = dense<1> : tensor<3xi32>}> : () -> tensor<3xi32>
  %pad = "tf.Const"() <{value = dense<0> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  // expected-error @+1 {{'tf.XlaReduceWindow' op expects the size of window_strides to be equal to the input rank (3 vs. 2)}}
  %0 = "tf.XlaReduceWindow"(%x, %init, %two, %three, %two, %two, %pad) {computation = @sum} : (tensor<4x6xf32>, tensor<f32>, tensor<2xi32>, tensor<3xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @reduce_window_without_its_computation(%x: tensor<4x6xf32>, %init: tensor<f32>) -> tensor<*xf32> {
  %two = "tf.Const"() <{value = dense<2> : tensor<2xi32>}> : () -> tensor<2xi32>
  %pad = "tf.Const"() <{value = dense<0> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  // expected-error @+1 {{'tf.XlaReduceWindow' op has no reduction function specified}}
  %0 = "tf.XlaReduceWindow"(%x, %init, %two, %two, %two, %two, %pad) {computation = @missing} : (tensor<4x6xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func private @pick_larger(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32>
func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32>

func.func @select_returns_a_float(%x: tensor<4x6xf32>, %src: tensor<2x3xf32>, %init: tensor<f32>) -> tensor<*xf32> {
  %two = "tf.Const"() <{value = dense<2> : tensor<2xi32>}> : () -> tensor<2xi32>
  %pad = "tf.Const"() <{value = dense<0> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  // expected-error @+1 {{'tf.XlaSelectAndScatter' op expects select function to return a single boolean result but got 'tensor<f32>'}}
  %0 = "tf.XlaSelectAndScatter"(%x, %two, %two, %pad, %src, %init) {scatter = @sum, select = @pick_larger} : (tensor<4x6xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>, tensor<2x3xf32>, tensor<f32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @dynamic_dimension_past_the_rank(%x: tensor<2x3xf32>, %n: tensor<i32>) -> tensor<*xf32> {
  %dim = "tf.Const"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
  // expected-error @+2 {{'tf.XlaSetDynamicDimensionSize' op failed to infer returned types}}
  // expected-error @+1 {{dim_index (2) is out of range [0, 2)}}
  %0 = "tf.XlaSetDynamicDimensionSize"(%x, %dim, %n) : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

func.func @static_bounds_for_a_matrix_given_three(%x: tensor<?x?xf32>, %bounds: tensor<3xi32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tf.SetStaticDimensionBounds' op static shape must have num_elements == rank of input tensor}}
  %0 = "tf.SetStaticDimensionBounds"(%x, %bounds) : (tensor<?x?xf32>, tensor<3xi32>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}

// -----

func.func @call_module_naming_a_missing_function(%x: tensor<2xf32>) {
  // expected-error @+1 {{'tf.XlaCallModule' op refers to an undefined function: @host_callback}}
  "tf.XlaCallModule"(%x) {Sout = [], function_list = [@host_callback], module = "", version = 9 : i64} : (tensor<2xf32>) -> ()
  func.return
}

// -----

func.func @host_module_with_one_argument_given_two(%x: tensor<2xf32>) {
  // expected-error @+1 {{'host_func' has 1 inputs and '_XlaHostComputeMlir' has 2 operands.  Number of operands/inputs should be the same.}}
  "tf._XlaHostComputeMlir"(%x, %x) {recv_key = "r", send_key = "s", host_mlir_module = "module {\0A func.func @host_func(%a: tensor<2xf32>) -> () {\0A func.return\0A }\0A}\0A"} : (tensor<2xf32>, tensor<2xf32>) -> ()
  func.return
}

// -----

func.func @tpu_updates_for_a_non_resource(%v: tensor<!tf_type.resource<tensor<f32>>>, %k: tensor<3x!tf_type.string>) {
  // expected-error @+1 {{requires 'device_var_updates_indices' to be the same size as number of resource handles in 'args' (1), but got 0}}
  "tf.TPUExecuteAndUpdateVariables"(%v, %k) {device_var_reads_indices = [0], device_var_updates_indices = []} : (tensor<!tf_type.resource<tensor<f32>>>, tensor<3x!tf_type.string>) -> ()
  func.return
}
