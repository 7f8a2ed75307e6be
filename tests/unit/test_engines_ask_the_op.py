"""Every run-time rule of an op lives in its class: the engines (eager, the graph executor and its static
plans, forwarding, the XLA lowering, batched evaluation) ask the op class and hold no per-op-name
special case. A new stateful op, defined once here, runs in every engine."""
import ast
import pathlib
from typing import ClassVar

import numpy as np
import pytest
from xdsl.irdl import operand_def, traits_def

import tinytf as tt
from tinytf.autodiff.batching import BatchedGraph
from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import REGISTRY, NoConstantFold, NotDifferentiable, ResourceOp, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.training import _infer
from tinytf.ops.variable_updates import VariableUpdate
from tinytf.runtime.executor import Program
from tinytf.runtime.static_plan import StaticPlan

ROOT = pathlib.Path(tt.__file__).parent
ENGINES = ["runtime/dispatch.py", "runtime/eager.py", "runtime/executor.py", "runtime/static_plan.py",
           "runtime/specialized_plan.py", "runtime/forwarding.py", "runtime/parallel.py", "runtime/function_body.py",
           "xla/lowering.py",
           "xla/values.py", "xla/control_flow.py", "xla/arguments.py", "xla/compile.py", "xla/xla_function.py",
           "autodiff/batching.py", "autodiff/sparse_batch.py", "autodiff/tape.py", "autodiff/vectorized.py"]


def _special_cases(source: str) -> set[str]:
    """Op names an engine decides on: compared with, listed in a tuple / list / set / dict, or used as a
    key. (An op name passed to an error, to say which op failed, is not a special case.)"""
    tree = ast.parse(source)
    names = set()

    def note(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in REGISTRY:
            names.add(node.value)

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for part in [node.left, *node.comparators]:
                note(part)
                if isinstance(part, ast.Tuple | ast.List | ast.Set):
                    for element in part.elts:
                        note(element)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set) and not isinstance(getattr(node, "ctx", None), ast.Store):
            if all(isinstance(e, ast.Constant) for e in node.elts):
                for element in node.elts:
                    note(element)
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                note(key)
        elif isinstance(node, ast.Subscript):
            note(node.slice)
    return names


@pytest.mark.parametrize("engine", ENGINES)
def test_no_engine_holds_a_special_case_for_any_op(engine):
    found = _special_cases((ROOT / engine).read_text())
    assert not found, f"{engine} decides by op name on {sorted(found)}: the op class should say it"


def test_the_special_case_finder_finds_special_cases():
    source = '''
if name == "tf.ReadVariableOp": pass
if name in ("tf.If", "tf.While"): pass
TABLE = {"tf.AddV2": 1}
REGISTRY["tf.Relu"]
raise Error("tf.Tanh: bad", "tf.Tanh")
'''
    assert _special_cases(source) == {"tf.ReadVariableOp", "tf.If", "tf.While", "tf.AddV2", "tf.Relu"}


# --- a stateful op added in one place ------------------------------------------------------------------

@pytest.fixture(scope="module")
def scale_variable():
    """var := var * factor + offset, with a scalar factor: one class, one update rule."""

    @register
    class TestScaleVariable(VariableUpdate):
        """var := var * factor + offset."""

        name = "tf.TestScaleVariable"
        resource = operand_def()
        factor = operand_def()
        offset = operand_def()
        traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())
        SCALAR_OPERANDS: ClassVar[tuple] = (1,)

        @classmethod
        def infer(cls, *specs):
            return _infer(cls.name, list(specs), 1, {1}, ref=False)

        @staticmethod
        def update(xp, var, factor, offset):
            var[0] = var[0] * factor + offset

    yield TestScaleVariable
    del REGISTRY[TestScaleVariable.name]


def _step(op, v, offset):
    op.bind(v, np.float32(3.0), offset)
    return v.read_value() + 0.0


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_a_new_stateful_op_runs_in_every_engine(scale_variable, mode):
    v = tt.Variable(np.array([1.0, 2.0], np.float32))
    offset = np.array([0.5, -1.0], np.float32)
    step = (lambda o: _step(scale_variable, v, o)) if mode == "eager" else \
        tt.function(lambda o: _step(scale_variable, v, o), jit_compile=mode == "xla")
    got = [step(tt.constant(offset)).numpy() for _ in range(2)]
    want1 = np.array([1.0, 2.0], np.float32) * 3 + offset
    np.testing.assert_array_equal(got[0], want1)
    np.testing.assert_array_equal(got[1], want1 * 3 + offset)
    np.testing.assert_array_equal(v.numpy(), want1 * 3 + offset)


