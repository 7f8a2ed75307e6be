"""MLIR -> GraphDef export (tinytf/formats/graphdef_export.py, op_defs.py): TensorFlow's typing
attributes, ``node:out_arg:idx`` references, side effects ordered by control inputs; and the round
trip through tinytf's importer: the same outputs, and the GraphDef exported again is the same."""
from __future__ import annotations

import numpy as np
import pytest
from google.protobuf import text_format

import tinytf as tt
from tinytf import mlir
from tinytf.errors import FailedPreconditionError, InvalidArgumentError, UnimplementedError
from tinytf.formats import op_defs, protos
from tinytf.formats.graphdef_export import Exporter, export_graph_def, export_module, graph_def_text
from tinytf.formats.graphdef_import import Feed, GraphImporter, placeholder_shape
from tinytf.framework import tf_types
from tinytf.framework.op import REGISTRY
from tinytf.runtime.executor import Program


def nodes(graph_or_fdef) -> dict:
    items = graph_or_fdef.node if hasattr(graph_or_fdef, "node") else graph_or_fdef.node_def
    return {n.name: n for n in items}


def attr_types(node) -> dict:
    return {k: protos.types_pb2.DataType.Name(v.type) for k, v in node.attr.items() if v.WhichOneof("value") == "type"}


def reimport(exported, op_list=None, name="main"):
    """tinytf's importer on an exported graph: Placeholders fed, VarHandleOps lifted to arguments."""
    graph_def = exported.graph_def
    by_name = nodes(graph_def)
    feeds = [Feed(f"{n}:0", tf_types.tensor_type(placeholder_shape(by_name[n], 2474),
                                                  tt.dtypes.as_dtype(by_name[n].attr["dtype"].type and
                                                                     protos.types_pb2.DataType.Name(
                                                                         by_name[n].attr["dtype"].type))), n)
             for n in exported.inputs]
    importer = GraphImporter(graph_def.library, op_list)
    importer.graph(list(graph_def.node), feeds, exported.outputs, prune=True, name=name, lift_variables=True)
    importer.check()
    return importer.module(graph_def.versions), importer.lifted[name]


def text(graph_def) -> str:
    return text_format.MessageToString(graph_def)


# --- a traced function with variables, side effects and a multi-output op --------------------------

def _step_function():
    scale = tt.Variable(np.float32(2.0), name="scale")
    counter = tt.Variable(np.int64(0), trainable=False, name="counter")

    @tt.function(input_signature=[tt.TensorSpec([None, 4], tt.float32), tt.TensorSpec([], tt.int32)])
    def step(x, n):
        counter.assign_add(1)
        y = x * scale + tt.cast(n, tt.float32)
        left, right = tt.split(y, 2, axis=1)
        scale.assign(scale * 0.5)
        return {"left": left, "right": right, "count": counter.read_value(), "cols": tt.shape(y)[1] + n}

    return step.get_concrete_function(), scale, counter


X = np.arange(8, dtype=np.float32).reshape(2, 4)


def test_traced_function_round_trips_through_the_importer():
    cf, scale, counter = _step_function()
    exported = export_module(cf.module)
    assert cf.captured_variables == [counter, scale]
    assert exported.inputs == ["x", "n"] and exported.variables == ["counter_resource", "scale_resource"]
    assert len(exported.outputs) == 4
    want = [np.asarray(o) for o in cf.call_flat([X, np.int32(3)])]
    assert (scale.numpy(), counter.numpy()) == (1.0, 1)

    module, lifted = reimport(exported)
    assert lifted == ["counter_resource", "scale_resource"]
    scale.assign(np.float32(2.0))
    counter.assign(np.int64(0))
    got = Program(module).run("main", [X, np.int32(3), counter, scale])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert (scale.numpy(), counter.numpy()) == (1.0, 1)  # the same updates, in the same order
    again = export_module(module)
    assert text(again.graph_def) == text(exported.graph_def)  # a fixed point
    assert (again.inputs, again.outputs, again.variables) == (exported.inputs, exported.outputs, exported.variables)


