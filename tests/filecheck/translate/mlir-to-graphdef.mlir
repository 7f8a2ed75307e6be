// RUN: tinytf-translate --mlir-to-graphdef %s | filecheck %s
// RUN: tinytf-translate --mlir-to-graphdef %s -o %t.pbtxt
// RUN: filecheck %s --input-file %t.pbtxt
// RUN: echo '"tf.Foo"() : () -> ()' | not tinytf-translate --mlir-to-graphdef - 2>&1 | filecheck %s --check-prefix=NO-MAIN
// RUN: echo 'func.func @main() { "tf.Foo"() : () -> () return }' | not tinytf-translate --mlir-to-graphdef - 2>&1 | filecheck %s --check-prefix=UNKNOWN

// A functional module as a GraphDef: @main's arguments are Placeholders (a resource argument a
// VarHandleOp) named by tf.entry_function; each op a NodeDef named after its type, with TensorFlow's
// typing attributes (T, Tidx, dtype, Tin/Tout, num_split) beside its own; the side-effecting ops are
// chained by control inputs in block order, and the fetched nodes (named by the entry function's
// outputs) wait for the last one. tf.If with is_stateless is StatelessIf; the other functions are
// FunctionDefs whose inputs name output arguments (SplitV:output:1) and whose side effects are
// control_rets.

