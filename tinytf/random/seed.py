"""TensorFlow's global and op seeds: ``tt.random.set_seed`` and the (seed, seed2) a stateful op gets.

    tt.random.set_seed(1234)
    tt.random.get_seed(None)      # (1234, 1467...): the op seed is drawn from the global seed
    tt.random.get_seed(7)         # (1234, 7)

The rules are TensorFlow's (python/framework/random_seed.py): with neither seed set an op gets
(0, 0), which its kernel takes as "random"; an op seed alone pairs with the default graph seed
87654321; a global seed alone gives op seeds drawn from ``random.Random(global seed)`` eagerly, and
0, 1, 2, ... in a traced function (each function, like TensorFlow's FuncGraph, counts from 0 and
keeps the global seed it was traced under). Both are reduced modulo 2^31 - 1, and (0, 0) becomes
(0, 2^31 - 1). ``set_seed`` also restarts the eager stateful kernels' streams, as TensorFlow clears
its kernel cache.
"""
from __future__ import annotations

import random
import threading
import weakref

from tinytf.ops.random_stateful import reset_eager_streams

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


class _Global:
    seed = None
    rng = None  # random.Random(seed): draws eager op seeds (TensorFlow's context._rng)


_global = _Global()
_lock = threading.Lock()
_graphs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # tracing context -> [graph seed, next op seed]


def _tracing():
    from tinytf.runtime.function_body import tracing_context

    return tracing_context()


def _graph(ctx) -> list:
    found = _graphs.get(ctx)
    if found is None:
        found = _graphs[ctx] = [_global.seed, 0]  # a function keeps the global seed it is traced under
    return found


def set_seed(seed) -> None:
    """Set the global random seed (inside a traced function: that function's graph seed)."""
    seed = None if seed is None else int(seed)
    ctx = _tracing()
    if ctx is not None:
        _graph(ctx)[0] = seed
        return
    from tinytf.runtime.eager import EAGER_RESOURCES

    with _lock:
        _global.seed = seed
        _global.rng = random.Random(seed)
        reset_eager_streams(EAGER_RESOURCES)


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
