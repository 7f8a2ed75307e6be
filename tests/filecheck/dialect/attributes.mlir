// Attributes, values and locations printed as MLIR (and so TensorFlow's tools) print them.
// RUN: tinytf-opt %s | tinytf-opt | filecheck %s
// RUN: tinytf-opt %s --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: tinytf-opt %s -mlir-print-debuginfo | tinytf-opt --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: tinytf-opt %s --split-input-file | filecheck %s --check-prefix=SPLIT

// Floats as LLVM's APFloat writes them: %e with 6 digits when that reads back exactly, else the
// form of 9 (f32) or 17 (f64) digits, else the bit pattern (a NaN, an f64 integer of 9 digits).
// APFloat cuts digits before it rounds: 0.01 in f32 is 0.00999999977 (its %e is 9.999990e-03),
// 0.00704810954 stays (a correctly rounded 9 digits would end in 955).
// CHECK-LABEL: func.func @floats
// CHECK:         "tf.Const"() <{value = dense<[8.000000e+00, 1.000000e-01, 0.00704810954, 0.333333343, -0.000000e+00, 0x7FC00000]> : tensor<6xf32>}>
// CHECK-NEXT:    "tf.Const"() <{value = dense<[0.33333333333333331, 0x419D6F3454000000, 1.000000e+300]> : tensor<3xf64>}>
// CHECK-NEXT:    "tf.Const"() <{value = dense<[1.000000e+00, 6.550400e+04]> : tensor<2xf16>}>
// CHECK-NEXT:    "tf.Const"() <{value = dense<2.500000e-01> : tensor<3xbf16>}>
// CHECK-NEXT:    "tf.Foo"() {a = 8.000000e+00 : f32, b = 2.500000e+00 : f64, c = 0.00999999977 : f32, d = 1.000000e-03 : f32} : () -> ()
func.func @floats() {
  %0 = "tf.Const"() {value = dense<[8.0, 0.1, 0.00704810954, 0.333333343, -0.0, 0x7FC00000]> : tensor<6xf32>} : () -> tensor<6xf32>
  %1 = "tf.Const"() {value = dense<[0.33333333333333331, 123456789.0, 1.0e300]> : tensor<3xf64>} : () -> tensor<3xf64>
  %2 = "tf.Const"() {value = dense<[1.0, 65504.0]> : tensor<2xf16>} : () -> tensor<2xf16>
  %3 = "tf.Const"() {value = dense<0.25> : tensor<3xbf16>} : () -> tensor<3xbf16>
  "tf.Foo"() {b = 2.5 : f64, a = 8.0 : f32, d = 0.001 : f32, c = 0.01 : f32} : () -> ()
  func.return
}

// -----

