"""``tt.Variable``: mutable state, as TensorFlow's resource variables.

    >>> v = tt.Variable([1.0, 2.0])
    >>> v.assign_add([1.0, 1.0]); v.numpy()
    array([2., 3.], dtype=float32)
    >>> with tt.name_scope("outer"): tt.Variable(1.0, name="v").name
    'outer/v:0'

Names are TensorFlow's: the current name scope, the name (``Variable`` by default; never made
unique, as in TensorFlow's eager mode) and ``:0``; ``shared_name`` is the name without ``:0``,
what checkpoints (``full_name``) and SavedModels (``SavedVariable.name``, ``VarHandleOp``) record,
and what the kernels' errors name (TensorFlow's runtime names the resource, not the Python variable).

A variable owns one numpy buffer, read-only to everyone else. An update holds the variable's
reader-writer lock exclusively and writes the buffer in place when no reader holds it, else it
writes a copy and swaps it in (copy-on-write), so a value read earlier is a snapshot that later
assigns never change and no reader sees a half-written value. Each variable has a creation
number: the kernel API locks several variables in that global order, so concurrent updates
cannot deadlock. ``RefVariable`` is the TF1 ref variable (``tf.VariableV2``) on the same machinery.

The XLA backend may keep a variable's value on the device between its calls (``device_value`` /
``set_device_value``, with the lock held exclusively): the buffer is then a device array, and the
first host read copies it into a fresh numpy buffer (the device array stays as a clean copy for the
next XLA call until a host update). This module never imports JAX: anything in the buffer that is
not a numpy array is a device array.

Reads and writes go through ops (``tf.ReadVariableOp``, ``tf.AssignVariableOp``, ...), so the
same code runs eagerly and inside ``tt.function``, where a variable becomes a captured
``tensor<!tf_type.resource<tensor<...>>>`` argument of the traced function.
"""
from __future__ import annotations

import itertools
import sys
import threading

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import FailedPreconditionError, InvalidArgumentError
from tinytf.framework import name_scope
from tinytf.framework.op import REGISTRY

_counter = itertools.count()
_BUSY = object()


def _shape_str(shape) -> str:
    return "<unknown>" if shape is None else "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class RWLock:
    """A reader-writer lock: many shared holders, or one exclusive holder who may re-enter it (also
    shared). ``with lock:`` takes it exclusively. Taking it exclusively while holding it shared
    raises RuntimeError (it would deadlock)."""

    __slots__ = ("mutex", "cond", "writer", "depth", "readers")

    def __init__(self):
        self.mutex = threading.Lock()  # guards the fields below; readers of a Variable take it briefly
        self.cond = threading.Condition(self.mutex)
        self.writer = None          # thread id of the exclusive holder
        self.depth = 0              # the exclusive holder's re-entries
        self.readers: dict = {}     # thread id -> shared holds

    def acquire(self, exclusive: bool = True) -> bool:
        me = threading.get_ident()
        with self.cond:
            if self.writer == me:
                self.depth += 1
                return True
            if exclusive:
                if me in self.readers:
                    raise RuntimeError("RWLock: taking a lock exclusively while holding it shared")
                while self.writer is not None or self.readers:
                    self.cond.wait()
                self.writer, self.depth = me, 1
            else:
                while self.writer is not None:
                    self.cond.wait()
                self.readers[me] = self.readers.get(me, 0) + 1
        return True

    def release(self) -> None:
        me = threading.get_ident()
        with self.cond:
            if self.writer == me:
                self.depth -= 1
                if self.depth == 0:
                    self.writer = None
                    self.cond.notify_all()
                return
            count = self.readers.get(me, 0)
            if count == 0:
                raise RuntimeError("RWLock: released by a thread that does not hold it")
            if count == 1:
                del self.readers[me]
                if not self.readers:
                    self.cond.notify_all()
            else:
                self.readers[me] = count - 1

    def held_exclusively(self) -> bool:
        return self.writer == threading.get_ident()

    def __enter__(self):
        self.acquire(True)
        return self

    def __exit__(self, *exc):
        self.release()
        return False


