"""Central differences: the one numerical-gradient core of every checker in tinytf.

    steps = tensorflow_steps(theta)                  # TF's delta: |θᵢ|·1e-4 (1e-4 where θᵢ = 0)
    g = central_differences(steps, evaluate, itertools.repeat(1), theta.dtype)

For each element i of an input θ the gradient is (f(θ + hᵢeᵢ) - f(θ - hᵢeᵢ)) / dᵢ. ``Steps``
holds the perturbed values θᵢ ± hᵢ and the divisors dᵢ; two rules make them:

- ``tensorflow_steps``: TensorFlow's ``CalcNumericalGrad``, everything in θ's dtype, dᵢ = 2hᵢ;
- ``relative_steps``: hᵢ = ε·max(1, |θᵢ|), dᵢ = (θᵢ + hᵢ) - (θᵢ - hᵢ), the step actually taken.

``central_differences`` runs the same loop for every caller; only ``evaluate`` differs: the
TF-semantics checker calls the model once per perturbation (batches of one), the vectorised
checkers evaluate a batch of perturbations at once (``BatchedGraph`` over a ``SparseBatch``, or
``jax.vmap``). ``directional_difference`` is the same quotient along one direction v.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Steps:
    """Element i of θ (flat) is moved to ``plus[i]`` and to ``minus[i]``; the difference of the two
    values of f is divided by ``divisor[i]``."""

    plus: np.ndarray
    minus: np.ndarray
    divisor: np.ndarray

    @property
    def size(self) -> int:
        return self.plus.size


def tensorflow_steps(theta: np.ndarray) -> Steps:
    """TensorFlow's delta, in θ's dtype: hᵢ = |θᵢ|·1e-4 (computed in float64, then rounded), 1e-4
    where θᵢ = 0; θᵢ ± hᵢ and the divisor 2hᵢ rounded to θ's dtype as TensorFlow rounds them."""
    flat = theta.reshape(-1)
    h = np.where(flat == 0, 1e-4, np.abs(flat.astype(np.float64)) * 1e-4).astype(theta.dtype)
    return Steps(flat + h, flat - h, np.asarray(2, theta.dtype) * h)


def relative_steps(theta: np.ndarray, eps: float) -> Steps:
    """hᵢ = ε·max(1, |θᵢ|), divided by the step actually taken after rounding (θᵢ + hᵢ) - (θᵢ - hᵢ)."""
    flat = theta.reshape(-1)
    h = eps * np.maximum(1.0, np.abs(flat))
    plus, minus = flat + h, flat - h
    return Steps(plus, minus, plus - minus)


def central_differences(steps: Steps, evaluate, batch_sizes, dtype, tick=None) -> np.ndarray:
    """(f(θ + hᵢeᵢ) - f(θ - hᵢeᵢ)) / dᵢ for every element i, flat, in ``dtype``.

    ``evaluate(start, stop)`` returns the values of f at the perturbations of elements start to
    stop - 1, as (values at plus, values at minus). ``batch_sizes`` yields how many elements each
    call takes; it is read one batch at a time, so a generator may size the later batches by what
    the first one measured. ``tick(done)`` is called after each batch.
    """
    n = steps.size
    out = np.empty(n, dtype)
    sizes = iter(batch_sizes)
    start = 0
    while start < n:
        stop = min(n, start + next(sizes))
        at_plus, at_minus = evaluate(start, stop)
        out[start:stop] = (at_plus - at_minus) / steps.divisor[start:stop]
        start = stop
        if tick is not None:
            tick(stop)
    return out


def perturbed(flat: np.ndarray, index: int, value) -> np.ndarray:
    """A copy of ``flat`` with element ``index`` set to ``value`` (one perturbation, dense)."""
    out = flat.copy()
    out[index] = value
    return out


def random_direction(rng: np.random.Generator, like: np.ndarray) -> np.ndarray:
    """A unit vector shaped like ``like``, in its dtype (the fast mode's v)."""
    v = rng.standard_normal(like.shape)
    norm = np.linalg.norm(v)
    return (v / norm if norm else v).astype(like.dtype)


def directional_difference(theta: np.ndarray, v: np.ndarray, eps: float, evaluate_stack) -> float:
    """∇f(θ)·v by one central difference along v: ``evaluate_stack`` gets the stack [θ + hv, θ - hv]
    with h = ε·max(1, max|θ|) and returns f at both."""
    h = eps * max(1.0, float(np.max(np.abs(theta), initial=0.0)))
    values = evaluate_stack(np.stack([theta + h * v, theta - h * v]))
    return float((values[0] - values[1]) / (2 * h))
