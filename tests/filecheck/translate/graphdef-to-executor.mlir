// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-side-effects.pbtxt -tf-enable-shape-inference-on-import=true -tf-input-arrays=x -tf-input-shapes= -tf-output-arrays=double,read -tf-control-output-arrays=done > %t.mlir
// RUN: filecheck %s --check-prefix=EFFECTS --input-file %t.mlir
// RUN: tinytf-opt %t.mlir -o %t.again.mlir
// RUN: diff %t.mlir %t.again.mlir
// RUN: %python -c "import numpy as np; np.savez(r'%t.npz', arg0=np.float32(2.0))"
// RUN: tinytf run %t.mlir --inputs %t.npz | filecheck %s --check-prefix=RESULT
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-side-effects.pbtxt -tf-input-arrays=x -tf-input-shapes= -tf-prune-unused-nodes -tf-output-arrays=read | filecheck %s --check-prefix=PRUNED
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-while-v1.pbtxt -tf-enable-shape-inference-on-import=true -tf-input-arrays=x -tf-input-shapes= -tf-output-arrays=out > %t.while.mlir
// RUN: filecheck %s --check-prefix=WHILE --input-file %t.while.mlir
// RUN: tinytf-opt %t.while.mlir -o %t.while.again.mlir
// RUN: diff %t.while.mlir %t.while.again.mlir
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-while-v1.pbtxt -tf-input-arrays=x -tf-input-shapes= -tf-output-arrays=out > %t.while0.mlir
// RUN: filecheck %s --check-prefix=WHILE-UNRANKED --input-file %t.while0.mlir
// RUN: tinytf-opt %t.while0.mlir -o %t.while0.again.mlir
// RUN: diff %t.while0.mlir %t.while0.again.mlir
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-cond-v1.pbtxt -tf-enable-shape-inference-on-import=true -tf-input-arrays=x,p -tf-input-data-types=DT_FLOAT,DT_BOOL -tf-input-shapes=2: -tf-output-arrays=out | filecheck %s --check-prefix=COND
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-devices-unstack.pbtxt -tf-enable-shape-inference-on-import=true -tf-input-arrays=x -tf-input-shapes=3 -tf-output-arrays=out,un:1 | filecheck %s --check-prefix=ORDER
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-devices-unstack.pbtxt -tf-input-arrays=x -tf-input-shapes=3 -tf-output-arrays=out,un:1 | filecheck %s --check-prefix=NO-INFERENCE
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-devices-unstack.pbtxt -tf-enable-shape-inference-on-import=false -tf-input-arrays=x -tf-input-shapes=3 -tf-output-arrays=out,un:1 | filecheck %s --check-prefix=NO-INFERENCE
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-calls-and-locations.pbtxt -tf-input-arrays=x -tf-input-data-types=DT_INT32 -tf-input-shapes= -tf-output-arrays=c,loop,p -mlir-print-debuginfo | filecheck %s --check-prefix=CALLS
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-calls-and-locations.pbtxt -tf-input-arrays=x -tf-input-data-types=DT_INT32 -tf-input-shapes= -tf-output-arrays=c,loop -tf-prune-unused-nodes > %t.calls.mlir
// RUN: tinytf-opt %t.calls.mlir -o %t.calls.again.mlir
// RUN: diff %t.calls.mlir %t.calls.again.mlir
// RUN: tinytf-translate --graphdef-to-splatted-mlir %S/Inputs/graphdef-calls-and-locations.pbtxt -tf-input-arrays=x -tf-input-data-types=DT_INT32 -tf-input-shapes= -tf-output-arrays=c,loop -tf-prune-unused-nodes -o %t.splatted.mlir
// RUN: diff %t.calls.mlir %t.splatted.mlir
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-calls-and-locations.pbtxt -tf-set-original-tf-func-name-on-import=true -tf-output-arrays=c | filecheck %s --check-prefix=ORIGINAL
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-calls-and-locations.pbtxt -tf-output-arrays=feed,batch:1 | filecheck %s --check-prefix=ATTR-TYPED
// RUN: %python -c "import numpy as np; np.savez(r'%t.calls.npz', arg0=np.int32(1))"
// RUN: tinytf run %t.calls.mlir --inputs %t.calls.npz | filecheck %s --check-prefix=CALLVALUES

// The GraphDef importer's tf_executor form, pinned to what TensorFlow 2.21's importer writes for the
// same graphs (its graphdef2mlir tests state the same facts: arg-control-dep, feed-control-dep,
// target, node-order, partial-device-name, graph-while-loop, multiple-use-next-iteration, add).

