"""``tf-freeze-variables``: a function's read-only resource arguments become constants.

    func.func @f(%x: tensor<4x3xf32>, %w: tensor<*x!tf_type.resource>) -> ... {
      %0 = "tf.ReadVariableOp"(%w) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
    // with weights.npz holding arg1 (a float [3, 5] array) becomes:
    func.func @f(%x: tensor<4x3xf32>) -> ... {
      %cst = "tf.Const"() <{value = dense<...> : tensor<3x5xf32>}> : () -> tensor<3x5xf32>

    tinytf-opt model.mlir -p 'tf-freeze-variables{weights="weights.npz"}'
    freeze_variables(module, {1: w})          # or [x, w] / [w]: see ``resource_values``

The values come as for ``tinytf run``: ``arg0, arg1, ...`` in the entry function's argument order
(arrays for data arguments are ignored). A resource argument is frozen when every use of it is a
``tf.ReadVariableOp``; one that is assigned (``tf.Assign*VariableOp``) or passed on (to a call, a
``tf.If``, ...) stays a variable and needs no value. Frozen arguments leave the function type,
``arg_attrs`` and ``tf.entry_function``'s ``inputs``; ``control_outputs`` (the stateful nodes) is
cleared once no resource op is left. Each read gets a ``tf.Const`` of the value's exact type, at
the top of the function; a read that a non-TF op uses (``func.return``) keeps its declared type.
"""
from __future__ import annotations

import pickle
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, BlockArgument
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, NotFoundError
from tinytf.framework import tf_types
from tinytf.framework.attributes import numpy_to_dense
from tinytf.framework.op import Op, ResourceOp
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.array import Const
from tinytf.ops.resource import ReadVariableOp
from tinytf.runtime.module import find_entry