def test_a_new_stateful_op_in_a_static_plan_and_its_checks(scale_variable):
    v = tt.Variable(np.ones(2, np.float32))
    f = tt.function(lambda o: _step(scale_variable, v, o))
    cf = f.get_concrete_function(tt.TensorSpec([2], tt.float32))
    assert isinstance(cf._program.plan(cf.name), StaticPlan)
    f(tt.constant([1.0, 1.0]))
    np.testing.assert_array_equal(v.numpy(), [4.0, 4.0])
    with pytest.raises(InvalidArgumentError, match="TestScaleVariable.*same shape"):
        scale_variable.bind(v, np.float32(2.0), np.ones(3, np.float32))
    with pytest.raises(InvalidArgumentError, match="TestScaleVariable.*not a scalar"):
        scale_variable.bind(v, np.ones(2, np.float32), np.ones(2, np.float32))
    np.testing.assert_array_equal(v.numpy(), [4.0, 4.0])  # refused updates change nothing


def test_an_update_rule_sees_its_own_assignments_when_a_variable_is_passed_twice():
    v = tt.Variable(np.ones(3))
    tt.raw_ops.ResourceApplyMomentum(var=v, accum=v, lr=0.5, grad=np.ones(3), momentum=0.5, use_locking=True)
    np.testing.assert_allclose(v.numpy(), [0.75] * 3)  # accum := 1.5 first, then var -= 0.5 * 1.5


def test_reads_of_a_resource_argument_in_batched_evaluation():
    w = tt.Variable(np.array([2.0, 3.0]))
    cf = tt.function(lambda x: x * w.read_value()).get_concrete_function(tt.TensorSpec([2], tt.float64))
    graph = BatchedGraph(next(op for op in cf.module.ops if op.sym_name.data == cf.name), module=cf.module)
    stack = np.array([[1.0, 1.0], [2.0, 0.5]])
    (out, batched), = graph.run([(stack, True), (w, False)])
    assert batched
    np.testing.assert_array_equal(out, stack * [2.0, 3.0])


def test_a_variable_traced_with_one_shape_and_holding_another_is_refused():
    v = tt.Variable(np.ones(2, np.float32))
    cf = tt.function(lambda: v.read_value() * 2.0).get_concrete_function()
    program = Program(cf.module, trusted=[cf.name])
    assert isinstance(program.plan(cf.name), StaticPlan)
    with pytest.raises(InvalidArgumentError, match="has shape \\[3\\], the function was traced with \\[2\\]"):
        program.run(cf.name, [tt.Variable(np.ones(3, np.float32))])


def test_shape_rules_see_a_variable_through_one_protocol():
    from tinytf.ops.resource import ReadVariableOp
    from tinytf.xla.values import Resource

    spec = ReadVariableOp.infer(TensorSpec((), tt.resource, value=Resource(np.zeros((2, 3), np.float32),
                                                                           tt.float32)), dtype=tt.float32)
    assert spec.shape == (2, 3)
    with pytest.raises(InvalidArgumentError, match="has dtype float32, read as int32"):
        ReadVariableOp.infer(TensorSpec((), tt.resource, value=tt.Variable(np.zeros(2, np.float32))), dtype=tt.int32)


STATELESS_CONTROL_FLOW = """
func.func @main(%n: tensor<i32>, %x: tensor<2xf32>, %k: tensor<i32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
  %r:2 = "tf.StatelessWhile"(%n, %x) <{body = @body, cond = @cond, is_stateless = true}>
      : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  %c = "tf.StatelessCase"(%k, %x) <{branches = [@twice, @negate], is_stateless = true}>
      : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %r#0, %r#1, %c : tensor<i32>, tensor<2xf32>, tensor<2xf32>
}
func.func private @cond(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<i1> {
  %zero = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %p = "tf.Greater"(%i, %zero) : (tensor<i32>, tensor<i32>) -> tensor<i1>
  func.return %p : tensor<i1>
}
func.func private @body(%i: tensor<i32>, %x: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  %one = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %j = "tf.Sub"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = "tf.AddV2"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %j, %y : tensor<i32>, tensor<2xf32>
}
func.func private @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = "tf.AddV2"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
func.func private @negate(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = "tf.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
"""


@pytest.mark.parametrize("backend", ["graph", "xla"])
@pytest.mark.parametrize("k, sign", [(0, 2.0), (1, -1.0), (7, -1.0)])  # an out-of-range index runs the last branch
def test_stateless_while_and_case_run_by_their_kind(backend, k, sign):
    x = np.array([1.0, -2.0], np.float32)
    n, y, c = tt.load_mlir(STATELESS_CONTROL_FLOW).run(np.int32(3), x, np.int32(k), backend=backend)
    assert int(np.asarray(n)) == 0
    np.testing.assert_array_equal(np.asarray(y), x * 8)
    np.testing.assert_array_equal(np.asarray(c), x * sign)
