"""tf-device-decompose-resource-ops keeps what each composite resource op computes: the decomposed
function, run by the graph executor, updates the variables as the op's update formula says (and as
tinytf's own kernel of the op does, where it has one)."""
import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.loaded_module import LoadedModule
from tinytf.passes import DecomposeResourceOps
from tinytf.passes.symbols import op_name

TYPES = {"var": "tensor<!tf_type.resource<tensor<4xf32>>>", "scalar": "tensor<f32>", "vec": "tensor<4xf32>"}
RNG = np.random.default_rng(7)


def program(op: str, operands: list[tuple[str, str]], attrs: str = "") -> str:
    """``@main`` taking ``operands`` (name, kind) in order and applying ``op`` to them."""
    args = ", ".join(f"%{n}: {TYPES[k]}" for n, k in operands)
    types = ", ".join(TYPES[k] for _, k in operands)
    return f"""func.func @main({args}) {{
  "{op}"({", ".join("%" + n for n, _ in operands)}) {{{attrs}}} : ({types}) -> ()
  func.return
}}"""


def run(text: str, operands: list[tuple[str, str]], values: dict, decompose: bool = True) -> dict:
    """The variables' values after running @main (decomposed first, unless told not to)."""
    module = mlir.parse(text)
    if decompose:
        DecomposeResourceOps().apply(mlir.context(), module)
        mlir.verify(module)
        left = {op_name(op) for op in module.walk()} - {"tf.ReadVariableOp", "tf.AssignVariableOp"}
        assert not [n for n in left if "Resource" in n or "VariableOp" in n], left
    variables = {n: tt.Variable(np.array(values[n], np.float32)) for n, k in operands if k == "var"}
    LoadedModule(module).run(*[variables[n] if k == "var" else np.asarray(values[n], np.float32)
                               for n, k in operands])
    return {n: v.numpy() for n, v in variables.items()}


def check(got: dict, want: dict):
    assert got.keys() == want.keys()
    for name in want:
        assert np.isfinite(want[name]).all(), name
        np.testing.assert_allclose(got[name], want[name], rtol=2e-5, atol=1e-6, err_msg=name)


def positive():
    return RNG.uniform(0.5, 2.0, 4).astype(np.float32)


def signed():
    return RNG.normal(size=4).astype(np.float32)


# Each case: op, operands, attributes, inputs, the update formula (TensorFlow's documentation of the op).
def gradient_descent(d):
    return {"var": d["var"] - d["alpha"] * d["g"]}


def momentum(nesterov):
    def formula(d):
        accum = d["accum"] * d["mom"] + d["g"]
        step = d["g"] * d["lr"] + accum * d["mom"] * d["lr"] if nesterov else accum * d["lr"]
        return {"var": d["var"] - step, "accum": accum}
    return formula


def keras_momentum(nesterov):
    def formula(d):
        accum = d["accum"] * d["mom"] - d["lr"] * d["g"]
        step = accum * d["mom"] - d["lr"] * d["g"] if nesterov else accum
        return {"var": d["var"] + step, "accum": accum}
    return formula


def adagrad(epsilon):
    def formula(d):
        accum = d["accum"] + d["g"] ** 2
        return {"var": d["var"] - d["lr"] * d["g"] / (np.sqrt(accum) + d.get("eps", 0.0) * epsilon), "accum": accum}
    return formula


def adam(nesterov):
    def formula(d):
        lr_t = d["lr"] * np.sqrt(1 - d["b2p"]) / (1 - d["b1p"])
        m = d["b1"] * d["m"] + (1 - d["b1"]) * d["g"]
        v = d["b2"] * d["v"] + (1 - d["b2"]) * d["g"] ** 2
        m_used = m * d["b1"] + (1 - d["b1"]) * d["g"] if nesterov else m
        return {"var": d["var"] - lr_t * m_used / (np.sqrt(v) + d["eps"]), "m": m, "v": v}
    return formula