def load_npz(path: str) -> dict[int, np.ndarray]:
    """``argN`` arrays of an .npz by argument index; other keys (``out0``, ...) are ignored."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return {int(k[3:]): data[k] for k in data.files if k.startswith("arg") and k[3:].isdigit()}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, pickle.UnpicklingError) as err:
        raise NotFoundError(f"cannot read {path}: {err}") from None


def frozen_arguments(fn: FuncOp) -> list[int]:
    """Indices of resource arguments whose every use is a ``tf.ReadVariableOp`` (and that have a use)."""
    out = []
    for arg in fn.body.block.args:
        uses = list(arg.uses)
        if tf_types.is_resource(arg.type) and uses and all(isinstance(u.operation, ReadVariableOp) for u in uses):
            out.append(arg.index)
    return out


def resource_values(fn: FuncOp, values) -> dict[int, np.ndarray]:
    """Argument index -> array from a dict (``{1: w}`` or ``{"arg1": w}``), a list for every argument
    (as ``module.run`` takes them; data entries may be None), or a list for the resource arguments only."""
    resources = [a.index for a in fn.body.block.args if tf_types.is_resource(a.type)]
    if isinstance(values, Mapping):
        out = {}
        for key, value in values.items():
            index = int(key[3:]) if isinstance(key, str) and key.startswith("arg") and key[3:].isdigit() else key
            if not isinstance(index, int):
                raise InvalidArgumentError(f"weights: key {key!r} is neither an argument index nor 'argN'")
            out[index] = value
        return out
    values = list(values)
    if len(values) == len(fn.body.block.args):
        return {i: v for i, v in enumerate(values) if v is not None}
    if len(values) == len(resources):
        return dict(zip(resources, values))
    raise InvalidArgumentError(
        f"weights: @{fn.sym_name.data} has {len(fn.body.block.args)} arguments ({len(resources)} resources), "
        f"got a list of {len(values)} arrays")


def _check_value(fn: FuncOp, index: int, value, reads: list[ReadVariableOp]) -> np.ndarray:
    name = f"weights arg{index} (argument {index} of @{fn.sym_name.data})"
    array = np.asarray(value)
    if array.dtype.kind not in "biuf":
        raise InvalidArgumentError(f"{name}: unsupported array dtype {array.dtype}")
    for read in reads:
        expected = tf_types.dtype_of(read.results[0].type)
        if dtypes.as_dtype(array.dtype) != expected:
            raise InvalidArgumentError(
                f"{name} has dtype {dtypes.as_dtype(array.dtype).name}, but the model reads it as {expected.name}")
        shape = tf_types.shape_of(read.results[0].type)
        if shape is not None and (len(shape) != array.ndim or any(
                d is not None and d != n for d, n in zip(shape, array.shape))):
            raise InvalidArgumentError(
                f"{name} has shape {list(array.shape)}, but the model reads it as {read.results[0].type}")
    return np.array(array, order="C")  # (np.ascontiguousarray would make a scalar 1-D)


def freeze_variables(module: ModuleOp, values, entry: str | None = None) -> list[int]:
    """Freeze the entry function's read-only resource arguments to ``values``; the dropped indices.

    NotFoundError names the arguments without a value; InvalidArgumentError a value whose dtype or
    shape does not fit the reads. The module is unchanged when an error is raised.
    """
    fn = find_entry(module, entry)
    by_index = resource_values(fn, values)
    block = fn.body.block
    frozen = frozen_arguments(fn)
    missing = [i for i in frozen if i not in by_index]
    if missing:
        names = ", ".join(f"arg{i}" for i in missing)
        raise NotFoundError(f"weights: no value for resource argument{'s' if len(missing) > 1 else ''} {names} "
                            f"of @{fn.sym_name.data}")
    order = {op: n for n, op in enumerate(fn.walk())}
    reads = {i: sorted((u.operation for u in block.args[i].uses), key=order.__getitem__) for i in frozen}
    arrays = {i: _check_value(fn, i, by_index[i], reads[i]) for i in frozen}
    known = {read.results[0]: TensorSpec(a.shape, dtypes.as_dtype(a.dtype), value=a)
             for i, a in arrays.items() for read in reads[i]}
    try:
        check_shapes(fn, known)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"weights do not fit @{fn.sym_name.data}: {err.message}", err.op) from None
    last = None  # constants go to the top of the function, in argument order
    for i in frozen:
        dense = numpy_to_dense(arrays[i])
        exact = dense.type
        shared = None
        for read in reads[i]:
            result = read.results[0]
            keep_declared = any(not isinstance(u.operation, Op) for u in result.uses)
            type_ = result.type if keep_declared else exact
            if type_ == exact and shared is not None:
                const = shared
            else:
                const = Const.build(properties={"value": dense}, result_types=[type_])
                Rewriter.insert_op(const, InsertPoint.after(last) if last else InsertPoint.at_start(block))
                last = const
                if type_ == exact:
                    shared = const
            result.replace_all_uses_with(const.results[0])
            Rewriter.erase_op(read)
    _drop_arguments(fn, frozen)
    return frozen


def _drop_arguments(fn: FuncOp, indices: list[int]) -> None:
    if not indices:
        return
    block = fn.body.block
    keep = [i for i in range(len(block.args)) if i not in indices]
    for i in sorted(indices, reverse=True):
        arg: BlockArgument = block.args[i]
        block.erase_arg(arg)
    inputs = [fn.function_type.inputs.data[i] for i in keep]
    fn.function_type = FunctionType.from_lists(inputs, list(fn.function_type.outputs.data))
    if fn.arg_attrs is not None:
        fn.arg_attrs = ArrayAttr([fn.arg_attrs.data[i] for i in keep])
    entry_info = fn.attributes.get("tf.entry_function")
    if isinstance(entry_info, DictionaryAttr):
        fields: dict[str, Attribute] = dict(entry_info.data)
        names = fields.get("inputs")
        count = len(keep) + len(indices)
        if isinstance(names, StringAttr):
            parts = names.data.split(",") if names.data else []
            if len(parts) == count:
                fields["inputs"] = StringAttr(",".join(parts[i] for i in keep))
        stateful = any(op.has_trait(ResourceOp) for op in fn.walk() if isinstance(op, Op))
        if "control_outputs" in fields and not stateful:
            fields["control_outputs"] = StringAttr("")
        fn.attributes["tf.entry_function"] = DictionaryAttr(fields)


@dataclass(frozen=True)
class FreezeVariables(ModulePass):
    """Replaces reads of read-only resource arguments by constants from ``weights`` (an .npz)."""

    name = "tf-freeze-variables"
    weights: str = ""
    entry: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.weights:
            raise InvalidArgumentError('tf-freeze-variables: give the values as weights="PATH.npz"')
        freeze_variables(op, load_npz(self.weights), self.entry or None)


def check_shapes(fn: FuncOp, known: dict | None = None) -> None:
    """Run each op's shape rule over ``fn``'s top-level ops, with constants' values and ``known``
    specs (SSA value -> TensorSpec) for some values; a rule's InvalidArgumentError (a weight of the
    wrong shape) is raised with the op's location. Rules that cannot decide on partial shapes pass."""
    import tinytf.mlir as mlir

    specs = dict(known or {})
    for op in fn.body.block.ops:
        if not isinstance(op, Op) or getattr(type(op), "infer", None) is None or op.regions:
            continue
        if isinstance(op, Const):
            value = op.attr_values()["value"]
            specs[op.results[0]] = TensorSpec(value.shape, dtypes.as_dtype(value.dtype), value=value)
            continue
        if all(r in specs for r in op.results):
            continue
        operands = [specs.get(v) or _spec_of_type(v.type) for v in op.operands]
        if any(s is None for s in operands):
            continue
        try:
            out = type(op).infer(*operands, **op.attr_values())
        except InvalidArgumentError as err:
            where = mlir.location(op)
            raise InvalidArgumentError(f"{where + ': ' if where else ''}{err.message}", op.name) from None
        except Exception:  # a rule that cannot handle partial shapes: nothing to check here
            continue
        out = out if isinstance(out, list | tuple) else [out]
        for result, spec in zip(op.results, out):
            if isinstance(spec, TensorSpec):
                specs[result] = spec


def _spec_of_type(type_) -> TensorSpec | None:
    if tf_types.is_resource(type_):
        return None
    try:
        return TensorSpec.from_type(type_)
    except Exception:
        return None
