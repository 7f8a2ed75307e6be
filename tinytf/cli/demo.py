"""``tinytf demo``: a tour of tinytf in under a minute, one small MLP taken through every layer.

    tinytf demo [--quick] [--steps N] [--full-mlir]        (make demo)

1. an MLP on synthetic data; 2. trained eagerly, as ``tt.function`` and with ``jit_compile=True``;
3. its gradients checked; 4. its traced MLIR; 5. the cluster pipeline and its ``tf.aliasing_output``
marks; 6. the cluster compiled by XLA, with the bytes that donation saved; 7. int8 weights, compared;
8. a gradient through a data-dependent loop (tt.while_loop) in all three modes.
Each step says in one line what it demonstrates. A step that fails (an error, or a claim it checks
that does not hold) prints one "FAILED" line naming the step and the error, and the tour goes on; a
step that builds on a failed one says it is skipped. The exit status is 1 unless every step ran.
"""
from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from rich.markup import escape

SPARK = "▁▂▃▄▅▆▇█"
CLUSTER_PIPELINE = ("tf-device-cluster-function-body", "tf-device-cluster-outlining", "tf-device-mark-input-output-aliases")


class StepFailed(Exception):
    """A step ran to its end, but part of it failed or a claim it checks does not hold."""


class Skipped(Exception):
    """The step builds on an earlier step that failed."""


def describe(err: Exception) -> str:
    """An exception in one line: its type (unless a StepFailed) and the first line of its message."""
    first = (str(err).strip().splitlines() or [""])[0]
    return first if isinstance(err, StepFailed) else f"{type(err).__name__}: {first}"


def sparkline(values, width: int = 20) -> str:
    """The values as a row of bars, at most ``width`` of them (evenly picked, the last one kept)."""
    values = list(values)
    if len(values) > width:
        values = [values[round(i * (len(values) - 1) / (width - 1))] for i in range(width)]
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    return "".join(SPARK[min(int((v - lo) / span * len(SPARK)), len(SPARK) - 1)] for v in values)


def mlp(tt, x, w1, b1, w2, b2):
    """8 -> 64 (tanh) -> 1."""
    hidden = tt.tanh(tt.nn.bias_add(tt.matmul(x, w1), b1))
    return tt.nn.bias_add(tt.matmul(hidden, w2), b2)


def mse(tt, x, y, *params):
    return tt.reduce_mean(tt.square(mlp(tt, x, *params) - y))


def forward_pass(tour):
    def forward(x):
        return mlp(tour.tt, x, *tour.variables)

    return forward


@dataclass
class Tour:
    console: object
    steps: int
    full_mlir: bool = False
    traceback: bool = False
    logdir: str | None = None
    status: dict = field(default_factory=dict)
    losses: dict = field(default_factory=dict)

    def step(self, number: int, title: str, demonstrates: str, body) -> None:
        """Run one step; ``status[number]`` becomes "ok", "skipped: ..." or "failed: ..."."""
        self.console.rule(f"[bold]{number}. {title}")
        self.console.print(f"[dim]demonstrates:[/] {demonstrates}")
        try:
            body(self)
            self.status[number] = "ok"
        except Skipped as err:
            self.status[number] = f"skipped: {err}"
            self.console.print(f"[yellow]skipped:[/] step {number} ({escape(title)}): {escape(str(err))}")
        except Exception as err:  # one line, and the tour goes on: the exit status reports it
            self.status[number] = f"failed: {describe(err)}"
            self.console.print(f"[bold red]FAILED:[/] step {number} ({escape(title)}): {escape(describe(err))}")
            if self.traceback and not isinstance(err, StepFailed):
                self.console.print_exception()

    def requires(self, attr: str, step: int) -> None:
        """Skip this step when ``attr``, made by step ``step``, is missing (that step failed)."""
        if not hasattr(self, attr):
            raise Skipped(f"needs step {step} ({STEPS[step - 1][0]}), which failed")


# --- the steps -------------------------------------------------------------------------------------