// Control edges become island control operands; one from a fed node (^x) is dropped. The nodes come
// in TensorFlow's order (a topological order of data and control edges, ties broken by its walk),
// not the file's. A control output array's token is fetched after the data. /cpu:0 is written
// /device:CPU:0. The printed text reprints identically and runs: (1 + 2) squared, and the read.

// EFFECTS:      func.func @main(%arg0: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// EFFECTS-SAME: tf.entry_function = {control_outputs = "done", inputs = "x", outputs = "double,read"}
// EFFECTS-NEXT:   tf_executor.graph {
// EFFECTS-NEXT:     %[[ONE:.*]], %{{.*}} = tf_executor.island wraps "tf.Const"()
// EFFECTS-NEXT:     %[[V:.*]], %{{.*}} = tf_executor.island wraps "tf.VarHandleOp"() {{.*}} {device = "/device:CPU:0"}
// EFFECTS-NEXT:     %[[INIT:.*]] = tf_executor.island wraps "tf.AssignVariableOp"(%[[V]], %[[ONE]])
// EFFECTS-NEXT:     %[[ADD:.*]] = tf_executor.island(%[[INIT]]) wraps "tf.AssignAddVariableOp"(%[[V]], %arg0)
// EFFECTS-NEXT:     %[[READ:.*]], %{{.*}} = tf_executor.island(%[[ADD]]) wraps "tf.ReadVariableOp"(%[[V]])
// EFFECTS-NEXT:     %[[DOUBLE:.*]], %[[DOUBLE_CTL:.*]] = tf_executor.island wraps "tf.Mul"(%[[READ]], %[[READ]])
// EFFECTS-NEXT:     %[[DONE:.*]] = tf_executor.island(%[[DOUBLE_CTL]]) wraps "tf.NoOp"() {device = ""} : () -> ()
// EFFECTS-NEXT:     tf_executor.fetch %[[DOUBLE]], %[[READ]], %[[DONE]] : tensor<f32>, tensor<f32>, !tf_executor.control

// RESULT:      out0: float32 []
// RESULT-NEXT: 9.0
// RESULT-NEXT: out1: float32 []
// RESULT-NEXT: 3.0

// -tf-prune-unused-nodes keeps what the outputs need, over data and control edges.
// PRUNED:     tf.ReadVariableOp
// PRUNED-NOT: tf.Mul
// PRUNED-NOT: tf.NoOp

// A TF1 while loop: each NextIteration is a NextIteration.Source at the top of the graph (the
// loop's last one first) feeding its Merge and a NextIteration.Sink where the node stood; Enter,
// Merge, LoopCond, Switch and Exit are tf_executor ops carrying their node's attributes (T, N,
// _class) and named as TensorFlow prints them; a value through the loop is unranked.

// WHILE:      func.func @main(%arg0: tensor<f32>) -> tensor<*xf32>
// WHILE-NEXT:   tf_executor.graph {
// WHILE-NEXT:     %[[SRC_A:output]], %[[TOK_A:token]], %{{.*}} = tf_executor.NextIteration.Source : tensor<*xf32> {T = f32, device = ""}
// WHILE-NEXT:     %[[SRC_I:output_0]], %[[TOK_I:token_1]], %{{.*}} = tf_executor.NextIteration.Source : tensor<*xi32> {T = i32, device = ""}
// WHILE-NEXT:     %[[ZERO:.*]], %{{.*}} = tf_executor.island wraps "tf.Const"() <{value = dense<0> : tensor<i32>}>
// WHILE-NEXT:     %[[ENTER_I:.*]], %{{.*}} = tf_executor.Enter %[[ZERO]] frame "loop/while_context" : (tensor<i32>) -> (tensor<*xi32>, !tf_executor.control) {T = i32, device = ""}
// WHILE-NEXT:     %[[I:.*]], %{{.*}}, %[[I_CTL:.*]] = tf_executor.Merge %[[ENTER_I]], %[[SRC_I]] : tensor<*xi32> {N = 2 : i64, T = i32, device = ""}
// WHILE-NEXT:     %[[THREE:.*]], %{{.*}} = tf_executor.island(%[[I_CTL]]) wraps "tf.Const"()
// WHILE-NEXT:     %[[LESS:.*]], %{{.*}} = tf_executor.island wraps "tf.Less"(%[[I]], %[[THREE]])
// WHILE-NEXT:     %[[LOOP_PRED:.*]], %{{.*}} = tf_executor.LoopCond %[[LESS]] : (tensor<*xi1>) -> (tensor<i1>, !tf_executor.control)
// WHILE-NEXT:     %[[I_DONE:falseOutput]], %[[I_BODY:trueOutput]], %{{.*}} = tf_executor.Switch %[[I]], %[[LOOP_PRED]] : tensor<*xi32> {T = i32, _class = ["loc:@loop/Merge"], device = ""}
// WHILE-NEXT:     tf_executor.Exit %[[I_DONE]] : tensor<*xi32>
// WHILE:          tf_executor.NextIteration.Sink[%[[TOK_I]]] %{{.*}} : tensor<*xi32>
// WHILE:          %{{.*}}, %{{.*}}, %{{.*}} = tf_executor.Merge %{{.*}}, %[[SRC_A]] : tensor<*xf32>
// WHILE:          tf_executor.NextIteration.Sink[%[[TOK_A]]] %{{.*}} : tensor<*xf32>
// WHILE-NEXT:     tf_executor.fetch %{{.*}} : tensor<*xf32>

