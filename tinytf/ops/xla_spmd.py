"""The ops of TensorFlow's XLA SPMD path: sharding annotations, cross-replica reductions, and the
split / concat of a value into per-device pieces.

    %0 = "tf.XlaSharding"(%x) <{_XlaSharding = "{devices=[8,1]<=[8]}", sharding = "{devices=[8,1]<=[8]}"}>
           : (tensor<64x16xf32>) -> tensor<64x16xf32>
    %1 = "tf.XlaAllReduce"(%g, %groups) <{mode = "CrossReplica", reduce_op = "Add"}>
           : (tensor<16x4xf32>, tensor<1x8xi32>) -> tensor<16x4xf32>
    %2:8 = "tf.XlaSplitND"(%x) <{num_splits = [8, 1]}> : (tensor<64x16xf32>) -> (tensor<8x16xf32>, ...)

The sharding strings are HLO text or serialized ``xla.OpSharding`` (tinytf/ops/hlo_sharding.py).
Eagerly and in graphs (one device) these ops are identities or plain splits. Under XLA,
``XlaSharding`` becomes a sharding constraint of the computation (a no-op when it runs on one
device) and ``XlaAllReduce`` the all-reduce of the replicated computation it runs in
(``tf_device.replicate``, lowered by tinytf/xla/spmd.py, which says so through ``REPLICA_AXIS``).
"""
from __future__ import annotations

import contextvars
import itertools
import math

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import hlo_sharding

__all__: list = []  # TensorFlow has these only as raw ops (tt.raw_ops.XlaSharding, ...)

# (mesh axis name, number of replicas) while tinytf.xla lowers the body of a tf_device.replicate
REPLICA_AXIS: contextvars.ContextVar = contextvars.ContextVar("tinytf_replica_axis", default=None)

REDUCE_OPS = ("Min", "Max", "Mul", "Add", "Mean")


def sharding_of(attrs: dict) -> str | bytes:
    """The sharding an XlaSharding op (or an op with ``_XlaSharding``) states: V2, then the private
    attribute, then ``sharding`` (TensorFlow's order)."""
    for key in ("_XlaShardingV2", "_XlaSharding", "sharding"):
        value = attrs.get(key)
        if value:
            return value
    return ""


