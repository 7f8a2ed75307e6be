// Invalid IR is reported with its location and the op's name; the driver does not crash.
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

func.func @wrong_operand_count(%x: tensor<f32>) {
  %0 = "tf.AddV2"(%x) : (tensor<f32>) -> tensor<f32>
  func.return
}
// CHECK: invalid.mlir:5:3: 'tf.AddV2' op Expected 2 operands, but got 1

// -----

func.func @wrong_attribute_type(%a: tensor<2x2xf32>) {
  %0 = "tf.MatMul"(%a, %a) <{transpose_a = "yes"}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}
// CHECK: invalid.mlir:13:3: 'tf.MatMul' op tf.MatMul attribute 'transpose_a': expected a bool attribute, got "yes"

// -----

func.func @missing_required_attribute() {
  %0 = "tf.Const"() : () -> tensor<f32>
  func.return
}
// CHECK: invalid.mlir:21:3: 'tf.Const' op tf.Const: missing attribute 'value'

// -----

func.func @undeclared_property(%x: tensor<f32>) {
  %0 = "tf.Relu"(%x) <{not_a_relu_property = 1 : i64}> : (tensor<f32>) -> tensor<f32>
  func.return
}
// CHECK: invalid.mlir:29:3: 'tf.Relu' op property 'not_a_relu_property' is not defined by the operation 'tf.Relu'

// -----

func.func @parse_error() {
  %0 = "tf.Const"() <{value = dense<[1.0, 2.0> : tensor<2xf32>}> : () -> tensor<2xf32>
}
// CHECK: invalid.mlir:37:46: ']' expected
