"""TF1 ref variables rewritten as resource variables, at the GraphDef level, before import.

    nodes = upgrade_ref_variables(graph_def.node, op_defs)

A TF1 graph holds ``VariableV2`` nodes whose output is a *ref*: consumers read it implicitly
(``a/read = Identity(a)``, or any op taking ``a`` directly) and ``Assign`` / ``AssignAdd`` /
``AssignSub`` update it and return the ref again. Resource variables say the same explicitly, and
XLA compiles them (TensorFlow's importer does the same upgrade for SavedModels:
``tf-convert-readonly-reference-variables-to-resource-variables`` and variable lifting):

- ``v = VariableV2(shape, dtype)``  ->  ``v = VarHandleOp(shape, dtype, shared_name=v)``;
- ``r = Identity(v)``               ->  ``r = ReadVariableOp(v)`` (same name, same control inputs);
- an op reading ``v`` directly      ->  it reads ``v/read_for_<op>``, a ReadVariableOp carrying the
  consumer's control inputs, so the read happens where the consumer runs;
- ``n = Assign(v, x)`` (AssignAdd, AssignSub) -> ``n/update = AssignVariableOp(v, x)`` and
  ``n = ReadVariableOp(v, ^n/update)``: whoever used the returned ref, or waited on ``^n``, sees
  the updated value.

Other ops that take refs (ScatterUpdate, Apply*, ...) are left as they are: importing one that a
signature needs fails, naming it.
"""
from __future__ import annotations

_VARIABLE_OPS = ("VariableV2", "Variable")
_UPDATES = {"Assign": "AssignVariableOp", "AssignAdd": "AssignAddVariableOp", "AssignSub": "AssignSubVariableOp"}


def _node_def():
    from tinytf.formats import protos

    return protos.node_def_pb2.NodeDef


def _ref_inputs(node, op_defs) -> set[int]:
    """Indices of the data inputs of ``node`` that its OpDef declares as refs (``is_ref``)."""
    op_def = op_defs.get(node.op)
    if op_def is None:
        return {0} if node.op.startswith(("Apply", "Scatter", "CountUpTo", "IsVariableInitialized")) else set()
    out, index = set(), 0
    for arg in op_def.input_arg:
        count = 1
        if arg.number_attr and arg.number_attr in node.attr:
            count = int(node.attr[arg.number_attr].i)
        elif arg.type_list_attr and arg.type_list_attr in node.attr:
            count = len(node.attr[arg.type_list_attr].list.type)
        if arg.is_ref:
            out.update(range(index, index + count))
        index += count
    return out


def _read(name: str, var: str, dtype_attr, controls=(), device: str = ""):
    node = _node_def()(name=name, op="ReadVariableOp", input=[var, *controls], device=device)
    node.attr["dtype"].CopyFrom(dtype_attr)
    return node


def upgrade_ref_variables(nodes, op_defs=None) -> list:
    """The nodes with every ref variable made a resource variable (see the module docstring)."""
    op_defs = op_defs or {}
    variables = {n.name: n for n in nodes if n.op in _VARIABLE_OPS}
    if not variables:
        return list(nodes)

    def var_of(ref: str) -> str | None:
        name, _, index = ref.partition(":")
        return name if name in variables and index in ("", "0") and not ref.startswith("^") else None

    out = []
    for node in nodes:
        if node.op in _VARIABLE_OPS:
            handle = _node_def()(name=node.name, op="VarHandleOp", device=node.device)
            for key in ("dtype", "shape", "container"):
                if key in node.attr:
                    handle.attr[key].CopyFrom(node.attr[key])
            shared = node.attr["shared_name"].s if "shared_name" in node.attr else b""
            handle.attr["shared_name"].s = shared or node.name.encode()
            out.append(handle)
            continue
        controls = [ref for ref in node.input if ref.startswith("^")]
        data = [ref for ref in node.input if not ref.startswith("^")]
        var = var_of(data[0]) if data else None
        dtype = variables[var].attr["dtype"] if var else None
        if var and node.op == "Identity":
            out.append(_read(node.name, var, dtype, controls, node.device))
            continue
        if var and node.op in _UPDATES:
            update = _node_def()(name=f"{node.name}/update", op=_UPDATES[node.op], device=node.device,
                                 input=[var, *data[1:], *controls])
            if node.op == "Assign":
                update.attr["dtype"].CopyFrom(dtype)
                if "validate_shape" in node.attr:
                    update.attr["validate_shape"].CopyFrom(node.attr["validate_shape"])
            out.extend([update, _read(node.name, var, dtype, [f"^{update.name}"], node.device)])
            continue
        refs = _ref_inputs(node, op_defs)
        reads, inputs = [], []
        for i, ref in enumerate(data):
            v = var_of(ref)
            if v is None or i in refs:
                inputs.append(ref)
                continue
            read = _read(f"{v}/read_for_{node.name}_{i}", v, variables[v].attr["dtype"], controls, node.device)
            reads.append(read)
            inputs.append(read.name)
        if reads:
            node = _copy(node, inputs + controls)
            out.extend(reads)
        out.append(node)
    return out


def _copy(node, inputs):
    new = _node_def()()
    new.CopyFrom(node)
    del new.input[:]
    new.input.extend(inputs)
    return new


def is_variable(node) -> bool:
    return node.op in ("VarHandleOp", *_VARIABLE_OPS)
