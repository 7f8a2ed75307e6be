"""Region control flow: IfRegion, WhileRegion, CaseRegion and their terminator Yield, with TensorFlow's
verifiers. The branches and loop bodies are regions of the op, not functions of the module:

    %0 = "tf.IfRegion"(%pred) <{is_stateless = true}> ({
      %1 = "tf.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
      "tf.Yield"(%1) : (tensor<2xf32>) -> ()
    }, {
      "tf.Yield"(%x) : (tensor<2xf32>) -> ()
    }) : (tensor<i1>) -> tensor<2xf32>

tinytf knows these ops as IR only (``op.IR_ONLY``): they parse, verify and print as TensorFlow's tools do;
the engines run the functional forms (tf.If, tf.While, tf.Case in ``control_flow.py``), into which
``tt.load_mlir`` outlines region ops (``tinytf.passes.region_outlining``).
"""
from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region
from xdsl.irdl import operand_def, traits_def, var_operand_def, var_region_def, var_result_def
from xdsl.traits import IsTerminator, Pure, ReturnLike
from xdsl.utils.exceptions import VerifyException

from tinytf.framework import diagnostics
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register_ir_only
from tinytf.ops import verifiers as v

__all__: list[str] = []  # IR-only ops: no op functions

YIELD_PARENTS = ("tf.CaseRegion", "tf.IfRegion", "tf.WhileRegion", "tf.GeneratorDatasetRegion")
I32 = v.TypeConstraint("tensor of 32-bit signless integer values", lambda e: str(e) == "i32")


def op_name(op: Operation) -> str:
    name = getattr(op, "op_name", None)
    return name.data if name is not None else op.name


def terminator(region: Region) -> Operation | None:
    """The region's tf.Yield (None when its block ends otherwise: the driver reports that block)."""
    if len(region.blocks) != 1:
        return None
    last = region.blocks[0].last_op
    return last if last is not None and op_name(last) == "tf.Yield" else None


def yielded_types(region: Region) -> list:
    found = terminator(region)
    return [] if found is None else [x.type for x in found.operands]


class RegionOp(Op):
    """An op whose regions each hold one block ending with tf.Yield (TensorFlow's SizedRegion<1> and
    SingleBlockImplicitTerminator<"YieldOp">). ``verify_regions_`` holds the checks MLIR makes after the
    ops inside (region verifiers, RegionBranchOpInterface), so a bad op inside is reported first."""

    REGION_NAMES: ClassVar[tuple] = ()  # TensorFlow's names of the regions, for its messages

    def region_name(self, index: int) -> str:
        names = self.REGION_NAMES
        return names[index] if index < len(names) else names[-1]

    def check_single_blocks(self) -> None:
        for i, region in enumerate(self.regions):
            if len(region.blocks) != 1:
                v.fail(f"region #{i} ('{self.region_name(i)}') failed to verify constraint: region with 1 blocks")

    def check_no_arguments(self) -> None:
        """TensorFlow's NoRegionArguments trait."""
        for i, region in enumerate(self.regions):
            if region.blocks and region.blocks[0].args:
                v.fail(f"region #{i} should have no arguments")

    def check_edges_to_results(self) -> None:
        """RegionBranchOpInterface: each region's yield carries as many values as the op has results."""
        for i, region in enumerate(self.regions):
            found = terminator(region)
            if found is not None and len(found.operands) != len(self.results):
                v.fail(f"region control flow edge from Region #{i} to parent results: source has "
                       f"{len(found.operands)} operands, but target successor needs {len(self.results)}")

    def verify_regions_(self) -> None:
        pass

    def verify(self, verify_nested_ops: bool = True) -> None:
        super().verify(verify_nested_ops)
        if verify_nested_ops:  # (tinytf.mlir.verify calls verify_regions_ itself, after the nested ops)
            try:
                self.verify_regions_()
            except VerifyException as err:
                self.emit_error(f"Operation does not verify: {err}", err)


@register_ir_only
class IfRegion(RegionOp):
    """Runs ``then_branch`` when ``cond`` is true, else ``else_branch``; the branches' yields are the results."""

    name = "tf.IfRegion"
    cond = operand_def()
    output = var_result_def()
    branches = var_region_def()  # then_branch, else_branch
    is_stateless = attr(kind="bool")
    _then_func_name = attr(None, kind="str")
    _else_func_name = attr(None, kind="str")
    REGION_NAMES: ClassVar[tuple] = ("then_branch", "else_branch")

    def verify_ir(self):
        v.check_types(self, operands={"cond": v.I1_SCALAR})
        if len(self.regions) != 2:
            v.fail("expected 2 regions")
        self.check_single_blocks()
        self.check_no_arguments()

    def verify_regions_(self):
        self.check_edges_to_results()
        results = [r.type for r in self.results]
        v.check_ranges_compatible("then result", yielded_types(self.regions[0]), "result", results)
        v.check_ranges_compatible("else result", yielded_types(self.regions[1]), "result", results)


