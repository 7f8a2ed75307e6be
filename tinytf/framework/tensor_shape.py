"""``TensorShape``: a tensor's static shape, as ``tf.TensorShape``.

    >>> s = TensorShape([2, None])
    >>> s.as_list(), s.rank, s[0], s[1:], s.is_fully_defined()
    ([2, None], 2, 2, TensorShape([None]), False)
    >>> s.merge_with([None, 3])
    TensorShape([2, 3])

A shape of known rank *is* a tuple of ints and ``None`` (unknown dims), so the engines' tuple code
(indexing, ``len``, ``== (2, 3)``, numpy, dict keys) takes it unchanged and it hashes as its tuple.
``TensorShape(None)`` (unknown rank) is the empty tuple underneath; ``len``, iteration and
``as_list`` refuse it. Unlike TensorFlow, a scalar's ``TensorShape([])`` is falsy (an empty tuple).
"""
from __future__ import annotations

import math

from tinytf.errors import InvalidArgumentError

_new = tuple.__new__


def _dim(d, dims):
    if d is None:
        return None
    try:
        value = d.__index__()
    except AttributeError:
        raise InvalidArgumentError(f"cannot convert {dims!r} to a shape: dimension {d!r} is not an integer or None") \
            from None
    if value < 0:
        raise InvalidArgumentError(f"cannot convert {dims!r} to a shape: dimension {value} must be >= 0")
    return value


class TensorShape(tuple):
    """A possibly partial shape: ``TensorShape([16, 256])``, ``TensorShape([None, 256])`` or
    ``TensorShape(None)`` (unknown rank)."""

    __slots__ = ()

    def __new__(cls, dims=None):
        if isinstance(dims, TensorShape):
            return dims
        if dims is None:
            return _UNKNOWN
        try:
            items = iter(dims)
        except TypeError:  # TensorFlow's singleton shape: TensorShape(3) is TensorShape([3])
            items = iter((dims,))
        return _new(cls, [_dim(d, dims) for d in items])

    # --- what it is ----------------------------------------------------------------------------

    @property
    def rank(self) -> int | None:
        """The number of dims, or None when the rank is unknown."""
        return len(self)

    ndims = rank  # TensorFlow's older name

    @property
    def dims(self) -> list | None:
        return list(self)

    def as_list(self) -> list:
        """The dims as a list of ints and ``None``."""
        return list(self)

    def is_fully_defined(self) -> bool:
        return None not in self

    def num_elements(self) -> int | None:
        """The product of the dims, or None unless fully defined."""
        return math.prod(self) if None not in self else None

    # --- against another shape -----------------------------------------------------------------

    def is_compatible_with(self, other) -> bool:
        """Is there a fully defined shape both can stand for? ``[32, None]`` fits ``[32, 784]``."""
        other = as_shape(other)
        if other.rank is None:
            return True
        return len(self) == len(other) and all(a is None or b is None or a == b for a, b in zip(self, other))

    def merge_with(self, other) -> TensorShape:
        """The shape with what both know: ``[None, 2]`` merged with ``[1, None]`` is ``[1, 2]``."""
        other = as_shape(other)
        if other.rank is None:
            return self
        if not self.is_compatible_with(other):
            raise InvalidArgumentError(f"Shapes {self} and {other} are not compatible")
        return _new(TensorShape, [b if a is None else a for a, b in zip(self, other)])

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """The most specific shape both fit: dims that differ or are unknown become None."""
        other = as_shape(other)
        if other.rank is None or len(self) != len(other):
            return _UNKNOWN
        return _new(TensorShape, [a if a == b else None for a, b in zip(self, other)])

    def concatenate(self, other) -> TensorShape:
        """The dims of ``self`` then those of ``other`` (unknown when either rank is unknown)."""
        other = as_shape(other)
        return _UNKNOWN if other.rank is None else _new(TensorShape, tuple.__add__(self, other))

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise InvalidArgumentError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise InvalidArgumentError(f"Shape {self} is not fully defined")

    def assert_has_rank(self, rank: int) -> None:
        if self.rank not in (None, rank):
            raise InvalidArgumentError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank: int) -> TensorShape:
        """This shape, its rank checked (or set, when unknown)."""
        try:
            return self.merge_with((None,) * rank)
        except InvalidArgumentError:
            raise InvalidArgumentError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank: int) -> TensorShape:
        if self.rank is not None and self.rank < rank:
            raise InvalidArgumentError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        if self.rank is not None and self.rank > rank:
            raise InvalidArgumentError(f"Shape {self} must have rank at most {rank}")
        return self

    # --- Python protocols ----------------------------------------------------------------------

    def __getitem__(self, key):
        """A dim (an int or None) for an int, a TensorShape for a slice."""
        if isinstance(key, slice):
            return _new(TensorShape, tuple.__getitem__(self, key))
        return tuple.__getitem__(self, key)

    def __eq__(self, other):
        """Equal dims (``None`` equals ``None``), with lists, tuples and shapes alike."""
        if type(other) is tuple or type(other) is TensorShape:  # the engines' comparisons: stay fast
            return tuple.__eq__(self, other)
        try:
            other = as_shape(other)
        except InvalidArgumentError:
            return NotImplemented
        return other.rank is not None and tuple.__eq__(self, other)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__  # as TensorFlow's hash(self._dims): a shape and its tuple are one dict key

    def __reduce__(self):
        return TensorShape, (None if self.rank is None else list(self),)

    def __repr__(self) -> str:
        return f"TensorShape({list(self)})"

    def __str__(self) -> str:
        return tuple.__repr__(self)  # (2, None), (3,), ()


