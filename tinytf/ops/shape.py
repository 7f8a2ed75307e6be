"""Shape ops: Reshape, Squeeze, ExpandDims, Shape, Size, Rank, BroadcastTo, Transpose."""
