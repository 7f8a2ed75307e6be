"""Fake quantization: float32 values rounded to the grid of ``num_bits``-bit integers spanning
[min, max], as quantization-aware training simulates int8 inference (``tf.quantization.fake_quant_*``).

    %y = "tf.FakeQuantWithMinMaxArgs"(%x) <{max = 1.0 : f32, min = -1.0 : f32, num_bits = 8 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
    %y = "tf.FakeQuantWithMinMaxVars"(%x, %min, %max) : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    %y = "tf.FakeQuantWithMinMaxVarsPerChannel"(%x, %min, %max) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>

TensorFlow first nudges [min, max] so that 0.0 is exactly on the grid (the zero point is an integer),
then clamps to the nudged range and rounds. Gradients pass straight through inside the nudged range;
min and max collect the gradient of the values clamped at them (the *Gradient ops).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape


def _as_is(value, like=None):
    return value


def nudge(xp, min_, max_, num_bits: int, narrow_range: bool, kept=_as_is, steps=_as_is):
    """(nudged min, nudged max, scale): the range moved so its zero point is a whole number, in float32.
    ``kept`` and ``steps`` are identities but under XLA (see ``fake_quantize_xla``)."""
    f32 = np.float32
    qmin, qmax = f32(1 if narrow_range else 0), f32((1 << num_bits) - 1)
    min_, max_ = xp.asarray(min_, f32), xp.asarray(max_, f32)
    scale = kept((max_ - min_) / steps(qmax - qmin, max_))
    zero_from_min = kept(qmin - kept(min_ / scale))
    zero = xp.where(zero_from_min < qmin, qmin, xp.where(zero_from_min > qmax, qmax, xp.floor(zero_from_min + f32(0.5))))
    return kept((qmin - zero) * scale), kept((qmax - zero) * scale), scale


def fake_quantize(xp, x, nudged_min, nudged_max, scale, kept=_as_is):
    """TensorFlow's kernel arithmetic: grid steps counted from the zero point, so 0.0 stays exactly 0.0."""
    half, inverse = np.float32(0.5), kept(np.float32(1) / scale)
    zero = xp.floor(kept(-nudged_min * inverse) + half)
    shifted = kept(xp.clip(x, nudged_min, nudged_max) - nudged_min)
    return (xp.floor(kept(kept(shifted * inverse) - zero) + half) * scale).astype(np.float32)


def fake_quantize_xla(x, low, high, num_bits, narrow_range):
    """fake_quantize under XLA, rounding as TensorFlow's kernel does: XLA rewrites float arithmetic
    (a multiply feeding an add becomes one fused multiply-add on CPU; ``x / c`` becomes ``x * (1/c)``,
    ``a / (b / c)`` becomes ``a * c / b``), and a value on a rounding boundary would move a whole grid
    step. Each intermediate is ``kept``: passed through a select (``p == p ? p : NaN``, which is ``p``)
    that no rewrite looks through (an optimization barrier or reduce_precision does not stop them); the
    step count is made a run-time value (``0 * max + 255``) so the division stays a division."""
    import jax.numpy as jnp

    def kept(p, like=None):
        return jnp.where(p == p, p, np.float32(np.nan))

    def steps(n, like):
        return jnp.where(jnp.isfinite(like), like * np.float32(0), np.float32(0)) + n

    return fake_quantize(jnp, x, *nudge(jnp, low, high, num_bits, narrow_range, kept, steps), kept=kept)


def _check_num_bits(num_bits: int) -> None:
    if not 2 <= num_bits <= 16:
        v.fail("requires num_bits to be between 2 and 16, inclusive")


def _kernel_checks(op_name: str, num_bits: int) -> None:
    if not 2 <= num_bits <= 16:
        raise InvalidArgumentError(f"{op_name}: num_bits must be between 2 and 16, inclusive, got {num_bits}", op_name)