def build(tour: Tour) -> None:
    import tinytf as tt

    rng = np.random.default_rng(0)
    tour.x = rng.standard_normal((256, 8)).astype(np.float32)
    tour.y = (np.sin(tour.x[:, :4].sum(1, keepdims=True)) + 0.5 * tour.x[:, 4:5] ** 2).astype(np.float32)
    tour.init = {"w1": (rng.standard_normal((8, 64)) / np.sqrt(8)).astype(np.float32),
                 "b1": np.zeros(64, np.float32),
                 "w2": (rng.standard_normal((64, 1)) / 8).astype(np.float32),
                 "b2": np.zeros(1, np.float32)}
    tour.variables = [tt.Variable(v, name=k) for k, v in tour.init.items()]
    tour.xt, tour.yt = tt.constant(tour.x), tt.constant(tour.y)

    def train_step(x, y):
        with tt.GradientTape() as tape:
            loss = mse(tt, x, y, *tour.variables)
        grads = tape.gradient(loss, tour.variables)
        for v, g in zip(tour.variables, grads):
            v.assign_sub(0.1 * g)  # plain SGD
        return loss

    tour.train_step = train_step
    tour.tt = tt  # the model is built: the later steps require this
    from rich.table import Table

    table = Table("variable", "shape", "parameters", title="MLP 8 -> 64 (tanh) -> 1")
    for name, value in tour.init.items():
        table.add_row(name, str(list(value.shape)), str(value.size))
    table.add_row("[bold]total", "", f"[bold]{sum(v.size for v in tour.init.values())}")
    tour.console.print(table)
    tour.console.print(f"data: x {list(tour.x.shape)} float32 ~ N(0, 1), y = sin(x0+x1+x2+x3) + x4²/2; "
                       "loss: mean squared error")


def run_mode(tour: Tour, fn) -> tuple[list[float], float, float]:
    """Train from the initial weights: the losses, the first call's seconds, the seconds per later step."""
    for v, value in zip(tour.variables, tour.init.values()):  # every mode starts from the same weights
        v.assign(value)
    start = time.perf_counter()
    losses = [float(fn(tour.xt, tour.yt).numpy())]
    first = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(tour.steps - 1):
        losses.append(float(fn(tour.xt, tour.yt).numpy()))
    return losses, first, (time.perf_counter() - start) / max(tour.steps - 1, 1)


def train(tour: Tour) -> None:
    from rich.table import Table

    tour.requires("tt", 1)
    tt = tour.tt
    modes = [("eager", lambda: tour.train_step), ("tt.function", lambda: tt.function(tour.train_step)),
             ("jit_compile=True", lambda: tt.function(tour.train_step, jit_compile=True))]
    table = Table("mode", "first call", "per step", "loss: first -> last", "loss curve")
    failed = []
    for label, make in modes:
        try:  # a mode that fails is named in the step's FAILED line; the others still train
            fn = make()
            losses, first, per_step = run_mode(tour, fn)
        except Exception as err:
            failed.append(f"{label}: {describe(err)}")
            continue
        tour.losses[label] = losses
        table.add_row(label, f"{first * 1e3:.0f} ms", f"{per_step * 1e3:.2f} ms",
                      f"{losses[0]:.4f} -> [green]{losses[-1]:.4f}", sparkline(losses))
        if label == "tt.function":
            tour.train_function = fn
    tour.console.print(table)
    if "eager" in tour.losses:
        eager = np.array(tour.losses["eager"])
        for label in list(tour.losses)[1:]:
            other = np.array(tour.losses[label])
            same = bool(np.allclose(eager, other, rtol=1e-4, atol=1e-6))
            name = "graph" if label == "tt.function" else "xla"
            failed += [] if same else [f"eager != {name}"]
            tour.console.print(f"eager == {name}: [{'green' if same else 'red'}]{same}[/] (largest loss difference "
                               f"over {tour.steps} steps: {np.abs(eager - other).max():.1e})")
        fell = eager[-1] < eager[0]
        failed += [] if fell else ["the loss did not fall"]
        tour.console.print(f"loss fell: [{'green' if fell else 'red'}]{fell}[/] ({eager[0]:.4f} -> {eager[-1]:.4f} "
                           f"in {tour.steps} SGD steps); 'first call' includes tracing and, for XLA, compiling")
    if tour.losses:
        write_log(tour)
    if failed:
        raise StepFailed("; ".join(failed))


def write_log(tour: Tour) -> None:
    """Each mode's loss curve (loss/eager, loss/tt.function, ...) and the traced step's graph, as
    TensorBoard event files."""
    tt = tour.tt
    tour.logdir = tour.logdir or tempfile.mkdtemp(prefix="tinytf-demo-logs-")
    writer = tt.summary.create_file_writer(tour.logdir)
    with writer.as_default():
        for label, losses in tour.losses.items():
            for step, loss in enumerate(losses):
                tt.summary.scalar(f"loss/{label}", loss, step=step)
        if getattr(tour, "train_function", None) is not None:
            tt.summary.graph(tour.train_function.get_concrete_function(tour.xt, tour.yt))
    writer.flush()
    tour.console.print(f"TensorBoard log of the losses and the traced step: tensorboard --logdir {tour.logdir}")


