"""One ONNX model's floats retyped: initializers, tensor attributes (Constant, ConstantOfShape),
Casts' targets and declared value types, from one float type to another (numpy's conversion:
float32 → float16 rounds to nearest even, float16 → float32 is exact). Graph inputs and outputs
are left as they are."""
import numpy as np
import onnx
from onnx import numpy_helper

NUMPY = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.FLOAT16: np.float16}


def retype_floats(model, src, dst):
    g = model.graph
    convert = lambda t: numpy_helper.from_array(numpy_helper.to_array(t).astype(NUMPY[dst]), t.name)  # noqa: E731
    for t in g.initializer:
        if t.data_type == src:
            t.CopyFrom(convert(t))
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == src:
                a.t.CopyFrom(convert(a.t))
            if n.op_type == "Cast" and a.name == "to" and a.i == src:
                a.i = dst
    for v in g.value_info:
        if v.type.tensor_type.elem_type == src:
            v.type.tensor_type.elem_type = dst
    return model
