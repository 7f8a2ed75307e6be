"""Export TensorFlow conformance fixtures (MLIR text + npz inputs/outputs).

Run by hand in an environment that has TensorFlow installed, never in CI:

    python3 -m venv /work/tfenv && /work/tfenv/bin/pip install tensorflow-cpu numpy
    /work/tfenv/bin/python tests/conformance/export_fixtures.py [--out DIR] [--only NAME ...]

For each fixture NAME it writes into DIR (default: tests/conformance/fixtures):
  NAME.mlir  the MLIR text exactly as TensorFlow printed it
             (tf.mlir.experimental.convert_function, pass_pipeline="tf-standard-pipeline")
  NAME.npz   arg0, arg1, ... in the entry function's argument order (data inputs first,
             then one array per captured variable resource argument, holding the variable's
             value, in the order of the trailing resource arguments), and out0, out1, ...
             = TensorFlow's outputs for those inputs.  Stateful fixtures (train_step) also
             store var0_after, var1_after, ... = the variable values after the call.

This file is not a pytest test (no test_ prefix) and imports tensorflow only inside main().
"""

import argparse
import os
import re
import sys

import numpy as np

PIPELINE = "tf-standard-pipeline"


# --------------------------------------------------------------------------- helpers

def _underlying_tf_variable(tf, v):
    """Keras 3 variables wrap a tf.Variable; return the tf.Variable."""
    if isinstance(v, tf.Variable):
        return v
    for attr in ("value", "_value"):
        inner = getattr(v, attr, None)
        if isinstance(inner, tf.Variable):
            return inner
    raise TypeError("cannot find tf.Variable inside %r" % (v,))


def _match_captures(tf, concrete_fn, variables):
    """Return the variables in the order of concrete_fn.captured_inputs."""
    tf_vars = [_underlying_tf_variable(tf, v) for v in variables]
    ordered = []
    for ci in concrete_fn.captured_inputs:
        hit = [v for v in tf_vars if v.handle is ci]
        if not hit:
            hit = [v for v in tf_vars if getattr(v.handle, "_id", None) == getattr(ci, "_id", -1)]
        if len(hit) != 1:
            raise RuntimeError("captured input %r matches %d variables" % (ci, len(hit)))
        ordered.append(hit[0])
    return ordered


def _entry_arg_count(mlir_text):
    """Number of arguments of the entry function (the one carrying tf.entry_function)."""
    for line in mlir_text.splitlines():
        if "func.func" in line and "tf.entry_function" in line:
            head = line.split(") -> ", 1)[0]
            return len(re.findall(r"%arg\d+\s*:", head))
    raise RuntimeError("no func.func with tf.entry_function found")


