// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-input-arrays=input0,input1 -tf-input-data-types=DT_INT32,DT_INT32 -tf-input-shapes=10:10 -tf-output-arrays=func_call | filecheck %s --check-prefix=CALL
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-output-arrays=Add | filecheck %s --check-prefix=DEFAULTS
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-input-arrays=input0,input1 -tf-input-data-types=DT_INT32,DT_INT32 -tf-input-shapes=10:10 -tf-output-arrays=func_call | tinytf-opt | filecheck %s --check-prefix=CALL
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-strings-and-parse-example.pbtxt -tf-input-arrays=input0 -tf-input-data-types=DT_STRING -tf-input-shapes=32 -tf-output-arrays=ParseExample/ParseExampleV2:1,save/SaveV2/shape_and_slices | filecheck %s --check-prefix=STRINGS
// RUN: not tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-output-arrays=NotANodeInTheGraph 2>&1 | filecheck %s --check-prefix=UNDEFINED
// RUN: not tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-input-arrays=input0,input1 -tf-output-arrays=input0:1 2>&1 | filecheck %s --check-prefix=BAD-INDEX
// RUN: not tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-input-arrays=input0 -tf-output-arrays=Add 2>&1 | filecheck %s --check-prefix=UNFED

// The functional form of a GraphDef: @main takes the input arrays (typed by -tf-input-data-types and
// -tf-input-shapes) and returns the output arrays; tf.entry_function names both, as TensorFlow's
// importer writes it; every op carries its node's device; a node whose op is a library function is
// a call of that function (TensorFlow writes tf.LegacyCall, tinytf the call op it runs); the control
// input ^input1 orders, it is not an operand. The output reprints unchanged through tinytf-opt.

// CALL:      func.func private @test_func_name(%arg0: tensor<*xi32>) -> tensor<*xi32> {
// CALL-NEXT:   %0 = "tf.AddV2"(%arg0, %arg0) {device = ""} : (tensor<*xi32>, tensor<*xi32>) -> tensor<*xi32>
// CALL-NEXT:   return %0 : tensor<*xi32>
// CALL:      func.func @main(%arg0: tensor<10xi32>, %arg1: tensor<10xi32>) -> tensor<*xi32>
// CALL-SAME: attributes {tf.entry_function = {control_outputs = "", inputs = "input0,input1", outputs = "func_call"}}
// CALL-NEXT:   %0 = "tf.Add"(%arg0, %arg1) {device = "/device:CPU:0"} : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi32>
// CALL-NEXT:   %1 = "tf.StatefulPartitionedCall"(%0) <{config = "", config_proto = "", executor_type = "", f = @test_func_name}> {device = ""} : (tensor<10xi32>) -> tensor<*xi32>
// CALL-NEXT:   return %1 : tensor<*xi32>
// CALL-NOT:  Placeholder

// Without -tf-input-arrays every Placeholder is an argument, typed by its own attributes (no shape: unranked).
// DEFAULTS:      module attributes {tf.versions = {bad_consumers = [], min_consumer = 0 : i32, producer = 27 : i32}}
// DEFAULTS:      func.func @main(%arg0: tensor<*xi32>, %arg1: tensor<*xi32>) -> tensor<*xi32>
// DEFAULTS-SAME: tf.entry_function = {control_outputs = "", inputs = "input0,input1", outputs = "Add"}

// STRINGS:      func.func @main(%arg0: tensor<32x!tf_type.string>) -> (tensor<32x2xi64>, tensor<3x!tf_type.string>)
// STRINGS-DAG:  "tf.Const"() <{value = dense<""> : tensor<3x!tf_type.string>}> {device = ""} : () -> tensor<3x!tf_type.string>
// STRINGS-DAG:  "tf.Const"() <{value = dense<["feature_key1", "feature_key2"]> : tensor<2x!tf_type.string>}>
// STRINGS-DAG:  "tf.Const"() <{value = dense<> : tensor<0x!tf_type.string>}>
// STRINGS:      [[PARSE:%[0-9]+]]:2 = "tf.ParseExampleV2"(%arg0,
// STRINGS-SAME: dense_shapes = [#tf_type.shape<>, #tf_type.shape<2>], num_sparse = 0 : i64
// STRINGS-SAME: -> (tensor<32xf32>, tensor<32x2xi64>)
// STRINGS:      return [[PARSE]]#1, {{%[0-9]+}} : tensor<32x2xi64>, tensor<3x!tf_type.string>

// UNDEFINED: tinytf-translate: error: Output NotANodeInTheGraph was not found in graph
// BAD-INDEX: tinytf-translate: error: Invalid output index 1 specified for node: input0
// UNFED: tinytf-translate: error: graph: placeholder 'input1' is needed but not fed
