"""``tinytf saved_model show|run``: TensorFlow's ``saved_model_cli``, with its flags and its output.

    tinytf saved_model show --dir DIR                                  # the tag-sets
    tinytf saved_model show --dir DIR --tag_set serve                  # the SignatureDef keys
    tinytf saved_model show --dir DIR --tag_set serve --signature_def serving_default
    tinytf saved_model show --dir DIR --all                            # everything, concrete functions too
    tinytf saved_model run --dir DIR --tag_set serve --signature_def serving_default \\
        --inputs 'x=in.npy' --input_exprs 'x2=np.ones((2,1))' \\
        --input_examples 'inputs=[{"x":[1.0]}]' --outdir OUT [--overwrite] [--backend graph|xla]

``show`` prints what ``saved_model_cli show`` prints (the op set of ``--all`` / ``--list_ops`` sorted,
where TensorFlow prints a Python set in hash order). ``run`` prints ``Result for output key K:``
and the array, and with ``--outdir`` writes ``OUT/K.npy``. ``--inputs`` reads .npy / .npz files
(pickles are refused); ``--input_exprs`` evaluates expressions with only ``np`` in scope.
Bad input: one line on stderr, exit status 1.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

from tinytf.errors import InvalidArgumentError, NotFoundError


def _print(line: str = "", end: str = "\n") -> None:
    sys.stdout.write(line + end)


# --- show ------------------------------------------------------------------------------------------

def _dtype_name(enum: int) -> str:
    from tinytf.formats import protos

    try:
        return protos.types_pb2.DataType.Name(enum)
    except ValueError:
        return str(enum)


def _tensor_info(info, indent: int) -> None:
    pad = "  " * indent
    _print(f"{pad}    dtype: {_dtype_name(info.dtype)}")
    if info.tensor_shape.unknown_rank:
        shape = "unknown_rank"
    else:
        shape = "(" + ", ".join(str(d.size) for d in info.tensor_shape.dim) + ")"
    _print(f"{pad}    shape: {shape}")
    _print(f"{pad}    name: {info.name}")


def show_signature(meta_graph, key: str, indent: int = 0) -> None:
    if key not in meta_graph.signature_def:
        raise NotFoundError(f'Could not find signature "{key}". Please choose from: '
                            f'{", ".join(meta_graph.signature_def.keys())}')
    sig = meta_graph.signature_def[key]
    pad = "  " * indent
    _print(f"{pad}The given SavedModel SignatureDef contains the following input(s):")
    for name in sorted(sig.inputs):
        _print(f"{pad}  inputs['{name}'] tensor_info:")
        _tensor_info(sig.inputs[name], indent + 1)
    _print(f"{pad}The given SavedModel SignatureDef contains the following output(s):")
    for name in sorted(sig.outputs):
        _print(f"{pad}  outputs['{name}'] tensor_info:")
        _tensor_info(sig.outputs[name], indent + 1)
    _print(f"{pad}Method name is: {sig.method_name}")


def ops_used(graph_def) -> list[str]:
    """The op types of a graph and of the library functions it calls (``ops_used_by_graph_def``)."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    used, todo = set(), []

    def mark(op):
        if op not in used and op in functions:
            todo.append(functions[op])
        used.add(op)

    def visit(node):
        mark(node.op)
        if node.op in ("PartitionedCall", "StatefulPartitionedCall"):
            mark(node.attr["f"].func.name)

    for node in graph_def.node:
        visit(node)
    while todo:
        for node in todo.pop().node_def:
            visit(node)
    return sorted(op for op in used if op not in functions)


def _show_ops(meta_graph) -> None:
    tags = "[" + ", ".join(repr(t) for t in meta_graph.meta_info_def.tags) + "]"
    ops = "{" + ", ".join(repr(op) for op in ops_used(meta_graph.graph_def)) + "}"
    _print(f"The MetaGraph with tag set {tags} contains the following ops: {ops}")


def _spec_repr(spec) -> str:
    shape = "<unknown>" if spec.shape is None else (
        "(" + ", ".join("None" if d is None else str(d) for d in spec.shape) + ("," if len(spec.shape) == 1 else "")
        + ")")
    name = "None" if spec.name is None else repr(spec.name)
    return f"TensorSpec(shape={shape}, dtype=tf.{spec.dtype.name}, name={name})"


