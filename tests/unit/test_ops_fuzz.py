"""Random shapes, dtypes and attributes fed to every op of the library, eagerly and traced:
an op either computes or raises one of tinytf's errors for bad input, never anything else, and never
InternalError (a kernel that fails on inputs its shape rule let through is a bug; TensorFlow's
security advisories are mostly kernels trusting their inputs)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.irdl import OptOperandDef, VarOperandDef

import tinytf as tt
from tinytf import dtypes
from tinytf.errors import InternalError, OpError
from tinytf.framework.kernel import set_allocation_limit
from tinytf.framework.op import REGISTRY, ResourceOp, calls_functions, has_trait

OPS = sorted(name for name, cls in REGISTRY.items()
             if name.startswith("tf.") and not has_trait(cls, ResourceOp) and calls_functions(cls) is None
             and (callable(getattr(cls, "compute", None)) or callable(getattr(cls, "kernel", None)))
             and "Call" not in name)
DTYPES = [dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.bool_, dtypes.int8, dtypes.float16]
STRINGS = ["NHWC", "NCHW", "SAME", "VALID", "EXPLICIT", "", "ij,jk->ik", "i,i->", "bad"]


def random_array(draw, dtype=None, shape=None):
    dtype = dtype or draw(st.sampled_from(DTYPES))
    shape = draw(st.lists(st.integers(0, 4), max_size=4)) if shape is None else shape
    values = np.random.default_rng(draw(st.integers(0, 2**16))).standard_normal(shape) * 4
    if draw(st.booleans()):
        values.flat[:1] = draw(st.sampled_from([np.nan, np.inf, -np.inf, 0.0, 1e30]))
    with np.errstate(all="ignore"):
        return values.astype(dtype.np)


def operand(draw, common_dtype, common_shape):
    """Mostly plausible operands (one dtype and shape for the data, small int32 indices), some wild."""
    kind = draw(st.sampled_from(["data", "data", "index", "wild"]))
    if kind == "data":
        return random_array(draw, common_dtype, common_shape)
    if kind == "index":
        shape = draw(st.sampled_from([(), (1,), (2,), (len(common_shape),), (4,)]))
        return np.asarray(draw(st.lists(st.integers(-2, 4), min_size=int(np.prod(shape)),
                                        max_size=int(np.prod(shape)))), np.int32).reshape(shape)
    return random_array(draw)


def attr_value(draw, kind):
    small_int = st.integers(-3, 5)
    strategies = {
        "bool": st.booleans(), "unit": st.booleans(), "int": small_int,
        "float": st.floats(-4, 4, allow_nan=False), "str": st.sampled_from(STRINGS),
        "ints": st.lists(small_int, max_size=4).map(tuple),
        "floats": st.lists(st.floats(-2, 2, allow_nan=False), max_size=3).map(tuple),
        "strs": st.lists(st.sampled_from(STRINGS), max_size=2).map(tuple),
        "type": st.sampled_from(DTYPES), "types": st.lists(st.sampled_from(DTYPES), max_size=3).map(tuple),
        "shape": st.one_of(st.none(), st.lists(st.integers(0, 4), max_size=3).map(tuple)),
        "shapes": st.lists(st.lists(st.integers(0, 3), max_size=2).map(tuple), max_size=2).map(tuple),
        "func": st.just("no_such_function"),
        "tensor": st.just(np.arange(3, dtype=np.float32)),
    }
    return draw(strategies.get(kind, st.none()))


@st.composite
def op_calls(draw, cls):
    inputs = []
    common_dtype = draw(st.sampled_from(DTYPES))
    common_shape = draw(st.lists(st.integers(0, 4), max_size=4))
    for _, definition in cls.get_irdl_definition().operands:
        count = draw(st.integers(0, 3)) if isinstance(definition, VarOperandDef | OptOperandDef) else 1
        inputs.extend(tt.constant(operand(draw, common_dtype, common_shape)) for _ in range(count))
    attrs = {name: attr_value(draw, spec.kind) for name, spec in cls.attr_specs().items()
             if draw(st.booleans()) or spec.derived}
    return inputs, attrs


@pytest.fixture(autouse=True)
def small_allocation_limit():
    previous = set_allocation_limit(64 << 20)  # random sizes must not be able to exhaust the machine
    yield
    set_allocation_limit(previous)


@pytest.mark.parametrize("name", OPS)
def test_random_inputs_raise_only_tinytf_errors(name):
    cls = REGISTRY[name]

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(op_calls(cls), st.booleans())
    def check(call, traced):
        inputs, attrs = call
        run = (lambda *xs: cls.bind(*xs, **attrs))
        try:
            with np.errstate(all="ignore"):
                (tt.function(run) if traced else run)(*inputs)
        except InternalError:
            raise
        except OpError:
            pass

    check()
