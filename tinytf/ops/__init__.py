"""Layer 4: the op library, one class per op with all of its rules, grouped by family.

Importing this package registers every op in ``tinytf.framework.op.REGISTRY``.
"""
from tinytf.ops import (  # noqa: F401
    activation_grads,
    array,
    comparison,
    control_flow,
    conv,
    division,
    elementwise,
    functional,
    linalg,
    math,
    nn,
    pooling,
    reduction,
    ref_variables,
    resource,
    scan,
    shape,
    slicing,
    softmax,
    tf_device,
    training,
    transcendental,
    unary_grads,
)
