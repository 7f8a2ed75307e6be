"""Graphs for TensorBoard's Graphs dashboard: ``graph``, ``trace_on``, ``trace_export``.

    graph(f.get_concrete_function(spec))      # an Event with graph_def, as tf.summary.graph writes
    trace_on(graph=True)
    f(x)                                      # every concrete function called is recorded
    trace_export("my_trace", step=0)          # a 'graph_run_metadata_graph' summary, as TensorFlow 2's

The GraphDef is a display graph built straight from a traced function's MLIR (``display_graph_def``):
a ``Placeholder`` per argument (named by ``tf._user_specified_name``), a node per op of the function
body named after its type (``MatMul``, ``MatMul_1``, ...) with its operands as inputs and its
result shapes as ``_output_shapes``, and an ``Identity`` per returned value. It is what TensorBoard
needs to draw the graph, not TensorFlow's exporter: attribute values (``Const`` values, ``T``) and
ops inside regions are left out, and function-call ops are single nodes.

``trace_on`` records what runs by wrapping ``ConcreteFunction``'s two call methods while tracing is
on (``tinytf/function.py`` has no execution hook); ``trace_off`` or ``trace_export`` removes them.
Profiling (``profiler=True``) is an UnimplementedError.
"""
from __future__ import annotations

import threading

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.summary import writer as writers

_trace_lock = threading.Lock()
_recorded: list = []  # concrete functions called while tracing, in first-call order
_patched: dict = {}


def _protos():
    from tinytf.formats import protos

    return protos


def _shape_proto(type_):
    from tinytf.framework import tf_types

    shape = _protos().tensor_shape_pb2.TensorShapeProto()
    dims = tf_types.shape_of(type_)
    if dims is None:
        shape.unknown_rank = True
    else:
        for d in dims:
            shape.dim.add(size=-1 if d is None else int(d))
    return shape


def _dtype_enum(type_) -> int | None:
    from tinytf.framework import tf_types

    try:
        dtype = tf_types.dtype_of(type_)
    except Exception:  # noqa: BLE001 - an element type TensorFlow's enum lacks: leave the attr out
        return None
    return _protos().types_pb2.DataType.Value(dtype.tf_enum)


def _op_type(op) -> str:
    name = op.op_name.data if hasattr(op, "op_name") else op.name
    return name[3:] if name.startswith("tf.") else name


def display_graph_def(function, library=()):
    """A GraphDef drawing one ``func.func`` (see the module docstring)."""
    protos = _protos()
    graph = protos.graph_pb2.GraphDef()
    graph.versions.producer = 2474
    used: dict[str, int] = {}
    names: dict = {}

    def unique(base: str) -> str:
        count = used.get(base, 0)
        used[base] = count + 1
        return base if count == 0 else f"{base}_{count}"

    def add_node(name: str, op_type: str, inputs, types):
        node = graph.node.add(name=name, op=op_type)
        node.input.extend(inputs)
        shapes = node.attr["_output_shapes"].list
        for t in types:
            shapes.shape.add().CopyFrom(_shape_proto(t))
        return node

    block = function.body.block
    arg_attrs = function.arg_attrs.data if function.arg_attrs is not None else [None] * len(block.args)
    for i, arg in enumerate(block.args):
        attrs = arg_attrs[i].data if arg_attrs[i] is not None else {}
        hint = attrs.get("tf._user_specified_name")
        node = add_node(unique(hint.data if hint is not None else f"arg{i}"), "Placeholder", [], [arg.type])
        dtype = _dtype_enum(arg.type)
        if dtype is not None:
            node.attr["dtype"].type = dtype
        node.attr["shape"].shape.CopyFrom(_shape_proto(arg.type))
        names[arg] = node.name
    for op in block.ops:
        inputs = [names.get(v, "?") for v in op.operands]
        if op.name == "func.return":
            for v, source in zip(op.operands, inputs):
                add_node(unique("Identity"), "Identity", [source], [v.type])
            continue
        node = add_node(unique(_op_type(op)), _op_type(op), inputs, [r.type for r in op.results])
        if op.results:
            dtype = _dtype_enum(op.results[0].type)
            if dtype is not None:
                node.attr["dtype" if _op_type(op) == "Const" else "T"].type = dtype
        for k, result in enumerate(op.results):
            names[result] = node.name if k == 0 else f"{node.name}:{k}"
    return graph


def _graph_def_of(graph_data):
    """A GraphDef from a ConcreteFunction, a tt.function (its traced functions), or a GraphDef."""
    protos = _protos()
    if isinstance(graph_data, protos.graph_pb2.GraphDef):
        return graph_data
    if hasattr(graph_data, "function") and hasattr(graph_data, "module"):  # a ConcreteFunction
        return display_graph_def(graph_data.function)
    cache = getattr(graph_data, "_cache", None)
    if cache:  # a tt.function: its most recent trace
        return display_graph_def(list(cache.values())[-1].function)
    raise InvalidArgumentError(f"tt.summary.graph: expected a GraphDef, a ConcreteFunction or a traced tt.function, "
                               f"got {graph_data!r}")


def graph(graph_data) -> bool:
    """Write a graph (``Event.graph_def``) to the default writer; False without one."""
    writer = writers.get_default_writer()
    if writer is None:
        return False
    event = _protos().event_pb2.Event(step=0, graph_def=_graph_def_of(graph_data).SerializeToString())
    import time

    event.wall_time = time.time()
    writer.add_event(event)
    return True


# -- tracing --------------------------------------------------------------------------------------

def _record(method):
    def call(self, *args, **kwargs):
        with _trace_lock:
            if not any(cf is self for cf in _recorded):
                _recorded.append(self)
        return method(self, *args, **kwargs)

    call.__wrapped__ = method
    return call


def trace_on(graph: bool = True, profiler: bool = False, profiler_outdir=None) -> None:
    """Start recording the graphs of the ``tt.function``s that run."""
    if profiler:
        raise UnimplementedError("tt.summary.trace_on(profiler=True): tinytf has no profiler; use graph=True")
    from tinytf.function import ConcreteFunction

    with _trace_lock:
        _recorded.clear()
        if graph and not _patched:
            for name in ("call_flat", "call_checked"):
                _patched[name] = getattr(ConcreteFunction, name)
                setattr(ConcreteFunction, name, _record(_patched[name]))


def trace_off() -> None:
    """Stop recording (what was recorded is dropped)."""
    from tinytf.function import ConcreteFunction

    with _trace_lock:
        for name, method in _patched.items():
            setattr(ConcreteFunction, name, method)
        _patched.clear()
        _recorded.clear()


def trace_export(name: str, step=None, profiler_outdir=None) -> None:
    """Write the recorded graphs as one summary ``name`` (TensorFlow 2's RunMetadata form), then stop."""
    protos = _protos()
    try:
        writer = writers.get_default_writer()
        if writer is None or not _patched:
            return
        run_metadata = protos.config_pb2.RunMetadata()
        for cf in list(_recorded):
            run_metadata.function_graphs.add().pre_optimization_graph.CopyFrom(display_graph_def(cf.function))
        from tinytf.summary.summaries import write

        meta = protos.summary_pb2.SummaryMetadata()
        meta.plugin_data.plugin_name = "graph_run_metadata_graph"
        meta.plugin_data.content = b"1"
        import numpy as np

        write(name, np.array(run_metadata.SerializeToString(), dtype=object), step, meta)
    finally:
        trace_off()
