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
from tinytf.ops import verifiers as v
from tinytf.ops.base import broadcast_shapes, fmt_shape, same_dtype
from tinytf.ops.op_functions import ops
from tinytf.ops.type_lists import COMPLEX, FLOAT, UNSIGNED, check_types


def _low_precision(x) -> bool:
    """numpy has no bfloat16/half matmul or einsum loops that keep the dtype: compute in float32."""
    return x.dtype.kind == "f" and x.dtype.itemsize < 4 or x.dtype.name == "bfloat16"


def _adjoint(xp, a):
    a = xp.swapaxes(a, -1, -2)
    return xp.conj(a) if a.dtype.kind == "c" else a


def verify_batch_matmul(op, broadcast: bool) -> None:
    """TensorFlow's BatchMatMul(V2) verifier: ranks, batch dims (equal, or broadcast for V2), output dims."""
    for what, value in (("lhs", op.x), ("rhs", op.y)):
        if not v.rank_at_least(value, 2):
            v.fail(f"requires {what} operand to have rank at least two")
    x, y = v.shape(op.x), v.shape(op.y)
    if x is None or y is None:
        return
    xt, yt = v.type_of(op.x), v.type_of(op.y)
    batch = []
    if not broadcast:
        if any(a is not None and b is not None and a != b for a, b in zip(x[:-2], y[:-2])):
            v.fail(f"found mismatching batch dimensions for lhs shape '{xt}' and rhs shape '{yt}'")
    else:
        batch = v.broadcast_shape(x[:-2], y[:-2])
        if batch is False:
            v.fail(f"found incompatible broadcast batch dimensions for lhs shape '{xt}' and rhs shape '{yt}'")
    out = v.shape(op.output.type)
    if out is None:
        return
    if len(out) != max(len(x), len(y)):
        v.fail(f"found invalid output rank, expected {max(len(x), len(y))} but got {len(out)}")
    for want, got in zip(batch, out):
        if want is not None and got is not None and want != got:
            v.fail(f"has mismatching input batch dimension {want} and output batch dimension {got}")
    attrs = op.attr_values()
    rows = x[-1] if attrs["adj_x"] else x[-2]
    cols = y[-2] if attrs["adj_y"] else y[-1]
    for what, want, got in (("row", rows, out[-2]), ("col", cols, out[-1])):
        if want is not None and got is not None and want != got:
            v.fail(f"found invalid output dimension on {what}, expected {want} but got {got}")


class _BatchMatMul(Op):
    """x @ y over the last two dims (adjoints first with ``adj_x`` / ``adj_y``): BatchMatMulV2's rules, which
    BatchMatMul shares."""

    BATCHING: ClassVar[str] = "matmul"
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


@register
class BatchMatMulV2(_BatchMatMul):
    """x @ y over the last two dims, broadcasting the batch dims (rank 3 against rank 2 is fine)."""

    name = "tf.BatchMatMulV2"

    def verify_ir(self):
        v.same_element_types(self)
        verify_batch_matmul(self, broadcast=True)