@register_ir_only
class WhileRegion(RegionOp):
    """Loops: ``cond`` yields a tensor<i1> (optionally followed by its arguments), ``body`` the next values;
    both take the loop values as block arguments."""

    name = "tf.WhileRegion"
    input = var_operand_def()
    output = var_result_def()
    loop = var_region_def()  # cond, body
    parallel_iterations = attr(10)
    is_stateless = attr(kind="bool")
    shape_invariant = attr(False, kind="unit")
    REGION_NAMES: ClassVar[tuple] = ("cond", "body")
    ATTR_CONSTRAINTS: ClassVar[dict] = {"parallel_iterations": v.AttrConstraint(
        "64-bit signless integer attribute whose minimum value is 1", lambda a: a.value.data >= 1)}

    def verify_ir(self):
        if len(self.regions) != 2:
            v.fail("expected 2 regions")
        self.check_single_blocks()
        cond, body = self.regions
        cond_yield, body_yield = terminator(cond), terminator(body)
        if cond_yield is None or body_yield is None:
            return  # the block without its terminator is reported after the ops inside
        cond_args = cond.blocks[0].args
        n = len(cond_yield.operands)
        if n != 1 and n != len(cond_args) + 1:
            v.fail("condition should yield a tensor<i1> and forward the arguments")
        first = cond_yield.operands[0].type
        if not (isinstance(first, TensorType) and not first.get_shape() and str(first.element_type) == "i1"):
            v.fail("condition should have a single tensor<i1> result")
        v.check_while_types(self, [a.type for a in cond_args], [a.type for a in body.blocks[0].args],
                            [x.type for x in body_yield.operands], self.attr_values()["shape_invariant"])
        if n > 1 and any(arg is not x for arg, x in zip(cond_args, cond_yield.operands[1:])):
            v.fail("arguments on condition block aren't forwarded to yield")


@register_ir_only
class CaseRegion(RegionOp):
    """Runs ``branches[branch_index]`` (the last branch when the index is out of range)."""

    name = "tf.CaseRegion"
    branch_index = operand_def()
    output = var_result_def()
    branches = var_region_def()
    is_stateless = attr(kind="bool")
    REGION_NAMES: ClassVar[tuple] = ("branches",)

    def verify_ir(self):
        v.check_types(self, operands={"branch_index": I32})
        self.check_single_blocks()
        self.check_no_arguments()
        if not self.regions:
            v.fail("expects to have at least 1 region")
        if not v.has_rank(self.branch_index, 0):
            v.fail(f"expects 'branch_index' to be a scalar, but got '{self.branch_index.type}'")
        results = [r.type for r in self.results]
        for i, region in enumerate(self.regions):
            if terminator(region) is not None:
                v.check_ranges_compatible(f"branch #{i} result", yielded_types(region), "result", results)


def dominates(value, user: Operation) -> bool:
    """Whether ``value`` is visible at ``user``: defined in a block enclosing ``user``, before it (a value
    of one branch is not visible in another)."""
    if isinstance(value, BlockArgument):
        block: Block | None = value.block
        definer = None
    elif isinstance(value, OpResult):
        block, definer = value.op.parent_block(), value.op
    else:
        return True
    if block is None:
        return True
    ancestor = block.find_ancestor_op_in_block(user)
    if ancestor is None:
        return False
    return definer is None or definer is ancestor or block.get_operation_index(definer) < \
        block.get_operation_index(ancestor)


@register_ir_only
class Yield(Op):
    """Ends a region of IfRegion, WhileRegion or CaseRegion, handing its operands to the op (or, in a
    WhileRegion's ``cond``, the predicate and the loop values)."""

    name = "tf.Yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure(), ReturnLike())

    def verify_ir(self):
        parent = self.parent_op()
        if parent is None or op_name(parent) not in YIELD_PARENTS:
            v.fail(f"expects parent op to be one of '{', '.join(YIELD_PARENTS)}'")
        for i, value in enumerate(self.operands):
            if not dominates(value, self):
                notes = [(value.op, "operand defined here")] if isinstance(value, OpResult) else []
                raise diagnostics.Error(f"operand #{i} does not dominate this use", notes=notes)