def _to_numpy(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def export(tf, out_dir, name, concrete_fn, data_inputs, variables=(), stateful=False, log=None):
    """Convert concrete_fn to MLIR, run it, and write NAME.mlir / NAME.npz."""
    try:
        mlir = tf.mlir.experimental.convert_function(concrete_fn, pass_pipeline=PIPELINE)
        how = "pass_pipeline=%r" % PIPELINE
    except Exception as e:  # pragma: no cover - recorded for the README
        print("[%s] convert with %s failed: %s; retrying without" % (name, PIPELINE, e))
        mlir = tf.mlir.experimental.convert_function(concrete_fn)
        how = "default pass_pipeline"
    with open(os.path.join(out_dir, name + ".mlir"), "w") as f:
        f.write(mlir)

    ordered_vars = _match_captures(tf, concrete_fn, variables)
    arrays = {}
    args = [np.asarray(a) for a in data_inputs] + [v.numpy() for v in ordered_vars]
    for i, a in enumerate(args):
        arrays["arg%d" % i] = a
    n_mlir = _entry_arg_count(mlir)
    if n_mlir != len(args):
        raise RuntimeError("%s: MLIR entry function has %d args, npz has %d" % (name, n_mlir, len(args)))

    result = concrete_fn(*[tf.constant(a) for a in data_inputs])
    outs = tf.nest.flatten(result)
    for i, o in enumerate(outs):
        arrays["out%d" % i] = _to_numpy(o)
    if stateful:
        for i, v in enumerate(ordered_vars):
            arrays["var%d_after" % i] = v.numpy()
    np.savez(os.path.join(out_dir, name + ".npz"), **arrays)
    if log is not None:
        log.append((name, how, [(k, v.dtype, v.shape) for k, v in arrays.items()]))
    print("[%s] %s; %d args (%d data + %d variables), %d outputs"
          % (name, how, len(args), len(data_inputs), len(ordered_vars), len(outs)))


def _rng(seed):
    return np.random.default_rng(seed)


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _keras_fixture(tf, out_dir, name, model, x, log):
    fn = tf.function(lambda inp: model(inp, training=False))
    cf = fn.get_concrete_function(tf.TensorSpec(x.shape, tf.float32, name="x"))
    export(tf, out_dir, name, cf, [x], model.weights, log=log)


# --------------------------------------------------------------------------- fixtures

def fx_keras_mlp(tf, out_dir, log):
    keras = tf.keras
    keras.utils.set_random_seed(1)
    inp = keras.Input((20,), batch_size=4)
    h = keras.layers.Dense(32, activation="relu")(inp)
    h = keras.layers.Dense(16, activation="tanh")(h)
    out = keras.layers.Dense(10)(h)
    model = keras.Model(inp, out)
    _keras_fixture(tf, out_dir, "keras_mlp", model, _f32(_rng(1), 4, 20), log)


def fx_keras_mnist_mlp(tf, out_dir, log):
    """TensorFlow's beginner-tutorial model: big enough that the quantizer's defaults apply to it."""
    keras = tf.keras
    keras.utils.set_random_seed(10)
    inp = keras.Input((28, 28), batch_size=4)
    h = keras.layers.Flatten()(inp)
    h = keras.layers.Dense(128, activation="relu")(h)
    h = keras.layers.Dropout(0.2)(h)
    out = keras.layers.Dense(10)(h)
    model = keras.Model(inp, out)
    x = _rng(10).uniform(0, 1, (4, 28, 28)).astype(np.float32)
    _keras_fixture(tf, out_dir, "keras_mnist_mlp", model, x, log)


def fx_keras_cnn(tf, out_dir, log):
    keras = tf.keras
    keras.utils.set_random_seed(2)
    inp = keras.Input((12, 12, 3), batch_size=2)
    h = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
    h = keras.layers.MaxPool2D()(h)
    h = keras.layers.Conv2D(8, 3, padding="valid")(h)
    h = keras.layers.Flatten()(h)
    out = keras.layers.Dense(10)(h)
    model = keras.Model(inp, out)
    _keras_fixture(tf, out_dir, "keras_cnn", model, _f32(_rng(2), 2, 12, 12, 3), log)


def fx_keras_attention(tf, out_dir, log):
    keras = tf.keras
    keras.utils.set_random_seed(3)
    inp = keras.Input((5, 16), batch_size=2)
    a = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(inp, inp)
    h = keras.layers.Add()([inp, a])
    h = keras.layers.LayerNormalization()(h)
    h = keras.layers.Dense(32, activation="gelu")(h)
    out = keras.layers.Dense(16)(h)
    model = keras.Model(inp, out)
    _keras_fixture(tf, out_dir, "keras_attention", model, _f32(_rng(3), 2, 5, 16), log)


def fx_keras_batchnorm(tf, out_dir, log):
    keras = tf.keras
    keras.utils.set_random_seed(4)
    inp = keras.Input((12,), batch_size=3)
    h = keras.layers.Dense(16)(inp)
    bn = keras.layers.BatchNormalization()
    h = bn(h, training=False)
    out = keras.layers.ReLU()(h)
    model = keras.Model(inp, out)
    rng = _rng(40)
    bn.gamma.assign(rng.uniform(0.5, 1.5, 16).astype(np.float32))
    bn.beta.assign(rng.uniform(-0.5, 0.5, 16).astype(np.float32))
    bn.moving_mean.assign(rng.uniform(-1.0, 1.0, 16).astype(np.float32))
    bn.moving_variance.assign(rng.uniform(0.5, 2.0, 16).astype(np.float32))
    _keras_fixture(tf, out_dir, "keras_batchnorm", model, _f32(_rng(4), 3, 12), log)


def fx_loss_grad(tf, out_dir, log):
    rng = _rng(5)
    W = tf.Variable(_f32(rng, 8, 5) * 0.5, name="W")
    b = tf.Variable(_f32(rng, 5) * 0.1, name="b")

    @tf.function
    def loss_grad(x, labels):
        with tf.GradientTape() as tape:
            logits = tf.matmul(x, W) + b
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        dW, db = tape.gradient(loss, [W, b])
        return loss, dW, db

    cf = loss_grad.get_concrete_function(tf.TensorSpec([4, 8], tf.float32, name="x"),
                                         tf.TensorSpec([4], tf.int32, name="labels"))
    x = _f32(rng, 4, 8)
    labels = np.array([0, 3, 1, 4], dtype=np.int32)
    export(tf, out_dir, "loss_grad", cf, [x, labels], [W, b], log=log)


def fx_train_step(tf, out_dir, log):
    rng = _rng(6)
    W = tf.Variable(_f32(rng, 8, 3) * 0.5, name="W")
    b = tf.Variable(_f32(rng, 3) * 0.1, name="b")

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            pred = tf.matmul(x, W) + b
            loss = tf.reduce_mean(tf.square(pred - y))
        dW, db = tape.gradient(loss, [W, b])
        W.assign_sub(0.1 * dW)
        b.assign_sub(0.1 * db)
        return loss

    cf = train_step.get_concrete_function(tf.TensorSpec([4, 8], tf.float32, name="x"),
                                          tf.TensorSpec([4, 3], tf.float32, name="y"))
    x = _f32(rng, 4, 8)
    y = _f32(rng, 4, 3)
    export(tf, out_dir, "train_step", cf, [x, y], [W, b], stateful=True, log=log)


def fx_dequantize_matmul(tf, out_dir, log):
    rng = _rng(7)
    w_int8 = rng.integers(-128, 128, size=(64, 32)).astype(np.int8)
    zero_point = np.int32(3)
    scale = rng.uniform(0.001, 0.02, size=(32,)).astype(np.float32)

    @tf.function
    def dequantize_matmul(x):
        w = tf.identity(tf.constant(w_int8))
        w = tf.cast(w, tf.int32)
        w = tf.subtract(w, tf.constant(zero_point, dtype=tf.int32))
        w = tf.cast(w, tf.float32)
        w = tf.multiply(w, tf.constant(scale))
        return tf.matmul(x, w)

    cf = dequantize_matmul.get_concrete_function(tf.TensorSpec([4, 64], tf.float32, name="x"))
    export(tf, out_dir, "dequantize_matmul", cf, [_f32(rng, 4, 64)], log=log)


def fx_elementwise_zoo(tf, out_dir, log):
    rng = _rng(8)

    @tf.function
    def elementwise_zoo(x, v):
        a = (x + v) * (x - v) / (tf.abs(v) + 1.0)
        e = tf.exp(x * 0.1) + tf.math.log(tf.abs(x) + 1.0) + tf.sqrt(tf.abs(x))
        lg = tf.math.log(tf.abs(x) + 0.5)  # log(abs+1) is canonicalized to Log1p; keep a Log
        t = tf.tanh(x) + tf.sigmoid(x) + tf.math.erf(x)
        mm = tf.maximum(x, v) - tf.minimum(x, 0.5)
        w = tf.where(x > v, x, v * 2.0)
        c = tf.cast(tf.cast(x * 3.0, tf.int32), tf.float32)
        s1 = tf.reduce_sum(x, axis=1)
        s2 = tf.reduce_mean(x, axis=0, keepdims=True)
        s3 = tf.reduce_max(x, axis=[0, 1])
        tr = tf.transpose(x)
        rs = tf.reshape(x, [2, 6])
        cc = tf.concat([x, a], axis=1)
        st = tf.stack([x, e], axis=0)
        sl = x[1:, ::2]
        ed = tf.expand_dims(v, 0)
        sq = tf.squeeze(ed, axis=0)
        ti = tf.tile(ed, [2, 1])
        pd = tf.pad(x, [[1, 0], [0, 2]])
        ga = tf.gather(x, [2, 0], axis=0)
        am = tf.argmax(x, axis=1)
        oh = tf.one_hot(am, depth=4)
        cs = tf.cumsum(x, axis=1)
        cl = tf.clip_by_value(x, -0.5, 0.5)
        sm = tf.nn.softmax(x)
        lsm = tf.nn.log_softmax(x)
        acts = (tf.nn.leaky_relu(x, alpha=0.2) + tf.nn.elu(x) + tf.nn.selu(x)
                + tf.nn.softplus(x) + tf.nn.relu6(x * 4.0))
        es = tf.einsum("ij,kj->ik", x, x)
        b3 = tf.reshape(tf.concat([x, x * 2.0], 0), [2, 3, 4])
        bm = tf.matmul(b3, b3, transpose_b=True)
        pw = tf.pow(tf.abs(x) + 1.0, 1.5)
        xi = tf.cast(x * 10.0, tf.int32)
        vi = tf.cast(tf.abs(v) * 3.0, tf.int32) + 1
        fd = tf.math.floordiv(xi, vi)
        fm = tf.math.floormod(xi, vi)
        rg = tf.cast(tf.range(tf.shape(x)[1]), tf.float32) * v  # folded to a Const
        start = x[0, 0]
        rg2 = tf.range(start, start + 3.5, 1.0)  # input-dependent: stays a tf.Range, 4 elements
        return (a, e, t, mm, w, c, s1, s2, s3, tr, rs, cc, st, sl, sq, ti, pd, ga, am, oh,
                cs, cl, sm, lsm, acts, es, bm, pw, fd, fm, rg, lg, rg2)

    cf = elementwise_zoo.get_concrete_function(tf.TensorSpec([3, 4], tf.float32, name="x"),
                                               tf.TensorSpec([4], tf.float32, name="v"))
    export(tf, out_dir, "elementwise_zoo", cf, [_f32(rng, 3, 4), _f32(rng, 4)], log=log)


def fx_control_flow(tf, out_dir, log):
    rng = _rng(9)

    @tf.function(autograph=False)
    def control_flow(pred, x, n):
        y = tf.cond(pred, lambda: x * 2.0 + 1.0, lambda: tf.exp(x) - x)
        i0 = tf.constant(0)
        acc0 = tf.zeros_like(x)
        _, acc = tf.while_loop(lambda i, acc: i < n,
                               lambda i, acc: (i + 1, acc + y * tf.cast(i, tf.float32)),
                               [i0, acc0])
        return y, acc

    cf = control_flow.get_concrete_function(tf.TensorSpec([], tf.bool, name="pred"),
                                            tf.TensorSpec([3], tf.float32, name="x"),
                                            tf.TensorSpec([], tf.int32, name="n"))
    export(tf, out_dir, "control_flow", cf,
           [np.array(True), _f32(rng, 3), np.array(4, dtype=np.int32)], log=log)


def fx_audio_frontend(tf, out_dir, log):
    """An audio front end: log-mel spectrogram and MFCCs of a waveform (tf.signal.stft, the mel matrix,
    tensordot, log, mfccs_from_log_mel_spectrograms): RFFTs, a ComplexAbs, a folded mel constant."""
    rng = _rng(12)

    @tf.function
    def audio_frontend(waveform):
        stfts = tf.signal.stft(waveform, frame_length=256, frame_step=128, fft_length=256)
        spectrograms = tf.abs(stfts)
        mel = tf.signal.linear_to_mel_weight_matrix(40, stfts.shape[-1], 16000, 20.0, 4000.0)
        log_mel = tf.math.log(tf.tensordot(spectrograms, mel, 1) + 1e-6)
        mfccs = tf.signal.mfccs_from_log_mel_spectrograms(log_mel)[..., :13]
        return log_mel, mfccs

    cf = audio_frontend.get_concrete_function(tf.TensorSpec([2, 1600], tf.float32, name="waveform"))
    t = np.arange(1600) / 16000.0
    tones = np.sin(2 * np.pi * np.array([[440.0], [1250.0]]) * t) + 0.1 * rng.standard_normal((2, 1600))
    export(tf, out_dir, "audio_frontend", cf, [tones.astype(np.float32)], log=log)


def fx_image_pipeline(tf, out_dir, log):
    """An image pipeline (issue 18's done-when): tf.image.resize (bilinear with half-pixel centres, area, and
    antialiased through ScaleAndTranslate), crop_and_resize of boxes, a flip and adjust_contrast. (Not
    per_image_standardization after the crops: dividing by a small spread magnifies XLA's fused multiply-add in
    the sample positions, one rounding fewer than TensorFlow's kernel, past the fixtures' tolerance.)"""
    rng = _rng(13)

    @tf.function
    def image_pipeline(images, boxes):
        resized = tf.image.resize(images, [40, 48])
        crops = tf.image.crop_and_resize(resized, boxes, tf.constant([0, 1, 1]), [16, 16])
        crops = tf.image.adjust_contrast(tf.image.flip_left_right(crops), 1.5)
        small = tf.image.resize(crops, [8, 8], method="area")
        thumbnails = tf.image.resize(images, [10, 12], antialias=True)
        return small, thumbnails

    cf = image_pipeline.get_concrete_function(tf.TensorSpec([2, 30, 36, 3], tf.float32, name="images"),
                                              tf.TensorSpec([3, 4], tf.float32, name="boxes"))
    corners = rng.uniform(0.0, 0.5, (3, 2))
    boxes = np.concatenate([corners, corners + rng.uniform(0.2, 0.5, (3, 2))], 1).astype(np.float32)
    export(tf, out_dir, "image_pipeline", cf, [rng.uniform(0, 1, (2, 30, 36, 3)).astype(np.float32), boxes], log=log)


def ref_control_flow_gradients(tf, out_dir, log):
    """TensorFlow's gradients through tf.cond and tf.while_loop (values only: TensorFlow's gradient
    graph holds TensorList ops): tests/conformance/test_control_flow_gradients.py runs the same model."""
    rng = _rng(11)
    arrays = {"x": _f32(rng, 4) * 0.5, "w": _f32(rng, 4, 4) * 0.4}

    def model(x, w, steps):
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            h = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.tanh(x) * 2.0, lambda: x * x)
            _, h = tf.while_loop(lambda i, h: i < steps,
                                 lambda i, h: (i + 1, tf.tanh(tf.linalg.matvec(w, h) + x)), (0, h))
            loss = tf.reduce_sum(h * h)
        dx, dw = tape.gradient(loss, [x, w])
        return loss, dx, dw

    graph = tf.function(model)
    for name, x in (("pos", np.abs(arrays["x"])), ("neg", -arrays["x"])):  # sum(x) > 0, < 0: each branch
        arrays[f"x_{name}"] = x
        for steps in (0, 3, 7):
            outs = graph(tf.constant(x), tf.constant(arrays["w"]), tf.constant(steps))
            for key, value in zip(("loss", "dx", "dw"), outs):
                arrays[f"{key}_{name}_{steps}"] = value.numpy()
    np.savez(os.path.join(out_dir, "control_flow_gradients.npz"), **arrays)
    print("[control_flow_gradients] %d arrays" % len(arrays))


