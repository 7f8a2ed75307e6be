"""The structure of (batches of) matrices: bands, diagonals, transposes, traces and cross products.

    %b = "tf.MatrixBandPart"(%x, %lo, %hi) : (tensor<4x4xf32>, tensor<i64>, tensor<i64>) -> tensor<4x4xf32>
    %d = "tf.MatrixDiagPartV3"(%x, %k, %pad) <{align = "RIGHT_LEFT"}> : (tensor<3x4xf32>, tensor<2xi32>, tensor<f32>) -> tensor<2x3xf32>
    %m = "tf.MatrixDiagV3"(%d, %k, %rows, %cols, %pad) <{align = "RIGHT_LEFT"}> : (...) -> tensor<3x4xf32>
    %s = "tf.MatrixSetDiagV3"(%x, %d, %k) <{align = "RIGHT_LEFT"}> : (...) -> tensor<3x4xf32>
    %c = "tf.Cross"(%a, %b) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>

The diagonal ops take TensorFlow's ``k`` (one diagonal, or a band ``[k0, k1]`` stored superdiagonals
first) and ``align``: each of the band's diagonals shorter than the longest is padded, on the right
("LEFT") or on the left ("RIGHT"), the first word for superdiagonals, the second for subdiagonals.
The kernels gather through index maps computed from the static shapes (the same for numpy and JAX).
This module also holds what the other linalg op files share: the dtype list and the square check.
"""
from __future__ import annotations

import functools
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import check_index, const_ints, guard_allocation, is_python_value
from tinytf.ops.tensor_inputs import as_tensor, static_dims
from tinytf.ops.type_lists import REAL, check_types

__all__ = ["band_part", "diag", "diag_part", "set_diag", "matrix_transpose", "adjoint", "trace", "cross"]

# TensorFlow's T of the decompositions and solvers: {double, float, half, complex64, complex128}.
LINALG_TYPES = frozenset({"float16", "float32", "float64", "complex64", "complex128"})
ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def check_matrices(op_name: str, spec: TensorSpec, square: bool = True, what: str = "Input tensor 0",
                   types=LINALG_TYPES) -> None:
    """TensorFlow's checks of a batch of matrices: its dtype, rank >= 2 and (``square``) square."""
    check_types(op_name, spec, types)
    if spec.shape is None:
        return
    if len(spec.shape) < 2:
        raise InvalidArgumentError(f"{op_name}: {what} must have rank >= 2, got {len(spec.shape)} (shape "
                                   f"{fmt_shape(spec.shape)})", op_name)
    m, n = spec.shape[-2:]
    if square and m is not None and n is not None and m != n:
        raise InvalidArgumentError(f"{op_name}: Input matrix must be square, got shape {fmt_shape(spec.shape)}",
                                   op_name)