// Without shape inference (the default) LoopCond's result is unranked too, and each Switch then
// prints its operand and result types in full.
// WHILE-UNRANKED:      %[[LESS:outputs_[0-9]+]], %{{.*}} = tf_executor.island wraps "tf.Less"
// WHILE-UNRANKED-NEXT: %[[PRED:output_[0-9]+]], %{{.*}} = tf_executor.LoopCond %[[LESS]] : tensor<*xi1> {device = ""}
// WHILE-UNRANKED-NEXT: tf_executor.Switch %{{.*}}, %[[PRED]] : (tensor<*xi32>, tensor<*xi1>) -> (tensor<*xi32>, tensor<*xi32>, !tf_executor.control)

// A TF1 cond: Switches on the predicate, a Merge of the branches' results (typed, with shape
// inference, as the branches are).

// COND:      func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<i1>) -> tensor<2xf32>
// COND-NEXT:   tf_executor.graph {
// COND-NEXT:     %{{.*}}, %{{.*}}, %{{.*}} = tf_executor.Switch %arg1, %arg1 : tensor<i1>
// COND:          %[[F:falseOutput_[0-9]+]], %[[T:trueOutput_[0-9]+]], %{{.*}} = tf_executor.Switch %arg0, %{{.*}} : tensor<2xf32>
// COND:          %[[MUL:.*]], %{{.*}} = tf_executor.island wraps "tf.Mul"(%[[T]],
// COND:          %[[SUB:.*]], %{{.*}} = tf_executor.island wraps "tf.Sub"(
// COND-NEXT:     %[[M:output]], %[[INDEX:value_index]], %{{.*}} = tf_executor.Merge %[[SUB]], %[[MUL]] : tensor<2xf32> {N = 2 : i64, T = f32, device = ""}

// Node order and results: the constants first, the node placed on /cpu:0, then the rest; Unpack's
// three results are one group; out,un:1 fetch in the order given.

// ORDER:      func.func @main(%arg0: tensor<3xf32>) -> (tensor<1xf32>, tensor<1xf32>)
// ORDER-SAME: inputs = "x", outputs = "out,un:1"
// ORDER-NEXT:   tf_executor.graph {
// ORDER-NEXT:     island wraps "tf.Const"() <{value = dense<[3, 1]> : tensor<2xi32>}>
// ORDER-NEXT:     island wraps "tf.Const"() <{value = dense<1.000000e+00> : tensor<f32>}>
// ORDER-NEXT:     island wraps "tf.Relu"(%arg0) {device = "/device:CPU:0"} : (tensor<3xf32>) -> tensor<3xf32>
// ORDER-NEXT:     island wraps "tf.AddV2"
// ORDER-NEXT:     island wraps "tf.Reshape"({{.*}}) {device = ""} : (tensor<3xf32>, tensor<2xi32>) -> tensor<3x1xf32>
// ORDER-NEXT:     %[[UN:.*]]:3, %{{.*}} = tf_executor.island wraps "tf.Unpack"
// ORDER-NEXT:     %[[OUT:.*]], %{{.*}} = tf_executor.island wraps "tf.Identity"(%[[UN]]#2)
// ORDER-NEXT:     tf_executor.fetch %[[OUT]], %[[UN]]#1 : tensor<1xf32>, tensor<1xf32>