def rms_prop(d):
    ms = d["rho"] * d["ms"] + (1 - d["rho"]) * d["g"] ** 2
    mom = d["momentum"] * d["mom"] + d["lr"] * d["g"] / np.sqrt(ms + d["eps"])
    return {"var": d["var"] - mom, "ms": ms, "mom": mom}


def centered_rms_prop(d):
    mg = d["rho"] * d["mg"] + (1 - d["rho"]) * d["g"]
    ms = d["rho"] * d["ms"] + (1 - d["rho"]) * d["g"] ** 2
    mom = d["momentum"] * d["mom"] + d["lr"] * d["g"] / np.sqrt(ms - mg ** 2 + d["eps"])
    return {"var": d["var"] - mom, "mg": mg, "ms": ms, "mom": mom}


def proximal_adagrad(d):
    accum = d["accum"] + d["g"] ** 2
    rate = d["lr"] / np.sqrt(accum)
    prox = d["var"] - rate * d["g"]
    shrunk = np.sign(prox) * np.maximum(np.abs(prox) - rate * d["l1"], 0) if d["l1"] > 0 else prox
    return {"var": shrunk / (1 + rate * d["l2"]), "accum": accum}


def ftrl(shrinkage):
    def formula(d):
        g_s = d["g"] + 2 * d.get("l2s", 0.0) * d["var"] if shrinkage else d["g"]
        accum = d["accum"] + d["g"] ** 2
        p = -d["lr_power"]
        linear = d["linear"] + g_s - (accum ** p - d["accum"] ** p) / d["lr"] * d["var"]
        quadratic = accum ** p / d["lr"] + 2 * d["l2"]
        var = np.where(np.abs(linear) > d["l1"], (np.sign(linear) * d["l1"] - linear) / quadratic, 0.0)
        return {"var": var, "accum": accum, "linear": linear}
    return formula


V, S, G = "var", "scalar", "vec"
CASES = {
    "gradient_descent": ("tf.ResourceApplyGradientDescent", [("var", V), ("alpha", S), ("g", G)], "",
                         gradient_descent, True),
    **{f"momentum_nesterov_{n}": ("tf.ResourceApplyMomentum", [("var", V), ("accum", V), ("lr", S), ("g", G), ("mom", S)],
                                  f"use_nesterov = {str(n).lower()}", momentum(n), True) for n in (False, True)},
    **{f"keras_momentum_nesterov_{n}": ("tf.ResourceApplyKerasMomentum",
                                        [("var", V), ("accum", V), ("lr", S), ("g", G), ("mom", S)],
                                        f"use_nesterov = {str(n).lower()}", keras_momentum(n), False) for n in (False, True)},
    "adagrad": ("tf.ResourceApplyAdagrad", [("var", V), ("accum", V), ("lr", S), ("g", G)], "", adagrad(False), False),
    "adagrad_v2": ("tf.ResourceApplyAdagradV2", [("var", V), ("accum", V), ("lr", S), ("eps", S), ("g", G)], "",
                   adagrad(True), False),
    **{f"adam_nesterov_{n}": ("tf.ResourceApplyAdam", [("var", V), ("m", V), ("v", V), ("b1p", S), ("b2p", S), ("lr", S),
                                                        ("b1", S), ("b2", S), ("eps", S), ("g", G)],
                              f"use_nesterov = {str(n).lower()}", adam(n), True) for n in (False, True)},
    "rms_prop": ("tf.ResourceApplyRMSProp", [("var", V), ("ms", V), ("mom", V), ("lr", S), ("rho", S), ("momentum", S),
                                             ("eps", S), ("g", G)], "", rms_prop, False),
    "centered_rms_prop": ("tf.ResourceApplyCenteredRMSProp", [("var", V), ("mg", V), ("ms", V), ("mom", V), ("lr", S),
                                                              ("rho", S), ("momentum", S), ("eps", S), ("g", G)], "",
                          centered_rms_prop, False),
    "proximal_adagrad": ("tf.ResourceApplyProximalAdagrad", [("var", V), ("accum", V), ("lr", S), ("l1", S), ("l2", S),
                                                             ("g", G)], "", proximal_adagrad, False),
    "ftrl": ("tf.ResourceApplyFtrl", [("var", V), ("accum", V), ("linear", V), ("g", G), ("lr", S), ("l1", S), ("l2", S),
                                      ("lr_power", S)], "multiply_linear_by_lr = false", ftrl(False), False),
    "ftrl_v2": ("tf.ResourceApplyFtrlV2", [("var", V), ("accum", V), ("linear", V), ("g", G), ("lr", S), ("l1", S),
                                           ("l2", S), ("l2s", S), ("lr_power", S)], "multiply_linear_by_lr = false",
                ftrl(True), False),
}
SCALARS = {"alpha": 0.1, "lr": 0.05, "mom": 0.9, "eps": 1e-3, "b1p": 0.9 ** 3, "b2p": 0.999 ** 3, "b1": 0.9, "b2": 0.999,
           "rho": 0.8, "momentum": 0.5, "l1": 0.01, "l2": 0.2, "l2s": 0.05, "lr_power": -0.5}