@register
class BatchMatMul(_BatchMatMul):
    """x @ y over the last two dims: TensorFlow's first form, whose batch dims must be equal (no broadcasting).

        %0 = "tf.BatchMatMul"(%x, %y) <{adj_x = false, adj_y = true}> : (tensor<2x3x4xf32>, tensor<2x5x4xf32>)
               -> tensor<2x3x5xf32>
    """

    name = "tf.BatchMatMul"

    def verify_ir(self):
        v.same_element_types(self)
        verify_batch_matmul(self, broadcast=False)

    @classmethod
    def infer(cls, x, y, **attrs):
        if x.shape is not None and y.shape is not None:
            if len(x.shape) != len(y.shape):
                raise InvalidArgumentError(f"{cls.name}: In[0] and In[1] has different ndims: {fmt_shape(x.shape)} vs. "
                                           f"{fmt_shape(y.shape)}", cls.name)
            for i, (a, b) in enumerate(zip(x.shape[:-2], y.shape[:-2])):
                if a is not None and b is not None and a != b:
                    raise InvalidArgumentError(f"{cls.name}: In[0].dim({i}) and In[1].dim({i}) must be the same: "
                                               f"{fmt_shape(x.shape)} vs {fmt_shape(y.shape)}", cls.name)
        return super().infer.__func__(cls, x, y, **attrs)


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
    """Einstein summation of one or two inputs; ``...`` broadcasts, a label repeated in an input takes
    its diagonal, a label repeated in the output fills a diagonal (zeros elsewhere: "i->ii", which
    gradients need).  %o = "tf.Einsum"(%a, %b) <{equation = "ij,kj->ik"}> : (...) -> tensor<3x4xf32>
    """

    name = "tf.Einsum"
    inputs = var_operand_def()
    output = result_def()
    equation = attr(kind="str")
    traits = traits_def(Pure())

    def verify_ir(self):
        if len(self.inputs) not in (1, 2):
            v.fail("must have 1 or 2 operands")

    @classmethod
    def infer(cls, *inputs, equation):
        dtype = same_dtype(cls.name, *inputs) if inputs else None
        if dtype is None:
            raise InvalidArgumentError(f"{cls.name}: needs at least one input", cls.name)
        check_types(cls.name, inputs[0], FLOAT | COMPLEX | {"int32", "int64"})
        return TensorSpec(_einsum_shape(cls.name, equation, inputs), dtype)

    @staticmethod
    def compute(xp, *inputs, equation):
        lhs, out = equation.split("->")
        unique = "".join(dict.fromkeys(_labels(out)))
        if xp is np and _low_precision(inputs[0]):
            y = np.einsum(f"{lhs}->{unique}", *(a.astype(np.float32) for a in inputs))
            return _inflate(np, y, out).astype(inputs[0].dtype)
        return xp.asarray(_inflate(xp, xp.einsum(f"{lhs}->{unique}", *inputs), out))

    @staticmethod
    def grad(op, do):  # Given upstream grad U and O = einsum(s_x,s_y->s_o): dX = einsum(s_o,s_y->s_x), likewise dY
        ins, out = parse_equation(op.name, op.attrs["equation"], len(op.inputs))
        if len(ins) == 1:
            return [_operand_grad(do, out, ins[0], op.inputs[0])]
        if "..." in out:  # "...ij,jk->...ik": y's gradient "...ik,...ij->jk..." sums the batch dims away
            ins = [t if "..." in t else t + "..." for t in ins]
        skip = getattr(op, "skip_input_indices", None) or ()
        grads = []
        for i in range(2):
            if i in skip:  # no product for a gradient nobody wants
                grads.append(None)
                continue
            x, other = op.inputs[i], ops.conj(op.inputs[1 - i])  # TensorFlow differentiates against the conjugates
            g = _operand_grad(do, out, ins[i], x, other, ins[1 - i])
            grads.append(_unbroadcast(g, x, ins[i]))
        return grads


_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _inflate(xp, y, out: str):
    """``y``, whose axes are ``out``'s labels once each, spread onto ``out``'s repeated labels with zeros
    off the diagonal: "i->ii" is einsum("i,ij->ij", y, eye). (A no-op when no label repeats.)"""
    labels = _labels(out)
    unique = list(dict.fromkeys(labels))
    if len(unique) == len(labels):
        return y
    width = y.ndim - (len(unique) - ("..." in unique))
    sizes, pos = {}, 0
    for label in unique:
        if label != "...":
            sizes[label] = y.shape[pos]
        pos += width if label == "..." else 1
    fresh = iter(c for c in _ALPHABET if c not in out)
    seen: set[str] = set()
    result, eyes, eye_terms = [], [], []
    for label in labels:
        if label == "..." or label not in seen:
            seen.add(label)
            result.append(label)
            continue
        twin = next(fresh, None)
        if twin is None:
            raise UnimplementedError(f"tf.Einsum: too many labels to fill the diagonals of '{out}'", "tf.Einsum")
        result.append(twin)
        eye_terms.append(label + twin)
        eyes.append(xp.eye(sizes[label], dtype=y.dtype))
    return xp.einsum(",".join(["".join(unique)] + eye_terms) + "->" + "".join(result), y, *eyes)


