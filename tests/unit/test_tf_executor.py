"""The tf_executor dialect from Python: building graphs, TensorFlow's broadcasting rules, and
verifier errors located at the op they are about."""
import pytest
from xdsl.dialects.builtin import TensorType, UnrankedTensorType, f16, f32, i1, i32

from tinytf import mlir
from tinytf.errors import InvalidArgumentError
from tinytf.framework.tf_types import REF_TYPES, ResourceType
from tinytf.ops.tf_executor import FetchOp, GraphOp, IslandOp, TFExecutor
from tinytf.ops.tf_executor_base import ControlType, broadcast_compatible, broadcastable_to, has_broadcasted_type

NEG = """func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}"""


def _tensor(shape, element=f32):
    return UnrankedTensorType(element) if shape is None else TensorType(element, shape)


def test_an_op_wrapped_in_an_island_in_a_graph_prints_short_and_reparses():
    module = mlir.parse(NEG)
    func = module.body.block.first_op
    neg, ret = list(func.body.block.ops)
    neg.detach()
    island = IslandOp.wrap(neg)
    graph = GraphOp([island, FetchOp([island.outputs[0], island.control])])
    func.body.block.insert_op_before(graph, ret)
    ret.operands = [graph.results[0]]
    mlir.verify(module)
    assert [t for t in island.result_types] == [_tensor([]), ControlType()]
    assert [t for t in graph.result_types] == [_tensor([])]  # fetched controls are not results
    text = mlir.print(module)
    assert '%outputs, %control = tf_executor.island wraps "tf.Neg"(%arg0) : (tensor<f32>) -> tensor<f32>' in text
    assert "tf_executor.fetch %outputs, %control : tensor<f32>, !tf_executor.control" in text  # (tf-opt's names)
    assert mlir.print(mlir.parse(text)) == text


def test_the_dialect_lists_every_op_and_both_types():
    names = {op.name for op in TFExecutor.operations}
    assert names == {
        "tf_executor.graph", "tf_executor.fetch", "tf_executor.island", "tf_executor.yield",
        "tf_executor.Switch", "tf_executor._SwitchN", "tf_executor.Merge", "tf_executor.Enter",
        "tf_executor.Exit", "tf_executor.NextIteration.Source", "tf_executor.NextIteration.Sink",
        "tf_executor.LoopCond", "tf_executor.ControlTrigger",
    }
    assert {a.name for a in TFExecutor.attributes} == {"tf_executor.control", "tf_executor.token"}


@pytest.mark.parametrize("a, b, expected", [
    (_tensor([2]), _tensor(None), True),  # unranked: compatible with any shape
    (_tensor([2, 3]), _tensor([3]), True),  # trailing dims agree
    (_tensor([1]), _tensor([5]), True),  # 1 broadcasts
    (_tensor([2]), _tensor([3]), False),
    (_tensor([-1]), _tensor([7]), True),  # unknown dim
    (_tensor([4], f32), _tensor([4], f16), False),  # element types must agree
    (_tensor([], ResourceType([_tensor([4], i32)])), _tensor([], ResourceType()), True),  # no subtypes: any
    (_tensor([], ResourceType([_tensor([4], i32)])), _tensor([], ResourceType([_tensor([5], i32)])), False),
])
def test_broadcast_compatible_follows_tensorflow(a, b, expected):
    assert broadcast_compatible(a, b) is expected


def test_refs_are_dropped_before_comparing():
    from tinytf import dtypes

    ref = _tensor([4], REF_TYPES[dtypes.float32]())
    assert broadcast_compatible(ref, _tensor([4])) is True
    assert has_broadcasted_type(ref, _tensor([4])) is True
    assert broadcastable_to(i1, _tensor(None, i1)) is False  # the operand must be shaped
    assert has_broadcasted_type(_tensor(None), _tensor([], i1)) is False  # element types differ
    assert has_broadcasted_type(_tensor([4]), _tensor([8])) is False


def test_an_error_about_a_terminator_is_reported_at_the_terminator():
    text = """func.func @f(%x: tensor<f32>) {
  tf_executor.graph {
    %0:2 = "tf_executor.island"() ({
      "tf_executor.yield"(%x) : (tensor<f32>) -> ()
    }) : () -> (tensor<2xf32>, !tf_executor.control)
    tf_executor.fetch
  }
  func.return
}"""
    with pytest.raises(InvalidArgumentError) as err:
        mlir.verify(mlir.parse(text, "island.mlir"))
    assert str(err.value) == "island.mlir:4:7: 'tf_executor.yield' op operand #0 type mismatch island results"


def test_custom_syntax_errors_name_the_op_as_mlir_does():
    text = """func.func @f(%p: tensor<i1>) {
  tf_executor.graph {
    %0:3 = tf_executor.Merge %p : tensor<i1>, tensor<i1>
    tf_executor.fetch
  }
  func.return
}"""
    with pytest.raises(InvalidArgumentError, match=r"3:\d+: custom op 'tf_executor.Merge'  expects only a single data type"):
        mlir.parse(text)
