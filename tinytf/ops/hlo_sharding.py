"""XLA shardings in both of TensorFlow's string forms: HLO text and a serialized ``xla.OpSharding``.

    >>> s = parse("{devices=[4,1]<=[4]}")          # the text tf-opt and XLA print
    >>> s.tile_dims, s.devices, s.rank
    ((4, 1), (0, 1, 2, 3), 2)
    >>> parse(s.serialize()) == s                  # the proto bytes of ``_XlaSharding`` attributes
    True
    >>> str(parse(b"\\x08\\x01\\x1a\\x01\\x01\\x22\\x01\\x00"))
    '{maximal device=0}'

``XlaSharding`` ops and ``mhlo.sharding`` / ``_XlaSharding`` attributes carry either form; an empty
string means replicated (TensorFlow's ``kReplicateSharding``). ``to_jax`` turns a sharding into a
``NamedSharding`` over a mesh of ``jax.devices()`` (XLA's device ids index that list), and
``from_jax`` is the way back, for reports. Pure Python: JAX is imported only by those two.
"""
from __future__ import annotations

import contextlib
import contextvars
import itertools
import math
import re
from dataclasses import dataclass

from tinytf.errors import InvalidArgumentError, UnimplementedError

__all__: list = []  # no op functions here (tinytf.runtime.namespaces reads __all__)

# xla.OpSharding.Type and OpSharding.last_tile_dims' enum values
_TYPES = {0: "replicated", 1: "maximal", 2: "tuple", 3: "tiled", 4: "manual", 5: "unknown"}
_TYPE_IDS = {v: k for k, v in _TYPES.items()}
_SUBGROUPS = {0: "replicated", 1: "manual"}
_SUBGROUP_IDS = {v: k for k, v in _SUBGROUPS.items()}


@dataclass(frozen=True)
class HloSharding:
    """One XLA sharding. ``kind``: replicated, maximal, tiled, manual, tuple or unknown. A tiled
    sharding splits the data dims by ``tile_dims`` (trailing dims beyond the data rank replicate:
    ``replicate_last`` / ``last_tile_dims``) over ``devices`` in row-major tile order."""

    kind: str
    tile_dims: tuple[int, ...] = ()
    devices: tuple[int, ...] = ()
    replicate_last: bool = False
    last_tile_dims: tuple[str, ...] = ()
    tuple_shardings: tuple[HloSharding, ...] = ()

    @property
    def rank(self) -> int:
        """The data rank a tiled sharding applies to (its tile dims less the replication dims)."""
        return len(self.tile_dims) - int(self.replicate_last) - len(self.last_tile_dims)

    @property
    def num_devices(self) -> int:
        return len(self.devices)

    @property
    def is_replicated(self) -> bool:
        return self.kind == "replicated" or (self.kind == "tiled" and all(d == 1 for d in self.tile_dims[:self.rank]))

    # --- printing ---------------------------------------------------------------------------

    def __str__(self) -> str:
        if self.kind == "tuple":
            return "{" + ", ".join(str(s) for s in self.tuple_shardings) + "}"
        if self.kind == "maximal":
            return f"{{maximal device={self.devices[0]}}}"
        if self.kind != "tiled":
            return "{" + self.kind + "}"
        dims = ",".join(str(d) for d in self.tile_dims)
        devices = f"<={[len(self.devices)]}".replace(" ", "") if self.devices == tuple(range(len(self.devices))) \
            else ",".join(str(d) for d in self.devices)
        text = f"{{devices=[{dims}]{devices}"
        if self.replicate_last:
            text += " last_tile_dim_replicate"
        if self.last_tile_dims:
            text += " last_tile_dims={" + ", ".join(self.last_tile_dims) + "}"
        return text + "}"

    def serialize(self) -> bytes:
        """The ``xla.OpSharding`` proto bytes."""
        out = bytearray()
        _field_varint(out, 1, _TYPE_IDS["tiled" if self.kind == "tiled" else self.kind])
        if self.kind in ("tiled", "maximal"):
            _field_packed(out, 3, self.tile_dims if self.kind == "tiled" else (1,))
            _field_packed(out, 4, self.devices)
        for sub in self.tuple_shardings:
            _field_bytes(out, 5, sub.serialize())
        if self.replicate_last:
            _field_varint(out, 6, 1)
        if self.last_tile_dims:
            _field_packed(out, 8, [_SUBGROUP_IDS[t] for t in self.last_tile_dims])
        return bytes(out)

    def equivalent(self, other: HloSharding) -> bool:
        """The same placement (an explicit device list equal to an iota one, a trivial tiling of a
        replicated one)."""
        if self.is_replicated and other.is_replicated:
            return True
        return (self.kind, self.tile_dims, self.devices, self.replicate_last, self.last_tile_dims,
                self.tuple_shardings) == (other.kind, other.tile_dims, other.devices, other.replicate_last,
                                          other.last_tile_dims, other.tuple_shardings)


