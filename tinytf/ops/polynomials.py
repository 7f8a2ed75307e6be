"""tt.math.polyval: a polynomial evaluated elementwise by Horner's rule, as TensorFlow's math_ops.py does,
with the ops' gradients (in x and in each coefficient).

    tt.math.polyval([1.0, 2.0, 3.0], x)        # x^2 + 2x + 3
"""
from __future__ import annotations

from tinytf.errors import InvalidArgumentError
from tinytf.ops.op_functions import ops
from tinytf.ops.tensor_inputs import as_tensor

__all__ = ["polyval"]
__namespaces__ = {"polyval": ("math",)}


def polyval(coeffs, x, name=None):
    """``tt.math.polyval(coeffs, x)``: Σ coeffs[i] x^(n-1-i), highest power first; no coefficients give 0."""
    if isinstance(coeffs, str) or not isinstance(coeffs, list | tuple):
        raise InvalidArgumentError(f"tt.math.polyval: coeffs must be a list of tensors or numbers, got "
                                   f"{type(coeffs).__name__}", "tf.AddV2")
    x = as_tensor(x)
    total = ops.zeros_like(x)
    for c in coeffs:
        total = ops.add(as_tensor(c, like=x), ops.multiply(total, x))
    return total
