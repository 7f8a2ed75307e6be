// Region control flow that TensorFlow's verifiers refuse, with its messages, each on its line.
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics

func.func @predicate_not_a_bool_scalar(%p: tensor<2xi1>, %v: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tf.IfRegion' op operand #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<2xi1>'}}
  %r = "tf.IfRegion"(%p) ({
    "tf.Yield"(%v) : (tensor<f32>) -> ()
  }, {
    "tf.Yield"(%v) : (tensor<f32>) -> ()
  }) {is_stateless = true} : (tensor<2xi1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

func.func @if_with_one_branch(%p: tensor<i1>, %v: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tf.IfRegion' op expected 2 regions}}
  %r = "tf.IfRegion"(%p) ({
    "tf.Yield"(%v) : (tensor<f32>) -> ()
  }) {is_stateless = true} : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

func.func @else_branch_without_yield(%p: tensor<i1>, %v: tensor<f32>) -> tensor<f32> {
  %r = "tf.IfRegion"(%p) ({
    "tf.Yield"(%v) : (tensor<f32>) -> ()
  }, {
    // expected-error @+1 {{block with no terminator}}
    %n = "tf.Neg"(%v) : (tensor<f32>) -> tensor<f32>
  }) {is_stateless = true} : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

func.func @then_branch_yields_nothing(%p: tensor<i1>, %v: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tf.IfRegion' op region control flow edge from Region #0 to parent results: source has 0 operands, but target successor needs 1}}
  %r = "tf.IfRegion"(%p) ({
    "tf.Yield"() : () -> ()
  }, {
    "tf.Yield"(%v) : (tensor<f32>) -> ()
  }) {is_stateless = true} : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

func.func @else_branch_yields_another_shape(%p: tensor<i1>, %v: tensor<f32>, %w: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'tf.IfRegion' op else result type tensor<3xf32> is incompatible with result type tensor<f32> at index 0}}
  %r = "tf.IfRegion"(%p) ({
    "tf.Yield"(%v) : (tensor<f32>) -> ()
  }, {
    "tf.Yield"(%w) : (tensor<3xf32>) -> ()
  }) {is_stateless = true} : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

func.func @branch_with_an_argument(%p: tensor<i1>, %v: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tf.IfRegion' op region #1 should have no arguments}}
  %r = "tf.IfRegion"(%p) ({
    "tf.Yield"(%v) : (tensor<f32>) -> ()
  }, {
  ^bb0(%a: tensor<f32>):
    "tf.Yield"(%a) : (tensor<f32>) -> ()
  }) {is_stateless = true} : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

func.func @value_of_the_other_branch(%p: tensor<i1>, %v: tensor<f32>) -> tensor<f32> {
  %r = "tf.IfRegion"(%p) ({
    %a = "tf.Abs"(%v) : (tensor<f32>) -> tensor<f32>
    "tf.Yield"(%a) : (tensor<f32>) -> ()
  }, {
    // expected-error @+1 {{use of undeclared SSA value name}}
    "tf.Yield"(%a) : (tensor<f32>) -> ()
  }) {is_stateless = true} : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

func.func @yield_outside_region_control_flow(%v: tensor<f32>) {
  // expected-error @+1 {{'tf.Yield' op expects parent op to be one of 'tf.CaseRegion, tf.IfRegion, tf.WhileRegion, tf.GeneratorDatasetRegion'}}
  "tf.Yield"(%v) : (tensor<f32>) -> ()
}

// -----

func.func @loop_condition_yields_a_vector(%n: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'tf.WhileRegion' op condition should have a single tensor<i1> result}}
  %r = "tf.WhileRegion"(%n) ({
  ^bb0(%i: tensor<i32>):
    %c = "tf.Const"() <{value = dense<true> : tensor<2xi1>}> : () -> tensor<2xi1>
    "tf.Yield"(%c) : (tensor<2xi1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>):
    "tf.Yield"(%i) : (tensor<i32>) -> ()
  }) {is_stateless = true} : (tensor<i32>) -> tensor<i32>
  func.return %r : tensor<i32>
}

// -----

func.func @loop_condition_forwards_too_few(%n: tensor<i32>, %m: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  // expected-error @+1 {{'tf.WhileRegion' op condition should yield a tensor<i1> and forward the arguments}}
  %r:2 = "tf.WhileRegion"(%n, %m) ({
  ^bb0(%i: tensor<i32>, %j: tensor<i32>):
    %c = "tf.Less"(%i, %j) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%c, %i) : (tensor<i1>, tensor<i32>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %j: tensor<i32>):
    "tf.Yield"(%i, %j) : (tensor<i32>, tensor<i32>) -> ()
  }) {is_stateless = true} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  func.return %r#0, %r#1 : tensor<i32>, tensor<i32>
}

// -----

func.func @loop_condition_swaps_its_arguments(%n: tensor<i32>, %m: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  // expected-error @+1 {{'tf.WhileRegion' op arguments on condition block aren't forwarded to yield}}
  %r:2 = "tf.WhileRegion"(%n, %m) ({
  ^bb0(%i: tensor<i32>, %j: tensor<i32>):
    %c = "tf.Less"(%i, %j) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%c, %j, %i) : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %j: tensor<i32>):
    "tf.Yield"(%i, %j) : (tensor<i32>, tensor<i32>) -> ()
  }) {is_stateless = true} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  func.return %r#0, %r#1 : tensor<i32>, tensor<i32>
}

