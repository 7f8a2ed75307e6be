"""tt.experimental.dtensor: layouts become NamedShardings on an Auto-axis mesh; XLA's partitioner runs
data parallel, FSDP-style sharded weights and Megatron-style tensor parallel training steps, each equal
to one device (8 simulated CPU devices, in a subprocess)."""

import numpy as np
import pytest
from multi_device import run_on_devices  # tests/unit, beside this file


@pytest.fixture(scope="module")
def layouts():
    return run_on_devices("""
import json
import numpy as np
import tinytf as tt
from tinytf.experimental import dtensor

rng = np.random.default_rng(1)
W1 = rng.normal(size=(16, 32)).astype(np.float32) * 0.3
B1 = np.zeros(32, np.float32)
W2 = rng.normal(size=(32, 8)).astype(np.float32) * 0.3
X = rng.normal(size=(5, 64, 16)).astype(np.float32)
Y = rng.normal(size=(5, 64, 8)).astype(np.float32)


def train(make_var, place):
    w1, b1, w2 = make_var(W1, "w1"), make_var(B1, "b1"), make_var(W2, "w2")
    opt = tt.optimizers.SGD(0.1)

    @tt.function(jit_compile=True)
    def step(x, y):
        with tt.GradientTape() as tape:
            h = tt.nn.relu(x @ w1 + b1)
            loss = tt.math.reduce_mean(tt.math.reduce_sum(tt.square(h @ w2 - y), axis=1))
        opt.apply_gradients(zip(tape.gradient(loss, [w1, b1, w2]), [w1, b1, w2]))
        return loss

    losses = [float(step(place(x), place(y))) for x, y in zip(X, Y)]
    x, y = place(X[0]), place(Y[0])
    placed = [getattr(t._value, "sharding", None) for t in (x, y)] + [getattr(w, "sharding", None) for w in (w1, b1, w2)]
    result = tt.xla.compile(step.get_concrete_function(x, y), in_shardings=placed + [None])
    return dict(losses=losses, weights=[w.numpy().tolist() for w in (w1, b1, w2)],
                layouts=[dtensor.fetch_layout(w).sharding_specs if isinstance(w, dtensor.DVariable) else None
                         for w in (w1, b1, w2)],
                collectives=[[c.kind, c.bytes, c.group_size] for c in result.collectives()],
                memory=result.memory(), lines=str(result).splitlines())


R = {"one": train(lambda v, n: tt.Variable(v), tt.constant)}
mesh = dtensor.create_mesh([("batch", 8)], device_type="CPU")
batch = lambda a: dtensor.copy_to_mesh(a, dtensor.Layout.batch_sharded(mesh, "batch", a.ndim))
R["data_parallel"] = train(lambda v, n: dtensor.DVariable(v, layout=dtensor.Layout.replicated(mesh, v.ndim)), batch)
R["fsdp"] = train(lambda v, n: dtensor.DVariable(v, layout=dtensor.Layout.batch_sharded(mesh, "batch", v.ndim)), batch)
mesh2 = dtensor.create_mesh([("batch", 2), ("model", 4)], device_type="CPU")
MEGATRON = {"w1": [dtensor.UNSHARDED, "model"], "b1": ["model"], "w2": ["model", dtensor.UNSHARDED]}
R["megatron"] = train(lambda v, n: dtensor.DVariable(v, layout=dtensor.Layout(MEGATRON[n], mesh2)),
                      lambda a: dtensor.copy_to_mesh(a, dtensor.Layout.batch_sharded(mesh2, "batch", a.ndim)))

# pieces: pack / unpack / fetch_layout / relayout / call_with_layout
layout = dtensor.Layout(["batch", "model"], mesh2)
x = dtensor.copy_to_mesh(np.arange(64, dtype=np.float32).reshape(8, 8), layout)
pieces = dtensor.unpack(x)
packed = dtensor.pack(pieces, layout)
moved = dtensor.relayout(x, dtensor.Layout.replicated(mesh2, 2))
traced = tt.function(lambda t: dtensor.relayout(t * 2.0, dtensor.Layout(["batch", dtensor.UNSHARDED], mesh2)),
                     jit_compile=True)
called = dtensor.call_with_layout(lambda: tt.constant(np.ones((4, 4), np.float32)),
                                  dtensor.Layout.batch_sharded(mesh2, "model", 2))
R["pieces"] = dict(count=len(pieces), shape=list(pieces[5].shape), piece5=pieces[5].numpy().tolist(),
                   roundtrip=bool(np.array_equal(packed.numpy(), x.numpy())), layout=dtensor.fetch_layout(x).to_string(),
                   relayout=dtensor.fetch_layout(moved).sharding_specs, moved_pieces=[p.shape[0] for p in dtensor.unpack(moved)],
                   traced=np.asarray(traced(x)).tolist(), traced_ir=traced.get_concrete_function(x).mlir(),
                   called=dtensor.fetch_layout(called).sharding_specs, called_piece=list(dtensor.unpack(called)[0].shape),
                   eager=float(tt.math.reduce_sum(x * 2.0)), is_dvar=[isinstance(dtensor.DVariable(B1, layout=dtensor.Layout(
                       ["model"], mesh2)), dtensor.DVariable), isinstance(tt.Variable(B1), dtensor.DVariable)])


def error(fn):
    try:
        fn()
    except Exception as err:
        return [type(err).__name__, str(err)]
    return None


R["errors"] = dict(
    indivisible=error(lambda: dtensor.copy_to_mesh(np.zeros((10, 4), np.float32),
                                                   dtensor.Layout.batch_sharded(mesh, "batch", 2))),
    unknown_dim=error(lambda: dtensor.Layout(["model", dtensor.UNSHARDED], mesh)),
    twice=error(lambda: dtensor.Layout(["batch", "batch"], mesh)),
    rank=error(lambda: dtensor.DVariable(np.zeros(4, np.float32), layout=dtensor.Layout.replicated(mesh, 2))),
    too_big=error(lambda: dtensor.create_mesh([("x", 16)])),
    not_dtensor=error(lambda: dtensor.fetch_layout(tt.constant([1.0]))),
    traced=error(lambda: tt.function(lambda t: dtensor.relayout(t, dtensor.Layout(["batch"], mesh)),
                                     jit_compile=True)(tt.constant(np.zeros(6, np.float32)))),
)
print(json.dumps(R))
""")


