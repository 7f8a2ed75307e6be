"""``tf-tpu-sharding-identification``: each ``tf_device.cluster_func``'s input and output shardings,
found in its callee as TensorFlow's pass finds them, for XLA's SPMD partitioner.

    %0 = "tf_device.cluster_func"(%x) <{func = @f}> {num_cores_per_replica = 1 : i64,
                                                     use_spmd_for_xla_partitioning = true} : ...
    func.func @f(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
      %1 = "tf.XlaSharding"(%arg0) <{_XlaSharding = "{devices=[2,1]0,1}"}> : ...
    // becomes: cluster_func {input_sharding_configuration = ["{devices=[2,1]0,1}"],
    //                        output_sharding_configuration = [""]}
    //          func.func @f(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]0,1}"}) -> (... {mhlo.sharding = ""})

TensorFlow's rules (tf2xla/internal/passes/tpu_sharding_identification_pass.cc):

- An input's sharding is the ``_XlaSharding`` (``_XlaShardingV2`` first) of the
  ``tf.TPUPartitionedInputV2`` feeding the operand (through a ``tf.ReadVariableOp``), else the first
  ``tf.XlaSharding`` reached from the argument going forward through ``tf.Identity``-like,
  unary elementwise, ``tf.Cast``, ``tf.ReadVariableOp``, ``tf.XlaAllReduce``, binary elementwise
  ops keeping the shape, calls (into the callee) and ``tf.WhileRegion`` (into both regions); an op
  placed on ``TPU_REPLICATED_CORE:n`` gives logical core n's maximal sharding.
- An output's sharding: the ``tf.TPUPartitionedOutputV2`` (or the partitioned input a sole
  ``tf.AssignVariableOp`` writes) using the result, else going back from the returned value
  through ``tf.XlaSharding``, ops carrying ``_XlaSharding``, unary and binary elementwise ops, calls
  and ``tf.WhileRegion`` bodies.
- An argument aliased to an output (``tf.aliasing_output``) shares its sharding (an error if both
  are known and differ). What is still unknown is replicated (``""``) under SPMD
  (``use_spmd_for_xla_partitioning``), else maximal on core 0.
- Under SPMD a maximal sharding anywhere, or a sharding tiling more dims than its value has,
  falls back to MPMD: ``use_spmd_for_xla_partitioning = false`` and only the explicit partitioned
  inputs and outputs count.

Sharding strings are copied as they are (HLO text, serialized ``xla.OpSharding``, or opaque bytes).
``function_shardings(fn)`` is the same analysis for a function compiled on its own (an entry
function of ``tt.xla.compile``): SPMD rules, no cluster_func around it.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i1,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import Elementwise, ReturnsOperands, calls_functions, has_trait
from tinytf.ops import hlo_sharding
from tinytf.ops.array import Cast
from tinytf.ops.resource import AssignVariableOp, ReadVariableOp
from tinytf.ops.tf_device import ClusterFuncOp
from tinytf.ops.xla_spmd import XlaAllReduce, XlaSharding
from tinytf.passes.symbols import arg_attrs, callee, functions, invalid, op_name, set_arg_attr

SHARDING_ATTR = "mhlo.sharding"
ALIASING_ATTR = "tf.aliasing_output"
REPLICATE = ""  # TensorFlow's kReplicateSharding
INPUT_ATTR, OUTPUT_ATTR = "input_sharding_configuration", "output_sharding_configuration"
PARTITIONED_INPUT, PARTITIONED_OUTPUT = "tf.TPUPartitionedInputV2", "tf.TPUPartitionedOutputV2"


def _attr(op: Operation, key: str):
    value = op.properties.get(key) or op.attributes.get(key)
    if isinstance(value, StringAttr):
        return value.data
    if isinstance(value, BytesAttr):
        return value.data
    return None


def _op_sharding(op: Operation):
    """The sharding string an op states (``_XlaShardingV2``, then ``_XlaSharding``), or None."""
    return _attr(op, "_XlaShardingV2") or _attr(op, "_XlaSharding")


def _sharding_op_value(op: Operation):
    """An XlaSharding op's sharding: V2 when both are set, after checking they agree (TensorFlow's check)."""
    v1, v2 = _attr(op, "_XlaSharding"), _attr(op, "_XlaShardingV2")
    if v1 and v2:
        a, b = hlo_sharding.try_parse(v1), hlo_sharding.try_parse(v2)
        if a is not None and b is not None and not a.equivalent(b):
            raise InvalidArgumentError(f"_XlaShardingV2 is not equivalent to _XlaSharding: {v2} vs {v1}")
    return v2 or v1 or _attr(op, "sharding") or None


def _logical_core(op: Operation, logical: list):
    device = _attr(op, "device")
    if isinstance(device, str) and "TPU_REPLICATED_CORE:" in device:
        try:
            index = int(device.rsplit(":", 1)[1])
        except ValueError:
            return None
        if 0 <= index < len(logical):
            return logical[index]
    return None


def _element(t: Attribute):
    return getattr(t, "element_type", t)


def _partial_same_shape(a: SSAValue, b: SSAValue) -> bool:
    """TensorFlow's DoTypesHavePartialSameShape: ranked shapes equal up to dynamic dims."""
    ta, tb = a.type, b.type
    if not isinstance(ta, TensorType) or not isinstance(tb, TensorType):
        return False
    sa, sb = list(ta.get_shape()), list(tb.get_shape())
    if all(d >= 0 for d in sa + sb):
        return sa == sb
    i = j = 0
    while i < len(sa) and j < len(sb):
        if sa[i] != sb[j] and sa[i] >= 0 and sb[j] >= 0:
            return False
        if sa[i] == sb[j]:
            i, j = i + 1, j + 1
        else:
            i += sa[i] < 0
            j += sb[j] < 0
    return i == len(sa) and j == len(sb)


