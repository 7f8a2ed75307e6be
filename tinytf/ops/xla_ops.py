"""XLA and TPU ops of TensorFlow's bridge, with TensorFlow's verifiers: XlaBroadcastHelper, XlaConvV2,
XlaReduceWindow, XlaSelectAndScatter, XlaSetDynamicDimensionSize, SetStaticDimensionBounds, XlaCallModule,
_XlaHostComputeMlir, TPUExecuteAndUpdateVariables.

    %0 = "tf.XlaReduceWindow"(%x, %init, %dims, %strides, %base, %win, %pad) <{computation = @add}>
           : (tensor<7xf32>, tensor<f32>, tensor<1xi32>, ...) -> tensor<?xf32>

tinytf knows them as IR only (``op.IR_ONLY``): they parse, verify and print as TensorFlow's tools do;
running one raises UnimplementedError naming it.
"""
from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

from tinytf.framework import diagnostics, tf_types
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register_ir_only
from tinytf.ops import verifiers as v

__all__: list[str] = []  # IR-only ops: no op functions


def _dims(s) -> str:
    return ", ".join("?" if d is None else str(d) for d in s)


def check_padding_matrix(op, padding, say_shape: bool) -> None:
    """A constant padding operand must be an [n, 2] matrix."""
    s = v.shape(padding) if v.const(padding) is not None else None
    if s is not None and (len(s) != 2 or s[1] != 2):
        v.fail("expects padding to be a matrix with minor dimension 2" + (f", got {_dims(s)}" if say_shape else ""))


def check_function(op, symbol, role: str, what: str, parameters: int = 2):
    """The module's function ``symbol`` (``has no {what} function specified`` without one), taking
    ``parameters`` arguments."""
    func = v.lookup_function(op, symbol) if isinstance(symbol, SymbolRefAttr) else None
    if func is None:
        v.fail(f"has no {what} function specified")
    args, results = v.function_type(func)
    if len(args) != parameters:
        v.fail(f"expects {role} function to take {parameters} parameters, but has {len(args)} parameter(s)")
    return args, results


def _empty_constant(value) -> bool:
    """A constant operand with no elements (``dense<> : tensor<0xi64>``)."""
    owner = getattr(value, "owner", None)
    return getattr(owner, "name", None) in ("tf.Const", "arith.constant") and v.num_elements(v.shape(value)) == 0


@register_ir_only
class XlaBroadcastHelper(Op):
    """XLA's broadcasting of the lower-rank operand along ``broadcast_dims`` of the higher-rank one."""

    name = "tf.XlaBroadcastHelper"
    lhs = operand_def()
    rhs = operand_def()
    broadcast_dims = operand_def()
    lhs_output = result_def()
    rhs_output = result_def()
    traits = traits_def(Pure())

    def verify_ir(self):
        lhs, rhs = v.shape(self.lhs), v.shape(self.rhs)
        dims = v.const_ints(self.broadcast_dims)
        if dims is None and _empty_constant(self.broadcast_dims):
            dims = []
        if lhs is None or rhs is None or dims is None:
            return
        if not dims:
            if len(lhs) != len(rhs) and lhs and rhs:
                self._cannot_infer("if broadcast_dims is empty, both arguments must have equal rank or at least "
                                   "one argument must be a scalar")
            inferred = [self.lhs.type, self.rhs.type]
        else:
            small, large = (lhs, rhs) if len(lhs) < len(rhs) else (rhs, lhs)
            if len(dims) != len(small):
                self._cannot_infer("broadcast_dims must have size equal to the smaller argument rank")
            shape, seen = [1] * len(large), set()
            for i, d in enumerate(dims):
                if d < 0 or d >= len(large):
                    self._cannot_infer("out of range broadcast dim")
                if d in seen:
                    self._cannot_infer("broadcast_dims has duplicates")
                seen.add(d)
                shape[d] = small[i]
            if len(lhs) < len(rhs):
                inferred = [v.tensor_type(tuple(shape), v.element(self.lhs)), self.rhs.type]
            else:
                inferred = [self.lhs.type, v.tensor_type(tuple(shape), v.element(self.rhs))]
        v.check_inferred(self, inferred)

    def _cannot_infer(self, why: str):
        raise diagnostics.Error("failed to infer returned types", errors=[why])  # MLIR reports both


