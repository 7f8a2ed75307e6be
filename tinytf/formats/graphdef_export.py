"""Functional TF-dialect MLIR -> GraphDef with its function library: the reverse of ``graphdef_import``.

    graph_def = export_graph_def(module)                # @main (else the only public function) as the graph
    exported = export_module(module, entry="__inference_f_1")
    exported.inputs, exported.outputs                   # ["x"], ["identity_RetVal:0"]: what a Session feeds and fetches
    fdef = Exporter(module).function_def(fn)            # one func.func as a FunctionDef
    print(graph_def_text(module))                       # tinytf-translate --mlir-to-graphdef

How a ``func.func`` becomes nodes:

- **Ops.** Each op is a NodeDef of TensorFlow's op type (``tf.If`` with ``is_stateless`` is
  ``StatelessIf``), named after its type (``MatMul``, ``MatMul_1``; a ``VarHandleOp`` after its
  ``shared_name``). Its attributes are the op's properties and derived attributes, plus the typing
  attributes TensorFlow's OpDef needs (``T``, ``Tidx``, ``N``, ``Tin``/``Tout``, ``dtype``: see
  ``op_defs.py``); ``device`` is the NodeDef's device; ``_output_shapes`` records the result types.
  A ``tf.LegacyCall`` of ``@f`` is a node whose op is ``f`` (TensorFlow runs a library function as an op).
- **Inputs.** In a FunctionDef an input is ``node:out_arg:idx`` (``MatMul:product:0``,
  ``Split:output:1``) or an argument's name; in a graph ``node`` / ``node:k``.
- **Side effects.** A block runs its ops in order; a graph runs what data and control edges order.
  So every op that is not pure (variable reads and writes, calls, stateful random ops) gets a
  control input (``^prev``) on the side-effecting op before it, and in a FunctionDef they are all
  ``control_ret``s (TensorFlow runs them even when no output needs them).
- **Function arguments.** ``input_arg`` names come from ``tf._user_specified_name``, else the SSA
  name (lowercased, made unique: ``x``, ``resource``, ``resource_1``); resource arguments carry
  ``handle_data`` (the variable's dtype and shape); output arguments are named after the node that
  produces them.
- **The graph.** The entry function's arguments are ``Placeholder`` nodes, or ``VarHandleOp`` nodes
  for resources (or DT_RESOURCE Placeholders, as TensorBoard shows a traced function), named by
  ``tf.entry_function``'s ``inputs``, else as function arguments are; each result is fetched from a
  node named by ``tf.entry_function``'s ``outputs`` (the producing node is renamed, or an
  ``Identity`` is added), which also waits for the last side effect. Every other function goes to
  the library.

Exporting what tinytf's importer reads back and exporting again gives the same GraphDef.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, SymbolRefAttr, UnregisteredOp
from xdsl.traits import Pure

from tinytf.errors import FailedPreconditionError, InvalidArgumentError, UnimplementedError
from tinytf.formats import op_defs
from tinytf.formats.graph_names import Names, arg_labels, arg_name, entry_names, function_name, node_name, user_names
from tinytf.framework import tf_types
from tinytf.framework.op import Op

DEFAULT_PRODUCER = 2474  # TensorFlow 2.21's GraphDef version, which tinytf's traced functions declare


def _protos():
    from tinytf.formats import protos

    return protos


def _shape_proto(type_):
    from tinytf.formats import tensor_proto

    return tensor_proto.shape_to_proto(tf_types.shape_of(type_))


def _enum(type_, where: str) -> int:
    from tinytf.formats import tensor_proto

    return tensor_proto.enum_of(op_defs.tf_dtype(type_, where))


def _op_label(op) -> str:
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def _string_attr(op, key: str) -> str | None:
    raw = op.attributes.get(key)
    return raw.data if isinstance(raw, StringAttr) else None


@dataclass
class _Emitted:
    node: object                  # the NodeDef
    outputs: list                 # (output argument name, offset, length) per output argument
    side_effect: bool


@dataclass
class Export:
    """A GraphDef and how to run it: the Placeholders to feed, the tensors to fetch, the variables."""

    graph_def: object
    inputs: list[str] = field(default_factory=list)      # Placeholder node names, in argument order
    outputs: list[str] = field(default_factory=list)     # "node:0" per result
    variables: list[str] = field(default_factory=list)   # VarHandleOp node names of resource arguments


class Exporter:
    """Exports the functions of one module; ``op_types`` collects the TensorFlow ops it wrote.
    ``elsewhere`` names functions the library gets from another module (a call to any other function
    the module lacks is an error)."""

    def __init__(self, module: ModuleOp, elsewhere=()):
        self.module = module
        self.functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
        self.elsewhere = frozenset(elsewhere)
        self.op_types: set[str] = set()
        self._fdefs: dict = {}  # function name -> its FunctionDef (None while it is being exported)

    def _callee(self, name: str, where: str) -> str:
        if name not in self.functions and name not in self.elsewhere:
            raise InvalidArgumentError(f"{where}: calls @{name}, which the module does not define")
        return function_name(name)

    # --- one op ----------------------------------------------------------------------------------

    def _node(self, op, name: str, inputs: list[str], where: str) -> _Emitted:
        protos = _protos()
        if isinstance(op, UnregisteredOp) or not isinstance(op, Op):
            raise UnimplementedError(f"{where}: tinytf cannot export '{_op_label(op)}' (not a tinytf op: its OpDef "
                                     "is unknown)")
        if op.regions:
            raise UnimplementedError(f"{where}: '{op.name}' holds regions; export the functional form")
        try:
            values = op.attr_values()
        except InvalidArgumentError as err:
            raise InvalidArgumentError(f"{where}: {err.message}") from None
        if op.name == "tf.LegacyCall":
            return self._legacy_call(op, values, name, inputs, where)
        op_type = op_defs.graph_op_name(op, values)
        sig = op_defs.signature(op_type)
        kinds = {k: kind for k, kind, _ in sig.attrs}
        node = protos.node_def_pb2.NodeDef(name=name, op=op_type)
        node.input.extend(inputs)
        specs = type(op).attr_specs()
        for key, value in values.items():
            # (None is an unknown shape for a shape attribute, written as unknown_rank: PlaceholderWithDefault
            # requires one; for any other attribute it is "not given")
            if key in op_defs.MLIR_ONLY_ATTRS or (value is None and kinds.get(key) != "shape"):
                continue
            if key not in kinds and key.startswith("_") and op_defs.attr_type(key, specs[key]):
                kinds[key] = op_defs.attr_type(key, specs[key])  # an internal attribute of the node (_XlaSharding)
            if key not in kinds:  # declared by tinytf, not by TensorFlow's op: only its default may be dropped
                if value == specs[key].default:
                    continue
                raise UnimplementedError(f"{where}: TensorFlow's {op_type} has no attribute {key} (here {value!r})")
            if specs[key].kind == "any":
                value = _any_value(value, kinds[key], where)
            if kinds[key] == "func":
                value = self._callee(value, where)
            elif kinds[key] == "list(func)":
                value = [self._callee(v, where) for v in value]
            try:
                node.attr[key].CopyFrom(op_defs.attr_value(kinds[key], value))
            except InvalidArgumentError as err:
                raise InvalidArgumentError(f"{where}: attribute {key}: {err.message}") from None
        typing, layout = op_defs.node_typing(sig, [v.type for v in op.operands], [r.type for r in op.results],
                                             {k: v for k, v in values.items() if v is not None},
                                             where if op.name == f"tf.{op_type}" else f"{where} (as {op_type})")
        for key, value in typing.items():
            node.attr[key].CopyFrom(op_defs.attr_value(kinds.get(key, "type"), value))
        self._describe(op, node)
        self.op_types.add(op_type)
        return _Emitted(node, layout, not op.has_trait(Pure) and op_type not in op_defs.STATELESS_FORMS)

    def _legacy_call(self, op, values: dict, name: str, inputs: list[str], where: str) -> _Emitted:
        """A ``tf.LegacyCall`` of ``@f``: a node whose op is ``f`` (TensorFlow runs a library function
        as an op), its outputs the FunctionDef's output arguments."""
        callee = values["f"]
        if callee not in self.functions:
            raise InvalidArgumentError(f"{where}: calls @{callee}, which the module does not define")
        if self._fdefs.get(callee, False) is None:
            raise UnimplementedError(f"{where}: @{callee} calls itself (a recursive call cannot be exported)")
        outputs = self.function_def(self.functions[callee]).signature.output_arg
        node = _protos().node_def_pb2.NodeDef(name=name, op=function_name(callee), input=inputs)
        node.attr["_disable_call_shape_inference"].b = bool(values.get("_disable_call_shape_inference"))
        self._describe(op, node)
        return _Emitted(node, [(a.name, i, 1) for i, a in enumerate(outputs)], True)

    @staticmethod
    def _describe(op, node) -> None:
        """The node's device and ``_output_shapes`` (the op's result types)."""
        device = _string_attr(op, "device")
        if device:
            node.device = device
        if op.results:
            shapes = node.attr["_output_shapes"].list
            for r in op.results:
                shapes.shape.add().CopyFrom(_shape_proto(r.type))

    # --- a function body ---------------------------------------------------------------------------

    def _body(self, fn: func.FuncOp, names: Names, refs: dict, graph_mode: bool, where: str):
        """NodeDefs of ``fn``'s ops in order; ``refs`` maps each SSA value to its input string (filled in)."""
        nodes, effects = [], []
        counter = 0
        for op in fn.body.block.ops:
            if isinstance(op, func.ReturnOp):
                return nodes, effects, op
            counter += 1
            inputs = []
            for v in op.operands:
                if v not in refs:
                    raise InvalidArgumentError(f"{where}: an operand of '{_op_label(op)}' is defined in another block")
                inputs.append(refs[v])
            base = _op_label(op)[3:] if _op_label(op).startswith("tf.") else _op_label(op)
            if base == "VarHandleOp":
                shared = _string_attr(op, "shared_name") or (
                    op.properties["shared_name"].data if "shared_name" in op.properties else "")
                base = shared or base
            elif base == "LegacyCall" and isinstance(op.properties.get("f"), SymbolRefAttr):
                base = op.properties["f"].root_reference.data  # (named after its type, the callee, as other nodes)
            name = names.unique(node_name(base))
            emitted = self._node(op, name, inputs, f"{where}, op {counter} ({_op_label(op)})")
            if emitted.side_effect:
                if effects:
                    emitted.node.input.append("^" + effects[-1].node.name)
                effects.append(emitted)
            for arg, offset, length in emitted.outputs:
                for k in range(length):
                    result = op.results[offset + k]
                    refs[result] = (name if offset + k == 0 else f"{name}:{offset + k}") if graph_mode \
                        else f"{name}:{arg}:{k}"
            nodes.append(emitted)
        raise InvalidArgumentError(f"{where}: the function has no return")

    def function_def(self, fn: func.FuncOp):
        """``fn`` as a FunctionDef (its callees are other functions of the library)."""
        name = fn.sym_name.data
        if self._fdefs.get(name) is None:
            self._fdefs[name] = None
            try:
                self._fdefs[name] = self._function_def(fn)
            except BaseException:
                del self._fdefs[name]
                raise
        return self._fdefs[name]

    def _function_def(self, fn: func.FuncOp):
        protos = _protos()
        name = fn.sym_name.data
        where = f"@{name}"
        if len(fn.body.blocks) != 1:
            raise UnimplementedError(f"{where}: a function of {len(fn.body.blocks)} blocks cannot be a FunctionDef")
        fdef = protos.function_pb2.FunctionDef()
        sig = fdef.signature
        sig.name = function_name(name)
        names, refs = Names(), {}
        hints, labels = user_names(fn), arg_labels(fn)
        for i, arg in enumerate(fn.body.block.args):
            a = sig.input_arg.add(name=names.unique(arg_name(labels[i])), type=_enum(arg.type, f"{where}, argument {i}"))
            sub = tf_types.resource_subtype(arg.type) if tf_types.is_resource(arg.type) else None
            if sub is not None:
                handle = a.handle_data.add(dtype=_enum(sub, f"{where}, argument {i}'s variable"))
                handle.shape.CopyFrom(_shape_proto(sub))
            attrs = fdef.arg_attr[i].attr
            if hints[i] is not None:
                attrs["_user_specified_name"].s = hints[i].encode()
            if not tf_types.is_resource(arg.type):
                attrs["_output_shapes"].list.shape.add().CopyFrom(_shape_proto(arg.type))
            refs[arg] = a.name
        emitted, effects, ret = self._body(fn, names, refs, False, where)
        fdef.node_def.extend(e.node for e in emitted)
        out_names = Names()
        out_names.taken |= {a.name for a in sig.input_arg}
        for v in ret.operands:
            ref = refs[v]
            base = arg_name(ref.split(":")[0]) if ":" in ref else "output"
            sig.output_arg.add(name=out_names.unique(base), type=_enum(v.type, f"{where}, result {len(sig.output_arg)}"))
            fdef.ret[sig.output_arg[-1].name] = ref
        for e in effects:
            sig.control_output.append(e.node.name)
            fdef.control_ret[e.node.name] = e.node.name
        sig.is_stateful = bool(effects)
        return fdef

    # --- the graph --------------------------------------------------------------------------------

    def graph(self, fn: func.FuncOp, graph_def, resources: str = "variables") -> Export:
        """``fn``'s arguments, ops and results as nodes of ``graph_def``; ``resources="placeholders"`` makes
        a resource argument a DT_RESOURCE Placeholder (as a traced function's graph shows a capture)
        instead of a VarHandleOp."""
        if resources not in ("variables", "placeholders"):
            raise InvalidArgumentError(f"resources='{resources}': 'variables' or 'placeholders'")
        protos = _protos()
        where = f"@{fn.sym_name.data}"
        names, refs = Names(), {}
        entry_inputs, labels = entry_names(fn, "inputs"), arg_labels(fn)
        out = Export(graph_def)
        for i, arg in enumerate(fn.body.block.args):
            given = entry_inputs[i] if i < len(entry_inputs) and entry_inputs[i] else labels[i]
            name = names.unique(node_name(given.split(":")[0]))
            if tf_types.is_resource(arg.type) and resources == "variables":
                sub = tf_types.resource_subtype(arg.type)
                if sub is None:
                    raise InvalidArgumentError(f"{where}: resource argument {i} has no variable type "
                                               "(tensor<!tf_type.resource<tensor<...>>>): its VarHandleOp needs one")
                node = graph_def.node.add(name=name, op="VarHandleOp")
                node.attr["dtype"].type = _enum(sub, f"{where}, argument {i}'s variable")
                node.attr["shape"].shape.CopyFrom(_shape_proto(sub))
                node.attr["shared_name"].s = name.encode()
                self.op_types.add("VarHandleOp")
                out.variables.append(name)
            else:
                node = graph_def.node.add(name=name, op="Placeholder")
                node.attr["dtype"].type = _enum(arg.type, f"{where}, argument {i}")
                node.attr["shape"].shape.CopyFrom(_shape_proto(arg.type))
                self.op_types.add("Placeholder")
                out.inputs.append(name)
            node.attr["_output_shapes"].list.shape.add().CopyFrom(_shape_proto(arg.type))
            refs[arg] = name
        emitted, effects, ret = self._body(fn, names, refs, True, where)
        position = {id(e.node): i for i, e in enumerate(emitted)}
        last_effect = position[id(effects[-1].node)] if effects else -1
        by_name = {e.node.name: e for e in emitted}
        wanted = entry_names(fn, "outputs")
        renamed: set[str] = set()
        extra = []
        for i, v in enumerate(ret.operands):
            given = wanted[i] if i < len(wanted) and wanted[i] else f"output_{i}"
            base, _, index = given.partition(":")
            base = node_name(base)
            ref = refs[v]
            source, _, flat = ref.partition(":")
            producer = by_name.get(source)
            if (producer is not None and source not in renamed and int(flat or 0) == int(index or 0)
                    and position[id(producer.node)] >= last_effect and base not in names.taken - {source}
                    and sum(1 for r in ret.operands if refs[r].partition(":")[0] == source) == 1):
                names.taken.discard(source)
                names.taken.add(base)
                _rename(emitted, refs, source, base)
                renamed.add(base)
                node = producer.node
                out.outputs.append(f"{base}:{int(flat or 0)}")
            else:
                node = protos.node_def_pb2.NodeDef(name=names.unique(base), op="Identity", input=[refs[v]])
                node.attr["T"].type = _enum(v.type, f"{where}, result {i}")
                node.attr["_output_shapes"].list.shape.add().CopyFrom(_shape_proto(v.type))
                self.op_types.add("Identity")
                extra.append(node)
                out.outputs.append(f"{node.name}:0")
            last = effects[-1].node.name if effects else None
            if last is not None and node.name != last and not any(r.lstrip("^").partition(":")[0] == last
                                                                   for r in node.input):
                node.input.append("^" + last)
        graph_def.node.extend(e.node for e in emitted)
        graph_def.node.extend(extra)
        return out

    def library(self, graph_def, skip=()) -> None:
        """Every function of the module but ``skip`` as a FunctionDef of ``graph_def.library``."""
        for name, fn in self.functions.items():
            if name not in skip:
                graph_def.library.function.add().CopyFrom(self.function_def(fn))


