"""``tf-functional-to-executor-conversion``: a function's ops become one island of a
``tf_executor.graph`` (TensorFlow's pass of that name, the inverse of executor-to-functional).

    func.func @f(%x: tensor<f32>) -> tensor<f32> {       %g = tf_executor.graph {
      %0 = "tf.Neg"(%x) ...                       ->       %o, %c = tf_executor.island {
      func.return %0 : tensor<f32>                            %0 = "tf.Neg"(%x) ...
    }                                                         tf_executor.yield %0 : tensor<f32>
                                                            }
                                                            tf_executor.fetch %o : tensor<f32>
                                                          }
                                                          func.return %g : tensor<f32>

One island keeps the function's program order, so the executors run the ops as before. A function
with no results fetches the island's control token. Left alone: a function without a body, with
more than one block, one whose body already is a single graph, or one not ending in func.return.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block
from xdsl.passes import ModulePass

from tinytf.ops.tf_executor import FetchOp, GraphOp, IslandOp, YieldOp


def name_results(op) -> None:
    """Name an executor op's results as TensorFlow prints them: ``%outputs``, ``%control``."""
    for result in op.results[:-1]:
        result.name_hint = "outputs"
    op.results[-1].name_hint = "control"


def to_executor(fn: func.FuncOp) -> bool:
    """Wrap ``fn``'s body in a graph of one island; whether it changed."""
    if not fn.body.blocks or len(fn.body.blocks) != 1:
        return False
    block = fn.body.block
    ops = list(block.ops)
    if not ops or not isinstance(ops[-1], func.ReturnOp):
        return False
    body, ret = ops[:-1], ops[-1]
    if len(body) == 1 and isinstance(body[0], GraphOp):
        return False
    for op in body:
        op.detach()
    island = IslandOp(Block([*body, YieldOp(ret.operands)]))
    name_results(island)
    fetched = island.outputs if island.outputs else [island.control]
    graph = GraphOp(Block([island, FetchOp(fetched)]))
    block.insert_op_before(graph, ret)
    ret.operands = list(graph.results)
    return True


@dataclass(frozen=True)
class FunctionalToExecutor(ModulePass):
    """Wraps each function's body in a tf_executor.graph holding one island."""

    name = "tf-functional-to-executor-conversion"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            to_executor(fn)
