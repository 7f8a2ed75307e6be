// RUN: tinytf-opt %s -p tf-functional-to-executor-conversion | filecheck %s
// RUN: tinytf-opt %s -p tf-functional-to-executor-conversion,tf-executor-to-functional-conversion | filecheck %s --check-prefix=BACK

// The body becomes one island of a graph; the return takes the graph's results.

// CHECK-LABEL: func.func @two_results
// CHECK-NEXT:    %[[G:.*]]:2 = tf_executor.graph {
// CHECK-NEXT:      %[[O:.*]]:2, %{{.*}} = tf_executor.island {
// CHECK-NEXT:        %[[A:.*]] = "tf.Mul"(%arg0, %arg0)
// CHECK-NEXT:        %[[B:.*]] = "tf.Sub"(%[[A]], %arg0)
// CHECK-NEXT:        tf_executor.yield %[[B]], %[[A]] : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tf_executor.fetch %[[O]]#0, %[[O]]#1 : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]#0, %[[G]]#1 : tensor<2xf32>, tensor<2xf32>
// BACK-LABEL:  func.func @two_results
// BACK-NEXT:     %[[A:.*]] = "tf.Mul"(%arg0, %arg0)
// BACK-NEXT:     %[[B:.*]] = "tf.Sub"(%[[A]], %arg0)
// BACK-NEXT:     return %[[B]], %[[A]]
func.func @two_results(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = "tf.Mul"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.Sub"(%0, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1, %0 : tensor<2xf32>, tensor<2xf32>
}

// A function without results fetches the island's control token.

// CHECK-LABEL: func.func @no_results
// CHECK-NEXT:    tf_executor.graph {
// CHECK-NEXT:      %[[C:.*]] = tf_executor.island {
// CHECK-NEXT:        "tf.AssignVariableOp"
// CHECK-NEXT:        tf_executor.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      tf_executor.fetch %[[C]] : !tf_executor.control
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @no_results(%v: tensor<!tf_type.resource<tensor<f32>>>, %x: tensor<f32>) {
  "tf.AssignVariableOp"(%v, %x) <{validate_shape = false}> : (tensor<!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  func.return
}

// A body that already is one graph is left alone; a graph followed by more ops is wrapped too.

// CHECK-LABEL: func.func @already
// CHECK-NEXT:    %[[G:.*]] = tf_executor.graph {
// CHECK-NEXT:      %[[O:.*]], %{{.*}} = tf_executor.island wraps "tf.Neg"(%arg0)
// CHECK-NEXT:      tf_executor.fetch %[[O]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[G]]
func.func @already(%x: tensor<f32>) -> tensor<f32> {
  %r = tf_executor.graph {
    %o, %c = tf_executor.island wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    tf_executor.fetch %o : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// CHECK-LABEL: func.func @graph_then_op
// CHECK-NEXT:    %[[G:.*]] = tf_executor.graph {
// CHECK-NEXT:      %[[O:.*]], %{{.*}} = tf_executor.island {
// CHECK-NEXT:        %[[INNER:.*]] = tf_executor.graph {
// CHECK:             "tf.Abs"(%[[INNER]])
func.func @graph_then_op(%x: tensor<f32>) -> tensor<f32> {
  %r = tf_executor.graph {
    %o, %c = tf_executor.island wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    tf_executor.fetch %o : tensor<f32>
  }
  %a = "tf.Abs"(%r) : (tensor<f32>) -> tensor<f32>
  func.return %a : tensor<f32>
}

// A declaration has no body to wrap.

// CHECK-LABEL: func.func private @external
// CHECK-NOT:   tf_executor
func.func private @external(tensor<f32>) -> tensor<f32>
