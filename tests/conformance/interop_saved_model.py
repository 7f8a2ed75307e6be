"""TensorFlow runs tinytf's GraphDefs and loads tinytf's SavedModels (``make interop``; needs ``.venv-bench``).

    .venv-bench/bin/python tests/conformance/interop_saved_model.py

Checks, each printed PASS or FAIL (exit status 1 on any failure):

1. The OpDefs tinytf writes (``tinytf/formats/op_defs.py``, built from its op classes) type and count
   every op's arguments as TensorFlow 2.21's registry does, with TensorFlow's attribute types.
2. GraphDefs exported from tinytf's traced functions (``tinytf/formats/graphdef_export.py``) run in
   ``tf.compat.v1.Session`` after ``tf.graph_util.import_graph_def`` and give tinytf's outputs: side
   effects in order (a counter, an assign), multi-output ops, StatelessIf / StatelessWhile bodies from
   the library, ``tf.LegacyCall`` ops as nodes of their callees, and an MLP training step (gradients,
   ResourceApplyGradientDescent) that updates the variables as tinytf does. A function TensorFlow
   itself exported to MLIR (``tf.mlir.experimental.convert_function``) goes through tinytf's parser
   and exporter and runs in TensorFlow with TensorFlow's results; ``tinytf-translate
   --mlir-to-graphdef`` text parses as a TensorFlow GraphDef.
3. ``tt.saved_model.save`` of a ``tt.Module`` (an MLP trained a few steps with Adam, a counter, two
   signatures): ``tf.saved_model.load`` restores the variables and its signatures and restored
   functions give tinytf's outputs; the counter signature counts; ``saved_model_cli show --all`` lists
   the signatures and functions and ``saved_model_cli run`` (TensorFlow 1's loader, which restores
   through the SaverDef as TensorFlow Serving does) computes the same outputs; TensorFlow saves what
   it loaded again and tinytf loads that.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [ROOT, HERE]
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

RESULTS: list[tuple[str, bool, str]] = []
RTOL, ATOL = 2e-6, 1e-6


def check(name: str):
    def run(fn):
        try:
            detail = fn() or ""
            RESULTS.append((name, True, detail))
            print(f"PASS  {name}" + (f"  ({detail})" if detail else ""), flush=True)
        except Exception:  # noqa: BLE001 - a failed check is reported, the others still run
            RESULTS.append((name, False, traceback.format_exc()))
            print(f"FAIL  {name}\n{traceback.format_exc()}", flush=True)
        return fn

    return run


def close(got, want, what: str) -> None:
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=RTOL, atol=ATOL, err_msg=what)


# --- the tinytf side ---------------------------------------------------------------------------------

def tinytf_model(tt):
    class Dense(tt.Module):
        def __init__(self, n_in, n_out, seed, name=None):
            super().__init__(name=name)
            rng = np.random.default_rng(seed)
            self.w = tt.Variable((rng.standard_normal((n_in, n_out)) * 0.5).astype(np.float32), name="w")
            self.b = tt.Variable(np.zeros([n_out], np.float32), name="b")

        def __call__(self, x):
            return x @ self.w + self.b

    class MLP(tt.Module):
        def __init__(self):
            super().__init__()
            self.hidden = Dense(4, 8, 1)
            self.out = Dense(8, 3, 2)
            self.calls = tt.Variable(np.int64(0), trainable=False, name="calls")

        @tt.function(input_signature=[tt.TensorSpec([None, 4], tt.float32)])
        def predict(self, x):
            return tt.nn.softmax(self.out(tt.nn.relu(self.hidden(x))))

        @tt.function(input_signature=[tt.TensorSpec([None, 4], tt.float32, name="features")])
        def inspect(self, x):
            self.calls.assign_add(1)
            probs = self.predict(x)
            return {"probs": probs, "label": tt.math.argmax(probs, axis=1), "calls": self.calls.read_value()}

    return MLP()


def batch():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 6)]
    return x, labels


def train(tt, model, steps: int = 5) -> list[float]:
    x, y = batch()
    model.optimizer = tt.optimizers.Adam(learning_rate=0.05)

    @tt.function
    def step(x, y):
        with tt.GradientTape() as tape:
            loss = tt.math.reduce_mean(tt.square(model.predict(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        model.optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return [float(step(x, y).numpy()) for _ in range(steps)]


def session_run(tf, graph_bytes: bytes, feeds: dict, fetches: list, variables: dict):
    """Import a serialized GraphDef, assign the variables' values, run the fetches; and the variables after."""
    graph_def = tf.compat.v1.GraphDef.FromString(graph_bytes)
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
        handles = {name: graph.get_tensor_by_name(f"{name}:0") for name in variables}
        inits = [tf.raw_ops.AssignVariableOp(resource=handles[name], value=value) for name, value in variables.items()]
        reads = [tf.raw_ops.ReadVariableOp(resource=handles[name], dtype=tf.as_dtype(np.asarray(value).dtype))
                 for name, value in variables.items()]
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(inits)
            out = sess.run(fetches, {f"{k}:0": v for k, v in feeds.items()})
            after = sess.run(reads)
    return out, dict(zip(variables, after))


