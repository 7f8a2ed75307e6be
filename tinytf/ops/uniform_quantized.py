"""TensorFlow's uniform-quantized ops (UniformQuantize, UniformDequantize, UniformRequantize and the quantized
Dot, Convolution, Add, ClipByValue, with the float-lhs "Hybrid" forms), with TensorFlow's verifiers.

    %q = "tf.UniformQuantize"(%x, %scale, %zero_point) <{quantization_axis = -1 : i64,
           quantization_max_val = 127 : i64, quantization_min_val = -128 : i64}>
           : (tensor<2xf32>, tensor<f32>, tensor<i32>) -> tensor<2x!tf_type.qint8>

Each (scales, zero points) pair quantizes per tensor (``quantization_axis`` -1: both scalars) or per axis
(both vectors of one length). tinytf knows these ops as IR only (``op.IR_ONLY``; it does not model the
``!tf_type.qint*`` types): they parse, verify and print; running one raises UnimplementedError naming it.
"""
from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register_ir_only
from tinytf.ops import verifiers as v

__all__: list[str] = []  # IR-only ops: no op functions


def _quantized(bits: int) -> v.TypeConstraint:
    return v.TypeConstraint(f"tensor of {bits}-bit quantized integer values", lambda e: str(e) == f"!tf_type.qint{bits}")


F32 = v.F32
I32 = v.tensor_of(["int32"])
QINT8 = _quantized(8)
QINT32 = _quantized(32)


def check_scales_and_zero_points(scales, zero_points, axis: int) -> None:
    """TensorFlow's VerifyScalesAndZeroPoints: scalars for per-tensor quantization (axis -1), else vectors
    of one length."""
    s, z = v.rank(scales), v.rank(zero_points)
    if axis == -1:
        if s is not None and s != 0:
            v.fail("quantization_axis is -1, scales must have 0 rank.")
        if z is not None and z != 0:
            v.fail("quantization_axis is -1, zero_points must have 0 rank.")
        return
    if s is not None and s != 1:
        v.fail("quantization_axis is not -1, scales must have 1 rank.")
    if z is not None and z != 1:
        v.fail("quantization_axis is not -1, zero_points must have 1 rank.")
    ns, nz = v.num_elements(v.shape(scales)), v.num_elements(v.shape(zero_points))
    if ns is not None and nz is not None and ns != nz:
        v.fail("scales and zero points must have same number of elements.")


class UniformQuantizedOp(Op):
    """Checks each (scales, zero points, axis) of ``QUANTIZATION`` after the operand and result types."""

    QUANTIZATION: ClassVar[tuple] = ()  # ((scales field, zero points field, axis attribute), ...)
    OPERAND_TYPES: ClassVar[dict] = {}
    RESULT_TYPES: ClassVar[dict] = {}
    traits = traits_def(Pure())

    def verify_ir(self):
        v.check_types(self, operands=self.OPERAND_TYPES, results=self.RESULT_TYPES)
        values = self.attr_values()
        for scales, zero_points, axis in self.QUANTIZATION:
            check_scales_and_zero_points(getattr(self, scales), getattr(self, zero_points), values[axis])


def _per(prefix: str = "") -> tuple:
    return (f"{prefix}scales", f"{prefix}zero_points", f"{prefix}quantization_axis")


_LHS_RHS_OUTPUT = (_per("lhs_"), _per("rhs_"), _per("output_"))
_ALL_QUANTIZED = {"lhs_scales": F32, "lhs_zero_points": I32, "rhs_scales": F32, "rhs_zero_points": I32,
                  "output_scales": F32, "output_zero_points": I32}


@register_ir_only
class UniformQuantize(UniformQuantizedOp):
    """round(input / scales) + zero_points, clamped to [quantization_min_val, quantization_max_val]."""

    name = "tf.UniformQuantize"
    input = operand_def()
    scales = operand_def()
    zero_points = operand_def()
    output = result_def()
    quantization_axis = attr(-1)
    quantization_min_val = attr(kind="int")
    quantization_max_val = attr(kind="int")
    QUANTIZATION: ClassVar[tuple] = (_per(),)
    OPERAND_TYPES: ClassVar[dict] = {"input": F32, "scales": F32, "zero_points": I32}


@register_ir_only
class UniformDequantize(UniformQuantizedOp):
    """(input - zero_points) * scales, as float32."""

    name = "tf.UniformDequantize"
    input = operand_def()
    scales = operand_def()
    zero_points = operand_def()
    output = result_def()
    quantization_axis = attr(-1)
    quantization_min_val = attr(kind="int")
    quantization_max_val = attr(kind="int")
    QUANTIZATION: ClassVar[tuple] = (_per(),)
    OPERAND_TYPES: ClassVar[dict] = {"scales": F32, "zero_points": I32}
    RESULT_TYPES: ClassVar[dict] = {"output": F32}


@register_ir_only
class UniformRequantize(UniformQuantizedOp):
    """Quantized ``input`` re-expressed with the output scales and zero points."""

    name = "tf.UniformRequantize"
    input = operand_def()
    input_scales = operand_def()
    input_zero_points = operand_def()
    output_scales = operand_def()
    output_zero_points = operand_def()
    output = result_def()
    input_quantization_axis = attr(-1)
    input_quantization_min_val = attr(kind="int")
    input_quantization_max_val = attr(kind="int")
    output_quantization_axis = attr(-1)
    output_quantization_min_val = attr(kind="int")
    output_quantization_max_val = attr(kind="int")
    QUANTIZATION: ClassVar[tuple] = (_per("input_"), _per("output_"))
    OPERAND_TYPES: ClassVar[dict] = {"input_scales": F32, "input_zero_points": I32, "output_scales": F32,
                                     "output_zero_points": I32}