# values computed by TensorFlow for models the tests write again with tinytf (no MLIR)
REFERENCES = {"control_flow_gradients": ref_control_flow_gradients}


# --------------------------------------------------------------------------- Keras models, weights from a seed
#
# fixtures/keras/NAME.mlir (NAME.mlir.gz when large) and NAME.npz, which stores no weights and no inputs:
# "spec", a JSON string {"seed", "inputs", "captures"} with one entry per data input and one per captured
# value, in the entry function's argument order. A variable's or an input's entry {"shape", "dtype", "low",
# "high"} regenerates its value (regenerate(seed, key, entry), key = the argument's index); a captured
# constant (a Normalization layer's mean) is an entry {"shape", "dtype", "value"}. out0, out1, ... are
# TensorFlow's outputs for these values; training steps also have var0_after, ... for the captured variables.

KERAS_DIR = "keras"
GZIP_OVER = 20_000  # bytes of MLIR text above which the fixture is stored gzipped


def regenerate(seed, key, entry):
    """An argument's value: a captured constant's own, else uniform in [low, high] from a generator
    seeded by (seed, key) (tests/conformance/test_keras_models.py calls this same function)."""
    if "value" in entry:
        return np.asarray(entry["value"], np.dtype(entry["dtype"])).reshape(entry["shape"])
    rng = np.random.default_rng([int(seed), int(key)])
    value = rng.uniform(entry["low"], entry["high"], tuple(entry["shape"]))
    return value.astype(np.dtype(entry["dtype"]))


