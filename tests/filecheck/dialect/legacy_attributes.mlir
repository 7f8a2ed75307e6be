// Older TensorFlow text gives inherent attributes in the attribute dictionary; they become
// properties, so old and new text print the same TF 2.x form.
// RUN: tinytf-opt %s | filecheck %s

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = "tf.MatMul"(%a, %b) {device = "", transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "tf.Cast"(%0) {Truncate = false, device = "/job:localhost"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %1 : tensor<2x4xf32>
}

// CHECK: "tf.MatMul"(%{{.*}}, %{{.*}}) <{transpose_a = false, transpose_b = false}> {device = ""}
// CHECK: "tf.Cast"(%{{.*}}) <{Truncate = false}> {device = "/job:localhost"}
