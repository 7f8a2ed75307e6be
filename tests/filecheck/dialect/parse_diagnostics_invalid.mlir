// Parse errors with everything MLIR's parser says about them: a value used with a second type points back
// at its definition; an empty #tf_type.func gives the attribute parser's error and TensorFlow's.
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @well_formed
func.func @well_formed(%x: tensor<2xf32>) -> tensor<2xf32> attributes {tf._implements = #tf_type.func<@impl, {}>} {
  func.return %x : tensor<2xf32>
}

// -----

// expected-note @+1 {{prior use here}}
func.func @value_used_with_two_types(%x: tensor<2xf32>) -> tensor<2xi32> {
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'tensor<2xi32>' vs 'tensor<2xf32>'}}
  %0 = "tf.Identity"(%x) : (tensor<2xi32>) -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}

// -----

// expected-error @+2 {{expected attribute value}}
// expected-error @+1 {{expected symbol while parsing tf.func attribute}}
func.func @empty_func_attribute() attributes {tf._implements = #tf_type.func<>} {
  func.return
}