def _init_range(name, shape, dtype, layer_class, lr=None):
    """[low, high] for a variable: scaled like a He initialiser for kernels, positive variances,
    scales near 1, small biases and optimizer slots, zero integer counters."""
    if not np.issubdtype(np.dtype(dtype), np.floating):
        return 0.0, 0.0
    n = name.lower()
    if n == "learning_rate" and lr is not None:
        return lr, lr
    if "velocity" in n:
        return 0.0, 0.01
    if "momentum" in n:
        return -0.01, 0.01
    if "variance" in n:
        return 0.5, 1.5
    if n.endswith("mean"):
        return -0.1, 0.1
    if n in ("gamma", "scale"):
        return 0.8, 1.2
    if len(shape) < 2:
        return -0.1, 0.1
    depthwise = layer_class in ("DepthwiseConv2D", "DepthwiseConv1D") or n == "depthwise_kernel"
    fan_in = int(np.prod(shape[:2] if depthwise and len(shape) == 4 else shape[:-1]))
    s = float(np.sqrt(6.0 / max(fan_in, 1)))
    return -s, s


def _layer_classes(tf, model):
    """id of each tf.Variable of ``model`` -> the class name of the layer that owns it."""
    out = {}
    for layer in model._flatten_layers(include_self=True, recursive=True):
        for v in layer.weights:
            out.setdefault(id(_underlying_tf_variable(tf, v)), type(layer).__name__)
    return out


