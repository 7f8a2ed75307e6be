"""Gradient checking: TensorFlow's numerical checker, and a vectorised one that is much faster.

TensorFlow's semantics (``tensorflow/c/experimental/gradients/grad_test_helper.cc``):

    g = calc_numerical_grad(model, [x, y], input_index=0)            # central differences, x's shape
    compare_numerical_and_autodiff_gradients(model, [x, y], abs_error=1e-2)   # AssertionError if off

A model is a callable taking tensors and returning a tensor or a list of tensors; the first
output, summed over all its elements, is what is differentiated. ``use_function=True`` traces
the model (and, for the autodiff side, the tape computing its gradient) with ``tt.function``.

Beyond TensorFlow, ``check_gradients(model, inputs, mode="full"|"fast", backend="numpy"|"xla")``
traces the model once, in float64 by default, and evaluates all the perturbed inputs of an
input in batches instead of one model call per element:

- ``backend="numpy"``: the traced graph runs over batches with numpy kernels
  (``tinytf/autodiff/batching.py``, a vmap for numpy), the perturbations kept sparse so each
  costs what it changes (``tinytf/autodiff/sparse_batch.py``); plan in ``autodiff/vectorized.py``;
- ``backend="xla"``: the graph lowered by ``tinytf.xla`` and ``jax.vmap``-ed over dense stacks;
- ``mode="fast"``: a random projection uᵀJv, two model evaluations per input.

Every path takes its steps and quotients from one core, ``tinytf/autodiff/central_differences.py``:
TensorFlow's checker calls the model once per perturbation, the vectorised ones evaluate batches.

    report = check_gradients(model, [x, w])          # AssertionError naming each element off
    print(report)                                     # a table (tinytf/autodiff/check_report.py)
"""
from __future__ import annotations

import itertools
import time
import weakref

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.autodiff.central_differences import (
    central_differences,
    directional_difference,
    perturbed,
    random_direction,
    relative_steps,
    tensorflow_steps,
)
from tinytf.autodiff.check_report import CheckReport, InputResult, Mismatch, compare_elements
from tinytf.autodiff.vectorized import VectorizedModel, as_output_list, gradient_function
from tinytf.ops.array import constant
from tinytf.ops.reduction import reduce_sum

__all__ = ["calc_numerical_grad", "compare_numerical_and_autodiff_gradients", "check_gradients",
           "autodiff_gradients", "CheckReport", "Mismatch"]


# --- TensorFlow's semantics ---------------------------------------------------------------------

def _first(outputs):
    if isinstance(outputs, (list, tuple)):
        if not outputs:
            raise ValueError("gradcheck: the model returned no outputs")
        return outputs[0]
    return outputs


def _summed_first_output(model):
    """TensorFlow's RunAndMaybeSum: the first output, summed over all its elements when rank > 0."""

    def summed(*xs):
        y = _first(model(*xs))
        return reduce_sum(y) if y.shape is None or len(y.shape) else y

    return summed


def _as_tensor(x):
    if hasattr(x, "numpy") and hasattr(x, "dtype"):
        return x
    return constant(np.asarray(x))


def _numpy(x) -> np.ndarray:
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _maybe_function(fn, use_function: bool):
    if not use_function:
        return fn
    from tinytf.function import function

    return function(fn)


def calc_numerical_grad(model, inputs, input_index: int, use_function: bool = False):
    """d(sum of the model's first output)/d inputs[input_index] by central differences.

    Each element θᵢ is moved by ε = |θᵢ|·1e-4 (1e-4 where θᵢ = 0) in θ's dtype, and the result
    is (f(θ+ε) - f(θ-ε)) / 2ε, computed in θ's dtype, as TensorFlow's ``CalcNumericalGrad``.
    Returns a tensor of θ's shape and dtype.
    """
    tensors = [_as_tensor(x) for x in inputs]
    run = _maybe_function(_summed_first_output(model), use_function)
    theta = _numpy(tensors[input_index])
    if theta.dtype.kind not in "fc":
        raise ValueError(f"calc_numerical_grad: input {input_index} has dtype {theta.dtype}, not a float")
    flat, steps, args = theta.reshape(-1), tensorflow_steps(theta), list(tensors)

    def evaluate(start, stop):  # one model call per perturbation, as TensorFlow
        at_plus, at_minus = [], []
        for i in range(start, stop):
            for moved, values in ((steps.plus, at_plus), (steps.minus, at_minus)):
                args[input_index] = constant(perturbed(flat, i, moved[i]).reshape(theta.shape))
                values.append(_numpy(run(*args)))
        return np.array(at_plus), np.array(at_minus)

    out = central_differences(steps, evaluate, [steps.size], theta.dtype)  # the quotients in one batch
    return constant(out.reshape(theta.shape))