def test_side_effects_are_chained_and_fetches_wait_for_them():
    cf, _, _ = _step_function()
    graph = nodes(export_graph_def(cf.module))
    assign_add, read = graph["AssignAddVariableOp"], graph["ReadVariableOp"]
    assert list(assign_add.input) == ["counter_resource", "Const"]
    assert "^AssignAddVariableOp" in read.input  # the read of scale comes after the counter's update
    assign = graph["AssignVariableOp"]
    assert assign.input[-1] == "^" + "ReadVariableOp"
    last = [n for n in graph.values() if n.op == "ReadVariableOp"][-1]
    assert f"^{assign.name}" in last.input
    for n in graph.values():
        if n.op == "Identity":  # every fetched node waits for the last side effect
            assert any(i.lstrip("^") == last.name for i in n.input), n


def test_typing_attributes_follow_tensorflows_op_defs():
    @tt.function(input_signature=[tt.TensorSpec([2, 3], tt.float32), tt.TensorSpec([4], tt.int64)])
    def f(x, idx):
        a = tt.cast(x, tt.float64)
        g = tt.gather(x, idx % 2, axis=1)
        r = tt.reshape(tt.transpose(x), tt.constant([6], tt.int64))
        c = tt.concat([x, x], axis=1)
        e = tt.math.equal(x, 1.0)
        s = tt.math.reduce_sum(x, axis=tt.constant([1], tt.int64))
        return a, g, r, c, e, s

    graph = nodes(export_graph_def(f.get_concrete_function().module))
    assert attr_types(graph["Cast"]) == {"SrcT": "DT_FLOAT", "DstT": "DT_DOUBLE"}
    assert attr_types(graph["GatherV2"]) == {"Tparams": "DT_FLOAT", "Tindices": "DT_INT64", "Taxis": "DT_INT32"}
    assert attr_types(graph["Reshape"]) == {"T": "DT_FLOAT", "Tshape": "DT_INT64"}
    assert attr_types(graph["Transpose"]) == {"T": "DT_FLOAT", "Tperm": "DT_INT32"}
    assert attr_types(graph["ConcatV2"]) == {"T": "DT_FLOAT", "Tidx": "DT_INT32"} and graph["ConcatV2"].attr["N"].i == 2
    assert attr_types(graph["Equal"]) == {"T": "DT_FLOAT"}  # its bool output is typed by the OpDef
    assert graph["Equal"].attr["incompatible_shape_error"].b is True
    assert attr_types(graph["Sum"]) == {"T": "DT_FLOAT", "Tidx": "DT_INT64"}
    assert attr_types(graph["Const"]) == {"dtype": "DT_INT32"} or "value" in graph["Const"].attr


def test_function_defs_name_output_arguments_and_round_trip():
    source = """
    module {
      func.func @main(%x: tensor<2x4xf32>) -> tensor<4x2xf32> {
        %0 = "tf.StatefulPartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @parts}>
               : (tensor<2x4xf32>) -> tensor<4x2xf32>
        return %0 : tensor<4x2xf32>
      }
      func.func private @parts(%arg0: tensor<2x4xf32> {tf._user_specified_name = "x"}) -> tensor<4x2xf32> {
        %axis = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
        %sizes = "tf.Const"() <{value = dense<[1, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
        %0:2 = "tf.SplitV"(%arg0, %sizes, %axis) : (tensor<2x4xf32>, tensor<2xi64>, tensor<i32>) -> (tensor<2x1xf32>, tensor<2x3xf32>)
        %1 = "tf.ConcatV2"(%0#1, %0#0, %axis) : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<i32>) -> tensor<2x4xf32>
        %2:2 = "tf.Unpack"(%1) <{axis = 0 : i64}> : (tensor<2x4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
        %3 = "tf.Pack"(%2#1, %2#0) <{axis = 1 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x2xf32>
        return %3 : tensor<4x2xf32>
      }
    }"""
    module = mlir.parse_text(source)
    exporter = Exporter(module)
    fdef = exporter.function_def(exporter.functions["parts"])
    body = nodes(fdef)
    assert [a.name for a in fdef.signature.input_arg] == ["x"]
    assert list(body["ConcatV2"].input) == ["SplitV:output:1", "SplitV:output:0", "Const:output:0"]
    assert list(body["Pack"].input) == ["Unpack:output:1", "Unpack:output:0"]
    assert body["Unpack"].attr["num"].i == 2 and body["SplitV"].attr["num_split"].i == 2
    assert dict(fdef.ret) == {"pack": "Pack:output:0"} and not fdef.signature.is_stateful
    assert fdef.arg_attr[0].attr["_user_specified_name"].s == b"x"

    graph_def = export_graph_def(module)
    op_list = op_defs.stripped_op_list(exporter.op_types)  # the OpDefs tinytf writes: the importer reads N
    importer = GraphImporter(graph_def.library, op_list)
    imported = importer.function("parts")
    again = Exporter(importer.module()).function_def(imported)
    assert text(again) == text(fdef)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_array_equal(Program(module).run("main", [x])[0], Program(importer.module()).run("parts", [x])[0])


