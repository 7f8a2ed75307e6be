"""tf_executor semantics: the passes (executor <-> functional, island coarsening, graph pruning, the
canonicalization patterns), running tf_executor functions on both backends, and the GraphDef
importer's tf_executor form (TensorFlow's order, its reprint, its run beside the functional form)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.transforms.canonicalize import CanonicalizePass

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.formats import node_order, protos, ref_variables
from tinytf.formats.graphdef_executor import ExecutorImporter, import_graph_def_executor
from tinytf.formats.graphdef_import import Feed, GraphImporter, import_graph_def, read_graph_def
from tinytf.framework import tf_types
from tinytf.ops.tf_executor import GraphOp, IslandOp
from tinytf.passes.executor_graph_pruning import ExecutorGraphPruning
from tinytf.passes.executor_island_coarsening import ExecutorIslandCoarsening
from tinytf.passes.executor_to_functional import ExecutorToFunctional, functional_form
from tinytf.passes.functional_to_executor import FunctionalToExecutor
from tinytf.runtime.executor import Program

INPUTS = Path(__file__).parent.parent / "filecheck" / "translate" / "Inputs"
SAVEDMODELS = Path(__file__).parent.parent / "fixtures" / "savedmodels"
RES = "tensor<!tf_type.resource<tensor<2xf32>>>"

# Read v, add d to it, read again: the second read waits on the update through its control token
# only, and the update waits on the first read.
COUNTER = f"""
func.func @main(%v: {RES}, %d: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {{
  %r:2 = tf_executor.graph {{
    %old, %c0 = tf_executor.island wraps "tf.ReadVariableOp"(%v) : ({RES}) -> tensor<2xf32>
    %c1 = tf_executor.island(%c0) wraps "tf.AssignAddVariableOp"(%v, %d) : ({RES}, tensor<2xf32>) -> ()
    %t = tf_executor.ControlTrigger %c1
    %new, %c2 = tf_executor.island(%t) wraps "tf.ReadVariableOp"(%v) : ({RES}) -> tensor<2xf32>
    %noop = tf_executor.island(%c2) wraps "tf.NoOp"() : () -> ()
    tf_executor.fetch %old, %new, %noop : tensor<2xf32>, tensor<2xf32>, !tf_executor.control
  }}
  func.return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>
}}
"""


def apply(module, *passes):
    for p in passes:
        p.apply(Context(), module)
    mlir.verify(module)
    return module


def graph_def(text: str):
    return protos.parse_text(protos.graph_pb2.GraphDef, text, "test graph")


# --- running tf_executor functions -------------------------------------------------------------

@pytest.mark.parametrize("backend", ["graph", "xla"])
def test_control_tokens_order_side_effects_on_both_backends(backend):
    module = tt.load_mlir(COUNTER)
    v = tt.Variable(np.array([1.0, 2.0], np.float32))
    old, new = module.run(v, np.array([10.0, 20.0], np.float32), backend=backend)
    np.testing.assert_array_equal(old, [1.0, 2.0])
    np.testing.assert_array_equal(new, [11.0, 22.0])
    np.testing.assert_array_equal(v.numpy(), [11.0, 22.0])
    assert "tf_executor.graph" in str(module)  # the module shown is the one given; a copy runs


def test_tf1_control_flow_is_an_unimplemented_error_naming_the_op_at_run_time():
    text = """func.func @main(%x: tensor<f32>, %p: tensor<i1>) -> tensor<f32> {
  %r = tf_executor.graph {
    %f, %t, %c = tf_executor.Switch %x, %p : tensor<f32>
    %m, %i, %cm = tf_executor.Merge %f, %t : tensor<f32>
    tf_executor.fetch %m : tensor<f32>
  }
  func.return %r : tensor<f32>
}"""
    module = tt.load_mlir(text)  # loads and prints; only running refuses
    with pytest.raises(UnimplementedError, match=r"<string>:3:\d+: 'tf_executor.Switch' op is TF1 control flow"):
        module.run(np.float32(1.0), np.bool_(True))


def test_functional_form_is_the_module_itself_without_graphs():
    module = mlir.parse_text("func.func @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}")
    assert functional_form(module) is module


# --- the passes --------------------------------------------------------------------------------

def test_executor_to_functional_keeps_graph_order_and_drops_every_executor_op():
    module = apply(mlir.parse_text(COUNTER.replace("%t = tf_executor.ControlTrigger %c1\n", "")
                                   .replace("island(%t)", "island(%c1)")), ExecutorToFunctional())
    names = [op.name for op in module.body.block.first_op.body.block.ops]
    assert names == ["tf.ReadVariableOp", "tf.AssignAddVariableOp", "tf.ReadVariableOp", "builtin.unregistered",
                     "func.return"]
    assert not any(op.name.startswith("tf_executor") for op in module.walk())


def test_functional_to_executor_and_back_is_the_identity():
    text = """func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = "tf.Neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tf.Exp"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1, %0 : tensor<3xf32>, tensor<3xf32>
}"""
    before = mlir.print(mlir.parse_text(text))
    module = apply(mlir.parse_text(text), FunctionalToExecutor())
    graphs = [op for op in module.walk() if isinstance(op, GraphOp)]
    assert len(graphs) == 1 and len([op for op in graphs[0].body.block.ops if isinstance(op, IslandOp)]) == 1
    apply(module, FunctionalToExecutor())  # already a graph: unchanged
    assert len([op for op in module.walk() if isinstance(op, GraphOp)]) == 1
    assert mlir.print(apply(module, ExecutorToFunctional())) == before


def test_coarsening_merges_a_chain_and_the_result_still_runs_the_same():
    module = apply(mlir.parse_text(COUNTER), ExecutorIslandCoarsening())
    graph = next(op for op in module.walk() if isinstance(op, GraphOp))
    kinds = [op.name for op in graph.body.block.ops]
    # the islands before the ControlTrigger merge, so do the ones after it; the trigger stays apart
    assert kinds == ["tf_executor.island", "tf_executor.ControlTrigger", "tf_executor.island", "tf_executor.fetch"]
    v = tt.Variable(np.zeros(2, np.float32))
    old, new = tt.LoadedModule(module).run(v, np.ones(2, np.float32))
    np.testing.assert_array_equal(old, [0, 0])
    np.testing.assert_array_equal(new, [1, 1])


def test_pruning_keeps_what_the_fetch_reaches_and_the_options_ops():
    text = """func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %r = tf_executor.graph {
    %a, %ca = tf_executor.island wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    %b, %cb = tf_executor.island wraps "tf.Exp"(%x) : (tensor<f32>) -> tensor<f32>
    %c, %cc = tf_executor.island wraps "tf.Custom"(%x) : (tensor<f32>) -> tensor<f32>
    tf_executor.fetch %a : tensor<f32>
  }
  func.return %r : tensor<f32>
}"""
    pruned = mlir.print(apply(mlir.parse_text(text), ExecutorGraphPruning()))
    assert "tf.Neg" in pruned and "tf.Exp" not in pruned and "tf.Custom" not in pruned
    kept = mlir.print(apply(mlir.parse_text(text), ExecutorGraphPruning(ops_to_preserve=("tf.Custom,tf.Other",))))
    assert "tf.Custom" in kept and "tf.Exp" not in kept


def test_canonicalize_hoists_a_single_island_graph_and_drops_empty_islands():
    text = """func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %r = tf_executor.graph {
    %e = tf_executor.island {
      tf_executor.yield
    }
    %a, %ca = tf_executor.island(%e) wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    tf_executor.fetch %a, %ca : tensor<f32>, !tf_executor.control
  }
  func.return %r : tensor<f32>
}"""
    module = mlir.parse_text(text)
    CanonicalizePass().apply(Context(), module)
    assert [op.name for op in module.body.block.first_op.body.block.ops] == ["tf.Neg", "func.return"]


# --- TensorFlow's node order -------------------------------------------------------------------

def test_node_order_follows_tensorflows_walk_not_the_files_order():
    # c and b are both ready after a: TF emits the later name of the walk's stack first, and keeps to
    # the current device while one of its nodes is ready.
    names = ["a", "b", "c", "d"]
    edges = [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")]
    assert node_order.topological_order(names, edges, lambda n: "") == ["a", "b", "c", "d"]
    devices = {"a": "", "b": "/gpu:0", "c": "", "d": ""}
    assert node_order.topological_order(names, edges, devices.get) == ["a", "c", "b", "d"]


# --- the importer's tf_executor form -----------------------------------------------------------

def test_side_effects_graph_imports_as_tensorflow_writes_it_reprints_and_runs():
    gd = read_graph_def(str(INPUTS / "graphdef-side-effects.pbtxt"))
    module = import_graph_def_executor(gd, inputs=["x"], outputs=["double", "read"], control_outputs=["done"])
    text = mlir.print(module)
    # TF's order: the constant and the variable first, whatever the file's order; ^x is dropped (x is fed)
    body = [line.split("wraps ")[1].split("(")[0] for line in text.splitlines() if "wraps" in line]
    assert body == ['"tf.Const"', '"tf.VarHandleOp"', '"tf.AssignVariableOp"', '"tf.AssignAddVariableOp"',
                    '"tf.ReadVariableOp"', '"tf.Mul"', '"tf.NoOp"']
    assert '{device = "/device:CPU:0"}' in text  # /cpu:0 canonicalized
    assert "tf_executor.fetch %outputs_6, %outputs_4, %control_8" in text
    assert mlir.print(mlir.parse_text(text)) == text  # a fixed point
    double, read = tt.load_mlir(text).run(np.float32(2.0))
    assert (float(double), float(read)) == (9.0, 3.0)


def test_executor_form_lifted_runs_as_the_functional_importers_module():
    gd = read_graph_def(str(INPUTS / "graphdef-add-call.pbtxt"))
    x = np.arange(10, dtype=np.int32)
    args = dict(inputs=["input0", "input1"], input_shapes=[(10,), (10,)], outputs=["func_call"])
    functional = import_graph_def(gd, **args)
    executor = import_graph_def_executor(gd, **args)
    assert "@test_func_name0" in mlir.print(executor)  # TF's uniquifier renames library functions
    lifted = apply(executor.clone(), ExecutorToFunctional())
    kinds = sorted(op.name for op in lifted.walk())
    # the same ops, but the call: TF's importer writes a call node as tf.LegacyCall
    assert kinds == sorted("tf.LegacyCall" if op.name == "tf.StatefulPartitionedCall" else op.name
                           for op in functional.walk())
    assert kinds.count("tf.LegacyCall") == 1
    want = Program(functional).run("main", [x, x])[0]
    np.testing.assert_array_equal(Program(lifted).run("main", [x, x])[0], want)
    np.testing.assert_array_equal(tt.LoadedModule(executor).run(x, x)[0], (x + x) * 2)


def test_shape_inference_off_types_as_tensorflow_without_it():
    gd = read_graph_def(str(INPUTS / "graphdef-add-call.pbtxt"))
    module = import_graph_def_executor(gd, inputs=["input0", "input1"], input_shapes=[(10,), (10,)],
                                       outputs=["Add"], shape_inference=False)
    text = mlir.print(module)
    assert "func.func @main(%arg0: tensor<10xi32>, %arg1: tensor<10xi32>) -> tensor<*xi32>" in text
    assert '"tf.Add"(%arg0, %arg1) {device = "/device:CPU:0"} : (tensor<10xi32>, tensor<10xi32>) -> tensor<*xi32>' \
        in text


def test_without_feeds_placeholders_stay_ops_and_there_is_no_entry_function():
    gd = read_graph_def(str(INPUTS / "graphdef-add-call.pbtxt"))
    text = mlir.print(import_graph_def_executor(gd, allow_unregistered=True))
    assert "func.func @main() {" in text and "tf.entry_function" not in text.split("func.func @main")[1]
    assert text.count('"tf.Placeholder"() {device = "", shape = #tf_type.shape<*>}') == 2
    assert "tf_executor.island(%control_1) wraps" in text  # ^input1 kept: input1 is not fed


def test_a_savedmodel_signature_runs_alike_in_both_forms():
    # half_plus_two (TF 1.14): y = a * x + b, its ref variables upgraded and lifted to arguments.
    data = (SAVEDMODELS / "half_plus_two_tf1_14" / "saved_model.pb").read_bytes()
    mg = protos.parse(protos.SavedModel, data, "half_plus_two_tf1_14").meta_graphs[0]
    op_defs = {op.name: op for op in mg.meta_info_def.stripped_op_list.op}
    nodes = ref_variables.upgrade_ref_variables(mg.graph_def.node, op_defs)
    results = []
    for importer_class in (GraphImporter, ExecutorImporter):
        importer = importer_class(mg.graph_def.library, mg.meta_info_def.stripped_op_list)
        fed = Feed("x:0", tf_types.tensor_type((None, 1), tt.float32))
        importer.graph(nodes, [fed], ["y:0"], prune=True, name="predict", lift_variables=True)
        importer.check()
        a, b = tt.Variable(np.float32(0.5)), tt.Variable(np.float32(2.0))
        module = importer.module()
        results.append(tt.LoadedModule(module).run(np.array([[4.0], [6.0]], np.float32), a, b, entry="predict")[0])
    assert "tf_executor.graph" in mlir.print(module)
    np.testing.assert_array_equal(results[0], [[4.0], [5.0]])
    np.testing.assert_array_equal(results[1], results[0])


def test_graph_as_function_runs_with_its_args_and_control_output():
    gd = read_graph_def(str(INPUTS / "graphdef-as-function.pbtxt"))
    module = import_graph_def_executor(gd, graph_as_function=True, control_outputs=["bump"])
    main = next(op for op in module.ops if op.sym_name.data == "main")
    assert [str(t) for t in main.function_type.inputs.data][0] == "tensor<2xf32>"
    y, v = tt.LoadedModule(module).run(np.array([1.5, -2.0], np.float32), np.float32(5.0))
    np.testing.assert_array_equal(y, [3.0, -4.0])  # x * 2
    assert float(v) == 7.0  # the control output ran: 5 + 2
    with pytest.raises(InvalidArgumentError, match="Control output 'nope' is missing"):
        import_graph_def_executor(gd, graph_as_function=True, control_outputs=["nope"])


def test_a_registered_op_its_rules_refuse_prints_its_properties_and_reprints():
    text = ('node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } '
            'attr { key: "shape" value { shape { } } } }\n'
            'node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } '
            'attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }\n'
            'node { name: "add" op: "AssignAdd" input: "v" input: "one" attr { key: "T" value { type: DT_FLOAT } } '
            'attr { key: "use_locking" value { b: false } } }\n')
    gd = protos.parse_text(protos.graph_pb2.GraphDef, text, "g")
    module = import_graph_def_executor(gd, allow_unregistered=True, control_outputs=["add"], shape_inference=False)
    printed = mlir.print(module)
    # AssignAdd's ref-variable rule refuses a resource, so it prints as given; use_locking is a property
    assert '"tf.AssignAdd"(%outputs_0, %outputs) <{use_locking = false}> {T = f32, device = ""}' in printed
    assert mlir.print(mlir.parse_text(printed)) == printed