REPLICATED = HloSharding("replicated")


def replicated() -> HloSharding:
    return REPLICATED


def maximal(device: int) -> HloSharding:
    return HloSharding("maximal", (1,), (int(device),))


def tiled(tile_dims, devices=None, replicate_last: bool = False) -> HloSharding:
    dims = tuple(int(d) for d in tile_dims)
    n = math.prod(dims)
    ids = tuple(range(n)) if devices is None else tuple(int(d) for d in devices)
    if len(ids) != n:
        raise InvalidArgumentError(f"a sharding with tile dims {list(dims)} needs {n} devices, got {len(ids)}")
    return HloSharding("tiled", dims, ids, replicate_last)


# --- parsing ---------------------------------------------------------------------------------

def parse(value) -> HloSharding:
    """A sharding from HLO text (``{devices=[2,1]0,1}``), serialized ``OpSharding`` bytes, or ``""``
    (replicated). InvalidArgumentError names what does not parse."""
    if isinstance(value, HloSharding):
        return value
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return REPLICATED
        if text.startswith("{"):
            return _parse_text(text)
        value = value.encode("utf-8")  # a proto held in a StringAttr (its bytes are ASCII control codes)
    if isinstance(value, bytes | bytearray):
        if not value:
            return REPLICATED
        return _parse_proto(bytes(value))
    raise InvalidArgumentError(f"not a sharding: {value!r}")


def try_parse(value) -> HloSharding | None:
    """``parse``, or None for an opaque string (TensorFlow's tests use ``"\\01\\02\\03"``)."""
    try:
        return parse(value)
    except InvalidArgumentError:
        return None


_TOKEN = re.compile(r"\s*(\{|\}|,|=|\[|\]|<=|T\(|\(|\)|[A-Za-z_][A-Za-z_0-9]*|-?\d+)")


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        m = _TOKEN.match(text, pos)
        if m is None:
            raise InvalidArgumentError(f"cannot parse sharding {text!r} at column {pos + 1}")
        out.append(m.group(1))
        pos = m.end()
    return out


class _Text:
    def __init__(self, text: str):
        self.text, self.toks, self.i = text, _tokens(text), 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want=None):
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise InvalidArgumentError(f"cannot parse sharding {self.text!r}: expected {want or 'more'}, got "
                                       f"{tok or 'the end'}")
        self.i += 1
        return tok

    def ints(self, close: str) -> list[int]:
        out = []
        while self.peek() != close:
            out.append(int(self.take()))
            if self.peek() == ",":
                self.take()
        self.take(close)
        return out

    def skip_braced(self):
        depth = 0
        while True:
            tok = self.take()
            depth += tok == "{"
            depth -= tok == "}"
            if depth == 0:
                return


def _parse_text(text: str) -> HloSharding:
    p = _Text(text)
    out = _parse_one(p)
    if p.peek() is not None:
        raise InvalidArgumentError(f"cannot parse sharding {text!r}: unexpected {p.peek()}")
    return out


