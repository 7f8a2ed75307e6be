// RUN: tinytf-opt %s --split-input-file -p tf-device-decompose-resource-ops | filecheck %s
// (tf-device-decompose-resource-ops-in-cluster.mlir: the pass that works inside clusters only)

// An increment is a read, an add and an assign, inside a cluster or not.

// CHECK-LABEL: func.func @increment
// CHECK:         "tf.ReadVariableOp"(%arg0) : (tensor<!tf_type.resource<tensor<3xf32>>>) -> tensor<3xf32>
// CHECK-NEXT:    "tf.AddV2"
// CHECK-NEXT:    "tf.AssignVariableOp"
// CHECK:         "tf_device.cluster"() ({
// CHECK-NEXT:      %[[OLD:.*]] = "tf.ReadVariableOp"(%arg0)
// CHECK-NEXT:      %[[NEW:.*]] = "tf.Sub"(%[[OLD]], %arg1) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:      "tf.AssignVariableOp"(%arg0, %[[NEW]]) <{validate_shape = false}>
// CHECK-NEXT:      tf_device.return
func.func @increment(%v: tensor<!tf_type.resource<tensor<3xf32>>>, %d: tensor<f32>) {
  "tf.AssignAddVariableOp"(%v, %d) : (tensor<!tf_type.resource<tensor<3xf32>>>, tensor<f32>) -> ()
  "tf_device.cluster"() ({
    "tf.AssignSubVariableOp"(%v, %d) : (tensor<!tf_type.resource<tensor<3xf32>>>, tensor<f32>) -> ()
    tf_device.return
  }) : () -> ()
  func.return
}

// -----

// Adam in a cluster: the bias-corrected rate, both moments, then the variable; a resource without
// a subtype is read as an unranked tensor of the gradient's element type.

// CHECK-LABEL: func.func @adam
// CHECK:         %[[ONE:.*]] = "tf.Const"() <{value = dense<1.000000e+00> : tensor<f32>}>
// CHECK:         "tf.Sub"(%[[ONE]], %arg4)
// CHECK:         %[[M:.*]] = "tf.ReadVariableOp"(%arg1) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
// CHECK:         %[[V:.*]] = "tf.ReadVariableOp"(%arg2) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
// CHECK:         "tf.Square"(%arg9)
// CHECK:         %[[VAR:.*]] = "tf.ReadVariableOp"(%arg0)
// CHECK-NEXT:    %[[NEW:.*]] = "tf.Sub"(%[[VAR]],
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg0, %[[NEW]])
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg1,
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg2,
// CHECK-NOT:     tf.ResourceApplyAdam
func.func @adam(%var: tensor<*x!tf_type.resource>, %m: tensor<*x!tf_type.resource>, %v: tensor<*x!tf_type.resource>,
                %b1p: tensor<f32>, %b2p: tensor<f32>, %lr: tensor<f32>, %b1: tensor<f32>, %b2: tensor<f32>,
                %eps: tensor<f32>, %g: tensor<4xf32>) {
  "tf_device.cluster"() ({
    "tf.ResourceApplyAdam"(%var, %m, %v, %b1p, %b2p, %lr, %b1, %b2, %eps, %g) {use_nesterov = false} : (tensor<*x!tf_type.resource>, tensor<*x!tf_type.resource>, tensor<*x!tf_type.resource>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<4xf32>) -> ()
    tf_device.return
  }) : () -> ()
  func.return
}

// -----

// Left alone: the shape of a variable whose type is unknown, FTRL that multiplies linear by the rate,
// and Adagrad that does not update its accumulator (TensorFlow decomposes neither form).

// CHECK-LABEL: func.func @left_alone
// CHECK:         "tf.VariableShape"
// CHECK:         "tf.ResourceApplyFtrl"
// CHECK:         "tf.ResourceApplyAdagrad"
// CHECK-NOT:     "tf.ReadVariableOp"
func.func @left_alone(%r: tensor<!tf_type.resource>, %x: tensor<f32>, %g: tensor<4xf32>) -> tensor<2xi32> {
  %0 = "tf_device.cluster"() ({
    %1 = "tf.VariableShape"(%r) : (tensor<!tf_type.resource>) -> tensor<2xi32>
    "tf.ResourceApplyFtrl"(%r, %r, %r, %g, %x, %x, %x, %x) {multiply_linear_by_lr = true} : (tensor<!tf_type.resource>, tensor<!tf_type.resource>, tensor<!tf_type.resource>, tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> ()
    "tf.ResourceApplyAdagrad"(%r, %r, %x, %g) {update_slots = false} : (tensor<!tf_type.resource>, tensor<!tf_type.resource>, tensor<f32>, tensor<4xf32>) -> ()
    tf_device.return %1 : tensor<2xi32>
  }) : () -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
