"""Many devices under XLA: the shardings of a computation's arguments, ``tf_device.replicate`` as a
replicated (SPMD) computation, and what the compiled step moves between devices and keeps on each.

    plan = ShardingPlan.build(module, fn, params, ir_in, ir_out, given)   # None: one device
    plan.in_shardings                                        # a NamedSharding per parameter
    collectives(compiled.as_text())                          # [Collective(kind="all-reduce", bytes=..., ...)]
    memory(compiled)                                         # per-device bytes from XLA's memory analysis

Placement and collectives are XLA's: a sharding (HLO text or ``xla.OpSharding`` bytes, from
``mhlo.sharding`` attributes, ``tf.XlaSharding`` ops, or the arrays passed in) becomes a
``NamedSharding`` over a mesh of Auto axes (tinytf/ops/hlo_sharding.py), and XLA's SPMD
partitioner splits the program and inserts the collectives it needs.

``tf_device.replicate`` (n replicas of its region) becomes ``jax.shard_map`` over a one-axis mesh
of its n devices: each replicated input is the n operands stacked along a new leading axis and
split over the devices (or, when the n operands are the pieces of one ``tf.XlaSplitND`` along an
axis, that input whole, sharded along the axis: no slicing), a packed input reaches every replica
whole, and a variable written in the region must end equal on all replicas (as a mirrored
variable; ``tf.XlaAllReduce`` sums what differs), else an InvalidArgumentError says which.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops import hlo_sharding
from tinytf.ops.tf_device import ReplicateOp
from tinytf.ops.xla_spmd import REPLICA_AXIS
from tinytf.xla.arguments import REGION_ARGUMENTS
from tinytf.xla.lowering import REGION_RULES
from tinytf.xla.values import Resource, is_concrete

AXIS = "replica"


# --- the arguments' shardings --------------------------------------------------------------------

def _device_list(sharding) -> list:
    mesh = getattr(sharding, "mesh", None)
    if mesh is not None:
        return list(mesh.devices.flat)
    return sorted(getattr(sharding, "device_set", ()), key=lambda d: d.id)


def value_sharding(value):
    """The placement an argument brings: a multi-device JAX array's sharding, a DVariable's layout."""
    sharding = getattr(value, "sharding", None)
    if sharding is None or getattr(sharding, "num_devices", 1) <= 1:
        return None
    return sharding


def replicate_devices(module) -> list | None:
    """The devices of the module's first tf_device.replicate (None when it has none)."""
    for op in module.walk():
        if isinstance(op, ReplicateOp):
            return devices_of(op)
    return None