def gradients(tour: Tour) -> None:
    from rich.table import Table

    from tinytf.gradcheck import check_gradients

    tour.requires("tt", 1)
    tt = tour.tt
    x, y = tour.x[:32], tour.y[:32]

    def model(w1, b1, w2, b2):
        return mse(tt, tt.constant(x), tt.constant(y), w1, b1, w2, b2)

    params = list(tour.init.values())
    failed = []
    for mode in ("full", "fast"):
        report = check_gradients(model, params, mode=mode, raise_exception=False)
        failed += [] if report.ok else [mode]
        table = Table("input", "shape", "dtype", "checked", "max abs err", "max rel err", "result",
                      title=report.header())
        names = list(tour.init)
        for row in report.rows():
            row[0] = names[int(row[0])]
            row[-1] = f"[green]{row[-1]}" if row[-1] == "ok" else f"[red]{row[-1]}"
            table.add_row(*row)
        tour.console.print(table)
    tour.console.print("full: every weight element by central differences, the perturbed models evaluated as "
                       "batches; fast: one random projection uᵀJv per input")
    if failed:
        raise StepFailed(f"the {' and '.join(failed)} gradient check failed")


def traced_mlir(tour: Tour) -> None:
    from rich.syntax import Syntax

    tour.requires("train_function", 2)
    tt = tour.tt
    forward = tt.function(forward_pass(tour))
    cf = forward.get_concrete_function(tt.TensorSpec([None, 8], tt.float32))
    tour.console.print("the forward pass, traced by tt.function (variables become resource arguments):")
    tour.console.print(Syntax(cf.mlir().rstrip(), "mlir", word_wrap=True))
    loaded = tt.load_mlir(cf.mlir())  # the text parses back, and runs with the weights as arguments
    (out,) = loaded.run(tour.x, *[v.numpy() for v in cf.captured_variables])
    same = bool(np.allclose(out, mlp(tt, tour.xt, *tour.variables).numpy(), rtol=1e-5, atol=1e-6))
    tour.console.print(f"tt.load_mlir(text).run(x, *weights) == the eager forward pass: "
                       f"[{'green' if same else 'red'}]{same}[/]")
    tour.train_cf = tour.train_function.get_concrete_function(tour.xt, tour.yt)
    text = tour.train_cf.mlir()
    ops = Counter(re.findall(r'"(tf\.\w+)"', text))
    summary = ", ".join(f"{n} {name}" for name, n in ops.most_common())
    tour.console.print(f"the training step (forward, tape gradient, SGD update): {sum(ops.values())} ops: {summary}")
    if tour.full_mlir:
        tour.console.print(Syntax(text.rstrip(), "mlir", word_wrap=True))
    if not same:
        raise StepFailed("the reloaded MLIR's output differs from the eager forward pass")


def cluster(tour: Tour) -> None:
    from rich.syntax import Syntax
    from rich.table import Table
    from xdsl.dialects import func

    import tinytf.mlir as mlir
    from tinytf.passes import ClusterFunctionBody, ClusterOutlining, MarkInputOutputAliases

    tour.requires("train_cf", 4)
    module = tour.train_cf.module.clone()
    start = time.perf_counter()
    for cls in (ClusterFunctionBody, ClusterOutlining, MarkInputOutputAliases):
        cls().apply(mlir.context(), module)
    seconds = time.perf_counter() - start
    tour.console.print(f"{' -> '.join(CLUSTER_PIPELINE)}: {seconds * 1e3:.0f} ms")
    functions = [op for op in module.body.block.ops if isinstance(op, func.FuncOp)]
    callee = next(f for f in functions if f.sym_visibility is not None and f.sym_visibility.data == "private")
    entry = next(f for f in functions if f is not callee)
    tour.console.print(f"the step after the pipeline: reads, one tf_device.cluster_func, writes "
                       f"(the computation is outlined into @{callee.sym_name.data}):")
    tour.console.print(Syntax(mlir.print(entry).rstrip(), "mlir", word_wrap=True))
    table = Table("callee argument", "type", "tf.aliasing_output")
    marked = 0
    for i, arg in enumerate(callee.body.block.args):
        attrs = callee.arg_attrs.data[i].data if callee.arg_attrs is not None else {}
        alias = attrs.get("tf.aliasing_output")
        marked += alias is not None  # (an IntegerAttr of 0 is falsy: compare with None)
        table.add_row(f"%arg{i}", str(arg.type), "—" if alias is None else f"[green]-> output {alias.value.data}")
    tour.console.print(table)
    tour.console.print(f"{marked} of {len(callee.body.block.args)} arguments marked: each updated weight's new "
                       "value may be written into the buffer its old value came in")
    tour.clustered, tour.callee = module, callee.sym_name.data
    if not marked:
        raise StepFailed("no argument was marked tf.aliasing_output")


