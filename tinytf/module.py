"""``tt.Module``: TensorFlow's ``tf.Module``, a named container of variables and other modules.

    class Dense(tt.Module):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            self.w = tt.Variable(np.ones([n_in, n_out], np.float32), name="w")
            self.b = tt.Variable(np.zeros([n_out], np.float32), name="b")

        @tt.function(input_signature=[tt.TensorSpec([None, 3], tt.float32)])
        def __call__(self, x):
            return x @ self.w + self.b

    class MLP(tt.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(3, 4), Dense(4, 2)]       # lists, tuples and dicts are tracked too

    m = MLP()
    m.name, m.name_scope.name        # 'mlp', 'mlp/'
    m.variables                      # (b, w, b, w): attributes in sorted order, then submodules
    m.trainable_variables, m.submodules
    tt.train.Checkpoint(model=m).write(prefix)     # keys model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE ...

``variables``, ``trainable_variables``, ``non_trainable_variables`` and ``submodules`` walk the
attributes as TensorFlow's ``Module._flatten`` does: attribute names sorted, each value flattened
(dicts by sorted key, lists and tuples in order), a module's own attributes before its
submodules' (breadth first), each object once. For checkpoints a module's children are its
trackable attributes in assignment order (``_trackable_children``), as TensorFlow's auto-tracking
records them. ``with_name_scope`` runs a method inside the module's name scope.

Variables take TensorFlow's names from the scope they are made in: ``w`` made inside ``with
self.name_scope:`` of a ``dense`` built in an ``mlp``'s scope is ``"mlp/dense/w:0"``; made outside
any scope it is ``"w:0"`` (as in the ``Dense`` above). A ``tt.function`` trace starts at the top scope.
"""
from __future__ import annotations

import functools
import re

from tinytf.errors import InvalidArgumentError
from tinytf.framework.name_scope import name_scope
from tinytf.framework.variables import Variable
from tinytf.train import trackable

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    """``"MyDense"`` -> ``"my_dense"``, the default module name (TensorFlow's rule)."""
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


def _flatten_with_paths(value, path=()):
    """(path, leaf) pairs of a nested structure: dicts by sorted key, lists and tuples in order."""
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:
            raise InvalidArgumentError(f"tt.Module: cannot sort the keys of {value!r}") from None
        for key in keys:
            yield from _flatten_with_paths(value[key], path + (key,))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _flatten_with_paths(item, path + (i,))
    else:
        yield path, value


class Module:
    """Base class of models and layers; see the module docstring."""

    _TF_MODULE_IGNORED_PROPERTIES = frozenset()
    _tracks_attribute_assignment = True  # deferred checkpoint restoration hooks into __setattr__

    def __init__(self, name: str | None = None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not _VALID_IDENTIFIER.match(name):
            raise InvalidArgumentError(f"{name!r} is not a valid module name. Module names must be valid Python 3 "
                                       "identifiers (letters, digits and underscores, not starting with a digit).")
        self._name = name
        with name_scope(name) as scope:  # the scope is fixed where the module is built
            self._name_scope = name_scope(scope)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        trackable.attribute_assigned(self, name, value)

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> name_scope:
        """The scope the module was built in (absolute: entering it anywhere gives the same names)."""
        return self._name_scope

    @property
    def variables(self) -> tuple:
        """Every ``tt.Variable`` of this module and its submodules, each once."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple:
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self) -> tuple:
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self) -> tuple:
        """Every module reachable from this one (not itself), breadth first."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive: bool = True, predicate=None, attribute_traversal_key=None, with_path: bool = False):
        """Yield the values (or ``(path, value)`` pairs) under this module that ``predicate`` accepts."""
        predicate = predicate or (lambda _: True)
        yield from _flatten_module(self, recursive, predicate, attribute_traversal_key, with_path, (), {id(self)}, [])

    def _trackable_children(self) -> dict:
        """Checkpoint children: the trackable attributes, in assignment order."""
        return trackable.attribute_children(self, self._TF_MODULE_IGNORED_PROPERTIES)

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside ``self.name_scope``."""
        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__qualname__} '{self._name}'>"


def _is_variable(value) -> bool:
    return isinstance(value, Variable)


def _is_module(value) -> bool:
    return isinstance(value, Module)


def _flatten_module(module, recursive, predicate, key, with_path, module_path, seen, stack):
    # TensorFlow's _flatten_module: direct attributes first, then recurse into the modules found;
    # with paths, objects reachable twice are reported twice; back edges of cycles are not followed.
    if id(module) in stack:
        recursive = False
    submodules = []
    attributes = vars(module)
    for name in sorted(attributes, key=key):
        if name in module._TF_MODULE_IGNORED_PROPERTIES or name == trackable.DEFERRED_ATTRIBUTE:
            continue
        for leaf_path, leaf in _flatten_with_paths(attributes[name], (name,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + leaf_path, leaf))
    stack.append(id(module))
    for path, submodule in submodules:
        yield from _flatten_module(submodule, recursive, predicate, key, with_path, path, seen, stack)
    stack.pop()