def autodiff_gradients(model, inputs, use_function: bool = False, sources=None) -> list:
    """Tape gradients of the summed first output for each input (None where it has none)."""
    tensors = [_as_tensor(x) for x in inputs]
    indices = list(range(len(tensors))) if sources is None else list(sources)
    grads, present = gradient_function(model, len(tensors), indices, outputs=[0])
    results = _maybe_function(grads, use_function)(*tensors) if indices else []
    if not isinstance(results, (list, tuple)):
        results = [results]
    out: list = [None] * len(tensors)
    for k, g in zip(present, results):
        out[indices[k]] = _numpy(g)
    return out


def compare_numerical_and_autodiff_gradients(model, inputs, use_function: bool = False,
                                              abs_error: float = 1e-2) -> CheckReport:
    """Compare tape and numerical gradients element-wise within ``abs_error``, as TensorFlow.

    Inputs without a gradient (integer labels, unconnected inputs) are skipped. Returns the
    report; raises AssertionError listing every mismatch (input, element, numerical, autodiff,
    difference) when any element is off.
    """
    start = time.perf_counter()
    tensors = [_as_tensor(x) for x in inputs]
    analytic = autodiff_gradients(model, tensors, use_function)
    report = CheckReport(mode="tensorflow", use_function=use_function, atol=abs_error)
    for i, (x, g) in enumerate(zip(tensors, analytic)):
        shape = tuple(_numpy(x).shape)
        if g is None:
            report.inputs.append(InputResult(i, shape, x.dtype.name, skipped="no gradient"))
            continue
        numerical = _numpy(calc_numerical_grad(model, tensors, i, use_function))
        result = compare_elements(i, shape, x.dtype.name, numerical, g, atol=abs_error, rtol=0.0)
        report.inputs.append(result)
    report.seconds = time.perf_counter() - start
    if not report.ok:
        raise AssertionError(report.failure_message())
    return report


# --- beyond TensorFlow: the vectorised checker ----------------------------------------------------