def _diff(a, b) -> float:
    return max(float(np.abs(np.asarray(x) - np.asarray(y)).max()) for x, y in zip(a, b))


@pytest.mark.parametrize("mode", ["data_parallel", "fsdp", "megatron"])
def test_training_with_layouts_equals_one_device(layouts, mode):
    got, one = layouts[mode], layouts["one"]
    assert _diff(got["weights"], one["weights"]) < 1e-6, mode
    assert _diff(got["losses"], one["losses"]) < 1e-5, mode


def test_variables_keep_their_layouts_and_the_partitioner_picks_the_collectives(layouts):
    assert layouts["data_parallel"]["layouts"] == [["unsharded", "unsharded"], ["unsharded"], ["unsharded", "unsharded"]]
    assert layouts["fsdp"]["layouts"] == [["batch", "unsharded"], ["batch"], ["batch", "unsharded"]]
    assert layouts["megatron"]["layouts"] == [["unsharded", "model"], ["model"], ["model", "unsharded"]]
    kinds = {mode: {c[0] for c in layouts[mode]["collectives"]} for mode in ("data_parallel", "fsdp", "megatron")}
    assert kinds["data_parallel"] == {"all-reduce"}                 # the gradients
    assert "all-gather" in kinds["fsdp"]                           # weights gathered for the forward pass
    # Megatron: the row-parallel layer's partial products are summed over the 4 model devices
    assert any(c[0] == "all-reduce" and c[2] == 4 for c in layouts["megatron"]["collectives"])
    weights, batch_piece = (16 * 32 + 32 + 32 * 8) * 4, (64 * 16 + 64 * 8) * 4 // 8
    assert layouts["data_parallel"]["memory"]["argument"] == weights + batch_piece + 8   # every device: all weights
    assert layouts["fsdp"]["memory"]["argument"] == weights // 8 + batch_piece + 8       # an eighth of them
    assert "// XlaInputSharding index=2 {devices=[8,1]<=[8]}" in layouts["fsdp"]["lines"]


def test_pack_unpack_relayout_and_call_with_layout(layouts):
    p = layouts["pieces"]
    assert p["count"] == 8 and p["shape"] == [4, 2]
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    assert p["piece5"] == x[4:8, 2:4].tolist()            # mesh position (1, 1): rows 4-7, columns 2-3
    assert p["roundtrip"] and p["layout"].startswith("sharding_specs:batch,model, mesh:|batch=2,model=4|")
    assert p["relayout"] == ["unsharded", "unsharded"] and p["moved_pieces"] == [8] * 8
    assert p["traced"] == (x * 2).tolist() and '"tf.XlaSharding"' in p["traced_ir"]
    assert p["called"] == ["model", "unsharded"] and p["called_piece"] == [1, 4]
    assert p["eager"] == float(x.sum() * 2) and p["is_dvar"] == [True, False]


def test_layouts_that_do_not_fit_are_clear_errors(layouts):
    e = layouts["errors"]
    assert e["indivisible"][0] == "InvalidArgumentError" and "dim 0 of size 10 does not divide into 8 pieces" in \
        e["indivisible"][1]
    assert "'model' is not a dim of the mesh" in e["unknown_dim"][1]
    assert "a mesh dim splits more than one tensor dim" in e["twice"][1]
    assert "has rank 2, the variable" in e["rank"][1]
    assert "needs 16 devices, there are 8" in e["too_big"][1]
    assert "is not a DTensor" in e["not_dtensor"][1]
    assert e["traced"][0] == "InvalidArgumentError" and "does not divide into 8 pieces" in e["traced"][1]


def test_one_device_mesh_here():
    import tinytf as tt
    from tinytf.experimental import dtensor

    mesh = dtensor.create_mesh([("x", 1)])
    layout = dtensor.Layout.batch_sharded(mesh, "x", 2)
    assert layout.rank == 2 and layout.num_shards(0) == 1 and not layout.is_fully_replicated()
    assert dtensor.Layout.replicated(mesh, 1).is_fully_replicated()
    v = dtensor.DVariable(np.ones((2, 2), np.float32), layout=layout)
    assert dtensor.fetch_layout(v) == layout and v.numpy().tolist() == [[1, 1], [1, 1]]
    t = dtensor.copy_to_mesh(tt.constant([[1.0, 2.0]]), layout)
    assert dtensor.unpack(t)[0].numpy().tolist() == [[1.0, 2.0]]
    with dtensor.default_mesh(mesh):
        assert dtensor.DVariable(np.zeros(3, np.float32)).layout.sharding_specs == ["unsharded"]
    assert dtensor.num_clients() == 1 and dtensor.client_id() == 0
