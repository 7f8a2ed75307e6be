"""Perturbations kept sparse: how ``BatchedGraph`` evaluates a batch of inputs that each differ
from a base input in a few elements, at the cost of the changes rather than of the whole model.

A full gradient check evaluates f(θ ± εeᵢ) for every element i. Each of those inputs equals θ
but for one element, so most values of the model equal the unperturbed ("base") run's. A
``SparseBatch`` stores only the changed positions and values of each item:

- elementwise ops map the changed values (and the other operands' values at those positions);
  a broadcast operand (a bias) turns one change into a line of changes;
- MatMul with one changed element of an operand changes one column (or row) of the product:
  base product plus delta times a column of the other operand; with several changes, the base
  product plus the rank-k correction, dense;
- Sum and Mean add the changes to the base result;
- any other op gets the batch materialised (base copied, changes written) and runs densely.

For dense batches, a unary elementwise op whose batched operand mostly equals the base value
recomputes only the changed elements (``_changed_only``). The results are the op's own
``compute`` on the changed values: the same numbers a dense evaluation gives, up to the order
of floating-point additions in sums.

    >>> x = SparseBatch(np.zeros((2, 2)), np.array([[0], [3]]), np.array([[1.0], [2.0]]))
    >>> x.dense().tolist()
    [[[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 2.0]]]
"""
from __future__ import annotations

import numpy as np


class SparseBatch:
    """A batch of copies of ``base``, item b differing from it at the flat indices ``index[b]``
    (shape (B, k)) where it holds ``values[b]``. The checker's perturbations (k = 1) are kept in
    this form as long as the ops allow: an elementwise op maps only the k changed values, a
    matmul turns one changed element into one changed row or column, a sum adds the changes to
    the base sum. Each perturbed evaluation then costs O(k), not O(size of the model's values)."""

    __slots__ = ("base", "index", "values")

    def __init__(self, base: np.ndarray, index: np.ndarray, values: np.ndarray):
        self.base, self.index, self.values = base, index, values

    @property
    def shape(self) -> tuple:
        return (len(self.index),) + self.base.shape

    @property
    def dtype(self):
        return self.base.dtype

    @property
    def nbytes(self) -> int:
        return self.values.nbytes

    def old(self) -> np.ndarray:
        return self.base.reshape(-1)[self.index]

    def dense(self) -> np.ndarray:
        n = len(self.index)
        out = np.empty(self.shape, np.result_type(self.base, self.values))
        out[...] = self.base
        out.reshape(n, -1)[np.arange(n)[:, None], self.index] = self.values
        return out


def _sparse_rule(cls, rule: str, arrays, batched, attrs, base, outs, graph):
    """Ops that keep a SparseBatch sparse, or exploit it, by their batching ``rule``; None: materialise
    it instead."""
    if rule == "passthrough":
        return list(zip(arrays, batched))
    if sum(batched) != 1 or base is None or len(outs) != 1 or base[outs[0]] is None:
        return None
    k = next(i for i, a in enumerate(arrays) if isinstance(a, SparseBatch))
    x, y_base = arrays[k], base[outs[0]]
    if rule == "matmul" and "transpose_a" in attrs and x.base.ndim == 2 and arrays[1 - k].ndim == 2:
        if x.index.shape[1] == 1:
            return [(_one_hot_matmul(x, k, arrays[1 - k], attrs, y_base), True)]
        return [(_sparse_matmul(x, k, arrays[1 - k], attrs, y_base), True)]
    if rule in ("sum", "mean") and k == 0 and y_base.dtype.kind in "fc":
        return [(_sparse_sum(x, arrays[1], attrs, y_base, rule == "mean"), True)]
    if rule != "elementwise":
        return None
    if y_base.shape == x.base.shape:
        index, values = x.index, x.values
    else:  # x is broadcast (a bias): each changed element changes a whole line of the result
        index, values = _broadcast_changes(x, y_base.shape)
        if index is None:
            return None
    operands = [values if i == k else np.broadcast_to(a, y_base.shape).reshape(-1)[index]
                for i, a in enumerate(arrays)]
    out = graph._apply(cls, operands, attrs)[0]
    return [(SparseBatch(y_base, index, np.asarray(out, y_base.dtype)), True)]