@dataclass
class ShardingPlan:
    """How a computation's parameters and outputs are placed, over ``devices`` in this order."""

    devices: list
    in_shardings: list          # jax Sharding per parameter
    out_shardings: list         # jax Sharding or None per function output (None: XLA's propagation)

    @property
    def mesh(self):
        from jax.sharding import AxisType, Mesh

        return Mesh(np.array(self.devices, dtype=object), (AXIS,), axis_types=(AxisType.Auto,))

    def replicated(self):
        from jax.sharding import NamedSharding, PartitionSpec

        return NamedSharding(self.mesh, PartitionSpec())

    @property
    def multi_process(self) -> bool:
        return len({d.process_index for d in self.devices}) > 1

    @classmethod
    def build(cls, module, fn, params: list, ir_in: list, ir_out: list, given: list | None,
              out_given: list | None = None, brought: list | None = None) -> ShardingPlan | None:
        """``params``: the compiled parameters (index, shape); ``ir_in`` / ``ir_out``: what the IR
        says per argument / output (a sharding string, or None); ``given``: explicit shardings per
        argument (a jax Sharding, an HLO string, or None), which win over the IR's; ``brought``: the
        placements the argument values bring, used where neither says anything. None when nothing
        asks for more than one device."""
        from jax.sharding import Sharding

        given = list(given) if given is not None else [None] * len(ir_in)
        brought = list(brought) if brought is not None else [None] * len(ir_in)
        wanted = {}
        for index, shape in params:
            s = next((c for c in (given[index], ir_in[index], brought[index]) if c is not None), None)
            if s is not None:
                wanted[index] = (s, len(shape))
        outs = list(out_given) if out_given is not None else [None] * len(ir_out)
        outs = [outs[k] if outs[k] is not None else ir_out[k] for k in range(len(ir_out))]
        base = None
        for s in [*(w[0] for w in wanted.values()), *(o for o in outs if o is not None)]:
            if isinstance(s, Sharding):
                if s.num_devices > 1:
                    base = _device_list(s)
                    break
                continue
            parsed = hlo_sharding.try_parse(s)
            if parsed is not None and parsed.kind == "tiled" and parsed.num_devices > 1:
                base = _by_id(sorted(parsed.devices), str(parsed))
                break
        if base is None:
            base = replicate_devices(module)
        if base is None or len(base) <= 1:
            return None
        plan = cls(base, [], [])
        with hlo_sharding.base_devices(base):
            for index, shape in params:
                s = wanted.get(index, (None,))[0]
                what = f"@{fn.sym_name.data} argument {index}"
                plan.in_shardings.append(_fitting(plan._convert(s, len(shape), what), shape, what))
            for k, s in enumerate(outs):
                plan.out_shardings.append(None if s is None else plan._convert(s, None, f"@{fn.sym_name.data} "
                                                                                       f"output {k}"))
        return plan

    def _convert(self, s, ndim, what: str):
        from jax.sharding import Sharding

        if s is None:
            return self.replicated()
        if isinstance(s, Sharding):
            if _device_list(s) == self.devices:
                return s
            if s.num_devices <= 1:
                return self.replicated()
            s = hlo_sharding.from_jax(s, ndim if ndim is not None else len(getattr(s, "spec", ())))
        parsed = hlo_sharding.try_parse(s)
        if parsed is None:
            raise InvalidArgumentError(f"{what}: cannot read sharding {s!r}")
        if parsed.kind == "maximal":
            raise UnimplementedError(f"{what}: {parsed} puts the value on one device of a computation over "
                                     f"{len(self.devices)} devices (XLA's SPMD partitioner wants it on all: "
                                     "replicated or tiled)")
        if parsed.is_replicated:
            return self.replicated()
        if ndim is None:
            ndim = parsed.rank
        return hlo_sharding.to_jax(parsed, ndim, self.devices, what)


def _fitting(sharding, shape, what: str):
    """``sharding`` when it splits ``shape`` evenly (JAX places no padded pieces), else a clear error."""
    if not hasattr(sharding, "shard_shape"):
        return sharding
    try:
        sharding.shard_shape(tuple(shape))
    except ValueError as err:  # jax's IndivisibleError
        m = re.search(r"axis (\d+) is partitioned (\d+) times", str(err))
        detail = f": dim {m.group(1)} is split {m.group(2)} ways" if m else ""
        raise InvalidArgumentError(f"{what} of shape {list(shape)}: its sharding does not divide it evenly over "
                                   f"the devices{detail}") from None
    return sharding


def _by_id(ids, what: str) -> list:
    import jax

    devices = jax.devices()
    for i in ids:
        if not 0 <= i < len(devices):
            raise InvalidArgumentError(f"sharding {what} names device {i}, but JAX has {len(devices)} device(s) "
                                       "(more CPU devices: XLA_FLAGS=--xla_force_host_platform_device_count=N, or "
                                       "`tinytf run --devices N`)")
    return [devices[i] for i in ids]


def describe(sharding, ndim: int) -> str:
    """HLO text of a JAX sharding (what the compile result prints)."""
    return str(hlo_sharding.from_jax(sharding, ndim))


# --- placing arrays ------------------------------------------------------------------------------------

def place(value, sharding):
    """``value`` (numpy or a JAX array) as a JAX array with ``sharding``; every process passes the
    whole (global) value and keeps its own devices' pieces."""
    import jax

    current = getattr(value, "sharding", None)
    if current is not None:
        if current == sharding or _same(current, sharding, np.ndim(value)):
            return value
        if getattr(value, "is_fully_addressable", True) and not _spans_processes(sharding):
            return jax.device_put(value, sharding)
        if not getattr(value, "is_fully_addressable", True) and not getattr(value, "is_fully_replicated", False):
            return jax.device_put(value, sharding)  # a global array: JAX reshards it
    host = np.asarray(value)
    if not _spans_processes(sharding):
        return jax.device_put(host, sharding)
    return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])


def _same(a, b, ndim: int) -> bool:
    try:
        return a.is_equivalent_to(b, ndim)
    except Exception:
        return False


def _spans_processes(sharding) -> bool:
    return len({d.process_index for d in sharding.device_set}) > 1


