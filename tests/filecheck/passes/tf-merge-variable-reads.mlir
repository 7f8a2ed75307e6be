// RUN: tinytf-opt %s --split-input-file -p tf-merge-variable-reads | filecheck %s

// A second read of a resource, with nothing that may write it in between, becomes the first read.

// CHECK-LABEL: func.func @twice
// CHECK-NEXT:    %[[R:.*]] = "tf.ReadVariableOp"(%arg1)
// CHECK-NEXT:    %[[M:.*]] = "tf.Mul"(%[[R]], %arg0)
// CHECK-NEXT:    %[[A:.*]] = "tf.AddV2"(%[[M]], %[[R]])
// CHECK-NEXT:    return %[[A]]
func.func @twice(%x: tensor<2xf32>, %v: tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32> {
  %0 = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %1 = "tf.Mul"(%0, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %3 = "tf.AddV2"(%1, %2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %3 : tensor<2xf32>
}

// -----

// A write (an update, or a call or tf.If given a resource) ends what is known about every resource
// (two arguments may name one variable): the next reads stay.

// CHECK-LABEL: func.func @writes
// CHECK-NEXT:    %[[R0:.*]] = "tf.ReadVariableOp"(%arg1)
// CHECK-NEXT:    %[[W0:.*]] = "tf.ReadVariableOp"(%arg2)
// CHECK-NEXT:    "tf.AssignSubVariableOp"(%arg1, %[[R0]])
// CHECK-NEXT:    %[[R1:.*]] = "tf.ReadVariableOp"(%arg1)
// CHECK-NEXT:    %[[I:.*]] = "tf.If"(%arg0, %arg1)
// CHECK-NEXT:    %[[R2:.*]] = "tf.ReadVariableOp"(%arg1)
// CHECK-NEXT:    %[[W1:.*]] = "tf.ReadVariableOp"(%arg2)
// CHECK-NEXT:    %[[S:.*]] = "tf.AddV2"(%[[R1]], %[[R2]])
// CHECK-NEXT:    %[[T:.*]] = "tf.AddV2"(%[[S]], %[[W1]])
// CHECK-NEXT:    return %[[T]]
func.func @writes(%p: tensor<i1>, %v: tensor<!tf_type.resource<tensor<2xf32>>>, %w: tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32> {
  %0 = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %w0 = "tf.ReadVariableOp"(%w) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  "tf.AssignSubVariableOp"(%v, %0) : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  %1 = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %2 = "tf.If"(%p, %v) <{else_branch = @keep, is_stateless = false, then_branch = @bump}> : (tensor<i1>, tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<f32>
  %3 = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %w1 = "tf.ReadVariableOp"(%w) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %4 = "tf.AddV2"(%1, %3) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %5 = "tf.AddV2"(%4, %w1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %5 : tensor<2xf32>
}
func.func private @bump(%r: tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<f32> {
  %c = "tf.Const"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  "tf.AssignAddVariableOp"(%r, %c) : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  %z = "tf.Const"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  func.return %z : tensor<f32>
}
func.func private @keep(%r: tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<f32> {
  %z = "tf.Const"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  func.return %z : tensor<f32>
}

// -----

// Two handles may name one variable: reads of a tf.VarHandleOp result are left alone.

// CHECK-LABEL: func.func @handles
// CHECK:         %[[H:.*]] = "tf.VarHandleOp"
// CHECK-COUNT-2: "tf.ReadVariableOp"(%[[H]])
func.func @handles() -> tensor<2xf32> {
  %h = "tf.VarHandleOp"() <{container = "", shared_name = "v"}> : () -> tensor<!tf_type.resource<tensor<2xf32>>>
  %g = "tf.VarHandleOp"() <{container = "", shared_name = "v"}> : () -> tensor<!tf_type.resource<tensor<2xf32>>>
  %0 = "tf.ReadVariableOp"(%h) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  "tf.AssignAddVariableOp"(%g, %0) : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  %1 = "tf.ReadVariableOp"(%h) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
