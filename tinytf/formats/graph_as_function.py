"""``-tf-graph-as-function``: a GraphDef written as a function body, its ``_Arg`` nodes ``@main``'s
arguments and its ``_Retval`` nodes its results, as ``tf-mlir-translate`` imports it.

    signature = graph_signature(graph_def)   # the graph without _Arg / _Retval nodes, feeds, fetches, names
    module = import_graph_def_executor(signature.graph_def, feeds=signature.feeds, outputs=signature.fetches)
    apply_signature(main, signature)          # entry_function names, argument and result attributes

An ``_Arg`` (by its ``index``) is typed by ``T`` and its ``_output_shapes`` (a resource by
``_handle_dtypes`` / ``_handle_shapes``); a ``_Retval`` fetches its input. Their ``_``-prefixed
attributes (not the shape records) become ``tf.``-prefixed argument and result attributes, their
devices ``tf.device``; ``tf.entry_function`` names the nodes; ``allow_soft_placement`` is false
unless asked.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr, i1

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.formats import node_defs
from tinytf.formats.graphdef_import import Feed
from tinytf.framework import tf_types

SHAPE_RECORDS = ("_output_shapes", "_handle_shapes", "_handle_dtypes")  # already in the types


@dataclass
class GraphSignature:
    graph_def: object
    feeds: list[Feed] = field(default_factory=list)
    fetches: list[str] = field(default_factory=list)
    arg_names: list[str] = field(default_factory=list)
    ret_names: list[str] = field(default_factory=list)
    arg_attrs: list[dict] = field(default_factory=list)
    ret_attrs: list[dict] = field(default_factory=list)


def _index(node) -> int:
    if "index" not in node.attr:
        raise InvalidArgumentError(f"node '{node.name}' ({node.op}) has no 'index' attribute")
    return int(node.attr["index"].i)


def _attrs(node) -> dict:
    out = {f"tf.{key}": node_defs.mlir_attr(node.attr[key], f"node '{node.name}' attribute '{key}'")
           for key in sorted(node.attr) if key.startswith("_") and key not in SHAPE_RECORDS}
    if node.device:
        out["tf.device"] = StringAttr(node.device)
    return out


def _arg_type(node):
    from tinytf.formats.tensor_proto import dtype_from_enum

    if "T" not in node.attr:
        raise InvalidArgumentError(f"node '{node.name}' (_Arg) has no 'T' attribute")
    dtype = dtype_from_enum(node.attr["T"].type)
    shapes = node_defs.output_shapes(node)
    shape = shapes[0] if shapes else None
    handle_dtypes = list(node.attr["_handle_dtypes"].list.type) if "_handle_dtypes" in node.attr else []
    if handle_dtypes and dtype is dtypes.resource:  # the variables' types, as TF records them
        handle_shapes = list(node.attr["_handle_shapes"].list.shape) if "_handle_shapes" in node.attr else []
        subtypes = [tf_types.tensor_type(node_defs._shape(handle_shapes[i]) if i < len(handle_shapes) else None,
                                         dtype_from_enum(t)) for i, t in enumerate(handle_dtypes)]
        return tf_types.tensor_type(shape, tf_types.ResourceType(subtypes))
    return tf_types.tensor_type(shape, dtype)


def graph_signature(graph_def, control_outputs=()) -> GraphSignature:
    """The graph with its ``_Arg`` nodes as fed Placeholders and its ``_Retval`` nodes gone, and what they
    said; ``control_outputs`` (node names) must be unique nodes of the graph."""
    if len(set(control_outputs)) != len(control_outputs):
        raise InvalidArgumentError("Control outputs must be unique")
    known = {n.name for n in graph_def.node}
    for name in control_outputs:
        if name not in known:
            raise InvalidArgumentError(f"Control output '{name}' is missing")
    args = sorted((n for n in graph_def.node if n.op == "_Arg"), key=_index)
    rets = sorted((n for n in graph_def.node if n.op == "_Retval"), key=_index)
    body = type(graph_def)()
    body.CopyFrom(graph_def)
    del body.node[:]
    for node in graph_def.node:
        if node.op == "_Retval":
            continue
        copy = body.node.add()
        copy.CopyFrom(node)
        if node.op == "_Arg":  # fed: an argument, never emitted
            copy.op = "Placeholder"
            copy.attr["dtype"].type = node.attr["T"].type
    sig = GraphSignature(body)
    for node in args:
        sig.feeds.append(Feed(f"{node.name}:0", _arg_type(node), node.name))
        sig.arg_names.append(node.name)
        sig.arg_attrs.append(_attrs(node))
    for node in rets:
        data = [i for i in node.input if not i.startswith("^")]
        if len(data) != 1:
            raise InvalidArgumentError(f"node '{node.name}' (_Retval) needs one input, has {len(data)}")
        sig.fetches.append(data[0])
        sig.ret_names.append(node.name)
        sig.ret_attrs.append(_attrs(node))
    return sig


def apply_signature(fn, sig: GraphSignature, soft_placement: bool = False, xla_device_type: str = "") -> None:
    """@main as TF writes a graph imported as a function: its names, attributes, soft placement and
    (``-tf-xla-compile-device-type``) ``_xla_compile_device_type``."""
    entry = dict(fn.attributes["tf.entry_function"].data) if "tf.entry_function" in fn.attributes else {
        "control_outputs": StringAttr("")}
    entry["inputs"] = StringAttr(",".join(sig.arg_names))
    entry["outputs"] = StringAttr(",".join(sig.ret_names))
    fn.attributes["tf.entry_function"] = DictionaryAttr(dict(sorted(entry.items())))
    fn.attributes["allow_soft_placement"] = IntegerAttr(int(soft_placement), i1)
    if xla_device_type:
        fn.attributes["_xla_compile_device_type"] = StringAttr(xla_device_type)
    if any(sig.arg_attrs):
        fn.arg_attrs = ArrayAttr([DictionaryAttr(a) for a in sig.arg_attrs])
    if any(sig.ret_attrs):
        fn.res_attrs = ArrayAttr([DictionaryAttr(a) for a in sig.ret_attrs])