def _captures(tf, concrete_fn, variables):
    """concrete_fn's captured inputs in order: the tf.Variable each handle belongs to, or the tensor itself."""
    tf_vars = [_underlying_tf_variable(tf, v) for v in variables]
    out = []
    for ci in concrete_fn.captured_inputs:
        hit = [v for v in tf_vars if v.handle is ci]
        if len(hit) > 1:
            raise RuntimeError("captured input %r matches %d variables" % (ci, len(hit)))
        if not hit and ci.dtype == tf.resource:
            raise RuntimeError("captured resource %r is none of the model's variables" % (ci,))
        out.append(hit[0] if hit else ci)
    return out


def _capture_entries(tf, captures, first_key, seed, classes, lr):
    """Give every captured variable its regenerated value; the entries of all captures."""
    entries = []
    for k, c in enumerate(captures):
        if not isinstance(c, tf.Variable):  # a constant the function captured: small, stored as it is
            value = c.numpy()
            if value.size > 1024:
                raise RuntimeError("captured constant of %d elements: too large to store" % value.size)
            entries.append({"shape": list(value.shape), "dtype": value.dtype.name, "value": value.ravel().tolist()})
            continue
        name = c.name.split(":")[0].rsplit("/", 1)[-1]
        shape = [int(d) for d in c.shape]
        dtype = c.dtype.as_numpy_dtype.__name__
        low, high = _init_range(name, shape, dtype, classes.get(id(c), ""), lr)
        entry = {"name": c.name.split(":")[0], "shape": shape, "dtype": dtype, "low": low, "high": high}
        c.assign(regenerate(seed, first_key + k, entry))
        entries.append(entry)
    return entries


