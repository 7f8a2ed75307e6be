"""One table: numpy dtype <-> MLIR element type <-> TensorFlow DataType <-> XLA name.

    >>> from tinytf import dtypes
    >>> dtypes.float32.mlir, dtypes.float32.tf_enum, dtypes.float32.xla
    ('f32', 'DT_FLOAT', 'f32')
    >>> dtypes.as_dtype("DT_INT32") is dtypes.as_dtype(np.int32) is dtypes.int32
    True
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from tinytf.errors import InvalidArgumentError


class DType:
    """A tensor element type. Instances are unique: compare with ``is`` or ``==``."""

    __slots__ = ("name", "np", "mlir", "tf", "tf_enum", "xla", "kind")

    def __init__(self, name, np_dtype, mlir, tf, tf_enum, xla, kind):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.mlir = mlir          # element type as MLIR text: "f32", "i1", "ui8", "!tf_type.string"
        self.tf = tf              # DataTypeString: "float", "int32" (XlaOutputDescription type=...)
        self.tf_enum = tf_enum    # "DT_FLOAT" (-tf-input-data-types=DT_FLOAT)
        self.xla = xla            # "f32", "pred", "s32" (XlaInputShape f32[2])
        self.kind = kind          # "f" float, "c" complex, "i" signed, "u" unsigned, "b" bool, "o" other

    @property
    def is_floating(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_numeric(self) -> bool:
        return self.kind in "fciu"

    @property
    def is_differentiable(self) -> bool:
        """Gradients flow through float and complex values only, as in TensorFlow."""
        return self.kind in "fc"

    @property
    def size(self) -> int:
        return self.np.itemsize

    def __repr__(self) -> str:
        return f"tt.{self.name}"

    def __reduce__(self):
        return as_dtype, (self.name,)


_TABLE = [
    # name        numpy                mlir     tf            tf_enum         xla    kind
    ("bool",      np.bool_,            "i1",    "bool",       "DT_BOOL",      "pred", "b"),
    ("int8",      np.int8,             "i8",    "int8",       "DT_INT8",      "s8",  "i"),
    ("int16",     np.int16,            "i16",   "int16",      "DT_INT16",     "s16", "i"),
    ("int32",     np.int32,            "i32",   "int32",      "DT_INT32",     "s32", "i"),
    ("int64",     np.int64,            "i64",   "int64",      "DT_INT64",     "s64", "i"),
    ("uint8",     np.uint8,            "ui8",   "uint8",      "DT_UINT8",     "u8",  "u"),
    ("uint16",    np.uint16,           "ui16",  "uint16",     "DT_UINT16",    "u16", "u"),
    ("uint32",    np.uint32,           "ui32",  "uint32",     "DT_UINT32",    "u32", "u"),
    ("uint64",    np.uint64,           "ui64",  "uint64",     "DT_UINT64",    "u64", "u"),
    ("float16",   np.float16,          "f16",   "half",       "DT_HALF",      "f16", "f"),
    ("bfloat16",  ml_dtypes.bfloat16,  "bf16",  "bfloat16",   "DT_BFLOAT16",  "bf16", "f"),
    ("float32",   np.float32,          "f32",   "float",      "DT_FLOAT",     "f32", "f"),
    ("float64",   np.float64,          "f64",   "double",     "DT_DOUBLE",    "f64", "f"),
    ("complex64", np.complex64,        "complex<f32>", "complex64", "DT_COMPLEX64", "c64", "c"),
    ("complex128", np.complex128,      "complex<f64>", "complex128", "DT_COMPLEX128", "c128", "c"),
    ("string",    np.object_,          "!tf_type.string", "string", "DT_STRING", "", "o"),
    ("resource",  np.object_,          "!tf_type.resource", "resource", "DT_RESOURCE", "", "o"),
    ("variant",   np.object_,          "!tf_type.variant", "variant", "DT_VARIANT", "", "o"),
]

ALL: tuple[DType, ...] = tuple(DType(*row) for row in _TABLE)
_BY_KEY: dict = {}
for _d in ALL:
    for _key in (_d.name, _d.mlir, _d.tf, _d.tf_enum, _d.xla):
        if _key:
            _BY_KEY.setdefault(_key, _d)
    if _d.kind != "o":
        _BY_KEY[_d.np] = _d
        _BY_KEY[_d.np.type] = _d
_BY_KEY.update({"half": _BY_KEY["float16"], "float": _BY_KEY["float32"], "double": _BY_KEY["float64"]})
_BY_KEY.update({bool: _BY_KEY["bool"], int: _BY_KEY["int32"], float: _BY_KEY["float32"], complex: _BY_KEY["complex64"]})
_BY_KEY.update({np.dtype(object): _BY_KEY["string"], np.object_: _BY_KEY["string"]})  # tf.as_dtype(np.object_)

(bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64,
 complex64, complex128, string, resource, variant) = ALL
half, double = float16, float64


def as_dtype(value) -> DType:
    """A DType from a DType, a name (``"float32"``, ``"DT_FLOAT"``, ``"f32"``), or a numpy dtype.

    Python ``int`` and ``float`` map to int32 and float32, as ``tf.constant`` does.
    """
    if isinstance(value, DType):
        return value
    found = _BY_KEY.get(value)
    if found is None:
        try:
            found = _BY_KEY.get(np.dtype(value))
        except TypeError:
            found = None
    if found is None:
        raise InvalidArgumentError(f"unknown dtype {value!r}")
    return found


def result_type_of_python(value) -> DType:
    """The dtype ``tt.constant`` gives a Python scalar or nested list (int32, float32, bool, complex64)."""
    arr = np.asarray(value)
    if arr.dtype == np.float64:
        return float32
    if arr.dtype == np.int64 and (arr.size == 0 or (arr.min() >= -(2**31) and arr.max() < 2**31)):
        return int32
    if arr.dtype == np.complex128:
        return complex64
    if arr.dtype.kind in "US":
        return string
    return as_dtype(arr.dtype)
