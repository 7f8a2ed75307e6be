"""Where the code runs: in a strategy's scope (cross-replica context), inside ``strategy.run``
(a replica context), or neither (the default strategy, one replica). Per thread, as TensorFlow's
distribution context.

    with strategy.scope():                    # get_strategy() is strategy; in_cross_replica_context()
        strategy.run(fn)                      # in fn: get_replica_context().num_replicas_in_sync == N
    get_replica_context().num_replicas_in_sync  # 1: the default replica context
"""
from __future__ import annotations

import threading

from tinytf.distribute.reduce_util import ReduceOp

_state = threading.local()


def _scopes() -> list:
    try:
        return _state.scopes
    except AttributeError:
        _state.scopes = []
        return _state.scopes


class ValueContext:
    """What ``experimental_distribute_values_from_function``'s function gets: the replica it makes a value for."""

    def __init__(self, replica_id_in_sync_group: int = 0, num_replicas_in_sync: int = 1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync

    def __repr__(self) -> str:
        return (f"ValueContext(replica_id_in_sync_group={self.replica_id_in_sync_group}, "
                f"num_replicas_in_sync={self.num_replicas_in_sync})")


class ReplicaContext:
    """The context of one replica running ``strategy.run``'s function: its id, the number of
    replicas, and cross-replica reductions (``all_reduce``). The default one (no strategy) has one
    replica and reduces nothing."""

    def __init__(self, strategy, replica_id_in_sync_group=0):
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        return self._replica_id

    @property
    def devices(self):
        return self._strategy.extended.worker_devices[self._replica_id:self._replica_id + 1]

    def all_reduce(self, reduce_op, value, options=None):
        """``value`` (a structure of tensors) reduced over the replicas; every replica gets the result."""
        ReduceOp.from_variable_aggregation(reduce_op)
        return value

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """``merge_fn(strategy, *args, **kwargs)`` once, in cross-replica context, on every replica's args."""
        return merge_fn(self._strategy, *args, **(kwargs or {}))

    def apply_gradients(self, optimizer, pairs, aggregate: bool = True):
        """An optimizer's step under this replica context (optimizers call it: tinytf/optimizers.py)."""
        return optimizer._apply_pairs(pairs)

    def __enter__(self):
        _scopes().append(("replica", self))
        return self

    def __exit__(self, *exc):
        _scopes().pop()
        return False


class _DefaultStrategy:
    """The strategy when none is in scope: this process's default device, one replica."""

    num_replicas_in_sync = 1

    class extended:  # noqa: N801  (TF's strategy.extended)
        worker_devices = ("/job:localhost/replica:0/task:0/device:CPU:0",)

    def run(self, fn, args=(), kwargs=None, options=None):
        with ReplicaContext(self, 0):
            return fn(*args, **(kwargs or {}))

    def experimental_local_results(self, value):
        return (value,)

    def __repr__(self) -> str:
        return "<tt.distribute default strategy>"


DEFAULT_STRATEGY = _DefaultStrategy()
DEFAULT_REPLICA_CONTEXT = ReplicaContext(DEFAULT_STRATEGY, 0)


def push_strategy(strategy) -> None:
    _scopes().append(("strategy", strategy))


def pop_strategy() -> None:
    _scopes().pop()


def get_strategy():
    """The strategy in scope (the innermost ``strategy.scope()`` or the one running the replica), or
    the default strategy."""
    for kind, value in reversed(_scopes()):
        return value if kind == "strategy" else value.strategy
    return DEFAULT_STRATEGY


def has_strategy() -> bool:
    return get_strategy() is not DEFAULT_STRATEGY


def get_replica_context():
    """The current replica's context; None in cross-replica context (in a scope, outside run); the
    default replica context without a strategy."""
    scopes = _scopes()
    if not scopes:
        return DEFAULT_REPLICA_CONTEXT
    kind, value = scopes[-1]
    return value if kind == "replica" else None


def in_cross_replica_context() -> bool:
    scopes = _scopes()
    return bool(scopes) and scopes[-1][0] == "strategy"


def get_cross_replica_context():
    return get_strategy() if in_cross_replica_context() else None


def current_replica():
    """The replica context of a strategy's ``run`` (None otherwise): what optimizers ask."""
    scopes = _scopes()
    if scopes and scopes[-1][0] == "replica" and scopes[-1][1].strategy is not DEFAULT_STRATEGY:
        return scopes[-1][1]
    return None


def enter_thread(entries: list) -> None:
    """A replica thread starts with its strategy's scope and its replica context."""
    _state.scopes = list(entries)
