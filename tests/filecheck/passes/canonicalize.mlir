// RUN: tinytf-opt %s -p canonicalize | filecheck %s

// xDSL's canonicalize on tf ops: constant folding (tf ops hand it tinytf's folding pattern) and
// removal of dead pure ops; tf.Identity, variable ops, stateful calls and unknown ops are not
// folded, and the ones with effects are not removed.

// CHECK-LABEL: func.func @canonicalize
// CHECK-NEXT:    %[[C:.*]] = "tf.Const"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
// CHECK-NEXT:    %[[W:.*]] = "tf.Const"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
// CHECK-NEXT:    %[[I:.*]] = "tf.Identity"(%[[W]])
// CHECK-NEXT:    %[[N:.*]] = "tf.Mul"(%[[I]], %[[I]])
// CHECK-NEXT:    "tf.AssignVariableOp"(%v, %[[C]])
// CHECK-NEXT:    "tf.ReadVariableOp"(%v)
// CHECK-NEXT:    "tf.SomeUnknownOp"(%[[C]])
// CHECK-NEXT:    return %[[C]], %[[N]]
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
