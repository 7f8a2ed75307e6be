"""The ``tf_device`` dialect: regions and calls that run on a device (the TF-to-XLA bridge), printed
as TensorFlow's ``tf-opt`` prints them. Ops with a custom syntax in TensorFlow (``return``, ``replicate``,
``remote_run``, ``send``, ``receive``) have it here too; the others print in generic form, as TF's do.

    %0 = "tf_device.cluster"() ({
      %1 = "tf.AddV2"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      tf_device.return %1 : tensor<f32>
    }) : () -> tensor<f32>
    %2 = "tf_device.cluster_func"(%a, %b) <{func = @_func}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %3:2 = tf_device.replicate([%a, %b] as %ri: tensor<f32>) {n = 2 : i32} {
      tf_device.return %ri : tensor<f32>
    }
"""
from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FlatSymbolRefAttrConstr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnrankedTensorType,
    i32,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Dialect, Region
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure, ReturnLike, SymbolTable
from xdsl.utils.exceptions import VerifyException

from tinytf.framework.op import CallsFunctions

# --- the terminator ----------------------------------------------------------------------------


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Ends a tf_device region, yielding its values as the enclosing op's results.

        tf_device.return %x, %y : tensor<f32>, tensor<2xi32>
    """

    name = "tf_device.return"
    results_ = var_operand_def()
    traits = traits_def(IsTerminator(), Pure(), ReturnLike())
    assembly_format = "attr-dict ($results_^ `:` type($results_))?"


def _ends_with_return(regions) -> None:
    """TF's SingleBlockImplicitTerminator<"ReturnOp">, checked after the ops inside (as MLIR does)."""
    for region in regions:
        if region.blocks and region.block.ops and not isinstance(region.block.last_op, ReturnOp):
            last = region.block.last_op
            found = last.op_name.data if hasattr(last, "op_name") else last.name
            raise VerifyException(f"expects regions to end with 'tf_device.return', found '{found}'")


def _single_blocks(regions: list[Region], names: list[str]) -> None:
    """ODS's SizedRegion<1> and the SingleBlock trait, in TensorFlow's words."""
    for i, (region, name) in enumerate(zip(regions, names)):
        if len(region.blocks) != 1:
            raise VerifyException(f"region #{i} ('{name}') failed to verify constraint: region with 1 blocks")
    for region in regions:
        if not region.block.ops:
            raise VerifyException("expects a non-empty block")


class DeviceRegionOp(IRDLOperation):
    """A tf_device op whose single-block regions end with ``tf_device.return``. ``verify_regions_``
    holds the checks MLIR runs after the ops inside (region traits), so a bad op inside is named first."""

    def region_names(self) -> list[str]:
        return ["body"] * len(self.regions)

    def verify_(self) -> None:  # (after IRDL's checks of the op's fields)
        _single_blocks(list(self.regions), self.region_names())
        self.verify_device_op_()

    def verify_device_op_(self) -> None:
        pass

    def verify_regions_(self) -> None:
        _ends_with_return(self.regions)

    def verify(self, verify_nested_ops: bool = True) -> None:
        super().verify(verify_nested_ops)
        if verify_nested_ops:  # (tinytf.mlir.verify calls verify_regions_ itself, after the nested ops)
            try:
                self.verify_regions_()
            except VerifyException as err:
                self.emit_error(f"Operation does not verify: {err}", err)


# --- region ops --------------------------------------------------------------------------------


@irdl_op_definition
class ClusterOp(DeviceRegionOp):
    """A region to compile as one unit (for XLA); its results are what its ``return`` yields.
    ``policy`` names the policy that formed the cluster."""

    name = "tf_device.cluster"
    body = region_def()
    output = var_result_def()
    policy = opt_prop_def(StringAttr)


@irdl_op_definition
class LaunchOp(DeviceRegionOp):
    """A region that runs on ``device``.

        %0 = "tf_device.launch"() <{device = "/device:CPU:0"}> ({ ... tf_device.return %1 : tensor<f32> }) : () -> tensor<f32>
    """

    name = "tf_device.launch"
    body = region_def()
    output = var_result_def()
    device = prop_def(StringAttr)