def _parse_one(p: _Text) -> HloSharding:
    p.take("{")
    if p.peek() == "{":  # a tuple
        parts = []
        while p.peek() == "{":
            parts.append(_parse_one(p))
            if p.peek() == ",":
                p.take()
        p.take("}")
        return HloSharding("tuple", tuple_shardings=tuple(parts))
    word = p.take()
    kind, dims, devices, replicate_last, last = None, (), (), False, ()
    if word in ("replicated", "manual", "unknown"):
        kind = word
    elif word == "maximal":
        p.take("device")
        p.take("=")
        kind, dims, devices = "maximal", (1,), (int(p.take()),)
    elif word == "devices":
        p.take("=")
        p.take("[")
        dims = tuple(p.ints("]"))
        n = math.prod(dims)
        if p.peek() == "<=":
            p.take()
            p.take("[")
            reshape = p.ints("]")
            perm = None
            if p.peek() == "T(":
                p.take()
                perm = p.ints(")")
            devices = _iota(reshape, perm)
        else:
            found = []
            while p.peek() is not None and p.peek().lstrip("-").isdigit():
                found.append(int(p.take()))
                if p.peek() == ",":
                    p.take()
            devices = tuple(found)
        if len(devices) != n:
            raise InvalidArgumentError(f"sharding {p.text!r}: tile dims {list(dims)} need {n} devices, "
                                       f"got {len(devices)}")
        kind = "tiled"
    else:
        raise InvalidArgumentError(f"cannot parse sharding {p.text!r}: unknown kind '{word}'")
    while p.peek() not in ("}", None):  # trailing options
        word = p.take()
        if word == "last_tile_dim_replicate":
            replicate_last = True
        elif word == "last_tile_dims":
            p.take("=")
            p.take("{")
            names = []
            while p.peek() != "}":
                names.append(p.take())
                if p.peek() == ",":
                    p.take()
            p.take("}")
            last = tuple(names)
        elif word in ("metadata", "shard_as", "shard_like"):
            if p.peek() == "=":
                p.take()
            if p.peek() == "{":
                p.skip_braced()
            else:
                p.take()
        elif word == ",":
            continue
        else:
            raise InvalidArgumentError(f"cannot parse sharding {p.text!r}: unknown option '{word}'")
    p.take("}")
    return HloSharding(kind, dims, devices, replicate_last, last)


def _iota(reshape, perm) -> tuple[int, ...]:
    n = math.prod(reshape)
    ids = list(range(n))
    if perm is None:
        return tuple(ids)
    if sorted(perm) != list(range(len(reshape))):
        raise InvalidArgumentError(f"bad iota transpose T({','.join(map(str, perm))}) for dims {list(reshape)}")
    strides = [math.prod(reshape[k + 1:]) for k in range(len(reshape))]
    shape = [reshape[k] for k in perm]
    out = []
    for index in itertools.product(*[range(d) for d in shape]):
        out.append(sum(index[j] * strides[perm[j]] for j in range(len(perm))))
    return tuple(out)


# --- the proto --------------------------------------------------------------------------------

def _varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if pos >= len(data):
            raise InvalidArgumentError("truncated OpSharding proto")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise InvalidArgumentError("bad varint in OpSharding proto")


def _parse_proto(data: bytes) -> HloSharding:
    kind, dims, devices, tuples, replicate_last, last = 0, [], [], [], False, []
    reshape, perm = [], []
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise InvalidArgumentError("not an OpSharding proto (field number 0)")
        if wire == 0:
            value, pos = _varint(data, pos)
            if field == 1:
                kind = value
            elif field == 3:
                dims.append(value)
            elif field == 4:
                devices.append(value)
            elif field == 6:
                replicate_last = bool(value)
            elif field == 8:
                last.append(value)
            elif field == 9:
                reshape.append(value)
            elif field == 10:
                perm.append(value)
        elif wire == 2:
            length, pos = _varint(data, pos)
            chunk = data[pos:pos + length]
            if len(chunk) != length:
                raise InvalidArgumentError("truncated OpSharding proto")
            pos += length
            if field == 5:
                tuples.append(_parse_proto(chunk))
            elif field in (3, 4, 8, 9, 10):
                values, k = [], 0
                while k < len(chunk):
                    v, k = _varint(chunk, k)
                    values.append(v)
                {3: dims, 4: devices, 8: last, 9: reshape, 10: perm}[field].extend(values)
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
            if pos > len(data):
                raise InvalidArgumentError("truncated OpSharding proto")
        else:
            raise InvalidArgumentError(f"not an OpSharding proto (wire type {wire})")
    if kind not in _TYPES:
        raise InvalidArgumentError(f"not an OpSharding proto (type {kind})")
    name = _TYPES[kind]
    if name == "tuple":
        return HloSharding("tuple", tuple_shardings=tuple(tuples))
    if name == "maximal":
        if len(devices) != 1:
            raise InvalidArgumentError("a maximal OpSharding names one device")
        return maximal(devices[0])
    if name != "tiled":
        return HloSharding(name)
    if not devices and reshape:
        devices = list(_iota(reshape, perm or None))
    if not dims or math.prod(dims) != len(devices):
        raise InvalidArgumentError(f"OpSharding tile dims {dims} do not match its {len(devices)} devices")
    try:
        subgroups = tuple(_SUBGROUPS[t] for t in last)
    except KeyError:
        raise InvalidArgumentError(f"unknown OpSharding last_tile_dims {last}") from None
    return HloSharding("tiled", tuple(dims), tuple(devices), replicate_last, subgroups)