def main() -> int:
    import tensorflow as tf
    from tensorflow.python.framework import op_def_registry

    tf.get_logger().setLevel("ERROR")  # (TensorFlow's notes on the optimizer slots its generic objects skip)

    import tinytf as tt
    from tinytf.formats import op_defs
    from tinytf.formats.graphdef_export import export_module, graph_def_text
    from tinytf.framework.op import REGISTRY

    work = tempfile.mkdtemp(prefix="tinytf-interop-sm-")
    print(f"TensorFlow {tf.__version__}, tinytf from {os.path.dirname(tt.__file__)}; files in {work}\n", flush=True)

    # -- 1. OpDefs ----------------------------------------------------------------------------------
    @check("tinytf's OpDefs type and count every op's arguments as TensorFlow's registry does")
    def _():
        def key(a):
            return (a.name, a.type, a.type_attr, a.number_attr, a.type_list_attr)

        names = sorted(k[3:] for k in REGISTRY if k[3:] not in op_defs.MLIR_ONLY_OPS) + ["Placeholder", "NoOp",
                                                                                          "RestoreV2", "SaveV2"]
        problems, extra_defaults = [], []
        for name in names:
            theirs, ours = op_def_registry.get(name), op_defs.op_def(name)
            if theirs is None:
                problems.append(f"{name}: not a TensorFlow op")
                continue
            if [key(a) for a in theirs.input_arg] != [key(a) for a in ours.input_arg] or \
                    [key(a) for a in theirs.output_arg] != [key(a) for a in ours.output_arg]:
                problems.append(f"{name}: arguments differ")
            types = {a.name: a.type for a in theirs.attr}
            wrong = [a.name for a in ours.attr if types.get(a.name) != a.type]
            required = [a.name for a in theirs.attr if not a.HasField("default_value") and
                        a.name not in {b.name for b in ours.attr}]
            by_name = {t.name: t for t in theirs.attr}
            defaults = [a.name for a in ours.attr if a.HasField("default_value") and a.name in by_name and
                        by_name[a.name].HasField("default_value") and
                        by_name[a.name].default_value.SerializeToString() != a.default_value.SerializeToString()]
            extra_defaults.extend(f"{name}.{a.name}" for a in ours.attr if a.HasField("default_value") and
                                  a.name in by_name and not by_name[a.name].HasField("default_value"))
            if wrong or required or defaults:
                problems.append(f"{name}: attrs {wrong} not TensorFlow's, {required} missing, defaults {defaults} differ")
            if theirs.is_stateful != ours.is_stateful:
                problems.append(f"{name}: is_stateful {ours.is_stateful}")
        assert not problems, "\n".join(problems)
        return (f"{len(names)} ops; tinytf gives a default TensorFlow's OpDef lacks to {len(extra_defaults)}: "
                f"{', '.join(extra_defaults)}")

    # -- 2. GraphDefs in a Session -------------------------------------------------------------------
    def run_exported(cf, feeds: dict, variables: list):
        exported = export_module(cf.module)
        values = {name: v.numpy() for name, v in zip(exported.variables, variables)}
        out, after = session_run(tf, exported.graph_def.SerializeToString(), dict(zip(exported.inputs, feeds.values())),
                                 exported.outputs, values)
        return out, after, exported

    @check("a traced function with a counter, an assign and a multi-output op runs in tf.compat.v1.Session")
    def _():
        scale = tt.Variable(np.float32(2.0), name="scale")
        counter = tt.Variable(np.int64(5), trainable=False, name="counter")

        @tt.function(input_signature=[tt.TensorSpec([None, 4], tt.float32), tt.TensorSpec([], tt.int32)])
        def step(x, n):
            counter.assign_add(1)
            y = x * scale + tt.cast(n, tt.float32)
            left, right = tt.split(y, 2, axis=1)
            scale.assign(scale * 0.5)
            return {"left": left, "right": right, "count": counter.read_value(), "scale": scale.read_value()}

        cf = step.get_concrete_function()
        x = np.arange(8, dtype=np.float32).reshape(2, 4)
        before = [v.numpy() for v in cf.captured_variables]
        got, after, _ = run_exported(cf, {"x": x, "n": np.int32(3)}, cf.captured_variables)
        want = cf.call_flat([x, np.int32(3)])
        for g, w, k in zip(got, want, ["count", "left", "right", "scale"]):
            close(g, w.numpy(), k)
        for (name, value), v in zip(after.items(), cf.captured_variables):
            close(value, v.numpy(), name)
        return f"outputs and updated variables agree (counter {before[0]} -> {int(got[0])}, scale {before[1]} -> {got[3]})"

    @check("StatelessIf / StatelessWhile / Split / Unpack with library functions run in a Session")
    def _():
        v = tt.Variable(np.float32(2.0), name="v")

        @tt.function(input_signature=[tt.TensorSpec([3], tt.float32), tt.TensorSpec([], tt.int32)])
        def f(x, n):
            y = tt.cond(tt.math.reduce_sum(x) > 0, lambda: x * v, lambda: x - 1.0)
            i, z = tt.while_loop(lambda i, z: i < n, lambda i, z: (i + 1, z * 2.0), [tt.constant(0), y])
            a, b = tt.split(tt.reshape(z, [3, 1]), [1, 2], axis=0)
            return a, b, i, tt.unstack(z)[2]

        cf = f.get_concrete_function()
        cases = [(np.array([1.0, 2.0, 3.0], np.float32), 3), (np.array([-1.0, -2.0, 0.5], np.float32), 2)]
        for x, n in cases:
            got, _, exported = run_exported(cf, {"x": x, "n": np.int32(n)}, cf.captured_variables)
            for g, w in zip(got, cf.call_flat([x, np.int32(n)])):
                close(g, w.numpy(), f"x={x}")
        ops = sorted({n.op for n in exported.graph_def.node} & {"StatelessIf", "StatelessWhile"})
        return f"{len(cases)} inputs; {', '.join(ops)}; {len(exported.graph_def.library.function)} library functions"

    @check("an MLP training step (gradients, ResourceApplyGradientDescent) updates the variables as tinytf does")
    def _():
        model = tinytf_model(tt)
        opt = tt.optimizers.SGD(learning_rate=0.1)
        x, y = batch()

        @tt.function(input_signature=[tt.TensorSpec([None, 4], tt.float32), tt.TensorSpec([None, 3], tt.float32)])
        def train_step(x, y):
            with tt.GradientTape() as tape:
                loss = tt.math.reduce_mean(tt.square(model.predict(x) - y))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        cf = train_step.get_concrete_function()
        start = [v.numpy().copy() for v in cf.captured_variables]
        got, after, exported = run_exported(cf, {"x": x, "y": y}, cf.captured_variables)
        for v, s in zip(cf.captured_variables, start):
            v.assign(s)
        want = cf.call_flat([x, y])[0].numpy()
        close(got[0], want, "loss")
        for (name, value), v in zip(after.items(), cf.captured_variables):
            close(value, v.numpy(), name)
        ops = {n.op for n in exported.graph_def.node}
        assert "ResourceApplyGradientDescent" in ops, sorted(ops)
        return f"loss {want:.6f}; {len(after)} variables updated alike; {len(ops)} op types"

    @check("a function TensorFlow exported to MLIR, through tinytf's parser and exporter, gives TensorFlow's results")
    def _():
        from tinytf import mlir

        @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([3, 2], tf.float32)])
        def tf_fn(a, b):
            c = tf.nn.relu(tf.matmul(a, b) + 1.0)
            parts = tf.split(tf.concat([c, c * 2.0], axis=1), 2, axis=1)
            return tf.reduce_sum(parts[1], axis=0), tf.nn.softmax(c), tf.cast(tf.argmax(c, axis=1), tf.int32)

        concrete = tf_fn.get_concrete_function()
        text = tf.mlir.experimental.convert_function(concrete, pass_pipeline="tf-standard-pipeline")
        module = mlir.parse_text(text)
        exported = export_module(module)
        a = np.arange(6, dtype=np.float32).reshape(2, 3) / 4.0
        b = np.arange(6, dtype=np.float32).reshape(3, 2) - 2.0
        got, _ = session_run(tf, exported.graph_def.SerializeToString(), dict(zip(exported.inputs, [a, b])),
                             exported.outputs, {})
        for g, w in zip(got, concrete(tf.constant(a), tf.constant(b))):
            close(g, w.numpy(), "TensorFlow's function")
        return f"inputs {exported.inputs}, {len(exported.outputs)} outputs"

    @check("tf.LegacyCall ops export as nodes of their callees (in the graph and in a FunctionDef) and run")
    def _():
        from tinytf import mlir
        from tinytf.runtime.executor import Program

        module = mlir.parse_text("""
        func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
          %0:2 = "tf.LegacyCall"(%x) <{_disable_call_shape_inference = false, f = @pair}>
                 : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
          %1 = "tf.LegacyCall"(%0#1) <{_disable_call_shape_inference = true, f = @scale}> : (tensor<3xf32>) -> tensor<3xf32>
          %2 = "tf.AddV2"(%0#0, %1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
          return %2 : tensor<3xf32>
        }
        func.func private @pair(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
          %0 = "tf.Mul"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
          %1 = "tf.LegacyCall"(%0) <{_disable_call_shape_inference = false, f = @scale}> : (tensor<3xf32>) -> tensor<3xf32>
          return %0, %1 : tensor<3xf32>, tensor<3xf32>
        }
        func.func private @scale(%b: tensor<3xf32>) -> tensor<3xf32> {
          %c = "tf.Const"() <{value = dense<[1.0, -2.0, 0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
          %0 = "tf.Mul"(%b, %c) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
          return %0 : tensor<3xf32>
        }""")
        exported = export_module(module)
        x = np.array([1.0, -2.0, 3.0], np.float32)
        got, _ = session_run(tf, exported.graph_def.SerializeToString(), {"x": x}, exported.outputs, {})
        want = Program(module).run("main", [x])[0]
        close(got[0], want, "LegacyCall")
        close(got[0], x * x + x * x * np.array([1.0, -2.0, 0.5]) ** 2, "LegacyCall (by hand)")
        ops = sorted(n.op for n in exported.graph_def.node)
        assert "pair" in ops and "scale" in ops, ops
        return f"graph ops {ops}"

    @check("tinytf-translate --mlir-to-graphdef prints a text GraphDef TensorFlow parses and runs")
    def _():
        from google.protobuf import text_format

        @tt.function(input_signature=[tt.TensorSpec([2, 2], tt.float32)])
        def g(x):
            return tt.linalg.matmul(x, x, transpose_b=True) - tt.math.reduce_max(x)

        cf = g.get_concrete_function()
        path = os.path.join(work, "g.mlir")
        with open(path, "w") as f:
            f.write(cf.mlir())
        bin_dir = os.path.dirname(sys.executable)
        translate = os.path.join(bin_dir, "tinytf-translate")
        printed = subprocess.run([translate, "--mlir-to-graphdef", path], capture_output=True, text=True, check=True).stdout
        assert printed == graph_def_text(cf.module)
        graph_def = text_format.Parse(printed, tf.compat.v1.GraphDef())
        x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
        got, _ = session_run(tf, graph_def.SerializeToString(), {"x": x}, ["identity_RetVal:0"], {})
        close(got[0], cf(x).numpy(), "translate")
        return f"{len(printed.splitlines())} lines"

    # -- 3. SavedModels ------------------------------------------------------------------------------
    model = tinytf_model(tt)
    losses = train(tt, model)
    x, _ = batch()
    export_dir = os.path.join(work, "mlp", "1")
    tt.saved_model.save(model, export_dir, signatures={"serving_default": model.predict, "inspect": model.inspect})
    want_probs = model.predict(x).numpy()
    want_inspect = {k: v.numpy() for k, v in model.inspect(x).items()}  # (calls is now 1)
    print(f"       the MLP trained 5 Adam steps in tinytf: loss {losses[0]:.4f} -> {losses[-1]:.4f}", flush=True)

    @check("tf.saved_model.load restores tinytf's SavedModel: signatures, restored functions, variables")
    def _():
        loaded = tf.saved_model.load(export_dir)
        assert sorted(loaded.signatures) == ["inspect", "serving_default"], list(loaded.signatures)
        out = loaded.signatures["serving_default"](x=tf.constant(x))
        assert list(out) == ["output_0"]
        close(out["output_0"].numpy(), want_probs, "serving_default")
        close(loaded.predict(tf.constant(x)).numpy(), want_probs, "loaded.predict")
        inspect = loaded.signatures["inspect"](features=tf.constant(x))
        assert sorted(inspect) == ["calls", "label", "probs"]
        close(inspect["probs"].numpy(), want_inspect["probs"], "inspect.probs")
        np.testing.assert_array_equal(inspect["label"].numpy(), want_inspect["label"])
        assert int(inspect["calls"]) == 1 and int(loaded.signatures["inspect"](features=tf.constant(x))["calls"]) == 2
        for name in ("hidden", "out"):
            for attr in ("w", "b"):
                close(getattr(getattr(loaded, name), attr).numpy(), getattr(getattr(model, name), attr).numpy(),
                      f"{name}.{attr}")
        assert loaded.optimizer.iter.numpy() == 5
        return "2 signatures, predict, 4 trained variables, the counter and the optimizer's step count"

    @check("saved_model_cli show --all lists the signatures and the functions")
    def _():
        cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
        shown = subprocess.run([cli, "show", "--all", "--dir", export_dir], capture_output=True, text=True,
                               check=True).stdout
        for needle in ("signature_def['serving_default']", "signature_def['inspect']", "name: serving_default_x:0",
                       "outputs['label'] tensor_info:", "Function Name: 'predict'", "Function Name: 'inspect'",
                       "x: TensorSpec(shape=(None, 4), dtype=tf.float32, name='x')"):
            assert needle in shown, (needle, shown)
        return f"{len(shown.splitlines())} lines"

    @check("saved_model_cli run (TensorFlow 1's loader: the SaverDef restores the variables) gives tinytf's outputs")
    def _():
        cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
        outdir = os.path.join(work, "cli_out")
        literal = json.dumps(x.tolist())
        subprocess.run([cli, "run", "--dir", export_dir, "--tag_set", "serve", "--signature_def", "serving_default",
                        "--input_exprs", f"x={literal}", "--outdir", outdir], capture_output=True, text=True, check=True)
        close(np.load(os.path.join(outdir, "output_0.npy")), want_probs, "saved_model_cli run")
        with tf.compat.v1.Session(graph=tf.Graph()) as sess:
            meta = tf.compat.v1.saved_model.load(sess, ["serve"], export_dir)
            sig = meta.signature_def["inspect"]
            got = sess.run({k: v.name for k, v in sig.outputs.items()}, {sig.inputs["features"].name: x})
        close(got["probs"], want_inspect["probs"], "TF1 session")
        assert int(got["calls"]) == 1
        return "output_0 and a TF1 Session's inspect agree"

    @check("TensorFlow re-saves the loaded model and tinytf loads TensorFlow's SavedModel")
    def _():
        loaded = tf.saved_model.load(export_dir)
        again = os.path.join(work, "mlp_tf", "1")
        tf.saved_model.save(loaded, again, signatures=loaded.signatures)
        back = tt.saved_model.load(again)
        close(back.signatures["serving_default"](x=x)["output_0"].numpy(), want_probs, "tinytf on TF's re-save")
        ours = tt.saved_model.load(export_dir)
        close(ours.signatures["serving_default"](x=x)["output_0"].numpy(), want_probs, "tinytf on its own")
        return "both directions give the same probabilities"

    shutil.rmtree(work, ignore_errors=True)
    failed = [name for name, ok, _ in RESULTS if not ok]
    print(f"\n{len(RESULTS) - len(failed)} of {len(RESULTS)} interop checks passed" +
          (f"; failed: {failed}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
