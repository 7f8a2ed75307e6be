// RUN: tinytf-opt %s --split-input-file -p tf-region-control-flow-to-functional | filecheck %s

// Each branch region becomes a private function; the values a region uses from outside (%v) become
// the functions' arguments and the tf.If's operands after the predicate.
// CHECK-LABEL: func.func @clamp_or_negate
// CHECK-NEXT:    %[[R:.*]] = "tf.If"(%arg0, %arg1) <{else_branch = @clamp_or_negate_else, is_stateless = true, then_branch = @clamp_or_negate_then}>
// CHECK-NEXT:    return %[[R]]
// CHECK-NOT:     tf.IfRegion
// CHECK:       func.func private @clamp_or_negate_then(%arg0: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    "tf.Relu"(%arg0)
// CHECK:       func.func private @clamp_or_negate_else(%arg0: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    "tf.Neg"(%arg0)
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

// A value the loop body uses from outside (%f) is carried as an extra loop value the body passes
// through unchanged; the condition function returns the predicate alone.
// CHECK-LABEL: func.func @scale_until
// CHECK-NEXT:    %[[W:.*]]:3 = "tf.While"(%arg0, %arg1, %arg2) <{body = @scale_until_body, cond = @scale_until_cond, is_stateless = true, parallel_iterations = 10 : i64}>
// CHECK-NEXT:    return %[[W]]#1
// CHECK:       func.func private @scale_until_cond(%arg0: tensor<i32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>) -> tensor<i1>
// CHECK:         "tf.Greater"
// CHECK:       func.func private @scale_until_body(%arg0: tensor<i32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>)
// CHECK:         %[[M:.*]] = "tf.Mul"(%arg1, %arg2)
// CHECK:         return %{{.*}}, %[[M]], %arg2
func.func @scale_until(%n: tensor<i32>, %acc: tensor<2xf32>, %f: tensor<2xf32>) -> tensor<2xf32> {
  %out:2 = "tf.WhileRegion"(%n, %acc) ({
  ^bb0(%i: tensor<i32>, %s: tensor<2xf32>):
    %zero = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %more = "tf.Greater"(%i, %zero) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%more, %i, %s) : (tensor<i1>, tensor<i32>, tensor<2xf32>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %s: tensor<2xf32>):
    %one = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %next = "tf.Sub"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %scaled = "tf.Mul"(%s, %f) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%next, %scaled) : (tensor<i32>, tensor<2xf32>) -> ()
  }) {is_stateless = true, parallel_iterations = 10 : i64} : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  func.return %out#1 : tensor<2xf32>
}

// -----

// Negative: functional control flow is left as it is, and no function is added.
// CHECK-LABEL: func.func @already_functional
// CHECK-NEXT:    "tf.If"(%arg0, %arg1) <{else_branch = @neg, is_stateless = true, then_branch = @relu}>
// CHECK-NOT:     func.func private @already_functional_
func.func @already_functional(%p: tensor<i1>, %v: tensor<3xf32>) -> tensor<3xf32> {
  %r = "tf.If"(%p, %v) <{else_branch = @neg, is_stateless = true, then_branch = @relu}> : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}
func.func private @relu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = "tf.Relu"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
func.func private @neg(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = "tf.Neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
