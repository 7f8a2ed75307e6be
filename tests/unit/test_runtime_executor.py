"""The graph executor and tt.load_mlir: flat plans, last-use freeing, calls, control flow, resources."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from tinytf.runtime.executor import Program

PARTIAL = """
func.func @main(%x: tensor<?x2xf32>, %w: tensor<*xf32>) -> tensor<*xf32> {
  %c = "tf.Const"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %0 = "tf.MatMul"(%x, %w) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<?x2xf32>, tensor<*xf32>) -> tensor<4x?xf32>
  %1 = "tf.AddV2"(%0, %c) : (tensor<4x?xf32>, tensor<f32>) -> tensor<*xf32>
  %2 = "tf.PartitionedCall"(%1) <{config = "", config_proto = "", executor_type = "", f = @square}> : (tensor<*xf32>) -> tensor<*xf32>
  return %2 : tensor<*xf32>
}
func.func private @square(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.Mul"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
"""


def test_shapes_are_computed_at_run_time_not_trusted():
    m = tt.load_mlir(PARTIAL)
    x = np.arange(6, dtype=np.float32).reshape(3, 2)  # the IR says the matmul is 4x?; it is 3x3 here
    w = np.ones((2, 3), np.float32)
    (out,) = m.run(x, w)
    np.testing.assert_allclose(out, (x @ w + 1) ** 2)
    assert out.shape == (3, 3) and out.dtype == np.float32


def test_constants_are_decoded_once_and_values_freed_after_last_use():
    program = Program(mlir.parse(PARTIAL))
    plan = program.plan("main")
    assert len(plan.steps) == 3  # MatMul, AddV2, PartitionedCall: the Const is in the template
    assert sum(v is not None for v in plan.template) == 1
    freed = [set(step[3]) for step in plan.steps]
    # x (slot 0) and w (slot 1) die at the MatMul; its result and the constant die at the AddV2
    assert freed[0] == {0, 1}
    assert freed[1] == {2, 3}
    assert plan.results[0] not in set().union(*freed)


def test_dying_values_are_released_during_the_run():
    import weakref

    text = """
    func.func @main(%x: tensor<1000xf32>) -> tensor<1000xf32> {
      %0 = "tf.Exp"(%x) : (tensor<1000xf32>) -> tensor<1000xf32>
      %1 = "tf.Neg"(%0) : (tensor<1000xf32>) -> tensor<1000xf32>
      %2 = "tf.Abs"(%1) : (tensor<1000xf32>) -> tensor<1000xf32>
      return %2 : tensor<1000xf32>
    }"""
    program = Program(mlir.parse(text))
    plan = program.plan("main")
    seen = []
    # wrap the Neg step to check that Exp's result is gone right after the Neg ran
    run_neg = plan.steps[1][0]

    def spy(arrays):
        seen.append(weakref.ref(arrays[0]))
        return run_neg(arrays)

    plan.steps[1] = (spy,) + tuple(plan.steps[1][1:])
    run_abs = plan.steps[2][0]

    def check(arrays):
        # freed after its last use, or its buffer forwarded to be Neg's result (which Abs reads now)
        assert seen[0]() is None or seen[0]() is arrays[0], "Exp's result should be gone after its last use"
        return run_abs(arrays)

    plan.steps[2] = (check,) + tuple(plan.steps[2][1:])
    (out,) = program.run("main", [np.zeros(1000, np.float32)])
    np.testing.assert_array_equal(out, np.ones(1000, np.float32))


CONTROL = """
func.func @main(%p: tensor<i1>, %x: tensor<3xf32>, %n: tensor<i32>, %k: tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = "tf.StatelessIf"(%p, %x) <{else_branch = @neg, is_stateless = true, then_branch = @twice}> : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
  %i = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %1:3 = "tf.While"(%i, %n, %x) <{body = @body, cond = @cond, is_stateless = true, parallel_iterations = 10 : i64, shape_invariant}> : (tensor<i32>, tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<i32>, tensor<3xf32>)
  %2 = "tf.Case"(%k, %x) <{branches = [@twice, @neg], is_stateless = true}> : (tensor<i32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1#2, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func private @twice(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tf.AddV2"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @neg(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tf.Neg"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @cond(%i: tensor<i32>, %n: tensor<i32>, %a: tensor<3xf32>) -> tensor<i1> {
  %0 = "tf.Less"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
  return %0 : tensor<i1>
}
func.func private @body(%i: tensor<i32>, %n: tensor<i32>, %a: tensor<3xf32>) -> (tensor<i32>, tensor<i32>, tensor<3xf32>) {
  %one = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %0 = "tf.AddV2"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %1 = "tf.AddV2"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %n, %1 : tensor<i32>, tensor<i32>, tensor<3xf32>
}
"""


@pytest.mark.parametrize("pred, n, k", [(True, 3, 0), (False, 0, 1), (True, 5, 7), (False, 1, -1)])
def test_if_while_case_call_module_functions(pred, n, k):
    x = np.array([1.0, -2.0, 3.0], np.float32)
    m = tt.load_mlir(CONTROL)
    cond, loop, case = m.run(np.array(pred), x, np.int32(n), np.int32(k))
    np.testing.assert_array_equal(cond, 2 * x if pred else -x)
    np.testing.assert_array_equal(loop, x * 2.0 ** n)
    np.testing.assert_array_equal(case, 2 * x if k == 0 else -x)  # out of range: the last branch


def test_unknown_op_is_unimplemented_with_location():
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.NoSuchOp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    with pytest.raises(UnimplementedError) as err:
        tt.load_mlir(text).run(np.zeros(2, np.float32))
    assert "tf.NoSuchOp" in str(err.value) and "<string>:2:3" in str(err.value)


def test_error_in_a_callee_names_the_callee_op_location():
    text = PARTIAL.replace('"tf.Mul"(%a, %a)', '"tf.Unknown2"(%a, %a)')
    with pytest.raises(UnimplementedError, match=r"tf\.Unknown2") as err:
        tt.load_mlir(text).run(np.ones((1, 2), np.float32), np.ones((2, 1), np.float32))
    assert str(err.value).count("<string>:") == 1


def test_kernel_errors_carry_the_op_location():
    with pytest.raises(InvalidArgumentError, match=r"<string>:4:\d+: .*MatMul"):
        tt.load_mlir(PARTIAL).run(np.ones((2, 2), np.float32), np.ones((3, 3), np.float32))


def test_resource_arguments_bind_to_variables():
    text = """func.func @main(%x: tensor<2xf32>, %v: tensor<*x!tf_type.resource>) -> tensor<*xf32> {
  %0 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  "tf.AssignAddVariableOp"(%v, %x) : (tensor<*x!tf_type.resource>, tensor<2xf32>) -> ()
  %1 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %2 = "tf.Sub"(%1, %0) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %2 : tensor<*xf32>
}"""
    m = tt.load_mlir(text)
    v = tt.Variable([1.0, 1.0])
    (out,) = m.run(np.array([2.0, 3.0], np.float32), v)
    np.testing.assert_array_equal(out, [2.0, 3.0])  # the first read was a snapshot
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    (out,) = m.run(np.array([1.0, 1.0], np.float32), np.zeros(2, np.float32))  # a plain initial value
    np.testing.assert_array_equal(out, [1.0, 1.0])


def test_var_handle_op_in_a_graph():
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %v = "tf.VarHandleOp"() <{container = "", shared_name = "acc"}> : () -> tensor<!tf_type.resource<tensor<2xf32>>>
  "tf.AssignVariableOp"(%v, %x) <{validate_shape = false}> : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  %0 = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    m = tt.load_mlir(text)
    (out,) = m.run(np.array([4.0, 5.0], np.float32))
    np.testing.assert_array_equal(out, [4.0, 5.0])
    reading = text.replace('''  "tf.AssignVariableOp"(%v, %x) <{validate_shape = false}> : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
''', "").replace('shared_name = "acc"', 'shared_name = "never_assigned"')
    from tinytf.errors import FailedPreconditionError

    with pytest.raises(FailedPreconditionError):
        tt.load_mlir(reading).run(np.zeros(2, np.float32))


def test_entry_function_choice():
    two = PARTIAL.replace("func.func private @square", "func.func @square")
    m = tt.load_mlir(two)
    assert m.entry().sym_name.data == "main"  # two public functions: main
    out = m.run(np.float32([3.0]), entry="square")
    np.testing.assert_array_equal(out[0], [9.0])
    renamed = two.replace("@main", "@first")
    with pytest.raises(InvalidArgumentError, match="entry"):
        tt.load_mlir(renamed).run(np.ones((1, 2), np.float32), np.ones((2, 1), np.float32))
    with pytest.raises(NotFoundError, match="nope"):
        m.run(entry="nope")
    tagged = renamed.replace("func.func @first(%x: tensor<?x2xf32>, %w: tensor<*xf32>) -> tensor<*xf32> {",
                             "func.func @first(%x: tensor<?x2xf32>, %w: tensor<*xf32>) -> tensor<*xf32> "
                             "attributes {tf.entry_function = {inputs = \"x,w\"}} {")
    assert tt.load_mlir(tagged).entry().sym_name.data == "first"


def test_argument_checks():
    m = tt.load_mlir(PARTIAL)
    with pytest.raises(InvalidArgumentError, match="takes 2 arguments"):
        m.run(np.ones((1, 2), np.float32))
    with pytest.raises(InvalidArgumentError, match="argument 0.*shape"):
        m.run(np.ones((1, 3), np.float32), np.ones((3, 1), np.float32))
    with pytest.raises(InvalidArgumentError, match="argument 0.*float32"):
        m.run(np.ones((1, 2), np.float64), np.ones((2, 1), np.float32))
    out = m.run([[1.0, 2.0]], np.ones((2, 1), np.float32))  # lists take the declared dtype
    np.testing.assert_array_equal(out[0], [[16.0]])


def test_unknown_backend():
    with pytest.raises(InvalidArgumentError, match="backend"):
        tt.load_mlir(PARTIAL).run(np.ones((1, 2), np.float32), np.ones((2, 1), np.float32), backend="tpu")


def test_missing_callee_is_not_found():
    text = PARTIAL.replace("f = @square", "f = @missing")
    with pytest.raises((NotFoundError, InvalidArgumentError), match="missing"):
        tt.load_mlir(text).run(np.ones((1, 2), np.float32), np.ones((2, 1), np.float32))


def test_endless_recursion_is_an_error_not_a_crash():
    text = """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @main}> : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}"""
    with pytest.raises(InvalidArgumentError, match="nested deeper"):
        tt.load_mlir(text).run(np.float32(1.0))


def test_while_with_a_stateful_body_updates_a_variable():
    text = """func.func @main(%n: tensor<i32>, %v: tensor<*x!tf_type.resource>) -> tensor<i32> {
  %i = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:3 = "tf.While"(%i, %n, %v) <{body = @body, cond = @cond, is_stateless = false, parallel_iterations = 10 : i64, shape_invariant}> : (tensor<i32>, tensor<i32>, tensor<*x!tf_type.resource>) -> (tensor<i32>, tensor<i32>, tensor<*x!tf_type.resource>)
  return %0#0 : tensor<i32>
}
func.func private @cond(%i: tensor<i32>, %n: tensor<i32>, %v: tensor<*x!tf_type.resource>) -> tensor<i1> {
  %0 = "tf.Less"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
  return %0 : tensor<i1>
}
func.func private @body(%i: tensor<i32>, %n: tensor<i32>, %v: tensor<*x!tf_type.resource>) -> (tensor<i32>, tensor<i32>, tensor<*x!tf_type.resource>) {
  %one = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %d = "tf.Const"() <{value = dense<2.5> : tensor<f32>}> : () -> tensor<f32>
  "tf.AssignAddVariableOp"(%v, %d) : (tensor<*x!tf_type.resource>, tensor<f32>) -> ()
  %0 = "tf.AddV2"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  return %0, %n, %v : tensor<i32>, tensor<i32>, tensor<*x!tf_type.resource>
}"""
    v = tt.Variable(np.float32(0.0))
    (count,) = tt.load_mlir(text).run(np.int32(4), v)
    assert count == 4 and v.numpy() == 10.0


def test_cluster_func_runs_its_callee_through_xla():
    text = """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf_device.cluster_func"(%a, %b) <{func = @cluster}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.Neg"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func private @cluster(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Mul"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    (out,) = tt.load_mlir(text).run(np.float32([2.0, 3.0]), np.float32([4.0, 5.0]))
    np.testing.assert_allclose(out, [-8.0, -15.0])
