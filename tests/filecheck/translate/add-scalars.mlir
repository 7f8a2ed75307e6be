// RUN: tinytf-translate --mlir-tf-to-hlo-text %s -tf-input-shapes=: | filecheck %s
// RUN: tinytf-translate --mlir-tf-to-hlo-text %s -tf-input-shapes=: -tf-xla-emit-use-tuple-args -tf-xla-emit-return-tuple | filecheck %s --check-prefix=TUPLE-ARGS
// RUN: tinytf-translate -mlir-tf-to-hlo-text %s --tf-input-shapes=: --tf-input-data-types=DT_FLOAT,DT_FLOAT --tf-xla-input-types=parameter,parameter | filecheck %s

// AddV2 of two f32 scalars: TensorFlow's compiler/mlir/tf2xla/tests (mlir-tf-to-hlo-text) lines.

func.func @main(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {
  %0 = "tf.AddV2"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// CHECK-LABEL: HloModule
// CHECK:       ENTRY
// CHECK-NEXT:    {{[a-z0-9_.]+}} = f32[] parameter(0)
// CHECK-NEXT:    {{[a-z0-9_.]+}} = f32[] parameter(1)
// CHECK-NEXT:    ROOT {{[a-z0-9_.]+}} = f32[] add({{[a-z0-9_.]+}}, {{[a-z0-9_.]+}})
// CHECK-NEXT:  }
// CHECK:       // InputMapping {0, 1}
// CHECK-NEXT:  // XlaInputShape f32[]
// CHECK-NEXT:  // XlaInputShape f32[]
// CHECK-NEXT:  // XlaOutputShape (f32[])
// CHECK-NEXT:  // XlaOutputDescription type=float shape=()
// CHECK-EMPTY:

// TUPLE-ARGS-LABEL: HloModule
// TUPLE-ARGS-SAME:    entry_computation_layout={((f32[], f32[]))->(f32[])}
// TUPLE-ARGS:         ENTRY
// TUPLE-ARGS-NEXT:      {{[a-z0-9_.]+}} = (f32[], f32[]) parameter(0)
// TUPLE-ARGS-NEXT:      {{[a-z0-9_.]+}} = f32[] get-tuple-element({{[a-z0-9_.]+}}), index=0
// TUPLE-ARGS-NEXT:      {{[a-z0-9_.]+}} = f32[] get-tuple-element({{[a-z0-9_.]+}}), index=1
// TUPLE-ARGS-NEXT:      {{[a-z0-9_.]+}} = f32[] add({{[a-z0-9_.]+}}, {{[a-z0-9_.]+}})
// TUPLE-ARGS-NEXT:      ROOT {{[a-z0-9_.]+}} = (f32[]) tuple({{[a-z0-9_.]+}})
// TUPLE-ARGS-NEXT:    }
// TUPLE-ARGS:         // InputMapping {0, 1}
// TUPLE-ARGS-NEXT:    // XlaInputShape (f32[], f32[])
// TUPLE-ARGS-NEXT:    // XlaOutputShape (f32[])
// TUPLE-ARGS-NEXT:    // XlaOutputDescription type=float shape=()
// TUPLE-ARGS-EMPTY:
