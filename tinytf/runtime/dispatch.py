"""Running one op on numpy arrays: what eager mode and the graph executor share.

    info = op_info(AddV2)
    outs = run_kernel(info, [x, y], attrs)     # validated by the op's shape rule, then computed

``op_info`` caches what dispatch needs to know about an op class (its compute or kernel, how many
results it has, completed attrs per attrs key), so the per-op cost stays a few dict lookups.
"""
from __future__ import annotations

import functools

import numpy as np
from xdsl.irdl import VarResultDef

import tinytf.dtypes as dtypes
from tinytf.errors import InternalError, OpError, ResourceExhaustedError, UnimplementedError
from tinytf.framework.kernel import OpKernelContext
from tinytf.framework.op import Elementwise, ResourceOp, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable

_INFO: dict = {}


class OpInfo:
    """What dispatch needs to know about one op class, computed once."""

    __slots__ = ("cls", "name", "compute", "kernel", "infer", "single", "elementwise", "resource",
                 "has_attrs", "ok_dtypes", "attrs_cache", "arity", "fast", "fast_floats_only", "infer_cache")

    def __init__(self, cls):
        self.cls = cls
        self.name = cls.name
        self.compute = getattr(cls, "compute", None)
        self.kernel = getattr(cls, "kernel", None)
        self.infer = getattr(cls, "infer", None)
        results = cls.get_irdl_definition().results
        operands = cls.get_irdl_definition().operands
        self.single = len(results) == 1 and not isinstance(results[0][1], VarResultDef)
        self.arity = len(operands)
        self.elementwise = has_trait(cls, Elementwise)
        self.resource = has_trait(cls, ResourceOp)
        self.has_attrs = bool(cls.__tf_attrs__)
        self.ok_dtypes: set = set()  # input dtypes for which the eager fast path is known to be right
        self.attrs_cache: dict = {}
        self.infer_cache: dict = {}  # eager: (attrs key, input signature) -> the shape rule's result
        # The eager fast path: elementwise ops without attributes, called on arrays alone: the op's
        # UFUNC itself (compute on float arrays, so admitted for float dtypes only), else its compute.
        self.fast = self.fast_floats_only = None
        if self.elementwise and not self.has_attrs and self.kernel is None and self.compute is not None:
            ufunc = getattr(cls, "UFUNC", None)
            self.fast = ufunc if ufunc is not None else functools.partial(self.compute, np)
            self.fast_floats_only = ufunc is not None

    def complete(self, attrs: dict) -> dict:
        """``attrs`` with defaults filled in, cached by the attrs' values when they are hashable."""
        return self.complete_keyed(attrs)[1]

    def complete_keyed(self, attrs: dict) -> tuple:
        """(a hashable key of ``attrs`` or None, the completed attrs)."""
        try:
            key = tuple(attrs.items())
            done = self.attrs_cache.get(key)
        except TypeError:  # an unhashable value (a Const's array): complete every time
            return None, self.cls.complete_attrs(attrs)
        if done is None:
            done = self.cls.complete_attrs(attrs)
            if len(self.attrs_cache) < 256:
                self.attrs_cache[key] = done
        return key, done


def op_info(cls) -> OpInfo:
    info = _INFO.get(cls)
    if info is None:
        info = _INFO[cls] = OpInfo(cls)
    return info


_new_spec = TensorSpec.__new__
_as_dtype = dtypes.as_dtype


def spec_of(value) -> TensorSpec:
    """A TensorSpec of a run-time value (array or Variable) that carries the value itself."""
    if isinstance(value, Variable):
        return TensorSpec((), dtypes.resource, value=value)
    spec = _new_spec(TensorSpec)  # the array's shape is already a tuple of ints: skip normalising it
    spec.shape = value.shape
    spec.dtype = _as_dtype(value.dtype)
    spec.name = None
    spec.value = value
    return spec


# Integer operands up to this many elements are part of the shape-rule cache key: shape rules
# read such values (Reshape's shape, Sum's axes, StridedSlice's begin/end, Pad's paddings).
_SMALL = 64


