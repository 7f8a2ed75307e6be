"""GraphDef / FunctionDef -> functional MLIR (tinytf/formats/graphdef_import.py): names, order, attributes,
arguments, functions, strings, and one error for every op tinytf lacks."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.cli import translate as translate_cli
from tinytf.errors import DataLossError, InvalidArgumentError, UnimplementedError
from tinytf.formats import graphdef_import, protos, ref_variables
from tinytf.formats.graphdef_import import Feed, GraphImporter, import_graph_def
from tinytf.framework import tf_types
from tinytf.runtime.executor import Program

FIXTURES = Path(__file__).parent.parent / "fixtures" / "savedmodels"


def graph(text: str):
    return protos.parse_text(protos.graph_pb2.GraphDef, text, "test graph")


def const(name, value, dtype="DT_FLOAT", field="float_val"):
    return (f'node {{ name: "{name}" op: "Const" attr {{ key: "dtype" value {{ type: {dtype} }} }} '
            f'attr {{ key: "value" value {{ tensor {{ dtype: {dtype} tensor_shape {{ }} {field}: {value} }} }} }} }}\n')


def placeholder(name, dtype="DT_FLOAT", dims=()):
    shape = " ".join(f"dim {{ size: {d} }}" for d in dims)
    return (f'node {{ name: "{name}" op: "Placeholder" attr {{ key: "dtype" value {{ type: {dtype} }} }} '
            f'attr {{ key: "shape" value {{ shape {{ {shape} }} }} }} }}\n')


def binary(name, op, a, b, extra=""):
    inputs = f'input: "{a}" input: "{b}"' + "".join(f' input: "{c}"' for c in extra.split() if c)
    return f'node {{ name: "{name}" op: "{op}" {inputs} attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}\n'


def run(module, *args, entry="main"):
    return [np.asarray(v) for v in Program(module).run(entry, list(args))]


def meta_graph(name):
    data = (FIXTURES / name / "saved_model.pb").read_bytes()
    return protos.parse(protos.SavedModel, data, name).meta_graphs[0]


def test_a_graph_becomes_main_with_placeholders_as_arguments_and_runs():
    g = graph(placeholder("x", dims=(2,)) + const("half", 0.5) + const("two", 2.0)
              + binary("mul", "Mul", "half", "x") + binary("y", "AddV2", "mul", "two"))
    module = import_graph_def(g, outputs=["y"])
    text = mlir.print(module)
    assert 'func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32>' in text
    assert 'tf.entry_function = {control_outputs = "", inputs = "x", outputs = "y"}' in text
    assert '"tf.Mul"(%cst, %arg0) {device = ""} : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>' in text
    assert '"T"' not in text and "T =" not in text  # derived type attributes are dropped
    np.testing.assert_array_equal(run(module, np.array([1.0, 4.0], np.float32))[0], [2.5, 4.0])
    assert mlir.print(mlir.parse(text)) == text  # reprints as a fixed point


def test_input_arrays_shapes_and_dtypes_override_the_placeholders():
    g = graph(placeholder("a", "DT_INT32") + placeholder("b", "DT_INT32")
              + 'node { name: "s" op: "Sub" input: "a" input: "b" attr { key: "T" value { type: DT_INT32 } } }')
    module = import_graph_def(g, inputs=["b", "a"], input_shapes=[(3,), (3,)],
                              input_dtypes=[tt.int32, tt.int32], outputs=["s"])
    fn = module.ops.first
    assert [str(t) for t in fn.function_type.inputs.data] == ["tensor<3xi32>", "tensor<3xi32>"]
    out = run(module, np.array([1, 1, 1], np.int32), np.array([5, 6, 7], np.int32))[0]
    np.testing.assert_array_equal(out, [4, 5, 6])  # a - b with b given first


def test_an_unfed_placeholder_that_the_outputs_need_is_an_error():
    g = graph(placeholder("x") + placeholder("y") + binary("z", "AddV2", "x", "y"))
    with pytest.raises(InvalidArgumentError, match="placeholder 'y' is needed but not fed"):
        import_graph_def(g, inputs=["x"], outputs=["z"])


def test_control_inputs_order_side_effects_and_noop_is_dropped():
    # The read is listed first but waits on ^assign: it must see the assigned value.
    g = graph('node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } '
              'attr { key: "shape" value { shape { } } } attr { key: "shared_name" value { s: "v" } } }\n'
              'node { name: "read" op: "ReadVariableOp" input: "v" input: "^after" '
              'attr { key: "dtype" value { type: DT_FLOAT } } }\n'
              'node { name: "after" op: "NoOp" input: "^assign" }\n'
              + const("seven", 7.0)
              + 'node { name: "assign" op: "AssignVariableOp" input: "v" input: "seven" '
              'attr { key: "dtype" value { type: DT_FLOAT } } }\n')
    module = import_graph_def(g, inputs=[], outputs=["read"])
    text = mlir.print(module)
    assert "tf.NoOp" not in text
    assert text.index("tf.AssignVariableOp") < text.index("tf.ReadVariableOp")
    assert run(module)[0] == 7.0


def test_a_cycle_is_an_error_naming_its_nodes():
    g = graph(binary("a", "AddV2", "b", "b") + binary("b", "AddV2", "a", "a"))
    with pytest.raises(UnimplementedError, match="cycle through nodes 'a', 'b'"):
        import_graph_def(g, inputs=[], outputs=["a"])


def test_every_missing_op_is_named_in_one_error():
    g = graph(placeholder("x") + binary("p", "FancyOp", "x", "x") + binary("q", "FancyOp", "p", "x")
              + binary("r", "OtherOp", "q", "x") + binary("s", "AddV2", "r", "x"))
    with pytest.raises(UnimplementedError) as err:
        import_graph_def(g, outputs=["s"])
    message = str(err.value)
    assert "2 TensorFlow ops" in message
    assert "FancyOp (node 'p', node 'q')" in message and "OtherOp (node 'r')" in message


def test_unregistered_ops_print_when_allowed():
    g = graph(placeholder("x") + binary("p", "FancyOp", "x", "x"))
    text = mlir.print(import_graph_def(g, outputs=["p"], allow_unregistered=True))
    assert '"tf.FancyOp"(%arg0, %arg0) <{T = f32}>' in text or '"tf.FancyOp"(%arg0, %arg0) {T = f32' in text


def test_attributes_defaults_and_an_attribute_tinytf_cannot_honour():
    g = graph(placeholder("a", dims=(2, 3)) + placeholder("b", dims=(2, 3))
              + 'node { name: "m" op: "MatMul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } '
              'attr { key: "transpose_b" value { b: true } } }')
    text = mlir.print(import_graph_def(g, outputs=["m"]))
    assert "transpose_a = false" in text and "transpose_b = true" in text  # the default filled in
    assert "tensor<2x2xf32>" in text                                       # the shape rule typed it
    g.node[2].attr["made_up_option"].i = 3
    with pytest.raises(UnimplementedError, match=r"tinytf's tf.MatMul has no attribute made_up_option=i: 3"):
        import_graph_def(g, outputs=["m"])


def test_string_constants_import_print_and_run():
    g = graph('node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" '
              'value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } } string_val: "x" '
              'string_val: "\\001\\"q" } } } }')
    module = import_graph_def(g, inputs=[], outputs=["k"])
    text = mlir.print(module)
    assert 'dense<["x", "\\01\\22q"]> : tensor<2x!tf_type.string>' in text
    assert mlir.print(mlir.parse(text)) == text
    assert run(module)[0].tolist() == [b"x", b'\x01"q']


def test_function_inputs_resolve_output_argument_names_through_the_op_defs():
    mg = meta_graph("half_plus_two_tf2_14")
    importer = GraphImporter(mg.graph_def.library, mg.meta_info_def.stripped_op_list)
    fn = importer.function("__inference_regress_x2y3_165")  # Mul:z:0, Add/ReadVariableOp:value:0
    importer.check()
    text = mlir.print(importer.module())
    assert "func.func private @__inference_regress_x2y3_165" in text
    assert '"tf.AddV2"(%1, %2)' in text
    v = [tt.Variable(np.float32(0.5)), tt.Variable(np.float32(3.0))]
    module = importer.module()
    fn.sym_visibility = None
    np.testing.assert_array_equal(run(module, np.array([2.0], np.float32), *v, entry=fn.sym_name.data)[0], [4.0])


def test_a_multi_output_op_is_indexed_by_its_output_argument():
    mg = meta_graph("half_plus_two_tf2_14")
    fdef = next(f for f in mg.graph_def.library.function if f.signature.name == "__inference_regress_xy2_145")
    # regress_xy2 reads ParseExampleV2:dense_values:0; pointing it at :1 (x2) must pick the second result
    for node in fdef.node_def:
        for i, ref in enumerate(node.input):
            if ref == "ParseExample/ParseExampleV2:dense_values:0":
                node.input[i] = "ParseExample/ParseExampleV2:dense_values:1"
    importer = GraphImporter(mg.graph_def.library, mg.meta_info_def.stripped_op_list)
    importer.function("__inference_regress_xy2_145")
    assert '"tf.Mul"(%2, %1#1)' in mlir.print(importer.module())  # (the constants print %cst, %cst_0, ...)


def test_a_node_naming_a_library_function_is_a_call():
    text_graph = (const("x", 1, "DT_INT32", "int_val")
                  + 'node { name: "call" op: "twice" input: "x" }\n'
                  'library { function { signature { name: "twice" input_arg { name: "a" type: DT_INT32 } '
                  'output_arg { name: "out" type: DT_INT32 } } '
                  'node_def { name: "s" op: "AddV2" input: "a" input: "a" attr { key: "T" value { type: DT_INT32 } } } '
                  'ret { key: "out" value: "s:z:0" } } }')
    module = import_graph_def(graph(text_graph), inputs=["x"], input_shapes=[(3,)], input_dtypes=[tt.int32],
                              outputs=["call"])
    text = mlir.print(module)
    assert '"tf.StatefulPartitionedCall"(%arg0)' in text and "f = @twice" in text
    assert "func.func private @twice" in text
    np.testing.assert_array_equal(run(module, np.array([1, 2, 3], np.int32))[0], [2, 4, 6])


def test_pruning_stops_at_fed_tensors_and_lifts_variables():
    mg = meta_graph("half_plus_two_tf1_14")
    op_defs = {op.name: op for op in mg.meta_info_def.stripped_op_list.op}
    nodes = ref_variables.upgrade_ref_variables(mg.graph_def.node, op_defs)
    importer = GraphImporter(mg.graph_def.library, mg.meta_info_def.stripped_op_list)
    fed = Feed("x:0", tf_types.tensor_type((None, 1), tt.float32))  # x is Identity(ParseExample): fed, it is cut
    fn = importer.graph(nodes, [fed], ["y:0"], prune=True, name="predict", lift_variables=True)
    importer.check()
    text = mlir.print(importer.module())
    assert "ParseExample" not in text and "SaveV2" not in text
    assert importer.lifted["predict"] == ["a", "b"]
    assert [str(t) for t in fn.function_type.inputs.data] == [
        "tensor<?x1xf32>", "tensor<!tf_type.resource<tensor<f32>>>", "tensor<!tf_type.resource<tensor<f32>>>"]
    assert '"tf.ReadVariableOp"(%arg1) {device = "/device:CPU:0"} : (tensor<!tf_type.resource<tensor<f32>>>) -> ' \
           'tensor<f32>' in text
    a, b = tt.Variable(np.float32(0.5)), tt.Variable(np.float32(2.0))
    np.testing.assert_array_equal(run(importer.module(), np.array([[4.0]], np.float32), a, b, entry="predict")[0],
                                  [[4.0]])


def test_ref_variable_updates_become_resource_updates_then_reads():
    mg = meta_graph("counter_tf1_5")
    nodes = ref_variables.upgrade_ref_variables(mg.graph_def.node, {})
    by_name = {n.name: n for n in nodes}
    assert by_name["counter"].op == "VarHandleOp" and by_name["counter"].attr["shared_name"].s == b"counter"
    assert by_name["counter/read"].op == "ReadVariableOp"
    assert by_name["incr_counter_op/AssignAdd/update"].op == "AssignAddVariableOp"
    assert list(by_name["incr_counter_op/AssignAdd"].input) == ["counter", "^incr_counter_op/AssignAdd/update"]


def test_binary_and_text_graphdefs_and_a_truncated_file(tmp_path):
    g = graph(placeholder("x", dims=(1,)) + binary("y", "AddV2", "x", "x"))
    pb, pbtxt = tmp_path / "g.pb", tmp_path / "g.pbtxt"
    pb.write_bytes(g.SerializeToString())
    from google.protobuf import text_format

    pbtxt.write_text(text_format.MessageToString(g))
    assert graphdef_import.read_graph_def(str(pb)) == graphdef_import.read_graph_def(str(pbtxt)) == g
    (tmp_path / "cut.pb").write_bytes(g.SerializeToString()[:-7])
    with pytest.raises(DataLossError, match="cut.pb: cannot parse as GraphDef"):
        graphdef_import.read_graph_def(str(tmp_path / "cut.pb"))


def test_tinytf_translate_graphdef_to_mlir(tmp_path, capsys):
    g = graph(placeholder("input0", "DT_INT32") + placeholder("input1", "DT_INT32")
              + 'node { name: "Add" op: "Add" input: "input0" input: "input1" attr { key: "T" value { type: DT_INT32 } } }')
    path = tmp_path / "add.pb"
    path.write_bytes(g.SerializeToString())
    assert translate_cli.main(["--graphdef-to-mlir", str(path), "-tf-input-arrays=input0,input1",
                               "-tf-input-data-types=DT_INT32,DT_INT32", "-tf-input-shapes=10:10",
                               "-tf-output-arrays=Add"]) == 0
    out = capsys.readouterr().out
    # without shape inference (tf-mlir-translate's default) the Add is unranked; with it, typed
    assert "func.func @main(%arg0: tensor<10xi32>, %arg1: tensor<10xi32>) -> tensor<*xi32>" in out
    assert 'inputs = "input0,input1", outputs = "Add"' in out
    assert translate_cli.main(["--graphdef-to-mlir", str(path), "-tf-input-arrays=input0,input1",
                               "-tf-input-data-types=DT_INT32,DT_INT32", "-tf-input-shapes=10:10",
                               "-tf-output-arrays=Add", "-tf-enable-shape-inference-on-import=true"]) == 0
    out = capsys.readouterr().out
    assert "func.func @main(%arg0: tensor<10xi32>, %arg1: tensor<10xi32>) -> tensor<10xi32>" in out
    (tmp_path / "cut.pb").write_bytes(g.SerializeToString()[:20])
    assert translate_cli.main(["--graphdef-to-mlir", str(tmp_path / "cut.pb")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tinytf-translate: error: ") and "cannot parse as GraphDef" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
