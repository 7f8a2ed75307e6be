"""tt.print: TensorFlow's tf.print, with its ops tf.StringFormat (tensors formatted into a template) and
tf.PrintV2 (a string written to a stream when it runs).

    %s = "tf.StringFormat"(%x) <{placeholder = "{}", summarize = 3 : i64, template = "x = {}"}> : (tensor<4xf32>) -> tensor<!tf_type.string>
    "tf.PrintV2"(%s) <{end = "\\n", output_stream = "stderr"}> : (tensor<!tf_type.string>) -> ()

    tt.print("loss:", loss, "step", step)                 # eagerly at once; in a tt.function when it runs
    tt.print(x, summarize=-1, output_stream=sys.stdout)

Tensors are written as TensorFlow writes them: numpy-like brackets, the first and last ``summarize``
entries of each dim around "...", floats in the shortest of %.6g / %.9g (%.15g / %.17g for doubles) that
reads back the same. Under XLA (jit_compile=True), where TensorFlow has no kernels for these ops, the
print runs as a JAX debug callback with the computed values.
"""
from __future__ import annotations

import logging
import pprint
import random
import sys

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.tensor_inputs import as_tensor

__all__ = ["print"]
__namespaces__ = {"print": ("top",)}


def _scalar(value, dtype) -> str:
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind in "iu":
        return str(int(value))
    if dtype.kind == "c":
        return f"({_scalar(value.real, np.dtype(value.real.dtype))},{_scalar(value.imag, np.dtype(value.imag.dtype))})"
    if dtype.kind == "f":
        v = float(value)
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        # TensorFlow's FloatToBuffer / DoubleToBuffer: 6 (15) significant digits, 9 (17) if those don't read back
        short, full, exact = ("%.15g", "%.17g", np.float64) if dtype == np.float64 else ("%.6g", "%.9g", np.float32)
        text = short % v
        return text if exact(float(text)) == exact(v) else full % v
    text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
    return text


def format_tensor(value: np.ndarray, summarize: int) -> str:
    """One tensor as tf.print writes it (TensorFlow's Tensor::SummarizeValue with print_v2)."""
    value = np.asarray(value)
    text_kind = value.dtype.kind in "OSU"
    if value.ndim == 0:
        return _scalar(value.item() if text_kind else value[()], value.dtype)

    def item(x):
        return f'"{_scalar(x, value.dtype)}"' if text_kind else _scalar(x, value.dtype)

    def level(block, depth):
        n = block.shape[0]
        cut = 0 <= summarize and 2 * summarize < n
        rows = list(range(summarize)) + [None] + list(range(n - summarize, n)) if cut else list(range(n))
        if block.ndim == 1:
            return "[" + " ".join("..." if i is None else item(block[i]) for i in rows) + "]"
        sep = "\n" * (block.ndim - 1) + " " * (depth + 1)
        return "[" + sep.join("..." if i is None else level(block[i], depth + 1) for i in rows) + "]"

    return level(value, 0)


def format_template(template, placeholder, values, summarize) -> str:
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(values):
        raise InvalidArgumentError(f"tf.StringFormat: num placeholders in template and num inputs must match: "
                                   f"{len(pieces) - 1} vs. {len(values)}", "tf.StringFormat")
    out = [pieces[0]]
    for value, piece in zip(values, pieces[1:]):
        out += [format_tensor(value, summarize), piece]
    return "".join(out)


class DeferredFormat:
    """StringFormat's result under XLA: the template and the traced values, formatted when PrintV2's JAX
    callback runs (a string cannot be an XLA value). Looks like a string scalar to the shape rules."""

    shape = ()
    dtype = np.dtype(object)

    def __init__(self, template, placeholder, summarize, values):
        self.template, self.placeholder, self.summarize, self.values = template, placeholder, summarize, values

    def text(self, values) -> str:
        return format_template(self.template, self.placeholder, [np.asarray(v) for v in values], self.summarize)


@register
class StringFormat(Op):
    """The template with each placeholder replaced by the next input, formatted as tf.print writes tensors."""

    name = "tf.StringFormat"
    inputs = var_operand_def()
    output = result_def()
    template = attr("%s")
    placeholder = attr("%s")
    summarize = attr(3)
    traits = traits_def(NotDifferentiable())

    @classmethod
    def infer(cls, *inputs, template="%s", placeholder="%s", summarize=3):
        if not placeholder:
            raise InvalidArgumentError(f"{cls.name}: placeholder must not be empty", cls.name)
        if template.count(placeholder) != len(inputs):
            raise InvalidArgumentError(f"{cls.name}: num placeholders in template and num inputs must match: "
                                       f"{template.count(placeholder)} vs. {len(inputs)}", cls.name)
        return TensorSpec((), dtypes.string)

    @staticmethod
    def compute(xp, *inputs, template="%s", placeholder="%s", summarize=3):
        return np.asarray(format_template(template, placeholder, inputs, summarize), object)

    @staticmethod
    def lower(*inputs, template="%s", placeholder="%s", summarize=3):
        return DeferredFormat(template, placeholder, summarize, list(inputs))