def _rename(emitted, refs, old: str, new: str) -> None:
    """Rename node ``old`` to ``new`` in the nodes emitted so far and in the value references."""
    for e in emitted:
        if e.node.name == old:
            e.node.name = new
        for j, ref in enumerate(e.node.input):
            bare = ref.lstrip("^")
            if bare.partition(":")[0] == old:
                e.node.input[j] = ("^" if ref.startswith("^") else "") + new + bare[len(old):]
    for v, ref in list(refs.items()):
        if ref.partition(":")[0] == old:
            refs[v] = new + ref[len(old):]


def _any_value(value, kind: str, where: str):
    """An ``any``-kind attribute (an MLIR attribute) as the Python value of TensorFlow's ``kind``."""
    if kind == "list(func)" and isinstance(value, ArrayAttr) and all(isinstance(v, SymbolRefAttr) for v in value.data):
        return [v.root_reference.data for v in value.data]
    raise UnimplementedError(f"{where}: cannot export the attribute {value} as {kind}")


def entry_function(module: ModuleOp, entry: str | None = None) -> func.FuncOp:
    """The function a GraphDef's nodes come from: ``entry``, else ``@main``, else the only public one."""
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    if entry is not None:
        if entry not in functions:
            raise InvalidArgumentError(f"the module has no function @{entry} (it has "
                                       f"{', '.join('@' + n for n in functions) or 'none'})")
        return functions[entry]
    if "main" in functions:
        return functions["main"]
    public = [fn for fn in functions.values() if fn.sym_visibility is None or fn.sym_visibility.data == "public"]
    if len(public) == 1:
        return public[0]
    raise FailedPreconditionError("entry function `main` must be present (or exactly one public function)")


