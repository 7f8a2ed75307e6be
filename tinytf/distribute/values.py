"""Distributed values: one value per replica.

    PerReplica((t0, t1, ..., t7))     # what strategy.run returns (a value of each replica)
    batch = DistributedBatch.of(8)((global_batch,))   # a global batch, replica i holding rows [i*b, (i+1)*b)
    batch.values                      # the 8 pieces; batch.global_value: the whole batch

Both are tuples, so ``tt.function`` flattens them like any structure and traces with them: a
``PerReplica`` passes its n components, a ``DistributedBatch`` its one global tensor (the compiled
step gets it whole, sharded along the batch over the replicas' devices). The number of replicas is
part of a DistributedBatch's class, which tracing keeps.
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import InvalidArgumentError


class DistributedValues(tuple):
    """Base of the values that differ per replica."""

    __slots__ = ()

    @property
    def values(self) -> tuple:
        return tuple(self)

    def _local(self, i: int):
        return self.values[i]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(repr(v) for v in self.values)})"


class PerReplica(DistributedValues):
    """One value per replica, in replica order (``.values``)."""

    __slots__ = ()


class DistributedBatch(DistributedValues):
    """A global batch split along its first dim over ``num_replicas`` replicas (use ``of(n)``)."""

    __slots__ = ()
    num_replicas = 1
    _classes: dict = {}

    @classmethod
    def of(cls, n: int) -> type[DistributedBatch]:
        found = cls._classes.get(n)
        if found is None:
            found = cls._classes[n] = type(f"DistributedBatch{n}", (cls,), {"__slots__": (), "num_replicas": n})
        return found

    @property
    def global_value(self):
        return tuple.__getitem__(self, 0)

    @property
    def values(self) -> tuple:
        return tuple(self._local(i) for i in range(self.num_replicas))

    def _local(self, i: int):
        value = self.global_value
        b = _batch(value) // self.num_replicas
        return value[i * b:(i + 1) * b]

    def __repr__(self) -> str:
        return f"DistributedBatch(num_replicas={self.num_replicas}, {self.global_value!r})"


def _batch(value) -> int:
    shape = getattr(value, "shape", None)
    if shape is None:
        shape = np.shape(value)
    if shape is None or len(shape) == 0 or shape[0] is None:
        raise InvalidArgumentError(f"a distributed batch needs a first (batch) dim, got shape "
                                   f"{None if shape is None else list(shape)}")
    return int(shape[0])


def check_divides(value, n: int, what: str = "the global batch") -> None:
    size = _batch(value)
    if size % n:
        raise InvalidArgumentError(
            f"{what} of {size} examples does not divide among {n} replicas: each replica must get the same "
            f"number ({size} = {size // n} x {n} + {size % n}); make the global batch a multiple of {n} (drop "
            "or pad the last partial batch)")


def is_distributed(value) -> bool:
    return isinstance(value, DistributedValues)
