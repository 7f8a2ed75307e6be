"""Evaluate a traced function over a batch of inputs at once: a vmap for numpy kernels.

The gradient checker evaluates one model at thousands of perturbed inputs. Instead of one model
call per perturbation, ``BatchedGraph`` runs the traced ``func.func`` once over stacked arrays:
every value is an array plus a flag, "batched" (leading batch axis) or not. Each op is applied
by a batching rule:

- no batched operand: the op's ``compute`` (or ``kernel``) once, as the executor would;
- otherwise the rule the op class names in ``BATCHING`` (``batching_rule``):
  - "elementwise" (the default of Elementwise ops): batched operands get unit axes after the batch
    axis so numpy's right-aligned broadcasting lines them up with unbatched operands, then one
    ``compute`` over the whole batch; "passthrough" (ReturnsOperands ops) passes values on;
  - "matmul": ``np.matmul`` broadcasts over the stack (one BLAS call per item; a batched left
    operand against an unbatched right one is folded into a single GEMM);
  - "reduction" / "sum" / "mean", "reshape", "transpose", "expand_dims", "squeeze", "concat",
    "pack": axes shifted by one; "leading_axes": ops on the last axis or per element, whose leading
    axes pass through; "same_for_every_item": results that depend on shapes only;
  - "fold": batch-polymorphic ops (Conv2D, pools, softmax cross entropy) with only their first
    operand batched: the batch folded into dim 0 and unfolded afterwards (``FOLD_TILED`` operands
    are tiled along);
  - "loop" (the default): a loop over the batch, stacked (correct for every op, only slower).

The checker's perturbed inputs arrive as a ``SparseBatch`` (each item differs from the base
input in one element) and stay sparse through the ops that allow it: see ``sparse_batch.py``.

``promote=True`` evaluates in float64 (complex128): float constants, inputs and dtype attributes
(Cast's DstT, ...) are widened, so a float32 model is checked without float32 round-off.

    g = BatchedGraph(func_op, promote=True)
    (y, y_batched), = g.run([(x_stack, True), (w, False)])      # y has x_stack's leading axis
"""
from __future__ import annotations

import numpy as np
from xdsl.traits import IsTerminator, Pure

import tinytf.dtypes as dtypes
from tinytf.autodiff.sparse_batch import SparseBatch, _changed_only, _sparse_rule
from tinytf.errors import UnimplementedError
from tinytf.framework import op as op_module
from tinytf.framework import tf_types
from tinytf.framework.variables import AbstractVariable

_WIDE = {"f": dtypes.float64, "c": dtypes.complex128}


def _promote_dtype(d):
    if isinstance(d, dtypes.DType) and d.kind in _WIDE:
        return _WIDE[d.kind]
    return d


def _promote_array(a):
    a = np.asarray(a)
    if a.dtype.kind == "f" or a.dtype == dtypes.bfloat16.np:
        return a.astype(np.float64, copy=False)
    if a.dtype.kind == "c":
        return a.astype(np.complex128, copy=False)
    return a


def _promote_attr(v):
    if isinstance(v, dtypes.DType):
        return _promote_dtype(v)
    if isinstance(v, tuple) and v and all(isinstance(x, dtypes.DType) for x in v):
        return tuple(_promote_dtype(x) for x in v)
    if isinstance(v, np.ndarray):
        return _promote_array(v)
    return v


def apply(op_cls, arrays, attrs):
    """One op on numpy arrays, unbatched: ``compute`` or the kernel API. Returns a list."""
    compute = getattr(op_cls, "compute", None)
    if compute is not None:
        out = compute(np, *arrays, **attrs)
    elif getattr(op_cls, "kernel", None) is not None:
        from tinytf.framework.kernel import OpKernelContext

        ctx = OpKernelContext(op_cls.name, arrays, len(op_cls.get_irdl_definition().results) or 1)
        op_cls.kernel(ctx, **attrs)
        out = tuple(ctx.outputs)
    else:
        raise UnimplementedError(f"{op_cls.name}: no kernel", op_cls.name)
    if isinstance(out, (tuple, list)):
        return [np.asarray(o) for o in out]
    return [np.asarray(out)]


def batching_rule(cls) -> str:
    """The batching rule an op class asks for (its ``BATCHING``), or the default its traits imply."""
    rule = getattr(cls, "BATCHING", None)
    if rule is not None:
        return rule
    if op_module.has_trait(cls, op_module.ReturnsOperands):
        return "passthrough"
    return "elementwise" if op_module.has_trait(cls, op_module.Elementwise) else "loop"


