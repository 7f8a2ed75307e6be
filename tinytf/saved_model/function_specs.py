"""The StructuredValue and FunctionSpec protos of saved functions (the writing side of ``structures.py``).

    structured(((Named("x"),), {}), iter([((None, 3), tt.float32)]))   # a concrete function's input signature
    function_spec(proto.function_spec, function, with_signature=True)   # FullArgSpec, input_signature, jit_compile

A structure's tensor leaves become ``TensorSpec`` values whose shape and dtype come from ``leaves``
in order; None, numbers and strings are themselves; dicts (by sorted key), lists, tuples and named
tuples nest, as ``tf.nest`` walks them.
"""
from __future__ import annotations

import collections
import inspect

from tinytf.formats import tensor_proto
from tinytf.framework import tf_types

FullArgSpec = collections.namedtuple("FullArgSpec", "args varargs varkw defaults kwonlyargs kwonlydefaults annotations")


class Named:
    """A tensor leaf of a structure, named (TensorSpec names in a concrete function's input signature)."""

    def __init__(self, name: str):
        self.name = name


def structured(structure, leaves, name=None):
    """A StructuredValue of ``structure`` whose tensor leaves take (shape, dtype) from ``leaves`` in order."""
    from tinytf.formats import protos

    out = protos.struct_pb2.StructuredValue()
    if structure is None:
        out.none_value.SetInParent()
    elif isinstance(structure, dict):
        out.dict_value.SetInParent()
        for k in sorted(structure):
            out.dict_value.fields[str(k)].CopyFrom(structured(structure[k], leaves, str(k)))
    elif isinstance(structure, tuple) and hasattr(structure, "_fields"):
        out.named_tuple_value.name = type(structure).__name__
        for k, v in zip(structure._fields, structure):
            out.named_tuple_value.values.add(key=k).value.CopyFrom(structured(v, leaves))
    elif isinstance(structure, list | tuple):
        target = out.list_value if isinstance(structure, list) else out.tuple_value
        target.SetInParent()
        for v in structure:
            target.values.add().CopyFrom(structured(v, leaves))
    elif isinstance(structure, bool):
        out.bool_value = structure
    elif isinstance(structure, int) and not hasattr(structure, "dtype"):
        out.int64_value = structure
    elif isinstance(structure, float) and not hasattr(structure, "dtype"):
        out.float64_value = structure
    elif isinstance(structure, str):
        out.string_value = structure
    else:
        shape, dtype = next(leaves)
        spec = out.tensor_spec_value
        spec.shape.CopyFrom(tensor_proto.shape_to_proto(shape))
        spec.dtype = tensor_proto.enum_of(dtype)
        if getattr(structure, "name", None) or name:
            spec.name = getattr(structure, "name", None) or name
    return out


def specs_of_types(types):
    """(shape, dtype) leaves of MLIR tensor types."""
    return iter([(tf_types.shape_of(t), tf_types.dtype_of(t)) for t in types])


def specs_of(tensor_specs):
    """(shape, dtype) leaves of TensorSpecs."""
    return iter([(s.shape, s.dtype) for s in tensor_specs])


def leaf_structure(structure):
    """A function's output structure with its tensors as (unnamed) leaves; None stays None."""
    if isinstance(structure, dict):
        return {k: leaf_structure(v) for k, v in structure.items()}
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*[leaf_structure(v) for v in structure])
    if isinstance(structure, list | tuple):
        return type(structure)(leaf_structure(v) for v in structure)
    return None if structure is None else Named("")


def _full_arg_spec(args, kwonly):
    return structured(FullArgSpec(list(args), None, None, None, list(kwonly), None, {}), iter(()))


def function_spec(proto, function, with_signature: bool) -> None:
    """Fill a FunctionSpec from a ``tt.function`` (None: a function of no Python signature) — its
    Python parameters, and its input signature when ``with_signature``."""
    fn = function.python_function if function is not None else None
    params = list(inspect.signature(fn).parameters.values()) if fn is not None else []
    proto.fullargspec.CopyFrom(_full_arg_spec([p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                                                     p.POSITIONAL_OR_KEYWORD)],
                                              [p.name for p in params if p.kind == p.KEYWORD_ONLY]))
    signature = function.input_signature if (function is not None and with_signature) else None
    if signature is None:
        proto.input_signature.none_value.SetInParent()
    else:
        proto.input_signature.CopyFrom(structured(tuple(signature), specs_of(signature)))
    if function is not None and function.jit_compile:
        proto.jit_compile = 1  # FunctionSpec.JitCompile.ON


def signature_spec(proto, names) -> None:
    """Fill a signature function's FunctionSpec: its inputs are keyword-only, by name."""
    proto.fullargspec.CopyFrom(_full_arg_spec([], names))
    proto.input_signature.none_value.SetInParent()
