// RUN: tinytf-opt %s --split-input-file -p tf-executor-island-coarsening | filecheck %s

// A chain of islands, and islands that only meet at the fetch, become one island: the ops keep
// the graph's order, the merged island yields what the fetch takes, control edges inside the
// group vanish.

// CHECK-LABEL: func.func @chain
// CHECK:         tf_executor.graph {
// CHECK-NEXT:      %[[OUT:.*]]:2, %[[CTL:.*]] = tf_executor.island {
// CHECK-NEXT:        %[[A:.*]] = "tf.Neg"(%arg0)
// CHECK-NEXT:        %[[B:.*]] = "tf.Abs"(%[[A]])
// CHECK-NEXT:        %[[C:.*]] = "tf.Exp"(%arg0)
// CHECK-NEXT:        tf_executor.yield %[[B]], %[[C]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      tf_executor.fetch %[[OUT]]#0, %[[OUT]]#1 : tensor<f32>, tensor<f32>
// CHECK-NOT:     tf_executor.island
func.func @chain(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = tf_executor.graph {
    %a, %ca = tf_executor.island wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    %b, %cb = tf_executor.island(%ca) wraps "tf.Abs"(%a) : (tensor<f32>) -> tensor<f32>
    %c, %cc = tf_executor.island wraps "tf.Exp"(%x) : (tensor<f32>) -> tensor<f32>
    tf_executor.fetch %b, %c : tensor<f32>, tensor<f32>
  }
  func.return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

// -----

// A control-only fetch: the merged island's token is what the fetch waits for.

// CHECK-LABEL: func.func @side_effects
// CHECK:         %[[CTL:.*]] = tf_executor.island {
// CHECK-NEXT:      "tf.AssignVariableOp"(%arg0, %arg1)
// CHECK-NEXT:      "tf.AssignAddVariableOp"(%arg0, %arg1)
// CHECK-NEXT:      tf_executor.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tf_executor.fetch %[[CTL]] : !tf_executor.control
func.func @side_effects(%v: tensor<!tf_type.resource<tensor<f32>>>, %x: tensor<f32>) {
  tf_executor.graph {
    %c0 = tf_executor.island wraps "tf.AssignVariableOp"(%v, %x) <{validate_shape = false}> : (tensor<!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
    %c1 = tf_executor.island(%c0) wraps "tf.AssignAddVariableOp"(%v, %x) : (tensor<!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
    tf_executor.fetch %c1 : !tf_executor.control
  }
  func.return
}

// -----

// TF1 control flow between islands keeps them apart: the Switch's operands come from one island,
// its results feed another, and the Merge stays outside both.

// CHECK-LABEL: func.func @cond
// CHECK:         %[[P:.*]], %{{.*}} = tf_executor.island wraps "tf.Less"(%arg0, %arg1)
// CHECK-NEXT:    %[[F:.*]], %[[T:.*]], %{{.*}} = tf_executor.Switch %arg0, %[[P]]
// CHECK-NEXT:    %[[NEG:.*]], %{{.*}} = tf_executor.island wraps "tf.Neg"(%[[T]])
// CHECK-NEXT:    %[[M:.*]], %{{.*}}, %{{.*}} = tf_executor.Merge %[[F]], %[[NEG]]
// CHECK-NEXT:    %[[OUT:.*]], %{{.*}} = tf_executor.island {
// CHECK-NEXT:      tf_executor.yield %[[M]] : tensor<f32>
func.func @cond(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %r = tf_executor.graph {
    %p, %cp = tf_executor.island wraps "tf.Less"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %f, %t, %cs = tf_executor.Switch %x, %p : tensor<f32>
    %n, %cn = tf_executor.island wraps "tf.Neg"(%t) : (tensor<f32>) -> tensor<f32>
    %m, %i, %cm = tf_executor.Merge %f, %n : tensor<f32>
    tf_executor.fetch %m : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// -----

// Results used only inside the merged island are no longer yielded; the one used by a later
// non-island op still is.

// CHECK-LABEL: func.func @partly_inside
// CHECK:         %[[OUT:.*]]:2, %{{.*}} = tf_executor.island {
// CHECK-NEXT:      %[[A:.*]] = "tf.Neg"(%arg0)
// CHECK-NEXT:      %[[B:.*]] = "tf.Less"(%[[A]], %arg0)
// CHECK-NEXT:      tf_executor.yield %[[A]], %[[B]] : tensor<f32>, tensor<i1>
// CHECK:         tf_executor.Switch %[[OUT]]#0, %[[OUT]]#1
func.func @partly_inside(%x: tensor<f32>) -> tensor<f32> {
  %r = tf_executor.graph {
    %a, %ca = tf_executor.island wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    %b, %cb = tf_executor.island wraps "tf.Less"(%a, %x) : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %f, %t, %cs = tf_executor.Switch %a, %b : tensor<f32>
    %m, %i, %cm = tf_executor.Merge %f, %t : tensor<f32>
    tf_executor.fetch %m : tensor<f32>
  }
  func.return %r : tensor<f32>
}