// Dictionaries sorted by name, properties and attributes alike; an op's results as one group
// (`%0:2`, used as `%0#1`), and a name taken twice suffixed as MLIR suffixes it (cst, cst_0, cst_1).
// The text's own names (%cst_5, %r, %first) are dropped, as MLIR's parser drops them.
// CHECK-LABEL: func.func @names_and_order
// CHECK-NEXT:    %cst = "tf.Const"() <{value = dense<1> : tensor<i32>}> {_a = 1 : i64, device = ""} : () -> tensor<i32>
// CHECK-NEXT:    %cst_0 = "tf.Const"
// CHECK-NEXT:    %cst_1 = "tf.Const"
// CHECK-NEXT:    %0:2 = "tf.Unpack"(%cst_1) <{axis = 0 : i64}> : (tensor<2xi32>) -> (tensor<i32>, tensor<i32>)
// CHECK-NEXT:    %1:2 = "tf.TwoResults"() : () -> (tensor<i32>, tensor<i32>)
// CHECK-NEXT:    %2:2 = "tf.TwoResults"() : () -> (tensor<i32>, tensor<i32>)
// CHECK-NEXT:    return %0#1, %1#0, %2#1
func.func @names_and_order() -> (tensor<i32>, tensor<i32>, tensor<i32>) {
  %cst = "tf.Const"() {device = "", value = dense<1> : tensor<i32>, _a = 1} : () -> tensor<i32>
  %cst_5 = "tf.Const"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %cst_9 = "tf.Const"() {value = dense<[3, 4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0, %1 = "tf.Unpack"(%cst_9) {axis = 0 : i64} : (tensor<2xi32>) -> (tensor<i32>, tensor<i32>)
  %r:2 = "tf.TwoResults"() : () -> (tensor<i32>, tensor<i32>)
  %first, %second = "tf.TwoResults"() : () -> (tensor<i32>, tensor<i32>)
  func.return %1, %r#0, %second : tensor<i32>, tensor<i32>, tensor<i32>
}

// -----

// TensorFlow's own attributes: a tensor as a serialized TensorProto (kept byte for byte, with its
// type), string tensors, #tf_type.func (a symbol or "" and a dictionary), and an attribute of a
// dialect nobody loaded, in the opaque form.
// CHECK-LABEL: func.func @tf_attributes
// CHECK-SAME:    tf._implements = #tf_type.func<@callee, {attr0 = 1 : i32, nested = #tf_type.func<"", {x = 8.000000e+00 : f32}>}>
// CHECK:         "tf.Const"() <{value = #tf_type<tensor_proto : "0x68656C6C6F"> : tensor<2xi32>}> : () -> tensor<2xi32>
// CHECK-NEXT:    "tf.Const"() <{value = dense<"a\00\FF"> : tensor<!tf_type.string>}>
// CHECK-NEXT:    "tf.Const"() <{value = dense<["x", "y"]> : tensor<2x!tf_type.string>}>
// CHECK-NEXT:    "glue.compare"() {predicate = #glue<"compare LTE">} : () -> i1
func.func @tf_attributes() attributes {tf._implements = #tf_type.func<@callee, {nested = #tf_type.func<"", {x = 8.0 : f32}>, attr0 = 1 : i32}>} {
  %0 = "tf.Const"() {value = #tf_type<tensor_proto : "0x68656C6C6F"> : tensor<2xi32>} : () -> tensor<2xi32>
  %1 = "tf.Const"() {value = dense<"a\00\FF"> : tensor<!tf_type.string>} : () -> tensor<!tf_type.string>
  %2 = "tf.Const"() {value = dense<["x", "y"]> : tensor<2x!tf_type.string>} : () -> tensor<2x!tf_type.string>
  %3 = "glue.compare"() {predicate = #glue<"compare LTE">} : () -> i1
  func.return
}
func.func private @callee() {
  func.return
}

// -----

// Upstream MLIR ops TensorFlow's IR mixes in, in their custom syntax, inside a tf_device region.
// CHECK-LABEL: func.func @upstream_ops
// CHECK:         %[[C:.*]] = arith.constant dense<[0, 1]> : tensor<2xi32>
// CHECK-NEXT:    %[[S:.*]] = arith.constant dense<"vocab.txt"> : tensor<!tf_type.string>
// CHECK-NEXT:    %[[L:.*]] = "tf_device.launch"() <{device = "/device:CPU:0"}> ({
// CHECK-NEXT:      %[[K:.*]] = func.call @identity(%[[C]]) : (tensor<2xi32>) -> tensor<2xi32>
// CHECK-NEXT:      %[[U:.*]] = tensor.cast %[[K]] : tensor<2xi32> to tensor<*xi32>
// CHECK-NEXT:      tf_device.return %[[U]] : tensor<*xi32>
// CHECK-NEXT:    }) : () -> tensor<*xi32>
// CHECK-NEXT:    cf.br ^[[B:.*]]
// CHECK-NEXT:  ^[[B]]:
func.func @upstream_ops() -> tensor<*xi32> {
  %c = arith.constant dense<[0, 1]> : tensor<2xi32>
  %s = arith.constant dense<"vocab.txt"> : tensor<!tf_type.string>
  %0 = "tf_device.launch"() ({
    %1 = func.call @identity(%c) : (tensor<2xi32>) -> tensor<2xi32>
    %2 = tensor.cast %1 : tensor<2xi32> to tensor<*xi32>
    tf_device.return %2 : tensor<*xi32>
  }) {device = "/device:CPU:0"} : () -> tensor<*xi32>
  cf.br ^done
^done:
  func.return %0 : tensor<*xi32>
}
func.func private @identity(%x: tensor<2xi32>) -> tensor<2xi32> {
  func.return %x : tensor<2xi32>
}

// -----

// Locations are read, and printed with --print-debuginfo (-mlir-print-debuginfo) only.
// CHECK-LABEL: func.func @located
// CHECK-NOT:     loc(
// LOC-LABEL:   func.func @located(%arg0: tensor<f32> loc("arg.py":1:2)) -> tensor<f32> {
// LOC-NEXT:      %0 = "tf.Neg"(%arg0) : (tensor<f32>) -> tensor<f32> loc("model.py":3:4)
// LOC-NEXT:      %1 = "tf.Abs"(%0) : (tensor<f32>) -> tensor<f32> loc(fused["Abs:", "model/abs"])
// LOC-NEXT:      return %1 : tensor<f32> loc(unknown)
func.func @located(%x: tensor<f32> loc("arg.py":1:2)) -> tensor<f32> {
  %0 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32> loc("model.py":3:4)
  %1 = "tf.Abs"(%0) : (tensor<f32>) -> tensor<f32> loc(fused["Abs:", "model/abs"])
  func.return %1 : tensor<f32> loc(unknown)
}

// -----

// A case of nothing but comments is an empty module (with --split-input-file), not an error; a
// line of more dashes than `// -----` splits nothing.
// ------------------------------------------------------------------------------------------
// SPLIT-LABEL: func.func @located
// SPLIT:       // -----
// SPLIT-NEXT:  module {
// SPLIT-NEXT:  }
// SPLIT-NEXT:  // -----
// SPLIT-NEXT:  module {
// SPLIT-NEXT:    func.func @after_the_comments

// -----

func.func @after_the_comments() {
  func.return
}
