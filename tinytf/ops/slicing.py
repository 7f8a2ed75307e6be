"""Slicing and joining: Slice, StridedSlice, GatherV2, ConcatV2, Pack, Unpack, Split, SplitV, Tile, Pad, PadV2."""
