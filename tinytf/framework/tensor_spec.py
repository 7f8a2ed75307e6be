"""``TensorSpec``: the shape and dtype of a tensor, as ``tf.TensorSpec``.

    >>> TensorSpec([2, None], tt.float32)
    TensorSpec(shape=(2, None), dtype=tt.float32)

``shape`` is a ``TensorShape`` (a tuple: ``spec.shape.as_list()`` and ``spec.shape == (2, None)`` both
work), or ``None`` when the rank is unknown (given as ``None`` or ``TensorShape(None)``): the engines
test ``spec.shape is None``. A ``None`` dim is unknown (``?`` in MLIR); negative dims read as ``None``.
Shape rules may also see ``value``: the operand's numpy value when it is a known constant
(Reshape's shape, Sum's axes), else ``None``.
"""
from __future__ import annotations

import tinytf.dtypes as dtypes
from tinytf.dtypes import DType
from tinytf.framework import tf_types
from tinytf.framework.tensor_shape import TensorShape

_new_shape = tuple.__new__


class TensorSpec:
    __slots__ = ("shape", "dtype", "name", "value")

    def __init__(self, shape, dtype=dtypes.float32, name: str | None = None, value=None):
        if type(shape) is TensorShape:  # already normalised
            self.shape = shape
        elif shape is None or isinstance(shape, TensorShape):  # unknown rank
            self.shape = None
        else:
            self.shape = _new_shape(TensorShape, [None if d is None or d < 0 else int(d) for d in shape])
        self.dtype: DType = dtypes.as_dtype(dtype)
        self.name = name
        self.value = value

    @classmethod
    def from_type(cls, type_) -> TensorSpec:
        return cls(tf_types.shape_of(type_), tf_types.dtype_of(type_))

    def to_type(self):
        var = self.value
        if self.dtype is dtypes.resource and getattr(var, "shape", None) is not None and var.dtype is not None:
            # a handle whose variable is known: tensor<!tf_type.resource<tensor<...>>>, as a captured one
            return tf_types.tensor_type(self.shape, tf_types.ResourceType([tf_types.tensor_type(var.shape, var.dtype)]))
        return tf_types.tensor_type(self.shape, self.dtype)

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    @property
    def is_fully_defined(self) -> bool:
        return tf_types.is_static(self.shape)

    def is_compatible_with(self, shape) -> bool:
        if self.shape is None or shape is None or (isinstance(shape, TensorShape) and shape.rank is None):
            return True
        return len(self.shape) == len(shape) and all(a is None or b is None or a == b
                                                     for a, b in zip(self.shape, shape))

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r})"