class AbstractVariable:
    """What a resource operand is at run time, as op rules see it: ``dtype``, ``shape`` (None when
    unknown), ``name`` and ``read()``. A ``Variable`` eagerly and in graphs; under XLA, the lowering's
    traced stand-in for one (``tinytf.xla.values.Resource``), so one read or update rule serves both."""

    __slots__ = ()
    is_ref = False  # a TF1 ref variable (RefVariable) rather than a resource


class Variable(AbstractVariable):
    """A mutable tensor with a fixed dtype and shape (``None`` dims allowed), read and updated by ops."""

    __array_priority__ = 100  # numpy defers ``array + variable`` to us

    def __init__(self, initial_value=None, trainable: bool = True, name: str | None = None, dtype=None,
                 shape=None):
        self.uid = next(_counter)  # global lock order
        self.shared_name = _scoped_name("Variable" if name is None else name)
        self.trainable = bool(trainable)
        self._lock = RWLock()
        self._copy_on_read = False  # set by sparse updates: readers then get copies
        self._device = None  # a device array equal to the numpy buffer (XLA's copy), None after a host update
        if initial_value is None:  # an uninitialised variable (VarHandleOp before its first assign)
            if dtype is None:
                raise InvalidArgumentError("Variable: an uninitialised variable needs a dtype")
            self._dtype = dtypes.as_dtype(dtype)
            self._shape = None if shape is None else tuple(shape)
            self._buffer = None
            return
        if callable(initial_value):
            initial_value = initial_value()
        value = _to_array(initial_value, dtype)
        self._dtype = dtypes.as_dtype(value.dtype)
        self._shape = tuple(value.shape) if shape is None else tuple(shape)
        self._buffer = _frozen(value)

    # --- raw state (used by kernels) ----------------------------------------------------------

    @property
    def name(self) -> str:
        """TensorFlow's name: the name scope, the name (``"Variable"`` by default), ``":0"``: ``"outer/v:0"``.
        ``shared_name`` is the same without ``":0"`` (checkpoints' ``full_name``, a SavedModel's variables)."""
        return self.shared_name + ":0"

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape if self._buffer is None else self._buffer.shape

    @property
    def is_initialized(self) -> bool:
        return self._buffer is not None

    @property
    def lock(self):
        return self._lock

    def read(self) -> np.ndarray:
        """The current buffer, read-only: a snapshot later updates never change (they write in place only
        while no reader holds it). Waits while another thread updates the variable. In copy-on-read
        mode, a copy. FailedPreconditionError when uninitialised."""
        lock = self._lock
        value = _BUSY
        if not self._copy_on_read:
            with lock.mutex:  # taking the reference is atomic with respect to an exclusive writer
                if lock.writer is None:
                    value = self._buffer
                    if value.__class__ is not np.ndarray and value is not None:
                        value = self._materialize()
        if value is _BUSY:  # a writer holds the variable (unless it is us), or copy-on-read: wait for it
            with lock.cond:  # while we hold the mutex no writer can take the lock, so the copy is whole
                while lock.writer is not None and lock.writer != threading.get_ident():
                    lock.cond.wait()
                value = self._buffer
                if value.__class__ is not np.ndarray and value is not None:
                    value = self._materialize()
                if value is not None and self._copy_on_read:
                    value = _frozen(value.copy())
        if value is None:
            raise FailedPreconditionError(
                f"Error while reading resource variable {self.shared_name}: the variable is uninitialized", "tf.ReadVariableOp")
        return value

    def _materialize(self) -> np.ndarray:
        """(mutex held, no other writer) The device-resident value copied into a new numpy buffer,
        which becomes the variable's; the device array stays as its clean device copy."""
        device = self._buffer
        host = _frozen(np.array(device, copy=True))  # owned: never a view of a buffer XLA may donate
        self._buffer, self._device = host, device
        return host

    def device_value(self, put):
        """(lock held exclusively) The value as a device array for an XLA call, which may donate it:
        the device-resident value, the clean device copy of the numpy buffer, or ``put(buffer)``
        (kept as that copy until a host update)."""
        value = self._buffer
        if value is None:
            raise FailedPreconditionError(
                f"Error while reading resource variable {self.shared_name}: the variable is uninitialized", "tf.ReadVariableOp")
        if value.__class__ is not np.ndarray:
            return value
        if self._device is None:
            self._device = put(value)
        return self._device

    def device_snapshot(self, put):
        """``device_value`` for an XLA call that only reads the variable (never donates it): the lock
        is taken only for the moment of the read, waiting for a writer as ``read`` does."""
        lock = self._lock
        with lock.mutex:  # while we hold the mutex no writer can take the lock
            if lock.writer is None:
                return self.device_value(put)
        with lock.cond:
            while lock.writer is not None and lock.writer != threading.get_ident():
                lock.cond.wait()
            return self.device_value(put)

    def set_device_value(self, value) -> None:
        """(lock held exclusively) Device array ``value`` (an XLA resource update, of the variable's
        dtype and shape) becomes the value; host readers get it copied to numpy on their first read."""
        with self._lock.cond:
            self._buffer, self._device = value, None

    def enable_copy_on_read(self) -> None:
        """Readers get copies from now on, so sparse updates can keep writing the buffer in place."""
        self._copy_on_read = True

    def current_buffer(self):
        """The buffer as it is now, without waiting or copying: for telling whether it changed since an
        earlier ``read`` (an update replaces a buffer a reader still holds, never writes it)."""
        return self._buffer

    def buffer_is_shared(self) -> bool:
        """Does anyone besides the variable hold its buffer (a reader's snapshot, a view of it)?"""
        buffer = self._buffer
        return buffer is not None and (buffer.__class__ is not np.ndarray or sys.getrefcount(buffer) > 3
                                       or buffer.base is not None)

    def begin_update(self, op_name: str = "tf.AssignVariableOp") -> tuple[np.ndarray, bool]:
        """A writable buffer holding the current value, and whether it is the variable's own.

        Holding the lock exclusively and with no reader holding the buffer, it is the buffer itself
        (updated in place); otherwise a copy (copy-on-write) that ``end_update`` swaps in, so readers
        never see a half-written value. Call ``end_update`` after writing it."""
        with self._lock.cond:
            if self._buffer is None:
                raise FailedPreconditionError(
                    f"{op_name}: attempting to use uninitialized variable {self.shared_name}", op_name)
            if self._buffer.__class__ is not np.ndarray:
                self._materialize()
            self._device = None  # the host value is about to change
            in_place = self._lock.writer == threading.get_ident() and not self.buffer_is_shared()
            current = self._buffer
        if in_place:
            current.flags.writeable = True
            return current, True
        return np.array(current, copy=True), False

    def end_update(self, buffer: np.ndarray, in_place: bool) -> None:
        """Finish ``begin_update``: freeze the buffer and, for a copy, make it the variable's value."""
        buffer.flags.writeable = False
        with self._lock.cond:
            self._device = None
            if not in_place:
                self._buffer = buffer

    def store(self, value, op_name: str = "tf.AssignVariableOp", validate_shape: bool = True,
              adopt: bool = False) -> None:
        """Replace the value with ``value`` (checked against the variable's dtype and shape): written
        into the buffer in place when no reader holds it, else into a new one. ``adopt``: take
        ``value`` itself as the buffer (the caller guarantees nothing else references it)."""
        value = np.asarray(value)
        if dtypes.as_dtype(value.dtype) is not self._dtype:
            raise InvalidArgumentError(
                f"{op_name}: trying to assign a {dtypes.as_dtype(value.dtype).name} value to variable "
                f"{self.shared_name} of dtype {self._dtype.name}", op_name)
        declared = self._shape if self._buffer is None or not self.is_ref else self._buffer.shape
        # a resource variable keeps its shape once set; tf.Assign(validate_shape=False) may reshape a ref
        if declared is not None and (validate_shape or (self._buffer is not None and not self.is_ref)):
            if len(declared) != value.ndim or any(d is not None and d != s for d, s in zip(declared, value.shape)):
                raise InvalidArgumentError(
                    f"{op_name}: trying to assign a value of shape {_shape_str(value.shape)} to variable "
                    f"{self.shared_name} of shape {_shape_str(declared)}", op_name)
        with self._lock:
            current = self._buffer
            if adopt:  # a dying input nobody else holds (the kernel API checked): take it without a copy
                new = _frozen(value)
            elif (current.__class__ is np.ndarray and current.shape == value.shape
                  and sys.getrefcount(current) <= 3 and current.base is None):  # no reader holds the buffer: overwrite it in place
                current.flags.writeable = True
                np.copyto(current, value)
                new = _frozen(current)
            else:
                new = _frozen(np.array(value, copy=True))  # own it: the caller may keep writing to theirs
            del current
            with self._lock.cond:
                self._buffer, self._device = new, None

    # --- the op-based API ---------------------------------------------------------------------

    def value(self):
        """The value as a tensor: a ``tf.ReadVariableOp`` in the current context."""
        return REGISTRY["tf.ReadVariableOp"].bind(self, dtype=self._dtype)  # (ops sit above framework)

    read_value = value

    def numpy(self) -> np.ndarray:
        return self.read().copy()

    def __array__(self, dtype=None, copy=None):
        value = self.read()
        return value.astype(dtype) if dtype is not None else value.copy()

    def assign(self, value, use_locking=None, name=None, read_value=True):
        REGISTRY["tf.AssignVariableOp"].bind(self, self._cast(value), validate_shape=False)
        return self

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        REGISTRY["tf.AssignAddVariableOp"].bind(self, self._cast(delta))
        return self

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        REGISTRY["tf.AssignSubVariableOp"].bind(self, self._cast(delta))
        return self

    def _cast(self, value):
        """Python values and numpy arrays take the variable's dtype (tensors keep theirs: no promotion)."""
        if isinstance(value, (int, float, bool, list, tuple, np.ndarray, np.generic)):
            return np.asarray(value, dtype=self._dtype.np)
        return value

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        return bool(self.read())

    def __len__(self) -> int:
        return len(self.read())

    def __repr__(self) -> str:
        # TensorFlow's: <tf.Variable 'v:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>
        buffer = self._buffer
        if buffer is None:
            value = "<unavailable>"
        else:
            array = np.asarray(buffer)
            value = repr(array.item()) if array.ndim == 0 else repr(array)  # numpy=1.0, as TensorFlow prints it
        shape = "<unknown>" if self.shape is None else str(tuple(self.shape))
        return f"<tt.Variable '{self.name}' shape={shape} dtype={self._dtype.name}, numpy={value}>"


