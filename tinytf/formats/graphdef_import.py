"""GraphDef and FunctionDef -> functional MLIR: a ``func.func`` of ``tf.*`` ops, without TensorFlow.

    module = import_graph_def(graph_def, inputs=["x"], outputs=["y"])   # @main(%x) -> %y
    importer = GraphImporter(graph_def.library, meta_graph.meta_info_def.stripped_op_list)
    fn = importer.function("__inference_predict_235")                   # a FunctionDef, with its callees
    fn = importer.graph(nodes, feeds=[Feed("x:0", type_)], fetches=["y:0"], prune=True, name="predict")
    importer.check()                    # one UnimplementedError naming every op tinytf lacks, and where
    module = importer.module()

How a graph becomes one block of the functional form:

- **Order.** The ops are a topological order of the data *and control* edges (ties keep the nodes'
  order in the file). The executors run a block's ops one after another, so a control input
  ``^x`` is kept as ordering: the op runs after ``x``. No control edges appear in the IR, and NoOp
  nodes, which carry only control edges, are dropped. (A side-effecting op no output depends on
  still runs: nothing is pruned inside a FunctionDef, and a graph is pruned only from its fetches
  *and* targets, over data and control edges alike.)
- **Names.** A graph input ``x`` / ``x:1`` names a node's flat output; a FunctionDef input
  ``Mul:z:0`` an output argument of the op, resolved through ``node_defs.output_layout`` (the
  SavedModel's stripped OpDefs, else tinytf's op class); a bare name a function argument.
- **Ops and attributes.** Each node becomes an instance of tinytf's op class ``tf.<op>`` (the
  registry), its attributes through ``node_defs.node_attrs``; the class's shape rule gives the result
  types (refined by ``_output_shapes`` and by a callee's result types). Functions named by ``f``,
  ``then_branch``, ``body``, ... are imported from the library on first use. A node's ``device`` is
  kept as the ``device`` attribute TensorFlow prints.
- **Arguments.** Fed tensors (``Feed``) are the arguments: Placeholders by default, any tensor when
  a SavedModel signature names one. An unfed Placeholder the fetches need is an error.
- **Unknown ops** are gathered, not raised one by one: ``check()`` raises one UnimplementedError
  naming each missing op with its nodes. With ``allow_unregistered`` (for printing only) they
  become generic unregistered ops typed by their OpDef.

The ``tf_executor`` form TensorFlow's importer writes (islands, control tokens, TF's node order) is
graphdef_executor.py, a subclass of ``_Body`` through the hooks marked below; its
``tf-executor-to-functional-conversion`` runs as this module's functional form does.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr, UnregisteredOp, i32
from xdsl.ir import Attribute, Block, Region

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, OpError, UnimplementedError
from tinytf.formats import node_defs
from tinytf.framework import tf_types
from tinytf.framework.op import REGISTRY, calls_functions
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import AbstractVariable


@dataclass
class Feed:
    """A tensor given as a function argument: ``tensor`` is ``node:index``; ``type_`` its MLIR type."""

    tensor: str
    type_: Attribute
    name: str | None = None


class _Value:
    __slots__ = ("ssa", "spec", "tainted")

    def __init__(self, ssa, spec: TensorSpec, tainted: bool = False):
        self.ssa, self.spec, self.tainted = ssa, spec, tainted


def tensor_name(ref: str) -> tuple[str, int]:
    """``"x"`` -> ``("x", 0)``, ``"x:1"`` -> ``("x", 1)`` (a GraphDef input or a signature's tensor name)."""
    name, _, index = ref.lstrip("^").partition(":")
    if index and not index.isdigit():
        raise InvalidArgumentError(f"'{ref}' is not a tensor name (node or node:index)")
    return name, int(index or 0)


class _Handle(AbstractVariable):
    """What a typed resource (``tensor<!tf_type.resource<tensor<2xf32>>>``) tells shape rules of its
    variable, so ``tf.ReadVariableOp`` of it is typed ``tensor<2xf32>``."""

    __slots__ = ("dtype", "shape", "name")

    def __init__(self, sub):
        self.dtype, self.shape, self.name = tf_types.dtype_of(sub), tf_types.shape_of(sub), "handle"


def _spec_of_type(type_) -> TensorSpec:
    sub = tf_types.resource_subtype(type_) if tf_types.is_resource(type_) else None
    return TensorSpec(tf_types.shape_of(type_), tf_types.dtype_of(type_), value=_Handle(sub) if sub else None)


class GraphImporter:
    """Imports graphs and library functions of one GraphDef into one module."""

    body_class = None  # _Body, set below (graphdef_executor.ExecutorImporter: its tf_executor form)

    def __init__(self, library=None, op_list=None, allow_unregistered: bool = False):
        self.fdefs = {f.signature.name: f for f in library.function} if library is not None else {}
        self.op_defs = {op.name: op for op in op_list.op} if op_list is not None else {}
        self.allow_unregistered = allow_unregistered
        self.functions: dict[str, func.FuncOp] = {}
        self.missing: dict[str, list[str]] = {}  # op type -> where it is used
        self.lifted: dict[str, list[str]] = {}   # graph function -> its variables' node names
        self._importing: set[str] = set()
        self._module: ModuleOp | None = None

    # --- public ----------------------------------------------------------------------------------

    def function(self, name: str) -> func.FuncOp | None:
        """The library function ``name`` as a private ``func.func`` (imported once, callees first)."""
        if name in self.functions or name in self._importing:
            return self.functions.get(name)
        fdef = self.fdefs.get(name)
        if fdef is None:
            raise InvalidArgumentError(f"function '{name}' is not in the graph's function library")
        self._importing.add(name)
        try:
            fn = self.body_class(self, f"function {name}").function_def(fdef)
        finally:
            self._importing.discard(name)
        self.functions[name] = fn
        return fn

    def graph(self, nodes, feeds=(), fetches=(), targets=(), prune=False, name="main",
              lift_variables=False) -> func.FuncOp:
        """A public function of the graph's ``nodes``: ``feeds`` are its arguments, ``fetches`` its results;
        ``targets`` name nodes that must run; ``prune`` keeps only what fetches and targets need.
        ``lift_variables``: each VarHandleOp it uses becomes a trailing resource argument instead
        (their node names in ``self.lifted[name]``), as TensorFlow lifts a SavedModel's variables."""
        body = self.body_class(self, "graph")
        fn = body.graph(list(nodes), list(feeds), list(fetches), list(targets), prune, name, lift_variables)
        self.functions[name] = fn
        self.lifted[name] = body.lifted
        return fn

    def check(self) -> None:
        """One UnimplementedError naming every op tinytf lacks (the import goes on past the first)."""
        if not self.missing or self.allow_unregistered:
            return
        parts = []
        for op, wheres in sorted(self.missing.items()):
            shown = ", ".join(wheres[:4]) + (f" and {len(wheres) - 4} more" if len(wheres) > 4 else "")
            parts.append(f"{op} ({shown})")
        raise UnimplementedError(f"tinytf does not implement {len(parts)} TensorFlow op"
                                 f"{'s' if len(parts) > 1 else ''} this graph uses: {'; '.join(parts)}")

    def module(self, versions=None) -> ModuleOp:
        """The module of every function imported so far (one module: later imports join it)."""
        module = self._module
        if module is None:
            module = self._module = ModuleOp([])
        for fn in self.functions.values():
            if fn.parent is None:
                module.body.blocks[0].add_op(fn)
        if versions is not None:
            module.attributes["tf.versions"] = DictionaryAttr({
                "bad_consumers": ArrayAttr([IntegerAttr(int(v), i32) for v in versions.bad_consumers]),
                "min_consumer": IntegerAttr(int(versions.min_consumer), i32),
                "producer": IntegerAttr(int(versions.producer), i32)})
        return module


class _Body:
    """Builds one block: values by node, then ops in topological order."""

    call_op = "tf.StatefulPartitionedCall"  # what a node calling a library function becomes

    def __init__(self, importer: GraphImporter, where: str):
        self.importer = importer
        self.where = where
        self.block = Block()
        self.values: dict[str, list[_Value]] = {}
        self.offsets: dict[str, dict[str, int]] = {}  # node -> output argument -> flat offset
        self.args: dict[str, _Value] = {}             # FunctionDef argument name -> value
        self.fed: dict[tuple[str, int], _Value] = {}  # graph tensor -> argument value
        self.is_function = False
        self._fed_nodes: set[str] = set()

    # --- FunctionDef -----------------------------------------------------------------------------

    def function_def(self, fdef) -> func.FuncOp:
        self.is_function = True
        sig = fdef.signature
        arg_attrs = []
        for i, arg in enumerate(sig.input_arg):
            if not arg.type:
                raise UnimplementedError(f"{self.where}: argument '{arg.name}' has a polymorphic type "
                                         f"({arg.type_attr or arg.type_list_attr}); tinytf imports concrete functions")
            attrs = fdef.arg_attr[i].attr if i in fdef.arg_attr else {}
            shapes = node_defs.output_shapes(_AttrHolder(attrs)) if "_output_shapes" in attrs else []
            if not shapes and "_input_shapes" in fdef.attr:  # the function's own record of its argument shapes
                recorded = node_defs.output_shapes(_AttrHolder({"_output_shapes": fdef.attr["_input_shapes"]}))
                shapes = recorded[i:i + 1]
            from tinytf.formats.tensor_proto import dtype_from_enum

            type_ = tf_types.tensor_type(shapes[0] if shapes else None, dtype_from_enum(arg.type))
            value = self.block.insert_arg(type_, len(self.block.args))
            value.name_hint = f"arg{i}"
            self.args[arg.name] = _Value(value, _spec_of_type(type_))
            user = {"tf._user_specified_name": StringAttr(attrs["_user_specified_name"].s.decode("utf-8", "replace"))} \
                if "_user_specified_name" in attrs else {}
            arg_attrs.append(DictionaryAttr(user))
        self._emit_all(list(fdef.node_def))
        results = []
        for out in sig.output_arg:
            if out.name not in fdef.ret:
                raise InvalidArgumentError(f"{self.where}: output '{out.name}' has no entry in ret")
            results.append(self._input(fdef.ret[out.name], f"output '{out.name}'"))
        return self._finish(sig.name, results, arg_attrs if any(a.data for a in arg_attrs) else None, "private")

    # --- GraphDef --------------------------------------------------------------------------------

    def graph(self, nodes, feeds, fetches, targets, prune, name, lift_variables=False) -> func.FuncOp:
        by_name = {}
        for node in nodes:
            if node.name in by_name:
                raise InvalidArgumentError(f"graph: two nodes are named '{node.name}'")
            by_name[node.name] = node
        for feed in feeds:
            tensor = tensor_name(feed.tensor)
            if tensor[0] not in by_name:
                raise InvalidArgumentError(f"graph: input '{feed.tensor}' names no node of the graph")
            value = self.block.insert_arg(feed.type_, len(self.block.args))
            value.name_hint = f"arg{len(self.block.args) - 1}"
            self.fed[tensor] = _Value(value, _spec_of_type(feed.type_))
        roots = [tensor_name(f)[0] for f in fetches] + [t.lstrip("^") for t in targets]
        for root in roots:
            if root not in by_name:
                raise InvalidArgumentError(f"Output {root} was not found in graph")  # (TensorFlow's words)
        if prune:
            nodes = self._needed(by_name, fetches, targets)
        self.lifted = []
        for node in nodes if lift_variables else ():
            if node.op == "VarHandleOp" and (node.name, 0) not in self.fed:
                attrs = node_defs.node_attrs(node, REGISTRY["tf.VarHandleOp"], None, f"node '{node.name}': ")
                sub = tf_types.tensor_type(attrs.get("shape"), attrs["dtype"])
                type_ = tf_types.tensor_type((), tf_types.ResourceType([sub]))
                value = self.block.insert_arg(type_, len(self.block.args))
                value.name_hint = f"arg{len(self.block.args) - 1}"
                self.fed[(node.name, 0)] = _Value(value, _spec_of_type(type_))
                self.lifted.append(node.name)
        self.replaced = [n for n in nodes if self._replaced(n, nodes)]  # (fed: arguments stand for them)
        nodes = [n for n in nodes if not self._replaced(n, nodes)]
        self.fetches = fetches
        self._emit_all(nodes)
        results = [self._input(f, f"output '{f}'") for f in fetches]
        fn = self._finish(name, results, None, None)
        fn.attributes["tf.entry_function"] = DictionaryAttr({
            "control_outputs": StringAttr(",".join(t.lstrip("^") for t in targets)),
            "inputs": StringAttr(",".join([f.name or tensor_name(f.tensor)[0] for f in feeds] + self.lifted)),
            "outputs": StringAttr(",".join(fetches))})
        return fn

    def _replaced(self, node, nodes) -> bool:
        """Whether feeding replaces ``node``: every output of it that anything reads is fed (a control
        edge on a replaced node is dropped, as when TensorFlow feeds a Placeholder)."""
        if (node.name, 0) not in self.fed:
            return False
        if node.op in ("Placeholder", "VarHandleOp", "PlaceholderWithDefault", "Const"):
            return True
        for other in nodes:
            for ref in other.input:
                tensor = tensor_name(ref)
                if tensor[0] == node.name and not ref.startswith("^") and tensor not in self.fed:
                    return False
        return True

    def _needed(self, by_name, fetches, targets) -> list:
        """The nodes fetches and targets depend on (data and control edges), stopping at fed tensors."""
        keep, stack = set(), []
        for ref in fetches:
            tensor = tensor_name(ref)
            if tensor not in self.fed:
                stack.append(tensor[0])
        stack.extend(t.lstrip("^") for t in targets)
        while stack:
            name = stack.pop()
            if name in keep:
                continue
            keep.add(name)
            node = by_name.get(name)
            if node is None:
                continue
            for ref in node.input:
                tensor = tensor_name(ref)
                if ref.startswith("^") or tensor not in self.fed:
                    stack.append(tensor[0])
        return [n for n in by_name.values() if n.name in keep]

    # --- emitting --------------------------------------------------------------------------------

    def _source(self, ref: str) -> str | None:
        """The node an input names (None for a function argument or a fed tensor)."""
        if self.is_function:
            parts = ref.lstrip("^").split(":")
            return parts[0] if len(parts) > 1 or ref.startswith("^") else None
        tensor = tensor_name(ref)
        return None if (tensor in self.fed and not ref.startswith("^")) else tensor[0]

    def _emit_all(self, nodes) -> None:
        self._fed_nodes = {name for name, _ in self.fed}
        index = {n.name: i for i, n in enumerate(nodes)}
        used: dict[str, int] = {}
        for ref in getattr(self, "fetches", ()):  # 1 + the highest output index anything reads
            name, i = tensor_name(ref)
            used[name] = max(used.get(name, 0), i + 1)
        deps: dict[str, set[str]] = {n.name: set() for n in nodes}
        users: dict[str, list[str]] = {n.name: [] for n in nodes}
        for node in nodes:
            for ref in node.input:
                src = self._source(ref)
                if src is None:
                    continue
                if src not in index:
                    if self.is_function and ref.lstrip("^") in self.args:
                        continue
                    if not self.is_function and src in self._fed_nodes:  # replaced by an argument
                        continue
                    raise InvalidArgumentError(f"{self.where}: node '{node.name}' input '{ref}' names no node")
                if not ref.startswith("^") and not self.is_function:
                    used[src] = max(used.get(src, 0), tensor_name(ref)[1] + 1)
                if src not in deps[node.name]:
                    deps[node.name].add(src)
                    users[src].append(node.name)
        self.used = used
        ready = [(index[n], n) for n, d in deps.items() if not d]
        heapq.heapify(ready)
        by_name = {n.name: n for n in nodes}
        done = 0
        while ready:
            _, name = heapq.heappop(ready)
            self._emit(by_name[name])
            done += 1
            for user in users[name]:
                deps[user].discard(name)
                if not deps[user]:
                    heapq.heappush(ready, (index[user], user))
        if done != len(nodes):
            stuck = sorted((n for n, d in deps.items() if d), key=index.get)
            ops = sorted({by_name[n].op for n in stuck})
            hint = " (TF1 control flow: Switch/Merge/NextIteration loops are not supported)" if \
                {"NextIteration", "Merge", "Enter"} & set(ops) else ""
            raise UnimplementedError(f"{self.where}: the graph has a cycle through nodes "
                                     f"{', '.join(repr(n) for n in stuck[:5])}{hint}")

    def _input(self, ref: str, what: str) -> _Value:
        if self.is_function:
            parts = ref.split(":")
            if len(parts) == 1:
                if ref in self.args:
                    return self.args[ref]
                raise InvalidArgumentError(f"{self.where}: {what} names '{ref}', not an argument")
            node, arg, idx = (parts + ["0"])[:3] if len(parts) >= 2 else (parts[0], "", "0")
            offsets = self.offsets.get(node)
            if offsets is None or arg not in offsets:
                raise InvalidArgumentError(f"{self.where}: {what} names '{ref}': node '{node}' has no output "
                                           f"argument '{arg}'")
            flat = offsets[arg] + int(idx)
        else:
            tensor = tensor_name(ref)
            if tensor in self.fed:
                return self.fed[tensor]
            node, flat = tensor
            if node in self._fed_nodes and node not in self.values:
                raise InvalidArgumentError(f"Invalid output index {flat} specified for node: {node}")
        outs = self.values.get(node)
        if outs is None:
            raise InvalidArgumentError(f"{self.where}: {what} names '{ref}', which no emitted node produces")
        if flat >= len(outs):
            raise InvalidArgumentError(f"{self.where}: Invalid output index {flat} specified for node: {node} "
                                       f"({what}; it has {len(outs)} outputs)")
        return outs[flat]

    def _emit(self, node) -> None:
        if node.op == "NoOp":
            self.values[node.name], self.offsets[node.name] = [], {}
            return
        if node.op == "Placeholder" and not self.is_function:
            raise InvalidArgumentError(f"graph: placeholder '{node.name}' is needed but not fed (give it as an "
                                       "input array / signature input)")
        importer = self.importer
        where = f"node '{node.name}'" + (f" in {self.where}" if self.is_function else "")
        inputs = [self._input(ref, f"node '{node.name}' input '{ref}'") for ref in node.input
                  if not ref.startswith("^")]
        if node.op in importer.fdefs:  # a node calling a library function by name
            self._emit_call(node, inputs, where)
            return
        cls = REGISTRY.get(self._class_name(node))
        op_def = importer.op_defs.get(node.op)
        layout = node_defs.output_layout(node, op_def, cls, getattr(self, "used", {}).get(node.name, 0))
        offsets, total = {}, 0
        for arg, types in layout:
            offsets[arg] = total
            total += len(types)
        self.offsets[node.name] = offsets
        if cls is None:
            wheres = importer.missing.setdefault(node.op, [])
            if where not in wheres:  # (a node several signatures prune to is named once)
                wheres.append(where)
            if op_def is None:  # no OpDef: its output arguments are unknown, read `x:any:i` as output i
                self.offsets[node.name] = _AnyArgument()
            self._emit_unregistered(node, inputs, layout)
            return
        self.kept = {} if self._keeps_attributes() else None
        attrs = node_defs.node_attrs(node, cls, op_def, f"{where} ({node.op}): ", self.kept)
        if "is_stateless" in cls.attr_specs() and "is_stateless" not in attrs:  # If / While / Case nodes
            attrs["is_stateless"] = node.op.startswith("Stateless")
        for key, spec in cls.attr_specs().items():
            if spec.kind == "func" and key in attrs:
                importer.function(attrs[key])
            elif spec.kind == "any" and key in node.attr and node.attr[key].list.func:
                for f in node.attr[key].list.func:
                    importer.function(f.name)
        try:
            full = cls.complete_attrs(attrs)
            out = cls.infer(*[v.spec for v in inputs], **full)
        except OpError as err:
            # its input's op is missing: that error says it all; or printing only, as TF prints anything
            if any(v.tainted for v in inputs) or self._keeps_attributes():
                self._emit_unregistered(node, inputs, layout, tainted=True)
                return
            raise type(err)(f"{where} ({node.op}): {err.message}", err.op) from None
        specs = [out] if isinstance(out, TensorSpec) else list(out or [])
        types = self._result_types(node, cls, full, specs)
        props = cls.attrs_to_properties({k: v for k, v in full.items() if v is not None})
        op = cls.create(operands=[v.ssa for v in inputs], result_types=types, properties=props,
                        attributes=self._attributes(node, cls))
        results = self._add(node, op)
        value = full.get("value") if node.op == "Const" else None
        self.values[node.name] = [_Value(r, TensorSpec(s.shape, s.dtype, value=value) if value is not None
                                         else _spec_of_type(r.type) if s.dtype is dtypes.resource else s, False)
                                  for r, s in zip(results, specs)]

    def _emit_call(self, node, inputs, where) -> None:
        """``y = my_function(x)``: a ``call_op`` (``tf.StatefulPartitionedCall``) of the imported function."""
        callee = self.importer.function(node.op)
        if callee is None:
            raise UnimplementedError(f"{where}: function {node.op} calls itself (recursion is not supported)")
        cls = REGISTRY[self.call_op]
        types = list(callee.function_type.outputs.data)
        arg_types = list(callee.function_type.inputs.data)
        if len(arg_types) != len(inputs):
            raise InvalidArgumentError(f"{where}: function {node.op} takes {len(arg_types)} inputs, got {len(inputs)}")
        attrs = {"f": node.op, "Tout": tuple(map(tf_types.dtype_of, types))}
        if "_disable_call_shape_inference" in cls.attr_specs():  # tf.LegacyCall's property
            attrs["_disable_call_shape_inference"] = ("_disable_call_shape_inference" in node.attr
                                                      and node.attr["_disable_call_shape_inference"].b)
        props = cls.attrs_to_properties(cls.complete_attrs(attrs))
        op = cls.create(operands=[v.ssa for v in inputs], result_types=types, properties=props,
                        attributes=self._attributes(node, cls))
        results = self._add(node, op)
        self.offsets[node.name] = {a.name: i for i, a in enumerate(self.importer.fdefs[node.op].signature.output_arg)}
        self.values[node.name] = [_Value(r, _spec_of_type(r.type)) for r in results]

    def _result_types(self, node, cls, attrs, specs) -> list:
        shapes = node_defs.output_shapes(node)
        types = []
        for i, spec in enumerate(specs):
            shape = spec.shape
            if shape is None and i < len(shapes):
                shape = shapes[i]
            if spec.dtype is dtypes.resource and isinstance(attrs.get("dtype"), dtypes.DType) and "shape" in attrs:
                sub = tf_types.tensor_type(attrs["shape"], attrs["dtype"])  # VarHandleOp's variable
                types.append(tf_types.tensor_type(shape, tf_types.ResourceType([sub])))
            elif spec.dtype is dtypes.variant:  # a TensorList's spec knows its element type: variant<tensor<...>>
                types.append(spec.to_type())
            else:
                types.append(TensorSpec(shape, spec.dtype, value=spec.value).to_type())
        trait = calls_functions(cls)
        if trait is not None and trait.kind == "call":
            callee = self.importer.functions.get(attrs.get("f"))
            if callee is not None and len(callee.function_type.outputs.data) == len(types):
                types = list(callee.function_type.outputs.data)
        return types

    def _emit_unregistered(self, node, inputs, layout, tainted=True) -> None:
        shapes = node_defs.output_shapes(node)
        types, specs = [], []
        for i, dtype in enumerate(t for _, ts in layout for t in ts):
            dtype = dtype or _guessed_dtype(node, i)
            shape = self._unregistered_shape(node, shapes[i] if i < len(shapes) else None, i)
            types.append(tf_types.tensor_type(shape, dtype))
            specs.append(TensorSpec(shape, dtype))
        attrs = {k: node_defs.mlir_attr(v, f"node '{node.name}' attribute '{k}'")
                 for k, v in sorted(node.attr.items()) if not k.startswith("_")}
        attrs["device"] = StringAttr(node_defs.canonical_device(node))
        cls = REGISTRY.get(self._class_name(node))  # a registered op printed as given: its properties stay so
        declared = cls.get_irdl_definition().properties if cls is not None else {}
        props = {k: attrs.pop(k) for k in list(attrs) if k in declared}
        op = UnregisteredOp.with_name("tf." + node.op).create(
            operands=[v.ssa for v in inputs], result_types=types, attributes=attrs, properties=props)
        results = self._add(node, op)
        self.values[node.name] = [_Value(r, s, tainted) for r, s in zip(results, specs)]

    # --- what the tf_executor form (graphdef_executor.py) changes ---------------------------------

    def _add(self, node, op) -> list:
        """Put ``node``'s op in the function; the values that stand for its results."""
        self.block.add_op(op)
        return list(op.results)

    def _attributes(self, node, cls) -> dict:
        """The discardable attributes of ``node``'s op: its device, as TensorFlow canonicalizes it."""
        return {"device": StringAttr(node_defs.canonical_device(node))}

    def _class_name(self, node) -> str:
        """The op class a node becomes."""
        return "tf." + node.op

    def _keeps_attributes(self) -> bool:
        """Whether a NodeDef attribute tinytf's op class lacks is kept (to print) rather than refused."""
        return False

    def _unregistered_shape(self, node, recorded, index: int = 0):
        """The shape output ``index`` of an op tinytf lacks is typed with: what ``_output_shapes`` recorded,
        or for the ops TF types by their attributes (``IteratorGetNext``'s ``output_shapes``), those."""
        typed = node_defs.attr_typed_outputs(node)
        if typed is not None and index < len(typed):
            return typed[index][0]
        return recorded

    def _finish(self, name, results, arg_attrs, visibility) -> func.FuncOp:
        self.block.add_op(func.ReturnOp(*[v.ssa for v in results]))
        arg_types = [a.type for a in self.block.args]
        fn = func.FuncOp(name, (arg_types, [v.ssa.type for v in results]), Region(self.block), visibility,
                         arg_attrs=ArrayAttr(arg_attrs) if arg_attrs else None)
        return fn


GraphImporter.body_class = _Body


class _AnyArgument(dict):
    """The output offsets of an op nobody describes: every argument name starts at 0."""

    def __contains__(self, key) -> bool:
        return True

    def __missing__(self, key) -> int:
        return 0


class _AttrHolder:
    """A map of AttrValues presented as a NodeDef's ``attr`` (for a FunctionDef's arg_attr)."""

    def __init__(self, attrs):
        self.attr = attrs


def import_graph_def(graph_def, inputs=None, input_shapes=None, input_dtypes=None, outputs=None, op_list=None,
                     allow_unregistered=False, prune=False, name="main") -> ModuleOp:
    """A GraphDef as a module whose ``@main`` takes ``inputs`` (tensor names; every Placeholder, in
    node order, when None) and returns ``outputs``, with the library functions it calls.

    ``input_shapes`` / ``input_dtypes`` override each input's shape (a tuple, None dims unknown) and
    dtype (by default the Placeholder's ``shape`` and ``dtype`` attributes). The tf_executor form, as
    TensorFlow's importer writes it: ``graphdef_executor.import_graph_def_executor``."""
    nodes = list(graph_def.node)
    if inputs is None:
        inputs = [n.name for n in nodes if n.op == "Placeholder"]
    feeds = graph_feeds(graph_def, inputs, input_shapes, input_dtypes)
    importer = GraphImporter(graph_def.library, op_list, allow_unregistered)
    importer.graph(nodes, feeds, list(outputs or []), prune=prune, name=name)
    importer.check()
    return importer.module(graph_def.versions if graph_def.HasField("versions") else None)


def graph_feeds(graph_def, inputs, input_shapes=None, input_dtypes=None) -> list[Feed]:
    """The ``Feed`` of each input tensor name, typed by the overrides or by its node's attributes."""
    by_name = {n.name: n for n in graph_def.node}
    for what, given in (("shapes", input_shapes), ("data types", input_dtypes)):
        if given is not None and len(given) != len(inputs):
            raise InvalidArgumentError(f"{len(inputs)} input arrays but {len(given)} input {what}")
    feeds = []
    for i, ref in enumerate(inputs):
        node_name, _ = tensor_name(ref)
        node = by_name.get(node_name)
        if node is None:
            raise InvalidArgumentError(f"input array '{ref}' names no node of the graph")
        index = tensor_name(ref)[1]
        dtype = input_dtypes[i] if input_dtypes is not None and input_dtypes[i] is not None else _node_dtype(node, index)
        if input_shapes is not None and input_shapes[i] is not None:
            shape = tuple(input_shapes[i])
        else:
            shape = placeholder_shape(node, graph_def.versions.producer)
        feeds.append(Feed(ref if ":" in ref else f"{ref}:0", tf_types.tensor_type(shape, dtype), node_name))
    return feeds


# GraphDefs up to producer 21 (TF <= 1.1) wrote a Placeholder without a shape as `shape {}`, a scalar:
# TensorFlow's Placeholder shape function reads it as unknown for those versions.
LAST_PRODUCER_WITH_SCALAR_AS_UNKNOWN = 21


def placeholder_shape(node, producer: int):
    """A Placeholder's ``shape`` attribute as a tuple, or None when unknown (old graphs' ``shape {}`` too)."""
    if "shape" not in node.attr:
        return None
    shape = node_defs.python_value("shape", node.attr["shape"], f"node '{node.name}'")
    if shape == () and (producer <= LAST_PRODUCER_WITH_SCALAR_AS_UNKNOWN or node_defs.output_shapes(node) == [None]):
        return None
    return shape


def _guessed_dtype(node, index: int):
    """An output's dtype when no OpDef tells it: the node's type attribute, else float32."""
    try:
        return _node_dtype(node, index)
    except InvalidArgumentError:
        return dtypes.float32


def _node_dtype(node, index: int = 0):
    """The dtype of output ``index`` of ``node``, from its type attributes (a type, or a type list)."""
    from tinytf.formats.tensor_proto import dtype_from_enum

    for key in ("dtype", "T", "output_types", "Tout", "dtypes"):
        if key in node.attr and node.attr[key].type:
            return dtype_from_enum(node.attr[key].type)
        if key in node.attr and len(node.attr[key].list.type) > index:
            return dtype_from_enum(node.attr[key].list.type[index])
    raise InvalidArgumentError(f"input array '{node.name}' ({node.op}): give its type (--tf-input-data-types)")


def read_graph_def(path: str):
    """A GraphDef from a binary ``.pb`` or a text ``.pbtxt`` file (DataLossError when it cannot be parsed)."""
    from tinytf.errors import DataLossError, NotFoundError
    from tinytf.formats import protos

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise NotFoundError(f"cannot read {path}: {err.strerror}") from None
    cls = protos.graph_pb2.GraphDef
    if path.endswith((".pbtxt", ".txt", ".prototxt")):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise DataLossError(f"{path}: a text GraphDef must be UTF-8") from None
        return _tf_words(lambda: protos.parse_text(cls, text, path))
    return _tf_words(lambda: protos.parse(cls, data, path))


def _tf_words(parse):
    """A GraphDef that does not parse: tinytf's message, then TensorFlow's words for it."""
    from tinytf.errors import DataLossError

    try:
        return parse()
    except DataLossError as err:
        raise DataLossError(f"{err.message} (Error parsing Protobuf: Could not parse input proto)") from None
