"""Layer 4: the op library, one class per op with all of its rules, grouped by family.

Importing this package registers every op in ``tinytf.framework.op.REGISTRY``.
"""
from tinytf.ops import (  # noqa: F401
    array,
    control_flow,
    conv,
    functional,
    math,
    nn,
    reduction,
    resource,
    shape,
    slicing,
    tf_device,
)