def _print_args(arguments, kind: str = "Argument", indent: int = 0) -> None:
    from tinytf.framework.tensor_spec import TensorSpec

    pad = "  " * indent
    for index, element in enumerate(arguments, 1):
        if indent == 4:
            _print(f"{pad}{kind} #{index}")
        if isinstance(element, str):
            _print(f"{pad}  {element}")
        elif isinstance(element, TensorSpec):
            _print("  " * (indent + 1) + f"{element.name}: {_spec_repr(element)}")
        elif isinstance(element, list | tuple):
            values = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in element)
            _print(f"{pad}  DType: {type(element).__name__}")
            _print(f"{pad}  Value: [{values}]")
        elif isinstance(element, dict):
            values = ", ".join(f"'{k}': {v!r}" if isinstance(v, str) else f"'{k}': {v}" for k, v in element.items())
            _print(f"{pad}  DType: {type(element).__name__}")
            _print(f"{pad}  Value: {{{values}}}")
        else:
            _print(f"{pad}  DType: {type(element).__name__}")
            _print(f"{pad}  Value: {element}")


def _show_functions(saved_model) -> None:
    from tinytf.saved_model.structures import to_python

    graphs = [mg for mg in saved_model.meta_graphs if mg.HasField("object_graph_def")]
    if not graphs:
        return
    _print("\nConcrete Functions:", end="")
    graph = graphs[0].object_graph_def
    for child in sorted(graph.nodes[0].children, key=lambda c: c.local_name):
        node = graph.nodes[child.node_id]
        kind = node.WhichOneof("kind")
        if kind == "function":
            names = sorted(node.function.concrete_functions)
        elif kind == "bare_concrete_function":
            names = [node.bare_concrete_function.concrete_function_name]
        else:
            continue
        _print(f"\n  Function Name: '{child.local_name}'")
        for index, name in enumerate(names, 1):
            saved = graph.concrete_functions.get(name)
            signature = to_python(saved.canonicalized_input_signature) if saved is not None else None
            args, kwargs = signature if isinstance(signature, tuple) and len(signature) == 2 else (None, None)
            if not args and kind == "bare_concrete_function":
                args = list(node.bare_concrete_function.argument_keywords)
            if args:
                _print(f"    Option #{index}")
                _print("      Callable with:")
                _print_args(args, indent=4)
            if kwargs:
                _print_args(kwargs, "Named Argument", indent=4)


def show(args) -> int:
    from tinytf.saved_model import reader

    saved_model = reader.read_saved_model(args.dir)
    if args.all:
        for mg in sorted(saved_model.meta_graphs, key=lambda m: list(m.meta_info_def.tags)):
            _print(f"\nMetaGraphDef with tag-set: '{', '.join(mg.meta_info_def.tags)}' contains the following "
                   "SignatureDefs:")
            for key in sorted(mg.signature_def):
                _print(f"\nsignature_def['{key}']:")
                show_signature(mg, key, indent=1)
            _show_ops(mg)
        _show_functions(saved_model)
        return 0
    if args.tag_set is None:
        if args.list_ops:
            _print("--list_ops must be paired with a tag-set or with --all.")
        _print("The given SavedModel contains the following tag-sets:")
        for tags in sorted(sorted(t) for t in reader.tag_sets(saved_model)):
            _print(repr(", ".join(tags)))
        return 0
    mg = reader.find_meta_graph(saved_model, args.tag_set, args.dir)
    if args.list_ops:
        _show_ops(mg)
    if args.signature_def is None:
        _print("The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:")
        for key in sorted(mg.signature_def):
            _print(f'SignatureDef key: "{key}"')
    else:
        show_signature(mg, args.signature_def)
    return 0


# --- run -------------------------------------------------------------------------------------------

def _split(text: str) -> list[str]:
    return [part for part in (text or "").split(";") if part]


def load_inputs(inputs: str, input_exprs: str, input_examples: str) -> dict:
    """saved_model_cli's three ways to give inputs, later ones overriding earlier ones by key."""
    import ast

    import numpy as np

    from tinytf.ops.parsing import serialize_example

    feeds = {}
    for item in _split(inputs):
        match = re.match(r"([^=]+)=([^\[\]]+)\[([^\[\]]+)\]$", item) or re.match(r"([^=]+)=([^\[\]]+)$", item)
        if not match:
            raise InvalidArgumentError(f'--inputs "{item}" format is incorrect. Please follow "<input_key>=<filename>", '
                                       'or "<input_key>=<filename>[<variable_name>]"')
        key, path = match.group(1), match.group(2)
        variable = match.group(3) if match.lastindex == 3 else None
        try:
            data = np.load(path, allow_pickle=False)
        except OSError as err:
            raise NotFoundError(f"--inputs: cannot read {path}: {err}") from None
        except ValueError as err:
            raise InvalidArgumentError(f"--inputs: {path} is not a .npy or .npz file (pickles are refused): {err}") \
                from None
        if isinstance(data, np.ndarray):
            feeds[key] = data
        elif variable is not None:
            if variable not in data.files:
                raise InvalidArgumentError(f'Input file {path} does not contain variable with name "{variable}".')
            feeds[key] = data[variable]
        elif len(data.files) == 1:
            feeds[key] = data[data.files[0]]
        else:
            raise InvalidArgumentError(f"Input file {path} contains more than one ndarrays. Please specify the name "
                                       "of ndarray to use.")
    for item in _split(input_exprs):
        if "=" not in item:
            raise InvalidArgumentError(f'--input_exprs "{item}" format is incorrect. Please follow '
                                       '"<input_key>=<python expression>"')
        key, expr = item.split("=", 1)
        try:
            feeds[key] = eval(expr, {"__builtins__": {}, "np": np}, {})  # noqa: S307  (saved_model_cli's contract)
        except Exception as err:
            raise InvalidArgumentError(f'--input_exprs: expression "{expr}" failed: {type(err).__name__}: {err}') \
                from None
    for item in _split(input_examples):
        if "=" not in item:
            raise InvalidArgumentError(f'--input_examples "{item}" format is incorrect')
        key, expr = item.split("=", 1)
        try:
            examples = ast.literal_eval(expr)
        except (ValueError, SyntaxError) as err:
            raise InvalidArgumentError(f'--input_examples: "{expr}" is not a Python literal ({err})') from None
        if not isinstance(examples, list) or not all(isinstance(e, dict) for e in examples):
            raise InvalidArgumentError(f'tf.Example input must be a list of dictionaries, but "{examples}" is '
                                       f"{type(examples)}")
        out = np.empty(len(examples), dtype=object)
        for i, example in enumerate(examples):
            out[i] = serialize_example(example)
        feeds[key] = out
    return feeds


