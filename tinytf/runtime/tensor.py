"""``Tensor``: an eager value (a numpy array with a TensorFlow dtype), and the operator mixin it
shares with the symbolic tensors of a traced function.

    >>> x = tt.constant([1.0, 2.0])
    >>> x * 2 + 1
    <tt.Tensor: shape=(2,), dtype=float32, numpy=array([3., 5.], dtype=float32)>

Operators call the public op functions (``add``, ``matmul``, ``less``, ``strided_slice``, ...),
so ``x + y`` runs eagerly, is traced into a function, or is recorded by a tape, like ``tt.add``.
Tensors hash by identity: they can be dict keys (the tape keys gradients by tensor).
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.tensor_shape import TensorShape
from tinytf.ops.op_functions import op_function  # the one lookup by name: found once, then cached

_new_shape = tuple.__new__  # numpy's shape is already a tuple of ints: no checking


def _binary(name: str, reflected: bool = False):
    """An operator method calling the public op function ``name``, resolved on first use.

    A forward operator then installs the op function itself as the method (``x.__add__(y)`` is
    ``add(x, y)``), so ``x + y`` costs no more than ``tt.add(x, y)``: the eager path is measured.
    """
    dunder = f"__{'r' if reflected else ''}{_OPERATOR_NAMES.get(name, name)}__"

    if reflected:
        def method(self, other):
            return op_function(name)(other, self)
    else:
        def method(self, other):
            fn = op_function(name)
            setattr(TensorOps, dunder, fn)
            return fn(self, other)
    method.__name__ = dunder
    return method


_OPERATOR_NAMES = {"add": "add", "subtract": "sub", "multiply": "mul", "truediv": "truediv", "floordiv": "floordiv",
                   "floormod": "mod", "pow": "pow", "matmul": "matmul", "less": "lt", "less_equal": "le",
                   "greater": "gt", "greater_equal": "ge", "logical_and": "and", "logical_or": "or"}


class TensorOps:
    """Python operators for eager and symbolic tensors, through the public op functions."""

    __slots__ = ()
    __array_priority__ = 100  # ``ndarray + tensor`` calls our __radd__

    __add__ = _binary("add")
    __radd__ = _binary("add", reflected=True)
    __sub__ = _binary("subtract")
    __rsub__ = _binary("subtract", reflected=True)
    __mul__ = _binary("multiply")
    __rmul__ = _binary("multiply", reflected=True)

    __truediv__ = _binary("truediv")
    __rtruediv__ = _binary("truediv", reflected=True)
    __floordiv__ = _binary("floordiv")
    __rfloordiv__ = _binary("floordiv", reflected=True)
    __mod__ = _binary("floormod")
    __rmod__ = _binary("floormod", reflected=True)
    __pow__ = _binary("pow")
    __rpow__ = _binary("pow", reflected=True)
    __matmul__ = _binary("matmul")
    __rmatmul__ = _binary("matmul", reflected=True)
    __lt__ = _binary("less")
    __le__ = _binary("less_equal")
    __gt__ = _binary("greater")
    __ge__ = _binary("greater_equal")
    __and__ = _binary("logical_and")
    __rand__ = _binary("logical_and", reflected=True)
    __or__ = _binary("logical_or")
    __ror__ = _binary("logical_or", reflected=True)

    def __neg__(self):
        return op_function("negative")(self)

    def __abs__(self):
        return op_function("abs")(self)

    def __invert__(self):
        return op_function("logical_not")(self)

    def __eq__(self, other):  # elementwise, as TensorFlow 2
        if other is None or isinstance(other, str):
            return False
        return op_function("equal")(self, other)

    def __ne__(self, other):
        if other is None or isinstance(other, str):
            return True
        return op_function("not_equal")(self, other)

    def __hash__(self) -> int:
        return id(self)

    def __getitem__(self, index):  # x[1:, ::2] -> tf.StridedSlice with TensorFlow's masks
        return op_function("strided_slice_from_key")(self, index)

    @property
    def ndim(self) -> int | None:
        shape = self.shape
        return None if shape is None else len(shape)

    @property
    def rank(self) -> int | None:
        return self.ndim


class Tensor(TensorOps):
    """An eager tensor: an immutable numpy value. ``numpy()`` returns the array (do not write to it)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = value if isinstance(value, np.ndarray) else np.asarray(value)

    @property
    def shape(self) -> TensorShape:
        """The shape, a ``TensorShape`` (a tuple): ``x.shape.as_list()``, ``x.shape == (2, 3)``."""
        return _new_shape(TensorShape, self._value.shape)

    @property
    def dtype(self):
        return dtypes.as_dtype(self._value.dtype)

    def numpy(self) -> np.ndarray:
        return np.asarray(self._value)

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self._value)
        return value if dtype is None else value.astype(dtype)

    def __len__(self) -> int:
        if not self._value.ndim:
            raise TypeError("len() of a 0-d tensor")
        return self._value.shape[0]

    def __iter__(self):
        if not self._value.ndim:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._value.shape[0]))

    def __bool__(self) -> bool:
        return bool(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __index__(self) -> int:
        if self.dtype.kind not in "iu" or self._value.ndim:
            raise TypeError("only integer scalar tensors can be used as an index")
        return int(self._value)

    def __repr__(self) -> str:
        return f"<tt.Tensor: shape={self._value.shape}, dtype={self.dtype.name}, numpy={np.asarray(self._value)!r}>"

    def __str__(self) -> str:
        sep = "\n" if self._value.ndim > 1 else ""
        return f"tt.Tensor({sep}{np.asarray(self._value)}, shape={self._value.shape}, dtype={self.dtype.name})"


class DeviceTensor(Tensor):
    """An XLA call's output: the device array, copied to numpy on its first use on the host (as
    TensorFlow's EagerTensor keeps its buffer on its device). Until then the call may still be
    running: the copy waits for it. Its shape and dtype come without the copy."""

    __slots__ = ("device_array", "_host")

    def __init__(self, device_array):
        self.device_array, self._host = device_array, None

    @property
    def _value(self) -> np.ndarray:
        host = self._host
        if host is None:
            host = self._host = np.asarray(self.device_array)
        return host

    @property
    def shape(self) -> TensorShape:
        return _new_shape(TensorShape, self.device_array.shape)

    @property
    def dtype(self):
        return dtypes.as_dtype(self.device_array.dtype)


def wrap(value) -> Tensor:
    """A Tensor around a kernel's array, without copying or checking (the eager fast path)."""
    t = Tensor.__new__(Tensor)
    t._value = value
    return t


def to_array(value, dtype=None) -> np.ndarray:
    """An eager operand as a numpy array; Python values get TensorFlow's default dtypes or ``dtype``."""
    if isinstance(value, Tensor):
        array = np.asarray(value._value)
        if dtype is not None and array.dtype != dtypes.as_dtype(dtype).np:
            raise InvalidArgumentError(
                f"expected a tensor of dtype {dtypes.as_dtype(dtype).name}, got {value.dtype.name}")
        return array
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "read") and hasattr(value, "assign"):  # a Variable used as a value
        return value.read()
    if dtype is None:
        dtype = dtypes.result_type_of_python(value)
    try:
        return np.asarray(value, dtypes.as_dtype(dtype).np)
    except (TypeError, ValueError, OverflowError) as err:
        raise InvalidArgumentError(f"cannot convert {value!r} to a {dtypes.as_dtype(dtype).name} tensor: {err}") \
            from None
