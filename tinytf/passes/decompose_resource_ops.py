"""``tf-device-decompose-resource-ops`` and ``-in-cluster`` (TensorFlow's passes): replace composite
resource ops (optimizer updates, AssignAdd/Sub, ResourceGather, ResourceScatter*, VariableShape,
RngReadAndSkip, ...) by reads, plain tf math and assigns, so XLA compiles them as ordinary tensors.

    tinytf-opt step.mlir -p tf-device-decompose-resource-ops              # every function
    tinytf-opt step.mlir -p tf-device-decompose-resource-ops-in-cluster   # inside tf_device.cluster
                                                                          # and what clusters call

    "tf.AssignAddVariableOp"(%v, %one) : ...
    // becomes:
    %0 = "tf.ReadVariableOp"(%v) : ... -> tensor<2x8xi32>
    %1 = "tf.AddV2"(%0, %one) : (tensor<2x8xi32>, tensor<i32>) -> tensor<2x8xi32>
    "tf.AssignVariableOp"(%v, %1) <{validate_shape = false}> : ...

The rules are in ``resource_decompositions``. As TensorFlow's pattern driver does, the new constants
are then uniqued and kept at the front of their function.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tinytf.ops.tf_device import ClusterOp
from tinytf.passes.canonicalize import unique_constants
from tinytf.passes.resource_decompositions import RULES, Emitter, arity_problem
from tinytf.passes.symbols import functions, invalid, op_name, symbol_users

MAX_ROUNDS = 8  # a rule's output has no composite resource op in it: one round decomposes everything


def decompose(ops: list[Operation]) -> bool:
    """Apply the rules to ``ops``; whether any op was replaced."""
    changed = False
    for op in ops:
        name = op_name(op)
        rule = RULES.get(name)
        if rule is None or op.parent_block() is None:
            continue
        problem = arity_problem(op, name)
        if problem is not None:
            raise invalid(op, problem)
        values = rule(op, Emitter(op))
        if values is None:
            continue
        for old, new in zip(op.results, values):
            old.replace_all_uses_with(new)
        op.detach()
        op.erase()
        changed = True
    return changed


def decompose_everywhere(root: Operation) -> bool:
    changed = False
    for _ in range(MAX_ROUNDS):
        if not decompose(list(root.walk())):
            break
        changed = True
    return changed


def reachable_from_clusters(module: ModuleOp) -> list[FuncOp]:
    """Functions that an op inside a tf_device.cluster names, and the functions they name, in turn."""
    table = functions(module)
    users = symbol_users(module)
    named = {name for name, ops in users.items() for op in ops if _in_cluster(op)}
    work, seen = list(named), set()
    while work:
        name = work.pop()
        if name in seen or name not in table:
            continue
        seen.add(name)
        work.extend(n for n, ops in users.items() if any(_inside(op, table[name]) for op in ops))
    return [table[name] for name in seen]


def _in_cluster(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, ClusterOp):
            return True
        parent = parent.parent_op()
    return False


def _inside(op: Operation, fn: FuncOp) -> bool:
    while op is not None:
        if op is fn:
            return True
        op = op.parent_op()
    return False


@dataclass(frozen=True)
class DecomposeResourceOps(ModulePass):
    """Decomposes composite resource ops in every function (TensorFlow's pass)."""

    name = "tf-device-decompose-resource-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, FuncOp)]:
            if decompose_everywhere(fn):
                unique_constants(fn)


@dataclass(frozen=True)
class DecomposeResourceOpsInCluster(ModulePass):
    """Decomposes composite resource ops inside tf_device.cluster regions and the functions they reach."""

    name = "tf-device-decompose-resource-ops-in-cluster"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        reached = reachable_from_clusters(op)
        for fn in [f for f in op.walk() if isinstance(f, FuncOp)]:
            roots = [fn] if fn in reached else [c for c in fn.walk() if isinstance(c, ClusterOp)]
            if any([decompose_everywhere(root) for root in roots]):
                unique_constants(fn)