# --- tf_device.replicate ---------------------------------------------------------------------------

_DEVICE = re.compile(r"(?:/job:[^/]+)?(?:/replica:\d+)?(?:/task:(?P<task>\d+))?/(?:device:)?(?P<type>[A-Za-z_]+):"
                     r"(?P<index>\d+)$")


def device_by_name(name: str):
    """A JAX device for a TensorFlow device name: task T's local device I (``/job:worker/task:1/device:CPU:0``)."""
    import jax

    m = _DEVICE.search(name)
    if m is None:
        raise InvalidArgumentError(f"cannot read device name '{name}' (expected /job:J/replica:R/task:T/device:TYPE:I)")
    task, index = int(m.group("task") or 0), int(m.group("index"))
    local = sorted((d for d in jax.devices() if d.process_index == task), key=lambda d: d.id)
    if index >= len(local):
        raise InvalidArgumentError(f"device '{name}': task {task} has {len(local)} device(s) here "
                                   "(more CPU devices: XLA_FLAGS=--xla_force_host_platform_device_count=N, or "
                                   "`tinytf run --devices N`)")
    return local[index]


def devices_of(op: ReplicateOp) -> list:
    """The n devices a replicate runs on: its ``devices`` attribute, the computation's devices, or
    the first n of ``jax.devices()``."""
    import jax

    n = op.replicas
    if op.devices is not None and op.devices.data:
        names = next(iter(op.devices.data.values())).data
        return [device_by_name(s.data) for s in names]
    base = hlo_sharding.current_base_devices()
    if base is not None and len(base) == n:
        return list(base)
    devices = jax.devices()
    if len(devices) < n:
        raise InvalidArgumentError(f"tf_device.replicate with n = {n} needs {n} devices, JAX has {len(devices)} "
                                   "(more CPU devices: XLA_FLAGS=--xla_force_host_platform_device_count=N before JAX "
                                   "starts, or `tinytf run --devices N`)", "tf_device.replicate")
    return list(devices[:n])


def _whole_input(lowering, operands, n: int):
    """(the value, axis) when ``operands`` are the n pieces, in order, of one value split along an axis."""
    owner = operands[0].owner
    partitions = getattr(type(owner), "partitions", None)
    if partitions is None or any(o.owner is not owner for o in operands) or \
            [o.index for o in operands] != list(range(n)) or len(owner.results) != n:
        return None
    found = partitions(owner.attr_values())
    if found is None or found[1] != n:
        return None
    try:
        value = lowering.lookup(owner.operands[0])
    except KeyError:
        return None
    if isinstance(value, Resource) or not hasattr(value, "shape"):
        return None
    return value, found[0]


def _free_values(block) -> list:
    """Values the region uses that are defined outside it (in order of first use)."""
    inside, seen, out = set(block.args), set(), []
    for op in block.walk():
        for r in op.results:
            inside.add(r)
        for region in op.regions:
            for b in region.blocks:
                inside.update(b.args)
    for op in block.walk():
        for v in op.operands:
            if v not in inside and v not in seen:
                seen.add(v)
                out.append(v)
    return out


