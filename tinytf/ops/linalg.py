"""Batched matrix products: BatchMatMulV2 (broadcast batch dims) and Einsum.

    %o = "tf.BatchMatMulV2"(%x, %w) <{adj_x = false, adj_y = false, grad_x = false, grad_y = false}>
         : (tensor<2x5x16xf32>, tensor<16x8xf32>) -> tensor<2x5x8xf32>
    %s = "tf.Einsum"(%q, %k) <{equation = "BTNH,BSNH->BNTS"}> : (...) -> tensor<2x2x5x5xf32>

(``MatMul`` and ``tt.matmul`` live in tinytf/ops/math.py; ``tt.matmul`` of rank > 2 binds BatchMatMulV2.)
"""
from __future__ import annotations

import re
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import broadcast_shapes, fmt_shape, same_dtype
from tinytf.ops.type_lists import COMPLEX, FLOAT, UNSIGNED, check_types


def _low_precision(x) -> bool:
    """numpy has no bfloat16/half matmul or einsum loops that keep the dtype: compute in float32."""
    return x.dtype.kind == "f" and x.dtype.itemsize < 4 or x.dtype.name == "bfloat16"


def _adjoint(xp, a):
    a = xp.swapaxes(a, -1, -2)
    return xp.conj(a) if a.dtype.kind == "c" else a


@register
class BatchMatMulV2(Op):
    """x @ y over the last two dims, broadcasting the batch dims (rank 3 against rank 2 is fine)."""

    name = "tf.BatchMatMulV2"
    x = operand_def()
    y = operand_def()
    output = result_def()
    adj_x = attr(False)
    adj_y = attr(False)
    grad_x = attr(False)  # marks matmuls that compute gradients; no effect on values
    grad_y = attr(False)
    traits = traits_def(Pure())

    TYPES: ClassVar = FLOAT | COMPLEX | UNSIGNED | {"int16", "int32", "int64"}

    @classmethod
    def infer(cls, x, y, *, adj_x=False, adj_y=False, **_):
        dtype = same_dtype(cls.name, x, y)
        check_types(cls.name, x, cls.TYPES)
        if x.shape is None or y.shape is None:
            return TensorSpec(None, dtype)
        for i, s in enumerate((x.shape, y.shape)):
            if len(s) < 2:
                raise InvalidArgumentError(f"{cls.name}: In[{i}] ndims must be >= 2: {len(s)}", cls.name)
        m, k = x.shape[-2:][::-1] if adj_x else x.shape[-2:]
        k2, n = y.shape[-2:][::-1] if adj_y else y.shape[-2:]
        if k is not None and k2 is not None and k != k2:
            raise InvalidArgumentError(
                f"{cls.name}: Matrix size-incompatible: In[0]: {fmt_shape(x.shape)}, In[1]: {fmt_shape(y.shape)}",
                cls.name)
        try:
            batch = broadcast_shapes(cls.name, x.shape[:-2], y.shape[:-2])
        except InvalidArgumentError:
            raise InvalidArgumentError(
                f"{cls.name}: In[0] and In[1] must have compatible batch dimensions: {fmt_shape(x.shape)} vs. "
                f"{fmt_shape(y.shape)}", cls.name) from None
        return TensorSpec(batch + (m, n), dtype)

    @staticmethod
    def compute(xp, x, y, *, adj_x=False, adj_y=False, **_):
        if adj_x:
            x = _adjoint(xp, x)
        if adj_y:
            y = _adjoint(xp, y)
        if xp is np and _low_precision(x):
            return np.matmul(x.astype(np.float32), y.astype(np.float32)).astype(x.dtype)
        return xp.matmul(x, y)

    @staticmethod
    def grad(op, do):  # Given upstream grad U and O = X @ Y: dX = U @ Y^H, dY = X^H @ U (adjoints folded)
        x, y = op.inputs
        ax, ay = op.attrs["adj_x"], op.attrs["adj_y"]

        def mm(a, b, adj_a, adj_b, gx):
            return BatchMatMulV2.bind(a, b, adj_x=adj_a, adj_y=adj_b, grad_x=gx, grad_y=not gx)

        skip = getattr(op, "skip_input_indices", None) or ()  # no product for a gradient nobody wants
        if not ax and not ay:
            dx, dy = (lambda: mm(do, y, False, True, True)), (lambda: mm(x, do, True, False, False))
        elif not ax and ay:
            dx, dy = (lambda: mm(do, y, False, False, True)), (lambda: mm(do, x, True, False, True))
        elif ax and not ay:
            dx, dy = (lambda: mm(y, do, False, True, False)), (lambda: mm(x, do, False, False, False))
        else:
            dx, dy = (lambda: mm(y, do, True, True, False)), (lambda: mm(do, x, True, True, True))
        return [None if 0 in skip else dx(), None if 1 in skip else dy()]


