"""Plans specialized to their arguments' types (tinytf/runtime/specialized_plan.py): a function whose IR types
are partial (TensorFlow's exports) runs bare kernels once its argument types repeat, a tf.While body that keeps
its types runs every iteration with one plan, and every value equals the general plan's and numpy's."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError
from tinytf.runtime import specialized_plan
from tinytf.runtime.executor import Plan, Program
from tinytf.runtime.specialized_plan import SpecializedPlan

# An RNN as Keras exports it: weights read as tensor<*xf32>, a matmul typed 2x?, a TensorList of the steps.
RNN = """
func.func @main(%x: tensor<?x?x3xf32>, %w: tensor<*x!tf_type.resource>, %u: tensor<*x!tf_type.resource>) -> tensor<i32> {
  %zero = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %n = "tf.Const"() <{value = dense<4> : tensor<i32>}> : () -> tensor<i32>
  %perm = "tf.Const"() <{value = dense<[1, 0, 2]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %eshape = "tf.Const"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %xt = "tf.Transpose"(%x, %perm) : (tensor<?x?x3xf32>, tensor<3xi32>) -> tensor<?x?x3xf32>
  %steps = "tf.TensorListFromTensor"(%xt, %eshape) : (tensor<?x?x3xf32>, tensor<2xi32>) -> tensor<!tf_type.variant<tensor<?x3xf32>>>
  %out:5 = "tf.While"(%zero, %n, %steps, %w, %u) <{body = @body, cond = @cond, is_stateless = false, parallel_iterations = 32 : i64}> : (tensor<i32>, tensor<i32>, tensor<!tf_type.variant<tensor<?x3xf32>>>, tensor<*x!tf_type.resource>, tensor<*x!tf_type.resource>) -> (tensor<i32>, tensor<i32>, tensor<!tf_type.variant<tensor<?x3xf32>>>, tensor<*x!tf_type.resource>, tensor<*x!tf_type.resource>)
  return %out#0 : tensor<i32>
}
func.func private @cond(%i: tensor<i32>, %n: tensor<i32>, %l: tensor<!tf_type.variant<tensor<?x3xf32>>>, %w: tensor<*x!tf_type.resource>, %u: tensor<*x!tf_type.resource>) -> tensor<i1> {
  %0 = "tf.Less"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
  return %0 : tensor<i1>
}
func.func private @body(%i: tensor<i32>, %n: tensor<i32>, %l: tensor<!tf_type.variant<tensor<?x3xf32>>>, %w: tensor<*x!tf_type.resource>, %u: tensor<*x!tf_type.resource>) -> (tensor<i32>, tensor<i32>, tensor<!tf_type.variant<tensor<?x3xf32>>>, tensor<*x!tf_type.resource>, tensor<*x!tf_type.resource>) {
  %one = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %eshape = "tf.Const"() <{value = dense<[-1, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %0 = "tf.AddV2"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %w0 = "tf.ReadVariableOp"(%w) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %u0 = "tf.ReadVariableOp"(%u) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %x = "tf.TensorListGetItem"(%l, %i, %eshape) : (tensor<!tf_type.variant<tensor<?x3xf32>>>, tensor<i32>, tensor<2xi32>) -> tensor<?x3xf32>
  %1 = "tf.MatMul"(%x, %w0) <{transpose_a = false, transpose_b = false}> : (tensor<?x3xf32>, tensor<*xf32>) -> tensor<?x?xf32>
  %2 = "tf.Tanh"(%1) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = "tf.MatMul"(%2, %u0) <{transpose_a = false, transpose_b = false}> : (tensor<?x?xf32>, tensor<*xf32>) -> tensor<?x?xf32>
  %4:3 = "tf.Split"(%one, %3) : (tensor<i32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  %5 = "tf.Sigmoid"(%4#1) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %6 = "tf.Mul"(%5, %4#2) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %7 = "tf.AddV2"(%6, %4#0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x3xf32>
  %8 = "tf.Identity"(%7) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %l2 = "tf.TensorListSetItem"(%l, %i, %8) : (tensor<!tf_type.variant<tensor<?x3xf32>>>, tensor<i32>, tensor<?x3xf32>) -> tensor<!tf_type.variant<tensor<?x3xf32>>>
  return %0, %n, %l2, %w, %u : tensor<i32>, tensor<i32>, tensor<!tf_type.variant<tensor<?x3xf32>>>, tensor<*x!tf_type.resource>, tensor<*x!tf_type.resource>
}
"""


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _rnn_reference(x, w, u):
    """The body of RNN, step by step in numpy: the list's items after the loop."""
    items = []
    for t in range(4):
        h = np.tanh(x[:, t] @ w) @ u
        a, b, c = np.split(h, 3, axis=1)
        items.append(_sigmoid(b) * c + a)
    return np.stack(items)


def _rnn_module_returning_the_list():
    """RNN whose entry also stacks the list the loop filled."""
    text = RNN.replace("return %out#0 : tensor<i32>", """
  %shape = "tf.Const"() <{value = dense<[-1, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %s = "tf.TensorListStack"(%out#2, %shape) <{num_elements = 4 : i64}> : (tensor<!tf_type.variant<tensor<?x3xf32>>>, tensor<2xi32>) -> tensor<*xf32>
  return %out#0, %s : tensor<i32>, tensor<*xf32>""").replace("-> tensor<i32> {\n  %zero", "-> (tensor<i32>, tensor<*xf32>) {\n  %zero")
    return tt.load_mlir(text)


def _weights(seed, hidden=5):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((2, 4, 3)).astype(np.float32), rng.standard_normal((3, hidden)).astype(np.float32),
            rng.standard_normal((hidden, 9)).astype(np.float32))


def test_a_loop_body_of_partial_types_runs_one_specialized_plan_and_matches_numpy():
    m = _rnn_module_returning_the_list()
    x, w, u = _weights(0)
    for _ in range(3):  # the first call compiles as the loop runs; later calls reuse the plans
        count, stacked = m.run(x, tt.Variable(w), tt.Variable(u))
        assert int(count) == 4
        np.testing.assert_allclose(stacked, _rnn_reference(x, w, u), rtol=1e-5, atol=1e-6)
    body = [p for p in m._program.specializer.tables["body"].values() if isinstance(p, SpecializedPlan)]
    assert len(body) == 1 and body[0].fixed_point
    # every step but the Identity (an assignment) is a bare call, the list ops' run-time index included (the
    # weights are read, not computed with: no frozen-reads step)
    bare = [body[0].names[i] for i in sorted(body[0].bare)]
    assert bare == [n for n in body[0].names if n != "tf.Identity"]
    assert {"tf.MatMul", "tf.Split", "tf.TensorListGetItem", "tf.TensorListSetItem"} <= set(bare)
    # the entry knows what the loop gives back (its body keeps the types), so the stack after it is bare too
    main, = [p for p in m._program.specializer.tables["main"].values() if isinstance(p, SpecializedPlan)]
    assert "tf.TensorListStack" in {main.names[i] for i in main.bare}


def test_specialized_and_general_plans_give_the_same_bits():
    x, w, u = _weights(1)
    fast = _rnn_module_returning_the_list()
    general = _rnn_module_returning_the_list()
    general._program.specializer = _NeverSpecialize()
    for _ in range(3):
        got = fast.run(x, tt.Variable(w), tt.Variable(u))
        want = general.run(x, tt.Variable(w), tt.Variable(u))
        for g, e in zip(got, want):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_array_equal(g, e)
    assert not general._program.specializer.tables


class _NeverSpecialize(specialized_plan.Specializer):
    def plan_for(self, plan, values, sightings=2, key=None):
        return None


def test_new_argument_types_get_their_own_plan():
    m = _rnn_module_returning_the_list()
    for hidden in (5, 7, 5, 7, 4):  # the weights' shapes, which the IR leaves open (tensor<*xf32>)
        x, w, u = _weights(hidden, hidden)
        _, stacked = m.run(x, tt.Variable(w), tt.Variable(u))
        np.testing.assert_allclose(stacked, _rnn_reference(x, w, u), rtol=1e-5, atol=1e-6)
    table = m._program.specializer.tables["body"]
    assert sum(isinstance(p, SpecializedPlan) for p in table.values()) == 3


def test_a_body_that_changes_its_types_keeps_the_general_plan():
    text = """
    func.func @main(%x: tensor<1xf32>) -> tensor<?xf32> {
      %zero = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %0:2 = "tf.While"(%zero, %x) <{body = @grow, cond = @few, is_stateless = true, parallel_iterations = 10 : i64,
                                      shape_invariant}> : (tensor<i32>, tensor<1xf32>) -> (tensor<i32>, tensor<?xf32>)
      return %0#1 : tensor<?xf32>
    }
    func.func private @few(%i: tensor<i32>, %a: tensor<?xf32>) -> tensor<i1> {
      %n = "tf.Const"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
      %0 = "tf.Less"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
      return %0 : tensor<i1>
    }
    func.func private @grow(%i: tensor<i32>, %a: tensor<?xf32>) -> (tensor<i32>, tensor<?xf32>) {
      %one = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %axis = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
      %0 = "tf.AddV2"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %1 = "tf.Mul"(%a, %a) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
      %2 = "tf.ConcatV2"(%a, %1, %axis) : (tensor<?xf32>, tensor<?xf32>, tensor<i32>) -> tensor<?xf32>
      return %0, %2 : tensor<i32>, tensor<?xf32>
    }"""
    m = tt.load_mlir(text)
    x = np.array([1.5], np.float32)
    want = x
    for _ in range(5):
        want = np.concatenate([want, want * want])
    for _ in range(3):
        (got,) = m.run(x)
        np.testing.assert_array_equal(got, want)
    plans = m._program.specializer.tables.get("grow", {}).values()
    assert not any(isinstance(p, SpecializedPlan) and p.fixed_point for p in plans)
    # one new signature per length: past MAX_SIGNATURES the body stays general
    assert len(m._program.specializer.tables["grow"]) <= specialized_plan.MAX_SIGNATURES


def test_variables_of_a_partial_declared_shape_are_read_at_their_current_shapes():
    text = """
    func.func @main(%v: tensor<*x!tf_type.resource>) -> tensor<*xf32> {
      %0 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
      %1 = "tf.Exp"(%0) : (tensor<*xf32>) -> tensor<*xf32>
      %2 = "tf.AddV2"(%1, %0) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
      return %2 : tensor<*xf32>
    }"""
    m = tt.load_mlir(text)
    for n in (2, 2, 2, 5, 5, 3):  # one signature (float32, declared [None]): reads of any length
        value = np.linspace(-1, 1, n).astype(np.float32)
        (got,) = m.run(tt.Variable(value, shape=[None]))
        np.testing.assert_allclose(got, np.exp(value) + value, rtol=1e-6)


def test_a_variable_of_a_static_shape_gives_static_reads():
    text = """
    func.func @main(%x: tensor<2x3xf32>, %v: tensor<*x!tf_type.resource>) -> tensor<?x?xf32> {
      %0 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
      %1 = "tf.MatMul"(%x, %0) <{transpose_a = false, transpose_b = false}> : (tensor<2x3xf32>, tensor<*xf32>) -> tensor<?x?xf32>
      %2 = "tf.Relu"(%1) : (tensor<?x?xf32>) -> tensor<?x?xf32>
      return %2 : tensor<?x?xf32>
    }"""
    m = tt.load_mlir(text)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    v = tt.Variable(np.linspace(-1, 1, 12).astype(np.float32).reshape(3, 4))
    for _ in range(3):
        (got,) = m.run(x, v)
        np.testing.assert_allclose(got, np.maximum(x @ v.numpy(), 0), rtol=1e-6)
    plan, = [p for p in m._program.specializer.tables["main"].values() if isinstance(p, SpecializedPlan)]
    assert {plan.names[i] for i in plan.bare} == {"tf.ReadVariableOp", "tf.MatMul", "tf.Relu"}


def test_errors_inside_a_specialized_loop_are_the_general_plans():
    text = RNN.replace('"tf.Const"() <{value = dense<4> : tensor<i32>}>', '"tf.Const"() <{value = dense<6> : tensor<i32>}>')
    m = tt.load_mlir(text)
    x, w, u = _weights(2)
    for _ in range(2):  # the loop runs specialized from its second iteration on
        with pytest.raises(InvalidArgumentError, match="Trying to access element 4 in a list with 4 elements"):
            m.run(x, tt.Variable(w), tt.Variable(u))


def test_a_parallel_program_keeps_its_own_plans():
    from tinytf.runtime.parallel import ParallelProgram

    program = ParallelProgram(mlir.parse(RNN), max_workers=2)
    x, w, u = _weights(3)
    for _ in range(3):
        out = program.run("main", [x, tt.Variable(w), tt.Variable(u)])
        assert int(out[0]) == 4
    assert type(program.plan("main")) is not Plan and program.specializer is None


def test_specialized_programs_of_a_traced_function_are_untouched():
    @tt.function
    def f(x):
        return tt.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [0, x])[1]

    x = tt.constant(np.ones(3, np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(f(x).numpy(), np.full(3, 8.0, np.float32))


def test_program_with_no_repeats_compiles_nothing():
    program = Program(mlir.parse(RNN))
    x, w, u = _weights(4)
    program.run("main", [x, tt.Variable(w), tt.Variable(u)])
    # the loop body ran 4 times: it was specialized after its first iteration; main ran once: not
    assert any(isinstance(p, SpecializedPlan) for p in program.specializer.tables["body"].values())
    assert not any(isinstance(p, SpecializedPlan) for p in program.specializer.tables["main"].values())


CALLS = """
func.func @main(%x: tensor<?x3xf32>, %p: tensor<i1>, %k: tensor<i32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @square}> : (tensor<?x3xf32>) -> tensor<*xf32>
  %1 = "tf.If"(%p, %0) <{else_branch = @neg, then_branch = @exp, is_stateless = true}> : (tensor<i1>, tensor<*xf32>) -> tensor<*xf32>
  %2 = "tf.Tanh"(%1) : (tensor<*xf32>) -> tensor<*xf32>
  %3 = "tf.Case"(%k, %x) <{branches = [@neg, @rows], is_stateless = true}> : (tensor<i32>, tensor<?x3xf32>) -> tensor<*xf32>
  %4 = "tf.Tanh"(%3) : (tensor<*xf32>) -> tensor<*xf32>
  return %2, %4 : tensor<*xf32>, tensor<*xf32>
}
func.func private @square(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.Mul"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
func.func private @exp(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.Exp"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
func.func private @neg(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.Neg"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
func.func private @rows(%a: tensor<*xf32>) -> tensor<*xf32> {
  %axis = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %0 = "tf.Sum"(%a, %axis) <{keep_dims = false}> : (tensor<*xf32>, tensor<i32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
"""


@pytest.mark.parametrize("pred, k", [(True, 0), (False, 1)])
def test_calls_and_branches_give_their_result_types_to_the_caller(pred, k):
    m = tt.load_mlir(CALLS)
    x = np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3)
    for _ in range(3):
        first, second = m.run(x, np.array(pred), np.int32(k))
        np.testing.assert_allclose(first, np.tanh(np.exp(x * x) if pred else -(x * x)), rtol=1e-6)
        np.testing.assert_allclose(second, np.tanh(-x if k == 0 else x.sum(1)), rtol=1e-6)
    main, = [p for p in m._program.specializer.tables["main"].values() if isinstance(p, SpecializedPlan)]
    tanhs = [i for i, name in enumerate(main.names) if name == "tf.Tanh"]
    # both branches of the If give [2, 3]: its Tanh is bare; the Case's branches disagree ([2, 3], [2])
    assert tanhs[0] in main.bare and tanhs[1] not in main.bare


def test_a_function_that_calls_itself_is_still_an_error_when_specialized():
    text = """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @main}> : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}"""
    m = tt.load_mlir(text)
    for _ in range(3):
        with pytest.raises(InvalidArgumentError, match="nested deeper"):
            m.run(np.float32(1.0))


def test_a_traced_loop_gradient_specializes_its_partial_steps_and_matches_numpy():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 6)).astype(np.float32) * 0.5
    w = (rng.standard_normal((6, 6)) / 3).astype(np.float32)
    v = tt.Variable(w)

    @tt.function
    def grad(x, n):
        with tt.GradientTape() as tape:
            _, h = tt.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, tt.tanh(h @ v + x)), [0, x],
                                 maximum_iterations=7)
            loss = tt.reduce_sum(h * h)
        return tape.gradient(loss, v)

    hs = [x]  # backpropagation through time by hand
    for _ in range(7):
        hs.append(np.tanh(hs[-1] @ w + x))
    dh, want = 2 * hs[-1], np.zeros_like(w)
    for k in range(7, 0, -1):
        da = dh * (1 - hs[k] * hs[k])
        want += hs[k - 1].T @ da
        dh = da @ w.T
    for _ in range(3):
        np.testing.assert_allclose(grad(tt.constant(x), tt.constant(np.int32(7))).numpy(), want, rtol=1e-5, atol=1e-6)
    program = next(iter(grad._cache.values()))._program
    # the backward loop reads the rows the forward loop pushed on TensorLists at a run-time index: every
    # step of its body is a bare call (specialized where the IR's types are partial)
    plans = [program.plan(f.sym_name.data) for f in program.module.ops if f.sym_name.data.startswith("while_body")]
    plans += [p for t in (program.specializer.tables.values() if program.specializer else ())
              for p in t.values() if isinstance(p, SpecializedPlan) and p.fixed_point]
    loops = [p for p in plans if "tf.TensorListGetItem" in p.names and len(p.bare) == len(p.steps)]
    assert loops
