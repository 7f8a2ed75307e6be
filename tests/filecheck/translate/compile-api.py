# RUN: %python %s | filecheck %s
"""tt.xla.compile on functions traced by tt.function prints the same lines as tinytf-translate."""
import numpy as np

import tinytf as tt


def add(x, y):
    return x + y


cf = tt.function(add).get_concrete_function(tt.TensorSpec([], tt.float32), tt.TensorSpec([], tt.float32))
result = tt.xla.compile(cf, [(), ()])
print("add")
print(result)
# CHECK-LABEL: add
# CHECK-NEXT:  // InputMapping {0, 1}
# CHECK-NEXT:  // XlaInputShape f32[]
# CHECK-NEXT:  // XlaInputShape f32[]
# CHECK-NEXT:  // XlaOutputShape (f32[])
# CHECK-NEXT:  // XlaOutputDescription type=float shape=()
# CHECK-EMPTY:

print("add tuple args")
print(tt.xla.compile(cf, [(), ()], use_tuple_args=True))
# CHECK-LABEL: add tuple args
# CHECK-NEXT:  // InputMapping {0, 1}
# CHECK-NEXT:  // XlaInputShape (f32[], f32[])
# CHECK-NEXT:  // XlaOutputShape (f32[])
# CHECK-NEXT:  // XlaOutputDescription type=float shape=()

v = tt.Variable(np.zeros(2, np.float32), name="v")


def assign(x):
    v.assign(x)


cf = tt.function(assign).get_concrete_function(tt.TensorSpec([2], tt.float32))
print("assign")
print(tt.xla.compile(cf, [(2,), (2,)], ["parameter", "resource"]))
# CHECK-LABEL: assign
# CHECK-NEXT:  // InputMapping {0, 1}
# CHECK-NEXT:  // XlaInputShape f32[2]
# CHECK-NEXT:  // XlaInputShape f32[2]
# CHECK-NEXT:  // XlaOutputShape (f32[2])
# CHECK-NEXT:  // ResourceUpdate input_index=1 type=float shape=(2) modified
# CHECK-EMPTY:


def step(x, w):
    y = tt.matmul(x, w)
    return y, w, tt.constant(3) + tt.constant(4)


cf = tt.function(step).get_concrete_function(tt.TensorSpec([4, 3], tt.float32), tt.TensorSpec([3, 2], tt.float32))
print("outputs")
print(tt.xla.compile(cf))
# CHECK-LABEL: outputs
# CHECK-NEXT:  // InputMapping {0, 1}
# CHECK-NEXT:  // XlaInputShape f32[4,3]
# CHECK-NEXT:  // XlaInputShape f32[3,2]
# CHECK-NEXT:  // XlaOutputShape (f32[4,2], f32[3,2], s32[])
# CHECK-NEXT:  // XlaOutputDescription type=float shape=(4, 2)
# CHECK-NEXT:  // XlaOutputDescription type=float shape=(3, 2) input_index=1
# CHECK-NEXT:  // XlaOutputDescription type=int32 shape=() constant
# CHECK-EMPTY:
