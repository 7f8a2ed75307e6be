// Constants round-trip bit-exactly: NaN payloads, infinities, both hex forms, integers, bools.
// RUN: tinytf-opt %s | tinytf-opt | filecheck %s

func.func @constants() {
  // The unquoted hex scalar is a float's bit pattern, not the integer 2143289344.
  %nan = "tf.Const"() <{value = dense<0x7FC00000> : tensor<f32>}> : () -> tensor<f32>
  %payload = "tf.Const"() <{value = dense<[0x7FC00001, 0xFF800000, 1.0e10]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %hex = "tf.Const"() <{value = dense<"0x0000803F000000C0"> : tensor<2xf32>}> : () -> tensor<2xf32>
  %third = "tf.Const"() <{value = dense<0.333333343> : tensor<f32>}> : () -> tensor<f32>
  %f64 = "tf.Const"() <{value = dense<0.10000000000000001> : tensor<f64>}> : () -> tensor<f64>
  %i8 = "tf.Const"() <{value = dense<[-128, 0, 127]> : tensor<3xi8>}> : () -> tensor<3xi8>
  %b = "tf.Const"() <{value = dense<[true, false]> : tensor<2xi1>}> : () -> tensor<2xi1>
  %splat = "tf.Const"() <{value = dense<2.500000e-01> : tensor<4x1xf32>}> : () -> tensor<4x1xf32>
  func.return
}

// CHECK-LABEL: func.func @constants
// CHECK: dense<0x7FC00000> : tensor<f32>
// CHECK: dense<[0x7FC00001, 0xFF800000, 1.000000e+10]> : tensor<3xf32>
// CHECK: dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK: dense<0.333333343> : tensor<f32>
// CHECK: dense<1.000000e-01> : tensor<f64>
// CHECK: dense<[-128, 0, 127]> : tensor<3xi8>
// CHECK: dense<[true, false]> : tensor<2xi1>
// CHECK: dense<2.500000e-01> : tensor<4x1xf32>
