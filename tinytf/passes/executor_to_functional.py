"""``tf-executor-to-functional-conversion``: each ``tf_executor.graph`` of islands becomes the ops
of its islands, in the graph's order, in the block that held it (TensorFlow's pass of that name).

    %r = tf_executor.graph {                                   %0 = "tf.opA"(%x) ...
      %a, %c = tf_executor.island wraps "tf.opA"(%x) ...   ->  %1 = "tf.opB"(%x) ...
      %b, %c_0 = tf_executor.island(%c) wraps "tf.opB"(%x) ... (func.return %1)
      tf_executor.fetch %b : tensor<f32>
    }

An island's results become what its yield forwards; the graph's results what its fetch forwards.
Control tokens disappear: a graph's block order is a topological order of its data *and* control
edges (a token is a value, so it is defined before it is used), and the executors run a block's
ops in order, so every op still runs after the ops it depended on. Nested graphs are lifted first.
Any op but an island (Switch, Merge, ControlTrigger: TF1 control flow and deadness) cannot be
lifted: a located error names it, as TensorFlow's pass reports it.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tinytf.errors import UnimplementedError
from tinytf.ops.tf_executor import FetchOp, GraphOp, IslandOp
from tinytf.ops.tf_executor_control_flow import ControlTriggerOp
from tinytf.passes.symbols import diagnostic, invalid, op_name


def graphs_innermost_first(root: Operation) -> list[GraphOp]:
    """Every ``tf_executor.graph`` under ``root``, nested ones before the graphs holding them."""
    return [op for op in root.walk(reverse=False) if isinstance(op, GraphOp)][::-1]


def first_non_island(graph: GraphOp) -> Operation | None:
    return next((op for op in graph.body.block.ops if not isinstance(op, IslandOp | FetchOp)), None)


def forward(result, value) -> None:
    """``result``'s uses take ``value``; its name goes along unless it is only the executor's
    default name (``%outputs``), which would name every lifted op alike."""
    hint = value.name_hint
    result.replace_all_uses_with(value)
    if hint is None and result.name_hint == "outputs":
        value.name_hint = None


def lift_graph(graph: GraphOp) -> None:
    """Replace ``graph`` by its islands' ops; InvalidArgumentError at the first op that is no island."""
    stranger = first_non_island(graph)
    if stranger is not None:
        raise invalid(stranger, "is not supported for lifting out of tf_executor.graph, expected tf_executor.island")
    for island in list(graph.body.block.ops):
        if not isinstance(island, IslandOp):
            continue
        inner = list(island.body.block.ops)
        for op in inner[:-1]:
            op.detach()
            graph.parent_block().insert_op_before(op, graph)
        for result, value in zip(island.outputs, island.yield_op.operands):
            forward(result, value)
    fetch = graph.fetch
    for result, value in zip(graph.results, fetch.fetches):
        forward(result, value)
    graph.detach()
    graph.erase(safe_erase=False)


def executor_to_functional(root: Operation) -> None:
    """Lift every graph under ``root`` (a module or a function)."""
    for graph in graphs_innermost_first(root):
        lift_graph(graph)


def has_executor_graph(root: Operation) -> bool:
    return any(isinstance(op, GraphOp) for op in root.walk())


def functional_form(module: ModuleOp) -> ModuleOp:
    """What the executors run for ``module``: itself when it holds no tf_executor graph, else a copy
    with every graph lifted and its ``tf.NoOp``s dropped. A ControlTrigger only orders (without Switch
    nothing is dead), so it goes; any other TF1 control-flow op is an UnimplementedError naming it
    and its line."""
    if not has_executor_graph(module):
        return module
    for graph in graphs_innermost_first(module):  # (in the given module: its ops know their lines)
        for op in graph.body.block.ops:
            if not isinstance(op, IslandOp | FetchOp | ControlTriggerOp):
                raise UnimplementedError(diagnostic(op, "is TF1 control flow, which tinytf does not run: tinytf "
                                                    "runs tf_executor graphs of islands (and ControlTrigger)"),
                                         op_name(op))
    module = module.clone()
    for graph in graphs_innermost_first(module):
        for op in list(graph.body.block.ops):
            if isinstance(op, ControlTriggerOp):
                for use in list(op.results[0].uses):
                    use.operation.operands = [v for i, v in enumerate(use.operation.operands) if i != use.index]
                op.detach()
                op.erase()
        lift_graph(graph)
    for op in [op for op in module.walk() if op_name(op) == "tf.NoOp" and not op.results]:
        op.detach()  # only ever a target of control edges, which the order now keeps
        op.erase()
    return module


@dataclass(frozen=True)
class ExecutorToFunctional(ModulePass):
    """Lifts the ops of each tf_executor.graph's islands into the enclosing block."""

    name = "tf-executor-to-functional-conversion"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        executor_to_functional(op)