def _input_entries(seed, inputs):
    """Entries for the data inputs (given as (shape, low, high)), and their regenerated values."""
    entries = [{"shape": list(shape), "dtype": "float32", "low": low, "high": high} for shape, low, high in inputs]
    return entries, [regenerate(seed, k, e) for k, e in enumerate(entries)]


def export_keras(tf, out_dir, name, concrete_fn, inputs, variables, classes, seed, stateful=False, lr=None, log=None):
    """Like export(), but every input and variable is regenerated from ``seed`` and not stored.
    ``inputs``: (shape, low, high) of each data input."""
    import gzip
    import json

    mlir = tf.mlir.experimental.convert_function(concrete_fn, pass_pipeline=PIPELINE)
    folder = os.path.join(out_dir, KERAS_DIR)
    os.makedirs(folder, exist_ok=True)
    for old in (name + ".mlir", name + ".mlir.gz"):
        if os.path.exists(os.path.join(folder, old)):
            os.remove(os.path.join(folder, old))
    if len(mlir) > GZIP_OVER:
        with gzip.GzipFile(os.path.join(folder, name + ".mlir.gz"), "wb", mtime=0) as f:
            f.write(mlir.encode("utf-8"))
    else:
        with open(os.path.join(folder, name + ".mlir"), "w") as f:
            f.write(mlir)
    input_entries, data = _input_entries(seed, inputs)
    captures = _captures(tf, concrete_fn, variables)
    n_mlir = _entry_arg_count(mlir)
    if n_mlir != len(data) + len(captures):
        raise RuntimeError("%s: MLIR entry function has %d args, %d data + %d captures"
                           % (name, n_mlir, len(data), len(captures)))
    entries = _capture_entries(tf, captures, len(data), seed, classes, lr)
    arrays = {"spec": np.array(json.dumps({"seed": seed, "inputs": input_entries, "captures": entries}))}
    result = concrete_fn(*[tf.constant(a) for a in data])
    outs = tf.nest.flatten(result)
    for i, o in enumerate(outs):
        arrays["out%d" % i] = _to_numpy(o)
        if arrays["out%d" % i].dtype.kind == "f" and not np.all(np.isfinite(arrays["out%d" % i])):
            raise RuntimeError("%s: output %d is not finite for the seeded weights" % (name, i))
    if stateful:
        for i, v in enumerate(c for c in captures if isinstance(c, tf.Variable)):
            arrays["var%d_after" % i] = v.numpy()
    np.savez_compressed(os.path.join(folder, name + ".npz"), **arrays)
    if log is not None:
        log.append((name, "keras, %d ops" % mlir.count('"tf.'), [(k, v.dtype, v.shape) for k, v in arrays.items()
                                                                  if k != "spec"]))
    print("[%s] %d KB of MLIR, %d ops, %d data inputs, %d captures, %d outputs, output range %.3g"
          % (name, len(mlir) // 1024, mlir.count('"tf.'), len(data), len(captures), len(outs),
             max(float(np.max(np.abs(arrays["out%d" % i]))) for i in range(len(outs)))))


def _keras_inference(tf, out_dir, name, model, shape, seed, log, low=-1.0, high=1.0):
    fn = tf.function(lambda inp: model(inp, training=False))
    cf = fn.get_concrete_function(tf.TensorSpec(shape, tf.float32, name="x"))
    export_keras(tf, out_dir, name, cf, [(shape, low, high)], model.weights, _layer_classes(tf, model), seed, log=log)


def _sequence_model(tf, seed, layer, shape=(6, 3), batch=2):
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    inp = keras.Input(shape, batch_size=batch)
    return keras.Model(inp, layer(inp)), (batch, *shape)