def test_functions_with_side_effects_have_control_rets():
    v = tt.Variable(np.zeros([3], np.float32), name="v")

    @tt.function(input_signature=[tt.TensorSpec([3], tt.float32)])
    def f(x):
        v.assign_add(x)
        return v.read_value() * 2.0

    cf = f.get_concrete_function()
    fdef = Exporter(cf.module).function_def(cf.function)
    body = nodes(fdef)
    assert fdef.signature.is_stateful
    assert sorted(fdef.control_ret) == ["AssignAddVariableOp", "ReadVariableOp"]
    assert "^AssignAddVariableOp" in body["ReadVariableOp"].input
    resource = fdef.signature.input_arg[1]
    assert resource.type == protos.types_pb2.DT_RESOURCE and resource.name == "resource"
    assert resource.handle_data[0].dtype == protos.types_pb2.DT_FLOAT
    assert [d.size for d in resource.handle_data[0].shape.dim] == [3]
    assert list(body["ReadVariableOp"].input)[0] == "resource"


def test_control_flow_exports_stateless_forms_and_bodies():
    @tt.function(input_signature=[tt.TensorSpec([3], tt.float32)])
    def f(x):
        y = tt.cond(tt.math.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
        _, z = tt.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z + y), [tt.constant(0), y])
        return z

    graph_def = export_graph_def(f.get_concrete_function().module)
    graph = nodes(graph_def)
    if_node = next(n for n in graph.values() if n.op.endswith("If"))
    while_node = next(n for n in graph.values() if n.op.endswith("While"))
    assert if_node.op == "StatelessIf" and while_node.op == "StatelessWhile"
    assert "is_stateless" not in if_node.attr and "shape_invariant" not in while_node.attr
    assert attr_types(if_node) == {"Tcond": "DT_BOOL"}
    assert [protos.types_pb2.DataType.Name(t) for t in while_node.attr["T"].list.type][:2] == ["DT_INT32", "DT_INT32"]
    library = {f.signature.name for f in graph_def.library.function}
    assert {if_node.attr["then_branch"].func.name, if_node.attr["else_branch"].func.name,
            while_node.attr["cond"].func.name, while_node.attr["body"].func.name} <= library


def test_every_op_has_an_op_def():
    for name in sorted(REGISTRY):
        if name[3:] in op_defs.MLIR_ONLY_OPS:  # (tf.LegacyCall: a node of its callee, tested below)
            continue
        op_def = op_defs.op_def(name[3:])
        assert op_def.name == name[3:]
        attrs = {a.name: a.type for a in op_def.attr}
        for arg in list(op_def.input_arg) + list(op_def.output_arg):
            assert arg.type or arg.type_attr or arg.type_list_attr, (name, arg.name)
            if arg.type_attr:
                assert attrs[arg.type_attr] == "type", (name, arg.name)
            if arg.type_list_attr:
                assert attrs[arg.type_list_attr] == "list(type)", (name, arg.name)
            if arg.number_attr:
                assert attrs[arg.number_attr] == "int", (name, arg.name)
        assert not set(attrs) & op_defs.MLIR_ONLY_ATTRS
    matmul = op_defs.op_def("MatMul")
    assert [(a.name, a.type_attr) for a in matmul.input_arg] == [("a", "T"), ("b", "T")]
    assert {a.name: a.default_value.b for a in matmul.attr if a.type == "bool"}["transpose_a"] is False
    read = op_defs.op_def("ReadVariableOp")
    assert read.input_arg[0].type == protos.types_pb2.DT_RESOURCE and read.output_arg[0].type_attr == "dtype"
    assert read.is_stateful and not op_defs.op_def("Assign").is_stateful
    assert [op.name for op in op_defs.stripped_op_list(["Relu", "AddV2", "Relu"]).op] == ["AddV2", "Relu"]