def lower_replicate(lowering, op: ReplicateOp, values: list) -> list:
    import jax
    import jax.numpy as jnp
    from jax.sharding import AxisType, Mesh
    from jax.sharding import PartitionSpec as P

    if REPLICA_AXIS.get() is not None:
        raise UnimplementedError("tf_device.replicate nested in another replicate cannot be lowered",
                                 "tf_device.replicate")
    n = op.replicas
    devices = devices_of(op)
    mesh = Mesh(np.array(devices, dtype=object), (AXIS,), axis_types=(AxisType.Auto,))
    block = op.body.block
    groups = len(op.replicated_inputs) // n
    inputs, specs, makers = [], [], []  # shard_map inputs, their specs; per block argument: local value maker

    def add(value, spec):
        inputs.append(value)
        specs.append(spec)
        return len(inputs) - 1

    for g in range(groups):
        operands = list(op.replicated_inputs[g * n:(g + 1) * n])
        whole = _whole_input(lowering, operands, n)
        if whole is not None:
            value, axis = whole
            k = add(jnp.asarray(value), P(*([None] * axis), AXIS))
            makers.append(lambda args, k=k: args[k])
        else:
            k = add(jnp.stack([jnp.asarray(v) for v in values[g * n:(g + 1) * n]]), P(AXIS))
            makers.append(lambda args, k=k: args[k][0])
    resources = {}  # block argument position -> outer Resource
    for j, value in enumerate(values[len(op.replicated_inputs):]):
        position = groups + j
        if isinstance(value, Resource):
            resources[position] = value
            if value.value is None:
                makers.append(lambda args, value=value: Resource(None, value.dtype, value.name))
                continue
            k = add(jnp.asarray(value.value), P())
            makers.append(lambda args, k=k, value=value: Resource(args[k], value.dtype, value.name))
        elif is_concrete(value):
            makers.append(lambda args, value=value: value)  # a compile-time constant stays one
        else:
            k = add(value, P())
            makers.append(lambda args, k=k: args[k])
    free = []
    for v in _free_values(block):
        try:
            outer = lowering.lookup(v)
        except KeyError:
            raise InvalidArgumentError("tf_device.replicate: its region uses a value defined after it",
                                       "tf_device.replicate") from None
        if isinstance(outer, Resource):
            raise UnimplementedError("tf_device.replicate: pass a variable to the region as a packed input, not "
                                     "from the enclosing function", "tf_device.replicate")
        free.append((v, outer if is_concrete(outer) else None, None if is_concrete(outer) else add(outer, P())))
    written: list = []  # outer resources the region writes, in the order of their new values

    def body(*args):
        local = [make(args) for make in makers]
        outer = {v: (const if k is None else args[k]) for v, const, k in free}
        token = REPLICA_AXIS.set((AXIS, n))
        try:
            outs = lowering.run_block(block, local, outer)
        finally:
            REPLICA_AXIS.reset(token)
        results = []
        for out in outs:
            if isinstance(out, Resource):
                raise UnimplementedError("tf_device.replicate returns a resource", "tf_device.replicate")
            results.append(jnp.expand_dims(jnp.asarray(out), 0))
        updates = []
        written.clear()
        for position, outer_resource in resources.items():
            inner = local[position]
            if inner.modified and inner.value is not None:
                written.append((outer_resource, inner))
                updates.append(jnp.asarray(inner.value))
        return tuple(results), tuple(updates)

    # one spec per output group (a pytree prefix): each replica's results stacked, the variables' new
    # values the same on every replica (check_vma checks it)
    mapped = jax.shard_map(body, mesh=mesh, in_specs=tuple(specs), out_specs=(P(AXIS), P()), check_vma=True)
    try:
        results, updates = mapped(*inputs)
    except Exception as err:
        raise _replicate_error(err, [outer.name for outer, _ in written]) from err
    for (outer_resource, _), value in zip(written, updates):
        outer_resource.value = value
        outer_resource.shape = tuple(value.shape)
        outer_resource.modified = True
    return [results[k][i] for k in range(len(results)) for i in range(n)]


def _replicate_error(err: Exception, resources=()) -> Exception:
    from tinytf.errors import OpError

    if isinstance(err, OpError):
        return err
    text = str(err)
    if "vma" in text or "varying" in text or "out_specs" in text:
        names = ", ".join(resources) or "a variable"
        return InvalidArgumentError(f"tf_device.replicate: the new value of {names} differs between replicas: a "
                                    "variable updated in a replicated computation must get the same update on "
                                    "every replica (sum the gradients across replicas, e.g. with tf.XlaAllReduce, "
                                    f"as apply_gradients does under a strategy). XLA: {text.splitlines()[0]}",
                                    "tf_device.replicate")
    return InvalidArgumentError(f"tf_device.replicate: {type(err).__name__}: {text.splitlines()[0] if text else ''}",
                                "tf_device.replicate")


def replicate_arguments(op: ReplicateOp, operand_index: int) -> list:
    """The block argument operand ``operand_index`` of a replicate becomes (n operands share one)."""
    n, replicated = op.replicas, len(op.replicated_inputs)
    index = operand_index // n if operand_index < replicated else replicated // n + operand_index - replicated
    args = op.body.block.args
    return [args[index]] if index < len(args) else []


REGION_RULES[ReplicateOp] = lower_replicate
REGION_ARGUMENTS[ReplicateOp] = replicate_arguments


# --- what the compiled step does -------------------------------------------------------------------

