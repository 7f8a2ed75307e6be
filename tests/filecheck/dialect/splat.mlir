// Splat constants stay splat: parsed as one element, printed as MLIR prints them, through passes.
// RUN: tinytf-opt %s -p tf-shape-inference,canonicalize,cse | tinytf-opt | filecheck %s
// RUN: tinytf-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @splats() -> (tensor<1024x1024x1024x1024xf32>, tensor<*xf32>, tensor<4096x4096xi1>, tensor<2x3xi8>) {
  // 4 TiB if it were expanded: only running it is refused (by the allocation guard).
  %huge = "tf.Const"() <{value = dense<0.0> : tensor<1024x1024x1024x1024xf32>}> : () -> tensor<1024x1024x1024x1024xf32>
  %big = "tf.Const"() <{value = dense<"0x0000803F"> : tensor<4096x4096xf32>}> : () -> tensor<4096x4096xf32>
  %neg = "tf.Neg"(%big) : (tensor<4096x4096xf32>) -> tensor<*xf32>
  %flags = "tf.Const"() <{value = dense<true> : tensor<4096x4096xi1>}> : () -> tensor<4096x4096xi1>
  %small = "tf.Const"() <{value = dense<-7> : tensor<2x3xi8>}> : () -> tensor<2x3xi8>
  func.return %huge, %neg, %flags, %small : tensor<1024x1024x1024x1024xf32>, tensor<*xf32>, tensor<4096x4096xi1>, tensor<2x3xi8>
}

// canonicalize hoists the constants to the front of the function in MLIR's order (its
// OperationFolder moves each constant that follows a non-constant op before the first op), so
// their order is not checked.
// CHECK-LABEL: func.func @splats
// CHECK-DAG: dense<0.000000e+00> : tensor<1024x1024x1024x1024xf32>
// CHECK-DAG: dense<1.000000e+00> : tensor<4096x4096xf32>
// CHECK-DAG: dense<true> : tensor<4096x4096xi1>
// CHECK-DAG: dense<-7> : tensor<2x3xi8>
// A result over canonicalize's folding size limit is not folded; shape inference refines its type.
// CHECK: "tf.Neg"(%{{.*}}) : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>

// GENERIC: "func.func"()
// GENERIC: dense<0.000000e+00> : tensor<1024x1024x1024x1024xf32>
// GENERIC: dense<1.000000e+00> : tensor<4096x4096xf32>
// GENERIC: dense<true> : tensor<4096x4096xi1>
// GENERIC: dense<-7> : tensor<2x3xi8>