class _LhsRhsQuantized(UniformQuantizedOp):
    """Quantized lhs and rhs, each with its scales and zero points, and those of the output."""

    lhs = operand_def()
    rhs = operand_def()
    lhs_scales = operand_def()
    lhs_zero_points = operand_def()
    rhs_scales = operand_def()
    rhs_zero_points = operand_def()
    output_scales = operand_def()
    output_zero_points = operand_def()
    output = result_def()
    lhs_quantization_axis = attr(-1)
    lhs_quantization_min_val = attr(kind="int")
    lhs_quantization_max_val = attr(kind="int")
    rhs_quantization_axis = attr(-1)
    rhs_quantization_min_val = attr(kind="int")
    rhs_quantization_max_val = attr(kind="int")
    output_quantization_axis = attr(-1)
    output_quantization_min_val = attr(kind="int")
    output_quantization_max_val = attr(kind="int")
    QUANTIZATION: ClassVar[tuple] = _LHS_RHS_OUTPUT


@register_ir_only
class UniformQuantizedDot(_LhsRhsQuantized):
    """lhs @ rhs of qint8 matrices, a qint32 result."""

    name = "tf.UniformQuantizedDot"
    OPERAND_TYPES: ClassVar[dict] = {"lhs": QINT8, "rhs": QINT8, **_ALL_QUANTIZED}
    RESULT_TYPES: ClassVar[dict] = {"output": QINT32}


@register_ir_only
class UniformQuantizedAdd(_LhsRhsQuantized):
    """lhs + rhs of qint32 tensors (broadcasting), a qint32 result."""

    name = "tf.UniformQuantizedAdd"
    OPERAND_TYPES: ClassVar[dict] = {"lhs": QINT32, "rhs": QINT32, **_ALL_QUANTIZED}
    RESULT_TYPES: ClassVar[dict] = {"output": QINT32}


class _ConvolutionAttrs(UniformQuantizedOp):
    """XLA's convolution attributes, as TensorFlow's quantized convolutions take them."""

    window_strides = attr((), kind="ints")
    padding = attr(kind="str")
    explicit_padding = attr((), kind="ints")
    lhs_dilation = attr((), kind="ints")
    rhs_dilation = attr((), kind="ints")
    batch_group_count = attr(1)
    feature_group_count = attr(1)
    dimension_numbers = attr("")


@register_ir_only
class UniformQuantizedConvolution(_LhsRhsQuantized, _ConvolutionAttrs):
    """Convolution of a qint8 lhs with a qint8 rhs, a qint32 result."""

    name = "tf.UniformQuantizedConvolution"
    OPERAND_TYPES: ClassVar[dict] = {"lhs": QINT8, "rhs": QINT8, **_ALL_QUANTIZED}
    RESULT_TYPES: ClassVar[dict] = {"output": QINT32}


class _Hybrid(UniformQuantizedOp):
    """A float32 lhs and a qint8 rhs (with its scales and zero points), a float32 result."""

    lhs = operand_def()
    rhs = operand_def()
    rhs_scales = operand_def()
    rhs_zero_points = operand_def()
    output = result_def()
    rhs_quantization_axis = attr(-1)
    rhs_quantization_min_val = attr(kind="int")
    rhs_quantization_max_val = attr(kind="int")
    QUANTIZATION: ClassVar[tuple] = (_per("rhs_"),)
    OPERAND_TYPES: ClassVar[dict] = {"lhs": F32, "rhs": QINT8, "rhs_scales": F32, "rhs_zero_points": I32}
    RESULT_TYPES: ClassVar[dict] = {"output": F32}


@register_ir_only
class UniformQuantizedDotHybrid(_Hybrid):
    """lhs @ dequantize(rhs) of a float32 lhs matrix and a qint8 rhs matrix."""

    name = "tf.UniformQuantizedDotHybrid"


@register_ir_only
class UniformQuantizedConvolutionHybrid(_Hybrid, _ConvolutionAttrs):
    """Convolution of a float32 lhs with a qint8 rhs, a float32 result."""

    name = "tf.UniformQuantizedConvolutionHybrid"


@register_ir_only
class UniformQuantizedClipByValue(UniformQuantizedOp):
    """clip(operand, min, max) of qint32 tensors sharing one quantization."""

    name = "tf.UniformQuantizedClipByValue"
    operand = operand_def()
    min = operand_def()
    max = operand_def()
    scales = operand_def()
    zero_points = operand_def()
    output = result_def()
    quantization_axis = attr(-1)
    quantization_min_val = attr(kind="int")
    quantization_max_val = attr(kind="int")
    QUANTIZATION: ClassVar[tuple] = (_per(),)
    OPERAND_TYPES: ClassVar[dict] = {"operand": QINT32, "min": QINT32, "max": QINT32, "scales": F32,
                                     "zero_points": I32}
    RESULT_TYPES: ClassVar[dict] = {"output": QINT32}
