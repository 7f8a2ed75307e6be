"""tt.Module: names and name scopes, variables / submodules in TensorFlow's order, tracking through
attributes, lists, tuples and dicts, with_name_scope, and tt.function methods on modules."""
import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.framework import name_scope as scopes
from tinytf.train import trackable


class Dense(tt.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = tt.Variable(np.ones([n_in, n_out], np.float32), name="w")
        self.b = tt.Variable(np.zeros([n_out], np.float32), name="b")

    @tt.function(input_signature=[tt.TensorSpec([None, 3], tt.float32)])
    def __call__(self, x):
        return tt.matmul(x, self.w) + self.b


def test_default_name_is_the_class_name_in_snake_case():
    class MyDenseLayer(tt.Module):
        pass

    class HTTPServer(tt.Module):
        pass

    assert MyDenseLayer().name == "my_dense_layer"
    assert HTTPServer().name == "http_server"  # TensorFlow's camel_to_snake
    assert tt.Module().name == "module"
    assert Dense(3, 2, name="encoder").name == "encoder"


@pytest.mark.parametrize("bad", ["a/b", "1x", "", "with space", 3])
def test_invalid_names_are_refused(bad):
    with pytest.raises(InvalidArgumentError, match="not a valid module name"):
        tt.Module(name=bad)


def test_name_scope_is_fixed_where_the_module_is_built():
    with tt.name_scope("outer"):
        m = tt.Module(name="mine")
        assert scopes.current() == "outer/"
    assert m.name_scope.name == "outer/mine/"
    with tt.name_scope("elsewhere"):
        with m.name_scope as scope:
            assert scope == "outer/mine/" and scopes.current() == "outer/mine/"
    assert scopes.current() == ""


def test_name_scopes_nest_and_absolute_names_replace():
    with tt.name_scope("a") as a:
        with tt.name_scope("b") as b:
            with tt.name_scope("x/") as x:
                assert (a, b, x) == ("a/", "a/b/", "x/")
            with tt.name_scope("") as top:
                assert top == ""
            assert scopes.prefixed("v") == "a/b/v"
    assert scopes.current() == ""


def test_with_name_scope_runs_the_method_inside_the_module_scope():
    class Scoped(tt.Module):
        @tt.Module.with_name_scope
        def where(self, suffix):
            return scopes.prefixed(suffix)

    m = Scoped(name="scoped")
    assert m.where("x") == "scoped/x"
    assert Scoped.where.__name__ == "where"
    assert scopes.current() == ""


def test_variables_follow_tensorflows_flatten_order():
    # The same structure in TensorFlow 2.21 gives the values [6, 3, 2, 4, 7, 1, 5]: attribute names
    # sorted (a, d, nested, shared -> z, t), dict keys sorted, each variable once.
    m = tt.Module()
    m.z = tt.Variable(1.0)
    m.cfg = [1, 2]
    m.d = {"b": tt.Variable(2.0), "a": tt.Variable(3.0), "c.x/y": tt.Variable(4.0)}
    m.t = (tt.Variable(5.0), 3)
    m.a = tt.Variable(6.0)
    m.shared = m.z
    m.empty = tt.Module()
    m.nested = [[tt.Variable(7.0)], {"k": tt.Module()}]
    assert [float(v.numpy()) for v in m.variables] == [6.0, 3.0, 2.0, 4.0, 7.0, 1.0, 5.0]
    assert m.submodules == (m.empty, m.nested[1]["k"])


def test_own_variables_come_before_submodules_breadth_first():
    class Net(tt.Module):
        def __init__(self):
            super().__init__()
            self.dense = Dense(3, 2)
            self.layers = [Dense(2, 2), {"a": Dense(2, 1)}]
            self.step = tt.Variable(np.int64(0), trainable=False, name="step")

    net = Net()
    d0, d1, d2 = net.dense, net.layers[0], net.layers[1]["a"]
    assert net.submodules == (d0, d1, d2)
    expected = [net.step, d0.b, d0.w, d1.b, d1.w, d2.b, d2.w]
    assert [id(v) for v in net.variables] == [id(v) for v in expected]
    assert [id(v) for v in net.trainable_variables] == [id(v) for v in expected[1:]]
    assert [id(v) for v in net.non_trainable_variables] == [id(net.step)]
    paths = [path for path, _ in net._flatten(predicate=lambda v: isinstance(v, tt.Variable), with_path=True)]
    assert paths[:3] == [("step",), ("dense", "b"), ("dense", "w")]
    assert ("layers", 1, "a", "w") in paths


def test_cycles_and_shared_submodules_are_visited_once():
    a, b = tt.Module(name="a"), tt.Module(name="b")
    a.child, b.parent = b, a
    a.v = tt.Variable(1.0)
    a.again = b
    assert a.submodules == (b,)
    assert len(a.variables) == 1 and b.variables == (a.v,)


def test_checkpoint_children_are_trackable_attributes_in_assignment_order():
    m = tt.Module()
    m.z = tt.Variable(1.0)
    m.cfg = [1, 2]
    m.note = "not tracked"
    m.d = {"b": tt.Variable(2.0)}
    m.z = tt.Variable(3.0)  # reassigning keeps the position, as TensorFlow's overwrite does
    assert list(m._trackable_children()) == ["z", "cfg", "d"]
    assert trackable.children(m.cfg) == {} and list(trackable.children(m.d)) == ["b"]
    del m.cfg
    assert list(m._trackable_children()) == ["z", "d"]


def test_escape_local_name_matches_tensorflow():
    assert trackable.escape_local_name("c.x/y") == "c..x.Sy"
    assert trackable.escape_local_name("plain") == "plain"


def test_function_method_with_input_signature():
    layer = Dense(3, 2)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(layer(tt.constant(x)).numpy(), x @ np.ones([3, 2], np.float32))
    y = layer(tt.constant(np.ones([5, 3], np.float32)))  # a None batch dim: the same trace
    assert y.shape == (5, 2)
    assert len(type(layer).__call__._bound[layer]._cache) == 1
    layer.w.assign(np.full([3, 2], 2.0, np.float32))  # captured variables are read at each call
    np.testing.assert_allclose(layer(tt.constant(x)).numpy(), x @ np.full([3, 2], 2.0, np.float32))
    other = Dense(3, 2)
    other.b.assign(np.ones(2, np.float32))
    np.testing.assert_allclose(other(tt.constant(x)).numpy(), x @ np.ones([3, 2], np.float32) + 1)
    with pytest.raises(InvalidArgumentError, match="input signature"):
        layer(tt.constant(np.ones([2, 4], np.float32)))
    cf = layer.__call__.get_concrete_function()
    assert "tf.MatMul" in cf.mlir()


def test_module_gradients_through_trainable_variables():
    layer = Dense(3, 2)
    x = tt.constant(np.ones([4, 3], np.float32))
    with tt.GradientTape() as tape:
        loss = tt.math.reduce_sum(layer(x))
    grads = tape.gradient(loss, layer.trainable_variables)
    np.testing.assert_allclose(grads[0].numpy(), np.full(2, 4.0))          # b
    np.testing.assert_allclose(grads[1].numpy(), np.full([3, 2], 4.0))     # w


class Scoped(tt.Module):
    """Variables made inside and outside the module's scope (TensorFlow 2.21 names them below)."""

    def __init__(self, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tt.Variable(1.0, name="w")
        self.b = tt.Variable(1.0, name="b")

    @tt.Module.with_name_scope
    def __call__(self, x):
        self.c = tt.Variable(2.0, name="c")
        return x


class Outer(tt.Module):
    def __init__(self):
        super().__init__()
        with self.name_scope:
            self.inner = Scoped(name="dense")
        self.beside = Scoped(name="dense")


def test_variable_names_follow_module_scopes_as_tensorflow():
    d = Scoped(name="dense")
    assert (d.w.name, d.b.name, d.name_scope.name) == ("dense/w:0", "b:0", "dense/")
    d(1.0)
    assert d.c.name == "dense/c:0"  # with_name_scope
    m = Outer()
    assert m.inner.w.name == "outer/dense/w:0" and m.inner.name_scope.name == "outer/dense/"
    assert m.inner.b.name == "outer/b:0" and m.beside.w.name == "dense/w:0"
    m.inner(1.0)
    assert m.inner.c.name == "outer/dense/c:0"
    with tt.name_scope("elsewhere"):
        m.inner(1.0)  # the module's scope is absolute
    assert m.inner.c.name == "outer/dense/c:0"


def test_variable_names_inside_tt_function_traces():
    # TensorFlow 2.21: a trace starts at the top name scope, whatever scope the call is made in
    made = []

    @tt.function
    def f(x):
        if not made:
            made.append(tt.Variable(1.0, name="fv"))
            with tt.name_scope("s"):
                made.append(tt.Variable(1.0, name="fv"))
            made.append(tt.Variable(1.0))
        return x + made[0]

    with tt.name_scope("outside"):
        f(tt.constant(1.0))
        assert scopes.current() == "outside/"
    assert [v.name for v in made] == ["fv:0", "s/fv:0", "Variable:0"]

    class Lazy(tt.Module):
        v = None

        @tt.function
        @tt.Module.with_name_scope
        def __call__(self, x):
            if self.v is None:
                self.v = tt.Variable(2.0, name="scale")
                with tt.name_scope("inner"):
                    self.u = tt.Variable(1.0)
            return x * self.v

    class ScopeOutside(tt.Module):
        v = None

        @tt.Module.with_name_scope
        @tt.function
        def __call__(self, x):
            if self.v is None:
                self.v = tt.Variable(2.0, name="scale")
            return x * self.v

    with tt.name_scope("outer"):
        lazy = Lazy()
        assert float(lazy(tt.constant(3.0)).numpy()) == 6.0
    assert (lazy.v.name, lazy.u.name) == ("outer/lazy/scale:0", "outer/lazy/inner/Variable:0")
    outside = ScopeOutside()
    outside(tt.constant(1.0))
    assert outside.v.name == "scale:0"


def test_captured_variables_name_the_traced_functions_inputs():
    d = Scoped(name="dense")
    f = tt.function(lambda x: x * d.w + d.b, input_signature=[tt.TensorSpec([], tt.float32, name="x")])
    text = f.get_concrete_function().mlir()
    assert 'inputs = "x,dense/w_resource,b_resource"' in text
