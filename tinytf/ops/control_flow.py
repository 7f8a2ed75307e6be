"""Functional control flow: If, While, Case and their Stateless forms. Branches and bodies are functions in the module.

    %0 = "tf.If"(%pred, %x) <{else_branch = @cond_false, is_stateless = true, then_branch = @cond_true}>
           {Tcond = i1, Tin = [f32], Tout = [f32], device = ""} : (tensor<i1>, tensor<3xf32>) -> tensor<3xf32>
    %1:2 = "tf.While"(%i, %x) <{body = @body, cond = @cond, is_stateless = true, parallel_iterations = 10 : i64,
           shape_invariant}> {T = [i32, f32]} : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>)

These ops have no kernel of their own: the engines run them by calling the functions their
``func`` attributes name (the ``CallsFunctions`` trait says which and how). The type lists TensorFlow prints in
the attribute dictionary (``Tin``, ``Tout``, ``T``, ``output_shapes``) stay there as discardable
attributes; the rules read dtypes off the operand and result types instead.
"""
from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr
from xdsl.irdl import operand_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import CallsFunctions, NoConstantFold, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape


def _result_types(op):
    return tuple(tf_types.dtype_of(r.type) for r in op.results)


def _operand_types(op, skip: int = 0):
    return tuple(tf_types.dtype_of(v.type) for v in op.operands[skip:])


def _no_gradient(op, *dys):
    raise UnimplementedError(f"{getattr(op, 'type', 'control flow')}: gradients through functional control flow "
                             "are not implemented for this op (the tf.If and tf.While of tt.cond and "
                             "tt.while_loop are differentiable; one read from MLIR is not)")


class _IfBase(Op):
    """cond ? then_branch(input...) : else_branch(input...); both branches return ``Tout``."""

    cond = operand_def()
    input = var_operand_def()
    output = var_result_def()
    then_branch = attr(kind="func")
    else_branch = attr(kind="func")
    is_stateless = attr(kind="bool")
    Tout = derived("types", _result_types)
    Tin = derived("types", lambda op: _operand_types(op, 1), default=())

    def verify_ir(self):
        v.check_types(self, operands={"cond": v.TF_DTYPE, "input": v.TF_DTYPE})
        v.check_branch_functions(self, [("'then_branch'", self.then_branch), ("'else_branch'", self.else_branch)])

    @staticmethod
    def infer(cond, *input, Tout, **_):
        # A non-scalar or non-bool cond is allowed (TensorFlow: non-empty is true); the shapes of the
        # results are the branches' and are not known here.
        return [TensorSpec(None, dtype) for dtype in Tout]

    grad = staticmethod(_no_gradient)


@register
class If(_IfBase):
    """Calls then_branch or else_branch; the branches may have side effects unless is_stateless."""

    name = "tf.If"
    traits = traits_def(NoConstantFold(), CallsFunctions("if", ("then_branch", "else_branch")))


@register
class StatelessIf(_IfBase):
    """If whose branches have no side effects."""

    name = "tf.StatelessIf"
    traits = traits_def(Pure(), CallsFunctions("if", ("then_branch", "else_branch")))