@pytest.mark.parametrize("case", list(CASES))
def test_decomposed_update_equals_formula(case):
    op, operands, attrs, formula, has_kernel = CASES[case]
    values = {n: (SCALARS[n] if k == S else signed() if n in ("var", "g", "linear") else positive())
              for n, k in operands}
    if "mg" in values:  # a centered second moment needs ms >= mg^2
        values["mg"] = 0.3 * signed()
    want = {n: np.asarray(x, np.float32) for n, x in formula({n: np.float64(x) if np.ndim(x) == 0 else
                                                               x.astype(np.float64) for n, x in values.items()}).items()}
    text = program(op, operands, attrs)
    check(run(text, operands, values), want)
    if has_kernel:  # tinytf's own kernel of the op agrees
        check(run(text, operands, values, decompose=False), want)


def test_proximal_adagrad_without_l1_keeps_the_sign_of_the_step():
    op, operands, attrs, formula, _ = CASES["proximal_adagrad"]
    values = {"var": signed(), "accum": positive(), "lr": 0.05, "l1": 0.0, "l2": 0.2, "g": signed()}
    check(run(program(op, operands, attrs), operands, values), formula(values))


@pytest.mark.parametrize("combine", ["tf.AssignAddVariableOp", "tf.AssignSubVariableOp"])
def test_assign_add_and_sub(combine):
    operands = [("var", V), ("g", G)]
    values = {"var": signed(), "g": signed()}
    text = program(combine, operands)
    want = values["var"] + values["g"] if combine == "tf.AssignAddVariableOp" else values["var"] - values["g"]
    check(run(text, operands, values), {"var": want})
    check(run(text, operands, values, decompose=False), {"var": want})


def test_gather_and_scatter_update_read_and_write_the_variable():
    text = """func.func @main(%v: tensor<!tf_type.resource<tensor<5x2xf32>>>, %i: tensor<3xi32>, %u: tensor<3x2xf32>)
        -> tensor<3x2xf32> {
  %0 = "tf.ResourceGather"(%v, %i) : (tensor<!tf_type.resource<tensor<5x2xf32>>>, tensor<3xi32>) -> tensor<3x2xf32>
  "tf.ResourceScatterUpdate"(%v, %i, %u) : (tensor<!tf_type.resource<tensor<5x2xf32>>>, tensor<3xi32>, tensor<3x2xf32>) -> ()
  func.return %0 : tensor<3x2xf32>
}"""
    module = mlir.parse(text)
    DecomposeResourceOps().apply(mlir.context(), module)
    mlir.verify(module)
    assert not [op for op in module.walk() if "Resource" in op_name(op)]
    start = RNG.normal(size=(5, 2)).astype(np.float32)
    index, update = np.array([4, 0, 2], np.int32), RNG.normal(size=(3, 2)).astype(np.float32)
    v = tt.Variable(start.copy())
    (out,) = LoadedModule(module).run(v, index, update)
    want = start.copy()
    want[index] = update
    np.testing.assert_array_equal(out, start[index])  # the gather read the variable before the update
    np.testing.assert_array_equal(v.numpy(), want)


