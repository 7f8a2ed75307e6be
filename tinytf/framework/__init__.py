"""Layer 3: the Op base class and registry, the context stack, attributes, MLIR types,
TensorSpec, and (with the kernel API) variables."""
