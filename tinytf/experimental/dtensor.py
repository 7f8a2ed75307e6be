"""``tt.experimental.dtensor``: TensorFlow's DTensor API, as layouts handed to XLA's SPMD partitioner.

    mesh = dtensor.create_mesh([("batch", 2), ("model", 4)], device_type="CPU")
    x = dtensor.copy_to_mesh(batch, dtensor.Layout.batch_sharded(mesh, "batch", rank=2))
    w = dtensor.DVariable(w0, layout=dtensor.Layout([dtensor.UNSHARDED, "model"], mesh))  # columns split
    step = tt.function(train_step, jit_compile=True)      # global view: the partitioner adds collectives
    dtensor.fetch_layout(x)                               # Layout(['batch', 'unsharded'], mesh)
    dtensor.unpack(x)                                     # the pieces, one per device of the mesh

A ``Mesh`` is a JAX mesh of Auto axes; a ``Layout`` says which mesh dim splits each tensor dim
(``UNSHARDED``: none) and becomes a ``NamedSharding``. A DTensor is a ``tt.Tensor`` whose value is
a JAX array placed so, a ``DVariable`` a ``tt.Variable`` that keeps its layout: passed to a
``tt.function(jit_compile=True)``, their placements are the compiled step's parameter shardings and
a variable's new value keeps its layout. Data parallel (batch-sharded inputs), sharded weights
(FSDP-style: weights split along the batch axis too) and tensor parallel (Megatron: one layer's
columns and the next one's rows split over a model axis) are all layouts; XLA inserts the
all-reduces, all-gathers and reduce-scatters. Eager ops on DTensors compute on the host (their
results are plain tensors): for debugging.
"""
from __future__ import annotations

import contextlib
import math
import threading

import numpy as np

from tinytf.errors import InvalidArgumentError
from tinytf.framework.variables import Variable
from tinytf.runtime.tensor import Tensor

UNSHARDED = "unsharded"
MATCH = "match"

_state = threading.local()


# --- meshes ------------------------------------------------------------------------------------

class Mesh:
    """Named dims over devices, row-major (the last dim varies fastest): TensorFlow's dtensor.Mesh."""

    def __init__(self, dim_names, devices, shape, mesh_name: str = ""):
        import jax
        from jax.sharding import AxisType

        self.dim_names = list(dim_names)
        self._shape = [int(s) for s in shape]
        self.name = mesh_name
        if len(set(self.dim_names)) != len(self.dim_names):
            raise InvalidArgumentError(f"dtensor mesh: dim names must differ, got {self.dim_names}")
        if UNSHARDED in self.dim_names or MATCH in self.dim_names:
            raise InvalidArgumentError(f"dtensor mesh: '{UNSHARDED}' and '{MATCH}' are not mesh dim names")
        if math.prod(self._shape) != len(devices):
            raise InvalidArgumentError(f"dtensor mesh: dims {dict(zip(self.dim_names, self._shape))} need "
                                       f"{math.prod(self._shape)} devices, got {len(devices)}")
        self._devices = list(devices)
        array = np.empty(len(devices), dtype=object)
        array[:] = self._devices
        self.jax_mesh = jax.sharding.Mesh(array.reshape(self._shape), tuple(self.dim_names),
                                          axis_types=(AxisType.Auto,) * len(self._shape))

    def shape(self) -> list[int]:
        return list(self._shape)

    @property
    def size(self) -> int:
        return len(self._devices)

    def dim_size(self, name: str) -> int:
        if name not in self.dim_names:
            raise InvalidArgumentError(f"dtensor mesh {self}: no dim '{name}' (dims: {', '.join(self.dim_names)})")
        return self._shape[self.dim_names.index(name)]

    def global_devices(self) -> list:
        return list(self._devices)

    def local_devices(self) -> list[str]:
        import jax

        from tinytf.distribute.strategy import device_name

        here = jax.process_index()
        return [device_name(d) for d in self._devices if d.process_index == here]

    def device_type(self) -> str:
        return self._devices[0].platform.upper()

    def global_device_ids(self) -> list[int]:
        return list(range(len(self._devices)))

    def to_string(self) -> str:
        dims = ",".join(f"{n}={s}" for n, s in zip(self.dim_names, self._shape))
        ids = ",".join(str(i) for i in self.global_device_ids())
        return f"{self.name}|{dims}|{ids}|{ids}|{','.join(self.local_devices())}"

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"Mesh({dict(zip(self.dim_names, self._shape))}, {self.device_type()})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Mesh) and self.dim_names == other.dim_names and self._shape == other._shape and \
            [id(d) for d in self._devices] == [id(d) for d in other._devices]

    def __hash__(self) -> int:
        return hash((tuple(self.dim_names), tuple(self._shape)))