# --- Einsum ------------------------------------------------------------------------------------

_TERM = re.compile(r"^(?:[A-Za-z]|\.\.\.)*$")


def parse_equation(op_name: str, equation: str, n_inputs: int):
    """``"ij,jk->ik"`` -> (["ij", "jk"], "ik"); ``...`` stays in the terms. TensorFlow's rules."""
    if equation.count("->") != 1:
        raise InvalidArgumentError(f"{op_name}: Expecting exactly one '->' in einsum equation: {equation}", op_name)
    lhs, out = equation.split("->")
    ins = lhs.split(",")
    if len(ins) not in (1, 2) or len(ins) != n_inputs:
        raise InvalidArgumentError(
            f"{op_name}: Expecting 1 or 2 input subscripts in equation '{equation}' matching {n_inputs} "
            f"input(s), got {len(ins)}", op_name)
    for term in ins + [out]:
        if not _TERM.match(term) or term.count("...") > 1:
            raise InvalidArgumentError(f"{op_name}: invalid subscripts '{term}' in einsum equation '{equation}'",
                                       op_name)
    return ins, out


def _labels(term: str) -> list[str]:
    return ["..." if c == "." else c for c in term.replace("...", ".")]


def _einsum_shape(op_name, equation, specs):
    ins, out = parse_equation(op_name, equation, len(specs))
    sizes: dict[str, int | None] = {}
    ellipsis = ()
    for i, (term, spec) in enumerate(zip(ins, specs)):
        labels = _labels(term)
        if spec.shape is None:
            return None
        named = len(labels) - ("..." in labels)
        if len(spec.shape) != named and ("..." not in labels or len(spec.shape) < named):
            raise InvalidArgumentError(
                f"{op_name}: Expected input {i} to have rank {named} but got: {len(spec.shape)} "
                f"(subscripts '{term}', shape {fmt_shape(spec.shape)})", op_name)
        pos = 0
        for label in labels:
            if label == "...":
                width = len(spec.shape) - named
                dims = spec.shape[pos:pos + width]
                try:
                    ellipsis = broadcast_shapes(op_name, ellipsis, dims)
                except InvalidArgumentError:
                    raise InvalidArgumentError(
                        f"{op_name}: Invalid broadcasting dimensions: {fmt_shape(specs[0].shape)} vs. "
                        f"{fmt_shape(specs[-1].shape)}", op_name) from None
                pos += width
                continue
            dim = spec.shape[pos]
            known = sizes.get(label)
            if known is not None and dim is not None and known != dim:
                raise InvalidArgumentError(
                    f"{op_name}: Expected dimension {known} at axis {pos} of the input shaped "
                    f"{fmt_shape(spec.shape)} but got dimension {dim} (label '{label}' in '{equation}')", op_name)
            sizes[label] = dim if known is None else known
            pos += 1
    out_labels = _labels(out)
    for label in out_labels:
        if label != "..." and label not in sizes:
            raise InvalidArgumentError(f"{op_name}: output label '{label}' of '{equation}' is in no input", op_name)
        if label != "..." and out_labels.count(label) > 1:
            raise UnimplementedError(f"{op_name}: repeated output label '{label}' in '{equation}'", op_name)
    if ellipsis and "..." not in out_labels:
        raise InvalidArgumentError(
            f"{op_name}: Output contains {len(ellipsis)} broadcasting dimension(s) but no ellipsis (...) was "
            f"found in the output subscripts.", op_name)
    shape = []
    for label in out_labels:
        shape.extend(ellipsis if label == "..." else (sizes[label],))
    return tuple(shape)


