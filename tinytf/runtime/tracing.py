"""``TracingContext``: records ops into a ``func.func`` instead of running them.

    ctx = TracingContext("f", [TensorSpec([2], tt.float32, name="x")])
    with context.pushed(ctx):
        y = ctx.inputs[0] * 2.0            # appends "tf.Const" and "tf.Mul" to the function
    func = ctx.finish(y)                   # func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32>

Operands are converted as TensorFlow's graph builder does: Python values and numpy arrays
become ``tf.Const`` ops (Python scalars take the other operand's dtype), eager tensors are
embedded as constants, and a ``tt.Variable`` becomes a trailing
``tensor<!tf_type.resource<tensor<...>>>`` argument captured from the Python side (read through
``tf.ReadVariableOp`` where a value is needed). Result types come from each op's shape rule;
a constant operand's value is visible to the shape rule (``TensorSpec.value``).
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import Block, Region
from xdsl.irdl import VarOperandDef, VarResultDef

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.tensor_shape import TensorShape
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.runtime import dispatch
from tinytf.runtime.eager import adopt
from tinytf.runtime.tensor import Tensor, TensorOps

_new_shape = tuple.__new__


class SymbolicTensor(TensorOps):
    """A value of the function being traced: an SSA value with a (possibly partial) TensorSpec."""

    __slots__ = ("value", "spec", "graph")

    def __init__(self, value, spec: TensorSpec, graph):
        self.value = value
        self.spec = spec
        self.graph = graph

    @property
    def shape(self) -> TensorShape | None:
        """The static shape, a ``TensorShape`` with ``None`` for unknown dims; ``None`` when the rank is
        unknown (as ``TensorSpec.shape``, which the engines test with ``is None``)."""
        shape = self.spec.shape
        return shape if shape is None or type(shape) is TensorShape else _new_shape(TensorShape, shape)

    @property
    def dtype(self):
        return self.spec.dtype

    def numpy(self):
        raise TypeError("a symbolic tensor of a tt.function being traced has no value yet")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("cannot convert a symbolic tensor of a tt.function to a numpy array")

    def __bool__(self):
        raise TypeError("using a symbolic tensor as a Python bool is not allowed in a tt.function "
                        "(use tt.cond / tt.where)")

    def __len__(self):
        if self.spec.shape is None or not self.spec.shape or self.spec.shape[0] is None:
            raise TypeError("len() of a symbolic tensor needs a known first dimension")
        return self.spec.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self):
        shape = None if self.spec.shape is None else tuple(self.spec.shape)
        return f"<tt.SymbolicTensor shape={shape} dtype={self.spec.dtype.name}>"


def _group(defs, flat: list, var_cls, what: str, op_name: str) -> list:
    """Flat operands (or result types) grouped per IRDL definition: a list for a variadic one.
    Raises InvalidArgumentError when the count cannot fit the definition."""
    variadic = [i for i, (_, d) in enumerate(defs) if isinstance(d, var_cls)]
    if not variadic:
        if len(flat) != len(defs):
            raise InvalidArgumentError(f"{op_name}: expected {len(defs)} {what}, got {len(flat)}", op_name)
        return list(flat)
    if len(variadic) > 1:
        raise InvalidArgumentError(f"{op_name}: cannot trace an op with several variadic {what}", op_name)
    k = variadic[0]
    n_var = len(flat) - (len(defs) - 1)
    if n_var < 0:
        raise InvalidArgumentError(f"{op_name}: too few {what} ({len(flat)})", op_name)
    return list(flat[:k]) + [list(flat[k:k + n_var])] + list(flat[k + n_var:])


class TracingContext:
    """Builds one ``func.func``; ``inputs`` are the symbolic arguments, ``finish`` adds the return."""

    is_eager = False

    def __init__(self, name: str, arg_specs, arg_names=None, library: dict | None = None, for_xla: bool = False):
        self.name = name
        self.for_xla = for_xla  # the function will be compiled by XLA: static shapes only
        # private functions the traced function calls (tt.cond's branches), shared by nested traces
        self.library: dict[str, func.FuncOp] = {} if library is None else library
        self.arg_specs = [s if isinstance(s, TensorSpec) else TensorSpec(*s) for s in arg_specs]
        self.block = Block(arg_types=[s.to_type() for s in self.arg_specs])
        for i, arg in enumerate(self.block.args):
            arg.name_hint = f"arg{i}"  # printed %arg0, %arg1, ... as TensorFlow does
        self.inputs = [SymbolicTensor(arg, spec, self) for arg, spec in zip(self.block.args, self.arg_specs)]
        self.arg_names = list(arg_names or [s.name or f"arg{i}" for i, s in enumerate(self.arg_specs)])
        self.captures: dict[int, tuple[Variable, SymbolicTensor]] = {}
        self._consts: dict = {}  # id(eager Tensor) -> its embedded constant (each embedded once)

    # --- operands ------------------------------------------------------------------------------

    def capture(self, var: Variable) -> SymbolicTensor:
        """The resource argument standing for ``var`` (added as a trailing argument on first use)."""
        found = self.captures.get(id(var))
        if found is None:
            if var.shape is None or var.dtype is None:
                raise InvalidArgumentError(f"cannot capture variable {var.name}: unknown shape")
            spec = TensorSpec((), dtypes.resource, value=var)
            arg = self.block.insert_arg(spec.to_type(), len(self.block.args))
            arg.name_hint = f"arg{len(self.block.args) - 1}"
            found = (var, SymbolicTensor(arg, spec, self))
            self.captures[id(var)] = found
        return found[1]

    def lift(self, value: SymbolicTensor, op_name: str, i: int) -> SymbolicTensor:
        """A value of another function, used here: only a nested body (tt.cond's) can capture one."""
        raise InvalidArgumentError(f"{op_name}: operand {i} belongs to another tt.function (capturing symbolic "
                                   "tensors across functions is not supported)", op_name)

    def constant(self, array: np.ndarray) -> SymbolicTensor:
        from tinytf.ops.array import Const

        array = np.asarray(array)
        if not array.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d array 1-d)
            array = np.array(array, order="C")
        return self.execute(Const, (), {"value": array})

    def _operand(self, info, value, i, hint, float_hint) -> SymbolicTensor:
        if isinstance(value, SymbolicTensor):
            return value if value.graph is self else self.lift(value, info.name, i)
        if isinstance(value, Variable):
            if info.resource and i == 0:
                return self.capture(value)
            return value.value()  # through the stack, so a tape above sees the read
        if isinstance(value, Tensor):
            key = id(value)
            if key not in self._consts:
                self._consts[key] = (value, self.constant(np.asarray(value._value)))
            return self._consts[key][1]
        if isinstance(value, np.ndarray | np.generic):
            return self.constant(np.asarray(value))
        if value is None:
            raise InvalidArgumentError(f"{info.name}: operand {i} is None", info.name)
        if info.elementwise and hint is not None:
            return self.constant(adopt(info.name, value, hint))
        natural = dtypes.result_type_of_python(value)
        target = float_hint if natural.kind == "f" and float_hint is not None else natural.np
        return self.constant(adopt(info.name, value, target))

    # --- the context protocol ------------------------------------------------------------------

    def execute(self, op_cls, inputs, attrs, result_specs=None):
        """Append the op; ``result_specs``: types known better than its shape rule's (tt.cond's results)."""
        info = dispatch.op_info(op_cls)
        attrs = info.complete(attrs)
        hint = float_hint = None
        for value in inputs:  # the dtype Python values adopt: the first tensor operand's
            dtype = getattr(value, "dtype", None)
            if isinstance(value, SymbolicTensor | Tensor | np.ndarray):
                np_dtype = dtypes.as_dtype(dtype).np if not isinstance(value, np.ndarray) else value.dtype
                if np_dtype.kind == "O":
                    continue
                hint = hint if hint is not None else np_dtype
                if float_hint is None and np_dtype.kind in "fc":
                    float_hint = np_dtype
        operands = [self._operand(info, v, i, hint, float_hint) for i, v in enumerate(inputs)]
        specs = [o.spec for o in operands]
        out = info.infer(*specs, **attrs) if info.infer is not None else None
        if out is None:
            raise InvalidArgumentError(f"{info.name}: cannot trace an op without a shape rule", info.name)
        out_specs = [out] if isinstance(out, TensorSpec) else list(out)
        if result_specs is not None:
            out_specs = list(result_specs)
        definition = op_cls.get_irdl_definition()
        # checks the operand and result counts against the definition (variadic ones take the rest)
        _group(definition.operands, operands, VarOperandDef, "operands", info.name)
        _group(definition.results, out_specs, VarResultDef, "results", info.name)
        op = op_cls.create(
            operands=[o.value for o in operands],
            result_types=[s.to_type() for s in out_specs],
            properties=op_cls.attrs_to_properties({k: v for k, v in attrs.items() if v is not None}),
        )
        self.block.add_op(op)
        results = []
        for result, spec in zip(op.results, out_specs):  # a constant's spec carries its value
            results.append(SymbolicTensor(result, spec, self))
        if isinstance(out, TensorSpec):
            return results[0]
        return results if results else None

    # --- finishing -----------------------------------------------------------------------------

    def finish(self, outputs: list, identity: bool = True, visibility: str | None = None) -> func.FuncOp:
        """Return ``outputs`` (each through ``tf.Identity``, as TensorFlow exports) and build the func."""
        from tinytf.ops.array import Identity

        values = []
        for out in outputs:
            if not isinstance(out, SymbolicTensor) or out.graph is not self:
                out = self._operand(dispatch.op_info(Identity), out, 0, None, None)
            if identity:
                out = self.execute(Identity, (out,), {})
            values.append(out.value)
        self.block.add_op(func.ReturnOp(*values))
        arg_types = [a.type for a in self.block.args]
        names = self.arg_names + ["resource"] * len(self.captures)
        arg_attrs = ArrayAttr([DictionaryAttr({"tf._user_specified_name": StringAttr(n)}) for n in names])
        result_types = [v.type for v in values]
        fn = func.FuncOp(self.name, (arg_types, result_types), Region(self.block), visibility, arg_attrs=arg_attrs)
        # a capture's input: its variable's name without ":0" ("dense/w:0" -> "dense/w_resource")
        input_names = self.arg_names + [f"{var.shared_name.lower()}_resource" for var in self.captured_variables]
        fn.attributes["tf.entry_function"] = DictionaryAttr({
            "control_outputs": StringAttr(""),
            "inputs": StringAttr(",".join(input_names)),
            "outputs": StringAttr(",".join(f"identity{'_' + str(i) if i else ''}_RetVal" for i in range(len(values)))),
        })
        return fn

    @property
    def captured_variables(self) -> list[Variable]:
        return [var for var, _ in self.captures.values()]