// Without shape inference (tf-mlir-translate's default, and tinytf-translate's), a node with data
// inputs has an unranked result; a source node (Const) keeps its type; the arguments keep the given
// shapes. -tf-enable-shape-inference-on-import=true types the results by the shape rules (above).

// NO-INFERENCE:      func.func @main(%arg0: tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>)
// NO-INFERENCE:      "tf.Const"() <{value = dense<[3, 1]> : tensor<2xi32>}> {device = ""} : () -> tensor<2xi32>
// NO-INFERENCE:      "tf.Relu"(%arg0) {device = "/device:CPU:0"} : (tensor<3xf32>) -> tensor<*xf32>
// NO-INFERENCE:      "tf.Unpack"({{.*}}) <{axis = 0 : i64}> {device = ""} : (tensor<*xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)

// Calls and locations. A node whose op is a library function is a tf.LegacyCall of it. A function
// attribute's own attributes become `f.name` attributes of the op; FunctionDef resource arguments
// that alias carry tf._resource_arg_unique_id; a While whose output_shapes are recorded is
// shape_invariant and typed by them. With -mlir-print-debuginfo each op prints TensorFlow's
// location: fused["Op:", the nodes it was merged from (name@function), its own name (@function
// inside a function)]. The form, pruned to c and loop, runs: 1 * 2, and 1 counted up to 3.

// CALLS:      func.func @main(%arg0: tensor<i32> loc(unknown)) -> (tensor<*xi32>, tensor<i32>, tensor<*x!tf_type.resource>)
// CALLS:      %[[V:.*]], %{{.*}} = tf_executor.island wraps "tf.VarHandleOp"() {{.*}} loc(fused["VarHandleOp:", "v"])
// CALLS-NEXT: tf_executor.island wraps "tf.LegacyCall"(%[[V]], %[[V]]) <{_disable_call_shape_inference = false, f = @pick0}> {device = ""} : {{.*}} loc(fused["pick:", "p"])
// CALLS:      tf_executor.island wraps "tf.PartitionedCall"(%arg0) <{{{.*}} f = @twice0}> {device = "", f.how_many = 2 : i64} : (tensor<i32>) -> tensor<*xi32> loc(fused["PartitionedCall:", "folded@outer", "c"])
// CALLS-NEXT: tf_executor.island wraps "tf.While"(%arg0) <{body = @plus_one0, cond = @below_three0, is_stateless = false, parallel_iterations = 10 : i64, shape_invariant}> {device = ""} : (tensor<i32>) -> tensor<i32> loc(fused["While:", "loop"])
// CALLS:      func.func private @pick0(%arg0: tensor<*x!tf_type.resource> {tf._resource_arg_unique_id = 0 : i64} loc(unknown), %arg1: tensor<*x!tf_type.resource> {tf._resource_arg_unique_id = 0 : i64} loc(unknown))
// CALLS:      func.func private @twice0(
// CALLS-NEXT:   tf_executor.graph {
// CALLS-NEXT:     tf_executor.island wraps "tf.AddV2"(%arg0, %arg0) {{.*}} loc(fused["AddV2:", "s@twice"])

// --graphdef-to-splatted-mlir gives the same text: TF's splatting rewrites the `value` of a function's
// top-level ops, and in the tf_executor form every constant is inside an island. A FunctionDef
// attribute naming a function is #tf_type.func<@name, {its attributes}>, and
// -tf-set-original-tf-func-name-on-import records each function's name before renaming.
// ORIGINAL: func.func private @twice0(%arg0: tensor<*xi32>) -> tensor<*xi32> attributes {tf._implements = #tf_type.func<@tensorflow.twice, {k = 1 : i64}>, tf._original_func_name = "twice"}

// Ops tinytf lacks that TF types by their attributes, with or without shape inference: InfeedDequeue
// (shape, dtype), IteratorGetNext (output_shapes, output_types).
// ATTR-TYPED: "tf.InfeedDequeue"() {device = "", dtype = f32, shape = #tf_type.shape<2x?>} : () -> tensor<2x?xf32>
// ATTR-TYPED: %[[BATCH:.*]]:2, %{{.*}} = tf_executor.island wraps "tf.IteratorGetNext"({{.*}}) -> (tensor<4xi32>, tensor<*xf32>)
// ATTR-TYPED: tf_executor.fetch %{{.*}}, %[[BATCH]]#1 : tensor<2x?xf32>, tensor<*xf32>

// CALLVALUES:      out0: int32 []
// CALLVALUES-NEXT: 2
// CALLVALUES-NEXT: out1: int32 []
// CALLVALUES-NEXT: 3
