"""TensorFlow's global and op seeds: the one place that holds the global seed and each function's op counter.

    set_seed(1234)
    get_seed(None)      # (1234, 1467...): the op seed is drawn from the global seed
    get_seed(7)         # (1234, 7)

The rules are TensorFlow's (python/framework/random_seed.py): with neither seed set an op gets
(0, 0), which its kernel takes as "random"; an op seed alone pairs with the default graph seed
87654321; a global seed alone gives op seeds drawn from ``random.Random(global seed)`` eagerly, and
0, 1, 2, ... in a traced function (each function, like TensorFlow's FuncGraph, counts from 0 and
keeps the global seed it was traced under). Both are reduced modulo 2^31 - 1, and (0, 0) becomes
(0, 2^31 - 1). The op library's samplers (tinytf/ops/random_uniform.py) and dropout read the seeds
here; ``tt.random.set_seed`` / ``get_seed`` (tinytf/random/seed.py) are these functions.
"""
from __future__ import annotations

import random
import threading
import weakref

from tinytf.framework import context
from tinytf.ops.random_stateful import reset_eager_streams

__all__: list[str] = []  # tt.random holds the public functions (tinytf/random/__init__.py)

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


class _Global:
    seed = None
    rng = None  # random.Random(seed): draws eager op seeds (TensorFlow's context._rng)


_global = _Global()
_lock = threading.Lock()
_graphs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # tracing context -> [graph seed, next op seed]


def _tracing():
    """The function being traced now (below any tapes), or None when running eagerly."""
    for ctx in reversed(context.stack()):
        if hasattr(ctx, "is_eager"):
            return None if ctx.is_eager else ctx
    return None


def _graph(ctx) -> list:
    found = _graphs.get(ctx)
    if found is None:
        found = _graphs[ctx] = [_global.seed, 0]  # a function keeps the global seed it is traced under
    return found


def set_seed(seed, eager_resources: dict | None = None) -> None:
    """Set the global random seed (inside a traced function: that function's graph seed). Eagerly, the
    stateful kernels' streams in ``eager_resources`` start again, as TensorFlow clears its kernel cache."""
    seed = None if seed is None else int(seed)
    ctx = _tracing()
    if ctx is not None:
        _graph(ctx)[0] = seed
        return
    with _lock:
        _global.seed = seed
        _global.rng = random.Random(seed)
        if eager_resources is not None:
            reset_eager_streams(eager_resources)


def global_seed():
    """The global seed set with ``set_seed`` (None when unset)."""
    ctx = _tracing()
    return _global.seed if ctx is None else _graph(ctx)[0]


def get_seed(op_seed):
    """The (seed, seed2) an op with op seed ``op_seed`` (None when unset) gets; (None, None) when neither
    seed is set."""
    ctx = _tracing()
    with _lock:
        global_ = _global.seed if ctx is None else _graph(ctx)[0]
        if global_ is not None:
            if op_seed is None:
                if ctx is None:
                    op_seed = _global.rng.randint(0, _MAXINT32)
                else:
                    graph = _graph(ctx)
                    op_seed, graph[1] = graph[1], graph[1] + 1
            seeds = global_ % _MAXINT32, int(op_seed) % _MAXINT32
        elif op_seed is not None:
            seeds = DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
        else:
            seeds = None, None
    return (0, _MAXINT32) if seeds == (0, 0) else seeds