def kx_lstm(tf, out_dir, log):
    keras = tf.keras
    model, shape = _sequence_model(tf, 21, lambda t: keras.layers.LSTM(4)(keras.layers.LSTM(8, return_sequences=True)(t)))
    _keras_inference(tf, out_dir, "lstm", model, shape, 21, log)


def kx_gru(tf, out_dir, log):
    model, shape = _sequence_model(tf, 22, tf.keras.layers.GRU(6))
    _keras_inference(tf, out_dir, "gru", model, shape, 22, log)


def kx_bidirectional_lstm(tf, out_dir, log):
    keras = tf.keras
    model, shape = _sequence_model(tf, 23, keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True)))
    _keras_inference(tf, out_dir, "bidirectional_lstm", model, shape, 23, log)


def kx_simple_rnn(tf, out_dir, log):
    model, shape = _sequence_model(tf, 24, tf.keras.layers.SimpleRNN(5, return_sequences=True))
    _keras_inference(tf, out_dir, "simple_rnn", model, shape, 24, log)


def kx_conv_lstm2d(tf, out_dir, log):
    model, shape = _sequence_model(tf, 25, tf.keras.layers.ConvLSTM2D(4, 3, padding="same"), shape=(3, 8, 8, 2))
    _keras_inference(tf, out_dir, "conv_lstm2d", model, shape, 25, log)


def kx_transformer_encoder(tf, out_dir, log):
    """One Transformer encoder block (post-norm, as the Keras tutorial writes it)."""
    keras = tf.keras
    keras.utils.set_random_seed(26)
    inp = keras.Input((8, 16), batch_size=2)
    a = keras.layers.MultiHeadAttention(num_heads=4, key_dim=4, dropout=0.1)(inp, inp)
    h = keras.layers.LayerNormalization(epsilon=1e-6)(inp + keras.layers.Dropout(0.1)(a))
    f = keras.layers.Dense(32, activation="relu")(h)
    f = keras.layers.Dense(16)(f)
    out = keras.layers.LayerNormalization(epsilon=1e-6)(h + keras.layers.Dropout(0.1)(f))
    model = keras.Model(inp, out)
    _keras_inference(tf, out_dir, "transformer_encoder", model, (2, 8, 16), 26, log)


# keras.applications with weights=None and 10 classes (logits), at the smallest input each accepts
APPLICATIONS = {
    "mobilenet": ("MobileNet", 32), "mobilenet_v2": ("MobileNetV2", 32), "mobilenet_v3_small": ("MobileNetV3Small", 32),
    "efficientnet_b0": ("EfficientNetB0", 32), "efficientnet_v2_b0": ("EfficientNetV2B0", 32),
    "resnet50": ("ResNet50", 32), "resnet50_v2": ("ResNet50V2", 32), "densenet121": ("DenseNet121", 32),
    "nasnet_mobile": ("NASNetMobile", 32), "vgg16": ("VGG16", 32), "convnext_tiny": ("ConvNeXtTiny", 32),
    "xception": ("Xception", 71), "inception_v3": ("InceptionV3", 75),
}


def _application(key):
    def fx(tf, out_dir, log):
        cls_name, size = APPLICATIONS[key]
        seed = 100 + sorted(APPLICATIONS).index(key)
        tf.keras.utils.set_random_seed(seed)
        model = getattr(tf.keras.applications, cls_name)(weights=None, input_shape=(size, size, 3), classes=10,
                                                           classifier_activation=None)  # logits: no saturation
        _keras_inference(tf, out_dir, key, model, (2, size, size, 3), seed, log)
    fx.__name__ = "kx_" + key
    return fx


def _train_step(tf, out_dir, name, model, x_shape, y_shape, seed, update, optimizer=None, lr=0.1, log=None,
                model_variables=None):
    """One training step: MSE loss, tape gradients, then ``update(grads)``; returns the loss.
    ``model_variables``: the model's variables to capture (default its weights)."""
    weights = model.trainable_weights

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        update(tape.gradient(loss, weights))
        return loss

    if optimizer is not None:
        optimizer.build(weights)
    cf = train_step.get_concrete_function(tf.TensorSpec(x_shape, tf.float32, name="x"),
                                          tf.TensorSpec(y_shape, tf.float32, name="y"))
    variables = list(model.weights if model_variables is None else model_variables) + \
        (list(optimizer.variables) if optimizer is not None else [])
    export_keras(tf, out_dir, name, cf, [(x_shape, -1.0, 1.0), (y_shape, -1.0, 1.0)], variables,
                 _layer_classes(tf, model), seed, stateful=True, lr=lr, log=log)


