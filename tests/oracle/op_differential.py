#!/usr/bin/python3
"""Every registered op against ONNX Runtime on randomly generated cases, degenerate ones included.

    op_differential.py --q8 Q8 --ort-dir DIR --work DIR [--seed N] [--cases-per-op N] [--ops A,B]

Each case is a one-node model with random inputs: kernels larger than the input, pads larger
than the kernel, strides larger than the input, dilations, groups, 1x1 and 0-size dimensions,
broadcasting to and from size 1. A case passes when q8 and ONNX Runtime agree: both give the same
output shapes and values (rtol 1e-4, atol 1e-5, NaN where ORT has NaN), or both refuse it, q8 with
one 'q8: error:' line and exit status 1 (never a crash). Every op in engine/ops/ops.inc must have a
generator here. Ends with 'N passed, M failed'.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from tally import Tally  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5
ONNX_TYPES = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64, np.int32: TensorProto.INT32,
              np.int8: TensorProto.INT8, np.uint8: TensorProto.UINT8, np.bool_: TensorProto.BOOL}


class Case:
    """One node, its runtime inputs (numpy arrays) and constant inputs (initializers)."""

    def __init__(self, op, inputs, attrs=None, consts=None, outputs=1, opset=13, order=None):
        self.op, self.inputs, self.attrs = op, inputs, attrs or {}
        self.consts, self.outputs, self.opset = consts or {}, outputs, opset
        self.order = order  # input names in node order ("" for an absent optional input)

    def model(self):
        names = self.order or list(self.inputs) + list(self.consts)
        outs = [f"y{i}" for i in range(self.outputs)]
        node = helper.make_node(self.op, names, outs, name="case", **self.attrs)
        graph_inputs = [helper.make_tensor_value_info(k, ONNX_TYPES[v.dtype.type], list(v.shape)) for k, v in self.inputs.items()]
        inits = [numpy_helper.from_array(np.asarray(v), k) for k, v in self.consts.items()]

        def make(output_types):
            graph_outputs = [helper.make_tensor_value_info(o, t, None if rank is None else [f"{o}_d{i}" for i in range(rank)])
                             for o, (t, rank) in zip(outs, output_types)]
            graph = helper.make_graph([node], "case", graph_inputs, graph_outputs, inits)
            m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
            m.ir_version = 8 if self.opset <= 17 else 9
            return m

        # Output element types and ranks from ONNX's type inference (float where it cannot tell: a
        # case that is invalid anyway); sizes are left open.
        probe = make([(TensorProto.FLOAT, None)] * len(outs))
        del probe.graph.output[:]
        probe.graph.output.extend([onnx.ValueInfoProto(name=o) for o in outs])
        try:
            inferred = onnx.shape_inference.infer_shapes(probe).graph.output
            types = [(o.type.tensor_type.elem_type or TensorProto.FLOAT,
                      len(o.type.tensor_type.shape.dim) if o.type.tensor_type.HasField("shape") else None) for o in inferred]
        except Exception:
            types = [(TensorProto.FLOAT, None)] * len(outs)
        return make(types)

    def describe(self):
        shapes = ", ".join(f"{k}{list(np.shape(v))}" for k, v in {**self.inputs, **self.consts}.items())
        attrs = {k: (f"<graph of {len(v.node)} nodes>" if isinstance(v, onnx.GraphProto) else v) for k, v in self.attrs.items()}
        return f"{self.op}({shapes}) {attrs}"


def f32(r, *shape, lo=-2.0, hi=2.0):
    return r.uniform(lo, hi, size=shape).astype(np.float32)


def small_dim(r, zero=0.05):
    return 0 if r.random() < zero else int(r.choice([1, 1, 2, 3, 4, 5, 7]))


def window_case(r, op):
    """Conv, ConvTranspose, MaxPool or AveragePool with a random (often degenerate) window."""
    rank = int(r.choice([1, 2, 2, 2, 3]))
    spatial = [int(r.integers(1, 10)) if rank < 3 else int(r.integers(1, 6)) for _ in range(rank)]
    kernel = [int(r.integers(1, 6)) if rank < 3 else int(r.integers(1, 4)) for _ in range(rank)]
    strides = [int(r.choice([1, 1, 2, 3, 7])) for _ in range(rank)]
    dil = [int(r.choice([1, 1, 1, 2, 3])) for _ in range(rank)]
    pads = [int(r.integers(0, 5)) for _ in range(2 * rank)]
    n = 0 if r.random() < 0.05 else int(r.integers(1, 4))
    attrs = {"strides": strides, "pads": pads}
    if r.random() < 0.15:
        attrs = {"strides": strides, "auto_pad": str(r.choice(["SAME_UPPER", "SAME_LOWER", "VALID"]))}
    if op in ("Conv", "ConvTranspose"):
        group = int(r.choice([1, 1, 2, 3, 4]))
        cin = group * int(r.integers(1, 4))
        cout = group * int(r.integers(1, 4))
        if r.random() < 0.2:
            cin = cout = group  # depthwise
        attrs["dilations"] = dil
        attrs["group"] = group
        if op == "Conv":
            w = f32(r, cout, cin // group, *kernel, lo=-0.5, hi=0.5)
        else:
            w = f32(r, cin, cout // group, *kernel, lo=-0.5, hi=0.5)
            if r.random() < 0.3 and "auto_pad" not in attrs:
                attrs["output_padding"] = [int(r.integers(0, max(1, min(s, d)))) for s, d in zip(strides, dil)]
        consts = {"w": w}
        if r.random() < 0.7:
            consts["b"] = f32(r, cout)
        return Case(op, {"x": f32(r, n, cin, *spatial)}, attrs, consts)
    c = int(r.integers(1, 4))
    opset = 13 if op == "MaxPool" else int(r.choice([11, 17, 19]))
    if op == "MaxPool" or opset >= 19:  # AveragePool has dilations from opset 19
        attrs["dilations"] = dil
    if op == "AveragePool":
        attrs["count_include_pad"] = int(r.integers(0, 2))
    attrs["kernel_shape"] = kernel
    if r.random() < 0.3:
        attrs["ceil_mode"] = 1
    return Case(op, {"x": f32(r, n, c, *spatial)}, attrs, opset=opset)


def broadcast_shapes(r):
    rank = int(r.integers(0, 5))
    a = [small_dim(r) for _ in range(rank)]
    b = list(a)
    for i in range(rank):
        if r.random() < 0.4:
            b[i] = 1
        if r.random() < 0.2:
            a[i] = 1
    b = b[int(r.integers(0, rank + 1)):]  # b may have a lower rank
    if r.random() < 0.08 and rank:  # an incompatible pair
        b = list(b) or [1]
        b[-1] = (a[-1] if a else 1) + 2
    return (a, b) if r.random() < 0.5 else (b, a)


def binary_case(op, make=lambda r, s: f32(r, *s)):
    def gen(r):
        a, b = broadcast_shapes(r)
        return Case(op, {"a": make(r, a), "b": make(r, b)})
    return gen


def unary_case(op, lo=-3.0, hi=3.0, attrs=None, opset=13):
    def gen(r):
        shape = [small_dim(r) for _ in range(int(r.integers(0, 5)))]
        return Case(op, {"x": f32(r, *shape, lo=lo, hi=hi)}, dict(attrs or {}), opset=opset)
    return gen


def shape_of(r, rank_lo=1, rank_hi=4, zero=0.05):
    return [small_dim(r, zero) for _ in range(int(r.integers(rank_lo, rank_hi + 1)))]


def gemm_case(r):
    m, k, n = small_dim(r), int(r.integers(1, 9)), small_dim(r)
    ta, tb = int(r.integers(0, 2)), int(r.integers(0, 2))
    a = f32(r, *((k, m) if ta else (m, k)))
    b = f32(r, *((n, k) if tb else (k, n)))
    consts = {"b": b}
    attrs = {"transA": ta, "transB": tb, "alpha": float(r.choice([1.0, 0.5])), "beta": float(r.choice([1.0, 2.0]))}
    if r.random() < 0.7:
        consts["c"] = f32(r, *[[n], [1, n], [m, n], [1], []][int(r.integers(0, 5))])
    return Case("Gemm", {"a": a}, attrs, consts)


def matmul_case(r):
    k = int(r.integers(1, 9))
    batch_a, batch_b = broadcast_shapes(r)
    batch_a, batch_b = batch_a[:2], batch_b[:2]
    a = f32(r, *batch_a, small_dim(r), k) if r.random() < 0.9 else f32(r, k)
    b = f32(r, *batch_b, k, small_dim(r)) if r.random() < 0.9 else f32(r, k)
    return Case("MatMul", {"a": a, "b": b})


def batch_norm_case(r):
    shape = [small_dim(r), int(r.integers(1, 5))] + shape_of(r, 0, 2)
    c = shape[1]
    consts = {"scale": f32(r, c), "bias": f32(r, c), "mean": f32(r, c), "var": f32(r, c, lo=0.1, hi=2.0)}
    return Case("BatchNormalization", {"x": f32(r, *shape)}, {"epsilon": 1e-5}, consts)


def layer_norm_case(r):
    shape = shape_of(r, 1, 4, zero=0.0)
    axis = int(r.integers(-len(shape), len(shape)))
    norm = shape[axis:]
    return Case("LayerNormalization", {"x": f32(r, *shape)}, {"axis": axis, "epsilon": 1e-5},
                {"scale": f32(r, *norm), "bias": f32(r, *norm)}, opset=17)


def concat_case(r):
    shape = shape_of(r, 1, 4)
    axis = int(r.integers(-len(shape), len(shape)))
    inputs = {}
    for i in range(int(r.integers(1, 4))):
        s = list(shape)
        s[axis] = small_dim(r)
        inputs[f"x{i}"] = f32(r, *s)
    return Case("Concat", inputs, {"axis": axis})


def split_case(r):
    shape = shape_of(r, 1, 3, zero=0.0)
    axis = int(r.integers(0, len(shape)))
    parts = int(r.integers(1, 4))
    if r.random() < 0.5:
        sizes = list(r.multinomial(shape[axis], [1.0 / parts] * parts))
        return Case("Split", {"x": f32(r, *shape)}, {"axis": axis}, {"split": np.array(sizes, np.int64)}, outputs=parts)
    if r.random() < 0.5:  # opset 18: num_outputs parts, the last smaller when uneven
        parts = min(parts, shape[axis])
        return Case("Split", {"x": f32(r, *shape)}, {"axis": axis, "num_outputs": parts}, outputs=parts, opset=18)
    return Case("Split", {"x": f32(r, *shape)}, {"axis": axis}, outputs=parts if shape[axis] % parts == 0 else 1)


def slice_case(r):
    shape = shape_of(r, 1, 3)
    axes = sorted(r.choice(len(shape), size=int(r.integers(1, len(shape) + 1)), replace=False).tolist())
    starts = [int(r.integers(-6, 7)) for _ in axes]
    ends = [int(r.choice([r.integers(-6, 7), 2**62, -(2**62)])) for _ in axes]
    steps = [int(r.choice([1, 1, 2, -1, -2])) for _ in axes]
    consts = {"starts": np.array(starts, np.int64), "ends": np.array(ends, np.int64), "axes": np.array(axes, np.int64),
              "steps": np.array(steps, np.int64)}
    return Case("Slice", {"x": f32(r, *shape)}, {}, consts)


def gather_case(r):
    shape = shape_of(r, 1, 3, zero=0.0)
    axis = int(r.integers(-len(shape), len(shape)))
    idx = r.integers(-shape[axis], shape[axis], size=shape_of(r, 0, 2)).astype(np.int64)
    if r.random() < 0.1:
        idx = np.array([shape[axis]], np.int64)  # out of range
    return Case("Gather", {"x": f32(r, *shape)}, {"axis": axis}, {"i": idx})


def transpose_case(r):
    shape = shape_of(r, 1, 4)
    return Case("Transpose", {"x": f32(r, *shape)}, {"perm": r.permutation(len(shape)).tolist()})


def reshape_case(r):
    shape = shape_of(r, 1, 4)
    total = int(np.prod(shape))
    target = [total] if r.random() < 0.3 else [-1] + ([1] if r.random() < 0.5 else [])
    if r.random() < 0.3 and len(shape) > 1:
        target = [0] + [-1]
    if r.random() < 0.1:
        target = [total + 1]  # wrong size
    return Case("Reshape", {"x": f32(r, *shape)}, {}, {"shape": np.array(target, np.int64)})


def squeeze_case(op):
    def gen(r):
        shape = [1 if r.random() < 0.5 else small_dim(r) for _ in range(int(r.integers(1, 5)))]
        if op == "Squeeze":
            axes = [i for i, d in enumerate(shape) if d == 1][:2] or [0]
        else:
            axes = sorted(r.choice(len(shape) + 2, size=int(r.integers(1, 3)), replace=False).tolist())
        return Case(op, {"x": f32(r, *shape)}, {}, {"axes": np.array(axes, np.int64)})
    return gen


def pad_case(r):
    """Opset 13 pads of every axis, opset 18 pads of some (the axes input), opset 19's wrap mode."""
    shape = shape_of(r, 1, 4)
    opset = int(r.choice([13, 18, 19]))
    mode = str(r.choice(["constant", "reflect", "edge"] + (["wrap"] if opset >= 19 else [])))
    axes = list(range(len(shape)))
    if opset >= 18 and r.random() < 0.7:
        axes = sorted(r.choice(len(shape), size=int(r.integers(1, len(shape) + 1)), replace=False).tolist())
        axes = [a - len(shape) if r.random() < 0.3 else a for a in axes]
    # Negative pads (cropping) only with constant mode: ONNX leaves the others with cropping unspecified.
    pads = [int(r.integers(-1 if mode == "constant" else 0, 3)) for _ in range(2 * len(axes))]
    consts = {"pads": np.array(pads, np.int64), "value": np.array(r.uniform(-1, 1), np.float32)}
    if len(axes) < len(shape) or (opset >= 18 and r.random() < 0.5):
        consts["axes"] = np.array(axes, np.int64)
    return Case("Pad", {"x": f32(r, *shape)}, {"mode": mode}, consts, opset=opset)


