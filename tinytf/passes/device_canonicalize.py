"""TensorFlow's canonicalization patterns of the ``tf_device`` region ops, run by ``canonicalize``.

    tinytf-opt module.mlir -p canonicalize

- a ``tf_device.launch`` whose body only returns is replaced by the values it returns (and an
  empty launch without results is erased);
- a ``tf_device.cluster`` result that only passes a string value from outside the cluster through
  is replaced by that value, unless a ``tf.AssignVariableOp`` writes it: XLA cannot take strings,
  and the pass-through makes the cluster's computation need them. Other types stay (XLA handles
  them, and removing them could leave an empty computation).

    %0:2 = "tf_device.cluster"() ({ ... tf_device.return %s, %y : tensor<!tf_type.string>, tensor<f32> }) ...
    // becomes, with %s defined outside the cluster:
    %0 = "tf_device.cluster"() ({ ... tf_device.return %y : tensor<f32> }) ...   // uses of %0#0 read %s

Importing this module hooks the patterns into ``canonicalize`` through a trait on those op classes,
as ``executor_canonicalize`` does for the tf_executor ops.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Block, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.traits import HasCanonicalizationPatternsTrait

from tinytf.framework.tf_types import StringType
from tinytf.ops.tf_device import ClusterOp, LaunchOp, ReturnOp
from tinytf.passes.symbols import op_name
from tinytf.passes.tf_rewrite import element_type


class DropEmptyLaunch(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LaunchOp, rewriter: PatternRewriter, /):
        block = op.body.block
        if block.first_op is not block.last_op:
            return
        rewriter.replace(op, [], list(block.last_op.operands))


def _defined_in(value: SSAValue, block: Block) -> bool:
    owner = value.owner
    return owner is block if isinstance(owner, Block) else owner.parent_block() is block


def _written_to_variable(result: SSAValue) -> bool:
    return any(op_name(use.operation) == "tf.AssignVariableOp" for use in result.uses)


class DropStringPassThroughResults(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ClusterOp, rewriter: PatternRewriter, /):
        block = op.body.block
        terminator = block.last_op
        returned = list(terminator.operands)
        passed = [not _defined_in(value, block) and isinstance(element_type(value), StringType)
                  and not _written_to_variable(result) for value, result in zip(returned, op.results)]
        if not any(passed):
            return
        kept = [value for value, through in zip(returned, passed) if not through]
        rewriter.replace(terminator, ReturnOp.build(operands=[kept]))
        region = op.detach_region(op.body)
        new = ClusterOp.build(regions=[region], result_types=[[v.type for v in kept]],
                              properties=dict(op.properties), attributes=dict(op.attributes))
        fresh = iter(new.results)
        values = [value if through else next(fresh) for value, through in zip(returned, passed)]
        rewriter.replace(op, [new], values)


PATTERNS = (DropEmptyLaunch(), DropStringPassThroughResults())


@dataclass(frozen=True)
class DeviceCanonicalization(HasCanonicalizationPatternsTrait):
    """Hands ``canonicalize`` the tf_device patterns (each matches only its own op class)."""

    @classmethod
    def get_canonicalization_patterns(cls):
        return PATTERNS


for _cls in (LaunchOp, ClusterOp):
    if _cls.get_trait(DeviceCanonicalization) is None:
        _cls.traits.add_trait(DeviceCanonicalization())