def _pick_devices(devices, device_type, count: int | None, what: str, local: bool = True) -> list:
    import jax

    from tinytf.distribute.strategy import resolve_device

    if devices is not None:
        return [resolve_device(d) for d in devices]
    kind = (device_type or jax.default_backend()).lower()
    try:
        pool = jax.local_devices(backend=kind) if local else jax.devices(kind)
    except RuntimeError:
        raise InvalidArgumentError(f"{what}: JAX has no {kind.upper()} devices here") from None
    if count is not None and count > len(pool):
        raise InvalidArgumentError(f"{what}: the mesh needs {count} devices, there are {len(pool)} {kind.upper()} "
                                   "device(s) (more CPU devices: XLA_FLAGS=--xla_force_host_platform_device_count=N "
                                   "before JAX starts)")
    return list(pool[:count] if count is not None else pool)


def create_mesh(mesh_dims=None, mesh_name: str = "", devices=None, device_type: str | None = None,
                use_xla_spmd: bool = True) -> Mesh:
    """A mesh of this process's devices: ``mesh_dims`` [(name, size), ...] (default one dim 'x' over
    every device); ``devices``: TensorFlow device names."""
    dims = list(mesh_dims) if mesh_dims is not None else None
    count = math.prod(s for _, s in dims) if dims else None
    found = _pick_devices(devices, device_type, count, "dtensor.create_mesh")
    if dims is None:
        dims = [("x", len(found))]
    return Mesh([n for n, _ in dims], found, [s for _, s in dims], mesh_name)


def create_distributed_mesh(mesh_dims, mesh_name: str = "", local_devices=None, device_type: str | None = None,
                            use_xla_spmd: bool = True) -> Mesh:
    """A mesh over every process's devices (``jax.distributed``: start it first, e.g. with
    ``tt.distribute.MultiWorkerMirroredStrategy``); one process: as ``create_mesh``."""
    import jax

    dims = list(mesh_dims)
    count = math.prod(s for _, s in dims)
    if local_devices is not None:
        mine = [d for d in _pick_devices(local_devices, device_type, None, "dtensor.create_distributed_mesh")]
        per = len(mine)
        if per * jax.process_count() != count:
            raise InvalidArgumentError(f"dtensor.create_distributed_mesh: {per} local devices x "
                                       f"{jax.process_count()} processes is not the mesh's {count}")
    found = sorted(_pick_devices(None, device_type, count, "dtensor.create_distributed_mesh", local=False),
                   key=lambda d: (d.process_index, d.id))
    return Mesh([n for n, _ in dims], found, [s for _, s in dims], mesh_name)


@contextlib.contextmanager
def default_mesh(mesh: Mesh):
    """``mesh`` is the mesh of DVariables made without a layout's mesh inside."""
    stack = getattr(_state, "meshes", None)
    if stack is None:
        stack = _state.meshes = []
    stack.append(mesh)
    try:
        yield mesh
    finally:
        stack.pop()


# --- layouts ------------------------------------------------------------------------------------

