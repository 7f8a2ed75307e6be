"""``-tf-convert-legacy-fed-inputs``: a TF1 ``LegacyFedInput`` node without inputs is a ``Placeholder``
of its first output type, as TensorFlow's importer replaces it, so it can be fed.

    graph_def = convert_legacy_fed_inputs(graph_def)   # a copy; the caller's GraphDef is unchanged
"""
from __future__ import annotations

from tinytf.errors import InvalidArgumentError


def convert_legacy_fed_inputs(graph_def):
    if not any(n.op == "LegacyFedInput" for n in graph_def.node):
        return graph_def
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    for node in out.node:
        if node.op != "LegacyFedInput" or any(not i.startswith("^") for i in node.input):
            continue
        types = node.attr["output_types"].list.type if "output_types" in node.attr else []
        if not types:
            raise InvalidArgumentError(f"node '{node.name}' (LegacyFedInput) has no output_types")
        dtype = types[0]
        node.op = "Placeholder"
        node.attr.clear()
        node.attr["dtype"].type = dtype
    return out
