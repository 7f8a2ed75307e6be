"""A model traced once and evaluated at many perturbed inputs: the engine of ``check_gradients``.

    vm = VectorizedModel(model, [x, w], wrt=[1], trace=trace)
    g = vm.gradients()[0]                          # tape gradient of uᵀ·outputs, in float64
    n = vm.numerical_full(1, eps=1e-6, ...)        # every element of w, 2N evaluations in batches

Two graphs are traced from the model (``trace(fn, specs) -> (func_op, module, captured)``, given
by the caller, which owns ``tt.function``'s layer): the forward model, and the tape computing
the gradient of L = Σₖ⟨uₖ, yₖ⟩ over the float outputs yₖ with fixed random weights uₖ. Both run
through ``BatchedGraph``: the gradient graph once, unbatched; the forward graph over stacks of
perturbed inputs, ``chunk_bytes`` at a time (small batches keep the values in cache, which beats
one huge batch). With ``promote`` both evaluate in float64 whatever the model's float dtype.
The differences themselves are ``central_differences.py``'s, as for TensorFlow's checker.
"""
from __future__ import annotations

import itertools
import weakref

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.autodiff.batching import BatchedGraph, _promote_array
from tinytf.autodiff.central_differences import (
    central_differences,
    directional_difference,
    random_direction,
    relative_steps,
)
from tinytf.autodiff.sparse_batch import SparseBatch
from tinytf.autodiff.structures import as_tuple
from tinytf.autodiff.tape import GradientTape
from tinytf.framework import tf_types
from tinytf.framework.tensor_spec import TensorSpec

# Traced graphs per model and signature, as tt.function keeps its traces: checking the same
# model at another point does not trace again.
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def as_output_list(model):
    """The model with its outputs as a list (a traced function's results)."""
    return lambda *xs: list(as_tuple(model(*xs)))


def gradient_function(model, n: int, wrt, outputs):
    """``fn(*xs, *us)`` -> tape gradients of Σₖ⟨uₖ, y[outputs[k]]⟩ for ``xs[wrt]``, the None ones left
    out (with no ``us``: of the outputs themselves, TensorFlow's checker); ``present`` (filled when
    fn runs) lists the positions in ``wrt`` that have a gradient."""
    present: list[int] = []

    def gradient(*args):
        xs, us = args[:n], args[n:]
        with GradientTape() as tape:
            for j in wrt:
                tape.watch(xs[j])
            ys = as_tuple(model(*xs))
        if not ys:
            raise ValueError("gradcheck: the model returned no outputs")
        found = tape.gradient([ys[k] for k in outputs], [xs[j] for j in wrt],
                              output_gradients=list(us) if us else None)
        present[:] = [k for k, g in enumerate(found) if g is not None]
        return [found[k] for k in present]

    return gradient, present