class Layout:
    """For each tensor dim, the mesh dim that splits it (or ``UNSHARDED``)."""

    def __init__(self, sharding_specs, mesh: Mesh):
        if not isinstance(mesh, Mesh):
            raise InvalidArgumentError(f"dtensor.Layout: expected a dtensor Mesh, got {type(mesh).__name__}")
        self.sharding_specs = [str(s) for s in sharding_specs]
        self.mesh = mesh
        used = [s for s in self.sharding_specs if s not in (UNSHARDED, MATCH)]
        for s in used:
            if s not in mesh.dim_names:
                raise InvalidArgumentError(f"dtensor.Layout {self.sharding_specs}: '{s}' is not a dim of the mesh "
                                           f"(dims: {', '.join(mesh.dim_names)})")
        if len(set(used)) != len(used):
            raise InvalidArgumentError(f"dtensor.Layout {self.sharding_specs}: a mesh dim splits more than one "
                                       "tensor dim")

    @classmethod
    def replicated(cls, mesh: Mesh, rank: int) -> Layout:
        return cls([UNSHARDED] * rank, mesh)

    @classmethod
    def batch_sharded(cls, mesh: Mesh, batch_dim: str, rank: int, axis: int = 0) -> Layout:
        specs = [UNSHARDED] * rank
        specs[axis] = batch_dim
        return cls(specs, mesh)

    @classmethod
    def inner_sharded(cls, mesh: Mesh, inner_dim: str, rank: int) -> Layout:
        return cls.batch_sharded(mesh, inner_dim, rank, axis=rank - 1)

    @property
    def rank(self) -> int:
        return len(self.sharding_specs)

    def num_shards(self, idx: int) -> int:
        spec = self.sharding_specs[idx]
        return 1 if spec in (UNSHARDED, MATCH) else self.mesh.dim_size(spec)

    def is_fully_replicated(self) -> bool:
        return all(s == UNSHARDED for s in self.sharding_specs)

    @property
    def sharding(self):
        """The ``NamedSharding`` of this layout."""
        from jax.sharding import NamedSharding, PartitionSpec

        return NamedSharding(self.mesh.jax_mesh, PartitionSpec(*[None if s == UNSHARDED else s
                                                                 for s in self.sharding_specs]))

    def check(self, shape, what: str = "tensor") -> None:
        """InvalidArgumentError unless a value of ``shape`` fits: the rank matches and each split dim divides."""
        shape = tuple(shape)
        if len(shape) != self.rank:
            raise InvalidArgumentError(f"dtensor: layout {self.sharding_specs} has rank {self.rank}, the {what} has "
                                       f"shape {list(shape)}")
        for d, (size, spec) in enumerate(zip(shape, self.sharding_specs)):
            parts = self.num_shards(d)
            if size is not None and size % parts:
                raise InvalidArgumentError(f"dtensor: layout {self.sharding_specs} does not fit the mesh for the {what} "
                                           f"of shape {list(shape)}: dim {d} of size {size} does not divide into "
                                           f"{parts} pieces (mesh dim '{spec}')")

    def to_string(self) -> str:
        return f"sharding_specs:{','.join(self.sharding_specs)}, mesh:{self.mesh.to_string()}"

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"Layout({self.sharding_specs}, {self.mesh!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Layout) and self.sharding_specs == other.sharding_specs and self.mesh == other.mesh

    def __hash__(self) -> int:
        return hash((tuple(self.sharding_specs), self.mesh))


def _layout_of_sharding(sharding, rank: int) -> Layout | None:
    from jax.sharding import NamedSharding

    if not isinstance(sharding, NamedSharding):
        return None
    jmesh = sharding.mesh
    mesh = Mesh(list(jmesh.axis_names), list(jmesh.devices.flat), list(jmesh.devices.shape))
    specs = []
    for entry in tuple(sharding.spec) + (None,) * (rank - len(sharding.spec)):
        if entry is None:
            specs.append(UNSHARDED)
        elif isinstance(entry, str):
            specs.append(entry)
        elif len(entry) == 1:
            specs.append(entry[0])
        else:
            return None  # split over several mesh dims: not a DTensor layout
    return Layout(specs[:rank], mesh)