class _WhileBase(Op):
    """Loops ``input = body(input...)`` while ``cond(input...)`` is true; results are the final values.

    TensorFlow's own loops carry (counter, maximum_iterations, loop vars..., captures...); the body
    returns every value, the counter incremented.
    """

    input = var_operand_def()
    output = var_result_def()
    cond = attr(kind="func")
    body = attr(kind="func")
    is_stateless = attr(kind="bool")
    parallel_iterations = attr(10)
    shape_invariant = attr(False, kind="unit")
    T = derived("types", lambda op: _operand_types(op), default=())

    def verify_ir(self):
        cond, body = v.lookup_function(self, self.cond), v.lookup_function(self, self.body)
        if cond is None:
            v.fail(f"cond refers to an undefined function : {self.cond.root_reference.data}")
        if body is None:
            v.fail(f"body refers to an undefined function : {self.body.root_reference.data}")
        (cond_args, cond_results), (body_args, body_results) = v.function_type(cond), v.function_type(body)
        if len(cond_results) != 1:
            v.fail("requires cond function to have exactly one result")
        v.check_while_types(self, cond_args, body_args, body_results, self.attr_values()["shape_invariant"])

    @classmethod
    def infer(cls, *input, parallel_iterations, shape_invariant, **_):
        if parallel_iterations < 1:
            raise InvalidArgumentError(f"{cls.name}: parallel_iterations must be positive, got "
                                       f"{parallel_iterations}", cls.name)
        # With shape_invariant the loop may change shapes, so only the dtypes are known.
        return [TensorSpec(None, s.dtype) if shape_invariant else TensorSpec(s.shape, s.dtype) for s in input]

    grad = staticmethod(_no_gradient)


@register
class While(_WhileBase):
    """A loop whose body may have side effects (unless is_stateless)."""

    name = "tf.While"
    traits = traits_def(NoConstantFold(), CallsFunctions("while", ("cond", "body")))


@register
class StatelessWhile(_WhileBase):
    """While whose cond and body have no side effects."""

    name = "tf.StatelessWhile"
    traits = traits_def(Pure(), CallsFunctions("while", ("cond", "body")))


class _CaseBase(Op):
    """Calls ``branches[branch_index]`` (the last branch when the index is out of range).

    %0 = "tf.Case"(%i, %x) <{branches = [@f0, @f1], is_stateless = true}> : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
    """

    branch_index = operand_def()
    input = var_operand_def()
    output = var_result_def()
    branches = attr(kind="any")  # an array of symbol references: see branch_names
    is_stateless = attr(kind="bool")
    Tout = derived("types", _result_types)

    def verify_ir(self):
        if not v.has_rank(self.branch_index, 0):
            v.fail(f"expects 'branch_index' to be a scalar, but got '{self.branch_index.type}'")
        items = self.branches.data if isinstance(self.branches, ArrayAttr) else ()
        v.check_branch_functions(self, [(f"branch #{i}", b) for i, b in enumerate(items)])

    @classmethod
    def infer(cls, branch_index, *input, Tout, branches, **_):
        if branch_index.dtype.name != "int32" or branch_index.shape not in (None, ()):
            raise InvalidArgumentError(f"{cls.name}: branch_index must be a scalar int32, got "
                                       f"{branch_index.dtype.name} {fmt_shape(branch_index.shape)}", cls.name)
        cls.branch_names(branches)
        return [TensorSpec(None, dtype) for dtype in Tout]

    @classmethod
    def branch_names(cls, branches) -> tuple[str, ...]:
        """The branch function names from the ``branches`` attribute (or a list of names)."""
        items = branches.data if isinstance(branches, ArrayAttr) else branches
        names = []
        for item in items or ():
            if isinstance(item, SymbolRefAttr):
                names.append(item.root_reference.data)
            elif isinstance(item, str):
                names.append(item)
            else:
                raise InvalidArgumentError(f"{cls.name}: branches must be function symbols, got {item}", cls.name)
        if not names:
            raise InvalidArgumentError(f"{cls.name}: branches must name at least one function", cls.name)
        return tuple(names)

    @staticmethod
    def branch_for(index: int, count: int) -> int:
        """TensorFlow's rule: an out-of-range index runs the last branch (the default)."""
        return index if 0 <= index < count else count - 1

    grad = staticmethod(_no_gradient)


@register
class Case(_CaseBase):
    """Calls one of ``branches``; the branches may have side effects (unless is_stateless)."""

    name = "tf.Case"
    traits = traits_def(NoConstantFold(), CallsFunctions("case", ("branches",)))


@register
class StatelessCase(_CaseBase):
    """Case whose branches have no side effects."""

    name = "tf.StatelessCase"
    traits = traits_def(Pure(), CallsFunctions("case", ("branches",)))
