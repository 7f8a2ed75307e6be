"""Diagnostics beyond a verifier's one error, as MLIR's verifiers emit them: an error with notes at other
ops (``duplicate exported name 'foo'`` with ``previously seen here`` where the name was first given), a
second error on the same op (``failed to infer returned types`` and the types it inferred), and warnings
that do not fail verification (``has static shape result for unranked operand``).

    raise diagnostics.Error("duplicate exported name 'foo'", notes=[(first, "previously seen here")])
    diagnostics.warn(op, "has static shape result for unranked operand")

    with diagnostics.collecting() as warnings:      # the driver, around verification
        errors = tinytf.mlir.verify_each(module)    # errors carry .related: [(kind, "file:l:c", message)]
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence

from xdsl.utils.exceptions import VerifyException


class Error(VerifyException):
    """A verifier error (its message as ``verifiers.fail`` takes one: the driver prefixes ``'op' op``) with
    ``notes`` [(op, text)] attached at other ops and ``errors`` [text] also reported at the failing op, as
    written (TensorFlow's second message names the op itself)."""

    def __init__(self, message: str, notes: Sequence = (), errors: Sequence[str] = ()):
        super().__init__(message)
        self.notes = list(notes)
        self.errors = list(errors)


def related(err: BaseException, where: str, locate: Callable) -> list[tuple[str, str, str]]:
    """(kind, location, message) of the diagnostics ``err`` brings besides its own message: its further
    errors at ``where``, its notes at their ops (``locate(op)`` gives an op's ``file:line:col``)."""
    if not isinstance(err, Error):
        return []
    return [("error", where, text) for text in err.errors] + \
        [("note", locate(op) if op is not None else where, text) for op, text in err.notes]


_local = threading.local()


def warn(op, message: str) -> None:
    """Emit a warning at ``op``'s location (MLIR's ``emitWarning(loc, ...)``: the message as given); it
    does not fail verification, and is kept only while a driver collects warnings (``collecting``)."""
    sink = getattr(_local, "sink", None)
    if sink is not None:
        sink.append((op, message))


@contextlib.contextmanager
def collecting() -> Iterator[list]:
    """Collect the warnings emitted inside the block: a list of (op, message), in emission order, each
    once (verification may visit an op twice)."""
    previous = getattr(_local, "sink", None)
    sink: list = []
    _local.sink = sink
    try:
        yield sink
    finally:
        _local.sink = previous
        unique = []
        for item in sink:
            if not any(item[0] is op and item[1] == text for op, text in unique):
                unique.append(item)
        sink[:] = unique
