// RUN: tinytf-opt %s --split-input-file -p tf-inline | filecheck %s

// Calls of private functions are inlined, nested calls too (PartitionedCall and
// StatefulPartitionedCall); the functions left without callers are dropped.

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[SQ:.*]] = "tf.Mul"(%arg0, %arg0)
// CHECK-NEXT:    %[[SUM:.*]] = "tf.AddV2"(%[[SQ]], %arg0)
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg1, %[[SUM]])
// CHECK-NEXT:    return %[[SUM]]
// CHECK-NOT:     func.func
func.func @main(%x: tensor<2xf32>, %v: tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @outer}> : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.StatefulPartitionedCall"(%v, %0) <{config = "", config_proto = "", executor_type = "", f = @update}> : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
func.func private @outer(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.PartitionedCall"(%a) <{config = "", config_proto = "", executor_type = "", f = @square}> : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.AddV2"(%0, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
func.func private @square(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Mul"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func private @update(%r: tensor<*x!tf_type.resource<tensor<2xf32>>>, %d: tensor<2xf32>) -> tensor<2xf32> {
  "tf.AssignVariableOp"(%r, %d) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return %d : tensor<2xf32>
}

// -----

// Not inlined: a public callee (kept, it may be called from outside), a self-recursive function
// (kept while something else calls it). A private function that only calls itself is dropped.

// CHECK-LABEL: func.func @not_inlined
// CHECK-NEXT:    "tf.PartitionedCall"(%arg0) {{.*}}f = @public_fn
// CHECK-NEXT:    "tf.PartitionedCall"(%arg0) {{.*}}f = @recursive
// CHECK-LABEL: func.func @public_fn
// CHECK-LABEL: func.func private @recursive
// CHECK-NEXT:    "tf.PartitionedCall"(%{{.*}}) {{.*}}f = @recursive
// CHECK-NOT:     @orphan
func.func @not_inlined(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @public_fn}> : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @recursive}> : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
func.func @public_fn(%a: tensor<2xf32>) -> tensor<2xf32> {
  func.return %a : tensor<2xf32>
}
func.func private @recursive(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.PartitionedCall"(%a) <{config = "", config_proto = "", executor_type = "", f = @recursive}> : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func private @orphan(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.PartitionedCall"(%a) <{config = "", config_proto = "", executor_type = "", f = @orphan}> : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// A callee whose result type differs from the call's is not inlined when a func.return uses the
// result (the caller's signature would no longer match); tf ops take the refined type.

// CHECK-LABEL: func.func @typed_users
// CHECK-NEXT:    %[[C:.*]] = "tf.PartitionedCall"(%arg0) {{.*}}f = @refined
// CHECK-NEXT:    %[[R:.*]] = "tf.Relu"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %{{.*}} = "tf.Mul"(%[[R]], %[[R]]) : (tensor<2xf32>, tensor<2xf32>) -> tensor<*xf32>
// CHECK-NEXT:    return %[[C]]
// CHECK-LABEL: func.func private @refined
func.func @typed_users(%x: tensor<2xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @refined}> : (tensor<2xf32>) -> tensor<*xf32>
  %1 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @refined}> : (tensor<2xf32>) -> tensor<*xf32>
  %2 = "tf.Mul"(%1, %1) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %0, %2 : tensor<*xf32>, tensor<*xf32>
}
func.func private @refined(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
