"""Buffer forwarding in the graph executor: elementwise kernels write into a dying input.

    Program(module).run("main", [x])     # tanh(exp(-x)) ... reuses one buffer down the chain

The executor frees each value after its last use (liveness), and ``Plan.run`` drops its slot
reference to a value *before* the step that reads it last, so the step's input list is the only
holder left: a reference count of one beyond the list, as ``OpKernelContext.forward_refusal``
checks (arguments the caller holds, constants of the plan and values read again later keep more
references and are never overwritten). An op whose class says how to write its result into a given
buffer — ``compute_into(out, *arrays)``, or ``UFUNC`` when compute is a numpy ufunc — runs as a
kernel that writes a forwarded or new output buffer, bit-identical to ``compute``, as TensorFlow's
``forward_input_or_allocate_output``.

``static_kernel`` is the same for a plan whose shapes are known when it is compiled (a function
traced by tinytf): the plan passes the operands as arguments, knows which of them die at the step,
and the kernel only checks that nobody else holds the buffer.
"""
from __future__ import annotations

import sys

import numpy as np

from tinytf.framework.kernel import check_allocation
from tinytf.runtime import dispatch

_getrefcount = sys.getrefcount
_ndarray = np.ndarray
_empty = np.empty


ENABLED = True  # False compiles plans without forwarding (benchmarks and tests compare the two)


def writer(cls):
    """``write(arrays, out)``: the op's compute into ``out`` (float dtypes), or None when its class
    does not say how."""
    if not ENABLED:
        return None
    into = getattr(cls, "compute_into", None)
    if into is not None:
        return lambda arrays, out: into(out, *arrays)
    ufunc = getattr(cls, "UFUNC", None)
    if ufunc is not None:
        return lambda arrays, out: ufunc(*arrays, out=out)
    return None


def forwarding_kernel(cls, attrs, fallback):
    """A step runner for op class ``cls`` that forwards a dying input to its output, or None when the
    class does not say how to write into a buffer. Inputs that are not same-dtype float arrays go to
    ``fallback``."""
    write = writer(cls)
    if write is None:
        return None
    name, info = cls.name, dispatch.op_info(cls)
    results: dict = {}  # (dtype, input shapes) -> (result shape, is it an input's shape), per signature

    def run(arrays):
        first = arrays[0]
        dtype = getattr(first, "dtype", None)
        if dtype is None or dtype.kind != "f" or any(type(a) is not _ndarray or a.dtype != dtype for a in arrays):
            return fallback(arrays)
        key = (dtype, first.shape) if len(arrays) == 1 else (dtype, *[a.shape for a in arrays])
        found = results.get(key)
        if found is None:  # the op's shape rule, once per input signature, as the generic runner does
            dts = dispatch.result_dtypes(dispatch.infer(info, arrays, attrs))
            if dts and dts[0] is not None and dts[0] != dtype:
                return fallback(arrays)
            shapes = key[1:]
            shape = shapes[0] if all(s == shapes[0] for s in shapes) else np.broadcast_shapes(*shapes)
            found = (shape, shape in shapes)
            if len(results) < 64:
                results[key] = found
        shape, an_input_shape = found
        del first
        # TensorFlow's forward_input_or_allocate_output, inline: a dying input of the result's shape
        # that owns its writable C-contiguous buffer, referenced by ``arrays``, ``a`` and getrefcount only
        out = None
        if an_input_shape:
            for a in arrays:
                if a.shape == shape and a.base is None and _getrefcount(a) <= 3 and a.flags.c_contiguous \
                        and a.flags.writeable:
                    out = a
                    break
            a = None
        if out is None:
            if not an_input_shape:  # a broadcast result larger than any input: the allocation guard
                check_allocation(name, shape, dtype)
            out = _empty(shape, dtype)
        write(arrays, out)
        return [out]

    return run


def _dying_refs() -> int:
    """The reference count a kernel sees on an argument only the calling plan's local holds."""
    def kernel(a):
        return _getrefcount(a)

    value = _empty(1)
    return kernel(value)


DYING = _dying_refs()


def static_kernel(cls, shapes: list, shape: tuple, dtype, dying: set):
    """``run(*arrays) -> array`` for op class ``cls`` on float operands of known ``shapes`` and ``dtype``
    giving ``shape``, or None when the class does not say how to write into a buffer. Operands at
    positions ``dying`` are read for the last time: one of the result's shape becomes the output when
    nothing but the plan's local holds it (ops of one or two operands)."""
    write = writer(cls)
    if write is None or len(shapes) not in (1, 2):
        return None
    ufunc = getattr(cls, "UFUNC", None)
    candidates = [i for i in sorted(dying) if shapes[i] == shape] if shape else []
    if not candidates:
        if ufunc is not None and shape:
            return ufunc  # a fresh result: the ufunc itself (same dtypes in, same dtype out)

        def fresh(*arrays):
            out = _empty(shape, dtype)
            write(arrays, out)
            return out

        return fresh
    first = 0 in candidates
    second = 1 in candidates
    if len(shapes) == 1:
        def unary(a):
            if type(a) is _ndarray and a.base is None and _getrefcount(a) <= DYING and a.flags.c_contiguous \
                    and a.flags.writeable:
                out = a
            else:
                out = _empty(shape, dtype)
            if ufunc is not None:
                ufunc(a, out=out)
            else:
                write((a,), out)
            return out

        return unary

    def binary(a, b):
        if first and type(a) is _ndarray and a.base is None and _getrefcount(a) <= DYING \
                and a.flags.c_contiguous and a.flags.writeable:
            out = a
        elif second and type(b) is _ndarray and b.base is None and _getrefcount(b) <= DYING \
                and b.flags.c_contiguous and b.flags.writeable:
            out = b
        else:
            out = _empty(shape, dtype)
        if ufunc is not None:
            ufunc(a, b, out=out)
        else:
            write((a, b), out)
        return out

    return binary
