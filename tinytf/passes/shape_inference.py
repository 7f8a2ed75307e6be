"""``tf-shape-inference``: refine ``tensor<*x...>`` and ``?`` dims with each op's ``infer`` rule,
across called functions, until nothing changes.

    %0 = "tf.AddV2"(%a, %b) : (tensor<2x3xf32>, tensor<f32>) -> tensor<*xf32>
    // becomes: ... -> tensor<2x3xf32>

    tinytf-opt f.mlir -p 'tf-shape-inference{input-shapes="2,3:4"}'   # entry args: 2x3 and 4

- Operands are TensorSpecs (``TensorSpec.from_type``); a ``tf.Const`` operand also gives its
  ``.value``, so rules such as Reshape's can read a constant shape (a splat over the allocation
  limit gives its type only).
- A result only gets more specific: known dims and the element type stay as they are; a rule
  that raises, disagrees with the IR, or belongs to an unknown op leaves the op alone.
- Calls (``tf.PartitionedCall``, ``tf.StatefulPartitionedCall``, ``tf_device.cluster_func``) take
  their result types from the callee's signature; a private callee whose every use is such a call
  gets its argument types from the call operands. Signatures follow their ``func.return``.
- ``tf.ReadVariableOp`` also reads the variable's type off a typed resource
  (``!tf_type.resource<tensor<2xf32>>``); ``tf_device`` region ops take their region's yield.
- ``input-shapes`` gives the entry function's argument shapes, TensorFlow's ``-tf-input-shapes``
  format: ``:`` between arguments, ``,`` between dims, an empty entry for a scalar, ``?`` for an
  unknown dim, ``*`` for an unknown rank. The entry function is chosen as ``tt.load_mlir`` chooses
  it: the only public function, else ``@main``, else the one with ``tf.entry_function``.
- ``input-arg-shapes`` (TensorFlow's option of this pass) gives ``@main``'s argument shapes in the same
  format; every argument needs a shape (``*`` is refused: "Missing input argument shapes"), and a
  module without ``@main`` is refused.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType, UnrankedTensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from tinytf.errors import InvalidArgumentError, ResourceExhaustedError
from tinytf.framework import tf_types
from tinytf.framework.op import Op
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.array import Const
from tinytf.ops.resource import ReadVariableOp
from tinytf.ops.tf_device import ClusterFuncOp, ClusterOp, LaunchOp, ParallelExecuteOp
from tinytf.ops.tf_executor import GraphOp, IslandOp
from tinytf.passes.symbols import CALL_OPS, callee, diagnostic, functions, is_private, op_name, symbol_users

MAX_ROUNDS = 50  # each round refines at least one type, so real modules converge in a few
# Ops tinytf knows only as IR whose TensorFlow shape function gives the first operand's shape
# (the uniform quantization ops change the element type, not the shape).
SHAPE_OF_FIRST_OPERAND = frozenset({"tf.UniformQuantize", "tf.UniformDequantize", "tf.UniformRequantize"})


# --- types ---------------------------------------------------------------------------------------

def refine(old: Attribute, shape) -> Attribute | None:
    """``old`` with unknown rank or dims filled from ``shape``; ``None`` when nothing changes or they conflict."""
    if shape is None or not isinstance(old, TensorType | UnrankedTensorType):
        return None
    old_shape = tf_types.shape_of(old)
    if old_shape is None:
        new_shape = tuple(shape)
    elif len(old_shape) != len(shape) or any(a is not None and b is not None and a != b
                                               for a, b in zip(old_shape, shape)):
        return None  # the rule disagrees with the IR: keep what the IR says
    else:
        new_shape = tuple(a if a is not None else b for a, b in zip(old_shape, shape))
    if new_shape == old_shape:
        return None
    return _tensor_type(new_shape, old.element_type)


@functools.lru_cache(maxsize=4096)
def _tensor_type(shape, element):
    return tf_types.tensor_type(shape, element)  # building (and verifying) a type costs more than inferring it


def join_shapes(shapes):
    """The most specific shape every one of ``shapes`` fits (differing dims become unknown)."""
    shapes = list(shapes)
    if not shapes or any(s is None for s in shapes) or len({len(s) for s in shapes}) != 1:
        return None
    return tuple(dims[0] if len(set(dims)) == 1 else None for dims in zip(*shapes))


def _spec_of(value: SSAValue) -> TensorSpec:
    spec = TensorSpec.from_type(value.type)
    if isinstance(value.owner, Const):
        try:
            spec.value = value.owner.attr_values()["value"]
        except ResourceExhaustedError:  # a splat too large to run: its type still gives the shape
            pass
    return spec


def parse_input_shapes(text: str) -> list:
    """``"2,3:4::*"`` -> ``[(2, 3), (4,), (), None]`` (TensorFlow's ``-tf-input-shapes`` format)."""
    shapes = []
    for part in text.split(":"):
        part = part.strip()
        if part == "*":
            shapes.append(None)
            continue
        dims = []
        for dim in filter(None, (d.strip() for d in part.split(","))):
            if dim in ("?", "-1"):
                dims.append(None)
            elif dim.isdigit():
                dims.append(int(dim))
            else:
                raise InvalidArgumentError(f"tf-shape-inference: bad dim '{dim}' in input-shapes '{text}'")
        shapes.append(tuple(dims))
    return shapes


# --- the pass ------------------------------------------------------------------------------------

class _ShapeInference:
    def __init__(self, module: ModuleOp):
        self.module = module
        self.table = functions(module)
        users = symbol_users(module)
        # A private function whose every use is a call can take its argument types from the calls.
        self.callers = {name: ops for name, ops in users.items()
                        if name in self.table and is_private(self.table[name])
                        and all(op.name in CALL_OPS or isinstance(op, ClusterFuncOp) for op in ops)}
        self.changed = False

    def set_type(self, value: SSAValue, new_type: Attribute) -> SSAValue:
        self.changed = True
        return Rewriter.replace_value_with_new_type(value, new_type)

    def run(self) -> None:
        # Ops are visited after their operands' definitions, so without calls one round is enough;
        # calls carry types between functions, in either direction: repeat until nothing changes.
        has_calls = any(op.name in CALL_OPS or isinstance(op, ClusterFuncOp) for op in self.module.walk())
        for _ in range(MAX_ROUNDS if has_calls else 1):
            self.changed = False
            for fn in list(self.table.values()):
                self.refine_arguments(fn)
                if len(fn.body.blocks) == 1:  # (a function of several blocks, cf branches, is left as it is)
                    self.infer_block(fn.body.block)
                self.refine_signature(fn)
            if not self.changed:
                return

    def refine_arguments(self, fn: FuncOp) -> None:
        calls = self.callers.get(fn.sym_name.data)
        if not calls or len(fn.body.blocks) != 1:
            return
        for index, arg in enumerate(fn.body.block.args):
            shapes = [tf_types.shape_of(call.operands[index].type) for call in calls
                      if index < len(call.operands)]
            new_type = refine(arg.type, join_shapes(shapes)) if len(shapes) == len(calls) else None
            if new_type is not None:
                self.set_type(arg, new_type)

    def refine_signature(self, fn: FuncOp) -> None:
        if len(fn.body.blocks) != 1:
            return
        block = fn.body.block
        inputs = [arg.type for arg in block.args]
        ret = block.last_op
        outputs = list(fn.function_type.outputs.data)
        if isinstance(ret, ReturnOp) and len(ret.operands) == len(outputs):
            outputs = [refine(old, tf_types.shape_of(v.type)) or old for old, v in zip(outputs, ret.operands)]
        new = FunctionType.from_lists(inputs, outputs)
        if new != fn.function_type:
            fn.function_type = new
            self.changed = True

    def infer_block(self, block: Block) -> None:
        for op in list(block.ops):
            for region in op.regions:
                for inner in region.blocks:
                    self.infer_block(inner)
            shapes = self.result_shapes(op)
            if shapes is None:
                continue
            for result, shape in zip(list(op.results), shapes):
                new_type = refine(result.type, shape)
                if new_type is not None:
                    self.set_type(result, new_type)

    def result_shapes(self, op: Operation) -> list | None:
        """The shapes the op's results can be refined to (``None`` entries: unknown)."""
        if op.name in CALL_OPS or isinstance(op, ClusterFuncOp):
            outputs = callee(self.module, op, self.table).function_type.outputs.data
            return [tf_types.shape_of(t) for t in outputs]
        if isinstance(op, ClusterOp | LaunchOp | ParallelExecuteOp):
            yielded = [v for region in op.regions for v in region.block.last_op.operands] \
                if all(len(r.blocks) == 1 and r.block.last_op for r in op.regions) else []
            return [tf_types.shape_of(v.type) for v in yielded] if len(yielded) == len(op.results) else None
        if isinstance(op, IslandOp | GraphOp):  # data results follow the yield / fetch (the token stays)
            returned = op.yield_op if isinstance(op, IslandOp) else op.fetch
            return [tf_types.shape_of(v.type) for v in returned.operands][:len(op.results)]
        if op_name(op) in SHAPE_OF_FIRST_OPERAND and op.operands and len(op.results) == 1:
            return [tf_types.shape_of(op.operands[0].type)]
        if isinstance(op, ReadVariableOp):
            sub = tf_types.resource_subtype(op.resource.type)
            if sub is not None:
                return [tf_types.shape_of(sub)]
        if not isinstance(op, Op) or getattr(type(op), "infer", None) is None or not op.results:
            return None
        try:
            out = type(op).infer(*(_spec_of(v) for v in op.operands), **op.attr_values())
        except Exception:  # a rule that rejects these operands, or a malformed op: leave it as it is
            return None
        out = out if isinstance(out, list | tuple) else [out]
        if len(out) != len(op.results):
            return None
        shapes = []
        for spec, result in zip(out, op.results):
            try:
                same_dtype = spec.dtype is tf_types.dtype_of(result.type)
            except InvalidArgumentError:
                same_dtype = False
            shapes.append(spec.shape if same_dtype else None)
        return shapes


def set_input_shapes(module: ModuleOp, text: str) -> None:
    table = functions(module)
    public = [fn for fn in table.values() if not is_private(fn)]
    tagged = [fn for fn in table.values() if "tf.entry_function" in fn.attributes]
    entry = public[0] if len(public) == 1 else table.get("main") or (tagged[0] if len(tagged) == 1 else None)
    if entry is None:
        raise InvalidArgumentError("tf-shape-inference: input-shapes needs an entry function: the only public "
                                   "function, else @main, else the one with tf.entry_function")
    refine_arguments(entry, parse_input_shapes(text))


def set_main_argument_shapes(module: ModuleOp, text: str) -> None:
    """TensorFlow's ``input-arg-shapes``: ``@main``'s arguments get these shapes, all of them given."""
    shapes = parse_input_shapes(text)
    if any(shape is None for shape in shapes):
        raise InvalidArgumentError(diagnostic(module, "Missing input argument shapes"))
    main = functions(module).get("main")
    if main is None:
        raise InvalidArgumentError(diagnostic(module, "Input shapes provided but no `main` function found."))
    refine_arguments(main, shapes)


def refine_arguments(entry: FuncOp, shapes: list) -> None:
    args = entry.body.block.args
    if len(shapes) != len(args):
        raise InvalidArgumentError(diagnostic(
            entry, f"input-shapes gives {len(shapes)} shapes for @{entry.sym_name.data}, which has {len(args)} arguments"))
    for index, (arg, shape) in enumerate(zip(list(args), shapes)):
        if tf_types.is_resource(arg.type) or shape is None:
            continue  # a resource handle keeps its type; '*' keeps the argument as it is
        new_type = refine(arg.type, shape)
        if new_type is None and not TensorSpec.from_type(arg.type).is_compatible_with(shape):
            raise InvalidArgumentError(diagnostic(
                entry, f"input-shapes: argument {index} of type {arg.type} cannot have shape "
                       f"{'x'.join('?' if d is None else str(d) for d in shape) or 'scalar'}"))
        if new_type is not None:
            Rewriter.replace_value_with_new_type(arg, new_type)
    entry.function_type = FunctionType.from_lists([a.type for a in args], entry.function_type.outputs.data)


@dataclass(frozen=True)
class ShapeInference(ModulePass):
    """Refines unknown ranks and dims from operand types with each op's shape rule."""

    name = "tf-shape-inference"
    # (xDSL reads an unquoted `1` as an int and `2,3` as a tuple of ints: both are shape texts too)
    input_shapes: str | int | tuple[int, ...] = ""
    input_arg_shapes: str | int | tuple[int, ...] = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.input_shapes != "":
            set_input_shapes(op, _shape_text(self.input_shapes))
        if self.input_arg_shapes != "":
            set_main_argument_shapes(op, _shape_text(self.input_arg_shapes))
        _ShapeInference(op).run()


def _shape_text(option: str | int | tuple[int, ...]) -> str:
    return ",".join(map(str, option)) if isinstance(option, tuple) else str(option)