class _UnknownRank(TensorShape):
    """``TensorShape(None)``: nothing is known, not even the rank."""

    __slots__ = ()

    @property
    def rank(self) -> None:
        return None

    ndims = rank

    @property
    def dims(self) -> None:
        return None

    def as_list(self):
        raise InvalidArgumentError("as_list() is not defined on an unknown TensorShape.")

    def is_fully_defined(self) -> bool:
        return False

    def num_elements(self) -> None:
        return None

    def is_compatible_with(self, other) -> bool:
        as_shape(other)  # (still a shape)
        return True

    def merge_with(self, other) -> TensorShape:
        return as_shape(other)

    def most_specific_compatible_shape(self, other) -> TensorShape:
        as_shape(other)
        return self

    def concatenate(self, other) -> TensorShape:
        as_shape(other)
        return self

    def __len__(self):
        raise InvalidArgumentError("Cannot take the length of shape with unknown rank.")

    def __iter__(self):
        raise InvalidArgumentError("Cannot iterate over a shape with unknown rank.")

    def __getitem__(self, key):
        """None for an int; for a slice, a shape of unknown dims (of a known rank when the slice says)."""
        if not isinstance(key, slice):
            return None
        if key.step is not None:
            raise InvalidArgumentError("Steps are not yet handled")
        start = 0 if key.start is None else key.start
        if key.stop is None or start < 0 or key.stop < 0:
            return self
        return _new(TensorShape, (None,) * max(key.stop - start, 0))

    def __eq__(self, other):
        try:
            return as_shape(other).rank is None
        except InvalidArgumentError:
            return NotImplemented

    def __hash__(self) -> int:
        return hash(None)

    def __repr__(self) -> str:
        return "TensorShape(None)"

    def __str__(self) -> str:
        return "<unknown>"


_UNKNOWN = _new(_UnknownRank, ())


def as_shape(shape) -> TensorShape:
    """``shape`` (a TensorShape, a list or tuple of ints and None, or None) as a TensorShape."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: int | None = None) -> TensorShape:
    """``TensorShape(None)``, or ``rank`` unknown dims."""
    return _UNKNOWN if rank is None else _new(TensorShape, (None,) * rank)