@register_ir_only
class XlaConvV2(Op):
    """XLA's general convolution; strides, padding, dilations and groups are operands."""

    name = "tf.XlaConvV2"
    lhs = operand_def()
    rhs = operand_def()
    window_strides = operand_def()
    padding = operand_def()
    lhs_dilation = operand_def()
    rhs_dilation = operand_def()
    feature_group_count = operand_def()
    output = result_def()
    dimension_numbers = attr(kind="str")
    precision_config = attr(kind="str")
    batch_group_count = attr(1)
    traits = traits_def(Pure())

    def verify_ir(self):
        operands = (self.window_strides, self.padding, self.lhs_dilation, self.rhs_dilation, self.feature_group_count)
        if any(v.const(x) is None for x in operands):
            return  # (TensorFlow checks only when all five are constants)
        if v.rank(self.window_strides) != 1:
            v.fail("expects window_stride to be a vector")
        check_padding_matrix(self, self.padding, say_shape=False)
        # (TensorFlow's messages spell "vecotr")
        if v.rank(self.lhs_dilation) != 1:
            v.fail("expects lhs_dilation to be a vecotr")
        if v.rank(self.rhs_dilation) != 1:
            v.fail("expects rhs_dilation to be a vecotr")
        if v.rank(self.feature_group_count):
            v.fail("expects feature_group_count to be a scalar")


def _check_window_operand(op, value, name: str, input_rank: int | None, rank_one: bool, space: str) -> None:
    if v.const(value) is None:
        return
    s = v.shape(value)
    if rank_one and len(s) != 1:
        v.fail(f"expects the rank of {name}to be 1, got {len(s)}")
    size = v.num_elements(s)
    if input_rank is not None and size != input_rank:
        v.fail(f"expects the size of {name}{space}to be equal to the input rank ({size} vs. {input_rank})")


@register_ir_only
class XlaReduceWindow(Op):
    """XLA's ReduceWindow: ``computation`` (a function of two scalars) over each window."""

    name = "tf.XlaReduceWindow"
    input = operand_def()
    init_value = operand_def()
    window_dimensions = operand_def()
    window_strides = operand_def()
    base_dilations = operand_def()
    window_dilations = operand_def()
    padding = operand_def()
    output = result_def()
    computation = attr(kind="func")
    traits = traits_def(Pure())

    def verify_ir(self):
        r = v.rank(self.input)
        for name in ("window_dimensions", "window_strides", "base_dilations", "window_dilations"):
            _check_window_operand(self, getattr(self, name), name, r, rank_one=True, space=" ")
        check_padding_matrix(self, self.padding, say_shape=True)
        check_function(self, self.computation, "reduction", "reduction")


@register_ir_only
class XlaSelectAndScatter(Op):
    """XLA's SelectAndScatter: ``select`` picks an element of each window, ``scatter`` adds ``source`` there."""

    name = "tf.XlaSelectAndScatter"
    operand = operand_def()
    window_dimensions = operand_def()
    window_strides = operand_def()
    padding = operand_def()
    source = operand_def()
    init_value = operand_def()
    output = result_def()
    select = attr(kind="func")
    scatter = attr(kind="func")
    traits = traits_def(Pure())

    def verify_ir(self):
        r = v.rank(self.operand)
        for name in ("window_dimensions", "window_strides"):
            _check_window_operand(self, getattr(self, name), name, r, rank_one=False, space="")
        check_padding_matrix(self, self.padding, say_shape=True)
        _, results = check_function(self, self.select, "select", "select")
        if len(results) != 1 or str(tf_types.element_type_of(results[0])) != "i1":
            got = results[0] if results else "none"
            v.fail(f"expects select function to return a single boolean result but got '{got}'")
        check_function(self, self.scatter, "scatter", "scatter")


@register_ir_only
class XlaSetDynamicDimensionSize(Op):
    """Marks dimension ``dim_index`` of ``input`` dynamic, of run-time size ``size``."""

    name = "tf.XlaSetDynamicDimensionSize"
    input = operand_def()
    dim_index = operand_def()
    size = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    def verify_ir(self):
        s = v.shape(self.input)
        if s is None:
            return
        index = v.const_ints(self.dim_index)
        if index:
            if not 0 <= index[0] < len(s):
                raise diagnostics.Error("failed to infer returned types",
                                        errors=[f"dim_index ({index[0]}) is out of range [0, {len(s)})"])
            s = s[:index[0]] + (None,) + s[index[0] + 1:]
        else:
            s = (None,) * len(s)
        v.check_inferred(self, [v.tensor_type(s, v.element(self.input))])