def _operand_grad(do, out, term, x, other=None, other_term=None):
    """The gradient of einsum(term[,other_term]->out) for the operand ``x`` of ``term``, over the broadcast
    batch dims (TensorFlow's _GetGradWrt). Labels of ``term`` in neither ``out`` nor ``other_term`` were
    summed inside ``x``: the gradient of the rest comes first, then an einsum against ones spreads it
    over them (and over the diagonals of repeated labels)."""
    from tinytf.ops.array import ones_like

    others, other_terms = ([other], "," + other_term) if other is not None else ([], "")
    present = set(_labels(out)) | set(_labels(other_term or ""))
    if all(c in present or c == "..." for c in _labels(term)):
        return Einsum.bind(do, *others, equation=f"{out}{other_terms}->{term}")
    kept = "".join(dict.fromkeys(c for c in _labels(term) if c in present or c == "..."))
    g = do if not others and kept == out else Einsum.bind(do, *others, equation=f"{out}{other_terms}->{kept}")
    return Einsum.bind(g, ones_like(x), equation=f"{kept},{term}->{term}")


def _unbroadcast(g, x, term):
    """``g`` (``x``'s gradient with the broadcast batch dims at ``...``) summed over the batch dims ``x``
    lacks or has as 1, in ``x``'s shape. Static shapes decide, as in the tape's reduce_to."""
    from tinytf.ops.reduction import reduce_sum
    from tinytf.ops.shape import reshape, shape

    xs, gs = _static_shape(x), _static_shape(g)
    if "..." not in term or xs is None or gs is None or (xs == gs and None not in xs):
        return g
    labels = _labels(term)
    start = labels.index("...")
    after = len(labels) - start - 1
    xb, gb = xs[start:len(xs) - after], gs[start:len(gs) - after]
    lead = len(gb) - len(xb)
    axes = [start + k for k in range(lead)] + [start + lead + i for i, d in enumerate(xb) if d == 1 and gb[lead + i] != 1]
    if axes:
        g = reduce_sum(g, axis=axes)
    if _static_shape(g) != xs:
        g = reshape(g, list(xs) if None not in xs else shape(x))
    return g


def _static_shape(x):
    s = getattr(x, "shape", None)
    if s is None or getattr(s, "rank", 0) is None:
        return None
    return tuple(None if d is None else int(d) for d in s)


def einsum(equation, *inputs, name=None):
    """``tt.einsum("ij,jk->ik", a, b)``, as TensorFlow's: an implicit output (no ``->``) is the labels
    that occur once, sorted (``...`` counts as one label, and comes first); three or more inputs are
    contracted pairwise, left to right, each step keeping the labels that the output or a later input
    still needs."""
    equation = equation.replace(" ", "")
    if "->" not in equation:
        counts: dict[str, int] = {}
        for term in equation.split(","):
            for c in _labels(term):
                counts[c] = counts.get(c, 0) + 1
        equation += "->" + "".join(sorted((c for c, n in counts.items() if n == 1), key=lambda c: (c != "...", c)))
    lhs, out = equation.split("->", 1)
    terms = lhs.split(",")
    if len(terms) <= 2 or len(terms) != len(inputs):
        return Einsum.bind(*inputs, equation=equation)
    acc, acc_term = inputs[0], terms[0]
    for k in range(1, len(terms)):
        later = set(_labels(out)).union(*(_labels(t) for t in terms[k + 1:]))
        step = "".join(dict.fromkeys(c for c in _labels(acc_term + terms[k]) if c in later))
        acc = Einsum.bind(acc, inputs[k], equation=f"{acc_term},{terms[k]}->{out if k == len(terms) - 1 else step}")
        acc_term = step
    return acc


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