class HeldValue(AbstractVariable):
    """A resource argument of a batched evaluation: the variable's value, read by ReadVariableOp."""

    __slots__ = ("value", "dtype", "shape", "name")

    def __init__(self, value: np.ndarray):
        self.value, self.dtype, self.shape, self.name = value, dtypes.as_dtype(value.dtype), value.shape, "resource"

    def read(self) -> np.ndarray:
        return self.value


class BatchedGraph:
    """A ``func.func`` compiled once into a flat plan, run over batched or unbatched arrays."""

    def __init__(self, func_op, promote: bool = False, module=None):
        self.promote = promote
        self.module = module
        block = func_op.body.blocks[0]
        slots: dict = {}
        for arg in block.args:
            slots[arg] = len(slots)
        self.num_args = len(block.args)
        self.resources = {a.index for a in block.args if tf_types.is_resource(a.type)}
        self.consts: dict[int, np.ndarray] = {}
        self.plan = []
        self.outputs: list[int] = []
        for op in block.ops:
            if op.has_trait(IsTerminator, value_if_unregistered=False):
                self.outputs = [slots[v] for v in op.operands]
                break
            cls = type(op)
            if op_module.REGISTRY.get(op.name) is not cls:
                raise UnimplementedError(f"batched evaluation: unknown op {op.name}", op.name)
            attrs = op.attr_values()
            if promote:
                attrs = {k: _promote_attr(v) for k, v in attrs.items()}
            ins = [slots[v] for v in op.operands]
            outs = []
            for r in op.results:
                slots[r] = len(slots)
                outs.append(slots[r])
            if not ins and op_module.has_trait(cls, Pure):  # a constant: computed once, here
                self.consts.update(zip(outs, self._apply(cls, [], attrs)))
                continue
            self.plan.append((cls, batching_rule(cls), ins, outs, attrs))
        self.num_slots = len(slots)

    def run(self, args, batch: int | None = None, stats: dict | None = None, base: list | None = None,
            keep: bool = False):
        """``args``: one ``(array, batched)`` per function argument. Returns ``[(array, batched)]``.

        ``keep``: remember every value of this (unbatched) run as ``self.values``. ``base``: such
        values of an unperturbed run; a unary elementwise op then recomputes only the elements
        its batched operand changed and copies the rest (a one-element perturbation changes one
        column of a matmul, and tanh of the other 63 columns need not be computed again).
        """
        if len(args) != self.num_args:
            raise ValueError(f"batched evaluation: {self.num_args} arguments expected, got {len(args)}")
        vals: list = [None] * self.num_slots
        flags = [False] * self.num_slots
        for i, (a, b) in enumerate(args):
            if i in self.resources:
                vals[i] = a if isinstance(a, AbstractVariable) else HeldValue(self._promoted(_value_of(a)))
            else:
                vals[i] = a if isinstance(a, SparseBatch) else self._promoted(a)
            flags[i] = b
            if b:
                batch = vals[i].shape[0]
        for slot, value in self.consts.items():
            vals[slot] = value
        biggest = 0
        for cls, rule, ins, outs, attrs in self.plan:
            arrays = [vals[i] for i in ins]
            batched = [flags[i] for i in ins]
            if any(batched):
                results = None
                if any(isinstance(a, SparseBatch) for a in arrays):
                    results = _sparse_rule(cls, rule, arrays, batched, attrs, base, outs, self)
                    if results is None:  # no sparse rule: materialise the stack once for every user
                        for i in ins:
                            if isinstance(vals[i], SparseBatch):
                                vals[i] = vals[i].dense()
                                if stats is not None:
                                    biggest = max(biggest, vals[i].nbytes // batch)
                        arrays = [vals[i] for i in ins]
                if results is None and base is not None and len(ins) == 1 and len(outs) == 1 \
                        and rule == "elementwise" and not getattr(cls, "CHEAP", False):
                    results = _changed_only(cls, arrays[0], base[ins[0]], base[outs[0]], attrs, self)
                if results is None:
                    results = RULES[rule](cls, arrays, batched, attrs, batch, self)
            else:
                results = [(a, False) for a in self._apply(cls, arrays, attrs)]
            for slot, (a, b) in zip(outs, results):
                vals[slot] = a
                flags[slot] = b
                if stats is not None:
                    biggest = max(biggest, a.nbytes // (batch if b and batch else 1))
        if stats is not None:
            stats["max_bytes_per_item"] = biggest
        if keep:
            self.values = vals
        return [(vals[i].dense() if isinstance(vals[i], SparseBatch) else vals[i], flags[i]) for i in self.outputs]

    def _promoted(self, a) -> np.ndarray:
        return _promote_array(a) if self.promote else np.asarray(a)

    def _apply(self, cls, arrays, attrs):
        trait = op_module.calls_functions(cls)
        if trait is not None and trait.kind == "call":
            return [a for a, _ in self._callee(attrs[trait.functions[0]]).run([(a, False) for a in arrays])]
        return apply(cls, arrays, attrs)

    def _callee(self, name):
        if self.module is None:
            raise UnimplementedError("batched evaluation: a call needs the module", "tf.PartitionedCall")
        cache = self.__dict__.setdefault("_callees", {})
        if name not in cache:
            from xdsl.dialects import func

            found = next((op for op in self.module.walk() if isinstance(op, func.FuncOp)
                          and op.sym_name.data == name), None)
            if found is None:
                raise UnimplementedError(f"batched evaluation: no function @{name}", "tf.PartitionedCall")
            cache[name] = BatchedGraph(found, self.promote, self.module)
        return cache[name]


def _value_of(resource):
    """What a resource argument carries: an array (the variable's value) or a variable."""
    if isinstance(resource, np.ndarray) and resource.dtype != object:
        return resource
    value = resource.item() if isinstance(resource, np.ndarray) else resource
    for attr in ("numpy", "read"):
        if hasattr(value, attr):
            return np.asarray(getattr(value, attr)())
    return np.asarray(value)


# --- batching rules -----------------------------------------------------------------------------

def _rank(a, b: bool) -> int:
    return a.ndim - 1 if b else a.ndim


def _bcast(a, b: bool, batch: int):
    return a if b else np.broadcast_to(a, (batch,) + a.shape)


def _elementwise(cls, arrays, batched, attrs, batch, graph):
    rank = max(_rank(a, b) for a, b in zip(arrays, batched))
    aligned = [a.reshape((a.shape[0],) + (1,) * (rank - a.ndim + 1) + a.shape[1:]) if b else a
               for a, b in zip(arrays, batched)]
    return [(o, True) for o in graph._apply(cls, aligned, attrs)]


def _matmul(cls, arrays, batched, attrs, batch, graph):
    (a, b), (ba, bb) = arrays, batched
    matrices = "transpose_a" in attrs  # MatMul's 2-D operands; BatchMatMul's adj_x / adj_y
    if matrices:
        ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    else:
        ta, tb = attrs.get("adj_x", False), attrs.get("adj_y", False)
        a, b = (np.conj(a) if ta else a), (np.conj(b) if tb else b)
    a = np.swapaxes(a, -1, -2) if ta else a
    b = np.swapaxes(b, -1, -2) if tb else b
    if not matrices:  # batch dims broadcast right-aligned: line the stack axis up
        rank = max(_rank(arrays[0], ba), _rank(arrays[1], bb))
        a = a.reshape((a.shape[0],) + (1,) * (rank - a.ndim + 1) + a.shape[1:]) if ba else a
        b = b.reshape((b.shape[0],) + (1,) * (rank - b.ndim + 1) + b.shape[1:]) if bb else b
    if ba and not bb and b.ndim == 2:  # one GEMM over the folded stack
        return [((a.reshape(-1, a.shape[-1]) @ b).reshape(a.shape[:-1] + (b.shape[-1],)), True)]
    return [(np.matmul(a, b), True)]


def _shift_axes(axis, rank):
    axis = np.asarray(axis)
    return (np.where(axis < 0, axis + rank, axis) + 1).astype(axis.dtype)


def _reduction(cls, arrays, batched, attrs, batch, graph):
    x, axis = arrays
    if batched[1]:
        return _loop(cls, arrays, batched, attrs, batch, graph)
    rank = _rank(x, True)
    if not batched[0]:
        x = _bcast(x, False, batch)
    return [(o, True) for o in graph._apply(cls, [x, _shift_axes(axis, rank)], attrs)]


def _reshape(cls, arrays, batched, attrs, batch, graph):
    x, shape = arrays
    if batched[1]:
        return _loop(cls, arrays, batched, attrs, batch, graph)
    return [(np.reshape(x, (x.shape[0],) + tuple(int(d) for d in np.atleast_1d(shape))), True)]


def _transpose(cls, arrays, batched, attrs, batch, graph):
    x, perm = arrays
    if batched[1]:
        return _loop(cls, arrays, batched, attrs, batch, graph)
    perm = [int(p) % max(x.ndim - 1, 1) for p in np.atleast_1d(perm)]
    return [(np.transpose(x, [0] + [p + 1 for p in perm]), True)]


def _expand_dims(cls, arrays, batched, attrs, batch, graph):
    x, dim = arrays
    if batched[1]:
        return _loop(cls, arrays, batched, attrs, batch, graph)
    d = int(np.asarray(dim).reshape(-1)[0])
    d = d + x.ndim if d < 0 else d  # the result has rank (x.ndim - 1) + 1
    return [(np.expand_dims(x, d + 1), True)]


def _squeeze(cls, arrays, batched, attrs, batch, graph):
    (x,) = arrays
    dims = attrs.get("squeeze_dims") or ()
    rank = x.ndim - 1
    if not dims:
        dims = [i for i in range(rank) if x.shape[i + 1] == 1]
    return [(np.squeeze(x, tuple(d % rank + 1 for d in dims)), True)]


def _concat(cls, arrays, batched, attrs, batch, graph):
    *values, axis = arrays
    if batched[-1]:
        return _loop(cls, arrays, batched, attrs, batch, graph)
    rank = max(_rank(v, b) for v, b in zip(values, batched))
    a = int(np.asarray(axis).reshape(-1)[0]) % rank + 1
    return [(np.concatenate([_bcast(v, b, batch) for v, b in zip(values, batched)], axis=a), True)]


def _pack(cls, arrays, batched, attrs, batch, graph):
    rank = _rank(arrays[0], batched[0]) + 1
    a = attrs.get("axis", 0) % rank + 1
    return [(np.stack([_bcast(v, b, batch) for v, b in zip(arrays, batched)], axis=a), True)]


def _passthrough(cls, arrays, batched, attrs, batch, graph):
    return list(zip(arrays, batched))


def _direct(cls, arrays, batched, attrs, batch, graph):
    # ops that act on the last axis (softmax) or per element (Cast): leading axes pass through
    if batched[0] and not any(batched[1:]):
        return [(o, True) for o in graph._apply(cls, arrays, attrs)]
    return _elementwise(cls, arrays, batched, attrs, batch, graph)


def _bias_add(cls, arrays, batched, attrs, batch, graph):
    if batched[1] or attrs.get("data_format", "NHWC") != "NHWC" and arrays[0].ndim > 3:
        return _fold(cls, arrays, batched, attrs, batch, graph)
    return _direct(cls, arrays, batched, attrs, batch, graph)


def _first_item(cls, arrays, batched, attrs, batch, graph):
    # Shape, Size, Rank: the same for every item of the batch
    return [(o, False) for o in graph._apply(cls, [a[0] if b else a for a, b in zip(arrays, batched)], attrs)]


def _fold(cls, arrays, batched, attrs, batch, graph):
    """Batch-polymorphic ops: (B, N, ...) -> (B*N, ...), apply, unfold. Only the first operand batched."""
    if not batched[0] or any(batched[1:]):
        return _loop(cls, arrays, batched, attrs, batch, graph)
    x = arrays[0]
    n = x.shape[1]
    rest = [np.concatenate([a] * batch, axis=0) if i in getattr(cls, "FOLD_TILED", ()) else a
            for i, a in enumerate(arrays[1:], start=1)]
    outs = graph._apply(cls, [x.reshape((batch * n,) + x.shape[2:])] + rest, attrs)
    return [(o.reshape((batch, n) + o.shape[1:]), True) for o in outs]


def _loop(cls, arrays, batched, attrs, batch, graph):
    per_item = [graph._apply(cls, [a[i] if b else a for a, b in zip(arrays, batched)], attrs)
                for i in range(batch)]
    return [(np.stack([item[k] for item in per_item]), True) for k in range(len(per_item[0]))]


RULES = {
    "elementwise": _elementwise, "loop": _loop, "passthrough": _passthrough, "fold": _fold,
    "leading_axes": _direct, "same_for_every_item": _first_item, "matmul": _matmul,
    "reduction": _reduction, "sum": _reduction, "mean": _reduction, "reshape": _reshape,
    "transpose": _transpose, "expand_dims": _expand_dims, "squeeze": _squeeze, "concat": _concat,
    "pack": _pack, "bias_add": _bias_add,
}