def test_a_legacy_call_is_a_node_of_its_callee():
    module = mlir.parse_text("""
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0:2 = "tf.LegacyCall"(%x) <{_disable_call_shape_inference = false, f = @twice}>
             : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
      %1 = "tf.LegacyCall"(%0#1) <{_disable_call_shape_inference = true, f = @inner}> : (tensor<2xf32>) -> tensor<2xf32>
      %2 = "tf.AddV2"(%0#0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %2 : tensor<2xf32>
    }
    func.func private @twice(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %0 = "tf.AddV2"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %1 = "tf.LegacyCall"(%0) <{_disable_call_shape_inference = false, f = @inner}> : (tensor<2xf32>) -> tensor<2xf32>
      return %0, %1 : tensor<2xf32>, tensor<2xf32>
    }
    func.func private @inner(%b: tensor<2xf32>) -> tensor<2xf32> {
      %0 = "tf.Neg"(%b) : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }""")
    graph_def = export_graph_def(module)
    graph = nodes(graph_def)
    assert (graph["twice"].op, list(graph["twice"].input)) == ("twice", ["x"])
    assert (graph["inner"].op, graph["inner"].input[0]) == ("inner", "twice:1")
    assert graph["inner"].attr["_disable_call_shape_inference"].b is True
    assert {"twice", "inner"}.isdisjoint(op.name for op in op_defs.stripped_op_list(Exporter(module).op_types).op)
    library = {f.signature.name: f for f in graph_def.library.function}
    twice = library["twice"]
    assert [a.name for a in twice.signature.output_arg] == ["addv2", "inner"]
    assert dict(twice.ret) == {"addv2": "AddV2:z:0", "inner": "inner:neg:0"}  # the callee's output argument
    assert list(twice.control_ret) == ["inner"]  # a call may have side effects: it always runs
    with pytest.raises(UnimplementedError, match="tf.LegacyCall is no TensorFlow op"):
        op_defs.op_def("LegacyCall")
    recursive = mlir.parse_text("""
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %0 = "tf.LegacyCall"(%x) <{_disable_call_shape_inference = false, f = @main}> : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }""")
    with pytest.raises(UnimplementedError, match="@main calls itself"):
        Exporter(recursive).function_def(recursive.body.block.first_op)


def test_a_splat_constant_is_one_value():
    module = mlir.parse_text("""
    func.func @main() -> tensor<512x512xf32> {
      %0 = "tf.Const"() <{value = dense<1.5> : tensor<512x512xf32>}> : () -> tensor<512x512xf32>
      return %0 : tensor<512x512xf32>
    }""")
    const = nodes(export_graph_def(module))["output_0"]
    tensor = const.attr["value"].tensor
    assert list(tensor.float_val) == [1.5] and not tensor.tensor_content
    assert [d.size for d in tensor.tensor_shape.dim] == [512, 512]