@irdl_op_definition
class ParallelExecuteOp(DeviceRegionOp):
    """Regions that run concurrently; results are the regions' returns, concatenated in order."""

    name = "tf_device.parallel_execute"
    execute = var_region_def()
    execute_outputs = var_result_def()

    def region_names(self) -> list[str]:
        return ["regions"] * len(self.regions)

    def verify_(self) -> None:
        if not self.regions:
            raise VerifyException("must have at least one region.")
        DeviceRegionOp.verify_(self)

    def verify_device_op_(self) -> None:
        yielded = [v.type for region in self.regions for v in region.block.last_op.operands]
        results = [r.type for r in self.results]
        if any(a != b for a, b in zip(yielded, results)) or len(yielded) > len(results):
            raise VerifyException("output types must be a concatenated list of output types for each regions.")
        if len(results) != len(yielded):
            raise VerifyException(f"number of output types ({len(results)}) must match the total number of "
                                  f"outputs from all regions ({len(yielded)}).")


def _compatible(a: Attribute, b: Attribute) -> bool:
    """TF's VerifyCompatibleTypes: the same element type and compatible shapes (``?`` and ``*`` match)."""
    def element(t):
        return t.element_type if isinstance(t, TensorType | UnrankedTensorType) else t

    if element(a) != element(b):
        return False
    if not (isinstance(a, TensorType) and isinstance(b, TensorType)):
        return True
    sa, sb = a.get_shape(), b.get_shape()
    return len(sa) == len(sb) and all(x == y or x < 0 or y < 0 for x, y in zip(sa, sb))