def wide(x):
    """numpy's and JAX's linalg have no float16 loops: half precision is computed in float32."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def matrix_rank(x) -> int | None:
    dims = static_dims(x)
    return None if dims is None else len(dims)


# --- MatrixBandPart ------------------------------------------------------------------------------

@register
class MatrixBandPart(Op):
    """Zeros outside a band: ``num_lower`` subdiagonals and ``num_upper`` superdiagonals kept (a
    negative count keeps the whole triangle).  band_part(x, -1, 0) is the lower triangle."""

    name = "tf.MatrixBandPart"
    BATCHING: ClassVar[str] = "leading_axes"
    input = operand_def()
    num_lower = operand_def()
    num_upper = operand_def()
    band = result_def()
    traits = traits_def(Pure())

    def verify_ir(self):
        if not v.cast_compatible(self.input.type, self.band.type):
            v.fail("failed to verify that all of {input, band} have dynamically equal types")
        if not v.rank_at_least(self.input.type, 2):
            v.fail(f"requires `input` to have rank of at least 2, but found '{self.input.type}'")
        for what in ("num_lower", "num_upper"):
            if not v.has_rank(getattr(self, what).type, 0):
                v.fail(f"requires `{what}` to have 0 dimensions, but found '{getattr(self, what).type}'")

    @classmethod
    def infer(cls, input, num_lower, num_upper):
        if input.shape is not None and len(input.shape) < 2:
            raise InvalidArgumentError(f"{cls.name}: input must be at least 2-dim, received shape "
                                       f"{fmt_shape(input.shape)}", cls.name)
        for what, spec, dim in (("num_lower", num_lower, -2), ("num_upper", num_upper, -1)):
            check_index(cls.name, spec, what, rank=0)
            value = const_ints(spec)
            size = None if input.shape is None else input.shape[dim]
            if value is not None and size is not None and value[0] > size:
                side = "rows" if dim == -2 else "columns"
                raise InvalidArgumentError(f"{cls.name}: {what} must be negative or less or equal to number of "
                                           f"{side} ({size}) got: {value[0]}", cls.name)
        return TensorSpec(input.shape, input.dtype)

    @staticmethod
    def compute(xp, input, num_lower, num_upper):
        m, n = input.shape[-2:]
        lo, hi = int(num_lower), int(num_upper)
        d = np.arange(n)[None, :] - np.arange(m)[:, None]  # column - row
        keep = ((lo < 0) | (-d <= lo)) & ((hi < 0) | (d <= hi))
        return xp.where(keep, input, xp.zeros((), input.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = band(x, lo, hi): dx = band(U, lo, hi)
        return [MatrixBandPart.bind(dy, op.inputs[1], op.inputs[2]), None, None]


def band_part(input, num_lower, num_upper, name=None):
    """``tt.linalg.band_part(x, num_lower, num_upper)``: tf.linalg.band_part (int64 counts from ints)."""
    def count(c):
        return np.asarray(c, np.int64) if is_python_value(c) else c
    return MatrixBandPart.bind(as_tensor(input), count(num_lower), count(num_upper))


# --- the diagonal ops ------------------------------------------------------------------------------

def _band(op_name: str, spec: TensorSpec):
    """(k0, k1) of a ``k`` operand (a scalar or 1-2 elements), or None when its value is unknown."""
    check_index(op_name, spec, "k")
    if spec.shape is not None and len(spec.shape) > 1:
        raise InvalidArgumentError(f"{op_name}: diag_index must be a scalar or vector, received shape: "
                                   f"{fmt_shape(spec.shape)}", op_name)
    k = const_ints(spec)
    if k is None:
        return None
    if not 1 <= len(k) <= 2:
        raise InvalidArgumentError(f"{op_name}: diag_index must have only one or two elements, received {len(k)} "
                                   "elements.", op_name)
    k0, k1 = k[0], k[-1]
    if k0 > k1:
        raise InvalidArgumentError(f"{op_name}: lower_diag_index must not be larger than upper_diag_index: "
                                   f"{k0} > {k1}", op_name)
    return k0, k1


def _check_band_fits(op_name: str, k0: int, k1: int, rows: int, cols: int) -> None:
    for what, d in (("lower", k0), ("upper", k1)):
        if not (-rows < d < cols or d == 0):
            raise InvalidArgumentError(f"{op_name}: {what}_diag_index is out of bound: {d}. It must be between "
                                       f"{-rows} and {cols}", op_name)


def _max_len(rows: int, cols: int, k0: int, k1: int) -> int:
    return max(0, min(rows + min(k1, 0), cols - max(k0, 0)))


def _check_align(op_name: str, align: str) -> None:
    if align not in ALIGNS:
        raise InvalidArgumentError(f"{op_name}: align must be one of {', '.join(ALIGNS)}, got '{align}'", op_name)


@functools.lru_cache(maxsize=256)
def _layout(rows: int, cols: int, k0: int, k1: int, max_len: int, align: str):
    """Index maps between a [rows, cols] matrix and its packed band [k1-k0+1, max_len]:
    (packed -> matrix flat index, packed valid mask, matrix -> packed flat index, matrix on-band mask)."""
    left_super, left_sub = align.split("_")[0] == "LEFT", align.split("_")[1] == "LEFT"
    num = k1 - k0 + 1
    to_matrix = np.zeros((num, max_len), np.int64)
    valid = np.zeros((num, max_len), bool)
    to_packed = np.zeros((rows, cols), np.int64)
    on_band = np.zeros((rows, cols), bool)
    for i in range(num):
        d = k1 - i
        length = max(0, min(rows + min(0, d), cols - max(0, d)))
        left = (d >= 0 and left_super) or (d <= 0 and left_sub)
        offset = 0 if left else max_len - length
        for j in range(length):
            r, c = j + max(0, -d), j + max(0, d)
            to_matrix[i, offset + j] = r * cols + c
            valid[i, offset + j] = True
            to_packed[r, c] = i * max_len + offset + j
            on_band[r, c] = True
    return to_matrix, valid, to_packed, on_band


def _take_last(xp, a, index):
    """a[..., index]: the last axis of ``a`` indexed by an int array of any shape."""
    out = xp.take(a, index.reshape(-1), axis=-1)
    return xp.reshape(out, a.shape[:-1] + index.shape)


@register
class MatrixDiagPartV3(Op):
    """The diagonals ``k`` of each matrix, packed and padded with ``padding_value``.

    %d = "tf.MatrixDiagPartV3"(%x, %k, %p) <{align = "RIGHT_LEFT"}> : (tensor<3x3xf32>, tensor<i32>, tensor<f32>) -> tensor<3xf32>
    """

    name = "tf.MatrixDiagPartV3"
    BATCHING: ClassVar[str] = "loop"
    input = operand_def()
    k = operand_def()
    padding_value = operand_def()
    diagonal = result_def()
    align = attr("RIGHT_LEFT")
    ATTR_CONSTRAINTS: ClassVar[dict] = {"align": v.one_of(*ALIGNS)}
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, k, padding_value, *, align="RIGHT_LEFT"):
        _check_align(cls.name, align)
        dtype = same_dtype(cls.name, input, padding_value)
        if padding_value.shape is not None and padding_value.shape != ():
            raise InvalidArgumentError(f"{cls.name}: Padding must be scalar, got shape "
                                       f"{fmt_shape(padding_value.shape)}", cls.name)
        if input.shape is not None and len(input.shape) < 2:
            raise InvalidArgumentError(f"{cls.name}: input must be at least 2-dim, received shape: "
                                       f"{fmt_shape(input.shape)}", cls.name)
        band = _band(cls.name, k)
        if band is None or input.shape is None:
            return TensorSpec(None, dtype)
        (k0, k1), (rows, cols) = band, input.shape[-2:]
        if rows is None or cols is None:
            return TensorSpec(input.shape[:-2] + ((k1 - k0 + 1,) if k1 > k0 else ()) + (None,), dtype)
        _check_band_fits(cls.name, k0, k1, rows, cols)
        shape = input.shape[:-2] + ((k1 - k0 + 1,) if k1 > k0 else ()) + (_max_len(rows, cols, k0, k1),)
        guard_allocation(cls.name, shape, dtype)
        return TensorSpec(shape, dtype)

    @staticmethod
    def compute(xp, input, k, padding_value, *, align="RIGHT_LEFT"):
        ks = [int(x) for x in np.asarray(k).reshape(-1)]
        k0, k1 = ks[0], ks[-1]
        rows, cols = input.shape[-2:]
        max_len = _max_len(rows, cols, k0, k1)
        to_matrix, valid, _, _ = _layout(rows, cols, k0, k1, max_len, align)
        flat = xp.reshape(input, input.shape[:-2] + (rows * cols,))
        out = xp.where(valid, _take_last(xp, flat, to_matrix), padding_value)
        return out[..., 0, :] if k0 == k1 else out

    @staticmethod
    def grad(op, dd):  # Given upstream grad U and d = diag_part(x, k): dx = matrix_diag(U, k) shaped as x
        x, k = op.inputs[0], op.inputs[1]
        dims = static_dims(x)
        align = op.attrs["align"]
        if dims is not None and None not in dims[-2:]:
            return [diag(dd, k=k, num_rows=dims[-2], num_cols=dims[-1], align=align), None, None]
        return [set_diag(ops.zeros_like(x), dd, k=k, align=align), None, None]


@register
class MatrixDiagV3(Op):
    """A batch of matrices with the given diagonals ``k``, ``padding_value`` elsewhere (-1 rows or
    columns: the smallest that fits; both -1: square).

    %m = "tf.MatrixDiagV3"(%d, %k, %r, %c, %p) <{align = "RIGHT_LEFT"}> : (tensor<3xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>) -> tensor<3x3xf32>
    """

    name = "tf.MatrixDiagV3"
    BATCHING: ClassVar[str] = "loop"
    diagonal = operand_def()
    k = operand_def()
    num_rows = operand_def()
    num_cols = operand_def()
    padding_value = operand_def()
    output = result_def()
    align = attr("RIGHT_LEFT")
    ATTR_CONSTRAINTS: ClassVar[dict] = {"align": v.one_of(*ALIGNS)}
    traits = traits_def(Pure())

    @classmethod
    def _shape(cls, dshape, k0, k1, num_rows, num_cols):
        """(batch, rows, cols, max_len) from the diagonal's shape; TensorFlow's checks."""
        if k1 > k0 and (len(dshape) < 2 or dshape[-2] != k1 - k0 + 1):
            raise InvalidArgumentError(f"{cls.name}: The number of diagonals provided in the input does not match "
                                       f"the lower_diag_index and upper_diag_index range (shape "
                                       f"{fmt_shape(dshape)}, k = [{k0}, {k1}]).", cls.name)
        max_len = dshape[-1]
        min_rows, min_cols = max_len - min(k1, 0), max_len + max(k0, 0)
        if num_rows != -1 and num_rows < min_rows:
            raise InvalidArgumentError(f"{cls.name}: The number of rows is too small ({num_rows} < {min_rows}).",
                                       cls.name)
        if num_cols != -1 and num_cols < min_cols:
            raise InvalidArgumentError(f"{cls.name}: The number of columns is too small ({num_cols} < {min_cols}).",
                                       cls.name)
        if num_rows == -1 and num_cols == -1:
            num_rows = num_cols = max(min_rows, min_cols)
        elif num_rows == -1:
            num_rows = min_rows
        elif num_cols == -1:
            num_cols = min_cols
        if num_rows != min_rows and num_cols != min_cols:
            raise InvalidArgumentError(f"{cls.name}: The number of rows or columns is not consistent with the "
                                       "specified d_lower, d_upper, and diagonal.", cls.name)
        batch = dshape[:-2] if k1 > k0 else dshape[:-1]
        return batch, num_rows, num_cols, max_len

    @classmethod
    def infer(cls, diagonal, k, num_rows, num_cols, padding_value, *, align="RIGHT_LEFT"):
        _check_align(cls.name, align)
        dtype = same_dtype(cls.name, diagonal, padding_value)
        sizes = []
        for what, spec in (("num_rows", num_rows), ("num_cols", num_cols), ("padding_value", padding_value)):
            if spec.shape is not None and spec.shape != ():
                raise InvalidArgumentError(f"{cls.name}: {what} must be a scalar, got shape {fmt_shape(spec.shape)}",
                                           cls.name)
            if what != "padding_value":
                check_index(cls.name, spec, what)
                value = const_ints(spec)
                sizes.append(None if value is None else value[0])
        if diagonal.shape is not None and len(diagonal.shape) < 1:
            raise InvalidArgumentError(f"{cls.name}: diagonal must be at least 1-dim, received shape: []", cls.name)
        band = _band(cls.name, k)
        if band is None or diagonal.shape is None or None in sizes or None in diagonal.shape[-2:]:
            return TensorSpec(None, dtype)
        batch, rows, cols, _ = cls._shape(diagonal.shape, *band, *sizes)
        guard_allocation(cls.name, batch + (rows, cols), dtype)
        return TensorSpec(batch + (rows, cols), dtype)

    @classmethod
    def compute(cls, xp, diagonal, k, num_rows, num_cols, padding_value, *, align="RIGHT_LEFT"):
        ks = [int(x) for x in np.asarray(k).reshape(-1)]
        k0, k1 = ks[0], ks[-1]
        batch, rows, cols, max_len = cls._shape(diagonal.shape, k0, k1, int(num_rows), int(num_cols))
        _, _, to_packed, on_band = _layout(rows, cols, k0, k1, max_len, align)
        flat = xp.reshape(diagonal, batch + ((k1 - k0 + 1) * max_len,))
        return xp.where(on_band, _take_last(xp, flat, to_packed), padding_value)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = matrix_diag(d, k): dd = diag_part(U, k)
        return [diag_part(dy, k=op.inputs[1], align=op.attrs["align"]), None, None, None, None]


@register
class MatrixSetDiagV3(Op):
    """``input`` with its diagonals ``k`` replaced by ``diagonal`` (packed as MatrixDiagPartV3 gives them).

    %y = "tf.MatrixSetDiagV3"(%x, %d, %k) <{align = "RIGHT_LEFT"}> : (tensor<3x4xf32>, tensor<3xf32>, tensor<i32>) -> tensor<3x4xf32>
    """

    name = "tf.MatrixSetDiagV3"
    BATCHING: ClassVar[str] = "loop"
    input = operand_def()
    diagonal = operand_def()
    k = operand_def()
    output = result_def()
    align = attr("RIGHT_LEFT")
    ATTR_CONSTRAINTS: ClassVar[dict] = {"align": v.one_of(*ALIGNS)}
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, diagonal, k, *, align="RIGHT_LEFT"):
        _check_align(cls.name, align)
        dtype = same_dtype(cls.name, input, diagonal)
        if input.shape is not None and len(input.shape) < 2:
            raise InvalidArgumentError(f"{cls.name}: input must be at least 2-dim, received shape: "
                                       f"{fmt_shape(input.shape)}", cls.name)
        if diagonal.shape is not None and len(diagonal.shape) < 1:
            raise InvalidArgumentError(f"{cls.name}: diagonal must be at least 1-dim, received shape: []", cls.name)
        band = _band(cls.name, k)
        if band is not None and input.shape is not None and diagonal.shape is not None \
                and None not in input.shape and None not in diagonal.shape:
            (k0, k1), (rows, cols) = band, input.shape[-2:]
            _check_band_fits(cls.name, k0, k1, rows, cols)
            want = input.shape[:-2] + ((k1 - k0 + 1,) if k1 > k0 else ()) + (_max_len(rows, cols, k0, k1),)
            if tuple(diagonal.shape) != want:
                raise InvalidArgumentError(
                    f"{cls.name}: Either first dimensions of diagonal don't match input.shape[:-2], or "
                    "diagonal.shape[:-1] is not equal to the longests diagonal in range "
                    f"[lower_diag_index:upper_diag_index]. Input shape: {fmt_shape(input.shape)}, diagonal shape: "
                    f"{fmt_shape(diagonal.shape)}, expected diagonal shape: {fmt_shape(want)}", cls.name)
        return TensorSpec(input.shape, dtype)

    @staticmethod
    def compute(xp, input, diagonal, k, *, align="RIGHT_LEFT"):
        ks = [int(x) for x in np.asarray(k).reshape(-1)]
        k0, k1 = ks[0], ks[-1]
        rows, cols = input.shape[-2:]
        max_len = _max_len(rows, cols, k0, k1)
        _, _, to_packed, on_band = _layout(rows, cols, k0, k1, max_len, align)
        flat = xp.reshape(diagonal, input.shape[:-2] + ((k1 - k0 + 1) * max_len,))
        return xp.where(on_band, _take_last(xp, flat, to_packed), input)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = set_diag(x, d, k): dx = set_diag(U, 0, k), dd = diag_part(U, k)
        k, align = op.inputs[2], op.attrs["align"]
        return [set_diag(dy, ops.zeros_like(op.inputs[1]), k=k, align=align), diag_part(dy, k=k, align=align), None]


def _k_operand(k):
    return np.asarray(k, np.int32) if is_python_value(k) else k


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """``tt.linalg.diag``: matrices with the given diagonals (tf.linalg.diag: MatrixDiagV3)."""
    diagonal = as_tensor(diagonal)
    return MatrixDiagV3.bind(diagonal, _k_operand(k), _k_operand(num_rows), _k_operand(num_cols),
                             as_tensor(padding_value, like=diagonal), align=align)


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):
    """``tt.linalg.diag_part``: the diagonals ``k`` of a batch of matrices (MatrixDiagPartV3)."""
    input = as_tensor(input)
    return MatrixDiagPartV3.bind(input, _k_operand(k), as_tensor(padding_value, like=input), align=align)


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    """``tt.linalg.set_diag``: ``input`` with the diagonals ``k`` replaced (MatrixSetDiagV3)."""
    input = as_tensor(input)
    return MatrixSetDiagV3.bind(input, as_tensor(diagonal, like=input), _k_operand(k), align=align)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """``tt.linalg.matrix_transpose``: the last two dims swapped (conjugated too with ``conjugate``)."""
    a = as_tensor(a)
    rank = matrix_rank(a)
    if rank is None:
        raise InvalidArgumentError("tt.linalg.matrix_transpose: the rank of a must be known", "tf.Transpose")
    if rank < 2:
        raise InvalidArgumentError(f"tt.linalg.matrix_transpose: a must be at least rank 2, got shape "
                                   f"{fmt_shape(static_dims(a))}", "tf.Transpose")
    return ops.transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2], conjugate=conjugate)


def adjoint(matrix, name=None):
    """``tt.linalg.adjoint``: the conjugate transpose of the last two dims."""
    return matrix_transpose(matrix, conjugate=True)


def trace(x, name=None):
    """``tt.linalg.trace``: the sum of each matrix's main diagonal, over the last two dims."""
    return ops.reduce_sum(diag_part(x), axis=-1)