def xla_compile(tour: Tour) -> None:
    from rich.syntax import Syntax
    from rich.table import Table

    import tinytf.xla as xla

    tour.requires("clustered", 5)
    start = time.perf_counter()
    result = xla.compile(tour.clustered, entry=tour.callee)
    seconds = time.perf_counter() - start
    tour.console.print(f"tt.xla.compile(@{tour.callee}): {seconds:.2f} s; TensorFlow's compile result:")
    tour.console.print(Syntax(str(result).rstrip(), "cpp", word_wrap=True))
    plain = xla.compile(tour.clustered, entry=tour.callee, donate=False)
    on, off = result.memory_analysis(), plain.memory_analysis()
    table = Table("XLA memory analysis (bytes)", "arguments", "outputs", "aliased (reused)", "temporaries",
                  title="with and without donating the tf.aliasing_output arguments")
    for label, ma in (("donated", on), ("not donated", off)):
        table.add_row(label, str(ma.argument_size_in_bytes), str(ma.output_size_in_bytes),
                      str(ma.alias_size_in_bytes), str(ma.temp_size_in_bytes))
    tour.console.print(table)
    saved = on.alias_size_in_bytes - off.alias_size_in_bytes
    tour.console.print(f"donation saved [bold green]{saved} bytes[/] of output buffers per step: arguments "
                       f"{sorted(result.donated)} are donated, and XLA writes the updated weights into them")
    if saved <= 0:
        raise StepFailed("donating the marked arguments saved no output buffers")


def quantize(tour: Tour) -> None:
    from rich.table import Table

    from tinytf.loaded_module import LoadedModule
    from tinytf.quantization import constant_bytes, freeze_variables, quantize_weights

    tour.requires("tt", 1)
    tt = tour.tt
    forward = tt.function(forward_pass(tour))
    cf = forward.get_concrete_function(tt.TensorSpec(list(tour.x.shape), tt.float32))
    weights = [v.numpy() for v in cf.captured_variables]  # the trained weights
    float_module = cf.module.clone()
    freeze_variables(float_module, weights)
    int8_module = float_module.clone()
    sites = quantize_weights(int8_module, min_elements=256)
    (f_out,) = LoadedModule(float_module).run(tour.x)
    (q_out,) = LoadedModule(int8_module).run(tour.x)
    f_loss, q_loss = float(np.mean((f_out - tour.y) ** 2)), float(np.mean((q_out - tour.y) ** 2))
    table = Table("model", "weight bytes", "loss", "max |output - float output|")
    table.add_row("float32 (variables frozen)", str(constant_bytes(float_module)), f"{f_loss:.5f}", "0")
    table.add_row("int8 weights", str(constant_bytes(int8_module)), f"{q_loss:.5f}",
                  f"{np.abs(q_out - f_out).max():.2e}")
    tour.console.print(table)
    for site in sites:
        tour.console.print(f"quantized: {site.op} weight {list(site.shape)}, per-channel axes {list(site.channel_axes)}"
                           f": {site.float_bytes} -> {site.int8_bytes} bytes")
    tour.console.print("tf-freeze-variables then tf-quantize-weights{min-elements=256}: weights with at least 256 "
                       "elements stored as int8 and dequantized in the graph")


