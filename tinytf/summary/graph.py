"""Graphs for TensorBoard's Graphs dashboard: ``graph``, ``trace_on``, ``trace_export``.

    graph(f.get_concrete_function(spec))      # an Event with graph_def, as tf.summary.graph writes
    trace_on(graph=True)
    f(x)                                      # every concrete function called is recorded
    trace_export("my_trace", step=0)          # a 'graph_run_metadata_graph' summary, as TensorFlow 2's

The GraphDef is the traced function exported by ``tinytf/formats/graphdef_export.py``
(``function_graph_def``): a ``Placeholder`` per argument (named by ``tf.entry_function`` /
``tf._user_specified_name``; a captured variable's is a DT_RESOURCE Placeholder, as in TensorFlow's
FuncGraph), a node per op named after its type (``MatMul``, ``MatMul_1``, ...) with TensorFlow's
attributes and ``_output_shapes``, the returned values' nodes named after the function's outputs,
and the functions it calls (``tt.cond`` branches, loop bodies) in the library.

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


def function_graph_def(cf):
    """The GraphDef of a concrete function (``tinytf/formats/graphdef_export.py``): a ``Placeholder``
    per argument (a captured variable's is a DT_RESOURCE one, as in TensorFlow's FuncGraph), its ops
    with their attributes, and the functions it calls in the library."""
    from tinytf.formats.graphdef_export import export_module

    return export_module(cf.module, entry=cf.name, resources="placeholders").graph_def


def _graph_def_of(graph_data):
    """A GraphDef from a ConcreteFunction, a tt.function (its traced functions), or a GraphDef."""
    protos = _protos()
    if isinstance(graph_data, protos.graph_pb2.GraphDef):
        return graph_data
    if hasattr(graph_data, "function") and hasattr(graph_data, "module"):  # a ConcreteFunction
        return function_graph_def(graph_data)
    cache = getattr(graph_data, "_cache", None)
    if cache:  # a tt.function: its most recent trace
        return function_graph_def(list(cache.values())[-1])
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
            run_metadata.function_graphs.add().pre_optimization_graph.CopyFrom(function_graph_def(cf))
        from tinytf.summary.summaries import write

        meta = protos.summary_pb2.SummaryMetadata()
        meta.plugin_data.plugin_name = "graph_run_metadata_graph"
        meta.plugin_data.content = b"1"
        import numpy as np

        write(name, np.array(run_metadata.SerializeToString(), dtype=object), step, meta)
    finally:
        trace_off()
