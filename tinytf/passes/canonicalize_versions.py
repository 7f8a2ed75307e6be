"""TensorFlow's canonicalization of old op versions to the current ones (V1 -> V2/V3/V4), with the
attributes the old op implied spelled out, and the ``device`` / ``_`` attributes carried over.

    %0 = "tf.MatrixSetDiag"(%m, %d)     // -> "tf.MatrixSetDiagV3"(%m, %d, %zero) <{align = "RIGHT_LEFT"}>
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, i32

from tinytf.framework import tf_types
from tinytf.passes import tf_rewrite as tfr
from tinytf.passes.tf_canonicalization import pattern


def _scalar(value, dtype=np.int32):
    return tfr.const(np.asarray(value, dtype))


@pattern("tf.BatchToSpace")
def batch_to_space_to_nd(op, rewriter):
    x, crops = op.operands
    if len(tfr.shape(x) or ()) != 4 or len(tfr.shape(crops) or ()) != 2:
        return False
    block = tfr.int_attr(op, "block_size")
    shape = tfr.const(np.full((2,), block, np.int64))
    tfr.replace_with(rewriter, op, "tf.BatchToSpaceND", [x, shape.results[0], crops], before=[shape])
    return True


@pattern("tf.BiasAddV1")
def bias_add_v1(op, rewriter):
    tfr.replace_with(rewriter, op, "tf.BiasAdd", op.operands, properties={"data_format": StringAttr("NHWC")})
    return True


@pattern("tf.MatrixDiag")
def matrix_diag_to_v3(op, rewriter):
    diagonal = op.operands[0]
    element = tf_types.dtype_of(diagonal.type)
    k, rows, cols = _scalar(0), _scalar(-1), _scalar(-1)
    padding = tfr.const(np.zeros((), element.np))
    tfr.replace_with(rewriter, op, "tf.MatrixDiagV3",
                     [diagonal, k.results[0], rows.results[0], cols.results[0], padding.results[0]],
                     properties={"align": StringAttr("RIGHT_LEFT")}, before=[k, rows, cols, padding])
    return True


@pattern("tf.MatrixSetDiag")
def matrix_set_diag_to_v3(op, rewriter):
    k = _scalar(0)
    tfr.replace_with(rewriter, op, "tf.MatrixSetDiagV3", [*op.operands, k.results[0]],
                     properties={"align": StringAttr("RIGHT_LEFT")}, before=[k])
    return True


@pattern("tf.MatrixSetDiagV2")
def matrix_set_diag_v2_to_v3(op, rewriter):
    # MatrixSetDiagV2 aligned LEFT_LEFT implicitly
    tfr.replace_with(rewriter, op, "tf.MatrixSetDiagV3", op.operands, properties={"align": StringAttr("LEFT_LEFT")})
    return True


_QUANTIZE_DEFAULTS = {"signed_input": True, "num_bits": 8, "range_given": False, "round_mode": "HALF_TO_EVEN",
                      "narrow_range": False, "axis": -1}


@pattern("tf.QuantizeAndDequantizeV2")
def quantize_and_dequantize_v2_to_v4(op, rewriter):
    props = {}
    for key, default in _QUANTIZE_DEFAULTS.items():
        value = tfr.attr(op, key)
        if value is None:
            value = tfr.bool_value(default) if isinstance(default, bool) else StringAttr(default) \
                if isinstance(default, str) else tfr.i64_value(default)
        props[key] = value
    tfr.replace_with(rewriter, op, "tf.QuantizeAndDequantizeV4", op.operands, properties=props)
    return True


@pattern("tf.NonMaxSuppressionV3")
def non_max_suppression_v3_to_v4(op, rewriter):
    """V4 also returns the number of valid outputs; V3's users take its first result."""
    if len(op.operands) != 5:
        return False
    valid = tf_types.tensor_type((), tf_types.element_type_of(op.results[0].type))
    new = tfr.build("tf.NonMaxSuppressionV4", op.operands, [op.results[0].type, valid],
                    attributes=tfr.carried(op))
    rewriter.replace(op, [new], [new.results[0]])
    return True