def test_scatter_add_becomes_a_tensor_scatter_add_of_the_value():
    text = """func.func @main(%v: tensor<!tf_type.resource<tensor<5x2xf32>>>, %i: tensor<2xi32>, %u: tensor<2x2xf32>) {
  "tf.ResourceScatterAdd"(%v, %i, %u) : (tensor<!tf_type.resource<tensor<5x2xf32>>>, tensor<2xi32>, tensor<2x2xf32>) -> ()
  func.return
}"""
    module = mlir.parse(text)
    DecomposeResourceOps().apply(mlir.context(), module)
    ops = {op_name(op): op for op in module.walk()}
    assert "tf.ResourceScatterAdd" not in ops
    expand, scatter, assign = ops["tf.ExpandDims"], ops["tf.TensorScatterAdd"], ops["tf.AssignVariableOp"]
    assert str(expand.results[0].type) == "tensor<2x1xi32>"  # each index becomes a one-element index vector
    assert scatter.operands[0].owner is ops["tf.ReadVariableOp"] and scatter.operands[1] is expand.results[0]
    assert assign.operands[1] is scatter.results[0]


def test_variable_shape_and_an_untyped_resource():
    text = """func.func @main(%v: tensor<!tf_type.resource<tensor<3x2xf32>>>, %w: tensor<!tf_type.resource>)
        -> (tensor<2xi64>, tensor<2xi32>) {
  %0 = "tf.VariableShape"(%v) : (tensor<!tf_type.resource<tensor<3x2xf32>>>) -> tensor<2xi64>
  %1 = "tf.VariableShape"(%w) : (tensor<!tf_type.resource>) -> tensor<2xi32>
  func.return %0, %1 : tensor<2xi64>, tensor<2xi32>
}"""
    module = mlir.parse(text)
    DecomposeResourceOps().apply(mlir.context(), module)
    names = [op_name(op) for op in module.walk()]
    assert names.count("tf.VariableShape") == 1 and "tf.Shape" in names  # no subtype: nothing to read the shape from
    shape = next(op for op in module.walk() if op_name(op) == "tf.Shape")
    assert str(shape.results[0].type) == "tensor<2xi64>"


def test_rng_read_and_skip_equals_the_kernel():
    text = """func.func @main(%s: tensor<!tf_type.resource<tensor<3xi64>>>) -> tensor<3xi64> {
  %alg = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %delta = "tf.Const"() <{value = dense<10> : tensor<ui64>}> : () -> tensor<ui64>
  %0 = "tf.RngReadAndSkip"(%s, %alg, %delta) : (tensor<!tf_type.resource<tensor<3xi64>>>, tensor<i32>, tensor<ui64>) -> tensor<3xi64>
  func.return %0 : tensor<3xi64>
}"""
    start = np.array([-3, 7, 12345], np.int64)  # the low word wraps past 2^64: the carry reaches the high word
    results = []
    for decompose in (False, True):
        module = mlir.parse(text)
        if decompose:
            DecomposeResourceOps().apply(mlir.context(), module)
            assert "tf.RngReadAndSkip" not in {op_name(op) for op in module.walk()}
        v = tt.Variable(start.copy())
        (out,) = LoadedModule(module).run(v)
        results.append((out, v.numpy()))
    np.testing.assert_array_equal(results[0][0], start)
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_array_equal(results[1][1], results[0][1])
    assert results[1][1][0] != start[0] and results[1][1][1] == start[1] + 1
