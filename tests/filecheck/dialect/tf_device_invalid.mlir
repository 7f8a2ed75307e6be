// tf_device ops that TensorFlow refuses, each refused with TensorFlow's words on the line of the
// designator: --verify-diagnostics checks every expected-error of every case, and fails on one that
// is not reported or on a diagnostic nobody expected (tinytf-opt exits 0 only when all match).
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics

// Parser errors of the custom form.
func.func @replicate_n_too_small(%a: tensor<*xf32>) {
  // expected-error@+1 {{custom op 'tf_device.replicate' expects 'n' to be at least 2, got 1}}
  tf_device.replicate([%a] as %ri: tensor<*xf32>) {n = 1 : i32} {
  }
  func.return
}

// -----

func.func @replicate_group_size(%a: tensor<*xf32>) {
  tf_device.replicate([%a, %a, %a] as %ri: tensor<*xf32>) {n = 2 : i32} {
  // expected-error@-1 {{expects number of operands for replicated input 0 to be 'n' (2), got 3}}
  }
  func.return
}

// -----

// expected-note@+1 {{prior use here}}
func.func @replicate_operand_type(%a: tensor<*xi32>) {
  // expected-error@+1 {{use of value '%a' expects different type than prior uses: 'tensor<*xf32>' vs 'tensor<*xi32>'}}
  tf_device.replicate([%a, %a] as %ri: tensor<*xf32>) {n = 2 : i32} {
  }
  func.return
}

// -----

func.func @replicate_ends_with_another_terminator() {
  // expected-error@+1 {{custom op 'tf_device.replicate' expects a tf_device.return terminator}}
  tf_device.replicate {n = 2 : i32} {
    func.return
  }
  func.return
}

// -----

// Verifier errors, and two functions of one case: each function's first error is reported.
func.func @replicate_devices_per_replica() {
  // expected-error@+1 {{'tf_device.replicate' op expects number of devices (2) to be equal to 'n' (3)}}
  "tf_device.replicate"() ({
    tf_device.return
  }) {devices = {CORE_0 = ["/DEVICE:0", "/DEVICE:1"]}, n = 3 : i32, operandSegmentSizes = array<i32: 0, 0>} : () -> ()
  func.return
}
func.func @replicate_results(%a: tensor<*xi32>) {
  // expected-error@+1 {{'tf_device.replicate' op expects number of results (3) to be equal to 'n' * number of terminator operands (2 * 1)}}
  %r:3 = "tf_device.replicate"() ({
    tf_device.return %a : tensor<*xi32>
  }) {n = 2 : i32, operandSegmentSizes = array<i32: 0, 0>} : () -> (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>)
  func.return
}

// -----

func.func @replicate_block_arguments(%a: tensor<*xi32>) {
  // expected-error@+1 {{'tf_device.replicate' op expects number of block arguments (2) to be equal to number of replicated inputs (3) / 'n' (3) + number of packed inputs (2)}}
  "tf_device.replicate"(%a, %a, %a, %a, %a) ({
  ^entry(%x: tensor<*xi32>, %y: tensor<*xi32>):
    tf_device.return
  }) {n = 3 : i32, operandSegmentSizes = array<i32: 3, 2>} : (tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>, tensor<*xi32>) -> ()
  func.return
}

// -----

func.func @replicate_operand_and_argument(%a: tensor<*xi32>, %b: tensor<*xi1>) {
  // expected-error@+1 {{'tf_device.replicate' op expects operand 1 ('tensor<*xi1>') and block argument 0 ('tensor<*xi32>') to have compatible types}}
  "tf_device.replicate"(%a, %b) ({
  ^entry(%x: tensor<*xi32>):
    tf_device.return
  }) {n = 2 : i32, operandSegmentSizes = array<i32: 2, 0>} : (tensor<*xi32>, tensor<*xi1>) -> ()
  func.return
}

// -----

// A bad op inside a region is named before the region's terminator is checked (MLIR's order).
func.func @return_outside_its_function() {
  "tf_device.replicate"() ({
  ^entry:
    // expected-error@+1 {{'func.return' op expects parent op 'func.func'}}
    func.return
  }) {n = 2 : i32, operandSegmentSizes = array<i32: 0, 0>} : () -> ()
  func.return
}

// -----

// An op tinytf does not know may be a terminator (TensorFlow's dialect takes unknown ops): the
// launch names it. A known op that is not one ends its block without a terminator.
func.func @launch_without_return(%a: tensor<f32>) {
  // expected-error@+1 {{'tf_device.launch' op expects regions to end with 'tf_device.return', found 'tf.SomeUnknownOp'}}
  "tf_device.launch"() ({
    "tf.SomeUnknownOp"(%a) : (tensor<f32>) -> ()
  }) {device = "/device:CPU:0"} : () -> ()
  func.return
}
func.func @launch_block_without_terminator(%a: tensor<f32>) {
  "tf_device.launch"() ({
    // expected-error@+1 {{block with no terminator, has 'tf.Neg'}}
    %0 = "tf.Neg"(%a) : (tensor<f32>) -> tensor<f32>
  }) {device = "/device:CPU:0"} : () -> ()
  func.return
}

// -----

func.func @parallel_execute_without_regions() {
  // expected-error@+1 {{'tf_device.parallel_execute' op must have at least one region.}}
  "tf_device.parallel_execute"() : () -> ()
  func.return
}

// -----

func.func @parallel_execute_empty_region() {
  // expected-error@+1 {{'tf_device.parallel_execute' op region #0 ('regions') failed to verify constraint: region with 1 blocks}}
  "tf_device.parallel_execute"() ({
  }, {
    tf_device.return
  }) : () -> ()
  func.return
}

// -----

func.func @parallel_execute_output_count() {
  // expected-error@+1 {{'tf_device.parallel_execute' op number of output types (2) must match the total number of outputs from all regions (1).}}
  %0:2 = "tf_device.parallel_execute"() ({
    %1 = "tf.opA"() : () -> tensor<i1>
    tf_device.return %1 : tensor<i1>
  }) : () -> (tensor<i1>, tensor<i1>)
  func.return
}

// -----

func.func @parallel_execute_output_types() {
  // expected-error@+1 {{'tf_device.parallel_execute' op output types must be a concatenated list of output types for each regions.}}
  %0 = "tf_device.parallel_execute"() ({
    %1 = "tf.opA"() : () -> tensor<i1>
    tf_device.return %1 : tensor<i1>
  }) : () -> tensor<i32>
  func.return
}

// -----

func.func @cluster_func_callee(%a: tensor<i32>) -> tensor<i32> {
  // expected-error@+1 {{'tf_device.cluster_func' op 'func' attribute refers to an undefined function: undefined_func}}
  %0 = "tf_device.cluster_func"(%a) <{func = @undefined_func}> : (tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}