def _versions(module: ModuleOp, graph_def) -> None:
    raw = module.attributes.get("tf.versions")
    data = raw.data if raw is not None else {}

    def value(key, default):
        attr = data.get(key)
        return int(attr.value.data) if attr is not None else default

    graph_def.versions.producer = value("producer", DEFAULT_PRODUCER)
    graph_def.versions.min_consumer = value("min_consumer", 0)
    bad = data.get("bad_consumers")
    if bad is not None:
        graph_def.versions.bad_consumers.extend(int(v.value.data) for v in bad.data)


def export_module(module: ModuleOp, entry: str | None = None, resources: str = "variables") -> Export:
    """The GraphDef of ``module``: the entry function (see ``entry_function``) as the graph, the other
    functions as its library; resource arguments are VarHandleOps (``resources="variables"``) or
    Placeholders (``"placeholders"``)."""
    graph_def = _protos().graph_pb2.GraphDef()
    exporter = Exporter(module)
    fn = entry_function(module, entry)
    out = exporter.graph(fn, graph_def, resources)
    exporter.library(graph_def, skip={fn.sym_name.data})
    _versions(module, graph_def)
    return out


def export_graph_def(module: ModuleOp, entry: str | None = None):
    """``export_module(module, entry).graph_def``."""
    return export_module(module, entry).graph_def


def graph_def_text(module: ModuleOp, entry: str | None = None) -> str:
    """The GraphDef as a text proto (what ``tinytf-translate --mlir-to-graphdef`` prints)."""
    from google.protobuf import text_format

    return text_format.MessageToString(export_graph_def(module, entry))


__all__ = ["Export", "Exporter", "entry_function", "export_graph_def", "export_module", "graph_def_text"]
