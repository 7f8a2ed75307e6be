// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-input-arrays=input0,input1 -tf-input-data-types=DT_INT32,DT_INT32 -tf-input-shapes=10:10 -tf-output-arrays=func_call | filecheck %s --check-prefix=CALL
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-input-arrays=input0,input1 -tf-input-data-types=DT_INT32,DT_INT32 -tf-input-shapes=10:10 -tf-output-arrays=func_call | tinytf-opt | filecheck %s --check-prefix=CALL
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-input-arrays=input0,input1 -tf-input-data-types=DT_INT32,DT_INT32 -tf-input-shapes=10:10 -tf-output-arrays=func_call | tinytf-opt -p tf-executor-to-functional-conversion | filecheck %s --check-prefix=FUNCTIONAL
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-output-arrays=Add | filecheck %s --check-prefix=UNFED
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-strings-and-parse-example.pbtxt -tf-enable-shape-inference-on-import=true -tf-input-arrays=input0 -tf-input-data-types=DT_STRING -tf-input-shapes=32 -tf-output-arrays=ParseExample/ParseExampleV2:1,save/SaveV2/shape_and_slices | filecheck %s --check-prefix=STRINGS
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-legacy-fed-input.pbtxt -tf-convert-legacy-fed-inputs -tf-input-arrays=input -tf-input-shapes=2 -tf-output-arrays=neg > %t.fed.mlir
// RUN: filecheck %s --check-prefix=FED --input-file %t.fed.mlir
// RUN: %python -c "import numpy as np; np.savez(r'%t.fed.npz', arg0=np.array([1.0, -2.0], np.float32))"
// RUN: tinytf run %t.fed.mlir --inputs %t.fed.npz | filecheck %s --check-prefix=FED-VALUES
// RUN: not tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-output-arrays=NotANodeInTheGraph 2>&1 | filecheck %s --check-prefix=UNDEFINED
// RUN: not tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-add-call.pbtxt -tf-input-arrays=input0,input1 -tf-output-arrays=input0:1 2>&1 | filecheck %s --check-prefix=BAD-INDEX

// A GraphDef prints as TensorFlow's importer writes it: @main takes the input arrays (typed by
// -tf-input-data-types and -tf-input-shapes) and returns the output arrays, both named in
// tf.entry_function; its body is a tf_executor.graph with one island per node, each op carrying
// its node's device; without shape inference (TF's default; STRINGS turns it on) a node with data
// inputs has an unranked result. The library function the graph calls is a graph too, renamed as
// TensorFlow's uniquifier renames it (test_func_name -> test_func_name0), and follows @main. A node
// calling a library function is a tf.LegacyCall of it, _disable_call_shape_inference a property.
// The control input ^input1 names a fed node: it is dropped, as TF drops it. The text reprints
// unchanged through tinytf-opt, and tf-executor-to-functional-conversion gives the functional form.

// CALL:      func.func @main(%arg0: tensor<10xi32>, %arg1: tensor<10xi32>) -> tensor<*xi32>
// CALL-SAME: attributes {tf.entry_function = {control_outputs = "", inputs = "input0,input1", outputs = "func_call"}}
// CALL-NEXT:   %[[G:.*]] = tf_executor.graph {
// CALL-NEXT:     %[[ADD:.*]], %{{.*}} = tf_executor.island wraps "tf.Add"(%arg0, %arg1) {device = "/device:CPU:0"} : (tensor<10xi32>, tensor<10xi32>) -> tensor<*xi32>
// CALL-NEXT:     %[[CALL:.*]], %{{.*}} = tf_executor.island wraps "tf.LegacyCall"(%[[ADD]]) <{_disable_call_shape_inference = true, f = @test_func_name0}> {device = ""} : (tensor<*xi32>) -> tensor<*xi32>
// CALL-NEXT:     tf_executor.fetch %[[CALL]] : tensor<*xi32>
// CALL-NEXT:   }
// CALL-NEXT:   return %[[G]] : tensor<*xi32>
// CALL:      func.func private @test_func_name0(%arg0: tensor<*xi32>) -> tensor<*xi32> {
// CALL-NEXT:   %[[FG:.*]] = tf_executor.graph {
// CALL-NEXT:     %[[TWICE:.*]], %{{.*}} = tf_executor.island wraps "tf.AddV2"(%arg0, %arg0) {device = ""}
// CALL-NEXT:     tf_executor.fetch %[[TWICE]] : tensor<*xi32>
// CALL-NOT:  Placeholder

