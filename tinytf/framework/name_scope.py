"""``tt.name_scope``: hierarchical names, as TensorFlow's eager name scopes.

    >>> with tt.name_scope("model") as scope:
    ...     scope
    'model/'
    ...     with tt.name_scope("dense"):
    ...         current()
    'model/dense/'
    >>> prefixed("kernel")                 # outside any scope
    'kernel'

A name ending in ``/`` is absolute (it replaces the current scope instead of nesting in it), so
a scope captured once can be re-entered anywhere: ``tt.Module`` keeps the scope it was built in.
Scopes are per thread. ``tt.summary`` prefixes its tags with the current scope, as TensorFlow's
summaries do.
"""
from __future__ import annotations

import threading

from tinytf.errors import InvalidArgumentError

_local = threading.local()


def current() -> str:
    """The current scope, ``""`` at the top or ``"a/b/"`` inside scopes a and b."""
    return getattr(_local, "scope", "")


def prefixed(name: str) -> str:
    """``name`` inside the current scope."""
    return current() + name


class name_scope:  # noqa: N801  (TensorFlow's spelling: tf.name_scope)
    """A context manager entering scope ``name`` (nested in the current one unless it ends in ``/``)."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise InvalidArgumentError(f"name_scope: the name must be a string, got {type(name).__name__}")
        self._name = name
        self._saved: list[str] = []

    @property
    def name(self) -> str:
        return self._name

    def _full(self) -> str:
        if not self._name:
            return ""
        if self._name.endswith("/"):
            return self._name
        return current() + self._name + "/"

    def __enter__(self) -> str:
        scope = self._full()
        self._saved.append(current())
        _local.scope = scope
        return scope

    def __exit__(self, *exc) -> bool:
        _local.scope = self._saved.pop()
        return False

    def __repr__(self) -> str:
        return f"name_scope({self._name!r})"
