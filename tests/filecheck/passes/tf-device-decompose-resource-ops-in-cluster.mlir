// RUN: tinytf-opt %s --split-input-file -p tf-device-decompose-resource-ops-in-cluster | filecheck %s

// Only inside tf_device.cluster: the update outside the cluster stays whole, the one inside becomes
// a read, a subtraction and an assign.

// CHECK-LABEL: func.func @inside_only
// CHECK-NEXT:    "tf.AssignAddVariableOp"(%arg0, %arg1)
// CHECK-NEXT:    "tf_device.cluster"() ({
// CHECK-NEXT:      %[[OLD:.*]] = "tf.ReadVariableOp"(%arg0)
// CHECK-NEXT:      %[[NEW:.*]] = "tf.Sub"(%[[OLD]], %arg1) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:      "tf.AssignVariableOp"(%arg0, %[[NEW]]) <{validate_shape = false}>
// CHECK-NEXT:      tf_device.return
func.func @inside_only(%v: tensor<!tf_type.resource<tensor<3xf32>>>, %d: tensor<f32>) {
  "tf.AssignAddVariableOp"(%v, %d) : (tensor<!tf_type.resource<tensor<3xf32>>>, tensor<f32>) -> ()
  "tf_device.cluster"() ({
    "tf.AssignSubVariableOp"(%v, %d) : (tensor<!tf_type.resource<tensor<3xf32>>>, tensor<f32>) -> ()
    tf_device.return
  }) : () -> ()
  func.return
}

// -----

// A function that an op in a cluster names is decomposed, and so is the function it names in turn;
// a function no cluster reaches is not.

// CHECK-LABEL: func.func @calls_from_a_cluster
// CHECK-LABEL: func.func private @step
// CHECK-NOT:     tf.ResourceApplyGradientDescent
// CHECK:         "tf.Mul"(%arg2, %arg1)
// CHECK-LABEL: func.func private @inner
// CHECK-NOT:     tf.AssignAddVariableOp
// CHECK:         "tf.AddV2"
// CHECK-LABEL: func.func @not_reached
// CHECK-NEXT:    "tf.AssignAddVariableOp"
func.func @calls_from_a_cluster(%v: tensor<!tf_type.resource<tensor<2xf32>>>, %a: tensor<f32>, %g: tensor<2xf32>) {
  "tf_device.cluster"() ({
    "tf.StatefulPartitionedCall"(%v, %a, %g) <{config = "", config_proto = "", executor_type = "", f = @step}> : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<f32>, tensor<2xf32>) -> ()
    tf_device.return
  }) : () -> ()
  func.return
}
func.func private @step(%v: tensor<!tf_type.resource<tensor<2xf32>>>, %a: tensor<f32>, %g: tensor<2xf32>) {
  "tf.ResourceApplyGradientDescent"(%v, %a, %g) : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<f32>, tensor<2xf32>) -> ()
  "tf.StatefulPartitionedCall"(%v, %g) <{config = "", config_proto = "", executor_type = "", f = @inner}> : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return
}
func.func private @inner(%v: tensor<!tf_type.resource<tensor<2xf32>>>, %g: tensor<2xf32>) {
  "tf.AssignAddVariableOp"(%v, %g) : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return
}
func.func @not_reached(%v: tensor<!tf_type.resource<tensor<2xf32>>>, %g: tensor<2xf32>) {
  "tf.AssignAddVariableOp"(%v, %g) : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return
}
