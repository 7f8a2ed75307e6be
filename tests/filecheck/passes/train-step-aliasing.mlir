// RUN: tinytf-opt %s -p tf-device-cluster-function-body,tf-device-cluster-outlining,tf-device-mark-input-output-aliases | filecheck %s
// RUN: tinytf-opt %S/../../conformance/fixtures/train_step.mlir -p tf-device-cluster-function-body,tf-device-cluster-outlining,tf-device-mark-input-output-aliases | filecheck %s --check-prefix=FIXTURE

// The bridge pipeline on a training step (read weights, compute, assign weights): the weights'
// callee arguments alias the outputs that are assigned back; the input %x aliases nothing.

// CHECK-LABEL: func.func @train_step
// CHECK-NEXT:    %[[W:.*]] = "tf.ReadVariableOp"(%arg1)
// CHECK-NEXT:    %[[B:.*]] = "tf.ReadVariableOp"(%arg2)
// CHECK-NEXT:    %[[O:[^:]+]]:3 = "tf_device.cluster_func"(%arg0, %[[W]], %[[B]]) <{func = @_func}>
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg1, %[[O]]#1)
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg2, %[[O]]#2)
// CHECK-NEXT:    return %[[O]]#0
// CHECK-LABEL: func.func private @_func
// CHECK-SAME:    (%{{[^:]*}}: tensor<4x3xf32>, %{{[^:]*}}: tensor<3x2xf32> {tf.aliasing_output = 1 : i64}, %{{[^:]*}}: tensor<2xf32> {tf.aliasing_output = 2 : i64})
func.func @train_step(%x: tensor<4x3xf32>, %w: tensor<*x!tf_type.resource<tensor<3x2xf32>>>, %b: tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<4x2xf32> {
  %lr = "tf.Const"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %0 = "tf.ReadVariableOp"(%w) : (tensor<*x!tf_type.resource<tensor<3x2xf32>>>) -> tensor<3x2xf32>
  %1 = "tf.ReadVariableOp"(%b) : (tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %2 = "tf.MatMul"(%x, %0) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %3 = "tf.BiasAdd"(%2, %1) <{data_format = "NHWC"}> : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %4 = "tf.Relu"(%3) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %5 = "tf.MatMul"(%x, %4) <{grad_a = false, grad_b = true, transpose_a = true, transpose_b = false}> : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %6 = "tf.Mul"(%5, %lr) : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %7 = "tf.Sub"(%0, %6) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  "tf.AssignVariableOp"(%w, %7) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<3x2xf32>>>, tensor<3x2xf32>) -> ()
  %8 = "tf.Mul"(%1, %lr) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %9 = "tf.Sub"(%1, %8) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "tf.AssignVariableOp"(%b, %9) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return %4 : tensor<4x2xf32>
}

// TensorFlow's own export (tf.AssignSubVariableOp updates): after decomposition both weights
// (arguments 1 and 2 of the callee) alias the outputs assigned back to them.

// FIXTURE:       %[[R3:.*]] = "tf.ReadVariableOp"(%arg3)
// FIXTURE-NEXT:  %[[R2:.*]] = "tf.ReadVariableOp"(%arg2)
// FIXTURE-NEXT:  %[[O:[^:]+]]:3 = "tf_device.cluster_func"(%arg0, %[[R2]], %[[R3]], %arg1) <{func = @_func}>
// FIXTURE-NEXT:  "tf.AssignVariableOp"(%arg2, %[[O]]#0)
// FIXTURE-NEXT:  "tf.AssignVariableOp"(%arg3, %[[O]]#1)
// FIXTURE-NEXT:  return %[[O]]#2
// FIXTURE-NOT:   tf.AssignSubVariableOp
// FIXTURE-LABEL: func.func private @_func
// FIXTURE-SAME:    (%{{[^:]*}}: tensor<4x8xf32>, %{{[^:]*}}: tensor<*xf32> {tf.aliasing_output = 0 : i64}, %{{[^:]*}}: tensor<*xf32> {tf.aliasing_output = 1 : i64}, %{{[^:]*}}: tensor<4x3xf32>)
