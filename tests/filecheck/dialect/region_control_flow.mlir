// Region control flow (tf.IfRegion, tf.WhileRegion, tf.CaseRegion, tf.Yield): valid forms print back with
// their inherent attributes as properties (region_control_flow_invalid.mlir: TensorFlow's verifier messages).
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @clamp_or_negate
// CHECK: "tf.IfRegion"(%arg0) <{is_stateless = true}> ({
// CHECK: "tf.Yield"(%{{.*}}) : (tensor<3xf32>) -> ()
// CHECK: }, {
// CHECK: }) : (tensor<i1>) -> tensor<3xf32>
func.func @clamp_or_negate(%p: tensor<i1>, %v: tensor<3xf32>) -> tensor<3xf32> {
  %r = "tf.IfRegion"(%p) ({
    %a = "tf.Relu"(%v) : (tensor<3xf32>) -> tensor<3xf32>
    "tf.Yield"(%a) : (tensor<3xf32>) -> ()
  }, {
    %b = "tf.Neg"(%v) : (tensor<3xf32>) -> tensor<3xf32>
    "tf.Yield"(%b) : (tensor<3xf32>) -> ()
  }) {is_stateless = true} : (tensor<i1>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

// A branch may yield a value of unknown shape for a ranked result: cast compatible.
// CHECK-LABEL: func.func @countdown
// CHECK: "tf.WhileRegion"(%arg0, %arg1) <{is_stateless = false, parallel_iterations = 4 : i64}> ({
// CHECK: ^bb0(%{{.*}}: tensor<i32>, %{{.*}}: tensor<*xf32>):
func.func @countdown(%n: tensor<i32>, %acc: tensor<*xf32>) -> (tensor<i32>, tensor<*xf32>) {
  %out:2 = "tf.WhileRegion"(%n, %acc) ({
  ^bb0(%i: tensor<i32>, %s: tensor<*xf32>):
    %zero = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %more = "tf.Greater"(%i, %zero) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%more, %i, %s) : (tensor<i1>, tensor<i32>, tensor<*xf32>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %s: tensor<*xf32>):
    %one = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %next = "tf.Sub"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %twice = "tf.AddV2"(%s, %s) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
    "tf.Yield"(%next, %twice) : (tensor<i32>, tensor<*xf32>) -> ()
  }) {is_stateless = false, parallel_iterations = 4 : i64} : (tensor<i32>, tensor<*xf32>) -> (tensor<i32>, tensor<*xf32>)
  func.return %out#0, %out#1 : tensor<i32>, tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @pick
// CHECK: "tf.CaseRegion"(%arg0) <{is_stateless = true}> ({
func.func @pick(%k: tensor<i32>, %v: tensor<2xf32>) -> tensor<2xf32> {
  %r = "tf.CaseRegion"(%k) ({
    "tf.Yield"(%v) : (tensor<2xf32>) -> ()
  }, {
    %e = "tf.Exp"(%v) : (tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%e) : (tensor<2xf32>) -> ()
  }, {
    %s = "tf.Sqrt"(%v) : (tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%s) : (tensor<2xf32>) -> ()
  }) {is_stateless = true} : (tensor<i32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