def control_flow(tour: Tour) -> None:
    from rich.table import Table

    tour.requires("tt", 1)
    tt = tour.tt
    rng = np.random.default_rng(1)
    w = tt.Variable((rng.standard_normal((8, 8)) / np.sqrt(8.0)).astype(np.float32))
    x = tt.constant(rng.standard_normal((4, 8)).astype(np.float32))

    def grad(x, n):  # n steps of h = tanh(h @ W + x), then d sum(h^2) / dW
        with tt.GradientTape() as tape:
            _, h = tt.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, tt.tanh(h @ w + x)), [0, x],
                                 maximum_iterations=100)
            loss = tt.reduce_sum(h * h)
        return loss, tape.gradient(loss, w)

    n = tt.constant(np.int32(20))
    table = Table("mode", "loss", "|dL/dW|", "first call")
    results = {}
    for name, fn in (("eager", grad), ("tt.function", tt.function(grad)),
                     ("jit_compile=True", tt.function(grad, jit_compile=True))):
        start = time.perf_counter()
        loss, dw = fn(x, n)
        results[name] = np.asarray(dw)
        table.add_row(name, f"{float(loss):.5f}", f"{np.linalg.norm(results[name]):.5f}",
                      f"{(time.perf_counter() - start) * 1e3:.0f} ms")
    tour.console.print(table)
    loops = tt.function(grad).get_concrete_function(x, n).mlir().count('"tf.While"')
    same = all(np.allclose(results["eager"], r, rtol=1e-4, atol=1e-6) for r in results.values())
    tour.console.print(f"eager == graph == XLA gradients: [{'green' if same else 'red'}]{same}[/]; the traced "
                       f"function holds {loops} tf.While ops (the loop, pushing what the gradient reads on "
                       "TensorLists, and the backward loop reading them) and their bodies as private functions")
    if not same:
        raise StepFailed("the loop's gradients differ between eager, graph and XLA")


STEPS = [
    ("a small MLP on synthetic data", "tinytf's Variables and ops have TensorFlow's names and semantics", build),
    ("train it: eager, tt.function, jit_compile=True",
     "one training step (GradientTape + SGD) runs op by op, as a traced graph, and compiled by XLA, with the "
     "same losses", train),
    ("check its gradients", "tinytf.gradcheck compares the tape's gradients with finite differences, vectorised",
     gradients),
    ("its traced MLIR", "tt.function traces Python into TensorFlow's MLIR dialect, text that TensorFlow reads",
     traced_mlir),
    ("the cluster pipeline", "TensorFlow's bridge passes outline the computation and mark which outputs may reuse "
     "input buffers", cluster),
    ("compile the cluster with XLA", "tt.xla.compile gives TensorFlow's compile result and donates the marked "
     "buffers", xla_compile),
    ("quantize to int8", "weight-only int8 quantization stores the large weights in a quarter of the bytes and keeps the "
     "outputs close",
     quantize),
    ("differentiate through a loop", "tt.while_loop runs as a Python loop eagerly and as tf.While in a graph or "
     "under XLA, and the tape differentiates it in every mode", control_flow),
]


def main(argv: Sequence[str] | None = None, console=None) -> int:
    """Run the tour; ``console``: a rich Console to print to (default: the terminal)."""
    from rich.console import Console

    parser = argparse.ArgumentParser(prog="tinytf demo", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer training steps")
    parser.add_argument("--steps", type=int, help="training steps per mode (default 30, 10 with --quick)")
    parser.add_argument("--full-mlir", action="store_true", help="also print the whole traced training step")
    parser.add_argument("--traceback", action="store_true", help="print the traceback of a step that fails")
    parser.add_argument("--logdir", help="where the TensorBoard log goes (default: a new temporary directory)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if console is None:
        console = Console()
        if not console.is_terminal:  # piped or captured: wide enough for the tables
            console.width = max(console.width, 120)
    tour = Tour(console, max(args.steps or (10 if args.quick else 30), 2), args.full_mlir, args.traceback, logdir=args.logdir)
    start = time.perf_counter()
    console.print("[bold]tinytf demo[/]: one small MLP through eager and graph mode, autodiff, the MLIR "
                  "compiler passes, XLA and int8 quantization")
    for number, (title, demonstrates, body) in enumerate(STEPS, 1):
        tour.step(number, title, demonstrates, body)
    ran = sum(1 for s in tour.status.values() if s == "ok")
    console.rule()
    console.print(f"{ran} of {len(STEPS)} steps ran in {time.perf_counter() - start:.1f} s")
    for kind in ("failed", "skipped"):
        steps = [f"{n}. {STEPS[n - 1][0]}" for n, s in tour.status.items() if s.startswith(kind)]
        if steps:
            console.print(f"[{'bold red' if kind == 'failed' else 'yellow'}]{kind}:[/] {'; '.join(steps)}")
    return 0 if ran == len(STEPS) else 1