def signature(arrays) -> tuple | None:
    """A hashable key of what a shape rule may depend on: shapes, dtypes, small integer values."""
    key = []
    for a in arrays:
        if isinstance(a, Variable):
            key.append((id(a), a.shape))
            continue
        dt = a.dtype
        if dt.kind in "iub" and a.size <= _SMALL:
            key.append((a.shape, dt, a.tobytes()))
        elif dt.kind in "iub":
            return None  # large integer operands (gather indices): check every time
        else:
            key.append((a.shape, dt))
    return tuple(key)


def cached_infer(info: OpInfo, arrays, attrs, cache: dict, attrs_key=()):
    """``infer``, remembered per input signature: a rule that accepted these shapes, dtypes and small
    integer values accepts them again (float values never change a shape rule's verdict)."""
    try:
        key = (attrs_key, signature(arrays))
        if key[1] is None:
            return infer(info, arrays, attrs)
        return cache[key]
    except KeyError:
        specs = infer(info, arrays, attrs)
        if len(cache) < 64:
            cache[key] = _strip(specs)  # no values: the cache must not keep arrays alive
        return specs


def _strip(specs):
    if isinstance(specs, TensorSpec):
        return TensorSpec(specs.shape, specs.dtype) if specs.value is not None else specs
    if isinstance(specs, list):
        return [_strip(s) for s in specs]
    return specs


def fmt_shapes(values) -> str:
    parts = []
    for v in values:
        if isinstance(v, Variable):
            parts.append("resource")
        else:
            parts.append("[" + ",".join(str(d) for d in np.shape(v)) + "]")
    return ", ".join(parts)


def infer(info: OpInfo, arrays, attrs):
    """The op's shape rule on run-time values: a TensorSpec, a list of them, or None if it has none."""
    if info.infer is None:
        return None
    return info.infer(*[spec_of(a) for a in arrays], **attrs)


def compute(info: OpInfo, arrays, attrs, resources=None) -> list:
    """Run the op's kernel or compute on arrays; a list of output arrays. Errors name the op."""
    try:
        if info.kernel is not None:
            ctx = OpKernelContext(info.name, arrays, 0, resources)
            info.kernel(ctx, **attrs)
            return ctx.outputs
        if info.compute is None:
            raise UnimplementedError(f"{info.name} has no kernel: the op is not implemented", info.name)
        out = info.compute(np, *arrays, **attrs)
    except OpError:
        raise
    except Exception as err:
        raise kernel_failure(info.name, err, arrays) from err
    if isinstance(out, tuple | list):
        return list(out)
    return [out]


def kernel_failure(op_name: str, err: Exception, arrays) -> OpError:
    """What a kernel's unexpected exception means: out of memory is ResourceExhaustedError; anything
    else is a bug in tinytf, not the user's bad input (shape rules raise InvalidArgumentError before
    a kernel runs): InternalError naming the op. Raise it ``from err`` to keep the traceback."""
    if isinstance(err, MemoryError):
        return ResourceExhaustedError(f"{op_name}: out of memory with inputs {fmt_shapes(arrays)}", op_name)
    return InternalError(f"{op_name}: the kernel failed on inputs {fmt_shapes(arrays)}: {type(err).__name__}: {err}",
                         op_name)


def conform(outs: list, specs) -> list:
    """Give the outputs the dtypes the shape rule promised (numpy sometimes promotes)."""
    if specs is None:
        return outs
    if isinstance(specs, TensorSpec):
        specs = [specs]
    for i, (out, spec) in enumerate(zip(outs, specs)):
        if spec is not None and spec.dtype.kind != "o" and getattr(out, "dtype", None) != spec.dtype.np:
            outs[i] = np.asarray(out, dtype=spec.dtype.np)
    return outs


def run_kernel(info: OpInfo, arrays, attrs, resources=None, cache: dict | None = None) -> list:
    """Shape rule, then kernel, then dtype conformance: the checked path for one op."""
    specs = infer(info, arrays, attrs) if cache is None else cached_infer(info, arrays, attrs, cache)
    return conform(compute(info, arrays, attrs, resources), specs)


def result_dtypes(specs) -> tuple:
    """The numpy dtypes a shape rule promises (None where it promises none, or for resources)."""
    if specs is None:
        return ()
    if isinstance(specs, TensorSpec):
        specs = [specs]
    return tuple(None if s is None or s.dtype.kind == "o" else s.dtype.np for s in specs)
