"""Layer 5: tape autodiff (``GradientTape``, ``custom_gradient``) and batched graph evaluation."""
from tinytf.autodiff.custom_gradient import custom_gradient
from tinytf.autodiff.tape import GradientTape

__all__ = ["GradientTape", "custom_gradient"]
