// RUN: tinytf-opt %s -p canonicalize | filecheck %s

// tinytf-opt's canonicalize on tf ops, as tf-opt's: constant folding, removal of unused ops without
// side effects, and MLIR's constant uniquing. tf.Identity, variable ops, stateful calls and unknown
// ops are not folded, and the ones with effects are not removed.
// - The two dense<[1, 2]> constants become one (MLIR's OperationFolder uniques constants per
//   value and type), kept at the front; the folded dense<[2, 3]> is made where tf.AddV2 was, so it
//   follows it.
// - An unused tf.ReadVariableOp is removed: its only effect is a read (TensorFlow declares its
//   operand TF_VariableRead), and MLIR's isOpTriviallyDead drops ops that only read.

// CHECK-LABEL: func.func @canonicalize
// CHECK-NEXT:    %[[W:.*]] = "tf.Const"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
// CHECK-NEXT:    %[[C:.*]] = "tf.Const"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
// CHECK-NEXT:    %[[I:.*]] = "tf.Identity"(%[[W]])
// CHECK-NEXT:    %[[N:.*]] = "tf.Mul"(%[[I]], %[[I]])
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg0, %[[C]])
// CHECK-NEXT:    "tf.SomeUnknownOp"(%[[C]])
// CHECK-NEXT:    return %[[C]], %[[N]]
// CHECK-NOT:     "tf.ReadVariableOp"
func.func @canonicalize(%v: tensor<*x!tf_type.resource<tensor<2xi32>>>) -> (tensor<2xi32>, tensor<2xi32>) {
  %a = "tf.Const"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %b = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %0 = "tf.AddV2"(%a, %b) : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  %1 = "tf.Relu"(%0) : (tensor<2xi32>) -> tensor<2xi32>
  %dead = "tf.Mul"(%1, %1) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %w = "tf.Const"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %2 = "tf.Identity"(%w) : (tensor<2xi32>) -> tensor<2xi32>
  %3 = "tf.Mul"(%2, %2) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  "tf.AssignVariableOp"(%v, %1) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<2xi32>>>, tensor<2xi32>) -> ()
  %4 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<2xi32>>>) -> tensor<2xi32>
  %5 = "tf.SomeUnknownOp"(%1) : (tensor<2xi32>) -> tensor<2xi32>
  func.return %1, %3 : tensor<2xi32>, tensor<2xi32>
}

// TensorFlow's patterns: a TensorListGetItem of a list only read by GetItems is a gather, written
// as tf.GatherV2 (TensorFlow's tf.Gather becomes tf.GatherV2 in the same run; tinytf never
// leaves a tf.Gather), with the device carried over; a list with another user is left alone.

// CHECK-LABEL: func.func @list_get_item
// CHECK-NEXT:    %[[AXIS:.*]] = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
// CHECK-NEXT:    %[[G:.*]] = "tf.GatherV2"(%arg0, %arg2, %[[AXIS]]) <{batch_dims = 0 : i64}> {device = "/device:CPU:0"} : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<3xf32>
// CHECK-NEXT:    return %[[G]]
// CHECK-NOT:     "tf.Gather"(
func.func @list_get_item(%x: tensor<5x3xf32>, %s: tensor<1xi32>, %i: tensor<i32>) -> tensor<3xf32> {
  %l = "tf.TensorListFromTensor"(%x, %s) : (tensor<5x3xf32>, tensor<1xi32>) -> tensor<!tf_type.variant<tensor<3xf32>>>
  %y = "tf.TensorListGetItem"(%l, %i, %s) <{}> {device = "/device:CPU:0"} : (tensor<!tf_type.variant<tensor<3xf32>>>, tensor<i32>, tensor<1xi32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// CHECK-LABEL: func.func @list_with_other_users
// CHECK:         "tf.TensorListGetItem"
// CHECK:         "tf.TensorListLength"
func.func @list_with_other_users(%x: tensor<5x3xf32>, %s: tensor<1xi32>, %i: tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
  %l = "tf.TensorListFromTensor"(%x, %s) : (tensor<5x3xf32>, tensor<1xi32>) -> tensor<!tf_type.variant<tensor<3xf32>>>
  %y = "tf.TensorListGetItem"(%l, %i, %s) : (tensor<!tf_type.variant<tensor<3xf32>>>, tensor<i32>, tensor<1xi32>) -> tensor<3xf32>
  %n = "tf.TensorListLength"(%l) : (tensor<!tf_type.variant<tensor<3xf32>>>) -> tensor<i32>
  func.return %y, %n : tensor<3xf32>, tensor<i32>
}

// TensorFlow's IdentityArithmeticOpFolder: x - 0 and x * 1 are x when no broadcast is hidden; a
// zero that broadcasts x to a larger result stays.

// CHECK-LABEL: func.func @identity_arithmetic
// CHECK:         %[[B:.*]] = "tf.Sub"(%arg1, %{{.*}}) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %arg0, %arg0, %[[B]]
func.func @identity_arithmetic(%x: tensor<2x3xi32>, %y: tensor<3xf32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xf32>) {
  %zero = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %one = "tf.Const"() <{value = dense<1> : tensor<2x3xi32>}> : () -> tensor<2x3xi32>
  %zeros = "tf.Const"() <{value = dense<0.0> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %0 = "tf.Sub"(%x, %zero) : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  %1 = "tf.Mul"(%one, %x) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %2 = "tf.Sub"(%y, %zeros) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2 : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xf32>
}