def _field_varint(out: bytearray, field: int, value: int) -> None:
    _put_varint(out, field << 3)
    _put_varint(out, value)


def _field_bytes(out: bytearray, field: int, data: bytes) -> None:
    _put_varint(out, (field << 3) | 2)
    _put_varint(out, len(data))
    out += data


def _field_packed(out: bytearray, field: int, values) -> None:
    body = bytearray()
    for v in values:
        _put_varint(body, int(v))
    _field_bytes(out, field, bytes(body))


def _put_varint(out: bytearray, value: int) -> None:
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


# --- JAX shardings ----------------------------------------------------------------------------

# The devices a computation being compiled spans, in its order (tinytf.xla sets it while lowering):
# a sharding's device ids index jax.devices(), and every sharding of one computation must list the
# computation's devices in one order (JAX's rule), so each becomes a mesh over this order.
_BASE_DEVICES: contextvars.ContextVar = contextvars.ContextVar("tinytf_base_devices", default=None)


@contextlib.contextmanager
def base_devices(devices):
    token = _BASE_DEVICES.set(list(devices))
    try:
        yield
    finally:
        _BASE_DEVICES.reset(token)


def current_base_devices():
    return _BASE_DEVICES.get()


def _factors(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def to_jax(sharding, ndim: int, base=None, what: str = "sharding"):
    """A ``jax.sharding.NamedSharding`` placing an array of rank ``ndim`` as ``sharding`` says.

    ``base``: the computation's devices in order (default: ``base_devices`` or the devices the
    sharding names, ascending). The mesh is ``base`` reshaped; its axes are the prime factors of the
    tile dims in some order, found so that tile i lands on device ``devices[i]``."""
    import jax
    import numpy as np
    from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec

    s = parse(sharding)
    all_devices = jax.devices()
    if s.kind in ("tuple", "manual", "unknown"):
        raise UnimplementedError(f"{what}: a {s.kind} sharding {s} cannot place an array argument")
    if base is None:
        base = current_base_devices()
    if s.kind == "maximal":
        device = _device(all_devices, s.devices[0], what, s)
        if base is not None and len(base) > 1:
            raise UnimplementedError(f"{what}: {s} puts the value on one device, in a computation over "
                                     f"{len(base)} devices (XLA's SPMD partitioner needs every value on every "
                                     "device: use a replicated or tiled sharding)")
        return jax.sharding.SingleDeviceSharding(device)
    if s.kind == "replicated" or s.is_replicated and base is not None:
        devices = list(base) if base is not None else [_device(all_devices, i, what, s) for i in s.devices] or \
            [all_devices[0]]
        mesh = Mesh(np.array(devices, dtype=object), ("replica",), axis_types=(AxisType.Auto,))
        return NamedSharding(mesh, PartitionSpec())
    if s.rank != ndim:
        raise InvalidArgumentError(f"{what}: {s} tiles {s.rank} dims, the value has rank {ndim}")
    named = [_device(all_devices, i, what, s) for i in s.devices]
    if base is None:
        base = sorted(named, key=lambda d: all_devices.index(d))
    if sorted(id(d) for d in base) != sorted(id(d) for d in named):
        raise InvalidArgumentError(f"{what}: {s} uses devices {list(s.devices)}, the computation's other "
                                   f"values use devices {[d.id for d in base]}")
    position = {id(d): k for k, d in enumerate(base)}
    want = [position[id(d)] for d in named]
    factors = [(j, f) for j, d in enumerate(s.tile_dims) for f in _factors(d)]
    for order in _unique_permutations(range(len(factors))):
        if _tiles(s.tile_dims, factors, order) == want:
            names = [f"a{k}" for k in range(len(order))]
            shape = [factors[k][1] for k in order] or [1]
            mesh = Mesh(np.array(base, dtype=object).reshape(shape), names if order else ["a0"],
                        axis_types=(AxisType.Auto,) * len(shape))
            axis_of = {k: names[pos] for pos, k in enumerate(order)}
            spec = []
            for j in range(s.rank):
                axes = tuple(axis_of[k] for k, (dim, _) in enumerate(factors) if dim == j)
                spec.append(None if not axes else axes[0] if len(axes) == 1 else axes)
            return NamedSharding(mesh, PartitionSpec(*spec))
    raise UnimplementedError(f"{what}: the device order of {s} is not a mesh over the computation's devices "
                             f"{[d.id for d in base]}")


def _device(all_devices, i: int, what: str, s):
    if not 0 <= i < len(all_devices):
        raise InvalidArgumentError(f"{what}: {s} names device {i}, but JAX has {len(all_devices)} device(s) "
                                   "(more CPU devices: XLA_FLAGS=--xla_force_host_platform_device_count=N, or "
                                   "`tinytf run --devices N`)")
    return all_devices[i]


def _unique_permutations(items):
    seen = set()
    for p in itertools.permutations(items):
        if p not in seen:
            seen.add(p)
            yield p


def _tiles(tile_dims, factors, order) -> list[int]:
    """Mesh positions of each tile (row-major) when the mesh axes are ``factors`` in ``order``."""
    mesh_shape = [factors[k][1] for k in order]
    where = {k: pos for pos, k in enumerate(order)}
    out = []
    for tile in itertools.product(*[range(d) for d in tile_dims]):
        coords = [0] * len(order)
        for j, t in enumerate(tile):
            mine = [k for k, (dim, _) in enumerate(factors) if dim == j]
            for k in reversed(mine):  # the dim's factors, major to minor
                f = factors[k][1]
                coords[where[k]] = t % f
                t //= f
        flat = 0
        for c, size in zip(coords, mesh_shape):
            flat = flat * size + c
        out.append(flat)
    return out


def from_jax(sharding, ndim: int) -> HloSharding:
    """The HLO sharding of a JAX sharding (a NamedSharding or one device) for an array of rank ``ndim``."""
    import jax
    import numpy as np
    from jax.sharding import NamedSharding

    positions = {id(d): k for k, d in enumerate(jax.devices())}  # XLA's device ids index jax.devices()
    if not isinstance(sharding, NamedSharding):
        devices = list(getattr(sharding, "device_set", ()))
        return maximal(positions[id(devices[0])]) if len(devices) == 1 else REPLICATED
    mesh, spec = sharding.mesh, tuple(sharding.spec) + (None,) * (ndim - len(sharding.spec))
    names = list(mesh.axis_names)
    used, dims = [], []
    for entry in spec[:ndim]:
        axes = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
        used.extend(axes)
        dims.append(math.prod(mesh.shape[a] for a in axes))
    rest = [a for a in names if a not in used]
    if all(d == 1 for d in dims):
        return REPLICATED
    order = [names.index(a) for a in used + rest]
    ids = np.vectorize(lambda d: positions[id(d)], otypes=[int])(mesh.devices).transpose(order).reshape(-1)
    replicas = math.prod(mesh.shape[a] for a in rest)
    tile_dims = tuple(dims) + ((replicas,) if replicas > 1 else ())
    return HloSharding("tiled", tile_dims, tuple(int(i) for i in ids), replicas > 1)