def _unary(op: Operation) -> bool:
    if len(op.operands) != 1 or len(op.results) != 1:
        return False
    return has_trait(op, ReturnsOperands) or has_trait(op, Elementwise)


def _binary(op: Operation) -> bool:
    return (has_trait(op, Elementwise) and len(op.operands) == 2 and len(op.results) == 1
            and _element(op.operands[0].type) == _element(op.results[0].type))


def _callee_fn(op: Operation, table: dict):
    trait = calls_functions(op)
    if trait is None or trait.kind != "call":
        return None
    try:
        names = trait.callees(op)
    except Exception:  # a malformed call is reported by the verifier, not here
        return None
    fn = table.get(names[0]) if names else None
    return fn if fn is not None and fn.body.blocks else None


def arg_sharding(arg: BlockArgument, table: dict, logical: list):
    """The sharding reached from an argument going forward (TensorFlow's GetXlaShardingFromArg)."""
    visited, frontier = set(), [arg]
    while frontier:
        following = []
        for value in frontier:
            if value in visited:
                continue
            visited.add(value)
            for use in list(value.uses):
                owner = use.operation
                if isinstance(owner, XlaSharding):
                    return _sharding_op_value(owner)
                core = _logical_core(owner, logical)
                if core is not None:
                    return core
                if op_name(owner) == "tf.WhileRegion" and len(owner.regions) == 2:
                    for region in owner.regions:
                        if region.blocks and use.index < len(region.block.args):
                            following.append(region.block.args[use.index])
                    continue
                if _unary(owner) or isinstance(owner, Cast | XlaAllReduce | ReadVariableOp):
                    following.append(owner.results[0])
                    continue
                if _binary(owner) and _partial_same_shape(value, owner.results[0]):
                    following.append(owner.results[0])
                    continue
                fn = _callee_fn(owner, table)
                if fn is not None and use.index < len(fn.body.block.args):
                    following.append(fn.body.block.args[use.index])
        frontier = following
    return None


def retval_sharding(value: SSAValue, table: dict, logical: list):
    """The sharding reached from a returned value going back (TensorFlow's GetXlaShardingFromRetval)."""
    visited, stack = set(), [value]
    while stack:
        value = stack.pop()
        if value in visited:
            continue
        visited.add(value)
        op = value.owner
        if not isinstance(op, Operation):
            continue
        if isinstance(op, XlaSharding):
            return _sharding_op_value(op)
        stated = _op_sharding(op)
        if stated is not None:
            return stated
        core = _logical_core(op, logical)
        if core is not None:
            return core
        if _unary(op) or _binary(op):
            stack.extend(op.operands)
            continue
        fn = _callee_fn(op, table)
        if fn is not None:
            ret = fn.body.block.last_op
            if ret is not None and value.index < len(ret.operands):
                stack.append(ret.operands[value.index])
            continue
        if op_name(op) == "tf.WhileRegion" and len(op.regions) == 2 and op.regions[1].blocks:
            yielded = op.regions[1].block.last_op
            if yielded is not None and value.index < len(yielded.operands):
                stack.append(yielded.operands[value.index])
    return None


