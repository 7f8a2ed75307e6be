"""``tf-executor-island-coarsening``: merges the islands of a ``tf_executor.graph`` into as few as
the graph allows (TensorFlow's pass of that name and algorithm).

    %a, %c = tf_executor.island wraps "tf.opA"(%x) ...        %r:2, %c = tf_executor.island {
    %b, %c_0 = tf_executor.island wraps "tf.opB"(%a) ...  ->     %0 = "tf.opA"(%x) ...
    tf_executor.fetch %a, %b : ...                               %1 = "tf.opB"(%0) ...
                                                                 tf_executor.yield %0, %1 ...
                                                               }

First the fetch's data and control operands move into an island of their own (so independent
islands that feed the fetch meet there). Then, until nothing changes: each group of islands
(latest first) joins the group of its *nearest consumer* (the earliest op in the graph using one
of its results or its control token) when that consumer is an island, in front of it; then each
group (earliest first) joins the group of its *nearest producer* (the latest op defining one of
its operands, captured values included) when that producer is an island, behind it. A group
whose nearest neighbour is no island (Switch, Merge, ...: TF1 control flow) stays apart, so
deadness still flows as before.

A merged island stands where its group's first island stood; it takes the control inputs its
members took from outside, yields each member result used outside, and runs the members' ops in
the group's order. Uses inside the group take the inner values directly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from tinytf.ops.tf_executor import FetchOp, GraphOp, IslandOp, YieldOp
from tinytf.ops.tf_executor_base import is_control
from tinytf.passes.functional_to_executor import name_results


@dataclass(eq=False)
class MergedIsland:
    """Islands to be merged, and the island in whose place the merged one goes."""

    insert_point: IslandOp
    islands: list[IslandOp] = field(default_factory=list)


def island_for_fetch(fetch: FetchOp) -> IslandOp:
    """Route the fetch's operands through a new island just before it (control ones become its
    control inputs; the fetch keeps one token for all of them, when it had any)."""
    data = [v for v in fetch.operands if not is_control(v.type)]
    controls = [v for v in fetch.operands if is_control(v.type)]
    island = IslandOp(Block([YieldOp(data)]), controls)
    name_results(island)
    fetch.parent_block().insert_op_before(island, fetch)
    fetch.operands = list(island.results[:len(data) + (1 if controls else 0)])
    return island


class CoarseningAnalysis:
    """Which islands of ``graph`` merge, decided before anything moves."""

    def __init__(self, graph: GraphOp):
        self.graph = graph
        self.position = {op: i for i, op in enumerate(graph.body.block.ops)}
        self.groups = [MergedIsland(op, [op]) for op in graph.body.block.ops if isinstance(op, IslandOp)]
        self.group_of = {group.insert_point: group for group in self.groups}
        updated = True
        while updated:
            updated = False
            for group in reversed(self.groups):
                if group.islands:
                    candidate = self._nearest(group, self._consumers(group), earliest=True)
                    if candidate is not None:
                        self._merge(group, candidate, in_front=True)
                        updated = True
            for group in self.groups:
                if group.islands:
                    candidate = self._nearest(group, self._producers(group), earliest=False)
                    if candidate is not None:
                        self._merge(group, candidate, in_front=False)
                        updated = True

    def mergeable(self) -> list[MergedIsland]:
        return [g for g in self.groups if len(g.islands) > 1]

    def _merge(self, old: MergedIsland, new: MergedIsland, in_front: bool) -> None:
        for island in old.islands:
            self.group_of[island] = new
        new.islands = old.islands + new.islands if in_front else new.islands + old.islands
        old.islands = []

    def _nearest(self, group: MergedIsland, ops, earliest: bool) -> MergedIsland | None:
        """The group of the nearest of ``ops`` (by position; a grouped island counts where its
        group stands), when that is an island; None otherwise."""
        best, best_group = None, None
        for op in ops:
            other = self.group_of.get(op)
            if other is group:
                continue
            if other is not None:
                op = other.insert_point
            if best is None or (self.position[op] < self.position[best] if earliest
                                else self.position[best] < self.position[op]):
                best, best_group = op, other
        return best_group

    def _producers(self, group: MergedIsland):
        for island in group.islands:
            for inner in island.walk():
                for value in inner.operands:
                    owner = value.owner
                    if isinstance(owner, Operation) and owner.parent_op() is self.graph:
                        yield owner

    def _consumers(self, group: MergedIsland):
        block = self.graph.body.block
        for island in group.islands:
            for result in island.results:
                for use in result.uses:
                    yield block.find_ancestor_op_in_block(use.operation)


def merge_islands(group: MergedIsland) -> None:
    islands = group.islands
    inside = {b for island in islands for b in island.walk_blocks()}
    own_controls = {island.control for island in islands}
    controls = list(dict.fromkeys(v for island in islands for v in island.operands if v not in own_controls))
    results = []  # (inner value, island result) for each result used outside the group
    for island in islands:
        for inner, outer in zip(island.yield_op.operands, island.outputs):
            captured = False
            for use in list(outer.uses):
                if use.operation.parent_block() in inside:
                    use.operation.operands[use.index] = inner
                elif not captured:
                    results.append((inner, outer))
                    captured = True
    new_yield = YieldOp([inner for inner, _ in results])
    merged = IslandOp(Block([new_yield]), controls)
    name_results(merged)
    group.insert_point.parent_block().insert_op_before(merged, group.insert_point)
    for (_, outer), new in zip(results, merged.outputs):
        outer.replace_all_uses_with(new)
    for island in islands:
        for op in list(island.body.block.ops)[:-1]:
            op.detach()
            new_yield.parent_block().insert_op_before(op, new_yield)
    for island in islands:
        island.control.replace_all_uses_with(merged.control)
    for island in islands:
        island.detach()
        island.erase(safe_erase=False)


def coarsen(graph: GraphOp) -> None:
    island_for_fetch(graph.fetch)
    for group in CoarseningAnalysis(graph).mergeable():
        merge_islands(group)


@dataclass(frozen=True)
class ExecutorIslandCoarsening(ModulePass):
    """Merges the islands of each tf_executor.graph as TensorFlow's coarsening does."""

    name = "tf-executor-island-coarsening"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in [g for g in op.walk() if isinstance(g, GraphOp)]:
            coarsen(graph)
