"""``tt.distribute`` strategies: MirroredStrategy (data parallel over this process's devices),
OneDeviceStrategy, and the base they share (MultiWorkerMirroredStrategy is in multi_worker.py).

    strategy = tt.distribute.MirroredStrategy()              # every device JAX sees
    with strategy.scope():
        w = tt.Variable(...); opt = tt.optimizers.SGD(0.1)   # mirrored: one value on every replica
    dataset = strategy.experimental_distribute_dataset(global_batches)

    @tt.function(jit_compile=True)
    def train_step(batch):
        def step_fn(x, y):                                   # runs per replica, on its slice of the batch
            with tt.GradientTape() as tape:
                loss = tt.nn.compute_average_loss(per_example_loss(x, y))
            opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))   # gradients summed across replicas
            return loss
        return strategy.reduce(tt.distribute.ReduceOp.SUM, strategy.run(step_fn, args=batch), axis=None)

TensorFlow's semantics: a plain tensor passed to ``run`` reaches every replica whole; a distributed
value (a dataset element, ``experimental_distribute_values_from_function``) gives each replica its
own piece; ``apply_gradients`` sums the replicas' gradients (tt.nn.compute_average_loss divides
by the global batch, so the sum is the global mean's gradient).

Inside ``tt.function(jit_compile=True)`` the replicas are one XLA program: ``run`` traces the
function once, on one replica's shapes, into a private function called from a
``tf_device.replicate`` (n = the replicas); a global batch comes in whole with a ``tf.XlaSharding``
splitting it along the batch, and cross-replica sums are ``tf.XlaAllReduce``. XLA's SPMD partitioner
places it all (tinytf/xla/spmd.py). Eagerly, ``run`` runs the function in one thread per replica
(for debugging: print what you like); cross-replica sums meet at a barrier.
"""
from __future__ import annotations

import contextlib
import itertools
import threading

import numpy as np

from tinytf.autodiff.structures import flatten, pack_as
from tinytf.distribute import context
from tinytf.distribute.context import ReplicaContext, ValueContext
from tinytf.distribute.reduce_util import ReduceOp
from tinytf.distribute.values import DistributedBatch, DistributedValues, PerReplica, check_divides
from tinytf.errors import InvalidArgumentError
from tinytf.framework.variables import Variable
from tinytf.ops.op_functions import ops
from tinytf.runtime.constructors import constant

_run_ids = itertools.count(1)


# --- devices -----------------------------------------------------------------------------------------

def resolve_device(name):
    """A JAX device for a TensorFlow device name (``"/gpu:1"``, ``"/device:CPU:0"``,
    ``"/job:worker/replica:0/task:1/device:CPU:0"``) or a JAX device."""
    import jax

    if not isinstance(name, str):
        return name
    from tinytf.xla.spmd import _DEVICE

    m = _DEVICE.search(name)
    if m is None:
        raise InvalidArgumentError(f"cannot read device name '{name}' (expected e.g. '/gpu:0' or "
                                   "'/job:localhost/replica:0/task:0/device:CPU:0')")
    kind, index, task = m.group("type").lower(), int(m.group("index")), int(m.group("task") or 0)
    try:
        pool = jax.devices(kind)
    except RuntimeError:
        raise InvalidArgumentError(f"device '{name}': JAX has no {kind.upper()} devices here "
                                   f"(it has {', '.join(sorted({d.platform for d in jax.devices()}))})") from None
    local = [d for d in pool if d.process_index == task]
    if index >= len(local):
        raise InvalidArgumentError(f"device '{name}': there are {len(local)} {kind.upper()} device(s) on task {task} "
                                   "(more CPU devices: XLA_FLAGS=--xla_force_host_platform_device_count=N before "
                                   "JAX starts)")
    return local[index]


def device_name(device, job: str | None = None) -> str:
    """TensorFlow's full name of a JAX device."""
    import jax

    local = [d for d in jax.devices() if d.process_index == device.process_index and d.platform == device.platform]
    index = local.index(device)
    job = job or ("worker" if jax.process_count() > 1 else "localhost")
    return f"/job:{job}/replica:0/task:{device.process_index}/device:{device.platform.upper()}:{index}"


class StrategyExtended:
    """``strategy.extended``: the devices and the variables of a strategy."""

    def __init__(self, strategy):
        self._strategy = strategy

    @property
    def worker_devices(self) -> tuple[str, ...]:
        return tuple(device_name(d) for d in self._strategy._devices)

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        return self.worker_devices

    def variable_created_in_scope(self, v) -> bool:
        return any(start < v.uid and (end is None or v.uid < end) for start, end in self._strategy._scope_uids)

    def reduce_to(self, reduce_op, value, destinations=None, options=None):
        return self._strategy.reduce(reduce_op, value, axis=None)