module attributes {tf.versions = {bad_consumers = [], min_consumer = 0 : i32, producer = 2474 : i32}} {
  func.func @main(%arg0: tensor<2x4xf32> {tf._user_specified_name = "x"}, %arg1: tensor<i32>, %arg2: tensor<!tf_type.resource<tensor<i64>>>) -> (tensor<2x4xf32>, tensor<i64>) attributes {tf.entry_function = {control_outputs = "", inputs = "x,n,counter", outputs = "out,count"}} {
    %0 = "tf.Const"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
    "tf.AssignAddVariableOp"(%arg2, %0) : (tensor<!tf_type.resource<tensor<i64>>>, tensor<i64>) -> ()
    %1 = "tf.ReadVariableOp"(%arg2) : (tensor<!tf_type.resource<tensor<i64>>>) -> tensor<i64>
    %2 = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %3 = "tf.Sum"(%arg0, %2) <{keep_dims = true}> : (tensor<2x4xf32>, tensor<i32>) -> tensor<2x1xf32>
    %4 = "tf.Const"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
    %5 = "tf.Less"(%4, %3) : (tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xi1>
    %6 = "tf.All"(%5, %2) <{keep_dims = false}> : (tensor<2x1xi1>, tensor<i32>) -> tensor<2xi1>
    %7 = "tf.Const"() <{value = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %8 = "tf.All"(%6, %7) <{keep_dims = false}> : (tensor<2xi1>, tensor<1xi32>) -> tensor<i1>
    %9 = "tf.If"(%8, %arg0) <{else_branch = @negate, is_stateless = true, then_branch = @halves}> : (tensor<i1>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %10 = "tf.Identity"(%9) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %10, %1 : tensor<2x4xf32>, tensor<i64>
  }
  func.func private @halves(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %0 = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %1 = "tf.Const"() <{value = dense<2> : tensor<2xi64>}> : () -> tensor<2xi64>
    %2:2 = "tf.SplitV"(%arg0, %1, %0) : (tensor<2x4xf32>, tensor<2xi64>, tensor<i32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
    %3 = "tf.AddN"(%2#1, %2#0) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %4 = "tf.Const"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %5 = "tf.Tile"(%3, %4) : (tensor<2x2xf32>, tensor<2xi32>) -> tensor<2x4xf32>
    return %5 : tensor<2x4xf32>
  }
  func.func private @negate(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %0 = "tf.Neg"(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}

// CHECK-LABEL: {{^}}  name: "x"
// CHECK-NEXT:   op: "Placeholder"
// CHECK:          key: "dtype"
// CHECK-NEXT:     value {
// CHECK-NEXT:       type: DT_FLOAT
// CHECK-LABEL: {{^}}  name: "n"
// CHECK-NEXT:   op: "Placeholder"
// CHECK-LABEL: {{^}}  name: "counter"
// CHECK-NEXT:   op: "VarHandleOp"
// CHECK:          key: "dtype"
// CHECK-NEXT:     value {
// CHECK-NEXT:       type: DT_INT64
// CHECK:          key: "shared_name"
// CHECK-NEXT:     value {
// CHECK-NEXT:       s: "counter"
// CHECK-LABEL: {{^}}  name: "AssignAddVariableOp"
// CHECK-NEXT:   op: "AssignAddVariableOp"
// CHECK-NEXT:   input: "counter"
// CHECK-NEXT:   input: "Const"
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "dtype"
// CHECK-NEXT:     value {
// CHECK-NEXT:       type: DT_INT64
// CHECK-LABEL: {{^}}  name: "count"
// CHECK-NEXT:   op: "ReadVariableOp"
// CHECK-NEXT:   input: "counter"
// CHECK-NEXT:   input: "^AssignAddVariableOp"
// CHECK-LABEL: {{^}}  name: "Sum"
// CHECK-NEXT:   op: "Sum"
// CHECK-NEXT:   input: "x"
// CHECK-NEXT:   input: "Const_1"
// CHECK:          key: "T"
// CHECK-NEXT:     value {
// CHECK-NEXT:       type: DT_FLOAT
// CHECK:          key: "Tidx"
// CHECK-NEXT:     value {
// CHECK-NEXT:       type: DT_INT32
// CHECK:          key: "keep_dims"
// CHECK-NEXT:     value {
// CHECK-NEXT:       b: true
// CHECK-LABEL: {{^}}  name: "If"
// CHECK-NEXT:   op: "StatelessIf"
// CHECK-NEXT:   input: "All_1"
// CHECK-NEXT:   input: "x"
// CHECK:          key: "Tcond"
// CHECK-NEXT:     value {
// CHECK-NEXT:       type: DT_BOOL
// CHECK:          key: "Tin"
// CHECK-NEXT:     value {
// CHECK-NEXT:       list {
// CHECK-NEXT:         type: DT_FLOAT
// CHECK:          key: "else_branch"
// CHECK-NEXT:     value {
// CHECK-NEXT:       func {
// CHECK-NEXT:         name: "negate"
// CHECK-NOT:      is_stateless
// CHECK-LABEL: {{^}}  name: "out"
// CHECK-NEXT:   op: "Identity"
// CHECK-NEXT:   input: "If"
// CHECK-NEXT:   input: "^count"
// CHECK:      library {
// CHECK-NEXT:   function {
// CHECK-NEXT:     signature {
// CHECK-NEXT:       name: "halves"
// CHECK-NEXT:       input_arg {
// CHECK-NEXT:         name: "arg0"
// CHECK-NEXT:         type: DT_FLOAT
// CHECK-NEXT:       }
// CHECK-NEXT:       output_arg {
// CHECK-NEXT:         name: "tile"
// CHECK-NEXT:         type: DT_FLOAT
// CHECK:            name: "SplitV"
// CHECK-NEXT:       op: "SplitV"
// CHECK-NEXT:       input: "arg0"
// CHECK-NEXT:       input: "Const_1:output:0"
// CHECK-NEXT:       input: "Const:output:0"
// CHECK:              key: "Tlen"
// CHECK-NEXT:         value {
// CHECK-NEXT:           type: DT_INT64
// CHECK:              key: "num_split"
// CHECK-NEXT:         value {
// CHECK-NEXT:           i: 2
// CHECK:            name: "AddN"
// CHECK-NEXT:       op: "AddN"
// CHECK-NEXT:       input: "SplitV:output:1"
// CHECK-NEXT:       input: "SplitV:output:0"
// CHECK:              key: "N"
// CHECK-NEXT:         value {
// CHECK-NEXT:           i: 2
// CHECK:          ret {
// CHECK-NEXT:       key: "tile"
// CHECK-NEXT:       value: "Tile:output:0"
// CHECK:        function {
// CHECK-NEXT:     signature {
// CHECK-NEXT:       name: "negate"
// CHECK:      versions {
// CHECK-NEXT:   producer: 2474
// CHECK-NEXT: }

// Errors are one line: no entry function; an op tinytf does not define (its OpDef is unknown).
// NO-MAIN: tinytf-translate: error: entry function `main` must be present
// UNKNOWN: tinytf-translate: error: @main, op 1 (tf.Foo): tinytf cannot export 'tf.Foo' (not a tinytf op: its OpDef is unknown)