def _partitioned_input_op(value: SSAValue):
    if isinstance(value.owner, ReadVariableOp):
        value = value.owner.operands[0]
    owner = value.owner
    return owner if isinstance(owner, Operation) and op_name(owner) == PARTITIONED_INPUT else None


def _partitioned_input(value: SSAValue):
    owner = _partitioned_input_op(value)
    return _op_sharding(owner) if owner is not None else None


def _partitioned_result(value: SSAValue):
    uses = list(value.uses)
    if len(uses) != 1:
        return None
    user = uses[0].operation
    if op_name(user) == PARTITIONED_OUTPUT:
        return _op_sharding(user)
    if isinstance(user, AssignVariableOp):
        resource = user.operands[0].owner
        if isinstance(resource, Operation) and op_name(resource) == PARTITIONED_INPUT:
            return _op_sharding(resource)
    return None


def _aliases(fn: FuncOp, ins: list, outs: list) -> None:
    for i in range(len(ins)):
        value = arg_attrs(fn, i).get(ALIASING_ATTR)
        if not isinstance(value, IntegerAttr):
            continue
        k = value.value.data
        if not 0 <= k < len(outs):
            continue
        if ins[i] is not None and outs[k] is not None and ins[i] != outs[k]:
            raise InvalidArgumentError(f"arg#{i} is aliased to retval#{k} but their sharding configurations "
                                       "don't match.")
        if ins[i] is not None and outs[k] is None:
            outs[k] = ins[i]
        elif ins[i] is None and outs[k] is not None:
            ins[i] = outs[k]


def identify(fn: FuncOp, table: dict, logical: list, use_spmd: bool, infer: bool, operands=None, results=None):
    """(argument shardings, result shardings) of ``fn``; ``operands`` / ``results``: the
    cluster_func's, whose partitioned inputs and outputs come first."""
    block = fn.body.block
    ret = block.last_op
    returned = list(ret.operands) if ret is not None else []
    ins, outs = [], []
    for i, arg in enumerate(block.args):
        found = _partitioned_input(operands[i]) if operands is not None else None
        if found is None and infer:
            found = arg_sharding(arg, table, logical)
        ins.append(found)
    for k, value in enumerate(returned):
        found = _partitioned_result(results[k]) if results is not None and k < len(results) else None
        if found is None and infer:
            found = retval_sharding(value, table, logical)
        outs.append(found)
    _aliases(fn, ins, outs)
    default = REPLICATE if use_spmd else logical[0]
    return [default if s is None else s for s in ins], [default if s is None else s for s in outs]


def _is_maximal(s) -> bool:
    parsed = hlo_sharding.try_parse(s)
    return parsed is not None and parsed.kind == "maximal"


def _fits(value: SSAValue, s) -> bool:
    """TensorFlow's VerifySharding: a tiled sharding must not tile more dims than a ranked value has."""
    parsed = hlo_sharding.try_parse(s)
    if parsed is None or parsed.kind != "tiled" or not isinstance(value.type, TensorType):
        return True
    return len(value.type.get_shape()) >= parsed.rank


def _string(s) -> Attribute:
    if isinstance(s, bytes):
        try:
            return StringAttr(s.decode("ascii"))
        except UnicodeDecodeError:
            return BytesAttr(s)
    return StringAttr(s)


def set_result_attr(fn: FuncOp, index: int, key: str, value: Attribute) -> None:
    count = len(fn.function_type.outputs.data)
    dicts = list(fn.res_attrs.data) if fn.res_attrs is not None else [DictionaryAttr({}) for _ in range(count)]
    entries = dict(dicts[index].data)
    entries[key] = value
    dicts[index] = DictionaryAttr(entries)
    fn.res_attrs = ArrayAttr(dicts)


