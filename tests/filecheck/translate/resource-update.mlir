// RUN: tinytf-translate --mlir-tf-to-hlo-text %s -tf-input-shapes=2:2 -tf-input-data-types=DT_FLOAT,DT_FLOAT -tf-xla-input-types=parameter,resource -tf-xla-emit-return-tuple | filecheck %s
// RUN: sed 's/tensor<!tf_type.resource<tensor<2xf32>>>/tensor<*x!tf_type.resource>/g' %s | tinytf-translate --mlir-tf-to-hlo-text -tf-input-shapes=2:2 -tf-input-data-types=DT_FLOAT,DT_FLOAT -tf-xla-input-types=parameter,resource | filecheck %s --check-prefix=UNTYPED

// A function assigning its f32[2] parameter to the resource passed as its second argument: the
// variable's value is parameter 1, its new value a resource update aliased to it (donated).

func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<!tf_type.resource<tensor<2xf32>>>) {
  "tf.AssignVariableOp"(%arg1, %arg0) <{validate_shape = false}> : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return
}

// CHECK-LABEL: HloModule
// CHECK-SAME:    input_output_alias={ {0}: (1, {}, may-alias) }
// CHECK-SAME:    entry_computation_layout={(f32[2]{0}, f32[2]{0})->(f32[2]{0})}
// CHECK:       ENTRY
// CHECK-NEXT:    {{[a-z0-9_.]+}} = f32[2]{0} parameter(0)
// CHECK-NEXT:    {{[a-z0-9_.]+}} = f32[2]{0} parameter(1)
// CHECK-NEXT:    ROOT {{[a-z0-9_.]+}} = (f32[2]{0}) tuple({{[a-z0-9_.]+}})
// CHECK:       // InputMapping {0, 1}
// CHECK-NEXT:  // XlaInputShape f32[2]
// CHECK-NEXT:  // XlaInputShape f32[2]
// CHECK-NEXT:  // XlaOutputShape (f32[2])
// CHECK-NEXT:  // ResourceUpdate input_index=1 type=float shape=(2) modified
// CHECK-EMPTY:

// UNTYPED:       // InputMapping {0, 1}
// UNTYPED-NEXT:  // XlaInputShape f32[2]
// UNTYPED-NEXT:  // XlaInputShape f32[2]
// UNTYPED-NEXT:  // XlaOutputShape (f32[2])
// UNTYPED-NEXT:  // ResourceUpdate input_index=1 type=float shape=(2) modified
