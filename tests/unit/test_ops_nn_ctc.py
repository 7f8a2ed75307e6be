"""tf.nn.ctc_loss (dense labels): values against a brute-force sum over every alignment, gradients through
TensorFlow's checker, XLA's gradients equal graph mode's (TensorFlow's own values: test_ops_nn_tf_values.py)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import log_softmax, logsumexp

import tinytf as tt
from tinytf import gradcheck as gc
from tinytf.errors import UnimplementedError

RNG = np.random.default_rng(3)


def collapse(path, blank):
    out, previous = [], None
    for c in path:
        if c != previous and c != blank:
            out.append(c)
        previous = c
    return out


def brute_force_ctc(labels, logits, blank):
    """-log of the summed probability of every length-T path that collapses to ``labels``."""
    logp = log_softmax(logits, axis=-1)
    steps, classes = logp.shape
    terms = [sum(logp[t, c] for t, c in enumerate(path)) for path in itertools.product(range(classes), repeat=steps)
             if collapse(path, blank) == list(labels)]
    return -logsumexp(terms)


@pytest.mark.parametrize("blank", [0, 3])
def test_values_equal_the_sum_over_alignments(blank):
    logits = RNG.standard_normal((5, 3, 4))
    labels = np.array([[1, 2, 2], [2, 1, 1], [1, 1, 0]]) if blank == 3 else np.array([[1, 2, 2], [3, 1, 1], [2, 2, 0]])
    label_length, logit_length = np.array([3, 2, 1]), np.array([5, 4, 3])
    got = tt.nn.ctc_loss(labels, logits, label_length, logit_length, blank_index=blank).numpy()
    want = [brute_force_ctc(labels[b, :label_length[b]], logits[:logit_length[b], b], blank) for b in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_gradients_through_tensorflows_checker(use_function):
    labels, weights = tt.constant([[1, 2], [3, 3]]), tt.constant([0.7, -0.4], tt.float64)

    def model(logits):
        loss = tt.nn.ctc_loss(labels, logits, tt.constant([2, 2]), tt.constant([5, 4]), logits_time_major=False)
        return tt.reduce_sum(loss * weights)

    report = gc.compare_numerical_and_autodiff_gradients(model, [tt.constant(RNG.standard_normal((2, 5, 4)))],
                                                         use_function=use_function, abs_error=1e-6)
    assert report.inputs[0].checked


def test_xla_gradients_equal_graph():
    labels = tt.constant([[1, 2, 1], [2, 2, 0]])
    logits = tt.constant(RNG.standard_normal((6, 2, 3)).astype(np.float32))

    def grad(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            loss = tt.reduce_sum(tt.nn.ctc_loss(labels, x, tt.constant([3, 2]), tt.constant([6, 5])))
        return loss, tape.gradient(loss, x)

    graph, xla = tt.function(grad)(logits), tt.function(grad, jit_compile=True)(logits)
    for g, x in zip(graph, xla, strict=True):
        np.testing.assert_allclose(x.numpy(), g.numpy(), rtol=1e-5, atol=1e-6)
    # an item's gradient is softmax minus the alignments' posterior: it sums to 0 over the classes
    np.testing.assert_allclose(graph[1].numpy()[:5].sum(-1), 0, atol=1e-5)


def test_sparse_labels_are_refused_clearly():
    with pytest.raises(UnimplementedError, match="ctc_loss: sparse labels"):
        tt.nn.ctc_loss(tt.constant([[1]]), tt.zeros([2, 1, 3]), None, tt.constant([2]))