def _float32(op_name: str, *specs: TensorSpec) -> None:
    for spec in specs:
        if spec.dtype is not dtypes.float32:
            raise InvalidArgumentError(f"{op_name}: expects float32 tensors, got {spec.dtype.name}", op_name)


def _range_shape(op_name: str, spec: TensorSpec, want: tuple, what: str) -> None:
    if spec.shape is not None and (len(spec.shape) != len(want) or
                                   any(a is not None and b is not None and a != b for a, b in zip(spec.shape, want))):
        raise InvalidArgumentError(f"{op_name}: {what} must have shape {fmt_shape(want)}, got "
                                   f"{fmt_shape(spec.shape)}", op_name)


class _FakeQuant(Op):
    num_bits = attr(8)
    narrow_range = attr(False)
    F32_OPERANDS: ClassVar[tuple] = ()
    traits = traits_def(Pure())

    def verify_ir(self):
        v.check_types(self, operands={name: v.F32 for name in self.F32_OPERANDS})
        self.verify_ranges()
        _check_num_bits(self.attr_values()["num_bits"])

    def verify_ranges(self) -> None:
        """TensorFlow's checks of min and max (the Vars ops')."""


@register
class FakeQuantWithMinMaxArgs(_FakeQuant):
    """``inputs`` fake-quantized to ``num_bits`` over the attributes [min, max].

    %y = "tf.FakeQuantWithMinMaxArgs"(%x) <{max = 1.0 : f32, min = -1.0 : f32, num_bits = 8 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "tf.FakeQuantWithMinMaxArgs"
    inputs = operand_def()
    outputs = result_def()
    min = attr(-6.0)
    max = attr(6.0)
    ATTR_CONSTRAINTS: ClassVar[dict] = {"min": v.F32_ATTR, "max": v.F32_ATTR}
    F32_OPERANDS: ClassVar[tuple] = ("inputs",)

    def verify_ranges(self) -> None:
        attrs = self.attr_values()
        if not attrs["min"] < attrs["max"]:
            v.fail(f"requires min to be smaller than max, got min {attrs['min']} and max {attrs['max']}")

    @classmethod
    def infer(cls, inputs, *, min, max, num_bits, narrow_range):
        _float32(cls.name, inputs)
        _kernel_checks(cls.name, num_bits)
        if not min < max:
            raise InvalidArgumentError(f"{cls.name}: min has to be smaller than max, was: {min} >= {max}", cls.name)
        return inputs

    @staticmethod
    def compute(xp, inputs, *, min, max, num_bits, narrow_range):
        return fake_quantize(xp, inputs, *nudge(xp, min, max, num_bits, narrow_range))

    @staticmethod
    def lower(inputs, *, min, max, num_bits, narrow_range):
        return fake_quantize_xla(inputs, min, max, num_bits, narrow_range)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dx = U where x lies in the nudged [min, max], else 0
        return [FakeQuantWithMinMaxArgsGradient.bind(dy, op.inputs[0], **op.attrs)]


@register
class FakeQuantWithMinMaxArgsGradient(Op):
    """FakeQuantWithMinMaxArgs' gradient: ``gradients`` where ``inputs`` lies in the nudged range, else 0.

    %dx = "tf.FakeQuantWithMinMaxArgsGradient"(%dy, %x) <{max = 1.0 : f32, min = -1.0 : f32}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    """

    name = "tf.FakeQuantWithMinMaxArgsGradient"
    gradients = operand_def()
    inputs = operand_def()
    backprops = result_def()
    min = attr(-6.0)
    max = attr(6.0)
    num_bits = attr(8)
    narrow_range = attr(False)
    ATTR_CONSTRAINTS: ClassVar[dict] = {"min": v.F32_ATTR, "max": v.F32_ATTR}
    traits = traits_def(Pure(), NotDifferentiable())

    def verify_ir(self):
        v.check_types(self, operands={"gradients": v.F32, "inputs": v.F32})
        _check_num_bits(self.attr_values()["num_bits"])

    @classmethod
    def infer(cls, gradients, inputs, *, min, max, num_bits, narrow_range):
        _float32(cls.name, gradients, inputs)
        _kernel_checks(cls.name, num_bits)
        if inputs.shape is not None:
            _range_shape(cls.name, gradients, inputs.shape, "gradients")
        return inputs

    @staticmethod
    def compute(xp, gradients, inputs, *, min, max, num_bits, narrow_range):
        low, high, _ = nudge(xp, min, max, num_bits, narrow_range)
        return xp.where((inputs >= low) & (inputs <= high), gradients, np.float32(0)).astype(np.float32)


class _FakeQuantVars(_FakeQuant):
    """The Vars ops: min and max are float32 tensors, scalars or one per channel (the last dim)."""

    inputs = operand_def()
    min = operand_def()
    max = operand_def()
    outputs = result_def()
    F32_OPERANDS: ClassVar[tuple] = ("inputs", "min", "max")
    GRADIENT: ClassVar[type]  # the op giving the gradients (set below, once it is defined)

    @classmethod
    def range_shape(cls, inputs: TensorSpec) -> tuple:
        return ()

    @classmethod
    def infer(cls, inputs, min, max, *, num_bits, narrow_range):
        _float32(cls.name, inputs, min, max)
        _kernel_checks(cls.name, num_bits)
        want = cls.range_shape(inputs)
        _range_shape(cls.name, min, want, "min")
        _range_shape(cls.name, max, want, "max")
        return inputs

    @staticmethod
    def compute(xp, inputs, min, max, *, num_bits, narrow_range):
        return fake_quantize(xp, inputs, *nudge(xp, min, max, num_bits, narrow_range))

    @staticmethod
    def lower(inputs, min, max, *, num_bits, narrow_range):
        return fake_quantize_xla(inputs, min, max, num_bits, narrow_range)

    @classmethod
    def grad(cls, op, dy):  # Given upstream grad U: dx = U inside the nudged range; dmin, dmax sum U clamped below, above
        return list(cls.GRADIENT.bind(dy, *op.inputs, **op.attrs))


@register
class FakeQuantWithMinMaxVars(_FakeQuantVars):
    """``inputs`` fake-quantized to ``num_bits`` over the scalar tensors [min, max].

    %y = "tf.FakeQuantWithMinMaxVars"(%x, %min, %max) : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    """

    name = "tf.FakeQuantWithMinMaxVars"

    def verify_ranges(self) -> None:
        for what, value in (("min", self.min), ("max", self.max)):
            if not (v.has_rank(value, 0) and v.is_float(value)):
                v.fail(f"requires {what} to be a 0d float tensor")


@register
class FakeQuantWithMinMaxVarsPerChannel(_FakeQuantVars):
    """``inputs`` fake-quantized per channel (the last dim) over the vectors [min, max].

    %y = "tf.FakeQuantWithMinMaxVarsPerChannel"(%x, %min, %max) : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    """

    name = "tf.FakeQuantWithMinMaxVarsPerChannel"

    @classmethod
    def range_shape(cls, inputs: TensorSpec) -> tuple:
        if inputs.shape is not None and not inputs.shape:
            raise InvalidArgumentError(f"{cls.name}: inputs must be at least 1-D, got a scalar", cls.name)
        return (None if inputs.shape is None else inputs.shape[-1],)

    def verify_ranges(self) -> None:
        if not v.rank_at_least(self.inputs, 1):
            v.fail("requires inputs to be at least 1d float tensor")
        for what, value in (("min", self.min), ("max", self.max)):
            if not (v.has_rank(value, 1) and v.is_float(value)):
                v.fail(f"requires {what} to be a 1d float tensor")
        x, low, high = v.shape(self.inputs), v.shape(self.min), v.shape(self.max)
        depth = None if x is None else x[-1]
        if depth is not None and any(s is not None and s[0] is not None and s[0] != depth for s in (low, high)):
            v.fail("requires min and max to have same size as last dimension of inputs")


class _FakeQuantVarsGradient(Op):
    gradients = operand_def()
    inputs = operand_def()
    min = operand_def()
    max = operand_def()
    backprops_wrt_input = result_def()
    backprop_wrt_min = result_def()
    backprop_wrt_max = result_def()
    num_bits = attr(8)
    narrow_range = attr(False)
    FORWARD: ClassVar[type] = _FakeQuantVars
    traits = traits_def(Pure(), NotDifferentiable())

    def verify_ir(self):
        v.check_types(self, operands={k: v.F32 for k in ("gradients", "inputs", "min", "max")})
        _check_num_bits(self.attr_values()["num_bits"])

    @classmethod
    def infer(cls, gradients, inputs, min, max, *, num_bits, narrow_range):
        cls.FORWARD.infer(inputs, min, max, num_bits=num_bits, narrow_range=narrow_range)
        _float32(cls.name, gradients)
        if inputs.shape is not None:
            _range_shape(cls.name, gradients, inputs.shape, "gradients")
        want = cls.FORWARD.range_shape(inputs)
        return [inputs, TensorSpec(want, dtypes.float32), TensorSpec(want, dtypes.float32)]

    @classmethod
    def compute(cls, xp, gradients, inputs, min, max, *, num_bits, narrow_range):
        low, high, _ = nudge(xp, min, max, num_bits, narrow_range)
        zero = np.float32(0)
        axes = tuple(range(inputs.ndim - len(np.shape(min))))  # all but the channel dim, per channel
        return [xp.where((inputs >= low) & (inputs <= high), gradients, zero).astype(np.float32),
                xp.sum(xp.where(inputs < low, gradients, zero), axis=axes).astype(np.float32),
                xp.sum(xp.where(inputs > high, gradients, zero), axis=axes).astype(np.float32)]


@register
class FakeQuantWithMinMaxVarsGradient(_FakeQuantVarsGradient):
    """FakeQuantWithMinMaxVars' gradient w.r.t. inputs, min and max.

    %dx, %dmin, %dmax = "tf.FakeQuantWithMinMaxVarsGradient"(%dy, %x, %min, %max) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>, tensor<f32>)
    """

    name = "tf.FakeQuantWithMinMaxVarsGradient"
    FORWARD: ClassVar[type] = FakeQuantWithMinMaxVars


@register
class FakeQuantWithMinMaxVarsPerChannelGradient(_FakeQuantVarsGradient):
    """FakeQuantWithMinMaxVarsPerChannel's gradient w.r.t. inputs and each channel's min and max.

    %dx, %dmin, %dmax = "tf.FakeQuantWithMinMaxVarsPerChannelGradient"(%dy, %x, %min, %max) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
    """

    name = "tf.FakeQuantWithMinMaxVarsPerChannelGradient"
    FORWARD: ClassVar[type] = FakeQuantWithMinMaxVarsPerChannel


FakeQuantWithMinMaxVars.GRADIENT = FakeQuantWithMinMaxVarsGradient
FakeQuantWithMinMaxVarsPerChannel.GRADIENT = FakeQuantWithMinMaxVarsPerChannelGradient


def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False, name=None):
    return FakeQuantWithMinMaxArgs.bind(inputs, min=float(min), max=float(max), num_bits=int(num_bits),
                                        narrow_range=bool(narrow_range))


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):
    return FakeQuantWithMinMaxVars.bind(inputs, min, max, num_bits=int(num_bits), narrow_range=bool(narrow_range))


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False, name=None):
    return FakeQuantWithMinMaxVarsPerChannel.bind(inputs, min, max, num_bits=int(num_bits),
                                                  narrow_range=bool(narrow_range))


__all__: list[str] = []  # reached through tt.raw_ops (tt.quantization is not built yet)