def identify_cluster(module: ModuleOp, cluster: Operation, table: dict) -> None:
    fn = callee(module, cluster, table)
    cores = cluster.attributes.get("num_cores_per_replica") or cluster.properties.get("num_cores_per_replica")
    if not isinstance(cores, IntegerAttr):
        raise invalid(cluster, "requires attribute 'num_cores_per_replica'")
    spmd_attr = cluster.attributes.get("use_spmd_for_xla_partitioning")
    use_spmd = isinstance(spmd_attr, IntegerAttr) and spmd_attr.value.data != 0
    logical = [hlo_sharding.maximal(i).serialize() for i in range(max(cores.value.data, 1))]
    if not fn.body.blocks:
        raise invalid(cluster, f"@{fn.sym_name.data} has no body")
    block = fn.body.block
    for operand, arg in zip(cluster.operands, block.args):  # a partitioned input that cannot fit its value
        source = _partitioned_input_op(operand)
        s = _partitioned_input(operand) if source is not None else None
        if s is not None and not _fits(arg, s):
            extra = hlo_sharding.parse(s).rank - len(arg.type.get_shape())
            raise invalid(source, f"tensor of type {arg.type} (rank={len(arg.type.get_shape())}) sharded in "
                                  f"{extra} extra dimension(s) by: {hlo_sharding.parse(s)}")
    try:
        ins, outs = identify(fn, table, logical, use_spmd, True, list(cluster.operands), list(cluster.results))
        returned = list(block.last_op.operands) if block.last_op is not None else []
        fits = all(_fits(a, s) for a, s in zip(block.args, ins)) and all(_fits(v, s) for v, s in zip(returned, outs))
        if (use_spmd and any(_is_maximal(s) for s in ins + outs)) or not fits:
            cluster.attributes["use_spmd_for_xla_partitioning"] = IntegerAttr(0, i1)
            ins, outs = identify(fn, table, logical, False, False, list(cluster.operands), list(cluster.results))
    except InvalidArgumentError as err:
        raise invalid(cluster, err.message) from None
    for i, s in enumerate(ins):
        set_arg_attr(fn, i, SHARDING_ATTR, _string(s))
    for k, s in enumerate(outs):
        set_result_attr(fn, k, SHARDING_ATTR, _string(s))
    cluster.attributes[INPUT_ATTR] = ArrayAttr([_string(s) for s in ins])
    cluster.attributes[OUTPUT_ATTR] = ArrayAttr([_string(s) for s in outs])
    cluster.attributes = dict(sorted(cluster.attributes.items()))  # MLIR prints attributes sorted by name


def function_shardings(fn: FuncOp, module: ModuleOp | None = None) -> tuple[list, list]:
    """(argument, result) shardings of a function compiled on its own, by the SPMD rules: an
    ``mhlo.sharding`` argument / result attribute wins, then what the IR's ``XlaSharding`` ops say;
    None where nothing is said (the caller decides: replicated, or the value's own placement)."""
    module = module if module is not None else fn.parent_op()
    table = functions(module) if isinstance(module, ModuleOp) else {}
    logical = [hlo_sharding.maximal(0).serialize()]
    block = fn.body.block
    ret = block.last_op
    returned = list(ret.operands) if isinstance(ret, ReturnOp) else []
    ins, outs = [], []
    for i, arg in enumerate(block.args):
        given = arg_attrs(fn, i).get(SHARDING_ATTR)
        ins.append(_attr_value(given) if given is not None else arg_sharding(arg, table, logical))
    res_attrs = list(fn.res_attrs.data) if fn.res_attrs is not None else []
    for k, value in enumerate(returned):
        given = res_attrs[k].data.get(SHARDING_ATTR) if k < len(res_attrs) else None
        outs.append(_attr_value(given) if given is not None else retval_sharding(value, table, logical))
    _aliases(fn, ins, outs)
    return ins, outs


def _attr_value(attr: Attribute):
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, BytesAttr):
        return attr.data
    raise InvalidArgumentError(f"{SHARDING_ATTR} must be a string, got {attr}")


@dataclass(frozen=True)
class ShardingIdentification(ModulePass):
    """Sets each cluster_func's ``input/output_sharding_configuration`` and its callee's ``mhlo.sharding``."""

    name = "tf-tpu-sharding-identification"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        table = functions(op)
        for cluster in [o for o in op.walk() if isinstance(o, ClusterFuncOp)]:
            identify_cluster(op, cluster, table)