@irdl_op_definition
class ReplicateOp(DeviceRegionOp):
    """An ``n``-way replicated computation. Each replicated input is ``n`` operands (one per replica) and
    one block argument; a packed input is one operand broadcast to every replica. Results: each value
    the region returns, ``n`` times.

        %r:2 = tf_device.replicate([%a, %b] as %ri: tensor<f32>, %c as %pi: tensor<i32>)
                 {devices = {CORE_0 = ["/DEVICE:0", "/DEVICE:1"]}, n = 2 : i32} {
          tf_device.return %ri : tensor<f32>
        }
    """

    name = "tf_device.replicate"
    replicated_inputs = var_operand_def()
    packed_inputs = var_operand_def()
    replicated_outputs = var_result_def()
    body = region_def()
    n = prop_def(IntegerAttr)
    devices = opt_prop_def(DictionaryAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @property
    def replicas(self) -> int:
        return self.n.value.data

    def verify_device_op_(self) -> None:
        n = self.replicas
        if self.n.type != i32 or n < 2:
            raise VerifyException("attribute 'n' failed to satisfy constraint: 32-bit signless integer attribute "
                                  "whose minimum value is 2")
        for value in (self.devices.data.values() if self.devices else ()):
            if not isinstance(value, ArrayAttr):
                raise VerifyException("expects 'devices' to be a map alias and device name list.")
            if not all(isinstance(d, StringAttr) for d in value.data):
                raise VerifyException("expects 'devices' to be a consists of string list as values.")
            if len(value.data) != n:
                raise VerifyException(f"expects number of devices ({len(value.data)}) to be equal to 'n' ({n})")
        block = self.body.block
        replicated, packed = len(self.replicated_inputs), len(self.packed_inputs)
        if replicated % n:
            raise VerifyException(f"expects number of replicated inputs ({replicated}) to be evenly divisible "
                                  f"by 'n' ({n})")
        if replicated // n + packed != len(block.args):
            raise VerifyException(f"expects number of block arguments ({len(block.args)}) to be equal to number "
                                  f"of replicated inputs ({replicated}) / 'n' ({n}) + number of packed inputs "
                                  f"({packed})")
        for arg in block.args:
            first = arg.index * n if arg.index < replicated // n else arg.index - replicated // n + replicated
            count = n if arg.index < replicated // n else 1
            for i in range(first, first + count):
                if not _compatible(arg.type, self.operands[i].type):
                    raise VerifyException(f"expects operand {i} ('{self.operands[i].type}') and block argument "
                                          f"{arg.index} ('{arg.type}') to have compatible types")
        returned = block.last_op.operands
        if len(self.results) != n * len(returned):
            raise VerifyException(f"expects number of results ({len(self.results)}) to be equal to 'n' * number "
                                  f"of terminator operands ({n} * {len(returned)})")
        for index, value in enumerate(returned):
            for i in range(n * index, n * index + n):
                if not _compatible(value.type, self.results[i].type):
                    raise VerifyException(f"incompatible types for result {i} and terminator operand {index}")

    @classmethod
    def parse(cls, parser: Parser) -> ReplicateOp:
        start = parser.pos
        groups: list[list[UnresolvedOperand]] = []  # replicated inputs, n operands each
        packed: list[UnresolvedOperand] = []
        replicated_args, packed_args = [], []
        if parser.parse_optional_punctuation("(") is not None and parser.parse_optional_punctuation(")") is None:
            while True:  # [%a, %b] as %arg: type (replicated) | %c as %arg: type (packed)
                operand = parser.parse_optional_unresolved_operand()
                if operand is not None:
                    packed.append(operand)
                    parser.parse_keyword("as", " between packed input and block argument")
                    args = packed_args
                else:
                    groups.append(parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                                    parser.parse_unresolved_operand))
                    parser.parse_keyword("as", " between replicated inputs and block argument")
                    args = replicated_args
                arg = parser.parse_argument(expect_type=False)
                parser.parse_punctuation(":")
                args.append(arg.resolve(parser.parse_type()))
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation(")")
        attributes = parser.parse_optional_attr_dict()
        n_attr = attributes.get("n")
        n = n_attr.value.data if isinstance(n_attr, IntegerAttr) else 0
        if n < 2:
            parser.raise_error(f"custom op '{cls.name}' expects 'n' to be at least 2, got {n}", start, start + 1)
        for index, group in enumerate(groups):
            if len(group) != n:
                parser.raise_error(f"custom op '{cls.name}' expects number of operands for replicated input "
                                   f"{index} to be 'n' ({n}), got {len(group)}", start, start + 1)
        operands = [parser.resolve_operand(o, arg.type) for group, arg in zip(groups, replicated_args) for o in group]
        packed_values = [parser.resolve_operand(o, arg.type) for o, arg in zip(packed, packed_args)]
        body = parser.parse_region([*replicated_args, *packed_args])
        _ensure_return(body)
        if len(body.blocks) != 1:
            parser.raise_error(f"custom op '{cls.name}' expects a single block region", start, start + 1)
        if not isinstance(body.block.last_op, ReturnOp):
            parser.raise_error(f"custom op '{cls.name}' expects a tf_device.return terminator", start, start + 1)
        attributes.pop("operandSegmentSizes", None)  # derived from the operands
        properties = {key: attributes.pop(key) for key in ("n", "devices") if key in attributes}
        result_types = [v.type for v in body.block.last_op.operands for _ in range(n)]
        return cls.build(operands=[operands, packed_values], result_types=[result_types], regions=[body],
                         properties=properties, attributes=attributes)

    def print(self, printer: Printer) -> None:
        n = max(self.replicas, 1)
        block = self.body.block
        groups = len(self.replicated_inputs) // n
        if self.operands:
            def item(arg):
                if arg.index < groups:
                    printer.print_string("[")
                    printer.print_list(self.replicated_inputs[arg.index * n:(arg.index + 1) * n], printer.print_operand)
                    printer.print_string("]")
                else:
                    printer.print_operand(self.packed_inputs[arg.index - groups])
                printer.print_string(" as ")
                printer.print_block_argument(arg, print_type=False)
                printer.print_string(": ")
                printer.print_attribute(arg.type)

            printer.print_string("(")
            printer.print_list(block.args, item)
            printer.print_string(")")
        shown = {k: v for k, v in (self.properties | self.attributes).items() if k != "operandSegmentSizes"}
        printer.print_op_attributes(shown)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=True)


