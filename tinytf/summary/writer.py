"""Summary writers: TensorBoard event files, the default writer and the default step.

    writer = create_file_writer("logs/run1")      # logs/run1/events.out.tfevents.<time>.<host>.<pid>.<n>.v2
    with writer.as_default(step=0):
        ...                                        # tt.summary.scalar(...) writes through it
    writer.flush(); writer.close()

An event file is a TFRecord file (``tinytf/formats/tfrecord.py``) of ``Event`` protos; the first
holds ``file_version: "brain.Event:2"``, as TensorFlow's ``EventsWriter`` writes. Events are
buffered and written out every ``max_queue`` events, when ``flush_millis`` have passed since the last
flush (checked at each write: there is no background thread), on ``flush()`` and on ``close()``;
writers still open at exit are flushed. The default writer and step are per thread, as TensorFlow's
eager context keeps them.
"""
from __future__ import annotations

import atexit
import itertools
import os
import socket
import threading
import time
import weakref

from tinytf.errors import FailedPreconditionError, InvalidArgumentError
from tinytf.formats.durable_files import os_error
from tinytf.formats.tfrecord import frame

FILE_VERSION = "brain.Event:2"
_uids = itertools.count()
_local = threading.local()
_open_writers: weakref.WeakSet = weakref.WeakSet()


def _writers() -> list:
    if not hasattr(_local, "writers"):
        _local.writers = []
    return _local.writers


def get_default_writer():
    """The writer summaries go to now, or None."""
    stack = _writers()
    return stack[-1] if stack else getattr(_local, "global_writer", None)


def get_step():
    """The default step (``set_step`` or a writer's ``as_default(step=...)``), or None."""
    return getattr(_local, "step", None)


def set_step(step) -> None:
    """Set the default step for summaries written without ``step=`` in this thread."""
    _local.step = step


def resolve_step(step) -> int:
    import numpy as np

    if step is None:
        step = get_step()
    if step is None:
        raise InvalidArgumentError("No step set. Please specify one either through the `step` argument or through "
                                   "tt.summary.experimental.set_step()")
    value = step.numpy() if hasattr(step, "numpy") else step
    return int(np.asarray(value))


class SummaryWriter:
    """Writes ``Event`` protos to one event file in ``logdir`` (``tf.summary.SummaryWriter``)."""

    def __init__(self, logdir, max_queue: int | None = None, flush_millis: int | None = None,
                 filename_suffix: str | None = None):
        from tinytf.formats import protos

        self.logdir = os.fspath(logdir)
        self.max_queue = 10 if max_queue is None else int(max_queue)
        self.flush_millis = 120_000 if flush_millis is None else int(flush_millis)
        suffix = ".v2" if filename_suffix is None else filename_suffix
        try:
            os.makedirs(self.logdir, exist_ok=True)
        except OSError as e:
            raise os_error(e, self.logdir, "create the log directory") from None
        name = (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}.{os.getpid()}."
                f"{next(_uids)}{suffix}")
        self.path = os.path.join(self.logdir, name)
        try:
            self._file = open(self.path, "wb")
        except OSError as e:
            raise os_error(e, self.path, "create the event file") from None
        self._event_pb2 = protos.event_pb2
        self._lock = threading.Lock()
        self._queue: list[bytes] = []
        self._last_flush = time.monotonic()
        self._closed = False
        first = protos.event_pb2.Event(wall_time=float(int(time.time())), file_version=FILE_VERSION)
        first.source_metadata.writer = "tinytf.summary"
        self.add_event(first)
        self.flush()
        _open_writers.add(self)

    # -- writing --------------------------------------------------------------------------------

    def add_event(self, event) -> None:
        """Queue one ``Event`` proto (its bytes are taken now)."""
        record = frame(event.SerializeToString())
        with self._lock:
            if self._closed:
                raise FailedPreconditionError(f"{self.path}: the summary writer is closed")
            self._queue.append(record)
            due = len(self._queue) >= self.max_queue or \
                (time.monotonic() - self._last_flush) * 1000 >= self.flush_millis
        if due:
            self.flush()

    def write_summary(self, summary, step: int) -> None:
        self.add_event(self._event_pb2.Event(wall_time=time.time(), step=int(step), summary=summary))

    def flush(self) -> None:
        """Write the queued events to the file (and to the OS: a reader sees them)."""
        with self._lock:
            if self._closed:
                return
            records, self._queue = self._queue, []
            try:
                for record in records:
                    self._file.write(record)
                self._file.flush()
            except OSError as e:
                raise os_error(e, self.path, "write events") from None
            self._last_flush = time.monotonic()

    def close(self) -> None:
        """Flush and close the file; later writes through this writer are errors."""
        self.flush()
        with self._lock:
            if not self._closed:
                self._closed = True
                self._file.close()

    def init(self) -> None:
        """TensorFlow initialises lazily in graph mode; here the file exists already."""

    # -- defaults -------------------------------------------------------------------------------

    def as_default(self, step=None):
        """``with writer.as_default(step=...)``: the default writer (and step) inside the block."""
        return _AsDefault(self, step)

    def set_as_default(self, step=None) -> None:
        """Make this the default writer of the thread (outside any ``as_default`` block)."""
        _local.global_writer = self
        if step is not None:
            set_step(step)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self) -> str:
        return f"<tt.summary.SummaryWriter {self.path!r}>"


class _AsDefault:
    def __init__(self, writer, step):
        self.writer, self.step = writer, step

    def __enter__(self):
        _writers().append(self.writer)
        self._saved_step = get_step()
        if self.step is not None:
            set_step(self.step)
        return self.writer

    def __exit__(self, *exc):
        _writers().pop()
        set_step(self._saved_step)
        self.writer.flush()  # TensorFlow flushes when the default writer is exited
        return False


class NoopWriter:
    """``create_noop_writer()``: a writer that writes nothing."""

    def as_default(self, step=None):
        return _AsDefault(self, step)

    def set_as_default(self, step=None) -> None:
        _local.global_writer = self

    def add_event(self, event) -> None:
        pass

    def write_summary(self, summary, step: int) -> None:
        pass

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def init(self) -> None:
        pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False) -> SummaryWriter:
    """A SummaryWriter for ``logdir`` (created if missing)."""
    return SummaryWriter(logdir, max_queue, flush_millis, filename_suffix)


def create_noop_writer() -> NoopWriter:
    return NoopWriter()


@atexit.register
def _flush_open_writers() -> None:
    for writer in list(_open_writers):
        try:
            writer.flush()
        except Exception:  # noqa: BLE001 - at exit, a failing writer must not hide the others
            pass
