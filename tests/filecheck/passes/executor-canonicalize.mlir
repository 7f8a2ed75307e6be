// RUN: tinytf-opt %s --split-input-file -p canonicalize | filecheck %s

// The tf_executor patterns of `canonicalize` (tinytf/passes/executor_canonicalize.py).

// A graph of one island becomes the island's ops; the function returns what the island yielded
// and what the fetch took from outside it.

// CHECK-LABEL: func.func @one_island
// CHECK-NEXT:    %[[A:.*]] = "tf.Log"(%arg0)
// CHECK-NEXT:    %[[B:.*]] = "tf.Sqrt"(%[[A]])
// CHECK-NEXT:    return %[[B]], %arg1, %[[A]] : tensor<f32>, tensor<f32>, tensor<f32>
func.func @one_island(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %r:3 = tf_executor.graph {
    %o:2, %c = tf_executor.island {
      %a = "tf.Log"(%x) : (tensor<f32>) -> tensor<f32>
      %b = "tf.Sqrt"(%a) : (tensor<f32>) -> tensor<f32>
      tf_executor.yield %a, %b : tensor<f32>, tensor<f32>
    }
    tf_executor.fetch %o#1, %y, %o#0, %c : tensor<f32>, tensor<f32>, tensor<f32>, !tf_executor.control
  }
  func.return %r#0, %r#1, %r#2 : tensor<f32>, tensor<f32>, tensor<f32>
}

// A graph holding only its fetch forwards what it fetches.

// CHECK-LABEL: func.func @only_fetch
// CHECK-NEXT:    return %arg1, %arg0
func.func @only_fetch(%x: tensor<i32>, %y: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %r:2 = tf_executor.graph {
    tf_executor.fetch %y, %x : tensor<i32>, tensor<i32>
  }
  func.return %r#0, %r#1 : tensor<i32>, tensor<i32>
}

// -----

// Empty islands: without inputs and data results they go with every use of their token; with one
// data result and an unused token they forward it; with one control input and nothing else they
// stand for that input. A ControlTrigger without inputs goes with its uses too. Two islands stay,
// so the graph stays.

// CHECK-LABEL: func.func @empties
// CHECK:         %[[N:.*]], %[[NC:.*]] = tf_executor.island wraps "tf.Neg"(%arg0)
// CHECK-NEXT:    %[[A:.*]], %[[AC:.*]] = tf_executor.island(%[[NC]]) wraps "tf.Abs"(%arg0)
// CHECK-NEXT:    %{{.*}}, %{{.*}} = tf_executor.island(%[[NC]]) wraps "tf.Exp"(%arg0)
// CHECK-NEXT:    tf_executor.fetch %[[N]], %arg0, %[[A]], %[[AC]] :
// CHECK-NOT:     ControlTrigger
func.func @empties(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %r:3 = tf_executor.graph {
    %e0 = tf_executor.island {
      tf_executor.yield
    }
    %fw, %e1 = tf_executor.island {
      tf_executor.yield %x : tensor<f32>
    }
    %t = tf_executor.ControlTrigger {}
    %n, %nc = tf_executor.island(%e0, %t) wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    %e2 = tf_executor.island(%nc) {
      tf_executor.yield
    }
    %a, %ac = tf_executor.island(%e2) wraps "tf.Abs"(%x) : (tensor<f32>) -> tensor<f32>
    %b, %bc = tf_executor.island(%e2) wraps "tf.Exp"(%x) : (tensor<f32>) -> tensor<f32>
    tf_executor.fetch %n, %fw, %a, %ac, %e0 : tensor<f32>, tensor<f32>, tensor<f32>, !tf_executor.control, !tf_executor.control
  }
  func.return %r#0, %r#1, %r#2 : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Negative cases: an empty island whose token is used keeps its data result; a ControlTrigger
// with inputs stays; a graph of an island and a Switch stays.

// CHECK-LABEL: func.func @kept
// CHECK:         %[[FW:.*]], %[[FC:.*]] = tf_executor.island {
// CHECK-NEXT:      tf_executor.yield %arg0
// CHECK:         %[[T:.*]] = tf_executor.ControlTrigger %[[FC]]
// CHECK:         tf_executor.Switch
// CHECK:         tf_executor.fetch
func.func @kept(%x: tensor<f32>, %p: tensor<i1>) -> tensor<f32> {
  %r = tf_executor.graph {
    %fw, %fc = tf_executor.island {
      tf_executor.yield %x : tensor<f32>
    }
    %t = tf_executor.ControlTrigger %fc
    %f, %tr, %sc = tf_executor.Switch %fw, %p, %t : (tensor<f32>, tensor<i1>, !tf_executor.control) -> (tensor<f32>, tensor<f32>, !tf_executor.control)
    tf_executor.fetch %f : tensor<f32>
  }
  func.return %r : tensor<f32>
}