// -----

func.func @loop_body_takes_floats(%n: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{'tf.WhileRegion' op input type tensor<i32> is incompatible with body input type tensor<f32> at index 0}}
  %r = "tf.WhileRegion"(%n) ({
  ^bb0(%i: tensor<i32>):
    %c = "tf.Const"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    "tf.Yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>):
    %i = "tf.Cast"(%x) : (tensor<f32>) -> tensor<i32>
    "tf.Yield"(%i) : (tensor<i32>) -> ()
  }) {is_stateless = true} : (tensor<i32>) -> tensor<i32>
  func.return %r : tensor<i32>
}

// -----

func.func @loop_with_zero_parallel_iterations(%n: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{attribute 'parallel_iterations' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %r = "tf.WhileRegion"(%n) ({
  ^bb0(%i: tensor<i32>):
    %c = "tf.Const"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
    "tf.Yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>):
    "tf.Yield"(%i) : (tensor<i32>) -> ()
  }) {is_stateless = true, parallel_iterations = 0 : i64} : (tensor<i32>) -> tensor<i32>
  func.return %r : tensor<i32>
}

// -----

func.func @case_index_not_a_scalar(%k: tensor<2xi32>) {
  // expected-error @+1 {{'tf.CaseRegion' op expects 'branch_index' to be a scalar, but got 'tensor<2xi32>'}}
  "tf.CaseRegion"(%k) ({
    "tf.Yield"() : () -> ()
  }) {is_stateless = true} : (tensor<2xi32>) -> ()
  func.return
}

// -----

func.func @case_index_of_int64(%k: tensor<i64>) {
  // expected-error @+1 {{'tf.CaseRegion' op operand #0 must be tensor of 32-bit signless integer values, but got 'tensor<i64>'}}
  "tf.CaseRegion"(%k) ({
    "tf.Yield"() : () -> ()
  }) {is_stateless = true} : (tensor<i64>) -> ()
  func.return
}

// -----

func.func @case_branch_yields_two(%k: tensor<i32>, %v: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tf.CaseRegion' op branch #1 results (size = 2) should have the same number of values as results (size = 1)}}
  %r = "tf.CaseRegion"(%k) ({
    "tf.Yield"(%v) : (tensor<f32>) -> ()
  }, {
    "tf.Yield"(%v, %v) : (tensor<f32>, tensor<f32>) -> ()
  }) {is_stateless = true} : (tensor<i32>) -> tensor<f32>
  func.return %r : tensor<f32>
}
