"""The order in which TensorFlow's GraphDef importer emits a graph's nodes (TF 2.21's
``TopologicalOrdering`` with ``GroupByDevice``), so tinytf's tf_executor form lists its islands as
``tf-mlir-translate -graphdef-to-mlir`` does.

    order = topological_order(names, edges, device_of)      # names in emission order

TensorFlow's ``Graph`` has a ``_SOURCE`` node with a control edge to every node without inputs and
a ``_SINK`` node with one from every node without outputs. A depth-first walk from ``_SOURCE``
(children taken in name order, pushed on a stack, so the last name is explored first) numbers the
nodes in post-order. Emission starts at ``_SOURCE``; a node is ready when all its in-edges are
done; ready nodes wait in one stack per device, and the next node comes from the current device's
stack while it has one (the ready device with the smallest first-seen number otherwise). An
emitted node's out-neighbours are released in post-order. ``edges`` are ``(src, dst)`` pairs, one
per data or control edge (two data edges between the same nodes count twice, as in TF).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

SOURCE, SINK = "_SOURCE", "_SINK"


def topological_order(names: Sequence[str], edges: Sequence[tuple[str, str]],
                      device_of: Callable[[str], str]) -> list[str]:
    """``names`` (back edges already removed from ``edges``) in TensorFlow's emission order."""
    out_edges: dict[str, list[str]] = {SOURCE: [], SINK: [], **{n: [] for n in names}}
    in_count: dict[str, int] = {SOURCE: 0, SINK: 0, **{n: 0 for n in names}}
    for src, dst in edges:
        out_edges[src].append(dst)
        in_count[dst] += 1
    for name in names:
        if in_count[name] == 0:
            out_edges[SOURCE].append(name)
            in_count[name] += 1
        if not out_edges[name]:
            out_edges[name].append(SINK)
            in_count[SINK] += 1
    position = _post_order(out_edges)
    groups: dict[str, int] = {}
    group_of: dict[str, int] = {}
    for name in sorted(position, key=position.get):  # groups numbered as the walk leaves their nodes
        key = "" if name in (SOURCE, SINK) else device_of(name)
        group_of[name] = groups.setdefault(key, len(groups))
    ready: list[list[str]] = [[] for _ in groups]
    ready_groups: set[int] = set()
    remaining = dict(in_count)
    for name in position:
        if remaining[name] == 0:
            ready[group_of[name]].append(name)
            ready_groups.add(group_of[name])
    order, current = [], 0
    for _ in range(len(position)):
        if current not in ready_groups:
            current = min(ready_groups)
        node = ready[current].pop()
        if not ready[current]:
            ready_groups.discard(current)
        order.append(node)
        for out in sorted(out_edges[node], key=position.get):
            remaining[out] -= 1
            if remaining[out] == 0:
                group = group_of[out]
                if not ready[group]:
                    ready_groups.add(group)
                ready[group].append(out)
    return [n for n in order if n not in (SOURCE, SINK)]


def _post_order(out_edges: dict[str, list[str]]) -> dict[str, int]:
    """TensorFlow's ``DFS`` from ``_SOURCE`` with children sorted by name: node -> leave index."""
    position: dict[str, int] = {}
    visited: set[str] = set()
    stack: list[tuple[str, bool]] = [(SOURCE, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            position[node] = len(position)
            continue
        if node in visited:
            continue
        visited.add(node)
        stack.append((node, True))
        for child in sorted(out_edges[node]):
            if child not in visited:
                stack.append((child, False))
    return position