def _uid_now() -> int:
    """The uid the next Variable gets, less one (variables are numbered in creation order)."""
    return Variable(np.zeros((), np.int8), trainable=False, name="_scope_probe").uid


# --- the strategy ------------------------------------------------------------------------------------

class Strategy:
    """What every tt.distribute strategy does; see the module docstring."""

    def __init__(self, devices):
        if not devices:
            raise InvalidArgumentError(f"{type(self).__name__}: no devices")
        self._devices = list(devices)
        if len({id(d) for d in self._devices}) != len(self._devices):
            raise InvalidArgumentError(f"{type(self).__name__}: a device is listed twice")
        self._scope_uids: list = []
        self.extended = StrategyExtended(self)

    # -- what it runs on ---------------------------------------------------------------------------

    @property
    def num_replicas_in_sync(self) -> int:
        return len(self._devices)

    @property
    def devices(self) -> tuple:
        return tuple(self._devices)

    @contextlib.contextmanager
    def scope(self):
        """Variables created inside are mirrored (one value on every replica), as are optimizer slots;
        ``tt.distribute.get_strategy()`` is this strategy."""
        entry = [_uid_now(), None]
        self._scope_uids.append(entry)
        context.push_strategy(self)
        try:
            yield self
        finally:
            context.pop_strategy()
            entry[1] = _uid_now()

    # -- distributed inputs --------------------------------------------------------------------------

    def experimental_distribute_dataset(self, dataset, options=None):
        """``dataset`` (an iterable of global batches: structures of arrays or tensors) as an iterable
        of distributed batches: each replica gets an equal slice along the batch."""
        return DistributedDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(input_context)`` gives each replica's batches; here one function call gives the
        global batches (every replica's, concatenated), as with one input pipeline."""
        from tinytf.distribute.context import ValueContext

        ctx = ValueContext(0, self.num_replicas_in_sync)
        ctx.num_input_pipelines, ctx.input_pipeline_id = 1, 0
        ctx.get_per_replica_batch_size = lambda global_batch_size: global_batch_size // self.num_replicas_in_sync
        return DistributedDataset(self, dataset_fn(ctx))

    def experimental_distribute_values_from_function(self, value_fn):
        """``value_fn(ValueContext)`` called for each replica: a value per replica (a structure with
        PerReplica leaves)."""
        n = self.num_replicas_in_sync
        values = [value_fn(ValueContext(i, n)) for i in range(n)]
        flat = [flatten(v) for v in values]
        if any(len(f) != len(flat[0]) for f in flat):
            raise InvalidArgumentError("experimental_distribute_values_from_function: each replica's value must "
                                       "have the same structure")
        leaves = [_as_per_replica([f[k] for f in flat], n) for k in range(len(flat[0]))]
        return pack_as(values[0], leaves)

    def experimental_local_results(self, value) -> tuple:
        """The values of this process's replicas (a distributed value's; a plain value once per replica)."""
        if isinstance(value, DistributedValues):
            return value.values
        return tuple(value for _ in range(self.num_replicas_in_sync))

    # -- running ------------------------------------------------------------------------------------

    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` on every replica; a structure with PerReplica leaves (one value per
        replica). A distributed value in ``args`` gives each replica its piece, a plain one reaches
        every replica whole."""
        from tinytf.runtime.function_body import tracing_context

        kwargs = dict(kwargs or {})
        if self.num_replicas_in_sync == 1:
            _check_distributed((args, kwargs), 1)
            with context.ReplicaContext(self, 0):
                local = _locals((args, kwargs), 0)
                return fn(*local[0], **local[1])
        ctx = tracing_context()
        if ctx is not None:
            from tinytf.distribute.replicate import run_traced

            return run_traced(self, ctx, fn, args, kwargs, next(_run_ids))
        return _run_threads(self, fn, args, kwargs)

    def reduce(self, reduce_op, value, axis=None):
        """The replicas' values combined (SUM or MEAN), optionally also along ``axis`` of each value."""

        op = ReduceOp.from_variable_aggregation(reduce_op)
        n = self.num_replicas_in_sync
        if not isinstance(value, DistributedValues):
            return _reduce_plain(op, value, n, axis)
        parts = list(value.values)
        if axis is None:
            total = parts[0] if len(parts) == 1 else ops.add_n(list(parts))
            return total / float(len(parts)) if op is ReduceOp.MEAN else total
        total = ops.add_n([ops.reduce_sum(p, axis=axis) for p in parts]) if len(parts) > 1 else \
            ops.reduce_sum(parts[0], axis=axis)
        if op is ReduceOp.MEAN:
            count = sum(int(_dim(p, axis)) for p in parts)
            return total / float(count)
        return total

    def gather(self, value, axis):
        """The replicas' values concatenated along ``axis`` (a plain value: one copy per replica)."""

        if isinstance(value, DistributedBatch) and axis == 0:
            return value.global_value
        parts = list(self.experimental_local_results(value))
        return parts[0] if len(parts) == 1 else ops.concat(parts, axis)

    def __repr__(self) -> str:
        return f"<tt.distribute.{type(self).__name__} over {self.num_replicas_in_sync} device(s)>"


def _dim(t, axis):
    shape = t.shape
    return shape[axis] if shape is not None else None


def _reduce_plain(op: ReduceOp, value, n: int, axis):
    """TensorFlow's reduce of a value that is the same on every replica: MEAN keeps it, SUM is refused."""

    if axis is not None:
        value = ops.reduce_sum(value, axis=axis) if op is ReduceOp.SUM else ops.reduce_mean(value, axis=axis)
    if op is ReduceOp.MEAN or n == 1:
        return value
    if isinstance(value, int | float) and value == 0:
        return 0
    raise InvalidArgumentError(f"A non-DistributedValues value {value!r} cannot be reduced with the given reduce op "
                               f"{op}.")


def _as_per_replica(parts: list, n: int):
    return PerReplica(tuple(parts))


def _check_distributed(structure, n: int) -> None:
    """Each distributed value in ``structure`` is one of ``n`` replicas (and a batch divides among them)."""
    def visit(s):
        if isinstance(s, DistributedBatch):
            if s.num_replicas != n:
                raise InvalidArgumentError(f"strategy.run: a batch distributed over {s.num_replicas} replicas, the "
                                           f"strategy has {n}")
            check_divides(s.global_value, n)
        elif isinstance(s, DistributedValues):
            if len(s.values) != n:
                raise InvalidArgumentError(f"strategy.run: a value of {len(s.values)} replicas, the strategy has {n}")
        elif isinstance(s, list | tuple):
            for x in s:
                visit(x)
        elif isinstance(s, dict):
            for x in s.values():
                visit(x)

    visit(structure)


def _locals(structure, i: int):
    """``structure`` as replica ``i`` sees it: distributed leaves replaced by replica i's piece."""
    def build(s):
        if isinstance(s, DistributedValues):
            return s._local(i)
        if isinstance(s, list | tuple):
            items = [build(x) for x in s]
            return type(s)(*items) if hasattr(s, "_fields") else type(s)(items)
        if isinstance(s, dict):
            return {k: build(v) for k, v in s.items()}
        return s

    return build(structure)


def _per_replica_results(results: list):
    """Per-replica results (one structure each) as one structure with PerReplica leaves."""
    flat = [flatten(r) if r is not None else [] for r in results]
    if any(len(f) != len(flat[0]) for f in flat):
        raise InvalidArgumentError("strategy.run: the replicas returned different structures")
    if results[0] is None:
        return None
    leaves = [PerReplica(tuple(f[k] for f in flat)) for k in range(len(flat[0]))]
    return pack_as(results[0], leaves)


# --- eager run: a thread per replica ------------------------------------------------------------------

class _Rendezvous:
    """Where the replica threads meet: each brings a value, ``fn`` runs once on all of them, each
    gets its result."""

    def __init__(self, n: int):
        self.n = n
        self.barrier = threading.Barrier(n)
        self.slots: list = [None] * n
        self.result = None
        self.error: BaseException | None = None

    def exchange(self, i: int, value, fn):
        self.slots[i] = value
        first = self.barrier.wait() == 0
        if first:
            self.error = None
            try:
                self.result = fn(list(self.slots))
            except BaseException as err:  # every replica raises it
                self.error = err
        self.barrier.wait()
        if self.error is not None:
            raise _Shared(self.error)
        return self.result


class _Shared(Exception):
    """An error raised once on behalf of every replica (the strategy reports the original)."""

    def __init__(self, original: BaseException):
        super().__init__(str(original))
        self.original = original


class EagerReplicaContext(ReplicaContext):
    """A replica thread's context: reductions meet the other replicas at a barrier."""

    def __init__(self, strategy, replica_id: int, rendezvous: _Rendezvous):
        super().__init__(strategy, replica_id)
        self._rendezvous = rendezvous

    def all_reduce(self, reduce_op, value, options=None):
        op = ReduceOp.from_variable_aggregation(reduce_op)
        n = self.num_replicas_in_sync

        def combine(values):
            flat = [flatten(v) for v in values]
            out = []
            for k in range(len(flat[0])):
                parts = [np.asarray(f[k]) for f in flat]
                total = parts[0].copy()
                for p in parts[1:]:
                    total = total + p
                out.append(total / n if op is ReduceOp.MEAN else total)
            return out


        combined = self._rendezvous.exchange(self._replica_id, value, combine)
        return pack_as(value, [constant(np.asarray(v, dtype=np.asarray(x).dtype))
                               for v, x in zip(combined, flatten(value))])

    def merge_call(self, merge_fn, args=(), kwargs=None):
        kwargs = kwargs or {}

        def merged(values):
            per_args = [_per_replica_results([v[0][k] for v in values]) for k in range(len(args))]
            per_kwargs = {key: _per_replica_results([v[1][key] for v in values]) for key in kwargs}
            context.push_strategy(self._strategy)
            try:
                return merge_fn(self._strategy, *per_args, **per_kwargs)
            finally:
                context.pop_strategy()

        return self._rendezvous.exchange(self._replica_id, (list(args), kwargs), merged)

    def apply_gradients(self, optimizer, pairs, aggregate: bool = True):
        grads = [g for g, _ in pairs]
        variables = [v for _, v in pairs]

        def step(values):

            summed = []
            for k in range(len(grads)):
                parts = [np.asarray(v[k]) for v in values]
                total = parts[0].copy()
                for p in parts[1:]:
                    total = total + p
                # experimental_aggregate_gradients=False: the caller summed them already (TensorFlow's contract)
                summed.append(constant(total) if aggregate else constant(parts[0]))
            return optimizer._apply_pairs(list(zip(summed, variables)))

        return self._rendezvous.exchange(self._replica_id, [np.asarray(g) for g in grads], step)


def _run_threads(strategy: Strategy, fn, args, kwargs):
    n = strategy.num_replicas_in_sync
    _check_distributed((args, kwargs), n)
    rendezvous = _Rendezvous(n)
    results: list = [None] * n
    errors: list = [None] * n
    outer = list(context._scopes())

    def work(i: int):
        replica = EagerReplicaContext(strategy, i, rendezvous)
        context.enter_thread([*outer, ("strategy", strategy), ("replica", replica)])
        try:
            local_args, local_kwargs = _locals((tuple(args), kwargs), i)
            results[i] = fn(*local_args, **local_kwargs)
        except _Shared as err:
            errors[i] = err.original
        except BaseException as err:
            errors[i] = err
            rendezvous.barrier.abort()  # the others stop waiting for this replica

    threads = [threading.Thread(target=work, args=(i,), name=f"tt.distribute replica {i}") for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    first = next((e for e in errors if e is not None and not isinstance(e, threading.BrokenBarrierError)), None)
    if first is None:
        first = next((e for e in errors if e is not None), None)
    if first is not None:
        if isinstance(first, threading.BrokenBarrierError):
            raise InvalidArgumentError("strategy.run: the replicas did not all reach the same cross-replica "
                                       "reduction (one skipped an all_reduce or apply_gradients)") from None
        raise first
    return _per_replica_results(results)


# --- the strategies ------------------------------------------------------------------------------------

class MirroredStrategy(Strategy):
    """Data parallel over this process's devices (``devices=None``: every device JAX sees):
    variables mirrored, each replica a slice of the global batch, gradients summed."""

    def __init__(self, devices=None, cross_device_ops=None):
        import jax

        found = list(jax.local_devices()) if devices is None else [resolve_device(d) for d in devices]
        super().__init__(found)


class OneDeviceStrategy(Strategy):
    """Everything on one device (``"/cpu:0"``, ``"/gpu:0"``): one replica."""

    def __init__(self, device):
        super().__init__([resolve_device(device)])


class DistributedDataset:
    """An iterable of distributed global batches (each leaf a ``DistributedBatch``)."""

    def __init__(self, strategy: Strategy, dataset):
        self._strategy = strategy
        self._dataset = dataset

    def __iter__(self):
        from tinytf.runtime.tensor import Tensor

        n = self._strategy.num_replicas_in_sync
        cls = DistributedBatch.of(n)
        for element in self._dataset:
            leaves = flatten(element)
            out = []
            for leaf in leaves:
                tensor = leaf if isinstance(leaf, Tensor) else constant(np.asarray(leaf))
                check_divides(tensor, n)
                out.append(cls((tensor,)))
            yield pack_as(element, out)

    def __repr__(self) -> str:
        return f"<tt.distribute.DistributedDataset over {self._strategy.num_replicas_in_sync} replicas>"


__all__ = ["MirroredStrategy", "OneDeviceStrategy", "Strategy"]
