"""Region control flow as functional control flow, so that it runs: TensorFlow's
tf-region-control-flow-to-functional conversion, which ``tt.load_mlir`` applies to a copy of the module.

    %0 = "tf.IfRegion"(%p) <{is_stateless = true}> ({ ... "tf.Yield"(%a) ... }, { ... }) : (tensor<i1>) -> T
    # -> %0 = "tf.If"(%p, %x...) <{else_branch = @f_else, is_stateless = true, then_branch = @f_then}>

Each region becomes a private function; the values a region uses from outside become its arguments (and
the op's operands). A WhileRegion carries them as extra loop values its body passes through unchanged;
its condition function returns only the predicate. Inner region ops are outlined before outer ones.
"""
from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, SymbolRefAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from tinytf.framework.op import REGISTRY
from tinytf.ops.region_control_flow import CaseRegion, IfRegion, WhileRegion

REGION_OPS = (IfRegion, WhileRegion, CaseRegion)


def has_region_control_flow(module: ModuleOp) -> bool:
    return any(isinstance(op, REGION_OPS) for op in module.walk())


def outlined(module: ModuleOp) -> ModuleOp:
    """A copy of ``module`` whose IfRegion, WhileRegion and CaseRegion ops are tf.If, tf.While and tf.Case
    calling new private functions (the module itself when it has none)."""
    if not has_region_control_flow(module):
        return module
    module = module.clone()
    names = _Names(module)
    for op in reversed([op for op in module.walk() if isinstance(op, REGION_OPS)]):  # inner ones first
        if isinstance(op, WhileRegion):
            _outline_while(op, module, names)
        else:
            _outline_branches(op, module, names)
    return module


class _Names:
    """Fresh function names, after the function the op sits in (``@f_then``, ``@f_else_0``, ...)."""

    def __init__(self, module: ModuleOp):
        self.taken = {op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)}

    def fresh(self, op: Operation, suffix: str) -> str:
        parent = op
        while parent is not None and not isinstance(parent, func.FuncOp):
            parent = parent.parent_op()
        base = f"{parent.sym_name.data if parent is not None else 'region'}_{suffix}"
        name, i = base, 0
        while name in self.taken:
            name, i = f"{base}_{i}", i + 1
        self.taken.add(name)
        return name


def _free_values(regions) -> list[SSAValue]:
    """Values the ops in ``regions`` use that are defined outside all of them, in first-use order."""
    found: list[SSAValue] = []
    for region in regions:
        for op in region.walk():
            for value in op.operands:
                if not any(_defined_in(value, r) for r in regions) and value not in found:
                    found.append(value)
    return found


def _defined_in(value: SSAValue, region: Region) -> bool:
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    return block is not None and region.is_ancestor(block)


def _to_function(region: Region, name: str, captured: list[SSAValue], results) -> func.FuncOp:
    """The region's block as a private function: its own arguments first, then one per captured value
    (whose uses inside become that argument); its tf.Yield becomes func.return of ``results(yielded)``."""
    body = Rewriter.move_region_contents_to_new_regions(region)
    block = body.blocks[0]
    for value in captured:
        arg = block.insert_arg(value.type, len(block.args))
        value.replace_uses_with_if(arg, lambda use: body.is_ancestor(use.operation))
    yield_ = block.last_op
    returned = results(list(yield_.operands))
    ret = func.ReturnOp(*returned)
    block.insert_op_before(ret, yield_)
    block.erase_op(yield_)
    inputs = [a.type for a in block.args]
    return func.FuncOp(name, (inputs, [v.type for v in returned]), body, visibility="private")


def _replace(op: Operation, name: str, operands, result_types, properties, module: ModuleOp, functions) -> None:
    new = REGISTRY[name].create(operands=list(operands), result_types=list(result_types), properties=properties,
                                attributes=dict(op.attributes))
    op.parent_block().insert_op_before(new, op)
    for old, value in zip(op.results, new.results):  # (a While's extra results, the captured values, go unused)
        old.replace_all_uses_with(value)
    op.parent_block().erase_op(op)
    for f in functions:
        module.body.block.add_op(f)


def _stateless(op: Operation) -> IntegerAttr:
    return op.properties.get("is_stateless") or op.attributes.get("is_stateless") or IntegerAttr(0, 1)


def _outline_branches(op: Operation, module: ModuleOp, names: _Names) -> None:
    """IfRegion -> tf.If, CaseRegion -> tf.Case: every branch takes every captured value."""
    regions = list(op.regions)
    captured = _free_values(regions)
    if isinstance(op, IfRegion):
        suffixes = ["then", "else"]
    else:
        suffixes = [f"branch{i}" for i in range(len(regions))]
    functions = [_to_function(r, names.fresh(op, s), captured, lambda ys: ys) for r, s in zip(regions, suffixes)]
    refs = [SymbolRefAttr(f.sym_name.data) for f in functions]
    if isinstance(op, IfRegion):
        props = {"then_branch": refs[0], "else_branch": refs[1], "is_stateless": _stateless(op)}
        _replace(op, "tf.If", [op.operands[0], *captured], [r.type for r in op.results], props, module, functions)
    else:
        props = {"branches": ArrayAttr(refs), "is_stateless": _stateless(op)}
        _replace(op, "tf.Case", [op.operands[0], *captured], [r.type for r in op.results], props, module, functions)


def _outline_while(op: Operation, module: ModuleOp, names: _Names) -> None:
    """WhileRegion -> tf.While: captured values ride along as extra loop values the body returns unchanged."""
    cond, body = op.regions
    captured = _free_values([cond, body])
    n = len(op.operands)
    block = body.blocks[0]  # (moved, not copied, into the body function: its arguments grow by the captured)
    cond_fn = _to_function(cond, names.fresh(op, "cond"), captured, lambda ys: ys[:1])
    body_fn = _to_function(body, names.fresh(op, "body"), captured, lambda ys: ys + list(block.args[n:]))
    props = {"cond": SymbolRefAttr(cond_fn.sym_name.data), "body": SymbolRefAttr(body_fn.sym_name.data),
             "is_stateless": _stateless(op)}
    for key in ("parallel_iterations", "shape_invariant"):
        if key in op.properties:
            props[key] = op.properties[key]
    types = [r.type for r in op.results] + [v.type for v in captured]
    _replace(op, "tf.While", [*op.operands, *captured], types, props, module, [cond_fn, body_fn])