class RefVariable(Variable):
    """A TF1 ref variable (``tf.VariableV2``): ops take and forward it as a ``!tf_type.f32ref``-style
    value rather than a resource handle; reads, updates and locking are a Variable's."""

    is_ref = True


def _scoped_name(name: str) -> str:
    """TensorFlow's variable name in the current name scope: ``"v"`` in scope ``outer`` -> ``"outer/v"``;
    ``"a/"`` is absolute (``"a"``); ``""`` stays ``""`` (TensorFlow's ``":0"``)."""
    name = str(name)
    if not name:
        return ""
    if name.endswith("/"):
        return name[:-1]
    return name_scope.prefixed(name)


def _frozen(array: np.ndarray) -> np.ndarray:
    """Buffers are read-only: a reader holding one (an op's output, a user's array) cannot change the
    variable behind its back, and updates always build a new buffer."""
    array.flags.writeable = False
    return array


def _to_array(value, dtype) -> np.ndarray:
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    if dtype is None and not isinstance(value, np.ndarray | np.generic):
        dtype = dtypes.result_type_of_python(value)
    array = np.asarray(value, dtype=None if dtype is None else dtypes.as_dtype(dtype).np)
    return np.array(array, copy=True)


def _delegate(name):
    def method(self, *args):
        return getattr(self.value(), name)(*args)

    method.__name__ = name
    return method


# Arithmetic on a variable reads it first, as TensorFlow's Variable does.
for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
              "__matmul__", "__rmatmul__", "__neg__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__",
              "__getitem__", "__and__", "__or__", "__invert__"):
    setattr(Variable, _name, _delegate(_name))