# --- DTensors and DVariables ------------------------------------------------------------------------

class DTensor(Tensor):
    """A tensor placed over a mesh: its value is a JAX array with the layout's sharding."""

    __slots__ = ("layout",)

    def numpy(self) -> np.ndarray:
        return np.asarray(self._value)

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self._value)
        return value if dtype is None else value.astype(dtype)

    def __repr__(self) -> str:
        return f"<tt.DTensor: shape={tuple(self._value.shape)}, dtype={self.dtype.name}, layout={self.layout.sharding_specs}>"


def _dtensor(array, layout: Layout) -> DTensor:
    t = DTensor.__new__(DTensor)
    t._value = array
    t.layout = layout
    return t


def _host(value) -> np.ndarray:
    if isinstance(value, Variable):
        return np.asarray(value.read())
    if isinstance(value, Tensor):
        return np.asarray(value._value)
    return np.asarray(value)


def copy_to_mesh(tensor, layout: Layout) -> DTensor:
    """``tensor`` (every process passes the whole value) placed over ``layout``'s mesh."""
    from tinytf.xla.spmd import place

    value = tensor._value if isinstance(tensor, Tensor) and not isinstance(tensor._value, np.ndarray) else \
        _host(tensor)
    layout.check(np.shape(value))
    return _dtensor(place(value, layout.sharding), layout)


def relayout(tensor, layout: Layout, name=None):
    """``tensor`` with ``layout``: moved now (a DTensor), or, inside a traced function, a
    ``tf.XlaSharding`` of the layout's sharding for XLA to honour."""
    from tinytf.runtime.function_body import tracing_context
    from tinytf.runtime.tracing import SymbolicTensor

    if isinstance(tensor, SymbolicTensor) and tracing_context() is not None:
        from tinytf.ops import hlo_sharding
        from tinytf.ops.xla_spmd import xla_sharding

        if tensor.shape is not None:
            layout.check(tensor.shape)
        return xla_sharding(tensor, str(hlo_sharding.from_jax(layout.sharding, layout.rank)))
    return copy_to_mesh(tensor, layout)


def fetch_layout(tensor) -> Layout:
    """The layout of a DTensor or DVariable (or of a JAX array placed by a NamedSharding)."""
    if isinstance(tensor, DTensor | DVariable):
        return tensor.layout
    value = getattr(tensor, "_value", tensor)
    found = _layout_of_sharding(getattr(value, "sharding", None), np.ndim(value))
    if found is None:
        raise InvalidArgumentError(f"dtensor.fetch_layout: {type(tensor).__name__} is not a DTensor (place it with "
                                   "dtensor.copy_to_mesh, dtensor.relayout or dtensor.pack)")
    return found


def check_layout(tensor, layout: Layout) -> None:
    found = fetch_layout(tensor)
    if found != layout:
        raise InvalidArgumentError(f"dtensor.check_layout: the layout is {found.sharding_specs}, expected "
                                   f"{layout.sharding_specs}")


def pack(tensors, layout: Layout) -> DTensor:
    """One DTensor from its pieces, one per device of the mesh (this process's, in mesh order)."""
    import jax

    sharding = layout.sharding
    devices = [d for d in layout.mesh.global_devices() if d.process_index == jax.process_index()]
    pieces = [_host(t) for t in tensors]
    if len(pieces) != len(devices):
        raise InvalidArgumentError(f"dtensor.pack: the mesh has {len(devices)} local devices, got {len(pieces)} "
                                   "pieces")
    shape0 = pieces[0].shape
    if any(p.shape != shape0 or p.dtype != pieces[0].dtype for p in pieces):
        raise InvalidArgumentError("dtensor.pack: the pieces must have one shape and dtype")
    if len(shape0) != layout.rank:
        raise InvalidArgumentError(f"dtensor.pack: layout {layout.sharding_specs} has rank {layout.rank}, the pieces "
                                   f"have shape {list(shape0)}")
    global_shape = tuple(s * layout.num_shards(d) for d, s in enumerate(shape0))
    arrays = [jax.device_put(p, d) for p, d in zip(pieces, devices)]
    array = jax.make_array_from_single_device_arrays(global_shape, sharding, arrays)
    return _dtensor(array, layout)