@register
class Einsum(Op):
    """Einstein summation of one or two inputs; ``...`` broadcasts, a label repeated in one input takes
    its diagonal.  %o = "tf.Einsum"(%a, %b) <{equation = "ij,kj->ik"}> : (...) -> tensor<3x4xf32>
    """

    name = "tf.Einsum"
    inputs = var_operand_def()
    output = result_def()
    equation = attr(kind="str")
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, *inputs, equation):
        dtype = same_dtype(cls.name, *inputs) if inputs else None
        if dtype is None:
            raise InvalidArgumentError(f"{cls.name}: needs at least one input", cls.name)
        check_types(cls.name, inputs[0], FLOAT | COMPLEX | {"int32", "int64"})
        return TensorSpec(_einsum_shape(cls.name, equation, inputs), dtype)

    @staticmethod
    def compute(xp, *inputs, equation):
        if xp is np and _low_precision(inputs[0]):
            return np.einsum(equation, *(a.astype(np.float32) for a in inputs)).astype(inputs[0].dtype)
        return xp.asarray(xp.einsum(equation, *inputs))

    @staticmethod
    def grad(op, do):  # Given upstream grad U and O = einsum(s_x,s_y->s_o): dX = einsum(s_o,s_y->s_x), likewise dY
        ins, out = parse_equation(op.name, op.attrs["equation"], len(op.inputs))
        grads = []
        for i, term in enumerate(ins):
            labels = [c for c in _labels(term) if c != "..."]
            if len(set(labels)) != len(labels):
                raise UnimplementedError(f"{op.name}: gradient of a repeated label in '{term}'", op.name)
            others = [ins[j] for j in range(len(ins)) if j != i]
            avail = set(_labels(out)).union(*(_labels(t) for t in others))
            kept = "".join(c for c in _labels(term) if c in avail)
            eq = ",".join([out] + others) + "->" + kept
            g = Einsum.bind(do, *(op.inputs[j] for j in range(len(ins)) if j != i), equation=eq)
            if kept != term.replace("...", "."):
                g = _expand_summed(g, op.inputs[i], term, avail)
            grads.append(g)
        return grads


def _expand_summed(g, x, term, avail):
    """Broadcast ``g`` back over the labels of ``x`` that were summed away inside its own term."""
    from tinytf.ops.array import ones_like
    from tinytf.ops.shape import reshape

    shape = x.shape
    if shape is None or any(d is None for d in shape):
        raise UnimplementedError("tf.Einsum: gradient over summed labels needs a static input shape", "tf.Einsum")
    labels = _labels(term)
    width = len(shape) - (len(labels) - ("..." in labels))
    kept_shape, pos = [], 0
    for label in labels:
        if label == "...":
            kept_shape.extend(shape[pos:pos + width])
            pos += width
        else:
            kept_shape.append(shape[pos] if label in avail else 1)
            pos += 1
    from tinytf.ops.math import multiply

    return multiply(reshape(g, kept_shape), ones_like(x))


def einsum(equation, *inputs, name=None):
    """``tt.einsum("ij,jk->ik", a, b)``; implicit-output equations (no ``->``) get numpy's output order."""
    if "->" not in equation:
        ins = equation.replace(" ", "").split(",")
        counts: dict[str, int] = {}
        for term in ins:
            for c in _labels(term):
                counts[c] = counts.get(c, 0) + 1
        out = ("..." if "..." in counts else "") + "".join(sorted(c for c, n in counts.items() if n == 1 and c != "..."))
        equation = ",".join(ins) + "->" + out
    return Einsum.bind(*inputs, equation=equation.replace(" ", ""))


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """``tt.linalg.matvec``: ``a @ b`` for a (batch of) matrix ``a`` and vector ``b``, as TensorFlow
    writes it: a MatMul (or BatchMatMulV2) against ``b`` as a column, squeezed."""
    from tinytf.ops.math import matmul
    from tinytf.ops.shape import expand_dims, squeeze

    return squeeze(matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a), [-1])


def tensordot(a, b, axes, name=None):
    """``tt.tensordot``: sums the products of ``a``'s and ``b``'s elements over the given axes, as
    ``np.tensordot``; written as one Einsum (its gradient and XLA lowering come with it). ``axes``: N
    (a's last N axes with b's first N) or a pair of axis lists; ranks must be known."""
    ra, rb = len(a.shape), len(b.shape)
    if isinstance(axes, int):
        if not 0 <= axes <= min(ra, rb):
            raise InvalidArgumentError(f"tt.tensordot: axes {axes} must be in [0, {min(ra, rb)}] for ranks {ra} and "
                                       f"{rb}", "tf.Einsum")
        a_axes, b_axes = list(range(ra - axes, ra)), list(range(axes))
    else:
        a_axes, b_axes = ([int(v)] if np.ndim(v) == 0 else [int(x) for x in v] for v in axes)
        a_axes, b_axes = [x % ra for x in a_axes], [x % rb for x in b_axes]
        if len(a_axes) != len(b_axes):
            raise InvalidArgumentError(f"tt.tensordot: {len(a_axes)} axes of a but {len(b_axes)} of b", "tf.Einsum")
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    a_labels = [next(letters) for _ in range(ra)]
    b_labels = [next(letters) for _ in range(rb)]
    for i, j in zip(a_axes, b_axes):
        b_labels[j] = a_labels[i]
    kept = [a_labels[i] for i in range(ra) if i not in a_axes] + [b_labels[j] for j in range(rb) if j not in b_axes]
    return einsum(f"{''.join(a_labels)},{''.join(b_labels)}->{''.join(kept)}", a, b)


# The public op functions (tt.math / tt.<name>); the other module-level names are helpers.
__all__ = ["einsum", "matvec", "tensordot"]