def check_gradients(model, inputs, mode: str = "full", backend: str = "numpy", atol: float | None = None,
                    rtol: float | None = None, eps: float | None = None, wrt=None, promote: bool = True,
                    seed: int = 0, chunk_bytes: int = 4 << 20, progress=None,
                    raise_exception: bool = True) -> CheckReport:
    """Check the model's tape gradients against finite differences, vectorised.

    ``mode="full"``: every element of every checked input; the perturbed inputs are evaluated
    as batches through the traced graph (``chunk_bytes`` bounds a batch's largest value).
    ``mode="fast"``: for each input, one random direction v and random output weights u:
    uᵀJv numerically (two model evaluations) against ⟨tape gradient, v⟩.

    All float outputs are projected with random weights u (fixed by ``seed``), so errors that
    cancel in a plain sum are still caught. ``promote``: evaluate float32/float16 models in
    float64. ``wrt``: the input indices to check (default: every float input). Element (or
    projection) i passes when |numerical - autodiff| <= atol + rtol * |autodiff|. ``progress``:
    called as ``progress(done, total)`` after each batch. Raises AssertionError on a mismatch
    unless ``raise_exception`` is false.
    """
    if mode not in ("full", "fast"):
        raise ValueError(f"check_gradients: mode must be 'full' or 'fast', got {mode!r}")
    if backend not in ("numpy", "xla"):
        raise ValueError(f"check_gradients: backend must be 'numpy' or 'xla', got {backend!r}")

    start = time.perf_counter()
    arrays = [_numpy(x) for x in inputs]
    if wrt is None:
        wrt = [i for i, a in enumerate(arrays) if a.dtype.kind in "fc" or a.dtype == dtypes.bfloat16.np]
    if backend == "xla":
        vm = XlaModel(model, arrays, wrt, promote=promote, seed=seed)
    else:
        vm = VectorizedModel(model, arrays, wrt, trace=_trace, promote=promote, seed=seed)
    wide = vm.eval_dtype.itemsize >= 8
    eps = eps if eps is not None else (1e-6 if wide else 1e-3)
    atol = atol if atol is not None else (1e-5 if wide else 1e-2)
    rtol = rtol if rtol is not None else (1e-3 if wide else 1e-2)
    analytic = vm.gradients()
    report = CheckReport(mode=mode, backend=backend, eval_dtype=vm.eval_dtype.name, atol=atol, rtol=rtol)
    total = sum(arrays[j].size for j in wrt) if mode == "full" else len(wrt)
    done = 0
    for k, j in enumerate(wrt):
        a = arrays[j]
        name = dtypes.as_dtype(a.dtype).name
        if analytic[k] is None:
            report.inputs.append(InputResult(j, a.shape, name, skipped="no gradient"))
            done += a.size if mode == "full" else 1
            continue
        if mode == "full":
            def tick(n, _base=done):
                if progress is not None:
                    progress(_base + n, total)
            numerical = vm.numerical_full(j, eps, chunk_bytes, tick)
            report.inputs.append(compare_elements(j, a.shape, name, numerical, analytic[k], atol=atol, rtol=rtol))
            done += a.size
        else:
            v = vm.direction(j)
            numerical = vm.numerical_directional(j, v, eps)
            projected = np.vdot(analytic[k].reshape(-1), v.reshape(-1)).real
            result = compare_elements(j, a.shape, name, np.asarray([numerical]), np.asarray([projected]),
                                      atol=atol, rtol=rtol, projection=True)
            report.inputs.append(result)
            done += 1
            if progress is not None:
                progress(done, total)
    report.seconds = time.perf_counter() - start
    if raise_exception and not report.ok:
        raise AssertionError(report.failure_message())
    return report


def _trace(fn, specs):
    """Trace ``fn`` with ``tt.function``: (func.func, its module, the captured variables)."""
    from tinytf.function import function

    cf = function(fn, name="gradcheck").get_concrete_function(*specs)
    return cf.function, cf.module, cf.captured_variables


# --- backend="xla": the same checks, the model lowered to JAX and vmapped over the perturbations --

_XLA_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _XlaTraced:
    """One model and signature, traced and lowered once; jitted functions cached by batch size."""

    def __init__(self, model, arrays, wrt):
        import jax

        from tinytf.function import function

        self.jax = jax
        specs = [_spec_of(a) for a in arrays]
        self.forward = _lowered(function(as_output_list(model), name="gradcheck").get_concrete_function(*specs))
        with jax.enable_x64(True):
            outs = self.forward(*arrays)
        self.out_specs = [_spec_of(np.asarray(o)) for o in outs]
        self.float_outputs = [k for k, o in enumerate(self.out_specs) if o.dtype.kind in "fc"]
        fn, self.present = gradient_function(model, len(arrays), wrt, self.float_outputs)
        grad_specs = specs + [self.out_specs[k] for k in self.float_outputs]
        cf = function(fn, name="gradcheck_grad").get_concrete_function(*grad_specs)
        from tinytf.xla import XlaFunction

        # XlaFunction, not a bare jit: gradient rules read shapes (tf.Shape -> tf.Reshape), which
        # it compiles by taking the arguments whose values are needed as constants
        xla_fn, captured = XlaFunction(cf.module, cf.name, donate=False), list(cf.captured_variables)
        self.grad = lambda *args: xla_fn(*args, *captured)
        self.batched: dict = {}

    def projected(self, j: int):
        """vmap over input j's perturbations of Σₖ⟨uₖ, yₖ⟩; the other inputs and u are arguments."""
        fn = self.batched.get(j)
        if fn is None:
            jax, forward, outputs = self.jax, self.forward, self.float_outputs

            def one(theta, others, weights):
                outs = forward(*others[:j], theta, *others[j + 1:])
                return sum((outs[k] * w).sum() for k, w in zip(outputs, weights))

            fn = self.batched[j] = jax.jit(jax.vmap(one, in_axes=(0, None, None)))
        return fn


