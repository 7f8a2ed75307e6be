"""TensorFlow's files, read without TensorFlow: protos, tensor bundles (checkpoints), TensorProtos.

    from tinytf.formats import protos, tensor_bundle, tensor_proto
    reader = tensor_bundle.BundleReader("model/variables/variables")
    reader.get_tensor("a")                       # -> numpy array, crc32c checked
    tensor_proto.to_numpy(node.attr["value"].tensor)

Each module imports protobuf, tensorboard, google-crc32c or cramjam only when first used, so
``import tinytf`` stays light.
"""