def test_entry_function_and_bad_input():
    two = mlir.parse_text("""
    func.func @a(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }
    func.func @b(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }""")
    with pytest.raises(FailedPreconditionError, match="entry function `main` must be present"):
        export_graph_def(two)
    graph_def = export_graph_def(two, entry="b")  # a returned argument is fetched through an Identity
    assert [(n.name, n.op, list(n.input)) for n in graph_def.node] == [("x", "Placeholder", []),
                                                                      ("output_0", "Identity", ["x"])]
    assert [f.signature.name for f in graph_def.library.function] == ["a"]
    assert dict(graph_def.library.function[0].ret) == {"output": "x"}
    unknown = mlir.parse_text('func.func @main() { "tf.NotAnOp"() : () -> () return }')
    with pytest.raises(UnimplementedError, match="tf.NotAnOp"):
        export_graph_def(unknown)
    untyped = mlir.parse_text("""
    func.func @main(%r: tensor<!tf_type.resource>) -> tensor<f32> {
      %0 = "tf.ReadVariableOp"(%r) : (tensor<!tf_type.resource>) -> tensor<f32>
      return %0 : tensor<f32>
    }""")
    with pytest.raises(InvalidArgumentError, match="resource argument 0 has no variable type"):
        export_graph_def(untyped)
    assert nodes(export_module(untyped, resources="placeholders").graph_def)["r"].op == "Placeholder"
    not_tf = mlir.parse_text("""
    func.func @main(%a: tensor<1x4x4x1xf32>, %b: tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32> {
      %0 = "tf.MaxPoolGradGrad"(%a, %b, %b) <{data_format = "NHWC", explicit_paddings = [0, 0, 1, 1, 1, 1, 0, 0],
             ksize = [1, 2, 2, 1], padding = "EXPLICIT", strides = [1, 2, 2, 1]}>
             : (tensor<1x4x4x1xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
      return %0 : tensor<1x2x2x1xf32>
    }""")
    with pytest.raises(UnimplementedError, match="TensorFlow's MaxPoolGradGrad has no attribute explicit_paddings"):
        export_graph_def(not_tf)
    index = mlir.parse_text("func.func @main(%x: tensor<2xindex>) -> tensor<2xindex> { return %x : tensor<2xindex> }")
    with pytest.raises(InvalidArgumentError, match=r"@main, argument 0: unsupported element type index \(TensorFlow's "
                                                   "GraphDef has no such DataType"):
        export_graph_def(index)
    f8 = mlir.parse_text("""
    func.func @main(%x: tensor<2xf32>, %y: tensor<2xf8E4M3FN>) -> tensor<2xf32> {
      %0 = "tf.Identity"(%y) : (tensor<2xf8E4M3FN>) -> tensor<2xf8E4M3FN>
      return %x : tensor<2xf32>
    }""")
    with pytest.raises(InvalidArgumentError, match=r"@main, argument 1: unsupported element type f8E4M3FN"):
        export_graph_def(f8)
    f8_result = mlir.parse_text("""
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = "tf.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf8E4M3FN>
      return %x : tensor<2xf32>
    }""")
    with pytest.raises(InvalidArgumentError, match=r"@main, op 1 \(tf.Neg\): unsupported element type f8E4M3FN"):
        Exporter(f8_result).function_def(f8_result.body.block.first_op)
    missing = mlir.parse_text("""
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %0 = "tf.StatefulPartitionedCall"(%x) <{f = @nope, config = "", config_proto = "", executor_type = ""}>
             : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }""")
    with pytest.raises(InvalidArgumentError, match=r"op 1 \(tf.StatefulPartitionedCall\): calls @nope, which the "
                                                   "module does not define"):
        export_graph_def(missing)


def test_translate_prints_the_graph_def(tmp_path, capsys):
    from tinytf.cli.translate import main

    cf, _, _ = _step_function()
    path = tmp_path / "step.mlir"
    path.write_text(cf.mlir())
    assert main(["--mlir-to-graphdef", str(path)]) == 0
    printed = capsys.readouterr().out
    parsed = text_format.Parse(printed, protos.graph_pb2.GraphDef())
    assert printed == graph_def_text(mlir.parse(path))
    assert {"Placeholder", "VarHandleOp", "Split", "AssignAddVariableOp"} <= {n.op for n in parsed.node}
    bad = tmp_path / "bad.mlir"
    bad.write_text('func.func @main() { "tf.NotAnOp"() : () -> () return }')
    assert main(["--mlir-to-graphdef", str(bad)]) == 1
    assert "tf.NotAnOp" in capsys.readouterr().err
