"""If, StatelessIf, While and Case: op definitions that TensorFlow's exported MLIR parses into, their
properties as Python values, shape rules, and the trait that hands them to the graph executor."""
from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.traits import Pure

from tinytf import dtypes, mlir
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.op import NoConstantFold, calls_functions, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import control_flow as cf

FIXTURE = Path(__file__).parents[1] / "conformance" / "fixtures" / "control_flow.mlir"


def ops_named(module, name):
    return [op for op in module.walk() if op.name == name]


def test_fixture_parses_into_the_op_classes_and_verifies():
    module = mlir.parse(FIXTURE)
    mlir.verify(module)
    (if_op,) = ops_named(module, "tf.If")
    (while_op,) = ops_named(module, "tf.While")
    assert type(if_op) is cf.If and type(while_op) is cf.While
    assert if_op.attr_values() == {"then_branch": "cond_true_9080", "else_branch": "cond_false_9090",
                                   "is_stateless": True, "Tout": (dtypes.float32,), "Tin": (dtypes.float32,)}
    assert len(if_op.input) == 1 and if_op.cond is if_op.operands[0]
    i32, f32 = dtypes.int32, dtypes.float32
    assert while_op.attr_values() == {"cond": "while_cond_9260", "body": "while_body_9270", "is_stateless": True,
                                      "parallel_iterations": 10, "shape_invariant": True,
                                      "T": (i32, i32, i32, f32, i32, f32)}
    assert len(while_op.input) == 6 and len(while_op.output) == 6


def test_fixture_prints_the_control_flow_ops_as_tensorflow_does():
    text = FIXTURE.read_text()
    printed = mlir.print(mlir.parse(FIXTURE))
    for name in ("tf.If", "tf.While"):
        want = next(line for line in text.splitlines() if f'"{name}"' in line)
        got = next(line for line in printed.splitlines() if f'"{name}"' in line)
        # SSA names are renumbered by the printer; the op, its properties and attributes are not.
        assert got[got.index(f'"{name}"'):].split("(", 1)[1].split(")", 1)[1] == \
            want[want.index(f'"{name}"'):].split("(", 1)[1].split(")", 1)[1]


def test_traits():
    kinds = {cf.If: "if", cf.StatelessIf: "if", cf.While: "while", cf.StatelessWhile: "while", cf.Case: "case",
             cf.StatelessCase: "case"}
    for cls, kind in kinds.items():
        assert calls_functions(cls).kind == kind
        assert not hasattr(cls, "compute") and not hasattr(cls, "kernel")
    assert calls_functions(cf.If).functions == ("then_branch", "else_branch")
    assert calls_functions(cf.While).functions == ("cond", "body")
    for stateful in (cf.If, cf.While, cf.Case):
        assert has_trait(stateful, NoConstantFold) and not has_trait(stateful, Pure)
    for stateless in (cf.StatelessIf, cf.StatelessWhile, cf.StatelessCase):
        assert has_trait(stateless, Pure) and not has_trait(stateless, NoConstantFold)


def test_if_infer_uses_tout():
    specs = cf.If.infer(TensorSpec((), dtypes.bool_), TensorSpec([3]), Tout=(dtypes.float32, dtypes.int32),
                        then_branch="a", else_branch="b", is_stateless=True)
    assert specs == [TensorSpec(None, dtypes.float32), TensorSpec(None, dtypes.int32)]


def test_while_infer_keeps_loop_var_types():
    a, b = TensorSpec([3], dtypes.float32), TensorSpec((), dtypes.int32)
    assert cf.While.infer(a, b, cond="c", body="b", is_stateless=True, parallel_iterations=10,
                          shape_invariant=False) == [a, b]
    assert cf.While.infer(a, b, cond="c", body="b", is_stateless=True, parallel_iterations=10,
                          shape_invariant=True) == [TensorSpec(None, dtypes.float32), TensorSpec(None, dtypes.int32)]
    with pytest.raises(InvalidArgumentError, match="tf.While: parallel_iterations must be positive, got 0"):
        cf.While.infer(a, cond="c", body="b", is_stateless=True, parallel_iterations=0, shape_invariant=False)


def test_complete_attrs_fills_tensorflow_defaults():
    attrs = cf.While.complete_attrs({"cond": "c", "body": "b", "is_stateless": False})
    assert attrs["parallel_iterations"] == 10 and attrs["shape_invariant"] is False
    with pytest.raises(InvalidArgumentError, match="missing attribute 'then_branch'"):
        cf.If.complete_attrs({"else_branch": "e", "is_stateless": True})


CASE = """
func.func @f0(%x: tensor<2xf32>) -> tensor<2xf32> { func.return %x : tensor<2xf32> }
func.func @f1(%x: tensor<2xf32>) -> tensor<2xf32> { func.return %x : tensor<2xf32> }
func.func @main(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Case"(%i, %x) <{branches = [@f0, @f1], is_stateless = true}> {Tin = [f32], Tout = [f32]}
     : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.StatelessIf"(%i, %0) <{else_branch = @f1, is_stateless = true, then_branch = @f0}>
     : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
"""


def test_case_and_stateless_if_parse_and_verify():
    module = mlir.parse(CASE)
    mlir.verify(module)
    (case,) = ops_named(module, "tf.Case")
    assert type(case) is cf.Case
    assert cf.Case.branch_names(case.attr_values()["branches"]) == ("f0", "f1")
    assert [cf.Case.branch_for(i, 2) for i in (-1, 0, 1, 2, 7)] == [1, 0, 1, 1, 1]
    (sif,) = ops_named(module, "tf.StatelessIf")
    assert type(sif) is cf.StatelessIf and sif.attr_values()["then_branch"] == "f0"
    specs = cf.Case.infer(TensorSpec((), dtypes.int32), TensorSpec([2]), Tout=(dtypes.float32,),
                          branches=case.attr_values()["branches"], is_stateless=True)
    assert specs == [TensorSpec(None, dtypes.float32)]


def test_case_bad_index_and_branches():
    with pytest.raises(InvalidArgumentError, match=r"tf.Case: branch_index must be a scalar int32, got int64 \[\]"):
        cf.Case.infer(TensorSpec((), dtypes.int64), Tout=(), branches=["f"], is_stateless=True)
    with pytest.raises(InvalidArgumentError, match=r"scalar int32, got int32 \[2\]"):
        cf.Case.infer(TensorSpec([2], dtypes.int32), Tout=(), branches=["f"], is_stateless=True)
    with pytest.raises(InvalidArgumentError, match="at least one function"):
        cf.Case.branch_names([])
    with pytest.raises(InvalidArgumentError, match="function symbols"):
        cf.Case.branch_names([3])


def test_missing_branch_is_a_verify_error():
    text = """
func.func @main(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.If"(%p, %x) <{else_branch = @g, is_stateless = true}> : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
    with pytest.raises(InvalidArgumentError, match="tf.If.*missing attribute 'then_branch'"):
        mlir.verify(mlir.parse(text))
    bad = text.replace("else_branch = @g", "else_branch = 3, then_branch = @f")
    with pytest.raises(InvalidArgumentError, match="else_branch"):
        mlir.verify(mlir.parse(bad))


def test_gradient_through_functional_control_flow_is_unimplemented():
    class FakeOp:
        type = "tf.While"

    with pytest.raises(UnimplementedError, match="tf.While: gradients through functional control flow"):
        cf.While.grad(FakeOp(), None)