def unpack(tensor) -> list:
    """The DTensor's pieces, one per device of its mesh (this process's, in mesh order)."""
    from tinytf.runtime.constructors import constant

    layout = fetch_layout(tensor)
    value = _device_array(tensor) if isinstance(tensor, DVariable) else getattr(tensor, "_value", tensor)
    by_device = {id(s.device): s.data for s in value.addressable_shards}
    return [constant(np.asarray(by_device[id(d)])) for d in layout.mesh.global_devices() if id(d) in by_device]


def call_with_layout(fn, layout: Layout | None, *args, **kwargs):
    """``fn(*args, **kwargs)`` with its result placed by ``layout`` (None: as it comes)."""
    result = fn(*args, **kwargs)
    if layout is None:
        return result
    return relayout(result, layout)


class _DVariableType(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Variable) and isinstance(getattr(obj, "layout", None), Layout)


class DVariable(metaclass=_DVariableType):
    """A variable with a layout: its value stays placed so across compiled steps.

    It is a ``tt.Variable`` (the tapes and the engines see a variable) carrying ``layout`` and
    ``sharding`` (the placement compiled steps give it); ``isinstance(v, DVariable)`` holds."""

    def __new__(cls, initial_value, trainable: bool = True, name: str | None = None, dtype=None, layout=None,
                **kwargs):
        from tinytf.xla.spmd import place

        if callable(initial_value):
            initial_value = initial_value()
        host = _host(initial_value)
        if dtype is not None:
            from tinytf import dtypes

            host = host.astype(dtypes.as_dtype(dtype).np)
        if layout is None:
            meshes = getattr(_state, "meshes", None)
            if not meshes:
                raise InvalidArgumentError("dtensor.DVariable needs a layout (or a dtensor.default_mesh: replicated)")
            layout = Layout.replicated(meshes[-1], host.ndim)
        var = Variable(host, trainable=trainable, name=name)
        layout.check(host.shape, f"variable {var.name}")
        var.layout = layout
        var.sharding = layout.sharding
        with var.lock:
            var.set_device_value(place(host, layout.sharding))
        return var


def _device_array(var):
    from tinytf.xla.spmd import place

    with var.lock:
        return var.device_value(lambda array: place(array, var.layout.sharding))


# --- the client ---------------------------------------------------------------------------------------

def num_clients() -> int:
    import jax

    return jax.process_count()


def client_id() -> int:
    import jax

    return jax.process_index()


def local_devices(device_type: str | None = None, for_client_id: int | None = None) -> list[str]:
    import jax

    from tinytf.distribute.strategy import device_name

    here = jax.process_index() if for_client_id is None else for_client_id
    kind = (device_type or jax.default_backend()).lower()
    return [device_name(d) for d in jax.devices(kind) if d.process_index == here]


def num_local_devices(device_type: str | None = None) -> int:
    return len(local_devices(device_type))


def num_global_devices(device_type: str | None = None) -> int:
    import jax

    return len(jax.devices((device_type or jax.default_backend()).lower()))


def initialize_accelerator_system(device_type=None, enable_coordination_service=True, **kwargs) -> str:
    """Nothing to do: JAX starts its devices (and ``jax.distributed`` its clients) itself."""
    import jax

    return (device_type or jax.default_backend()).upper()


def shutdown_accelerator_system() -> None:
    return None


__all__ = ["MATCH", "UNSHARDED", "DTensor", "DVariable", "Layout", "Mesh", "call_with_layout", "check_layout",
           "client_id", "copy_to_mesh", "create_distributed_mesh", "create_mesh", "default_mesh", "fetch_layout",
           "initialize_accelerator_system", "local_devices", "num_clients", "num_global_devices", "num_local_devices",
           "pack", "relayout", "shutdown_accelerator_system", "unpack"]