// FUNCTIONAL:      func.func @main(%arg0: tensor<10xi32>, %arg1: tensor<10xi32>) -> tensor<*xi32>
// FUNCTIONAL-NEXT:   {{.*}}%[[ADD:[0-9]+]] = "tf.Add"(%arg0, %arg1) {device = "/device:CPU:0"}
// FUNCTIONAL-NEXT:   {{.*}}%[[FCALL:[0-9]+]] = "tf.LegacyCall"(%[[ADD]])
// FUNCTIONAL-NEXT:   return %[[FCALL]] : tensor<*xi32>
// FUNCTIONAL:      func.func private @test_func_name0(%arg0: tensor<*xi32>) -> tensor<*xi32> {
// FUNCTIONAL-NEXT:   {{.*}}%[[TWICE:[0-9]+]] = "tf.AddV2"(%arg0, %arg0)
// FUNCTIONAL-NEXT:   return %[[TWICE]] : tensor<*xi32>
// FUNCTIONAL-NOT:  tf_executor

// Without -tf-input-arrays nothing is fed: the Placeholders stay ops (with the OpDef's default
// unknown shape), and the control input ^input1 on a node that is not fed stays a control operand.
// UNFED:      module attributes {tf.versions = {bad_consumers = [], min_consumer = 0 : i32, producer = 27 : i32}}
// UNFED:      func.func @main() -> tensor<*xi32> attributes {tf.entry_function = {control_outputs = "", inputs = "", outputs = "Add"}}
// UNFED-NEXT:   tf_executor.graph {
// UNFED-NEXT:     %[[IN0:.*]], %{{.*}} = tf_executor.island wraps "tf.Placeholder"() {device = "", shape = #tf_type.shape<*>} : () -> tensor<*xi32>
// UNFED-NEXT:     %[[IN1:.*]], %[[IN1_CTL:.*]] = tf_executor.island wraps "tf.Placeholder"()
// UNFED-NEXT:     %[[ADD:.*]], %{{.*}} = tf_executor.island wraps "tf.Add"(%[[IN0]], %[[IN1]])
// UNFED-NEXT:     tf_executor.island(%[[IN1_CTL]]) wraps "tf.LegacyCall"(%[[ADD]])
// UNFED-NEXT:     tf_executor.fetch %[[ADD]] : tensor<*xi32>

// STRINGS:      func.func @main(%arg0: tensor<32x!tf_type.string>) -> (tensor<32x2xi64>, tensor<3x!tf_type.string>)
// The islands come in TensorFlow's order (a walk from the graph's source, last name first), so the
// unconnected save/SaveV2/shape_and_slices constant follows the ParseExampleV2 that the others feed.
// STRINGS-DAG:  "tf.Const"() <{value = dense<["feature_key1", "feature_key2"]> : tensor<2x!tf_type.string>}>
// STRINGS-DAG:  "tf.Const"() <{value = dense<> : tensor<0x!tf_type.string>}>
// STRINGS:      %[[PARSE:.*]]:2, %{{.*}} = tf_executor.island wraps "tf.ParseExampleV2"(%arg0,
// STRINGS-SAME: dense_shapes = [#tf_type.shape<>, #tf_type.shape<2>], num_sparse = 0 : i64
// STRINGS-SAME: -> (tensor<32xf32>, tensor<32x2xi64>)
// STRINGS-NEXT: %[[SAVE:[a-z_0-9]+]], %{{.*}} = tf_executor.island wraps "tf.Const"() <{value = dense<""> : tensor<3x!tf_type.string>}> {device = ""} : () -> tensor<3x!tf_type.string>
// STRINGS-NEXT: tf_executor.fetch %[[PARSE]]#1, %[[SAVE]] : tensor<32x2xi64>, tensor<3x!tf_type.string>

// -tf-convert-legacy-fed-inputs: a LegacyFedInput without inputs is a Placeholder of its first output
// type, so it is fed like one (typed by it when -tf-input-data-types is not given).
// FED:      func.func @main(%arg0: tensor<2xf32>) -> tensor<*xf32>
// FED-NEXT:   tf_executor.graph {
// FED-NEXT:     %[[NEG:.*]], %{{.*}} = tf_executor.island wraps "tf.Neg"(%arg0)
// FED-NEXT:     tf_executor.fetch %[[NEG]]
// FED-NOT:  LegacyFedInput
// FED-VALUES:      out0: float32 [2]
// FED-VALUES-NEXT: [-1.  2.]

// UNDEFINED: tinytf-translate: error: Output NotANodeInTheGraph was not found in graph
// BAD-INDEX: tinytf-translate: error: Invalid output index 1 specified for node: input0