def resize_case(r):
    """Nearest, linear and cubic over NCHW; from opset 18 sometimes the spatial axes alone (`axes`), sizes
    fitted by keep_aspect_ratio_policy; at opset 19 the half_pixel_symmetric grid."""
    n, c = int(r.integers(1, 3)), int(r.integers(1, 3))
    h, w = int(r.integers(1, 7)), int(r.integers(1, 7))
    opset = int(r.choice([13, 18, 19]))
    mode = str(r.choice(["nearest", "linear", "cubic"]))
    modes = ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"] + (["half_pixel_symmetric"] if opset >= 19 else [])
    ctm = str(r.choice(modes))
    attrs = {"mode": mode, "coordinate_transformation_mode": ctm}
    if mode == "nearest":
        attrs["nearest_mode"] = str(r.choice(["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]))
    if mode == "cubic":
        attrs["cubic_coeff_a"] = float(r.choice([-0.75, -0.5]))
        attrs["exclude_outside"] = int(r.integers(0, 2))
    spatial_only = opset >= 18 and r.random() < 0.5
    if spatial_only:  # ONNX Runtime 1.22 crashes on negative Resize axes: tests/ops covers them
        attrs["axes"] = [2, 3]
    lead = [] if spatial_only else [1, 1]
    if r.random() < 0.5:
        scales = np.array(lead + [r.choice([0.5, 1.0, 2.0, 3.0, 1.5]), r.choice([0.5, 1.0, 2.0, 3.0])], np.float32)
        return Case("Resize", {"x": f32(r, n, c, h, w)}, attrs, {"roi": np.array([], np.float32), "scales": scales}, opset=opset)
    if opset >= 18 and spatial_only and r.random() < 0.5:
        attrs["keep_aspect_ratio_policy"] = str(r.choice(["not_larger", "not_smaller"]))
    sizes = np.array(([] if spatial_only else [n, c]) + [int(r.integers(1, 9)), int(r.integers(1, 9))], np.int64)
    return Case("Resize", {"x": f32(r, n, c, h, w)}, attrs, {"sizes": sizes}, order=["x", "", "", "sizes"], opset=opset)


INTEGER_REDUCTIONS = ("ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceMean", "ReduceL1", "ReduceSumSquare")


def reduce_case(op):
    """Float32 or (where ONNX allows it) int64 data; axes as the attribute (opset 13) or, from opset 18,
    the input (ReduceSum: from 13); all axes when none are given."""
    def gen(r):
        shape = shape_of(r, 1, 4, zero=0.0)
        axes = sorted(r.choice(len(shape), size=int(r.integers(1, len(shape) + 1)), replace=False).tolist())
        keep = int(r.integers(0, 2))
        lo = 0.1 if op in ("ReduceLogSum",) else -2.0
        x = f32(r, *shape, lo=lo, hi=2.0)
        if op == "ReduceProd":
            x = f32(r, *shape, lo=0.5, hi=1.5)
        if op in INTEGER_REDUCTIONS and r.random() < 0.3:
            x = r.integers(-4, 5, size=shape).astype(np.int64)
        opset = 13 if op == "ReduceSum" or r.random() < 0.5 else 18
        if r.random() < 0.15:
            return Case(op, {"x": x}, {"keepdims": keep}, opset=opset)
        if opset >= 18 or op == "ReduceSum":
            return Case(op, {"x": x}, {"keepdims": keep}, {"axes": np.array(axes, np.int64)}, opset=opset)
        return Case(op, {"x": x}, {"keepdims": keep, "axes": axes}, opset=opset)
    return gen


def softmax_case(r):
    shape = shape_of(r, 1, 4)
    opset = int(r.choice([11, 13]))
    return Case("Softmax", {"x": f32(r, *shape, lo=-10, hi=10)}, {"axis": int(r.integers(-len(shape), len(shape)))}, opset=opset)


def flatten_case(r):
    shape = shape_of(r, 1, 4)
    return Case("Flatten", {"x": f32(r, *shape)}, {"axis": int(r.integers(-len(shape), len(shape) + 1))})


def expand_case(r):
    a, b = broadcast_shapes(r)
    return Case("Expand", {"x": f32(r, *a)}, {}, {"shape": np.array(b, np.int64)})


def where_case(r):
    a, b = broadcast_shapes(r)
    return Case("Where", {"c": r.random(size=a) < 0.5, "x": f32(r, *a), "y": f32(r, *b)})


def clip_case(r):
    shape = shape_of(r, 0, 3)
    lo, hi = sorted(r.uniform(-2, 2, size=2).astype(np.float32))
    if r.random() < 0.3:
        return Case("Clip", {"x": f32(r, *shape)}, {"min": float(lo), "max": float(hi)}, opset=6)
    return Case("Clip", {"x": f32(r, *shape)}, {}, {"min": np.array(lo, np.float32), "max": np.array(hi, np.float32)})


def cast_case(r):
    shape = shape_of(r, 0, 3)
    to = int(r.choice([TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL]))
    return Case("Cast", {"x": f32(r, *shape, lo=-50, hi=50)}, {"to": to})


def quantize_case(op):
    def gen(r):
        shape = [small_dim(r), int(r.integers(1, 5))] + shape_of(r, 0, 2)
        per_axis = r.random() < 0.5
        scale = (r.uniform(0.01, 0.2, size=shape[1]) if per_axis else np.array(r.uniform(0.01, 0.2))).astype(np.float32)
        zp = np.zeros(scale.shape, np.int8)
        attrs = {"axis": 1} if per_axis else {}
        if op == "QuantizeLinear":
            return Case(op, {"x": f32(r, *shape, lo=-30, hi=30)}, attrs, {"scale": scale, "zp": zp})
        return Case(op, {"x": r.integers(-128, 128, size=shape).astype(np.int8)}, attrs, {"scale": scale, "zp": zp})
    return gen


def prelu_case(r):
    # slope broadcasts to X one way (ONNX): a suffix of X's shape with some axes 1
    x = shape_of(r, 0, 4)
    slope = [1 if r.random() < 0.4 else d for d in x[int(r.integers(0, len(x) + 1)):]]
    return Case("PRelu", {"x": f32(r, *x)}, {}, {"slope": f32(r, *slope)})


def pow_case(r):
    a, b = broadcast_shapes(r)
    return Case("Pow", {"a": f32(r, *a, lo=0.1, hi=3), "b": f32(r, *b, lo=-2, hi=2)})


def variadic_case(op):
    def gen(r):
        a, b = broadcast_shapes(r)
        return Case(op, {"a": f32(r, *a), "b": f32(r, *b), "c": f32(r, *b)})
    return gen


def compare_case(op):
    def gen(r):
        a, b = broadcast_shapes(r)
        return Case(op, {"a": f32(r, *a).round(), "b": f32(r, *b).round()})
    return gen


def mod_case(r):
    a, b = broadcast_shapes(r)
    sign = np.where(r.random(size=b) < 0.5, -1, 1)
    if r.random() < 0.5:  # integers, both rules; divisors never 0
        x, y = r.integers(-20, 21, size=a).astype(np.int64), (r.integers(1, 7, size=b) * sign).astype(np.int64)
        return Case("Mod", {"a": x, "b": y}, {"fmod": int(r.integers(0, 2))})
    return Case("Mod", {"a": f32(r, *a, lo=-5, hi=5), "b": (f32(r, *b, lo=0.5, hi=2) * sign).astype(np.float32)}, {"fmod": 1})


def logical_case(op):
    def gen(r):
        a, b = broadcast_shapes(r)
        return Case(op, {"a": r.random(size=a) < 0.5, "b": r.random(size=b) < 0.5})
    return gen


def not_case(r):
    return Case("Not", {"x": r.random(size=shape_of(r, 0, 4)) < 0.5})


def special_floats(r, shape):
    """Floats with NaN, +Inf and −Inf sprinkled in."""
    x = f32(r, *shape, lo=-3, hi=3)
    pick = r.random(size=shape)
    x[pick < 0.15] = np.nan
    x[(pick >= 0.15) & (pick < 0.3)] = np.inf
    x[(pick >= 0.3) & (pick < 0.45)] = -np.inf
    return x


def is_nan_case(r):
    return Case("IsNaN", {"x": special_floats(r, shape_of(r, 0, 4))})


def is_inf_case(r):
    attrs = {} if r.random() < 0.4 else {"detect_negative": int(r.integers(0, 2)), "detect_positive": int(r.integers(0, 2))}
    return Case("IsInf", {"x": special_floats(r, shape_of(r, 0, 4))}, attrs)


def signed_numeric_case(op):
    """Float32 (with halves and exact integers) or int64/int32 inputs: Abs, Neg, Sign."""
    def gen(r):
        shape = shape_of(r, 0, 4)
        if r.random() < 0.5:
            dtype = np.int64 if r.random() < 0.6 else np.int32
            return Case(op, {"x": r.integers(-9, 10, size=shape).astype(dtype)})
        return Case(op, {"x": ((f32(r, *shape, lo=-6, hi=6) * 2).round() / 2).astype(np.float32)})
    return gen


def rounding_case(op):
    """Floor, Ceil, Round on values with many exact halves and integers."""
    def gen(r):
        shape = shape_of(r, 0, 4)
        x = f32(r, *shape, lo=-6, hi=6)
        halves = r.random(size=shape) < 0.5
        x[halves] = (x[halves] * 2).round() / 2
        return Case(op, {"x": x})
    return gen


def range_case(r):
    kind = r.choice(["float", "int64", "int32"])
    if kind == "float":
        start, delta = float(r.uniform(-5, 5)), float(r.choice([0.5, 1.25, -0.75, 3.0]))
        limit = start + delta * float(r.uniform(-1, 12))
        return Case("Range", {}, {}, {"start": np.array(start, np.float32), "limit": np.array(limit, np.float32),
                                      "delta": np.array(delta, np.float32)}, order=["start", "limit", "delta"])
    dtype = np.int64 if kind == "int64" else np.int32
    start, delta = int(r.integers(-5, 6)), int(r.choice([1, 2, 3, -1, -2]))
    limit = start + delta * int(r.integers(-2, 10)) + int(r.integers(0, 2))
    inputs = {"start": np.array(start, dtype), "limit": np.array(limit, dtype), "delta": np.array(delta, dtype)}
    return Case("Range", inputs) if r.random() < 0.5 else Case("Range", {}, {}, inputs, order=["start", "limit", "delta"])


def cum_sum_case(r):
    shape = shape_of(r, 1, 4)
    x = f32(r, *shape) if r.random() < 0.6 else r.integers(-9, 10, size=shape).astype(np.int64 if r.random() < 0.5 else np.int32)
    axis = np.array(int(r.integers(-len(shape), len(shape))), np.int64 if r.random() < 0.5 else np.int32)
    return Case("CumSum", {"x": x}, {"exclusive": int(r.integers(0, 2)), "reverse": int(r.integers(0, 2))}, {"axis": axis})


def tile_case(r):
    shape = shape_of(r, 1, 4)
    repeats = np.array([int(r.choice([0, 1, 1, 2, 3])) for _ in shape], np.int64)
    x = f32(r, *shape) if r.random() < 0.7 else r.random(size=shape) < 0.5
    return Case("Tile", {"x": x}, {}, {"repeats": repeats})


def trilu_case(r):
    shape = shape_of(r, 2, 4)
    x = f32(r, *shape) if r.random() < 0.7 else r.integers(-5, 6, size=shape).astype(np.int64)
    attrs = {"upper": int(r.integers(0, 2))}
    if r.random() < 0.3:
        return Case("Trilu", {"x": x}, attrs, opset=14)
    return Case("Trilu", {"x": x}, attrs, {"k": np.array(int(r.integers(-4, 5)), np.int64)}, opset=14)


def one_hot_case(r):
    shape = shape_of(r, 0, 3, zero=0.0)  # ONNX Runtime 1.22 dies (SIGFPE) on empty indices
    depth = int(r.integers(1, 6))
    idx = r.integers(-depth - 1, depth + 1, size=shape).astype(np.int64)  # ONNX Runtime's type combinations
    values = np.array([0, 1], np.float32) if r.random() < 0.5 else np.array([-2, 7], np.int64)
    return Case("OneHot", {"idx": idx}, {"axis": int(r.integers(-len(shape) - 1, len(shape) + 1))},
                {"depth": np.array(depth, np.int64), "values": values}, opset=11)


def non_zero_case(r):
    shape = shape_of(r, 0, 4)
    x = r.random(size=shape) < 0.4 if r.random() < 0.5 else (f32(r, *shape).round() * (r.random(size=shape) < 0.5)).astype(np.float32)
    return Case("NonZero", {"x": np.asarray(x)})


def arg_case(op):
    def gen(r):
        shape = shape_of(r, 1, 4, zero=0.0)
        x = f32(r, *shape).round(1) if r.random() < 0.6 else r.integers(-3, 4, size=shape).astype(np.int64)
        attrs = {"axis": int(r.integers(-len(shape), len(shape))), "keepdims": int(r.integers(0, 2)),
                 "select_last_index": int(r.integers(0, 2))}
        return Case(op, {"x": x}, attrs)
    return gen


def top_k_case(r):
    shape = shape_of(r, 1, 4, zero=0.0)
    axis = int(r.integers(-len(shape), len(shape)))
    x = f32(r, *shape).round(1) if r.random() < 0.6 else r.integers(-3, 4, size=shape).astype(np.int64)
    k = int(r.integers(0, shape[axis] + 1))
    return Case("TopK", {"x": x}, {"axis": axis, "largest": int(r.integers(0, 2)), "sorted": 1},
                {"k": np.array([k], np.int64)}, outputs=2, opset=11)


def gather_elements_case(r):
    shape = shape_of(r, 1, 4, zero=0.0)
    axis = int(r.integers(-len(shape), len(shape)))
    ishape = [int(r.integers(1, d + 1)) for d in shape]
    ishape[axis] = int(r.integers(1, 6))
    n = shape[axis]
    idx = r.integers(-n, n, size=ishape).astype(np.int64 if r.random() < 0.7 else np.int32)
    return Case("GatherElements", {"x": f32(r, *shape), "idx": idx}, {"axis": axis})


def gather_nd_case(r):
    shape = shape_of(r, 1, 4, zero=0.0)
    b = int(r.integers(0, len(shape)))
    q = int(r.integers(1, len(shape) - b + 1))
    lead = shape[:b] + [int(r.integers(1, 4)) for _ in range(int(r.integers(0 if b + q < len(shape) else 1, 2)))]
    idx = np.stack([r.integers(-shape[b + k], shape[b + k], size=lead) for k in range(q)], axis=-1).astype(np.int64)
    return Case("GatherND", {"x": f32(r, *shape), "idx": idx}, {"batch_dims": b})


def scatter_elements_case(r):
    shape = shape_of(r, 1, 3, zero=0.0)
    axis = int(r.integers(-len(shape), len(shape)))
    ishape = [int(r.integers(1, d + 1)) for d in shape]
    n = shape[axis]
    reduction = str(r.choice(["none", "add", "mul", "max", "min"]))
    if reduction == "none":  # distinct targets: ONNX leaves the order of duplicates free
        ishape[axis] = int(r.integers(1, n + 1))
        idx = np.argsort(r.random(size=shape), axis=axis).take(range(ishape[axis]), axis=axis)
        idx = idx[tuple(slice(0, d) for d in ishape)]
    else:
        idx = r.integers(-n, n, size=ishape)
    return Case("ScatterElements", {"x": f32(r, *shape), "idx": idx.astype(np.int64), "u": f32(r, *ishape)},
                {"axis": axis, "reduction": reduction}, opset=18)


def scatter_nd_case(r):
    shape = shape_of(r, 1, 4, zero=0.0)
    q = int(r.integers(1, len(shape) + 1))
    rows = int(r.integers(1, 5))
    reduction = str(r.choice(["none", "add", "mul", "max", "min"]))
    cells = [np.unravel_index(i, shape[:q]) for i in r.permutation(int(np.prod(shape[:q])))]
    if reduction == "none":
        rows = min(rows, len(cells))
        idx = np.array([cells[i] for i in range(rows)], np.int64).reshape(rows, q)
    else:
        idx = np.array([cells[int(r.integers(0, len(cells)))] for _ in range(rows)], np.int64).reshape(rows, q)
    return Case("ScatterND", {"x": f32(r, *shape), "idx": idx, "u": f32(r, rows, *shape[q:])}, {"reduction": reduction}, opset=18)


def size_case(r):
    return Case("Size", {"x": f32(r, *shape_of(r, 0, 4))})


def cast_like_case(r):
    shape = shape_of(r, 0, 3)
    target = [np.zeros(1, np.int64), np.zeros(1, np.float32), np.zeros(1, np.bool_), np.zeros(1, np.int32)][int(r.integers(0, 4))]
    return Case("CastLike", {"x": f32(r, *shape, lo=-50, hi=50), "t": target}, opset=15)


def eye_like_case(r):
    attrs = {"k": int(r.integers(-3, 4))}
    if r.random() < 0.5:
        attrs["dtype"] = int(r.choice([TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32]))
    return Case("EyeLike", {"x": f32(r, small_dim(r), small_dim(r))}, attrs)


def mean_case(r):
    a, b = broadcast_shapes(r)
    return Case("Mean", {"a": f32(r, *a), "b": f32(r, *b), "c": f32(r, *b)})


def softmax_like_case(op):
    def gen(r):
        shape = shape_of(r, 1, 4)
        opset = int(r.choice([11, 13]))
        return Case(op, {"x": f32(r, *shape, lo=-10, hi=10).round(1)}, {"axis": int(r.integers(-len(shape), len(shape)))}, opset=opset)
    return gen


def depth_case(op):
    def gen(r):
        b = int(r.integers(1, 4))
        n, c, h, w = int(r.integers(1, 3)), int(r.integers(1, 4)), int(r.integers(1, 4)), int(r.integers(1, 4))
        if op == "DepthToSpace":
            return Case(op, {"x": f32(r, n, c * b * b, h, w)}, {"blocksize": b, "mode": str(r.choice(["DCR", "CRD"]))})
        return Case(op, {"x": f32(r, n, c, h * b, w * b)}, {"blocksize": b})
    return gen


def instance_norm_case(r):
    n, c = small_dim(r), int(r.integers(1, 5))
    shape = [n, c] + shape_of(r, 1, 2, zero=0.0)
    return Case("InstanceNormalization", {"x": f32(r, *shape)}, {"epsilon": 1e-5}, {"s": f32(r, c), "b": f32(r, c)})


def group_norm_case(r):
    g = int(r.integers(1, 4))
    c = g * int(r.integers(1, 3))
    shape = [int(r.integers(1, 4)), c] + shape_of(r, 1, 2, zero=0.0)  # ONNX Runtime's function body cannot reshape N = 0
    opset = int(r.choice([18, 21]))
    p = c if opset >= 21 else g
    return Case("GroupNormalization", {"x": f32(r, *shape)}, {"num_groups": g, "epsilon": 1e-5},
                {"s": f32(r, p), "b": f32(r, p)}, opset=opset)


def mvn_case(r):
    shape = [int(r.integers(1, 3)), int(r.integers(1, 4)), int(r.integers(1, 5)), int(r.integers(1, 5))]
    attrs = {} if r.random() < 0.5 else {"axes": sorted(r.choice(4, size=int(r.integers(1, 4)), replace=False).tolist())}
    return Case("MeanVarianceNormalization", {"x": f32(r, *shape)}, attrs)


def lrn_case(r):
    # NCHW and odd sizes: what ONNX Runtime implements.
    shape = [small_dim(r), int(r.integers(1, 6)), int(r.integers(1, 5)), int(r.integers(1, 5))]
    attrs = {"size": int(r.choice([1, 3, 5])), "alpha": float(r.choice([1e-4, 0.01])), "beta": float(r.choice([0.75, 0.5])),
             "bias": float(r.choice([1.0, 2.0]))}
    return Case("LRN", {"x": f32(r, *shape)}, attrs)


EINSUM_EQUATIONS = ["ij,jk->ik", "bij,bjk->bik", "bhqd,bhkd->bhqk", "bhqk,bhkd->bhqd", "ii->i", "ij->ji", "ij->", "i,i->",
                    "i,j->ij", "...ij,...jk->...ik", "ij,jk", "ii", "ab,ab->ab", "bn,anm,bm->ba", "bhwc,hkc->bhwk", "ijk->kj",
                    "b...,b...->b..."]


def einsum_case(r):
    eq = str(r.choice(EINSUM_EQUATIONS))
    terms = eq.split("->")[0].split(",")
    sizes = {c: int(r.integers(1, 5)) for c in "abcdhijkmnqw"}
    ell = [int(r.integers(1, 4)) for _ in range(int(r.integers(0, 3)))]
    inputs = {}
    for i, t in enumerate(terms):
        shape = []
        for part in t.split("..."):
            shape.append([sizes[c] for c in part])
        dims = shape[0] + ((ell[-int(r.integers(0, len(ell) + 1)):] if ell and r.random() < 0.3 else ell) + shape[1] if len(shape) > 1 else [])
        inputs[f"x{i}"] = f32(r, *dims)
    return Case("Einsum", inputs, {"equation": eq}, opset=12)


def recurrent_case(op):
    """RNN, GRU or LSTM: every direction, biases, initial states, sequence lengths (0 included), peepholes."""
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    def gen(r):
        seq, batch, inp, hid = int(r.integers(1, 5)), int(r.integers(1, 4)), int(r.integers(1, 5)), int(r.integers(1, 5))
        direction = str(r.choice(["forward", "reverse", "bidirectional"]))
        d = 2 if direction == "bidirectional" else 1
        layout = 0  # ONNX Runtime refuses layout = 1: tests/ops/recurrent_test.cpp checks it against layout 0
        attrs = {"hidden_size": hid, "direction": direction}
        opset = int(r.choice([7, 14]))
        if op == "GRU":
            attrs["linear_before_reset"] = int(r.integers(0, 2))
        if r.random() < 0.2:
            attrs["clip"] = 0.7
        x = f32(r, *([batch, seq, inp] if layout else [seq, batch, inp]))
        consts = {"w": f32(r, d, gates * hid, inp, lo=-1, hi=1), "r": f32(r, d, gates * hid, hid, lo=-1, hi=1)}
        names = ["x", "w", "r"]
        state = [batch, d, hid] if layout else [d, batch, hid]
        optional = [("b", r.random() < 0.7, lambda: f32(r, d, 2 * gates * hid, lo=-1, hi=1)),
                    ("lens", r.random() < 0.4, lambda: r.integers(0 if r.random() < 0.3 else 1, seq + 1, size=batch).astype(np.int32)),
                    ("h0", r.random() < 0.5, lambda: f32(r, *state))]
        if op == "LSTM":
            optional += [("c0", r.random() < 0.5, lambda: f32(r, *state)), ("p", r.random() < 0.4, lambda: f32(r, d, 3 * hid, lo=-1, hi=1))]
        inputs = {"x": x}
        for name, use, make in optional:
            if use:
                (inputs if name in ("h0", "c0") else consts)[name] = make()
                names.append(name)
            else:
                names.append("")
        while names[-1] == "":
            names.pop()
        outputs = 3 if op == "LSTM" else 2
        return Case(op, inputs, attrs, consts, outputs=outputs, opset=opset, order=names)
    return gen


def if_case(r):
    """If on a runtime bool: branches that read the outer inputs (captured values), one that only passes
    an outer value through, one with a nested If, and outputs of different shapes per branch."""
    shape = shape_of(r, 1, 3, zero=0.0)
    out = helper.make_tensor_value_info("o", TensorProto.FLOAT, None)
    then_nodes = [helper.make_node("Add", ["x", "y"], ["o"])]
    kind = int(r.integers(0, 3))
    if kind == 0:
        else_nodes = [helper.make_node("Mul", ["x", "y"], ["o"])]
    elif kind == 1:  # a different shape
        else_nodes = [helper.make_node("ReduceSum", ["x"], ["o"], keepdims=0)]
    else:  # a nested If on a value computed inside the branch
        inner_then = helper.make_graph([helper.make_node("Neg", ["x"], ["io"])], "inner_then", [],
                                       [helper.make_tensor_value_info("io", TensorProto.FLOAT, None)])
        inner_else = helper.make_graph([helper.make_node("Identity", ["y"], ["io"])], "inner_else", [],
                                       [helper.make_tensor_value_info("io", TensorProto.FLOAT, None)])
        else_nodes = [helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0),
                      helper.make_node("Greater", ["m", "zero"], ["c2"]),
                      helper.make_node("If", ["c2"], ["o"], then_branch=inner_then, else_branch=inner_else)]
    then_g = helper.make_graph(then_nodes, "then", [], [out])
    else_g = helper.make_graph(else_nodes, "else", [], [out])
    inputs = {"c": np.array(r.random() < 0.5), "x": f32(r, *shape), "y": f32(r, *shape)}
    return Case("If", inputs, {"then_branch": then_g, "else_branch": else_g}, {"zero": np.array(0, np.float32)},
                order=["c"], opset=13)


def loop_case(r):
    """Loop with a trip count, a cond the body computes, or both; a carried sum, a scan output, and a
    captured outer value; zero trips included."""
    shape = shape_of(r, 1, 3, zero=0.0)
    body_in = [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cin", TensorProto.BOOL, []),
               helper.make_tensor_value_info("acc", TensorProto.FLOAT, None)]
    body_out = [helper.make_tensor_value_info("cout", TensorProto.BOOL, []), helper.make_tensor_value_info("acc2", TensorProto.FLOAT, None),
                helper.make_tensor_value_info("scan", TensorProto.FLOAT, None)]
    nodes = [helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["x", "fi"], ["step"]),          # x is captured from the outer graph
             helper.make_node("Add", ["acc", "step"], ["acc2"]),
             helper.make_node("ReduceSum", ["acc2"], ["total"], keepdims=0),
             helper.make_node("Less", ["total", "limit"], ["cout"]),
             helper.make_node("Identity", ["acc2"], ["scan"])]
    body = helper.make_graph(nodes, "body", body_in, body_out)
    form = int(r.integers(0, 3))
    trips = np.array(int(r.integers(0, 5)), np.int64)
    consts = {"limit": np.array(float(r.uniform(-2, 20)), np.float32)}
    inputs = {"x": f32(r, *shape, lo=0, hi=2), "a0": f32(r, *shape)}
    if form == 0:  # trip count only
        return Case("Loop", inputs, {"body": body}, {**consts, "m": trips}, outputs=2, order=["m", "", "a0"], opset=13)
    cond = np.array(r.random() < 0.8)
    if form == 1:  # cond only (the body stops it: x ≥ 0 makes the total grow)
        return Case("Loop", {**inputs, "c": cond}, {"body": body}, consts, outputs=2, order=["", "c", "a0"], opset=13)
    return Case("Loop", {**inputs, "c": cond}, {"body": body}, {**consts, "m": trips}, outputs=2, order=["m", "c", "a0"], opset=13)


def shape_case(r):
    shape = shape_of(r, 1, 4)
    attrs = {}
    opset = 13
    if r.random() < 0.5:
        attrs = {"start": int(r.integers(-5, 5)), "end": int(r.integers(-5, 5))}
        opset = 15
    return Case("Shape", {"x": f32(r, *shape)}, attrs, opset=opset)


def constant_of_shape_case(r):
    return Case("ConstantOfShape", {}, {"value": numpy_helper.from_array(np.array([r.uniform(-3, 3)], np.float32))},
                {"shape": np.array(shape_of(r, 0, 3), np.int64)})


def constant_case(r):
    return Case("Constant", {}, {"value": numpy_helper.from_array(f32(r, *shape_of(r, 0, 3)))})


def upsample_case(r):
    x = f32(r, 1, int(r.integers(1, 3)), int(r.integers(1, 5)), int(r.integers(1, 5)))
    scales = np.array([1, 1, r.choice([1.0, 2.0, 3.0]), r.choice([1.0, 2.0])], np.float32)
    return Case("Upsample", {"x": x}, {"mode": "nearest"}, {"scales": scales}, opset=9)


def dropout_case(r):
    return Case("Dropout", {"x": f32(r, *shape_of(r, 0, 3))}, {}, opset=13)


def global_pool_case(op):
    def gen(r):
        return Case(op, {"x": f32(r, small_dim(r), int(r.integers(1, 4)), *shape_of(r, 1, 3, zero=0.0))})
    return gen


def generators():
    ops = {
        "Conv": lambda r: window_case(r, "Conv"), "ConvTranspose": lambda r: window_case(r, "ConvTranspose"),
        "MaxPool": lambda r: window_case(r, "MaxPool"), "AveragePool": lambda r: window_case(r, "AveragePool"),
        "Add": binary_case("Add"), "Sub": binary_case("Sub"), "Mul": binary_case("Mul"),
        "Div": binary_case("Div", lambda r, s: np.where(r.random(size=s) < 0.5, -1, 1).astype(np.float32) *
                           f32(r, *s, lo=0.5, hi=2)),
        "Abs": signed_numeric_case("Abs"), "Neg": signed_numeric_case("Neg"), "Sign": signed_numeric_case("Sign"),
        "Floor": rounding_case("Floor"), "Ceil": rounding_case("Ceil"), "Round": rounding_case("Round"),
        "Sin": unary_case("Sin", -7, 7), "Cos": unary_case("Cos", -7, 7), "Softplus": unary_case("Softplus", -30, 30),
        "And": logical_case("And"), "Or": logical_case("Or"), "Xor": logical_case("Xor"), "Not": not_case,
        "IsNaN": is_nan_case, "IsInf": is_inf_case, "GreaterOrEqual": compare_case("GreaterOrEqual"),
        "LessOrEqual": compare_case("LessOrEqual"),
        "If": if_case, "Loop": loop_case, "LSTM": recurrent_case("LSTM"), "GRU": recurrent_case("GRU"), "RNN": recurrent_case("RNN"), "Einsum": einsum_case, "Range": range_case, "CumSum": cum_sum_case, "Tile": tile_case, "Trilu": trilu_case, "OneHot": one_hot_case,
        "NonZero": non_zero_case, "ArgMax": arg_case("ArgMax"), "ArgMin": arg_case("ArgMin"), "TopK": top_k_case,
        "GatherElements": gather_elements_case, "GatherND": gather_nd_case, "ScatterElements": scatter_elements_case,
        "ScatterND": scatter_nd_case, "Size": size_case, "CastLike": cast_like_case, "EyeLike": eye_like_case,
        "Sum": variadic_case("Sum"), "Mean": mean_case, "LogSoftmax": softmax_like_case("LogSoftmax"),
        "Hardmax": softmax_like_case("Hardmax"), "DepthToSpace": depth_case("DepthToSpace"),
        "SpaceToDepth": depth_case("SpaceToDepth"), "InstanceNormalization": instance_norm_case,
        "GroupNormalization": group_norm_case, "MeanVarianceNormalization": mvn_case, "LRN": lrn_case,
        "Tan": unary_case("Tan", -1.4, 1.4), "Asin": unary_case("Asin", -1, 1), "Acos": unary_case("Acos", -1, 1),
        "Atan": unary_case("Atan", -5, 5), "Sinh": unary_case("Sinh", -5, 5), "Cosh": unary_case("Cosh", -5, 5),
        "Asinh": unary_case("Asinh", -5, 5), "Acosh": unary_case("Acosh", 1, 6), "Atanh": unary_case("Atanh", -0.99, 0.99),
        "Softsign": unary_case("Softsign"), "Mish": unary_case("Mish", -20, 20, opset=18),
        "Elu": unary_case("Elu", attrs={"alpha": 0.7}), "Celu": unary_case("Celu", attrs={"alpha": 1.5}, opset=12),
        "Selu": unary_case("Selu"), "ThresholdedRelu": unary_case("ThresholdedRelu", attrs={"alpha": 0.5}, opset=10),
        "Shrink": unary_case("Shrink", attrs={"lambd": 0.7, "bias": 0.2}, opset=9), "Relu": unary_case("Relu"), "Exp": unary_case("Exp"),
        "Log": unary_case("Log", 0.01, 5.0), "Sqrt": unary_case("Sqrt", 0.0, 5.0), "Erf": unary_case("Erf"),
        "Reciprocal": unary_case("Reciprocal", 0.5, 3.0), "Sigmoid": unary_case("Sigmoid", -10, 10),
        "Tanh": unary_case("Tanh"),
        "Gelu": lambda r: unary_case("Gelu", -6, 6, {"approximate": str(r.choice(["none", "tanh"]))}, opset=20)(r), "Identity": unary_case("Identity"),
        "LeakyRelu": unary_case("LeakyRelu", attrs={"alpha": 0.1}),
        "HardSigmoid": unary_case("HardSigmoid", -5, 5, {"alpha": 0.2, "beta": 0.5}),
        "HardSwish": unary_case("HardSwish", -5, 5, opset=14),
        "Gemm": gemm_case, "MatMul": matmul_case, "BatchNormalization": batch_norm_case,
        "LayerNormalization": layer_norm_case, "Concat": concat_case, "Split": split_case, "Slice": slice_case,
        "Gather": gather_case, "Transpose": transpose_case, "Reshape": reshape_case,
        "Squeeze": squeeze_case("Squeeze"), "Unsqueeze": squeeze_case("Unsqueeze"), "Pad": pad_case,
        "Resize": resize_case, "ReduceMax": reduce_case("ReduceMax"), "ReduceMean": reduce_case("ReduceMean"),
        "ReduceSum": reduce_case("ReduceSum"),
        **{op: reduce_case(op) for op in ("ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
                                          "ReduceLogSumExp")}, "Softmax": softmax_case, "Flatten": flatten_case, "Expand": expand_case,
        "Where": where_case, "Clip": clip_case, "Cast": cast_case, "QuantizeLinear": quantize_case("QuantizeLinear"),
        "DequantizeLinear": quantize_case("DequantizeLinear"), "PRelu": prelu_case, "Pow": pow_case,
        "Max": variadic_case("Max"), "Min": variadic_case("Min"), "Mod": mod_case, "Equal": compare_case("Equal"),
        "Greater": compare_case("Greater"), "Less": compare_case("Less"), "Shape": shape_case,
        "ConstantOfShape": constant_of_shape_case, "Constant": constant_case, "Upsample": upsample_case,
        "Dropout": dropout_case, "GlobalAveragePool": global_pool_case("GlobalAveragePool"),
        "GlobalMaxPool": global_pool_case("GlobalMaxPool"),
    }
    return ops


# Registered ops no model q8 reads can hold, so ONNX Runtime cannot be asked: a unit test covers each.
NOT_COMPARED = {}


def registered_ops():
    text = open(os.path.join(ROOT, "engine", "ops", "ops.inc")).read()
    return re.findall(r"^Q8_OP\((\w+),", text, re.M)


# Where ONNX Runtime departs from the ONNX specification, q8 follows the specification; such cases
# are reported, not compared. Each entry: (what ORT does, a test on the case).
def _same_pad(c):
    return c.attrs.get("auto_pad", "NOTSET").startswith("SAME")


def _same_pad_negative(c):
    """auto_pad SAME where (out − 1)·stride + dilated kernel < input: ONNX's pad total is negative."""
    if not _same_pad(c) or c.op not in ("MaxPool", "AveragePool"):
        return False
    spatial = c.inputs["x"].shape[2:]
    kernel, strides = c.attrs["kernel_shape"], c.attrs["strides"]
    dil = c.attrs.get("dilations", [1] * len(kernel))
    return any(((n + s - 1) // s - 1) * s + (k - 1) * d + 1 < n for n, k, s, d in zip(spatial, kernel, strides, dil))


def _full_pads(c):
    """A Pad case's pads for every axis (opset 18's axes input names some)."""
    rank, pads = c.inputs["x"].ndim, c.consts["pads"]
    if "axes" not in c.consts:
        return pads
    full, axes = np.zeros(2 * rank, np.int64), [a % rank for a in c.consts["axes"]]
    for k, a in enumerate(axes):
        full[a], full[rank + a] = pads[k], pads[len(axes) + k]
    return full


def _reflect_wider(c):
    if c.op != "Pad" or c.attrs.get("mode") != "reflect":
        return False
    shape, pads = c.inputs["x"].shape, _full_pads(c)
    return any(pads[i] > shape[i % len(shape)] - 1 for i in range(len(pads)))


def _pad_crop_matches_numpy(c, q8_out):
    """A constant Pad with negative (cropping) pads whose q8 output equals numpy's crop-then-pad."""
    if c.op != "Pad" or c.attrs.get("mode") != "constant" or not (c.consts["pads"] < 0).any():
        return False
    x, p = c.inputs["x"], _full_pads(c)
    r = x.ndim
    crop = tuple(slice(max(0, -p[i]), x.shape[i] - max(0, -p[r + i])) for i in range(r))
    want = np.pad(x[crop], [(max(0, p[i]), max(0, p[r + i])) for i in range(r)], constant_values=c.consts["value"])
    got = os.path.join(q8_out, "y0.npy")
    return os.path.exists(got) and np.array_equal(np.load(got), want)


def _resize_fractional(c):
    if c.op != "Resize" or "scales" not in c.consts or c.attrs.get("coordinate_transformation_mode") != "align_corners":
        return False
    shape, scales = c.inputs["x"].shape, c.consts["scales"]
    return any(float(n * s) != float(int(n * s)) for n, s in zip(shape, scales))


ORT_DEPARTURES = [
    ("ONNX Runtime pools windows that do not fit the padded input (q8 refuses them, as it does for Conv)",
     lambda c, err, p: c.op in ("MaxPool", "AveragePool") and "exceeds padded input size" in p),
    ("ONNX Runtime pads SAME pools by a negative amount when the stride exceeds the window (q8: 0, as ONNX's pads formula is clamped)",
     lambda c, err, p: _same_pad_negative(c)),
    ("a MaxPool window wholly in the padding: ONNX Runtime gives -FLT_MAX, q8 -inf (the max of no elements)",
     lambda c, err, p: c.op == "MaxPool" and "(q8 -inf, ort -3.40282" in p),
    ("ONNX Runtime's reflect Pad on an axis of size 1 reads outside the input (q8 refuses it)",
     lambda c, err, p: c.op == "Pad" and "reflect padding needs at least 2 elements" in p),
    ("ONNX Runtime's align_corners divides by the integer output length; ONNX's reference, whose backend tests q8 "
     "passes, by input · scale", lambda c, err, p: _resize_fractional(c)),
    ("ONNX Runtime refuses dilations with auto_pad SAME", lambda c, err, p: "Dilation not supported for AutoPadType" in err),
    ("ONNX Runtime refuses LayerNormalization over one element", lambda c, err, p: "must be larger than 1, got 1" in err),
    ("ONNX Runtime refuses broadcasting a 0-size MatMul batch",
     lambda c, err, p: "cannot broadcast on dim" in err and c.op == "MatMul"),
    ("ONNX Runtime sizes ConvTranspose SAME outputs by clamping negative total padding to 0 "
     "(the specification: output = input · stride)",
     lambda c, err, p: c.op == "ConvTranspose" and _same_pad(c) and err == "shape"),
    ("ONNX Runtime pools with auto_pad SAME misplace dilated windows (other sizes or values, or a negative size it refuses)",
     lambda c, err, p: c.op == "MaxPool" and _same_pad(c) and any(d > 1 for d in c.attrs.get("dilations", []))),
    ("constant Pad mixing cropping and padding: q8 equals numpy's crop-then-pad, ONNX Runtime does not",
     lambda c, err, p: _pad_crop_matches_numpy(c, c.q8_out)),
    ("AveragePool with ceil_mode and count_include_pad: for a window past the end padding ONNX Runtime divides by "
     "the whole kernel, q8 (as PyTorch) by the part inside the padded input",
     lambda c, err, p: c.op == "AveragePool" and c.attrs.get("ceil_mode") == 1 and c.attrs.get("count_include_pad") == 1),
    ("MeanVarianceNormalization over one element: ONNX Runtime's E[x²] − E[x]² rounds below 0 and gives NaN, q8's "
     "two-pass variance is 0", lambda c, err, p: c.op == "MeanVarianceNormalization" and "ort nan" in p),
    ("ONNX Runtime's Einsum fails summing out an axis and transposing the rest ('ijk->kj': 'the candidate output does "
     "not match'); q8 equals numpy.einsum there", lambda c, err, p: c.op == "Einsum" and "candidate output does not match" in err),
    ("ONNX Runtime's reverse RNN ends a sequence of length 0 in its initial state, its forward RNN, GRU and LSTM in zeros; "
     "q8 in zeros", lambda c, err, p: c.op == "RNN" and c.attrs.get("direction") in ("reverse", "bidirectional") and
     "lens" in c.consts and (c.consts["lens"] == 0).any() and "(q8 0.0," in p),
    ("reflect Pad wider than the axis: q8 reflects periodically as numpy does; ONNX leaves it undefined and "
     "ONNX Runtime gives other values", lambda c, err, p: _reflect_wider(c)),
]


def departure(case, ort_out, problem):
    err_file = os.path.join(ort_out, "error.txt")
    err = open(err_file).read() if os.path.exists(err_file) else "shape" if "vs ONNX Runtime's" in problem else ""
    for what, test in ORT_DEPARTURES:
        if test(case, err, problem):
            return what
    return ""


def load_outputs(directory):
    return {f[:-4]: np.load(os.path.join(directory, f)) for f in sorted(os.listdir(directory)) if f.endswith(".npy")}


def verdict(q8_proc, q8_out, ort_out):
    ort_error = os.path.exists(os.path.join(ort_out, "error.txt"))
    lines = [l for l in q8_proc.stderr.splitlines() if l.strip()]
    if q8_proc.returncode != 0:
        if q8_proc.returncode < 0 or q8_proc.returncode > 2:
            return f"q8 crashed (exit {q8_proc.returncode}): {q8_proc.stderr.strip()[-300:]}"
        if len(lines) != 1 or not lines[0].startswith("q8: error:"):
            return f"q8's error is not one 'q8: error:' line: {q8_proc.stderr.strip()[:300]!r}"
        if not ort_error:
            return f"q8 refused what ONNX Runtime runs: {lines[0]}"
        return ""
    if ort_error:
        return "q8 ran what ONNX Runtime refuses: " + open(os.path.join(ort_out, "error.txt")).read().strip()[:200]
    got, want = load_outputs(q8_out), load_outputs(ort_out)
    if set(got) != set(want):
        return f"outputs {sorted(got)} vs {sorted(want)}"
    for k, w in want.items():
        g = got[k]
        if g.shape != w.shape:
            return f"{k}: shape {list(g.shape)} vs ONNX Runtime's {list(w.shape)}"
        if g.dtype != w.dtype:
            return f"{k}: dtype {g.dtype} vs {w.dtype}"
        if w.dtype.kind == "f":
            if not np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True):
                d = np.abs(g.astype(np.float64) - w)
                d[np.isnan(d)] = np.inf
                i = np.unravel_index(np.argmax(d), w.shape)
                return f"{k}: max |diff| {d.max():.3g} at {i} (q8 {g[i]}, ort {w[i]})"
        elif not np.array_equal(g, w):
            return f"{k}: values differ at {np.argwhere(g != w)[0].tolist()}"
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--q8", required=True)
    ap.add_argument("--ort-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--cases-per-op", type=int, default=6)
    ap.add_argument("--ops", help="only these ops, comma-separated (all registered ops by default)")
    a = ap.parse_args()
    only = set(a.ops.split(",")) if a.ops else None
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    tally = Tally()
    gens = generators()
    missing = [op for op in registered_ops() if op not in gens and op not in NOT_COMPARED]
    for op, why in NOT_COMPARED.items():
        print(f"skip {op}: {why}")
    tally.check("every registered op has a case generator", f"missing: {missing}" if missing else "")

    cases = []
    for op in registered_ops():
        if op not in gens or (only and op not in only):
            continue
        many = a.cases_per_op * (4 if op in ("Conv", "ConvTranspose", "MaxPool", "AveragePool") else
                                 2 if op in ("Add", "Mul", "MatMul", "Gemm", "Resize", "Slice") else 1)
        r = np.random.default_rng([a.seed, sum(map(ord, op))])
        for i in range(many):
            case = gens[op](r)
            d = os.path.join(a.work, f"{op}_{i}")
            os.makedirs(d)
            onnx.save(case.model(), os.path.join(d, "model.onnx"))
            files = {}
            for name, value in case.inputs.items():
                files[name] = os.path.join(d, f"in_{name}.npy")
                np.save(files[name], value)
            cases.append((f"{op}_{i}", case, d, files))
    manifest = [{"model": os.path.join(d, "model.onnx"), "inputs": files, "out": os.path.join(d, "ort")}
                for _, _, d, files in cases]
    with open(os.path.join(a.work, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    subprocess.run(["node", os.path.join(HERE, "ort_cases.js"), a.ort_dir, os.path.join(a.work, "manifest.json")], check=True)

    by_op = {}
    for name, case, d, files in cases:
        out = os.path.join(d, "q8")
        os.makedirs(out)
        cmd = [a.q8, "run", os.path.join(d, "model.onnx"), "--output-dir", out, "--threads", "2"]
        cmd += sum([["--input", f"{k}={v}"] for k, v in files.items()], [])
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        problem = verdict(proc, out, os.path.join(d, "ort"))
        case.q8_out = out
        why = departure(case, os.path.join(d, "ort"), problem) if problem else ""
        if why:
            print(f"skip {name}: {case.describe()}: {why}")
            continue
        if problem:
            tally.check(f"{name}: {case.describe()}", problem)
        else:
            by_op[case.op] = by_op.get(case.op, 0) + 1
    # The comparison means something only where ONNX Runtime ran the case: every op needs such cases.
    ran = {}
    for _, case, d, _ in cases:
        if not os.path.exists(os.path.join(d, "ort", "error.txt")):
            ran[case.op] = ran.get(case.op, 0) + 1
    for op in registered_ops():
        if op in gens and (not only or op in only):
            tally.check(f"{op}: ONNX Runtime ran {ran.get(op, 0)} cases, q8 agreed on {by_op.get(op, 0)} in all",
                        "" if ran.get(op, 0) > 0 else "no case ran in ONNX Runtime: nothing was compared")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
