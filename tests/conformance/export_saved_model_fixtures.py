"""Write the small SavedModels of tests/conformance/fixtures/saved_models with TensorFlow 2.21 (run in
.venv-bench; never by the tests): each NAME/ is what ``tf.saved_model.save`` wrote, and NAME.npz holds
the inputs of each signature call and TensorFlow's outputs for them ("<signature>.<key>" for inputs,
"<signature>.out.<key>" for outputs).

    .venv-bench/bin/python tests/conformance/export_saved_model_fixtures.py [--only keras_cnn]

Every weight comes from a seeded initializer, so the models are reproducible; they are a few KB each.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "saved_models")


def _serving(tf, model, shape):
    class Serving(tf.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        @tf.function(input_signature=[tf.TensorSpec(shape, tf.float32, name="x")])
        def serve(self, x):
            return {"y": self.model(x, training=False)}

    return Serving()


def keras_mlp(tf):
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(3, activation="softmax")])
    module = _serving(tf, model, [None, 5])
    return module, {"serving_default": module.serve}, {"serving_default": {"x": (4, 5)}}


def keras_cnn(tf):
    tf.keras.utils.set_random_seed(2)
    layers = tf.keras.layers
    model = tf.keras.Sequential([tf.keras.Input((8, 8, 3)), layers.Conv2D(4, 3, padding="same"),
                                 layers.BatchNormalization(), layers.ReLU(), layers.MaxPooling2D(),
                                 layers.DepthwiseConv2D(3, padding="same"), layers.GlobalAveragePooling2D(),
                                 layers.Dense(2)])
    # non-trivial moving statistics, so inference-mode batch norm is tested
    bn = model.layers[1]
    bn.moving_mean.assign(np.linspace(-0.5, 0.5, 4).astype(np.float32))
    bn.moving_variance.assign(np.linspace(0.5, 2.0, 4).astype(np.float32))
    module = _serving(tf, model, [2, 8, 8, 3])
    return module, {"serving_default": module.serve}, {"serving_default": {"x": (2, 8, 8, 3)}}


def multi_signature(tf):
    """A tf.Module with variables, two signatures, and control flow (tf.cond and tf.while_loop)."""
    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(3)
            self.w = tf.Variable(rng.standard_normal((3, 3)).astype(np.float32), name="w")
            self.b = tf.Variable(rng.standard_normal(3).astype(np.float32), name="b")

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
        def affine(self, x):
            return {"y": tf.matmul(x, self.w) + self.b}

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x"),
                                      tf.TensorSpec([], tf.int32, name="n")])
        def iterate(self, x, n):
            def body(i, h):
                h = tf.tanh(tf.matmul(h, self.w))
                return i + 1, tf.cond(tf.reduce_sum(h) > 0, lambda: h * 2.0, lambda: h - self.b)

            _, h = tf.while_loop(lambda i, h: i < n, body, (tf.constant(0), x))
            return {"h": h, "total": tf.reduce_sum(h)}

    module = Model()
    return module, {"serving_default": module.affine, "iterate": module.iterate}, \
        {"serving_default": {"x": (4, 3)}, "iterate": {"x": (2, 3), "n": 5}}


def keras_lstm(tf):
    """A Keras LSTM written by Keras' own exporter (``model.export``: an ExportArchive, endpoint 'serve')."""
    tf.keras.utils.set_random_seed(4)
    model = tf.keras.Sequential([tf.keras.Input((5, 3), name="x"), tf.keras.layers.LSTM(4), tf.keras.layers.Dense(2)])
    return model, None, {"serve": {"x": (2, 5, 3)}, "serving_default": {"x": (2, 5, 3)}}


def tf1_session(tf):
    """A TensorFlow 1 graph saved from a Session (placeholders, get_variable, SignatureDefs)."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        w = v1.get_variable("w", initializer=np.random.default_rng(5).standard_normal((3, 2)).astype(np.float32))
        b = v1.get_variable("b", initializer=np.array([0.5, -0.5], np.float32))
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        signature = v1.saved_model.signature_def_utils.predict_signature_def(inputs={"x": x}, outputs={"y": y})
        session = v1.Session(graph=graph)
        session.run(v1.global_variables_initializer())
    return (graph, session), {"serving_default": signature}, {"serving_default": {"x": (4, 3)}}


MODELS = {"keras_mlp": keras_mlp, "keras_cnn": keras_cnn, "multi_signature": multi_signature,
          "keras_lstm": keras_lstm, "tf1_session": tf1_session}


def save(tf, name: str, module, signatures, path: str) -> None:
    if name == "keras_lstm":
        module.export(path)
    elif name == "tf1_session":
        (graph, session) = module
        builder = tf.compat.v1.saved_model.Builder(path)
        with graph.as_default():
            builder.add_meta_graph_and_variables(session, ["serve"], signature_def_map=signatures)
        builder.save()
        write_frozen_graph(tf, graph, session)
    else:
        tf.saved_model.save(module, path, signatures=signatures)


def write_frozen_graph(tf, graph, session) -> None:
    """tf1_session's graph with its variables folded into constants (frozen.pb): the form TF1 deployments ship."""
    frozen = tf.compat.v1.graph_util.convert_variables_to_constants(session, graph.as_graph_def(), ["y"])
    with open(os.path.join(OUT, "frozen.pb"), "wb") as f:
        f.write(frozen.SerializeToString())


def export(tf, name: str) -> None:
    module, signatures, inputs = MODELS[name](tf)
    path = os.path.join(OUT, name)
    shutil.rmtree(path, ignore_errors=True)
    save(tf, name, module, signatures, path)
    loaded = tf.saved_model.load(path)  # TensorFlow's outputs from the files, as tinytf will read them
    rng = np.random.default_rng(sum(map(ord, name)))
    arrays = {}
    for key, spec in inputs.items():
        feed = {k: (np.int32(v) if isinstance(v, int) else rng.uniform(-1, 1, v).astype(np.float32))
                for k, v in spec.items()}
        outs = loaded.signatures[key](**{k: tf.constant(v) for k, v in feed.items()})
        arrays.update({f"{key}.{k}": v for k, v in feed.items()})
        arrays.update({f"{key}.out.{k}": v.numpy() for k, v in outs.items()})
    np.savez(os.path.join(OUT, name + ".npz"), **arrays)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)
    print(f"[{name}] {size // 1024} KB, signatures {sorted(inputs)}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args(argv)
    import tensorflow as tf  # only here

    os.makedirs(OUT, exist_ok=True)
    for name in args.only or MODELS:
        export(tf, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
