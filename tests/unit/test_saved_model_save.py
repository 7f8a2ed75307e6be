"""tt.saved_model.save: a tt.Module as a TF2 SavedModel (saved_model.pb + variables/), read back by
tinytf's loader and laid out as TensorFlow 2.21 writes one (tests/conformance/interop_saved_model.py
checks that TensorFlow loads it)."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.formats import protos
from tinytf.saved_model import reader

X = np.array([[1.0, -2.0, 3.0], [0.5, 0.25, -1.0]], np.float32)


class Dense(tt.Module):
    def __init__(self, n_in, n_out, seed, name=None):
        super().__init__(name=name)
        rng = np.random.default_rng(seed)
        self.w = tt.Variable(rng.standard_normal((n_in, n_out)).astype(np.float32), name="w")
        self.b = tt.Variable(np.full([n_out], 0.1, np.float32), name="b")

    def __call__(self, x):
        return tt.nn.relu(x @ self.w + self.b)


class Model(tt.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3, 4, 1), Dense(4, 2, 2)]
        self.calls = tt.Variable(np.int64(0), trainable=False, name="calls")

    @tt.function(input_signature=[tt.TensorSpec([None, 3], tt.float32)])
    def predict(self, x):
        return self.layers[1](self.layers[0](x))

    @tt.function(input_signature=[tt.TensorSpec([None, 3], tt.float32, name="features")])
    def stats(self, x):
        self.calls.assign_add(1)
        y = self.predict(x)
        return {"mean": tt.math.reduce_mean(y, axis=1), "calls": self.calls.read_value(), "y": y}


def values(outputs: dict) -> dict:
    return {k: np.asarray(v.numpy()) for k, v in outputs.items()}


@pytest.fixture
def saved(tmp_path):
    model = Model()
    path = tmp_path / "model"
    tt.saved_model.save(model, path, signatures={"serving_default": model.predict, "stats": model.stats})
    return model, path


def meta_graph(path):
    return reader.read_saved_model(path).meta_graphs[0]


def test_tinytf_loads_its_own_saved_model(saved):
    model, path = saved
    want = model.predict(X).numpy()
    loaded = tt.saved_model.load(path)
    assert sorted(loaded.signatures) == ["serving_default", "stats"]
    np.testing.assert_array_equal(loaded.signatures["serving_default"](x=X)["output_0"].numpy(), want)
    np.testing.assert_array_equal(loaded.predict(X).numpy(), want)
    stats = values(loaded.signatures["stats"](features=X))
    assert sorted(stats) == ["calls", "mean", "y"] and stats["calls"] == 1
    np.testing.assert_allclose(stats["mean"], want.mean(axis=1), rtol=1e-6)
    assert values(loaded.signatures["stats"](features=X))["calls"] == 2  # the restored counter counts on
    restored = sorted((v.name, v.numpy().tolist()) for v in loaded.variables if v.name != "calls:0")
    assert restored == sorted((v.name, v.numpy().tolist()) for v in model.variables if v.name != "calls:0")
    assert loaded.calls.numpy() == 2 and model.calls.numpy() == 0


def test_xla_backend_runs_the_signatures(saved):
    model, path = saved
    loaded = tt.saved_model.load(path, backend="xla")
    np.testing.assert_allclose(loaded.signatures["serving_default"](x=X)["output_0"].numpy(), model.predict(X).numpy(),
                               rtol=1e-6)


def test_graph_and_signature_defs_are_tensorflows(saved):
    _, path = saved
    mg = meta_graph(path)
    assert list(mg.meta_info_def.tags) == ["serve"]
    nodes = {n.name: n for n in mg.graph_def.node}
    handles = [n for n in mg.graph_def.node if n.op == "VarHandleOp"]
    assert [n.name for n in handles] == ["calls", "w", "b", "w_1", "b_1"]
    assert nodes["serving_default_x"].op == "Placeholder" and nodes["stats_features"].op == "Placeholder"
    call = nodes["StatefulPartitionedCall"]
    assert list(call.input) == ["serving_default_x", "w", "b", "w_1", "b_1"]
    library = {f.signature.name: f for f in mg.graph_def.library.function}
    wrapper = library[call.attr["f"].func.name]
    assert wrapper.signature.name.startswith("__inference_signature_wrapper_predict_")
    assert [a.name for a in wrapper.signature.input_arg][0] == "x"
    sig = mg.signature_def["stats"]
    assert sig.method_name == "tensorflow/serving/predict"
    assert {k: v.name for k, v in sig.inputs.items()} == {"features": "stats_features:0"}
    assert {k: v.name for k, v in sig.outputs.items()} == {"calls": "StatefulPartitionedCall_1:0",
                                                           "mean": "StatefulPartitionedCall_1:1",
                                                           "y": "StatefulPartitionedCall_1:2"}
    assert protos.types_pb2.DataType.Name(sig.outputs["calls"].dtype) == "DT_INT64"
    assert [d.size for d in mg.signature_def["serving_default"].outputs["output_0"].tensor_shape.dim] == [-1, 2]
    assert mg.signature_def["__saved_model_init_op"].outputs["__saved_model_init_op"].name == "NoOp"
    assert mg.saver_def.filename_tensor_name == "saver_filename:0"
    assert nodes[mg.saver_def.restore_op_name].op == "NoOp"
    ops = {op.name for op in mg.meta_info_def.stripped_op_list.op}
    assert {"MatMul", "Relu", "StatefulPartitionedCall", "VarHandleOp", "RestoreV2", "SaveV2", "Placeholder"} <= ops


def test_object_graph_and_checkpoint_agree(saved):
    _, path = saved
    graph = meta_graph(path).object_graph_def
    kinds = [n.WhichOneof("kind") for n in graph.nodes]
    root = graph.nodes[0]
    assert [c.local_name for c in root.children] == ["layers", "calls", "predict", "stats", "signatures"]
    assert root.user_object.identifier == "_generic_user_object"
    by_name = {c.local_name: graph.nodes[c.node_id] for c in root.children}
    assert by_name["layers"].user_object.identifier == "trackable_list_wrapper"
    assert by_name["signatures"].user_object.identifier == "signature_map"
    assert by_name["calls"].variable.name == "calls" and not by_name["calls"].variable.trainable
    predict = by_name["predict"].function
    assert len(predict.concrete_functions) == 1 and kinds.count("variable") == 5
    concrete = graph.concrete_functions[predict.concrete_functions[0]]
    assert [graph.nodes[i].variable.name for i in concrete.bound_inputs] == ["w", "b", "w", "b"]
    from tinytf.saved_model.structures import to_python

    args, kwargs = to_python(concrete.canonicalized_input_signature)
    assert kwargs == {} and args[0].name == "x" and args[0].shape == (None, 3)
    for child in by_name["signatures"].children:
        bare = graph.nodes[child.node_id].bare_concrete_function
        signature = to_python(graph.concrete_functions[bare.concrete_function_name].canonicalized_input_signature)
        assert signature[0] == () and list(signature[1]) == list(bare.argument_keywords)
    reader_ = tt.train.load_checkpoint(str(path / "variables" / "variables"))
    keys = set(reader_.get_variable_to_shape_map())
    assert keys == {"_CHECKPOINTABLE_OBJECT_GRAPH", "calls/.ATTRIBUTES/VARIABLE_VALUE",
                    "layers/0/w/.ATTRIBUTES/VARIABLE_VALUE", "layers/0/b/.ATTRIBUTES/VARIABLE_VALUE",
                    "layers/1/w/.ATTRIBUTES/VARIABLE_VALUE", "layers/1/b/.ATTRIBUTES/VARIABLE_VALUE"}
    ckpt_graph = reader_.object_graph()
    assert len(ckpt_graph.nodes) == len(graph.nodes)
    for saved_node, ckpt_node in zip(graph.nodes, ckpt_graph.nodes):
        assert [(c.node_id, c.local_name) for c in saved_node.children] == \
               [(c.node_id, c.local_name) for c in ckpt_node.children]


def test_default_signature_is_the_one_function_with_an_input_signature(tmp_path):
    class One(tt.Module):
        def __init__(self):
            super().__init__()
            self.v = tt.Variable(np.float32(3.0), name="v")

        @tt.function(input_signature=[tt.TensorSpec([2], tt.float32)])
        def triple(self, x):
            return [x * self.v, x + self.v]

        @tt.function
        def untraced(self, x):
            return x

    tt.saved_model.save(One(), tmp_path / "one")
    loaded = tt.saved_model.load(tmp_path / "one")
    out = values(loaded.signatures["serving_default"](x=np.array([1.0, 2.0], np.float32)))
    assert list(out) == ["output_0", "output_1"]
    np.testing.assert_array_equal(out["output_1"], [4.0, 5.0])
    assert not hasattr(loaded, "untraced")  # never traced: nothing to save
    tt.saved_model.save(Model(), tmp_path / "two")  # two functions with input signatures: no default signature
    assert tt.saved_model.load(tmp_path / "two").signatures == {}


def test_a_signature_of_a_function_outside_the_module(tmp_path):
    model = Model()
    doubled = tt.function(lambda x: {"twice": model.predict(x) * 2.0}, input_signature=[tt.TensorSpec([1, 3], tt.float32)])
    tt.saved_model.save(model, tmp_path / "m", signatures={"twice": doubled})
    loaded = tt.saved_model.load(tmp_path / "m")
    np.testing.assert_allclose(loaded.signatures["twice"](x=X[:1])["twice"].numpy(), 2 * model.predict(X[:1]).numpy(),
                               rtol=1e-6)


def test_a_trained_model_saves_its_optimizer_and_slots(tmp_path):
    model = Model()
    model.optimizer = tt.optimizers.Adam(learning_rate=0.05)
    y = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)

    @tt.function
    def train_step(x, y):
        with tt.GradientTape() as tape:
            loss = tt.math.reduce_mean(tt.square(model.predict(x) - y))
        model.optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    losses = [float(train_step(X, y).numpy()) for _ in range(5)]
    assert losses[-1] < losses[0]
    tt.saved_model.save(model, tmp_path / "trained", signatures=model.predict)
    loaded = tt.saved_model.load(tmp_path / "trained")
    np.testing.assert_array_equal(loaded.signatures["serving_default"](x=X)["output_0"].numpy(),
                                  model.predict(X).numpy())
    keys = set(tt.train.load_checkpoint(str(tmp_path / "trained" / "variables" / "variables")).get_variable_to_shape_map())
    assert "layers/0/w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE" in keys
    ckpt_graph = tt.train.load_checkpoint(str(tmp_path / "trained" / "variables" / "variables")).object_graph()
    optimizer_id = next(c.node_id for c in ckpt_graph.nodes[0].children if c.local_name == "optimizer")
    assert {s.slot_name for s in ckpt_graph.nodes[optimizer_id].slot_variables} == {"m", "v"}
    graph = meta_graph(tmp_path / "trained").object_graph_def
    assert len(graph.nodes) == len(ckpt_graph.nodes) - 8  # m and v of 4 variables: in the checkpoint only


def test_bad_signatures_and_untracked_variables(tmp_path):
    model = Model()
    with pytest.raises(InvalidArgumentError, match="needs an input_signature"):
        tt.saved_model.save(model, tmp_path / "a", signatures=tt.function(lambda x: x))
    with pytest.raises(InvalidArgumentError, match="expected a tt.function with an input_signature or a concrete"):
        tt.saved_model.save(model, tmp_path / "a", signatures={"s": 3})
    stray = tt.Variable(np.float32(1.0), name="stray")
    scaled = tt.function(lambda x: x * stray, input_signature=[tt.TensorSpec([], tt.float32)])
    with pytest.raises(InvalidArgumentError, match="captures variable 'stray:0', which the saved object does not track"):
        tt.saved_model.save(model, tmp_path / "b", signatures=scaled)
    nested = tt.function(lambda x: {"a": [x, x]}, input_signature=[tt.TensorSpec([], tt.float32)])
    with pytest.raises(InvalidArgumentError, match="output 'a' is nested"):
        tt.saved_model.save(model, tmp_path / "c", signatures=nested)
    with pytest.raises(InvalidArgumentError, match="expected a tt.Module"):
        tt.saved_model.save([model], tmp_path / "d")


def test_command_line_tools_read_it(saved, capsys):
    from tinytf.cli.main import main as tinytf_main
    from tinytf.cli.translate import main as translate_main

    _, path = saved
    assert translate_main(["--savedmodel-objectgraph-to-mlir", str(path)]) == 0
    text = capsys.readouterr().out
    assert "tf_saved_model.global_tensor" in text and 'tf_saved_model.exported_names = ["stats"]' in text
    assert tinytf_main(["saved_model", "show", "--dir", str(path), "--all"]) == 0
    shown = capsys.readouterr().out
    assert "signature_def['stats']" in shown and "name: stats_features:0" in shown


class _ScopedDense(tt.Module):
    def __init__(self):
        super().__init__(name="dense")
        with self.name_scope:
            self.w = tt.Variable(np.array([1.0, 2.0], np.float32), name="w")
        self.b = tt.Variable(np.float32(1.0))
        self.c = tt.Variable(np.float32(1.0), name="c")

    @tt.function(input_signature=[tt.TensorSpec([2], tt.float32)])
    def __call__(self, x):
        return x * self.w + self.b + self.c


class _ScopedMLP(tt.Module):
    def __init__(self):
        super().__init__(name="mlp")
        with self.name_scope:
            self.d = _ScopedDense()

    @tt.function(input_signature=[tt.TensorSpec([2], tt.float32)])
    def __call__(self, x):
        return self.d(x)


def test_variable_names_are_tensorflows(tmp_path):
    # TensorFlow 2.21 saving the same modules: SavedVariable.name is the name without ":0", and each
    # VarHandleOp is named (and shared_name'd) after it, made unique
    model = _ScopedMLP()
    assert [model.d.w.name, model.d.b.name, model.d.c.name] == ["mlp/dense/w:0", "mlp/Variable:0", "mlp/c:0"]
    tt.saved_model.save(model, tmp_path / "m", signatures=model.__call__)
    mg = meta_graph(tmp_path / "m")
    names = [n.variable.name for n in mg.object_graph_def.nodes if n.WhichOneof("kind") == "variable"]
    assert sorted(names) == ["mlp/Variable", "mlp/c", "mlp/dense/w"]
    handles = {n.name: n.attr["shared_name"].s.decode() for n in mg.graph_def.node if n.op == "VarHandleOp"}
    assert handles == {"mlp/dense/w": "mlp/dense/w", "mlp/Variable": "mlp/Variable", "mlp/c": "mlp/c"}
    loaded = tt.saved_model.load(tmp_path / "m")
    assert sorted(v.name for v in loaded.variables) == ["mlp/Variable:0", "mlp/c:0", "mlp/dense/w:0"]
    np.testing.assert_array_equal(loaded.signatures["serving_default"](x=np.ones(2, np.float32))["output_0"].numpy(),
                                  [3.0, 4.0])
