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

// A callee whose types differ from the call's is inlined with a tf.Cast on each side that differs,
// so the caller's uses keep their types.

// CHECK-LABEL: func.func @typed_users
// CHECK-NEXT:    %[[IN:.*]] = "tf.Cast"(%arg0) <{Truncate = false}> : (tensor<2xf32>) -> tensor<*xf32>
// CHECK-NEXT:    %[[R:.*]] = "tf.Relu"(%[[IN]]) : (tensor<*xf32>) -> tensor<*xf32>
// CHECK-NEXT:    %[[OUT:.*]] = "tf.Cast"(%[[R]]) <{Truncate = false}> : (tensor<*xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = "tf.Mul"(%[[OUT]], %[[OUT]]) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    return %[[M]] : tensor<2xf32>
// CHECK-NOT:     func.func
func.func @typed_users(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @unranked}> : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.Mul"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
func.func private @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.Relu"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// A callee marked tf._noinline stays a call, and stays in the module.

// CHECK-LABEL: func.func @keeps_noinline
// CHECK-NEXT:    %[[C:.*]] = "tf.StatefulPartitionedCall"(%arg0) {{.*}}f = @kept
// CHECK-NEXT:    return %[[C]]
// CHECK-LABEL: func.func private @kept
func.func @keeps_noinline(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.StatefulPartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @kept}> : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func private @kept(%a: tensor<2xf32>) -> tensor<2xf32> attributes {tf._noinline = true} {
  %0 = "tf.Exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// Two callers: a callee holding an unknown op with side effects would run it twice once copied, so
// both calls stay; a callee holding only known ops (a variable write included) is inlined at both.

// CHECK-LABEL: func.func @two_callers
// CHECK-NEXT:    "tf.PartitionedCall"() {{.*}}f = @unknown_effect
// CHECK-NEXT:    "tf.PartitionedCall"() {{.*}}f = @unknown_effect
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg0, %arg1)
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg0, %arg1)
// CHECK-NEXT:    return
// CHECK-LABEL: func.func private @unknown_effect
// CHECK-NOT:     @known_effect
func.func @two_callers(%v: tensor<!tf_type.resource<tensor<2xf32>>>, %x: tensor<2xf32>) {
  "tf.PartitionedCall"() <{config = "", config_proto = "", executor_type = "", f = @unknown_effect}> : () -> ()
  "tf.PartitionedCall"() <{config = "", config_proto = "", executor_type = "", f = @unknown_effect}> : () -> ()
  "tf.PartitionedCall"(%v, %x) <{config = "", config_proto = "", executor_type = "", f = @known_effect}> : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  "tf.PartitionedCall"(%v, %x) <{config = "", config_proto = "", executor_type = "", f = @known_effect}> : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return
}
func.func private @unknown_effect() {
  "tf.CustomWriter"() : () -> ()
  func.return
}
func.func private @known_effect(%v: tensor<!tf_type.resource<tensor<2xf32>>>, %x: tensor<2xf32>) {
  "tf.AssignVariableOp"(%v, %x) <{validate_shape = false}> : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return
}

// -----

// The call's device goes to the inlined ops that have none; an op's own device stays.

// CHECK-LABEL: func.func @carries_device
// CHECK-NEXT:    "tf.Neg"(%arg0) {device = "/device:CPU:0"}
// CHECK-NEXT:    "tf.Exp"(%{{.*}}) {device = "/device:GPU:0"}
func.func @carries_device(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @placed}> {device = "/device:CPU:0"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func private @placed(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.Exp"(%0) {device = "/device:GPU:0"} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}

// -----

// Inside an island a one-block callee is inlined; a callee of several blocks stays a call.

// CHECK-LABEL: func.func @into_an_island
// CHECK:         tf_executor.island {
// CHECK-NEXT:      %[[N:.*]] = "tf.Neg"(%arg0)
// CHECK-NEXT:      %[[C:.*]] = "tf.PartitionedCall"(%arg0) {{.*}}f = @branchy
// CHECK-NEXT:      tf_executor.yield %[[N]], %[[C]]
func.func @into_an_island(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tf_executor.graph {
    %1:3 = tf_executor.island {
      %2 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @straight}> : (tensor<2xf32>) -> tensor<2xf32>
      %3 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @branchy}> : (tensor<2xf32>) -> tensor<2xf32>
      tf_executor.yield %2, %3 : tensor<2xf32>, tensor<2xf32>
    }
    tf_executor.fetch %1#1 : tensor<2xf32>
  }
  func.return %0 : tensor<2xf32>
}
func.func private @straight(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func private @branchy(%a: tensor<2xf32>) -> tensor<2xf32> {
  cf.br ^bb1
^bb1:
  func.return %a : tensor<2xf32>
}