def run(args) -> int:
    import numpy as np

    import tinytf.saved_model as saved_model
    from tinytf.saved_model.loaded import to_array

    if not (args.inputs or args.input_exprs or args.input_examples):
        raise InvalidArgumentError("At least one of --inputs, --input_exprs or --input_examples must be required")
    feeds = load_inputs(args.inputs, args.input_exprs, args.input_examples)
    obj = saved_model.load(args.dir, tags=args.tag_set, backend=args.backend)
    if args.signature_def not in obj.signatures:
        raise NotFoundError(f'Could not find signature "{args.signature_def}". Please choose from: '
                            f'{", ".join(sorted(obj.signatures))}')
    signature = obj.signatures[args.signature_def]
    for key in feeds:
        if key not in signature.inputs:
            raise InvalidArgumentError(f'"{key}" is not a valid input key. Please choose from '
                                       f'"{chr(34) + ", ".join(signature.inputs) + chr(34)}", or use --show option.')
    # a session feed: values are converted to the input's dtype, as saved_model_cli's sess.run does
    arrays = {k: to_array(v, signature.inputs[k], f"input '{k}'", cast=True) for k, v in feeds.items()}
    outputs = signature(**arrays)
    for key in sorted(outputs):
        value = outputs[key].numpy()
        _print(f"Result for output key {key}:\n{value}")
        if args.outdir:
            os.makedirs(args.outdir, exist_ok=True)
            path = os.path.join(args.outdir, key + ".npy")
            if not args.overwrite and os.path.exists(path):
                raise InvalidArgumentError(f'Output file {path} already exists. Add "--overwrite" to overwrite the '
                                           "existing output files.")
            np.save(path, value, allow_pickle=False)
            _print(f"Output {key} is saved to {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tinytf saved_model", description="saved_model_cli, without TensorFlow")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("show", help="show the tag-sets, signatures and functions of a SavedModel")
    p.add_argument("--dir", required=True, help="directory containing the SavedModel to inspect")
    p.add_argument("--all", action="store_true", help="show everything in the SavedModel")
    p.add_argument("--tag_set", default=None, help="comma-separated tag-set of the MetaGraphDef")
    p.add_argument("--signature_def", default=None, help="key of a SignatureDef to show the inputs and outputs of")
    p.add_argument("--list_ops", action="store_true", help="show the ops the MetaGraphDef uses")
    p.set_defaults(handler=show)
    r = sub.add_parser("run", help="run a signature of a SavedModel on inputs")
    r.add_argument("--dir", required=True, help="directory containing the SavedModel to execute")
    r.add_argument("--tag_set", required=True, help="comma-separated tag-set of the MetaGraphDef")
    r.add_argument("--signature_def", required=True, help="key of the SignatureDef to run")
    r.add_argument("--inputs", default="", help="'<key>=<file.npy>' or '<key>=<file.npz>[<name>]', ';' separated")
    r.add_argument("--input_exprs", default="", help="'<key>=<python expression>' (np available), ';' separated")
    r.add_argument("--input_examples", default="", help="'<key>=[{feature: [values]}]' tf.Examples, ';' separated")
    r.add_argument("--outdir", default=None, help="write each output to OUTDIR/<key>.npy")
    r.add_argument("--overwrite", action="store_true", help="overwrite existing output files")
    r.add_argument("--backend", default="graph", choices=["graph", "xla"], help="tinytf's executor or XLA")
    r.set_defaults(handler=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    return args.handler(args)