@register_ir_only
class SetStaticDimensionBounds(Op):
    """``input`` unchanged, with ``static_shape`` the upper bounds of its dynamic dims (rank 1 or 2)."""

    name = "tf.SetStaticDimensionBounds"
    input = operand_def()
    static_shape = operand_def()
    output = result_def()

    def verify_ir(self):
        v.check_types(self, operands={"input": v.TF_DTYPE})
        r = v.rank(self.input)
        if r is not None and r > 2:
            v.fail("was used with an input tensor with rank > 2, only tensors of rank 1,2 are supported")
        s = v.shape(self.static_shape)
        if s is not None and len(s) != 1:
            v.fail("static shape must be of rank 1 (vector)")
        if r is not None and s is not None and s[0] is not None and s[0] != r:
            v.fail("static shape must have num_elements == rank of input tensor")


@register_ir_only
class XlaCallModule(Op):
    """Calls a serialized StableHLO ``module``; ``function_list`` names the TF functions it may call back."""

    name = "tf.XlaCallModule"
    args = var_operand_def()
    output = var_result_def()
    version = attr(kind="int")
    module = attr(kind="str")
    Sout = attr(kind="shapes")
    dim_args_spec = attr((), kind="strs")
    platforms = attr((), kind="strs")
    function_list = attr((), kind="any")
    has_token_input_output = attr(False)
    disabled_checks = attr((), kind="strs")
    use_shardy_partitioner = attr(False)

    def verify_ir(self):
        functions = self.function_list
        for f in functions.data if isinstance(functions, ArrayAttr) else ():
            if v.lookup_function(self, f) is None:
                v.fail(f"refers to an undefined function: {f}")


def _host_functions(text: str):
    """The ``func.func`` names of a serialized MLIR module, or None when it does not parse. (MLIR only,
    no TensorFlow dialect needed: unknown ops parse generically.)"""
    from xdsl.context import Context
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func, FuncOp
    from xdsl.parser import Parser

    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    try:
        module = Parser(ctx, text).parse_module()
    except Exception:  # noqa: BLE001  (any failure to read it is "can not be deserialized")
        return None
    return {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}


@register_ir_only
class _XlaHostComputeMlir(Op):
    """Runs ``host_func`` of the serialized module ``host_mlir_module`` on the host, from a TPU computation."""

    name = "tf._XlaHostComputeMlir"
    inputs = var_operand_def()
    outputs = var_result_def()
    send_key = attr(kind="str")
    recv_key = attr(kind="str")
    host_mlir_module = attr("")
    manual_sharding = attr(False)

    def verify_ir(self):
        text = self.attr_values()["host_mlir_module"]
        if not text:
            return
        functions = _host_functions(text)
        if functions is None:
            v.fail("attribute 'host_mlir_module' can not be deserialized.")
        func = functions.get("host_func")
        if func is None:
            v.fail("serialized module in attribute 'host_mlir_module' does not contain 'host_func' function.")
        args, results = v.function_type(func)
        if len(self.operands) != len(args):
            v.fail(f"'host_func' has {len(args)} inputs and '_XlaHostComputeMlir' has {len(self.operands)} "
                   "operands.  Number of operands/inputs should be the same.")
        if len(self.results) != len(results):
            v.fail(f"'host_func' has {len(results)} results and '_XlaHostComputeMlir' has {len(self.results)} "
                   "results.  Number of results should be the same.")


@register_ir_only
class TPUExecuteAndUpdateVariables(Op):
    """Runs a compiled TPU program (``key``), reading and updating the resource arguments in place."""

    name = "tf.TPUExecuteAndUpdateVariables"
    args = var_operand_def()
    key = operand_def()
    results_ = var_result_def()
    device_var_reads_indices = attr(kind="ints")
    device_var_updates_indices = attr(kind="ints")
    ATTR_CONSTRAINTS: ClassVar[dict] = {"device_var_reads_indices": v.i64_array(),
                                        "device_var_updates_indices": v.i64_array()}

    def verify_ir(self):
        resources = sum(isinstance(tf_types.element_type_of(a.type), tf_types.ResourceType) for a in self.args)
        values = self.attr_values()
        for name, least in (("device_var_reads_indices", 0), ("device_var_updates_indices", -1)):
            indices = values[name]
            if len(indices) != resources:
                v.fail(f"requires '{name}' to be the same size as number of resource handles in 'args' "
                       f"({resources}), but got {len(indices)}")
            for i, x in enumerate(indices):
                if x < least:
                    v.fail(f"requires '{name}' to contain values of at least {least}, but got {x} at index {i}")

