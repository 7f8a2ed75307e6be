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
    gather,
    joining,
    linalg,
    math,
    nn,
    padding,
    pooling,
    reduction,
    ref_variables,
    resource,
    scan,
    sequences,
    shape,
    slicing,
    softmax,
    tf_device,
    training,
    transcendental,
    transpose,
    unary_grads,
)