@pattern("tf.FusedBatchNorm")
def fused_batch_norm_to_v3(op, rewriter):
    """V3 has one more result (reserve_space_3), which nothing uses."""
    from xdsl.dialects.builtin import Float32Type, UnrankedTensorType

    types = [r.type for r in op.results] + [UnrankedTensorType(Float32Type())]
    new = tfr.build("tf.FusedBatchNormV3", op.operands, types, tfr.inherent(op), tfr.carried(op))
    rewriter.replace(op, [new], list(new.results[:-1]))
    return True


@pattern("tf.Variable")
def variable_to_variable_v2(op, rewriter):
    props = {k: tfr.attr(op, k) for k in ("shape", "container", "shared_name") if tfr.attr(op, k) is not None}
    tfr.replace_with(rewriter, op, "tf.VariableV2", [], properties=props)
    return True


_TABLE_USERS = {"tf.InitializeTableFromTextFile": ("tf.InitializeTableFromTextFileV2",
                                                   ("key_index", "value_index", "vocab_size", "delimiter", "offset")),
                "tf.LookupTableSize": ("tf.LookupTableSizeV2", ()),
                "tf.LookupTableFind": ("tf.LookupTableFindV2", ())}
_TABLE_DEFAULTS = {"vocab_size": -1, "delimiter": "\t", "offset": 0}


@pattern(*_TABLE_USERS)
def hash_table_user_to_v2(op, rewriter):
    """A V1 table op on a tf.HashTable -> the V2 op on a tf.HashTableV2 (a resource handle)."""
    table = tfr.defining(op.operands[0], "tf.HashTable")
    if table is None:
        return False
    from tinytf.framework.tf_types import ResourceType

    table_props = {k: tfr.attr(table, k) for k in ("container", "shared_name", "key_dtype", "value_dtype")
                   if tfr.attr(table, k) is not None}
    table_props["use_node_name_sharing"] = tfr.bool_value(tfr.bool_attr(table, "use_node_name_sharing"))
    handle = tfr.build("tf.HashTableV2", [], [tf_types.tensor_type((), ResourceType())], table_props, tfr.carried(op))
    name, keys = _TABLE_USERS[tfr.op_name(op)]
    props = {}
    for key in keys:
        value = tfr.attr(op, key)
        if value is None and key in _TABLE_DEFAULTS:
            default = _TABLE_DEFAULTS[key]
            value = StringAttr(default) if isinstance(default, str) else tfr.i64_value(default)
        if value is not None:
            props[key] = value
    tfr.replace_with(rewriter, op, name, [handle.results[0], *op.operands[1:]], properties=props, before=[handle])
    return True


@pattern("tf.XlaConv")
def xla_conv_to_v2(op, rewriter):
    props = {k: tfr.attr(op, k) for k in ("dimension_numbers", "precision_config") if tfr.attr(op, k) is not None}
    props["batch_group_count"] = tfr.i64_value(1)
    tfr.replace_with(rewriter, op, "tf.XlaConvV2", op.operands, properties=props)
    return True


def _to_variadic_reduce_v2(op, rewriter, count: int) -> bool:
    props = {k: tfr.attr(op, k) for k in ("dimensions_to_reduce", "reducer") if tfr.attr(op, k) is not None}
    props["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [count, count])
    tfr.replace_with(rewriter, op, "tf.XlaVariadicReduceV2", op.operands, properties=props)
    return True


@pattern("tf.XlaReduce")
def xla_reduce_to_variadic_v2(op, rewriter):
    return len(op.operands) == 2 and _to_variadic_reduce_v2(op, rewriter, 1)


@pattern("tf.XlaVariadicReduce")
def xla_variadic_reduce_to_v2(op, rewriter):
    n = len(op.operands)
    return n % 2 == 0 and n > 0 and _to_variadic_reduce_v2(op, rewriter, n // 2)
