"""A SavedModel's signatures: which concrete functions they are, and the wrapper function of each.

    concretes = select_signatures(module, None)      # {"serving_default": cf} when one tt.function has an input_signature
    sig = SignatureFunction.of(cf, "serving_default")
    sig.module                                       # @__inference_signature_wrapper_predict_1 calling cf
    sig.inputs, sig.outputs                          # ["x"], ["output_0"]: names in sorted order

As TensorFlow 2's ``tf.saved_model.save`` does, a signature is a wrapper function that takes the
inputs by name (sorted) and returns the outputs by key, sorted: ``output_0``, ``output_1``, ... for a
tensor or a list, the keys of a dict. The wrapper's body is a ``StatefulPartitionedCall`` of the
concrete function and an ``Identity`` per output; the variables the function captures are the
wrapper's last arguments too.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Region

from tinytf.errors import InvalidArgumentError
from tinytf.formats.graph_names import function_name, user_names
from tinytf.framework import tf_types
from tinytf.framework.op import REGISTRY
from tinytf.saved_model.saved_objects import functions_of

DEFAULT_SIGNATURE = "serving_default"
_wrapper_ids = itertools.count(1)
_NESTED = "a signature returns a tensor, a list of tensors or a dict of tensors"


def _as_concrete(value, key: str):
    from tinytf.function import ConcreteFunction, Function

    if isinstance(value, ConcreteFunction):
        return value
    if isinstance(value, Function):
        if value.input_signature is None:
            raise InvalidArgumentError(
                f"signature '{key}': a tt.function needs an input_signature to be a signature (or pass "
                f"f.get_concrete_function(spec))")
        return value.get_concrete_function()
    raise InvalidArgumentError(f"signature '{key}': expected a tt.function with an input_signature or a concrete "
                               f"function, got {value!r}")


def select_signatures(root, signatures) -> dict:
    """``{key: ConcreteFunction}`` from ``tt.saved_model.save``'s ``signatures``: None takes the root's one
    ``tt.function`` with an input signature (none when it has several, as TensorFlow does); one
    function is ``serving_default``; a dict is by key."""
    if signatures is None:
        found = [f for _, f in functions_of(root) if f.input_signature is not None]
        return {DEFAULT_SIGNATURE: found[0].get_concrete_function()} if len(found) == 1 else {}
    if not isinstance(signatures, dict):
        signatures = {DEFAULT_SIGNATURE: signatures}
    out = {}
    for key, value in signatures.items():
        if not isinstance(key, str) or not key:
            raise InvalidArgumentError(f"signature keys must be non-empty strings, got {key!r}")
        out[key] = _as_concrete(value, key)
    return out


def arg_names(cf) -> list[str]:
    """The names of ``cf``'s tensor arguments (its TensorSpec names, else its ``tf._user_specified_name``s)."""
    hints = user_names(cf.function)[:len(cf.input_specs)]
    return [spec.name or hint or f"arg{i}" for i, (spec, hint) in enumerate(zip(cf.input_specs, hints))]


def output_keys(cf, key: str) -> list[str]:
    """The signature output key of each flat result of ``cf``."""
    structure = cf.structured_outputs
    if isinstance(structure, dict):
        keys = []
        for k in sorted(structure):
            if not isinstance(k, str):
                raise InvalidArgumentError(f"signature '{key}': output keys must be strings, got {k!r}")
            if isinstance(structure[k], list | tuple | dict):
                raise InvalidArgumentError(f"signature '{key}': output '{k}' is nested; {_NESTED}")
            if structure[k] is not None:
                keys.append(k)
        return keys
    if isinstance(structure, list | tuple):
        if any(isinstance(s, list | tuple | dict) for s in structure):
            raise InvalidArgumentError(f"signature '{key}': nested outputs; {_NESTED}")
        return [f"output_{i}" for i, s in enumerate(structure) if s is not None]
    return [] if structure is None else ["output_0"]


@dataclass
class SignatureFunction:
    """One signature: its key, the concrete function, and the wrapper (``module`` holds ``function``)
    taking ``inputs`` (sorted names) and returning ``outputs`` (sorted keys) of ``types``."""

    key: str
    concrete: object
    module: ModuleOp
    function: func.FuncOp
    inputs: list[str]
    outputs: list[str]
    types: list

    @property
    def name(self) -> str:
        """The wrapper's FunctionDef name."""
        return function_name(self.function.sym_name.data)

    def input_specs(self) -> list:
        """The TensorSpec of each input, in ``inputs`` order."""
        by_name = dict(zip(arg_names(self.concrete), self.concrete.input_specs))
        return [by_name[n] for n in self.inputs]

    @classmethod
    def of(cls, cf, key: str) -> SignatureFunction:
        names = arg_names(cf)
        if len(set(names)) != len(names):
            raise InvalidArgumentError(f"signature '{key}': two inputs are named alike ({names})")
        keys = output_keys(cf, key)
        inner = cf.function
        types_in = list(inner.function_type.inputs.data)
        types_out = list(inner.function_type.outputs.data)
        if len(keys) != len(types_out):
            raise InvalidArgumentError(f"signature '{key}': {len(types_out)} results but {len(keys)} output keys")
        n_user = len(cf.input_specs)
        order = sorted(range(n_user), key=lambda i: names[i])
        block = Block(arg_types=[types_in[i] for i in order] + types_in[n_user:])
        positions = {i: j for j, i in enumerate(order)}
        call_args = [block.args[positions[i]] for i in range(n_user)] + list(block.args[n_user:])
        call_cls = REGISTRY["tf.StatefulPartitionedCall"]
        props = call_cls.attrs_to_properties(call_cls.complete_attrs(
            {"f": inner.sym_name.data, "Tout": tuple(tf_types.dtype_of(t) for t in types_out)}))
        call = call_cls.create(operands=call_args, result_types=types_out, properties=props)
        block.add_op(call)
        identity = REGISTRY["tf.Identity"]
        by_key = sorted(range(len(keys)), key=lambda j: keys[j])
        outs = []
        for j in by_key:
            op = identity.create(operands=[call.results[j]], result_types=[types_out[j]])
            block.add_op(op)
            outs.append(op.results[0])
        block.add_op(func.ReturnOp(*outs))
        base = function_name(inner.sym_name.data).removeprefix("__inference_").rsplit("_", 1)[0]
        hints = [names[i] for i in order] + ["unknown"] * (len(types_in) - n_user)
        arg_attrs = ArrayAttr([DictionaryAttr({"tf._user_specified_name": StringAttr(h)}) for h in hints])
        fn = func.FuncOp(f"__inference_signature_wrapper_{base}_{next(_wrapper_ids)}",
                         ([a.type for a in block.args], [v.type for v in outs]), Region(block), arg_attrs=arg_attrs)
        return cls(key, cf, ModuleOp([fn]), fn, [names[i] for i in order], sorted(keys),
                   [types_out[j] for j in by_key])
