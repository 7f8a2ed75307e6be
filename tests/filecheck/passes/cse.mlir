// RUN: tinytf-opt %s -p cse | filecheck %s

// xDSL's cse on tf ops: identical pure ops merge; variable reads (not Pure: a write may come
// between them), stateful calls and unknown ops never merge.

// CHECK-LABEL: func.func @cse
// CHECK-NEXT:    %[[A:.*]] = "tf.AddV2"(%arg0, %arg0)
// CHECK-NEXT:    %[[R0:.*]] = "tf.ReadVariableOp"(%arg1)
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg1, %[[A]])
// CHECK-NEXT:    %[[R1:.*]] = "tf.ReadVariableOp"(%arg1)
// CHECK-NEXT:    %[[S0:.*]] = "tf.StatefulPartitionedCall"(%arg0)
// CHECK-NEXT:    %[[S1:.*]] = "tf.StatefulPartitionedCall"(%arg0)
// CHECK-NEXT:    %[[U0:.*]] = "tf.SomeUnknownOp"(%arg0)
// CHECK-NEXT:    %[[U1:.*]] = "tf.SomeUnknownOp"(%arg0)
// CHECK-NEXT:    return %[[A]], %[[A]], %[[R0]], %[[R1]], %[[S0]], %[[S1]], %[[U0]], %[[U1]] :
func.func @cse(%x: tensor<2xf32>, %v: tensor<*x!tf_type.resource<tensor<2xf32>>>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = "tf.AddV2"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.AddV2"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  "tf.AssignVariableOp"(%v, %0) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  %3 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %4 = "tf.StatefulPartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @g}> : (tensor<2xf32>) -> tensor<2xf32>
  %5 = "tf.StatefulPartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @g}> : (tensor<2xf32>) -> tensor<2xf32>
  %6 = "tf.SomeUnknownOp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %7 = "tf.SomeUnknownOp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
func.func private @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}

// Ops alike but for the element type of their variant results (two empty TensorLists) stay apart.

// CHECK-LABEL: func.func @lists_of_other_element_types
// CHECK-NEXT:    %[[I:.*]] = "tf.EmptyTensorList"(%arg0, %arg1) : (tensor<0xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<i32>>>
// CHECK-NEXT:    %[[F:.*]] = "tf.EmptyTensorList"(%arg0, %arg1) : (tensor<0xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<f32>>>
// CHECK-NEXT:    return %[[I]], %[[F]] :
func.func @lists_of_other_element_types(%shape: tensor<0xi32>, %n: tensor<i32>) -> (tensor<!tf_type.variant<tensor<i32>>>, tensor<!tf_type.variant<tensor<f32>>>) {
  %0 = "tf.EmptyTensorList"(%shape, %n) : (tensor<0xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<i32>>>
  %1 = "tf.EmptyTensorList"(%shape, %n) : (tensor<0xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<f32>>>
  func.return %0, %1 : tensor<!tf_type.variant<tensor<i32>>>, tensor<!tf_type.variant<tensor<f32>>>
}
