"""TensorFlow's error classes (tf.errors), plus ParseError for MLIR text.

Every error tinytf raises on bad input is one of these; the command-line tools print
``str(err)`` on one line and exit non-zero.

    >>> raise InvalidArgumentError("tf.AddV2: incompatible shapes [2] and [3]")
"""
from __future__ import annotations


class OpError(Exception):
    """Base class of tinytf's errors; ``op`` names the operation when known."""

    code = "UNKNOWN"

    def __init__(self, message: str, op: str | None = None):
        super().__init__(message)
        self.message = message
        self.op = op


class CancelledError(OpError):
    code = "CANCELLED"


class UnknownError(OpError):
    code = "UNKNOWN"


class InvalidArgumentError(OpError):
    code = "INVALID_ARGUMENT"


class DeadlineExceededError(OpError):
    code = "DEADLINE_EXCEEDED"


class NotFoundError(OpError):
    code = "NOT_FOUND"


class AlreadyExistsError(OpError):
    code = "ALREADY_EXISTS"


class PermissionDeniedError(OpError):
    code = "PERMISSION_DENIED"


class ResourceExhaustedError(OpError):
    code = "RESOURCE_EXHAUSTED"


class FailedPreconditionError(OpError):
    code = "FAILED_PRECONDITION"


class AbortedError(OpError):
    code = "ABORTED"


class OutOfRangeError(OpError):
    code = "OUT_OF_RANGE"


class UnimplementedError(OpError):
    code = "UNIMPLEMENTED"


class InternalError(OpError):
    code = "INTERNAL"


class UnavailableError(OpError):
    code = "UNAVAILABLE"


class DataLossError(OpError):
    """Unrecoverable data loss or corruption: a checksum mismatch, a truncated file."""

    code = "DATA_LOSS"


class ParseError(InvalidArgumentError):
    """Malformed MLIR text. ``str()`` is ``file:line:col: message``, as compilers print it."""

    def __init__(self, message: str, file: str = "<string>", line: int = 0, col: int = 0):
        self.file, self.line, self.col = file, line, col
        super().__init__(f"{file}:{line}:{col}: {message}")
