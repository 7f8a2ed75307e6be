"""Bad input to the tf.nn ops and functions raises InvalidArgumentError naming the op and the shapes or
values at fault (eagerly, and when a function is traced)."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError


def f32(*shape):
    return np.zeros(shape, np.float32)


CASES = [
    (lambda: tt.nn.space_to_depth(f32(1, 5, 4, 2), 2),
     r"tf.SpaceToDepth: image height 5 must be divisible by block_size 2 \(input \[1,5,4,2\] NHWC\)"),
    (lambda: tt.nn.depth_to_space(f32(1, 2, 2, 6), 2),
     r"tf.DepthToSpace: input depth 6 should be divisible by block_size \* block_size = 4"),
    (lambda: tt.space_to_batch_nd(f32(2, 5, 4, 1), [2, 2], [[0, 0], [0, 0]]),
     r"tf.SpaceToBatchND: padded shape 5 \(dim 1 of input \[2,5,4,1\]\) must be divisible by block_shape\[0\] = 2"),
    (lambda: tt.batch_to_space(f32(3, 2, 2, 1), [2, 2], [[0, 0], [0, 0]]),
     r"tf.BatchToSpaceND: input batch 3 of input \[3,2,2,1\] must be divisible by the product of block_shape"),
    (lambda: tt.nn.conv3d(f32(1, 4, 4, 4, 3), f32(2, 2, 2, 2, 4), 1, "SAME"),
     r"tf.Conv3D: input depth must equal filter in-depth: 3 vs 2 \(input \[1,4,4,4,3\] NDHWC, filter \[2,2,2,2,4\]\)"),
    (lambda: tt.nn.conv3d_transpose(f32(1, 2, 2, 2, 4), f32(2, 2, 2, 3, 4), [1, 5, 5, 5, 3], 2, "SAME"),
     r"tf.Conv3DBackpropInputV2: out_backprop \[1,2,2,2,4\] does not match the forward output \[1,3,3,3,4\]"),
    (lambda: tt.nn.max_pool3d(f32(1, 4, 4, 4), 2, 2, "VALID"), r"tf.MaxPool3D: input must be 5-dimensional, got \[1,4,4,4\]"),
    (lambda: tt.nn.lrn(f32(2, 3, 4)), r"tf.LRN: input must be 4-dimensional, got \[2,3,4\]"),
    (lambda: tt.nn.dilation2d(f32(1, 4, 4, 2), f32(2, 2, 3), 1, "SAME"),
     r"tf.Dilation2D: input depth 2 must equal filter depth 3 \(input \[1,4,4,2\], filter \[2,2,3\]\)"),
    (lambda: tt.nn.l2_loss(np.zeros((2, 3), np.int32)), r"tf.L2Loss: input of dtype int32 is not supported"),
    (lambda: tt.nn.sigmoid_cross_entropy_with_logits(labels=f32(2, 3), logits=f32(3, 2)),
     r"sigmoid_cross_entropy_with_logits: logits and labels must have the same shape, got logits \[3,2\] and labels "
     r"\[2,3\]"),
    (lambda: tt.nn.dropout(f32(2, 2), 1.0), r"dropout: rate must be a scalar tensor or a float in the range \[0, 1\)"),
    (lambda: tt.nn.dropout(np.zeros((2, 2), np.int32), 0.5), r"dropout: x has to be a floating point tensor"),
    (lambda: tt.nn.embedding_lookup([f32(3, 2), f32(3, 2), f32(1, 2)], [0]),
     r"embedding_lookup: shards of \[3, 3, 1\] rows are not a 'div' partition of 7 ids over 3 shards"),
    (lambda: tt.nn.max_pool_with_argmax(f32(1, 4, 4, 1), 2, 2, "VALID", data_format="NCHW"),
     r"max_pool_with_argmax: data_format must be 'NHWC'"),
    (lambda: tt.nn.isotonic_regression(np.zeros((2,), np.uint8)), r"tf.IsotonicRegression: no kernel for input uint8"),
]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("call,message", CASES, ids=[str(i) for i in range(len(CASES))])
def test_bad_input_raises_a_clear_error(call, message, traced):
    with pytest.raises(InvalidArgumentError, match=message):
        tt.function(call)() if traced else call()
