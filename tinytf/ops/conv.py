"""Convolution and pooling: Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool (and their gradients)."""
