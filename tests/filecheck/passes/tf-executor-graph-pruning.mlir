// RUN: tinytf-opt %s --split-input-file -p tf-executor-graph-pruning | filecheck %s
// RUN: tinytf-opt %s --split-input-file -p 'tf-executor-graph-pruning{ops-to-preserve="tf.Print,tf.Assert"}' | filecheck %s --check-prefix=KEEP

// What the fetch reaches through data and control edges stays, in its order; the rest goes.

// CHECK-LABEL: func.func @reach
// CHECK:         %[[A:.*]], %[[CA:.*]] = tf_executor.island wraps "tf.Neg"(%arg0)
// CHECK-NEXT:    %[[B:.*]], %{{.*}} = tf_executor.island wraps "tf.Abs"(%[[A]])
// CHECK-NEXT:    %[[N:.*]] = tf_executor.island(%[[CA]]) wraps "tf.NoOp"()
// CHECK-NEXT:    tf_executor.fetch %[[B]], %[[N]]
// CHECK-NOT:     tf.Const
// CHECK-NOT:     tf.Exp
func.func @reach(%x: tensor<f32>) -> tensor<f32> {
  %r = tf_executor.graph {
    %a, %ca = tf_executor.island wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    %k, %ck = tf_executor.island wraps "tf.Const"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %e, %ce = tf_executor.island wraps "tf.Exp"(%k) : (tensor<f32>) -> tensor<f32>
    %b, %cb = tf_executor.island wraps "tf.Abs"(%a) : (tensor<f32>) -> tensor<f32>
    %n = tf_executor.island(%ca) wraps "tf.NoOp"() : () -> ()
    tf_executor.fetch %b, %n : tensor<f32>, !tf_executor.control
  }
  func.return %r : tensor<f32>
}

// -----

// A value an island's body uses from the graph keeps its producer; a NextIteration.Source keeps
// its Sink (and what the Sink takes).

// CHECK-LABEL: func.func @captured_and_loops
// CHECK:         tf_executor.island wraps "tf.Const"
// CHECK:         tf_executor.island {
// CHECK:         tf_executor.NextIteration.Source
// CHECK:         tf_executor.island wraps "tf.Neg"
// CHECK:         tf_executor.NextIteration.Sink
func.func @captured_and_loops() -> tensor<f32> {
  %r = tf_executor.graph {
    %k, %ck = tf_executor.island wraps "tf.Const"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    %o, %co = tf_executor.island {
      %s = "tf.Square"(%k) : (tensor<f32>) -> tensor<f32>
      tf_executor.yield %s : tensor<f32>
    }
    %src, %tok, %cs = tf_executor.NextIteration.Source : tensor<f32>
    %m, %i, %cm = tf_executor.Merge %o, %src : tensor<f32>
    %n, %cn = tf_executor.island wraps "tf.Neg"(%m) : (tensor<f32>) -> tensor<f32>
    tf_executor.NextIteration.Sink[%tok] %n : tensor<f32>
    tf_executor.fetch %m : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// -----

// @main without tf.entry_function is a TF1 graph imported without fetches: nothing is pruned.
// With tf.entry_function it is pruned like any other function.

// CHECK-LABEL: func.func @main
// CHECK:         "tf.Const"
func.func @main() {
  tf_executor.graph {
    %k, %ck = tf_executor.island wraps "tf.Const"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    tf_executor.fetch
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    tf_executor.graph {
// CHECK-NEXT:      tf_executor.fetch
func.func @main() attributes {tf.entry_function = {control_outputs = "", inputs = "", outputs = ""}} {
  tf_executor.graph {
    %k, %ck = tf_executor.island wraps "tf.Const"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    tf_executor.fetch
  }
  func.return
}

// -----

// An op TensorFlow marks MustExecute stays unreached; ops-to-preserve adds more such ops.

// CHECK-LABEL: func.func @preserve
// CHECK:         "tf.CheckNumerics"
// CHECK-NOT:     "tf.Print"
// KEEP-LABEL:  func.func @preserve
// KEEP:          "tf.CheckNumerics"
// KEEP:          "tf.Print"
// KEEP-NOT:      "tf.Exp"
func.func @preserve(%x: tensor<f32>) {
  tf_executor.graph {
    %c, %cc = tf_executor.island wraps "tf.CheckNumerics"(%x) {message = "bad"} : (tensor<f32>) -> tensor<f32>
    %p, %cp = tf_executor.island wraps "tf.Print"(%x) : (tensor<f32>) -> tensor<f32>
    %e, %ce = tf_executor.island wraps "tf.Exp"(%x) : (tensor<f32>) -> tensor<f32>
    tf_executor.fetch
  }
  func.return
}