_STREAMS = {"stderr": lambda: sys.stderr, "stdout": lambda: sys.stdout}
_LOG_LEVELS = {"log(info)": logging.INFO, "log(warning)": logging.WARNING, "log(error)": logging.ERROR}


def write(text: str, output_stream: str, end: str) -> None:
    if output_stream in _STREAMS:
        stream = _STREAMS[output_stream]()
        stream.write(text + end)
        stream.flush()
    elif output_stream in _LOG_LEVELS:
        logging.getLogger("tinytf").log(_LOG_LEVELS[output_stream], text)
    elif output_stream.startswith("file://"):
        with open(output_stream[len("file://"):], "a") as f:
            f.write(text + end)
    else:
        raise InvalidArgumentError(f"tf.PrintV2: unknown output_stream {output_stream!r} (stderr, stdout, "
                                   "log(info), log(warning), log(error) or file://PATH)", "tf.PrintV2")


@register
class PrintV2(Op):
    """Writes its string scalar and ``end`` to ``output_stream`` when it runs."""

    name = "tf.PrintV2"
    input = operand_def()
    output_stream = attr("stderr")
    end = attr("\n")
    traits = traits_def(NotDifferentiable(), NoConstantFold())

    @classmethod
    def infer(cls, input, output_stream="stderr", end="\n"):
        if input.dtype is not dtypes.string or (input.shape is not None and len(input.shape)):
            raise InvalidArgumentError(f"{cls.name}: input must be a string scalar, got {input.dtype.name} "
                                       f"{list(input.shape) if input.shape is not None else '<unknown>'}", cls.name)
        write_check = output_stream in _STREAMS or output_stream in _LOG_LEVELS or output_stream.startswith("file://")
        if not write_check:
            raise InvalidArgumentError(f"{cls.name}: unknown output_stream {output_stream!r}", cls.name)
        return []

    @staticmethod
    def compute(xp, input, output_stream="stderr", end="\n"):
        write(str(np.asarray(input).item()), output_stream, end)
        return ()

    @staticmethod
    def lower(input, output_stream="stderr", end="\n"):  # a JAX debug callback: prints each time the program runs
        import jax

        if isinstance(input, DeferredFormat):
            jax.debug.callback(lambda *values: write(input.text(values), output_stream, end), *input.values,
                               ordered=True)
        else:
            text = str(np.asarray(input).item())
            jax.debug.callback(lambda: write(text, output_stream, end), ordered=True)
        return []


def _placeholder(template: str) -> str:
    """A placeholder that does not occur in the text around the tensors."""
    placeholder, rng = "{}", random.Random(5)
    while placeholder in template:
        placeholder += str(rng.randint(0, 9))
    return placeholder


def _is_tensor(x) -> bool:
    return hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(x, np.ndarray | np.generic)


def _flatten(value):
    """Tensors and other leaves of nested lists, tuples and dicts (dicts by sorted key, as tf.nest)."""
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in _flatten(value[k])]
    if isinstance(value, list | tuple):
        return [leaf for v in value for leaf in _flatten(v)]
    return [value]


def _pack(value, leaves):
    if isinstance(value, dict):
        return {k: _pack(value[k], leaves) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return type(value)(_pack(v, leaves) for v in value)
    return leaves.pop(0)


def _stream_name(output_stream):
    """TensorFlow's name of a Python stream or logging function (the current sys.stdout / sys.stderr)."""
    if isinstance(output_stream, str):
        return output_stream
    if output_stream is None:   # the default: whatever sys.stderr is when the print is made
        return "stderr"
    for names, name in (((sys.stderr, sys.__stderr__), "stderr"), ((sys.stdout, sys.__stdout__), "stdout"),
                        ((logging.info,), "log(info)"), ((logging.warning,), "log(warning)"),
                        ((logging.error,), "log(error)")):
        if any(output_stream is candidate for candidate in names):
            return name
    raise InvalidArgumentError(f"tt.print: unsupported output_stream {output_stream!r} (sys.stderr, sys.stdout, "
                               "logging.info / warning / error, or a 'file://PATH' string)", "tf.PrintV2")


def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001 (TF's name)
    """``tt.print``: the inputs (tensors, strings, numbers, nested structures of them) joined by ``sep``,
    written to ``output_stream`` (sys.stderr by default, sys.stdout, logging.info / warning / error, "file://PATH"):
    eagerly at once; in a tt.function each time the function runs."""
    stream = _stream_name(output_stream)
    free = " ".join(pprint.pformat(_pack(x, ["" if _is_tensor(v) else v for v in _flatten(x)])) for x in inputs)
    placeholder = _placeholder(free)
    templates, tensors = [], []
    for value in inputs:
        leaves = []
        for leaf in _flatten(value):
            if _is_tensor(leaf):
                tensors.append(as_tensor(leaf))
                leaves.append(placeholder)
            else:
                leaves.append(leaf)
        templates.append(value if isinstance(value, str) else pprint.pformat(_pack(value, leaves)))
    template = sep.join(templates).replace(f"'{placeholder}'", placeholder)
    text = StringFormat.bind(*tensors, template=template, placeholder=placeholder, summarize=int(summarize))
    PrintV2.bind(text, output_stream=stream, end=end)
    return None
