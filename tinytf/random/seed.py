"""TensorFlow's global and op seeds: ``tt.random.set_seed`` and the (seed, seed2) a stateful op gets.

    tt.random.set_seed(1234)
    tt.random.get_seed(None)      # (1234, 1467...): the op seed is drawn from the global seed
    tt.random.get_seed(7)         # (1234, 7)

The rules and the seed state are in the op library (tinytf/ops/random_seed.py), which dropout and
tt.image's random ops read too; ``set_seed`` here also restarts the eager stateful kernels' streams,
as TensorFlow clears its kernel cache.
"""
from __future__ import annotations

from tinytf.ops import random_seed
from tinytf.ops.random_seed import DEFAULT_GRAPH_SEED, get_seed, global_seed  # noqa: F401


def set_seed(seed) -> None:
    """Set the global random seed (inside a traced function: that function's graph seed)."""
    from tinytf.runtime.eager import EAGER_RESOURCES

    random_seed.set_seed(seed, EAGER_RESOURCES)
