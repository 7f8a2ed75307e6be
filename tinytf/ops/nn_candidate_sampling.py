"""Candidate sampling without randomness: the ComputeAccidentalHits and AllCandidateSampler ops, and
tf.nn.compute_accidental_hits and tf.nn.all_candidate_sampler.

    %i, %ids, %w = "tf.ComputeAccidentalHits"(%true, %sampled) <{num_true = 2 : i64, seed = 0 : i64, seed2 = 0 : i64}>
                     : (tensor<3x2xi64>, tensor<5xi64>) -> (tensor<?xi32>, tensor<?xi64>, tensor<?xf32>)

For each row i and each of its true classes that is also a sampled candidate, one hit: (i, the
candidate's position in ``sampled_candidates`` (its last one when it repeats), -FLT_MAX), rows in order,
true classes in order within a row, as TensorFlow's kernel lists them. Sampled softmax adds the weights
to the sampled logits so a sampled true class is not counted as a negative. The number of hits depends
on the values: under XLA the operands must be constants. AllCandidateSampler "samples" every class
0 .. num_sampled - 1, each expected once.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.tensor_inputs import as_tensor

__all__ = ["compute_accidental_hits", "all_candidate_sampler"]
__namespaces__ = {"compute_accidental_hits": ("nn",), "all_candidate_sampler": ("nn",)}


@register
class ComputeAccidentalHits(Op):
    """The positions of the sampled candidates that are also true classes of a row."""

    name = "tf.ComputeAccidentalHits"
    true_classes = operand_def()
    sampled_candidates = operand_def()
    indices = result_def()
    ids = result_def()
    weights = result_def()
    num_true = attr(kind="int")
    seed = attr(0)
    seed2 = attr(0)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def check(cls, true_shape, sampled_shape, dtype_true, dtype_sampled, num_true):
        if dtype_true is not dtypes.int64 or dtype_sampled is not dtypes.int64:
            raise InvalidArgumentError(f"{cls.name}: true_classes and sampled_candidates must be int64, got "
                                       f"{dtype_true.name} and {dtype_sampled.name}", cls.name)
        if true_shape is not None and (len(true_shape) != 2 or true_shape[1] not in (None, num_true)):
            raise InvalidArgumentError(f"{cls.name}: true_classes must be [batch, num_true={num_true}], got "
                                       f"{fmt_shape(true_shape)}", cls.name)
        if sampled_shape is not None and len(sampled_shape) != 1:
            raise InvalidArgumentError(f"{cls.name}: sampled_candidates must be a vector, got "
                                       f"{fmt_shape(sampled_shape)}", cls.name)

    @classmethod
    def infer(cls, true_classes, sampled_candidates, *, num_true, seed=0, seed2=0):
        cls.check(true_classes.shape, sampled_candidates.shape, true_classes.dtype, sampled_candidates.dtype, num_true)
        return [TensorSpec((None,), dtypes.int32), TensorSpec((None,), dtypes.int64), TensorSpec((None,), dtypes.float32)]

    @classmethod
    def compute(cls, xp, true_classes, sampled_candidates, *, num_true, seed=0, seed2=0):
        true_classes, sampled = np.asarray(true_classes), np.asarray(sampled_candidates)  # constants under XLA
        cls.check(true_classes.shape, sampled.shape, dtypes.as_dtype(true_classes.dtype),
                  dtypes.as_dtype(sampled.dtype), num_true)
        position = {int(c): j for j, c in enumerate(sampled)}  # a repeated candidate: its last position
        hits = [(i, position[int(c)]) for i, row in enumerate(true_classes) for c in row if int(c) in position]
        rows = np.asarray([i for i, _ in hits], np.int32)
        ids = np.asarray([j for _, j in hits], np.int64)
        return rows, ids, np.full(len(hits), -np.finfo(np.float32).max, np.float32)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """(row indices, candidate positions, -FLT_MAX weights) of the sampled candidates that are true classes."""
    return tuple(ComputeAccidentalHits.bind(as_tensor(true_classes, dtype=dtypes.int64),
                                            as_tensor(sampled_candidates, dtype=dtypes.int64),
                                            num_true=int(num_true), seed=0 if seed is None else int(seed), seed2=0))


@register
class AllCandidateSampler(Op):
    """Every class in [0, num_sampled) as the sampled candidates, with expected counts of 1."""

    name = "tf.AllCandidateSampler"
    true_classes = operand_def()
    sampled_candidates = result_def()
    true_expected_count = result_def()
    sampled_expected_count = result_def()
    num_true = attr(kind="int")
    num_sampled = attr(kind="int")
    unique = attr(kind="bool")
    seed = attr(0)
    seed2 = attr(0)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def check(cls, shape, dtype, num_true, num_sampled):
        if dtype is not dtypes.int64:
            raise InvalidArgumentError(f"{cls.name}: true_classes must be int64, got {dtype.name}", cls.name)
        if num_true < 1 or num_sampled < 1:
            raise InvalidArgumentError(f"{cls.name}: num_true {num_true} and num_sampled {num_sampled} must be >= 1",
                                       cls.name)
        if shape is not None and (len(shape) != 2 or shape[1] not in (None, num_true)):
            raise InvalidArgumentError(f"{cls.name}: true_classes must be [batch, num_true={num_true}], got "
                                       f"{fmt_shape(shape)}", cls.name)

    @classmethod
    def infer(cls, true_classes, *, num_true, num_sampled, unique, seed=0, seed2=0):
        cls.check(true_classes.shape, true_classes.dtype, num_true, num_sampled)
        batch = None if true_classes.shape is None else true_classes.shape[0]
        return [TensorSpec((num_sampled,), dtypes.int64), TensorSpec((batch, num_true), dtypes.float32),
                TensorSpec((num_sampled,), dtypes.float32)]

    @classmethod
    def compute(cls, xp, true_classes, *, num_true, num_sampled, unique, seed=0, seed2=0):
        cls.check(true_classes.shape, dtypes.as_dtype(true_classes.dtype), num_true, num_sampled)
        outside = (true_classes < 0) | (true_classes >= num_sampled)
        if xp is np and outside.any():  # (TensorFlow checks every true class; XLA cannot raise on values)
            bad = int(true_classes[outside][0])
            raise InvalidArgumentError(f"{cls.name}: true_candidate out of range [0, {num_sampled}), received {bad}",
                                       cls.name)
        return (xp.arange(num_sampled, dtype=np.int64), xp.ones(true_classes.shape, np.float32),
                xp.ones((num_sampled,), np.float32))


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """(the classes 0 .. num_sampled - 1, true classes' expected counts (1), sampled ones' (1))."""
    return tuple(AllCandidateSampler.bind(as_tensor(true_classes, dtype=dtypes.int64), num_true=int(num_true),
                                          num_sampled=int(num_sampled), unique=bool(unique),
                                          seed=0 if seed is None else int(seed), seed2=0))
