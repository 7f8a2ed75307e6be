// RUN: tinytf-opt %s --split-input-file --verify-diagnostics -p tf-executor-to-functional-conversion | filecheck %s

// Islands lift out in the graph's order; a control edge (^read before the assign) is kept as that
// order, and the island results become what their yields forwarded.

// CHECK-LABEL: func.func @counter
// CHECK-SAME:    (%[[V:.*]]: tensor<!tf_type.resource<tensor<f32>>>, %[[D:.*]]: tensor<f32>)
// CHECK-NEXT:    %[[OLD:.*]] = "tf.ReadVariableOp"(%[[V]])
// CHECK-NEXT:    "tf.AssignAddVariableOp"(%[[V]], %[[D]])
// CHECK-NEXT:    %[[NEW:.*]] = "tf.ReadVariableOp"(%[[V]])
// CHECK-NEXT:    %[[SUM:.*]] = "tf.AddV2"(%[[OLD]], %[[NEW]])
// CHECK-NEXT:    return %[[SUM]], %[[OLD]] : tensor<f32>, tensor<f32>
// CHECK-NOT:   tf_executor
func.func @counter(%v: tensor<!tf_type.resource<tensor<f32>>>, %d: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = tf_executor.graph {
    %old, %c0 = tf_executor.island wraps "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<f32>>>) -> tensor<f32>
    %c1 = tf_executor.island(%c0) wraps "tf.AssignAddVariableOp"(%v, %d) : (tensor<!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
    %new, %sum, %c2 = tf_executor.island(%c1) {
      %n = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<f32>>>) -> tensor<f32>
      %s = "tf.AddV2"(%old, %n) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      tf_executor.yield %n, %s : tensor<f32>, tensor<f32>
    }
    tf_executor.fetch %sum, %old, %c2 : tensor<f32>, tensor<f32>, !tf_executor.control
  }
  func.return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// -----

// An island that only forwards a value disappears; an empty graph too.

// CHECK-LABEL: func.func @forward
// CHECK-SAME:    (%[[X:.*]]: tensor<3xi32>)
// CHECK-NEXT:    return %[[X]] : tensor<3xi32>
func.func @forward(%x: tensor<3xi32>) -> tensor<3xi32> {
  %r = tf_executor.graph {
    %o, %c = tf_executor.island {
      tf_executor.yield %x : tensor<3xi32>
    }
    tf_executor.fetch %o : tensor<3xi32>
  }
  func.return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @nothing
// CHECK-NEXT:    return
func.func @nothing() {
  tf_executor.graph {
    tf_executor.fetch
  }
  func.return
}

// -----

// A graph nested in an island lifts first, then the outer one.

// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    %[[A:.*]] = "tf.Neg"(%arg0)
// CHECK-NEXT:    %[[B:.*]] = "tf.Abs"(%[[A]])
// CHECK-NEXT:    return %[[B]]
func.func @nested(%x: tensor<f32>) -> tensor<f32> {
  %r = tf_executor.graph {
    %o, %c = tf_executor.island {
      %inner = tf_executor.graph {
        %a, %ca = tf_executor.island wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
        tf_executor.fetch %a : tensor<f32>
      }
      %b = "tf.Abs"(%inner) : (tensor<f32>) -> tensor<f32>
      tf_executor.yield %b : tensor<f32>
    }
    tf_executor.fetch %o : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// -----

// TF1 control flow cannot be lifted: the error names the op and its line.

func.func @switch(%x: tensor<f32>, %p: tensor<i1>) -> tensor<f32> {
  %r = tf_executor.graph {
    // expected-error@+1 {{'tf_executor.Switch' op is not supported for lifting out of tf_executor.graph, expected tf_executor.island}}
    %t, %f, %c = tf_executor.Switch %x, %p : tensor<f32>
    tf_executor.fetch %t : tensor<f32>
  }
  func.return %r : tensor<f32>
}
