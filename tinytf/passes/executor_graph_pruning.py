"""``tf-executor-graph-pruning``: removes the ops of a ``tf_executor.graph`` that the fetch does not
reach through data or control edges (TensorFlow's pass of that name); the order of the rest stays.

    %a, %c = tf_executor.island wraps "tf.Identity"(%x) ...
    %u, %c_0 = tf_executor.island wraps "tf.Const"() ...          // removed: nothing reaches it
    tf_executor.fetch %a : tensor<i32>

Reached: what the fetch's operands name, and, transitively, each reached op's operands (data and
control), the values an island's body uses from the graph, and a NextIteration.Source's Sink. Kept
whatever the fetch reaches: islands holding an op TensorFlow marks ``MustExecute``, or one named in
``ops-to-preserve`` (``tf-executor-graph-pruning{ops-to-preserve="tf.CustomOp,tf.Foo"}``).

A function ``@main`` without ``tf.entry_function`` is left alone: it may be a TF1 graph imported
without feeds and fetches, where nothing says what must run.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tinytf.ops.tf_executor import GraphOp, IslandOp
from tinytf.ops.tf_executor_control_flow import NextIterationSourceOp
from tinytf.passes.symbols import op_name

# The ops TensorFlow's op definitions give the ``TF_MustExecute`` effect (tf_generated_ops.td): they
# run even when nothing uses their results.
MUST_EXECUTE = frozenset({
    "tf.CheckNumerics", "tf.RecvTPUEmbeddingActivations", "tf.SendTPUEmbeddingGradients",
    "tf.TPUCompilationResult", "tf.TPUCompileSucceededAssert", "tf.XlaRecvTPUEmbeddingActivations",
    "tf.XlaSendTPUEmbeddingGradients", "tf._TPUCompileMlir", "tf._XlaCompileMlirPlaceholderProgramKey",
    "tf._InternalTestMustExecuteTrait_",
})
MUST_EXECUTE_PREFIXES = ("tf.LoadTPUEmbedding", "tf.RetrieveTPUEmbedding")  # ...Parameters(GradAccumDebug)


def can_prune(fn: func.FuncOp | None) -> bool:
    """TensorFlow's rule: anything but a ``@main`` imported without ``tf.entry_function``."""
    return fn is None or fn.sym_name.data != "main" or "tf.entry_function" in fn.attributes


def must_execute(op: Operation, preserve: frozenset[str]) -> bool:
    name = op_name(op)
    return name in preserve or name in MUST_EXECUTE or name.startswith(MUST_EXECUTE_PREFIXES)


def prune_graph(graph: GraphOp, preserve: frozenset[str] = frozenset()) -> int:
    """Erase the ops of ``graph`` nothing needed reaches; how many were erased."""
    block = graph.body.block
    reached: set[Operation] = {graph.fetch}
    stack: list[Operation] = []

    def visit_value(value) -> None:
        owner = value.owner
        if isinstance(owner, Operation) and owner.parent_op() is graph and owner not in reached:
            reached.add(owner)
            stack.append(owner)

    def visit(op: Operation) -> None:
        if isinstance(op, IslandOp):
            for inner in op.walk():
                if inner is not op:
                    for value in inner.operands:
                        visit_value(value)  # values from the graph an island's body captures
        for value in op.operands:
            visit_value(value)
        if isinstance(op, NextIterationSourceOp):
            for use in op.results[1].uses:  # its token: the paired Sink
                sink = use.operation
                if sink not in reached:
                    reached.add(sink)
                    stack.append(sink)

    visit(graph.fetch)
    for op in block.ops:
        if isinstance(op, IslandOp) and any(must_execute(inner, preserve) for inner in op.walk() if inner is not op):
            if op not in reached:
                reached.add(op)
            visit(op)
    while stack:
        visit(stack.pop())
    erased = 0
    for op in reversed(list(block.ops)):  # users before their producers
        if op not in reached:
            op.detach()
            op.erase(safe_erase=False)
            erased += 1
    return erased


def enclosing_function(op: Operation) -> func.FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent


@dataclass(frozen=True)
class ExecutorGraphPruning(ModulePass):
    """Prunes the ops of each tf_executor.graph that its fetch does not reach."""

    name = "tf-executor-graph-pruning"
    ops_to_preserve: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        preserve = frozenset(name.strip() for entry in self.ops_to_preserve for name in entry.split(",")
                             if name.strip())
        for graph in [g for g in op.walk() if isinstance(g, GraphOp)]:
            if can_prune(enclosing_function(graph)):
                prune_graph(graph, preserve)
