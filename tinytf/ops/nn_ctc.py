"""tf.nn.ctc_loss for dense labels, and the label helpers collapse_repeated and ctc_unique_labels: the connectionist temporal classification loss of Graves et al. (2006),
as a composite of tinytf ops (TensorFlow's ctc_loss_dense is one too), so its gradient, graph and XLA forms
come from the ops it is made of.

    loss = tt.nn.ctc_loss(labels, logits, label_length, logit_length)     # logits [T, B, C], labels [B, L]

Per batch item, with the labels interleaved with blanks (z = blank, l1, blank, l2, ..., blank; S = 2L + 1
states), the forward variables in log space are

    alpha_0[0] = p_0(blank), alpha_0[1] = p_0(l1)
    alpha_t[s] = logsumexp(alpha_{t-1}[s], alpha_{t-1}[s-1], alpha_{t-1}[s-2] if z[s] != blank and z[s] != z[s-2])
                 + log p_t(z[s])

and loss = -logsumexp(alpha_{T'-1}[S-1], alpha_{T'-1}[S-2]) with T' the item's logit length. Unreachable
states hold a large finite negative number rather than -inf, so no 0 * inf reaches the gradient. The
time loop is unrolled (T must be static). The blank is class ``blank_index`` (0 by default, as in TF2).
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["ctc_loss", "collapse_repeated", "ctc_unique_labels"]
__namespaces__ = {name: ("nn",) for name in __all__}

_FN = "ctc_loss"
_NEG = -1e30  # log(0) for the unreachable states: finite, so gradients stay finite


def _extended_labels(labels, blank, batch, length):
    """[B, 2L + 1]: blank, l1, blank, l2, ..., blank."""
    m = _ops
    blanks = m.fill([batch, length], blank)
    pairs = m.reshape(m.stack([blanks, labels], axis=2), [batch, 2 * length])
    return m.concat([pairs, m.fill([batch, 1], blank)], axis=1)


def _shift(x, k, dtype):
    """x moved k states to the right, the first k states unreachable."""
    m = _ops
    batch = static_dims(x)[0]
    return m.concat([m.fill([batch, k], np.asarray(_NEG, dtype.np)), x[:, :-k]], axis=1)


def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
             name=None):
    """The negative log-likelihood of each item's label sequence, [B] (TensorFlow 2's ctc_loss, dense labels).
    ``unique`` (TensorFlow's TPU shortcut) does not change the values and is not needed here."""
    m = _ops
    if label_length is None:
        raise UnimplementedError("ctc_loss: sparse labels (label_length=None) need tf.SparseTensor, which tinytf "
                                 "does not have", _FN)
    logits = as_tensor(logits)
    if not logits_time_major:
        logits = m.transpose(logits, [1, 0, 2])
    dims = static_dims(logits)
    if dims is None or len(dims) != 3 or None in dims:
        raise InvalidArgumentError(f"{_FN}: logits must be a 3-D tensor of static shape, got {dims}", _FN)
    steps, batch, classes = dims
    dtype = logits.dtype
    labels = m.cast(as_tensor(labels), "int32")
    label_dims = static_dims(labels)
    if label_dims is None or len(label_dims) != 2 or label_dims[0] != batch or label_dims[1] is None:
        raise InvalidArgumentError(f"{_FN}: labels must be [batch={batch}, max_label_length], got {label_dims}", _FN)
    length = label_dims[1]
    blank = 0 if blank_index is None else int(blank_index)
    if not -classes <= blank < classes:
        raise InvalidArgumentError(f"{_FN}: blank_index {blank} is out of range for {classes} classes", _FN)
    blank %= classes
    label_length = m.cast(as_tensor(label_length), "int32")
    logit_length = m.cast(as_tensor(logit_length), "int32")

    log_probs = m.transpose(m.log_softmax(logits), [1, 0, 2])                       # [B, T, C]
    z = _extended_labels(labels, blank, batch, length)                              # [B, S]
    states = 2 * length + 1
    emit = m.gather(log_probs, z, axis=2, batch_dims=1)                               # [B, T, S]
    neg = m.fill([batch, states], np.asarray(_NEG, dtype.np))
    # s - 2 -> s is allowed into a label that differs from the one two states back (never into a blank)
    z_before = m.concat([m.fill([batch, 2], blank), z[:, :-2]], axis=1)
    skip = m.logical_and(m.not_equal(z, blank), m.not_equal(z, z_before))
    first = m.less(m.range(states), 2)
    alpha = m.where(first, emit[:, 0, :], neg)
    for t in range(1, steps):
        stacked = m.stack([alpha, _shift(alpha, 1, dtype), m.where(skip, _shift(alpha, 2, dtype), neg)], axis=0)
        moved = m.add(m.reduce_logsumexp(stacked, axis=0), emit[:, t, :])
        running = m.less(t, logit_length)                                             # [B]
        alpha = m.where(m.expand_dims(running, 1), moved, alpha)
    last = m.multiply(label_length, 2)                                                # S_b - 1
    final = m.gather(alpha, m.stack([last, m.maximum(m.subtract(last, 1), 0)], axis=1), axis=1, batch_dims=1)
    final = m.where(m.expand_dims(m.greater(label_length, 0), 1), final,
                    m.concat([final[:, :1], m.fill([batch, 1], np.asarray(_NEG, dtype.np))], axis=1))
    return m.negative(m.reduce_logsumexp(final, axis=1))


def collapse_repeated(labels, seq_length, name=None):
    """(labels with each run of a repeated label merged into one, [B, new max length]; the new lengths).
    The output's width is the longest new length: a value, not a static shape."""
    m = _ops
    labels = as_tensor(labels)
    dims = static_dims(labels)
    if dims is None or len(dims) != 2 or None in dims:
        raise InvalidArgumentError(f"collapse_repeated: labels must be [batch, max_len] of static shape, got {dims}",
                                   "collapse_repeated")
    batch, width = dims
    seq_length = as_tensor(seq_length)
    differs = m.concat([m.fill([batch, 1], True), m.not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
    inside = m.less(m.range(width), m.expand_dims(m.cast(seq_length, "int32"), 1))
    keep = m.logical_and(differs, inside)
    kept = m.cast(keep, "int32")
    new_length = m.reduce_sum(kept, axis=1)
    # each kept label moves to its rank among the kept ones: a one-hot sum puts it there
    slot = m.one_hot(m.subtract(m.cumsum(kept, axis=1), 1), width, dtype=labels.dtype)        # [B, L, L]
    placed = m.reduce_sum(m.multiply(slot, m.expand_dims(m.multiply(labels, m.cast(keep, labels.dtype)), 2)),
                          axis=1)
    collapsed = m.slice(placed, [0, 0], m.stack([batch, m.reduce_max(new_length)]))
    return collapsed, m.cast(new_length, seq_length.dtype)


def ctc_unique_labels(labels, name=None):
    """Per row: (its distinct labels in order of first appearance, zero-padded to the row's length, int64;
    each label's index in them, int32)."""
    m = _ops
    labels = as_tensor(labels)
    dims = static_dims(labels)
    if dims is None or len(dims) != 2 or dims[0] is None:
        raise InvalidArgumentError(f"ctc_unique_labels: labels must be [batch, max_len] with a static batch, got "
                                   f"{dims}", "ctc_unique_labels")
    values, indices = [], []
    for b in range(dims[0]):
        distinct, index = m.unique(labels[b])
        padding = m.subtract(m.size(index), m.size(distinct))
        values.append(m.cast(m.pad(distinct, m.reshape(m.stack([0, padding]), [1, 2])), "int64"))
        indices.append(index)
    return m.stack(values), m.stack(indices)