@register
class XlaSharding(Op):
    """``input``, annotated with how XLA should place it (a sharding for the SPMD partitioner).

    %y = "tf.XlaSharding"(%x) <{sharding = "{devices=[2,1]0,1}"}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
    """

    name = "tf.XlaSharding"
    input = operand_def()
    output = result_def()
    sharding = attr("")
    _XlaSharding = attr(None, kind="str")
    _XlaShardingV2 = attr(None, kind="str")
    unspecified_dims = attr((), kind="ints")
    traits = traits_def(Pure(), NoConstantFold())

    @classmethod
    def infer(cls, input, **attrs):
        text = sharding_of(attrs)
        parsed = hlo_sharding.try_parse(text)
        if parsed is not None and parsed.kind == "tiled" and input.shape is not None and parsed.rank != len(
                input.shape):
            raise InvalidArgumentError(f"{cls.name}: sharding {parsed} tiles {parsed.rank} dims, the input has rank "
                                       f"{len(input.shape)}", cls.name)
        return TensorSpec(input.shape, input.dtype)

    @staticmethod
    def compute(xp, input, **attrs):
        return input

    @classmethod
    def lower(cls, input, **attrs):
        if REPLICA_AXIS.get() is not None or hlo_sharding.current_base_devices() is None:
            return input  # per-replica code, or a computation on one device: nothing to place
        parsed = hlo_sharding.try_parse(sharding_of(attrs))
        if parsed is None or parsed.kind in ("manual", "unknown", "tuple", "maximal"):
            return input
        import jax

        target = hlo_sharding.to_jax(parsed, np.ndim(input), what=cls.name)
        return jax.lax.with_sharding_constraint(jax.numpy.asarray(input), target)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = sharded(x): dx = U with the same sharding (TensorFlow's)
        attrs = op.attrs
        return [XlaSharding.bind(dy, sharding=attrs.get("sharding", ""), _XlaSharding=attrs.get("sharding") or None,
                                 unspecified_dims=attrs.get("unspecified_dims", ()))]


def xla_sharding(x, sharding, unspecified_dims=()):
    """``x`` annotated with ``sharding`` (HLO text, OpSharding bytes, or an HloSharding)."""
    text = str(hlo_sharding.parse(sharding)) if not isinstance(sharding, str) else sharding
    return XlaSharding.bind(x, sharding=text, _XlaSharding=text or None, unspecified_dims=tuple(unspecified_dims))


def replica_groups(value, op_name: str) -> list[list[int]]:
    groups = np.asarray(value)
    if groups.ndim != 2:
        raise InvalidArgumentError(f"{op_name}: group_assignment must be a matrix [groups, replicas per group], got "
                                   f"shape {list(groups.shape)}", op_name)
    return [[int(v) for v in row] for row in groups]


@register
class XlaAllReduce(Op):
    """``input`` reduced (``reduce_op``: Add, Mean, Min, Max, Mul) over the replicas of each group of
    ``group_assignment``; every replica gets its group's result.

    %y = "tf.XlaAllReduce"(%x, %g) <{mode = "CrossReplica", reduce_op = "Add"}> : (tensor<4xf32>, tensor<1x2xi32>) -> tensor<4xf32>
    """

    name = "tf.XlaAllReduce"
    input = operand_def()
    group_assignment = operand_def()
    output = result_def()
    reduce_op = attr(kind="str")
    mode = attr("CrossReplica")
    traits = traits_def(NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, input, group_assignment, *, reduce_op, mode):
        if reduce_op not in REDUCE_OPS:
            raise InvalidArgumentError(f"{cls.name}: reduce_op must be one of {', '.join(REDUCE_OPS)}, got "
                                       f"'{reduce_op}'", cls.name)
        if mode not in ("CrossReplica", "CrossReplicaAndPartition"):
            raise InvalidArgumentError(f"{cls.name}: mode must be CrossReplica or CrossReplicaAndPartition, got "
                                       f"'{mode}'", cls.name)
        if group_assignment.dtype.name != "int32":
            raise InvalidArgumentError(f"{cls.name}: group_assignment must be int32, got {group_assignment.dtype.name}",
                                       cls.name)
        if group_assignment.shape is not None and len(group_assignment.shape) != 2:
            raise InvalidArgumentError(f"{cls.name}: group_assignment must have rank 2, got "
                                       f"{list(group_assignment.shape)}", cls.name)
        return TensorSpec(input.shape, input.dtype)

    @classmethod
    def compute(cls, xp, input, group_assignment, *, reduce_op, mode):
        groups = replica_groups(group_assignment, cls.name)
        if all(len(g) == 1 for g in groups):  # one replica per group: nothing to reduce
            return input
        raise UnimplementedError(f"{cls.name}: a reduction over {max(len(g) for g in groups)} replicas runs only "
                                 "inside a replicated XLA computation (tf_device.replicate, strategy.run under "
                                 "tt.function(jit_compile=True))", cls.name)

    @classmethod
    def lower(cls, input, group_assignment, *, reduce_op, mode):
        replica = REPLICA_AXIS.get()
        if not isinstance(group_assignment, np.ndarray | np.generic):
            raise InvalidArgumentError(f"{cls.name}: group_assignment must be a compile-time constant", cls.name)
        groups = replica_groups(group_assignment, cls.name)
        if all(len(g) == 1 for g in groups):
            return input
        if replica is None:
            raise InvalidArgumentError(f"{cls.name}: a reduction over replicas {groups} outside a replicated "
                                       "computation (tf_device.replicate)", cls.name)
        axis, n = replica
        if sorted(v for g in groups for v in g) != list(range(n)) or len(groups) != 1:
            raise UnimplementedError(f"{cls.name}: group_assignment {groups}: only one group of all {n} replicas "
                                     "is implemented", cls.name)
        from jax import lax

        if reduce_op == "Add":
            return lax.psum(input, axis)
        if reduce_op == "Mean":
            return lax.pmean(input, axis)
        if reduce_op == "Max":
            return lax.pmax(input, axis)
        if reduce_op == "Min":
            return lax.pmin(input, axis)
        raise UnimplementedError(f"{cls.name}: reduce_op 'Mul' over replicas is not implemented", cls.name)


def xla_all_reduce(x, group_assignment, reduce_op: str = "Add", mode: str = "CrossReplica"):
    return XlaAllReduce.bind(x, np.asarray(group_assignment, np.int32), reduce_op=reduce_op, mode=mode)


# --- splitting into per-device pieces and back ---------------------------------------------------------

def _split_plan(op_name: str, shape, num_splits, paddings):
    if shape is None:
        raise InvalidArgumentError(f"{op_name}: the input needs a known rank", op_name)
    rank = len(shape)
    num_splits = tuple(int(s) for s in num_splits)
    paddings = tuple(int(p) for p in paddings) or (0,) * rank
    if len(num_splits) != rank or len(paddings) != rank:
        raise InvalidArgumentError(f"{op_name}: num_splits {list(num_splits)} and paddings {list(paddings)} need "
                                   f"one entry per dim of the rank-{rank} input", op_name)
    if any(s < 1 for s in num_splits) or any(p < 0 for p in paddings):
        raise InvalidArgumentError(f"{op_name}: num_splits must be positive and paddings non-negative", op_name)
    for d, s, p in zip(shape, num_splits, paddings):
        if d is not None and (d + p) % s:
            raise InvalidArgumentError(f"{op_name}: dim of size {d} (padded by {p}) does not divide into {s} "
                                       "pieces", op_name)
    return num_splits, paddings


@register
class XlaSplitND(Op):
    """``input`` (padded at the end of each dim by ``paddings``) cut into ``num_splits[d]`` equal
    pieces along each dim d; the pieces in row-major order (TensorFlow's TPU input splitting).

    %p:2 = "tf.XlaSplitND"(%x) <{num_splits = [2, 1]}> : (tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
    """

    name = "tf.XlaSplitND"
    input = operand_def()
    outputs = var_result_def()
    num_splits = attr(kind="ints")
    paddings = attr((), kind="ints")
    N = derived("int", lambda op: len(op.results))
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, *, num_splits, paddings, N):
        num_splits, paddings = _split_plan(cls.name, input.shape, num_splits, paddings)
        if math.prod(num_splits) != N:
            raise InvalidArgumentError(f"{cls.name}: num_splits {list(num_splits)} make {math.prod(num_splits)} "
                                       f"pieces, N is {N}", cls.name)
        piece = tuple(None if d is None else (d + p) // s for d, s, p in zip(input.shape, num_splits, paddings))
        return [TensorSpec(piece, input.dtype) for _ in range(N)]

    @classmethod
    def compute(cls, xp, input, *, num_splits, paddings, N):
        num_splits, paddings = _split_plan(cls.name, input.shape, num_splits, paddings)
        if any(paddings):
            input = xp.pad(input, [(0, p) for p in paddings])
        sizes = [d // s for d, s in zip(input.shape, num_splits)]
        out = []
        for index in itertools.product(*[range(s) for s in num_splits]):
            out.append(input[tuple(slice(i * z, (i + 1) * z) for i, z in zip(index, sizes))])
        return tuple(out)

    @staticmethod
    def partitions(attrs: dict):
        """(axis, pieces) when the pieces are equal slices of the input along one axis, in order:
        then the replicated computation that takes them can take the input whole, sharded along
        that axis (tinytf/xla/spmd.py)."""
        splits = [int(s) for s in attrs["num_splits"]]
        cut = [a for a, s in enumerate(splits) if s > 1]
        if any(attrs.get("paddings") or ()) or len(cut) > 1:
            return None
        return (cut[0] if cut else 0), math.prod(splits)

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U_i and ys = split(x): dx = concat(U) less the padding
        from tinytf.ops.array import zeros_like

        dys = [zeros_like(y) if d is None else d for d, y in zip(dys, op.outputs)]
        return [XlaConcatND.bind(*dys, num_concats=op.attrs["num_splits"], paddings=op.attrs["paddings"])]


@register
class XlaConcatND(Op):
    """The inverse of ``XlaSplitND``: ``inputs`` (row-major pieces) joined ``num_concats[d]`` times
    along each dim d, then ``paddings`` cut off the end of each dim.

    %x = "tf.XlaConcatND"(%a, %b) <{num_concats = [2, 1]}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    """

    name = "tf.XlaConcatND"
    inputs = var_operand_def()
    output = result_def()
    num_concats = attr(kind="ints")
    paddings = attr((), kind="ints")
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, *inputs, num_concats, paddings):
        num_concats = tuple(int(c) for c in num_concats)
        if not inputs or len(inputs) != math.prod(num_concats):
            raise InvalidArgumentError(f"{cls.name}: num_concats {list(num_concats)} need {math.prod(num_concats)} "
                                       f"inputs, got {len(inputs)}", cls.name)
        first = inputs[0]
        if any(x.dtype is not first.dtype for x in inputs):
            raise InvalidArgumentError(f"{cls.name}: the inputs must have one dtype", cls.name)
        if first.shape is None:
            return TensorSpec(None, first.dtype)
        if len(num_concats) != len(first.shape):
            raise InvalidArgumentError(f"{cls.name}: num_concats {list(num_concats)} need one entry per dim of the "
                                       f"rank-{len(first.shape)} inputs", cls.name)
        pads = tuple(int(p) for p in paddings) or (0,) * len(first.shape)
        out = tuple(None if d is None else d * c - p for d, c, p in zip(first.shape, num_concats, pads))
        return TensorSpec(out, first.dtype)

    @classmethod
    def compute(cls, xp, *inputs, num_concats, paddings):
        num_concats = [int(c) for c in num_concats]

        def join(pieces, dim):
            if dim == len(num_concats):
                return pieces[0]
            step = len(pieces) // num_concats[dim]
            return xp.concatenate([join(pieces[k * step:(k + 1) * step], dim + 1)
                                   for k in range(num_concats[dim])], axis=dim)

        out = join(list(inputs), 0)
        pads = [int(p) for p in paddings] or [0] * out.ndim
        return out[tuple(slice(0, d - p) for d, p in zip(out.shape, pads))]

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = concat(xs): dxs = split(U) (padding added back)
        n = len(op.inputs)
        return list(XlaSplitND.bind(dy, num_splits=op.attrs["num_concats"], paddings=op.attrs["paddings"], N=n))
