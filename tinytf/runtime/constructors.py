"""Making tensors from Python values: ``tt.constant`` and ``tt.convert_to_tensor``.

    tt.constant([[1.0, 2.0]])         # float32, a copy of the value (a tf.Const when traced)
    tt.convert_to_tensor([1, 2])      # int32, as tf.constant
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.kernel import check_allocation
from tinytf.framework.variables import Variable
from tinytf.runtime.tensor import TensorOps


def constant(value, dtype=None, shape=None, name=None):
    """``tt.constant``: a tensor from a Python value or numpy array (float32 for Python floats)."""
    from tinytf.ops.array import constant as _constant

    if shape is not None:
        check_allocation("tf.Const", shape, dtype or dtypes.result_type_of_python(value))
    if isinstance(value, np.ndarray | np.generic):
        value = np.array(value)  # a tensor is immutable: later writes to the caller's array must not show
        value.flags.writeable = False  # nor writes to numpy() (and an XLA call may keep a device copy)
    return _constant(value, dtype=dtype, shape=shape, name=name)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """A tensor for ``value``: tensors pass through (their dtype must match ``dtype``), variables are
    read, Python values and arrays become constants (``dtype``, else ``dtype_hint`` when it fits)."""
    if isinstance(value, Variable):
        value = value.value()
    if isinstance(value, TensorOps):
        if dtype is not None and value.dtype is not dtypes.as_dtype(dtype):
            raise InvalidArgumentError(
                f"convert_to_tensor: tensor of dtype {value.dtype.name} requested as {dtypes.as_dtype(dtype).name}")
        return value
    if dtype is None and dtype_hint is not None and not isinstance(value, np.ndarray | np.generic):
        hint = dtypes.as_dtype(dtype_hint)
        natural = dtypes.result_type_of_python(value)
        # A hint is taken when the value fits it (ints into floats, not floats into ints).
        if "biufc".index(natural.kind) <= "biufc".index(hint.kind) if natural.kind in "biufc" and \
                hint.kind in "biufc" else False:
            dtype = hint
    return constant(value, dtype=dtype)