def kx_train_manual_mlp(tf, out_dir, log):
    keras = tf.keras
    keras.utils.set_random_seed(31)
    inp = keras.Input((6,), batch_size=4)
    h = keras.layers.Dense(8, activation="tanh")(inp)
    model = keras.Model(inp, keras.layers.Dense(3)(h))

    def update(grads):
        for v, g in zip(model.trainable_weights, grads):
            v.assign_sub(0.1 * g)

    _train_step(tf, out_dir, "train_manual_mlp", model, (4, 6), (4, 3), 31, update, log=log)


def kx_train_sgd_cnn(tf, out_dir, log):
    keras = tf.keras
    keras.utils.set_random_seed(32)
    inp = keras.Input((8, 8, 2), batch_size=2)
    h = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inp)
    h = keras.layers.MaxPool2D()(h)
    h = keras.layers.BatchNormalization()(h)
    model = keras.Model(inp, keras.layers.Dense(3)(keras.layers.Flatten()(h)))
    opt = keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)
    _train_step(tf, out_dir, "train_sgd_cnn", model, (2, 8, 8, 2), (2, 3), 32,
                lambda grads: opt.apply_gradients(zip(grads, model.trainable_weights)), opt, lr=0.05, log=log)


def kx_train_adam_lstm(tf, out_dir, log):
    keras = tf.keras
    keras.utils.set_random_seed(33)
    inp = keras.Input((5, 3), batch_size=2)
    model = keras.Model(inp, keras.layers.Dense(2)(keras.layers.LSTM(4)(inp)))
    opt = keras.optimizers.Adam(learning_rate=0.01)
    _train_step(tf, out_dir, "train_adam_lstm", model, (2, 5, 3), (2, 2), 33,
                lambda grads: opt.apply_gradients(zip(grads, model.trainable_weights)), opt, lr=0.01, log=log)


def kx_train_dropout_noise(tf, out_dir, log):
    """A training step through Dropout and GaussianNoise: Keras draws their masks and noise with stateless
    random ops from its seed generators' state variables (issue 18's done-when)."""
    keras = tf.keras
    keras.utils.set_random_seed(34)
    inp = keras.Input((6,), batch_size=4)
    h = keras.layers.Dense(8, activation="relu")(inp)
    h = keras.layers.GaussianNoise(0.2, seed=6)(keras.layers.Dropout(0.3, seed=5)(h))
    model = keras.Model(inp, keras.layers.Dense(3)(h))
    opt = keras.optimizers.SGD(learning_rate=0.1)
    _train_step(tf, out_dir, "train_dropout_noise", model, (4, 6), (4, 3), 34,
                lambda grads: opt.apply_gradients(zip(grads, model.trainable_weights)), opt, lr=0.1, log=log,
                model_variables=model.variables)  # with the seed generators' states


KERAS_MODELS = {
    "lstm": kx_lstm, "gru": kx_gru, "bidirectional_lstm": kx_bidirectional_lstm, "simple_rnn": kx_simple_rnn,
    "conv_lstm2d": kx_conv_lstm2d, "transformer_encoder": kx_transformer_encoder,
    **{key: _application(key) for key in APPLICATIONS},
    "train_manual_mlp": kx_train_manual_mlp, "train_sgd_cnn": kx_train_sgd_cnn, "train_adam_lstm": kx_train_adam_lstm,
    "train_dropout_noise": kx_train_dropout_noise,
}


FIXTURES = {
    "keras_mlp": fx_keras_mlp,
    "keras_mnist_mlp": fx_keras_mnist_mlp,
    "keras_cnn": fx_keras_cnn,
    "keras_attention": fx_keras_attention,
    "keras_batchnorm": fx_keras_batchnorm,
    "loss_grad": fx_loss_grad,
    "train_step": fx_train_step,
    "dequantize_matmul": fx_dequantize_matmul,
    "elementwise_zoo": fx_elementwise_zoo,
    "control_flow": fx_control_flow,
    "audio_frontend": fx_audio_frontend,
    "image_pipeline": fx_image_pipeline,
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "fixtures"))
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args(argv)

    import tensorflow as tf  # only here: never imported by pytest collection

    os.makedirs(args.out, exist_ok=True)
    print("TensorFlow", tf.__version__, "keras", getattr(tf.keras, "__version__", "?"))
    log = []
    failed = []
    for name, fn in {**FIXTURES, **REFERENCES, **KERAS_MODELS}.items():
        if args.only and name not in args.only:
            continue
        try:
            fn(tf, args.out, log)
        except Exception as e:  # keep going with the other fixtures
            failed.append(name)
            print("[%s] FAILED: %s: %s" % (name, type(e).__name__, e))
    for name, how, arrays in log:
        print(name, how)
        for k, dt, shape in arrays:
            print("   %-12s %-8s %s" % (k, dt, shape))
    if failed:
        print("failed:", failed)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