def _broadcast_changes(x, shape):
    """The result positions a broadcast SparseBatch changes, and the values there."""
    rank = len(shape)
    xs = (1,) * (rank - x.base.ndim) + x.base.shape
    if len(xs) != rank or any(a != b and a != 1 for a, b in zip(xs, shape)):
        return None, None
    spread = [d for d in range(rank) if xs[d] == 1 and shape[d] != 1]
    count = int(np.prod([shape[d] for d in spread]))
    if count * x.index.shape[1] > (1 << 16):
        return None, None
    coords = np.unravel_index(x.index, xs)
    grid = np.indices([shape[d] for d in spread]).reshape(len(spread), -1)  # (len(spread), count)
    full = [np.broadcast_to(c[..., None], c.shape + (count,)) for c in coords]
    for g, d in zip(grid, spread):
        full[d] = np.broadcast_to(g, x.index.shape + (count,))
    index = np.ravel_multi_index(full, shape).reshape(len(x.index), -1)
    values = np.broadcast_to(x.values[..., None], x.values.shape + (count,)).reshape(len(x.index), -1)
    return index, values


def _one_hot_matmul(x, k, other, attrs, y_base):
    """a @ b with one element of b (or a) changed per item: one column (or row) of the product
    changes, by delta times a column of a (or a row of b)."""
    idx = x.index[:, 0]
    rows, cols = np.divmod(idx, x.base.shape[1])
    delta = x.values[:, 0] - x.base.reshape(-1)[idx]
    m_out, n_out = y_base.shape
    if k == 1:
        a = other.T if attrs["transpose_a"] else other
        kk, n = (cols, rows) if attrs["transpose_b"] else (rows, cols)
        index = np.arange(m_out)[None, :] * n_out + n[:, None]
        values = y_base[:, n].T + delta[:, None] * a[:, kk].T
    else:
        b = other.T if attrs["transpose_b"] else other
        m, kk = (cols, rows) if attrs["transpose_a"] else (rows, cols)
        index = m[:, None] * n_out + np.arange(n_out)[None, :]
        values = y_base[m, :] + delta[:, None] * b[kk, :]
    return SparseBatch(y_base, index, values)


def _sparse_matmul(x, k, other, attrs, y_base):
    """a @ b with a few elements of b (or a) changed per item: the base product plus, for each
    change, delta times a column of a (or a row of b), added into the product's copy."""
    rows, cols = np.divmod(x.index, x.base.shape[1])
    delta = x.values - x.old()
    n = len(x.index)
    items = np.broadcast_to(np.arange(n)[:, None], x.index.shape)
    out = np.empty((n,) + y_base.shape, np.result_type(y_base, delta))
    out[...] = y_base
    if k == 1:
        a = other.T if attrs["transpose_a"] else other
        kk, col = (cols, rows) if attrs["transpose_b"] else (rows, cols)
        np.add.at(out.transpose(0, 2, 1), (items, col), delta[..., None] * a.T[kk])
    else:
        b = other.T if attrs["transpose_b"] else other
        row, kk = (cols, rows) if attrs["transpose_a"] else (rows, cols)
        np.add.at(out, (items, row), delta[..., None] * b[kk])
    return out


def _sparse_sum(x, axis, attrs, y_base, mean: bool):
    """Sum (or Mean) of a SparseBatch: the base result plus the changes, added where they land."""
    rank = x.base.ndim
    axes = sorted({int(a) % rank for a in np.atleast_1d(axis)}) if rank else []
    delta = x.values - x.old()
    if mean:
        delta = delta / max(1, int(np.prod([x.base.shape[a] for a in axes])))
    n = len(x.index)
    out = np.empty((n,) + y_base.shape, np.result_type(y_base, delta))
    out[...] = y_base
    flat = out.reshape(n, -1)
    if flat.shape[1] == 1:
        flat[:, 0] += delta.sum(axis=1)
        return out
    coords = np.unravel_index(x.index, x.base.shape)
    keep = attrs.get("keep_dims", False)
    kept = [np.zeros_like(c) if d in axes else c for d, c in enumerate(coords) if keep or d not in axes]
    pos = np.ravel_multi_index(kept, y_base.shape)
    np.add.at(flat, (np.broadcast_to(np.arange(n)[:, None], pos.shape), pos), delta)
    return out


def _changed_only(cls, x, x_base, y_base, attrs, graph):
    """A unary elementwise op over a batch that mostly equals the base value: compute the changes."""
    if x_base is None or y_base is None or x.shape[1:] != x_base.shape or x.dtype != x_base.dtype:
        return None
    changed = x != x_base
    count = int(np.count_nonzero(changed))
    if count * 2 > changed.size:
        return None
    out = np.empty(x.shape, y_base.dtype)
    out[...] = y_base
    if count:
        out[changed] = graph._apply(cls, [x[changed]], attrs)[0]
    return [(out, True)]
