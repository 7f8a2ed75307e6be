"""``strategy.run`` inside ``tt.function(jit_compile=True)``: the replicas as one XLA program.

The function is traced once, on one replica's shapes, into a private function of the module; the
traced step calls it from a ``tf_device.replicate`` of n replicas:

    %0 = "tf.XlaSharding"(%batch) <{_XlaSharding = "{devices=[8,1]<=[8]}", sharding = "{devices=[8,1]<=[8]}"}> ...
    %1:8 = "tf.XlaSplitND"(%0) <{num_splits = [8, 1]}> : (tensor<64x16xf32>) -> (tensor<8x16xf32>, ...)
    %2:8 = tf_device.replicate([%1#0, ..., %1#7] as %x: tensor<8x16xf32>, %w as %r: tensor<!tf_type.resource<...>>)
             {devices = {CORE_0 = ["/job:localhost/replica:0/task:0/device:CPU:0", ...]}, n = 8 : i32} {
      %3 = "tf.StatefulPartitionedCall"(%x, %r) <{f = @replica_fn_1, ...}> ...
      tf_device.return %3 : tensor<f32>
    }

A distributed batch comes in whole, sharded along the batch (the XlaSharding; the pieces of the
XlaSplitND are what each replica sees, which the lowering passes without slicing); a PerReplica
value's n components are the replicated operands; plain tensors and variables are packed inputs
(every replica gets them whole). In the replica function, cross-replica sums are
``tf.XlaAllReduce`` over all replicas: ``apply_gradients`` sums the gradients so, once.
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr, i32
from xdsl.ir import Block, Region

from tinytf.autodiff.structures import flatten, pack_as
from tinytf.distribute.context import ReplicaContext
from tinytf.distribute.reduce_util import ReduceOp
from tinytf.distribute.values import DistributedBatch, DistributedValues, PerReplica, check_divides
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import context as framework_context
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.ops import hlo_sharding
from tinytf.ops.functional import StatefulPartitionedCall
from tinytf.ops.tf_device import ReplicateOp, ReturnOp
from tinytf.ops.xla_spmd import XlaAllReduce, XlaSharding, XlaSplitND
from tinytf.runtime import function_body as fb
from tinytf.runtime.function_body import BodyContext
from tinytf.runtime.tracing import SymbolicTensor


class TracedReplicaContext(ReplicaContext):
    """The replica context while the replica function is traced: reductions are tf.XlaAllReduce."""

    def __init__(self, strategy):
        super().__init__(strategy, None)

    @property
    def replica_id_in_sync_group(self):
        raise UnimplementedError("replica_id_in_sync_group inside a compiled strategy.run: the replicas are one "
                                 "SPMD program (pass the replica's data in a distributed value instead)")

    def all_reduce(self, reduce_op, value, options=None):
        op = ReduceOp.from_variable_aggregation(reduce_op)
        groups = np.arange(self.num_replicas_in_sync, dtype=np.int32)[None]
        leaves = flatten(value)
        reduced = [None if x is None else XlaAllReduce.bind(x, groups, reduce_op=op.xla, mode="CrossReplica")
                   for x in leaves]
        return pack_as(value, reduced)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        # In one SPMD program every replica runs merge_fn on its own values; cross-replica reductions
        # inside it go through all_reduce.
        return merge_fn(self._strategy, *args, **(kwargs or {}))

    def apply_gradients(self, optimizer, pairs, aggregate: bool = True):
        grads = [g for g, _ in pairs]
        if aggregate:
            grads = self.all_reduce(ReduceOp.SUM, grads)
        return optimizer._apply_pairs(list(zip(grads, [v for _, v in pairs])))


def _sharding_text(strategy, rank: int) -> str:
    import jax

    positions = {id(d): k for k, d in enumerate(jax.devices())}
    ids = [positions[id(d)] for d in strategy.devices]
    return str(hlo_sharding.tiled((len(ids),) + (1,) * (rank - 1), ids))


def run_traced(strategy, ctx, fn, args, kwargs, run_id: int):
    if not ctx.for_xla:
        raise UnimplementedError(f"strategy.run over {strategy.num_replicas_in_sync} replicas inside tt.function needs "
                                 "jit_compile=True: the replicas run as one XLA SPMD program (or call strategy.run "
                                 "eagerly)")
    n = strategy.num_replicas_in_sync
    groups: list = []   # (kind, parent value(s), local spec)

    def local_structure(s):
        if isinstance(s, DistributedBatch):
            if s.num_replicas != n:
                raise InvalidArgumentError(f"strategy.run: a batch distributed over {s.num_replicas} replicas, the "
                                           f"strategy has {n}")
            g = fb.symbolic(ctx, s.global_value)
            check_divides(g, n)
            shape = tuple(g.shape)
            spec = TensorSpec((shape[0] // n,) + shape[1:], g.dtype)
            groups.append(("batch", g, spec))
            return len(groups) - 1
        if isinstance(s, DistributedValues):
            parts = [fb.symbolic(ctx, v) for v in s.values]
            if len(parts) != n:
                raise InvalidArgumentError(f"strategy.run: a value of {len(parts)} replicas, the strategy has {n}")
            first = parts[0].spec
            for p in parts[1:]:
                if p.dtype is not first.dtype or tuple(p.shape or ()) != tuple(first.shape or ()):
                    raise InvalidArgumentError("strategy.run: a PerReplica value's components must have one shape "
                                               f"and dtype, got {first} and {p.spec}")
            groups.append(("components", parts, TensorSpec(first.shape, first.dtype)))
            return len(groups) - 1
        if isinstance(s, list | tuple):
            return type(s)(*[local_structure(x) for x in s]) if hasattr(s, "_fields") else \
                type(s)([local_structure(x) for x in s])
        if isinstance(s, dict):
            return {k: local_structure(v) for k, v in s.items()}
        return _Keep(s)

    marked = local_structure((tuple(args), dict(kwargs)))
    name = f"replica_fn_{run_id}"
    body = BodyContext(name, [spec for _, _, spec in groups], parent=ctx)

    def fill(s):
        if isinstance(s, int) and not isinstance(s, bool):
            return body.inputs[s]
        if isinstance(s, _Keep):
            return s.value
        if isinstance(s, list | tuple):
            return type(s)(*[fill(x) for x in s]) if hasattr(s, "_fields") else type(s)([fill(x) for x in s])
        if isinstance(s, dict):
            return {k: fill(v) for k, v in s.items()}
        return s

    local_args, local_kwargs = fill(marked)
    with framework_context.pushed(body), TracedReplicaContext(strategy):
        result = fn(*local_args, **local_kwargs)
        outputs = [o for o in flatten(result) if o is not None]
    values = body.finish_body(outputs)
    return _emit(strategy, ctx, body, groups, values, result, n)


class _Keep:
    """A leaf of run's arguments that is not distributed (kept as it is)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _emit(strategy, ctx, body: BodyContext, groups: list, values: list, result, n: int):
    """The tf_device.replicate in the enclosing function; its results as PerReplica values."""
    from tinytf.distribute.strategy import device_name

    replicated = []
    for kind, value, _spec in groups:
        if kind == "batch":
            text = _sharding_text(strategy, len(value.shape))
            sharded = ctx.execute(XlaSharding, (value,), {"sharding": text, "_XlaSharding": text})
            parts = ctx.execute(XlaSplitND, (sharded,), {"num_splits": (n,) + (1,) * (len(value.shape) - 1), "N": n})
            replicated += [p.value for p in parts]
        else:
            replicated += [p.value for p in value]
    packed = []
    for outer in body.externals:
        local = fb.local(ctx, outer) if isinstance(outer, Variable) else outer
        if not isinstance(local, SymbolicTensor) or local.graph is not ctx:
            local = fb.local(ctx, outer)
        packed.append(local.value)
    block = Block(arg_types=[a.type for a in body.block.args])
    call = StatefulPartitionedCall.create(
        operands=list(block.args), result_types=[v.value.type for v in values],
        properties=StatefulPartitionedCall.attrs_to_properties({"f": body.name, "config": "", "config_proto": "",
                                                                "executor_type": ""}))
    block.add_op(call)
    block.add_op(ReturnOp.build(operands=[list(call.results)]))
    devices = ArrayAttr([StringAttr(device_name(d)) for d in strategy.devices])
    op = ReplicateOp.build(operands=[replicated, packed],
                           result_types=[[v.value.type for v in values for _ in range(n)]],
                           regions=[Region(block)],
                           properties={"n": IntegerAttr(n, i32), "devices": DictionaryAttr({"CORE_0": devices})})
    ctx.block.add_op(op)
    leaves = []
    for k, v in enumerate(values):
        leaves.append(PerReplica(tuple(SymbolicTensor(op.results[k * n + i], v.spec, ctx) for i in range(n))))
    if result is None:
        return None
    return pack_as(result, leaves, skip_none=True)


__all__ = ["TracedReplicaContext", "run_traced"]
