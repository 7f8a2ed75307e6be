"""A TensorList under XLA: one fixed-size buffer, as TensorFlow's XLA bridge builds it.

    %l = "tf.TensorListReserve"(%shape, %n) ...     // ListBuffer(zeros((n, *shape)), size=n)

``ListBuffer`` holds ``buffer``, a stacked array of ``capacity`` elements, and ``size``, the number in
use (an int32 scalar), so that a loop can carry the list with fixed shapes: it is a JAX pytree, whose
arrays the engines carry. A list whose element shape is not known when it is made has no buffer until
its first element is set (an uninitialized list). Creating a list needs its capacity at compile time.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.kernel import check_allocation
from tinytf.ops.base import fmt_shape
from tinytf.ops.tensor_list_values import fully_defined, merge, shape_from_array, the_list

__all__: list[str] = []  # no public op functions


class ListBuffer:
    """A TensorList under XLA: ``buffer`` (capacity, *element shape) holds the elements (None until the
    element shape is known: an uninitialized list), ``size`` how many are in use (an int32 scalar)."""

    __slots__ = ("buffer", "size", "capacity", "element_shape", "element_dtype")
    shape = ()
    dtype = dtypes.variant
    _registered = False

    def __init__(self, buffer, size, capacity: int, element_shape, element_dtype):
        if not ListBuffer._registered:  # a JAX pytree, registered when XLA first builds one
            import jax

            jax.tree_util.register_pytree_node(ListBuffer, ListBuffer._flatten, ListBuffer._unflatten)
            ListBuffer._registered = True
        # (JAX may unflatten with placeholders for the arrays: nothing here may look at them)
        self.buffer, self.size, self.capacity = buffer, size, capacity
        self.element_shape, self.element_dtype = element_shape, element_dtype

    def _flatten(self):
        return (self.buffer, self.size), (self.capacity, self.element_shape, self.element_dtype)

    @staticmethod
    def _unflatten(aux, children):
        capacity, element_shape, element_dtype = aux
        return ListBuffer(children[0], children[1], capacity, element_shape, element_dtype)

    def replace(self, buffer=None, size=None) -> ListBuffer:
        """This list with a new buffer (its element shape and capacity taken from it) or size."""
        if buffer is None:
            return ListBuffer(self.buffer, self.size if size is None else size, self.capacity, self.element_shape,
                              self.element_dtype)
        return ListBuffer(buffer, self.size if size is None else size, int(buffer.shape[0]),
                          tuple(int(d) for d in buffer.shape[1:]), self.element_dtype)

    def __repr__(self) -> str:
        return f"ListBuffer({self.capacity} x {fmt_shape(self.element_shape)})"


def jnp_module():
    import jax.numpy as jnp

    return jnp


def xla_list(op_name: str, value) -> ListBuffer:
    return the_list(op_name, value, ListBuffer)


def new_buffer(op_name: str, capacity: int, element_shape, dtype, size) -> ListBuffer:
    """A list of ``capacity`` elements: zeros when the element shape is known, else uninitialized."""
    if capacity < 0:
        raise InvalidArgumentError(f"{op_name}: XLA compilation requires a fixed tensor list size; set the number "
                                   "of elements (a TensorArray in a while loop needs maximum_iterations)", op_name)
    dtype = dtypes.as_dtype(dtype)
    buffer = None
    if fully_defined(element_shape):
        check_allocation(op_name, (capacity, *element_shape), dtype)
        buffer = np.zeros((capacity, *element_shape), dtype.np)
    return ListBuffer(buffer, np.int32(size), capacity, element_shape, dtype)


def initialized(op_name: str, lst: ListBuffer, element_shape=None, shape_operand=None) -> ListBuffer:
    """``lst`` with a buffer: an uninitialized list takes ``element_shape`` (an item's) or the shape an
    element-shape operand gives (read only then: it need not be known at compile time otherwise), or fails."""
    if lst.buffer is not None:
        return lst
    if shape_operand is not None:
        element_shape = shape_from_array(op_name, shape_operand)
    shape = merge(op_name, element_shape, lst.element_shape)
    if not fully_defined(shape):
        raise InvalidArgumentError(f"{op_name}: TensorList is not initialized: its element shape "
                                   f"{fmt_shape(shape)} is not known at compile time", op_name)
    return lst.replace(buffer=np.zeros((lst.capacity, *shape), lst.element_dtype.np))


def set_row(buffer, index, item):
    from jax import lax

    jnp = jnp_module()
    return lax.dynamic_update_index_in_dim(jnp.asarray(buffer), jnp.asarray(item, buffer.dtype), index, 0)


def row(buffer, index):
    from jax import lax

    return lax.dynamic_index_in_dim(jnp_module().asarray(buffer), index, 0, keepdims=False)


def check_static_index(op_name: str, index, capacity: int) -> None:
    if isinstance(index, np.ndarray | np.generic) and not 0 <= int(index) < capacity:
        raise InvalidArgumentError(f"{op_name}: Trying to access element {int(index)} in a list with {capacity} "
                                   "elements", op_name)