COLLECTIVE_KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
                    "collective-broadcast")
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?(?P<name>[\w.\-]+)\s*=\s*(?P<shape>.+?)\s+"
                          r"(?P<op>" + "|".join(COLLECTIVE_KINDS) + r")(?P<start>-start)?\(")
_ARRAY = re.compile(r"\b(?P<dtype>[a-z]+[0-9]*(?:e[0-9]m[0-9](?:fn|fnuz|b11fnuz)?)?)\[(?P<dims>[0-9,]*)\]")
_GROUPS = re.compile(r"replica_groups=(\{\{[0-9,{} ]*\}\}|\[[0-9,]+\]<=\[[0-9,]+\](?:T\([0-9,]+\))?|\{\})")
_XLA_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4,
              "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16, "s4": 1, "u4": 1}


@dataclass(frozen=True)
class Collective:
    """One collective of the compiled (partitioned) program: its kind, the bytes of its result on
    each device, and the size of its device groups."""

    kind: str
    bytes: int
    shape: str
    group_size: int
    name: str

    @property
    def traffic(self) -> float:
        """Bytes each device sends in a ring (bandwidth-optimal) implementation: an all-reduce of B
        bytes in groups of G sends 2(G-1)/G B; an all-gather or all-to-all (G-1)/G B; a
        reduce-scatter whose result is B (its operand G B) (G-1) B; a permute or broadcast B."""
        g = max(self.group_size, 1)
        factor = {"all-reduce": 2 * (g - 1) / g, "all-gather": (g - 1) / g, "all-to-all": (g - 1) / g,
                  "reduce-scatter": float(g - 1)}.get(self.kind, 1.0)
        return factor * self.bytes

    def __str__(self) -> str:
        return f"{self.kind} {self.shape} ({self.bytes} bytes per device, groups of {self.group_size})"


def _shape_bytes(text: str) -> int:
    total = 0
    for m in _ARRAY.finditer(text):
        size = _XLA_BYTES.get(m.group("dtype"))
        if size is None:
            continue
        dims = [int(d) for d in m.group("dims").split(",") if d]
        total += size * math.prod(dims)
    return total


_MESH_GROUPS = re.compile(r"replica_groups=mesh\[(?P<axes>[^\]]*)\]\s*\{(?P<over>[^}]*)\}")


def _group_size(line: str, default: int) -> int:
    mesh = _MESH_GROUPS.search(line)  # replica_groups=mesh['a'=2,'b'=4] {'a'}: groups along axis a
    if mesh is not None:
        sizes = dict(re.findall(r"'([^']+)'=(\d+)", mesh.group("axes")))
        over = re.findall(r"'([^']+)'", mesh.group("over"))
        return math.prod(int(sizes.get(a, 1)) for a in over) if over else default
    m = _GROUPS.search(line)
    if m is None:
        return default
    text = m.group(1)
    if text.startswith("["):  # iota form [groups,size]<=[...]
        dims = [int(d) for d in text[1:text.index("]")].split(",")]
        return dims[-1] if dims else default
    inner = re.findall(r"\{([0-9, ]*)\}", text)
    sizes = [len([x for x in g.split(",") if x.strip()]) for g in inner if g.strip()]
    return max(sizes) if sizes else default


def collectives(hlo_text: str, num_devices: int = 1) -> list[Collective]:
    """The collectives of an optimized HLO module (``compiled.as_text()``), in program order."""
    out = []
    for line in hlo_text.splitlines():
        m = _INSTRUCTION.match(line)
        if m is None:
            continue
        shape = m.group("shape")
        if m.group("start") and shape.startswith("(") and m.group("op") != "all-reduce":
            parts = _top_level(shape[1:-1])  # an async start: (operands..., results...)
            shape = "(" + ", ".join(parts[len(parts) // 2:]) + ")"
        out.append(Collective(m.group("op"), _shape_bytes(shape), shape.strip(), _group_size(line, num_devices),
                              m.group("name")))
    return out


def _top_level(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def memory(compiled) -> dict[str, int]:
    """Per-device bytes from XLA's memory analysis: arguments, outputs, aliased (donated) buffers,
    temporaries, generated code."""
    stats = compiled.memory_analysis()
    keys = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes", "temp_size_in_bytes",
            "generated_code_size_in_bytes")
    return {k.removesuffix("_size_in_bytes"): int(getattr(stats, k, 0) or 0) for k in keys}


def dtype_bytes(dtype) -> int:
    return dtypes.as_dtype(dtype).np.itemsize
