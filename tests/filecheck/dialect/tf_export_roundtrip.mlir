// A function written exactly the way TensorFlow 2.x exports one: properties, {device = ""},
// tf.entry_function, resource arguments, tf._user_specified_name and a type alias.
// RUN: tinytf-opt %s | tinytf-opt | filecheck %s
// RUN: tinytf-opt %s --print-op-generic | tinytf-opt | filecheck %s

!tf_res = tensor<*x!tf_type.resource<tensor<3x2xf32>>>
module attributes {tf.versions = {bad_consumers = [], min_consumer = 0 : i32, producer = 1987 : i32}} {
  func.func @__inference_dense_42(%arg0: tensor<4x3xf32> {tf._user_specified_name = "x"}, %arg1: !tf_res {tf._user_specified_name = "resource"}, %arg2: tensor<*x!tf_type.resource> {tf._user_specified_name = "resource"}) -> tensor<4x?xf32> attributes {allow_soft_placement = false, tf.entry_function = {control_outputs = "", inputs = "x,kernel,bias", outputs = "identity_RetVal"}} {
    %cst = "tf.Const"() <{value = dense<[[1.000000e+00, -2.500000e-01]]> : tensor<1x2xf32>}> : () -> tensor<1x2xf32>
    %0 = "tf.ReadVariableOp"(%arg1) {device = ""} : (!tf_res) -> tensor<3x2xf32>
    %1 = "tf.ReadVariableOp"(%arg2) {device = ""} : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
    %2 = "tf.MatMul"(%arg0, %0) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> {device = ""} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x?xf32>
    %3 = "tf.BiasAdd"(%2, %1) <{data_format = "NHWC"}> {device = ""} : (tensor<4x?xf32>, tensor<*xf32>) -> tensor<4x?xf32>
    %4 = "tf.AddV2"(%3, %cst) {device = ""} : (tensor<4x?xf32>, tensor<1x2xf32>) -> tensor<4x?xf32>
    %5 = "tf.Relu"(%4) {device = ""} : (tensor<4x?xf32>) -> tensor<4x?xf32>
    %6 = "tf.Identity"(%5) {device = ""} : (tensor<4x?xf32>) -> tensor<4x?xf32>
    return %6 : tensor<4x?xf32>
  }
}

// CHECK:      attributes {tf.versions = {bad_consumers = [], min_consumer = 0 : i32, producer = 1987 : i32}}
// CHECK:      func.func @__inference_dense_42(%{{.*}}: tensor<4x3xf32> {tf._user_specified_name = "x"}, %{{.*}}: tensor<*x!tf_type.resource<tensor<3x2xf32>>> {tf._user_specified_name = "resource"}, %{{.*}}: tensor<*x!tf_type.resource> {tf._user_specified_name = "resource"}) -> tensor<4x?xf32>
// CHECK-SAME: tf.entry_function = {control_outputs = "", inputs = "x,kernel,bias", outputs = "identity_RetVal"}
// CHECK:      "tf.Const"() <{value = dense<{{\[\[}}1.000000e+00, -2.500000e-01]]> : tensor<1x2xf32>}> : () -> tensor<1x2xf32>
// CHECK:      "tf.ReadVariableOp"(%{{.*}}) {device = ""} : (tensor<*x!tf_type.resource<tensor<3x2xf32>>>) -> tensor<3x2xf32>
// CHECK:      "tf.MatMul"(%{{.*}}, %{{.*}}) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> {device = ""} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x?xf32>
// CHECK:      "tf.BiasAdd"(%{{.*}}, %{{.*}}) <{data_format = "NHWC"}> {device = ""}
// CHECK:      "tf.AddV2"
// CHECK:      "tf.Relu"
// CHECK:      "tf.Identity"