class VectorizedModel:
    def __init__(self, model, arrays, wrt, trace, promote: bool = True, seed: int = 0):
        self.wrt = list(wrt)
        specs = tuple(TensorSpec(a.shape, dtypes.as_dtype(a.dtype)) for a in arrays)
        key = (specs, tuple(self.wrt), promote)
        try:
            per_model = _CACHE.setdefault(model, {})
        except TypeError:  # not weak-referenceable: no cache
            per_model = {}
        if key not in per_model:
            per_model[key] = _Traced(model, specs, self.wrt, trace, promote)
        self.traced = traced = per_model[key]
        self.promote = promote
        self.arrays = [_promote_array(a) if promote else np.asarray(a) for a in arrays]
        floats = [a.dtype for a in self.arrays if a.dtype.kind in "fc"]
        self.eval_dtype = np.dtype(np.float64) if promote or not floats else floats[0]
        stats: dict = {}
        outs = traced.forward.run(self._args(traced.forward_captures), stats=stats, keep=True)
        self.base = traced.forward.values
        # per item of a batch: the largest value, and the input itself should a rule materialise it
        self.max_bytes = max(stats.get("max_bytes_per_item", 0), max((a.nbytes for a in self.arrays), default=0))
        self.rng = np.random.default_rng(seed)
        self.weights = {k: self.rng.standard_normal(outs[k][0].shape).astype(outs[k][0].dtype)
                        for k in traced.float_outputs}

    def _args(self, captured, arrays=None) -> list:
        arrays = self.arrays if arrays is None else arrays
        return [(a, False) for a in arrays] + [(np.asarray(v.read()), False) for v in captured]

    def gradients(self) -> list:
        """Tape gradients of L = Σ⟨u, y⟩ for each input in ``wrt`` (None where it has none)."""
        traced = self.traced
        if traced.grad is None:
            return [None] * len(self.wrt)
        us = [(self.weights[k], False) for k in traced.float_outputs]
        args = self._args([], self.arrays) + us + [(np.asarray(v.read()), False) for v in traced.grad_captures]
        results = [a for a, _ in traced.grad.run(args)]
        out: list = [None] * len(self.wrt)
        for k, g in zip(traced.grad_present, results):
            out[k] = np.broadcast_to(g, self.arrays[self.wrt[k]].shape)
        return out

    def _project(self, outs, batch: int) -> np.ndarray:
        total = np.zeros(batch, self.eval_dtype)
        for k in self.traced.float_outputs:
            y, batched = outs[k]
            if batched:  # an output that does not depend on the input is the same in every item
                total = total + (y.reshape(batch, -1) @ self.weights[k].reshape(-1)).real
        return total

    def _run_batch(self, j: int, stack, stats: dict | None = None) -> np.ndarray:
        args = self._args(self.traced.forward_captures)
        args[j] = (stack, True)
        outs = self.traced.forward.run(args, batch=stack.shape[0], base=self.base, stats=stats)
        return self._project(outs, stack.shape[0])

    def numerical_full(self, j: int, eps: float, chunk_bytes: int, tick=None) -> np.ndarray:
        """dL/dθ for every element of input ``j``: central differences, 2N evaluations in batches,
        each batch one ``SparseBatch`` of its elements' plus and minus perturbations."""
        theta = self.arrays[j]
        steps = relative_steps(theta, eps)
        n = steps.size
        first_stats: dict = {}

        def evaluate(s, e):
            index = np.arange(s, e)
            stack = SparseBatch(theta, np.concatenate([index, index])[:, None],
                                np.concatenate([steps.plus[s:e], steps.minus[s:e]])[:, None])
            values = self._run_batch(j, stack, first_stats if s == 0 else None)
            return values[:e - s], values[e - s:]

        def batch_sizes():
            # A first small batch measures the memory per item (small while the perturbations stay
            # sparse, the whole input once an op materialises them); it sizes the other batches.
            yield min(n, 16)
            per_item = max(first_stats.get("max_bytes_per_item", 0), self.max_bytes // 64, 64)
            yield from itertools.repeat(int(max(1, min(n, chunk_bytes // (2 * per_item), 1 << 14))))

        return central_differences(steps, evaluate, batch_sizes(), self.eval_dtype, tick).reshape(theta.shape)

    def direction(self, j: int) -> np.ndarray:
        return random_direction(self.rng, self.arrays[j])

    def numerical_directional(self, j: int, v: np.ndarray, eps: float) -> float:
        """dL/dθ · v by one central difference along v (two evaluations, one batch)."""
        return directional_difference(self.arrays[j], v, eps, lambda stack: self._run_batch(j, stack))


class _Traced:
    """The forward graph and the gradient graph of one model and input signature."""

    def __init__(self, model, specs, wrt, trace, promote):
        n = len(specs)

        func_op, module, self.forward_captures = trace(as_output_list(model), list(specs))
        self.forward = BatchedGraph(func_op, promote, module)
        result_types = list(func_op.function_type.outputs.data)
        out_specs = [TensorSpec(tf_types.shape_of(t), tf_types.dtype_of(t)) for t in result_types]
        self.float_outputs = [k for k, s in enumerate(out_specs) if s.dtype.is_differentiable]
        self.grad_present: list[int] = []
        if not self.float_outputs or not wrt:
            self.grad = None
            self.grad_captures = []
            return

        gradient, self.grad_present = gradient_function(model, n, wrt, self.float_outputs)
        grad_op, grad_module, self.grad_captures = trace(gradient, list(specs) + [out_specs[k] for k in
                                                                                  self.float_outputs])
        self.grad = BatchedGraph(grad_op, promote, grad_module)