@register
class Cross(Op):
    """The cross product of 3-vectors along the last dim.  %c = "tf.Cross"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Cross"
    BATCHING: ClassVar[str] = "leading_axes"  # (not "elementwise": an output element reads three of each input)
    a = operand_def()
    b = operand_def()
    product = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, a, b):
        dtype = same_dtype(cls.name, a, b)
        check_types(cls.name, a, REAL)
        for spec in (a, b):
            if spec.shape is not None and len(spec.shape) < 1:
                raise InvalidArgumentError(f"{cls.name}: Input must be at least 1D, got shape []", cls.name)
        if a.shape is not None and b.shape is not None:
            if len(a.shape) != len(b.shape) or any(x is not None and y is not None and x != y
                                                   for x, y in zip(a.shape, b.shape)):
                raise InvalidArgumentError(f"{cls.name}: Both inputs must be of same shape: {fmt_shape(a.shape)} vs. "
                                           f"{fmt_shape(b.shape)}", cls.name)
        shape = a.shape if a.shape is not None else b.shape
        if shape is not None and shape[-1] is not None and shape[-1] != 3:
            raise InvalidArgumentError(f"{cls.name}: Trailing dimension must be of size 3, got shape "
                                       f"{fmt_shape(shape)}", cls.name)
        return TensorSpec(shape, dtype)

    @staticmethod
    def compute(xp, a, b):
        a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
        b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
        return xp.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1).astype(a.dtype)

    @staticmethod
    def grad(op, dc):  # Given upstream grad U and c = a x b: da = b x U, db = U x a
        a, b = op.inputs
        return [Cross.bind(b, dc), Cross.bind(dc, a)]


def cross(a, b, name=None):
    """``tt.linalg.cross(a, b)``: pairwise cross products of 3-vectors (tf.Cross)."""
    a = as_tensor(a)
    return Cross.bind(a, as_tensor(b, like=a))

