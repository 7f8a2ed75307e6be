"""The thread-local context stack: where ``Op.bind`` sends an op.

A context has one method, ``execute(op_cls, inputs, attrs)``, returning the op's outputs.
``runtime`` supplies the eager context (the default at the bottom of every thread's stack) and
the tracing context; ``autodiff`` supplies the tape, a context that wraps the one below it.

    with context.pushed(TracingContext(...)) as ctx:
        y = tt.add(x, x)          # recorded into the function being built
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

_local = threading.local()
_default_factory = None


def set_default_context_factory(factory) -> None:
    """Install the context at the bottom of each thread's stack (runtime's EagerContext)."""
    global _default_factory
    _default_factory = factory


def _init_thread():
    if _default_factory is None:
        raise RuntimeError("no default context: import tinytf, not tinytf.framework alone")
    _local.stack = [_default_factory()]
    _local.top = _local.stack[0]
    return _local.top


def current():
    """The context ops go to now."""
    try:
        return _local.top
    except AttributeError:
        return _init_thread()


def stack() -> list:
    current()
    return list(_local.stack)


def push(ctx) -> None:
    current()
    _local.stack.append(ctx)
    _local.top = ctx


def pop(ctx) -> None:
    if _local.stack[-1] is not ctx:
        raise RuntimeError("context stack popped out of order")
    _local.stack.pop()
    _local.top = _local.stack[-1]


@contextmanager
def pushed(ctx):
    push(ctx)
    try:
        yield ctx
    finally:
        pop(ctx)
