// tf_type types and attributes: resources with and without subtypes, variants, strings, ref
// types, #tf_type.shape; unknown tf ops and unknown tf_type types print unchanged.
// RUN: tinytf-opt %s | tinytf-opt | filecheck %s

func.func @types(%r: tensor<!tf_type.resource<tensor<f32>, tensor<2xi32>>>, %v: tensor<!tf_type.variant<tensor<*xf32>>>, %s: tensor<2x!tf_type.string>, %ref: tensor<3x!tf_type.f32ref>, %iref: tensor<!tf_type.int64ref>, %q: tensor<4x!tf_type.qint8>) {
  %0 = "tf.SomeFutureOp"(%r, %v) {shape = #tf_type.shape<2x?x3>, unranked = #tf_type.shape<*>, scalar = #tf_type.shape<>} : (tensor<!tf_type.resource<tensor<f32>, tensor<2xi32>>>, tensor<!tf_type.variant<tensor<*xf32>>>) -> tensor<*x!tf_type.variant>
  func.return
}

// CHECK: tensor<!tf_type.resource<tensor<f32>, tensor<2xi32>>>
// CHECK-SAME: tensor<!tf_type.variant<tensor<*xf32>>>
// CHECK-SAME: tensor<2x!tf_type.string>
// CHECK-SAME: tensor<3x!tf_type.f32ref>
// CHECK-SAME: tensor<!tf_type.int64ref>
// CHECK-SAME: tensor<4x!tf_type.qint8>
// CHECK: "tf.SomeFutureOp"
// CHECK-SAME: {scalar = #tf_type.shape<>, shape = #tf_type.shape<2x?x3>, unranked = #tf_type.shape<*>}
// CHECK-SAME: -> tensor<*x!tf_type.variant>