def _spec_of(a):
    from tinytf.framework.tensor_spec import TensorSpec

    return TensorSpec(np.shape(a), dtypes.as_dtype(np.asarray(a).dtype))


def _lowered(cf):
    from tinytf.xla import Lowering, Resource

    lowering = Lowering(cf.module)
    captured = [Resource(np.asarray(v.read()), v.dtype, v.name) for v in cf.captured_variables]
    return lambda *xs: lowering.call(cf.name, list(xs) + captured)


class XlaModel:
    """``check_gradients(backend="xla")``: the model traced (in float64 when promoting: XLA keeps
    the traced dtypes), lowered through ``tinytf.xla`` to JAX, and ``jax.vmap``-ed over stacks of
    perturbed inputs, compiled once per model, signature and batch size."""

    def __init__(self, model, arrays, wrt, promote: bool = True, seed: int = 0):
        from tinytf.errors import OpError

        self.wrt = list(wrt)
        wide = [np.asarray(a, np.float64) if promote and np.asarray(a).dtype.kind == "f" else np.asarray(a)
                for a in arrays]
        try:
            traced = self._traced(model, wide)
        except OpError:  # the model fixes its dtypes (float32 constants): evaluate in those
            wide = [np.asarray(a) for a in arrays]
            traced = self._traced(model, wide)
        self.traced, self.arrays, self.jax = traced, wide, traced.jax
        floats = [a.dtype for a in wide if a.dtype.kind in "fc"]
        self.eval_dtype = floats[0] if floats else np.dtype(np.float64)
        self.rng = np.random.default_rng(seed)
        self.weights = [self.rng.standard_normal(traced.out_specs[k].shape).astype(traced.out_specs[k].dtype.np)
                        for k in traced.float_outputs]

    def _traced(self, model, arrays):
        key = (tuple((a.shape, a.dtype.str) for a in arrays), tuple(self.wrt))
        try:
            per_model = _XLA_CACHE.setdefault(model, {})
        except TypeError:
            per_model = {}
        if key not in per_model:
            per_model[key] = _XlaTraced(model, arrays, self.wrt)
        return per_model[key]

    def gradients(self) -> list:
        with self.jax.enable_x64(True):
            results = self.traced.grad(*self.arrays, *self.weights)
        out: list = [None] * len(self.wrt)
        for k, g in zip(self.traced.present, results):
            out[k] = np.asarray(g)
        return out

    def _run(self, j: int, stack: np.ndarray) -> np.ndarray:
        with self.jax.enable_x64(True):
            return np.asarray(self.traced.projected(j)(stack, self.arrays, self.weights))

    def numerical_full(self, j: int, eps: float, chunk_bytes: int, tick=None) -> np.ndarray:
        """Central differences over dense stacks of ``chunk`` plus and ``chunk`` minus perturbations."""
        theta = self.arrays[j]
        flat = theta.reshape(-1)
        n = flat.size
        steps = relative_steps(theta, eps)
        chunk = int(max(1, min(n, chunk_bytes // (2 * max(theta.nbytes, 1)))))
        stack = np.empty((2 * chunk, n), theta.dtype)
        stack[:] = flat
        rows = np.arange(chunk)

        def evaluate(s, e):  # every batch has the same size (the last one padded): one compilation
            idx = np.minimum(s + rows, n - 1)
            stack[rows, idx] = steps.plus[idx]
            stack[chunk + rows, idx] = steps.minus[idx]
            values = self._run(j, stack.reshape((2 * chunk,) + theta.shape))
            stack[rows, idx] = flat[idx]
            stack[chunk + rows, idx] = flat[idx]
            return values[:e - s], values[chunk:chunk + e - s]

        return central_differences(steps, evaluate, itertools.repeat(chunk), np.float64, tick).reshape(theta.shape)

    def direction(self, j: int) -> np.ndarray:
        return random_direction(self.rng, self.arrays[j])

    def numerical_directional(self, j: int, v: np.ndarray, eps: float) -> float:
        return directional_difference(self.arrays[j], v, eps, lambda stack: self._run(j, stack))
