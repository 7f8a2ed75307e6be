"""Buffer forwarding in the graph executor: elementwise kernels write into a dying input.

    Program(module).run("main", [x])     # tanh(exp(-x)) ... reuses one buffer down the chain

The executor frees each value after its last use (liveness), and ``Plan.run`` drops its slot
reference to a value *before* the step that reads it last, so the step's input list is the only
holder left: ``OpKernelContext.forward_refusal`` then sees a reference count of one (arguments the
caller holds, constants of the plan and values read again later keep more references and are
never overwritten). ``FORWARDING_KERNELS``: ops whose ``compute`` is one numpy ufunc run as a
kernel that asks the context for a forwarded output buffer and writes it with ``out=``,
bit-identical to ``compute``, as TensorFlow's ``forward_input_or_allocate_output``.
"""
from __future__ import annotations

import numpy as np

from tinytf.framework.kernel import OpKernelContext
from tinytf.runtime import dispatch


def _ufunc(fn):
    return lambda arrays, out: fn(*arrays, out=out)


def _square(arrays, out):
    np.multiply(arrays[0], arrays[0], out=out)


def _relu(arrays, out):
    np.maximum(arrays[0], np.zeros((), arrays[0].dtype), out=out)


# op name -> writer(arrays, out): the op's compute, written into ``out`` (float dtypes only)
FORWARDING_KERNELS = {
    "tf.AddV2": _ufunc(np.add), "tf.Sub": _ufunc(np.subtract), "tf.Mul": _ufunc(np.multiply),
    "tf.RealDiv": _ufunc(np.divide), "tf.Maximum": _ufunc(np.maximum), "tf.Minimum": _ufunc(np.minimum),
    "tf.Neg": _ufunc(np.negative), "tf.Abs": _ufunc(np.absolute), "tf.Sign": _ufunc(np.sign),
    "tf.Sqrt": _ufunc(np.sqrt), "tf.Reciprocal": _ufunc(np.reciprocal), "tf.Floor": _ufunc(np.floor),
    "tf.Ceil": _ufunc(np.ceil), "tf.Exp": _ufunc(np.exp), "tf.Log": _ufunc(np.log), "tf.Log1p": _ufunc(np.log1p),
    "tf.Sin": _ufunc(np.sin), "tf.Cos": _ufunc(np.cos), "tf.Tanh": _ufunc(np.tanh),
    "tf.Square": _square, "tf.Relu": _relu,
}


def forwarding_kernel(name: str, info, attrs, fallback):
    """A step runner for ``name`` that forwards a dying input to its output, or None when the op has
    no forwarding kernel. Inputs that are not same-dtype float arrays go to ``fallback``."""
    write = FORWARDING_KERNELS.get(name)
    if write is None:
        return None
    cache: dict = {}

    def run(arrays):
        first = arrays[0]
        dtype = getattr(first, "dtype", None)
        if dtype is None or dtype.kind != "f" or any(type(a) is not np.ndarray or a.dtype != dtype for a in arrays):
            return fallback(arrays)
        key = dispatch.signature(arrays)
        if key not in cache:  # the op's shape rule, once per input signature, as the generic runner does
            dts = dispatch.result_dtypes(dispatch.infer(info, arrays, attrs))
            if dts and dts[0] is not None and dts[0] != dtype:
                return fallback(arrays)
            cache[key] = True
        shape = first.shape if len(arrays) == 1 else np.broadcast_shapes(*[a.shape for a in arrays])
        del first
        ctx = OpKernelContext(name, arrays, 1)  # keeps ``arrays`` itself: the dying buffers' only holder
        out, _ = ctx.forward_input_or_allocate_output(range(len(arrays)), 0, shape, dtype)
        write(arrays, out)
        return ctx.outputs

    return run