def _ensure_return(region: Region) -> None:
    """MLIR's ensureTerminator: a region's block that does not end with a terminator gets ``tf_device.return``."""
    if not region.blocks:
        region.add_block(Block())
    last = region.blocks[-1].last_op
    if last is None or not last.has_trait(IsTerminator, value_if_unregistered=False):
        region.blocks[-1].add_op(ReturnOp.build(operands=[[]]))


# --- calls -------------------------------------------------------------------------------------


def _callee_defined(op, name: str) -> bool:
    """Whether the symbol table around ``op`` has the func.func ``name`` (True when ``op`` is in no
    symbol table yet: being built, there is nothing to check against)."""
    table = op.parent_op()
    while table is not None and not table.has_trait(SymbolTable):
        table = table.parent_op()
    return table is None or isinstance(SymbolTable.lookup_symbol(table, name), FuncOp)


@irdl_op_definition
class ClusterFuncOp(IRDLOperation):
    """Runs the function ``func`` as a compiled cluster (an outlined ``tf_device.cluster``)."""

    name = "tf_device.cluster_func"
    args = var_operand_def()
    output = var_result_def()
    func = prop_def(FlatSymbolRefAttrConstr)
    traits = traits_def(CallsFunctions("cluster", ("func",)))

    @property
    def callee(self) -> str:
        return self.func.root_reference.data

    def verify_(self) -> None:
        if not _callee_defined(self, self.callee):
            raise VerifyException(f"'func' attribute refers to an undefined function: {self.callee}")


@irdl_op_definition
class LaunchFuncOp(IRDLOperation):
    """Runs the function ``func`` on ``device`` (an outlined ``tf_device.launch``)."""

    name = "tf_device.launch_func"
    args = var_operand_def()
    output = var_result_def()
    device = prop_def(StringAttr)
    func = prop_def(FlatSymbolRefAttrConstr)


@irdl_op_definition
class RemoteRunOp(IRDLOperation):
    """Runs the function ``callee`` on ``host``.

        %0 = tf_device.remote_run "/job:worker/replica:0/task:1" @f(%x) : (tensor<i32>) -> tensor<i32>
    """

    name = "tf_device.remote_run"
    callee_args = var_operand_def()
    results_ = var_result_def()
    host = prop_def(StringAttr)
    callee = prop_def(SymbolRefAttr)
    assembly_format = "$host $callee `(` $callee_args `)` attr-dict `:` functional-type($callee_args, $results_)"


@irdl_op_definition
class SendOp(IRDLOperation):
    """Sends ``value`` to ``dst_host`` under the rendezvous ``key``.

        tf_device.send %x "key-0" "/job:worker/replica:0/task:1/device:CPU:0" : tensor<i32>
    """

    name = "tf_device.send"
    value = operand_def()
    key = prop_def(StringAttr)
    dst_host = prop_def(StringAttr)
    assembly_format = "$value $key $dst_host attr-dict `:` type($value)"


@irdl_op_definition
class ReceiveOp(IRDLOperation):
    """Receives the value sent under ``key`` from ``src_host``.

        %0 = tf_device.receive "key-0" "/job:localhost/replica:0/task:0/device:CPU:0" : tensor<i32>
    """

    name = "tf_device.receive"
    result = result_def()
    key = prop_def(StringAttr)
    src_host = prop_def(StringAttr)
    assembly_format = "$key $src_host attr-dict `:` type($result)"


TFDevice = Dialect("tf_device", [ReturnOp, ClusterOp, ClusterFuncOp, LaunchOp, LaunchFuncOp, ParallelExecuteOp,
                                 ReplicateOp, RemoteRunOp, SendOp, ReceiveOp], [])
