// RUN: tinytf-opt %s -p dce | filecheck %s

// xDSL's dce on tf ops: unused pure ops go (also tf.Identity and tf.Const); variable reads and
// writes, stateful calls and unknown ops stay even when their results are unused.

// CHECK-LABEL: func.func @dce
// CHECK-NEXT:    "tf.ReadVariableOp"(%arg1)
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg1, %arg0)
// CHECK-NEXT:    "tf.StatefulPartitionedCall"(%arg0)
// CHECK-NEXT:    "tf.SomeUnknownOp"(%arg0)
// CHECK-NEXT:    return %arg0
func.func @dce(%x: tensor<2xf32>, %v: tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32> {
  %c = "tf.Const"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = "tf.AddV2"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.Relu"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "tf.Identity"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  %3 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  "tf.AssignVariableOp"(%v, %x) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  %4 = "tf.StatefulPartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @g}> : (tensor<2xf32>) -> tensor<2xf32>
  %5 = "tf.SomeUnknownOp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %x : tensor<2xf32>
}
func.func private @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}
