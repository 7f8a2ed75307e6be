"""Layer 7: int8 weight-only quantization, the way TensorFlow's quantizer does it.

    tinytf-opt model.mlir -p 'tf-freeze-variables{weights="w.npz"},tf-quantize-weights{min-elements=256}'
    tinytf quantize model.mlir --weights w.npz -o model_int8.mlir --check inputs.npz

``tf-freeze-variables`` turns read-only resource arguments into ``tf.Const``s; ``tf-quantize-weights``
stores large float weights as int8 with a scale and zero point and dequantizes them in the graph
(``tf.Identity`` -> ``tf.Cast`` i8->i32 -> ``tf.Sub`` -> ``tf.Cast`` i32->f32 -> ``tf.Mul``), which
every backend runs. ``QUANTIZATION_PASSES`` is what ``tinytf-opt`` registers.
"""
from tinytf.quantization.freeze_variables import FreezeVariables, freeze_variables
from tinytf.quantization.int8 import QuantizedWeight, quantize
from tinytf.quantization.quantize_weights import QuantizeWeights, constant_bytes, quantize_weights

QUANTIZATION_PASSES = [FreezeVariables, QuantizeWeights]

__all__ = ["QUANTIZATION_PASSES", "FreezeVariables", "QuantizeWeights", "QuantizedWeight", "constant_bytes",
           "freeze_variables", "quantize", "quantize_weights"]
