"""Files that survive a crash: written under a temporary name, fsynced, renamed into place.

    with TempFile("ckpt-3.index") as f:     # writes ckpt-3.index.tinytf-tmp-<pid>-<token>
        f.write(data)
        f.commit()                         # fsync, close, rename over ckpt-3.index
    fsync_directory(".")                   # the rename itself survives a power cut
    write_atomically("checkpoint", text.encode())   # all three steps for a small file

A rename within one directory is atomic on POSIX file systems: a reader (or a process restarted
after a crash) sees the old file or the whole new one, never a prefix. A ``TempFile`` left behind
by a killed process carries that process's id; ``remove_stale_temp_files`` deletes those whose
process is gone.

Every ``OSError`` becomes a tinytf error naming the file (``os_error``): no space left or over
quota -> ResourceExhaustedError, permission denied or a read-only file system ->
PermissionDeniedError, a missing directory -> NotFoundError.

``STEP_HOOK``: when set, called with a step's name ("data written", "index renamed", ...) at each
point where a crash leaves a different state on disk; the crash tests kill the process there.
"""
from __future__ import annotations

import errno
import os
import secrets

from tinytf.errors import (
    AlreadyExistsError,
    FailedPreconditionError,
    NotFoundError,
    OpError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnknownError,
)

TEMP_MARK = ".tinytf-tmp-"
STEP_HOOK = None  # fault injection for tests: a callable taking the step's name


def step(name: str) -> None:
    """Mark a point where a crash leaves a distinct state on disk (see ``STEP_HOOK``)."""
    if STEP_HOOK is not None:
        STEP_HOOK(name)


_ERRORS = {
    errno.ENOSPC: ResourceExhaustedError, errno.EDQUOT: ResourceExhaustedError, errno.EFBIG: ResourceExhaustedError,
    errno.EACCES: PermissionDeniedError, errno.EPERM: PermissionDeniedError, errno.EROFS: PermissionDeniedError,
    errno.ENOENT: NotFoundError, errno.EEXIST: AlreadyExistsError,
    errno.EISDIR: FailedPreconditionError, errno.ENOTDIR: FailedPreconditionError,
}


def os_error(error: OSError, path: str, doing: str, note: str = "") -> OpError:
    """The tinytf error for an OSError raised while ``doing`` something to ``path``."""
    cls = _ERRORS.get(error.errno, UnknownError)
    reason = error.strerror or str(error)
    message = f"{path}: cannot {doing}: {reason} [Errno {error.errno}]"
    return cls(message + (f"; {note}" if note else ""))


def temp_name(path: str) -> str:
    return f"{path}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}"


def fsync_directory(directory: str) -> None:
    """Make the directory's entries (renames, new and deleted files) durable."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as e:
        raise os_error(e, directory, "open the directory to sync it") from None
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOTSUP):  # some file systems cannot sync a directory
            raise os_error(e, directory, "sync the directory") from None
    finally:
        os.close(fd)


class TempFile:
    """A file written under a temporary name beside ``path``; ``commit()`` renames it into place,
    ``abort()`` (or leaving the ``with`` block without committing) deletes it."""

    def __init__(self, path: str, note: str = ""):
        self.path = os.fspath(path)
        self.temp = temp_name(self.path)
        self.note = note
        self.size = 0
        try:
            self._file = open(self.temp, "xb")
        except OSError as e:
            raise os_error(e, self.temp, "create the file", note) from None

    def write(self, data) -> None:
        try:
            self._file.write(data)
        except OSError as e:
            raise os_error(e, self.temp, "write", self.note) from None
        self.size += memoryview(data).nbytes

    def sync(self) -> None:
        """Flush and fsync the contents (still under the temporary name)."""
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as e:
            raise os_error(e, self.temp, "write and sync", self.note) from None

    def commit(self) -> None:
        """fsync, close and rename over ``path``; the caller syncs the directory."""
        self.sync()
        try:
            self._file.close()
        except OSError as e:
            raise os_error(e, self.temp, "close", self.note) from None
        try:
            os.replace(self.temp, self.path)
        except OSError as e:
            raise os_error(e, self.path, f"rename {os.path.basename(self.temp)} to it", self.note) from None
        self._file = None

    def abort(self) -> None:
        if self._file is None:
            return
        try:
            self._file.close()
        except OSError:
            pass
        self._file = None
        try:
            os.unlink(self.temp)
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.abort()
        return False


def write_atomically(path: str, data: bytes, note: str = "") -> None:
    """Replace the file at ``path`` with ``data`` so that a crash leaves the old or the new file."""
    with TempFile(path, note) as f:
        f.write(data)
        f.sync()
        step(f"{os.path.basename(path)} synced")
        f.commit()
    step(f"{os.path.basename(path)} renamed")
    fsync_directory(os.path.dirname(path))


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def remove_stale_temp_files(directory: str, prefix: str = "") -> list[str]:
    """Delete temporary files in ``directory`` (names starting with ``prefix``) left by processes that
    are gone; returns their paths. Files of live processes (a concurrent writer) are kept."""
    removed = []
    try:
        names = os.listdir(directory or ".")
    except OSError:
        return removed
    for name in names:
        if not name.startswith(prefix) or TEMP_MARK not in name:
            continue
        owner = name.rsplit(TEMP_MARK, 1)[1].split("-", 1)[0]
        if not owner.isdigit() or _process_alive(int(owner)):
            continue
        path = os.path.join(directory, name)
        try:
            os.unlink(path)
            removed.append(path)
        except OSError:
            pass
    return removed
