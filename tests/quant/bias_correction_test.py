#!/usr/bin/python3
"""Bias correction (docs/calibration.md) against a numpy reference written from the doc.

    bias_correction_test.py Q8 WORK

A small model, Conv → Relu → Conv (no bias) → GlobalAveragePool → Flatten → Gemm (transB), whose
Relu output is skewed so that its quantization shifts means. q8 calibrates it and quantizes it with
and without --bias-correction (--fp32-weights, so every weight and bias is readable). The reference
runs the QDQ model written without correction in numpy (its own QuantizeLinear, DequantizeLinear,
Conv, Relu, pooling and Gemm), and for each Conv and Gemm measures the mean over the samples and
positions of Layer(x; W, b) − Layer(DQ(Q(x)); DQ(Q(W)), b), x the layer's input in that model; the
corrected model's biases must be the original biases plus those shifts. Also: a bias-less Conv gets
one, --bias-correction-samples limits the samples, a table without data and no --data is an error,
and the correction brings the QDQ model's output mean closer to FP32's.
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from command import run_command as q8  # noqa: E402

rng = np.random.default_rng(3)
W1 = (rng.normal(size=(6, 3, 3, 3)) * 0.6).astype(np.float32)
B1 = rng.normal(0.3, 0.2, size=6).astype(np.float32)
W2 = (rng.normal(size=(5, 6, 3, 3)) * 0.3).astype(np.float32)
W3 = (rng.normal(size=(4, 5)) * 0.5).astype(np.float32)
B3 = rng.normal(size=4).astype(np.float32)


def model():
    n = helper.make_node
    nodes = [n("Conv", ["x", "W1", "B1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]), n("Relu", ["c1"], ["r1"]),
             n("Conv", ["r1", "W2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]), n("GlobalAveragePool", ["c2"], ["p"]),
             n("Flatten", ["p"], ["f"]), n("Gemm", ["f", "W3", "B3"], ["y"], name="fc", transB=1)]
    inits = [numpy_helper.from_array(v, k) for k, v in {"W1": W1, "B1": B1, "W2": W2, "W3": W3, "B3": B3}.items()]
    g = helper.make_graph(nodes, "bc", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 10, 10])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])], inits)
    return helper.make_model(g, opset_imports=[helper.make_operatorsetid("", 13)])


def quantize(x, s, axis=None, narrow=False):
    s = np.asarray(s, np.float32)
    if axis is not None and s.ndim == 1:
        shape = [1] * x.ndim
        shape[axis] = -1
        s = s.reshape(shape)
    lo = -127 if narrow else -128
    return np.clip(np.rint((x / s).astype(np.float32)), lo, 127).astype(np.float32), s


def conv(x, w, b, node):
    pads = next((list(a.ints) for a in node.attribute if a.name == "pads"), [0, 0, 0, 0])
    t = F.conv2d(torch.from_numpy(np.array(x)), torch.from_numpy(np.array(w)), None if b is None else torch.from_numpy(np.array(b)),
                 padding=pads[0])
    return t.numpy()


def gemm(x, w, b):
    return (x.astype(np.float64) @ w.T.astype(np.float64) + b).astype(np.float32)


def evaluate(m, x):
    """The QDQ model, op by op, in numpy: every value by name."""
    v = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    v["x"] = x
    for n in m.graph.node:
        i = [v[k] if k else None for k in n.input]
        axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
        if n.op_type == "QuantizeLinear":
            q, _ = quantize(i[0], i[1], axis if np.ndim(i[1]) else None)
            out = q
        elif n.op_type == "DequantizeLinear":
            s = np.asarray(i[1], np.float32)
            if s.ndim == 1:
                shape = [1] * i[0].ndim
                shape[axis] = -1
                s = s.reshape(shape)
            out = (i[0].astype(np.float32) * s).astype(np.float32)
        elif n.op_type == "Conv":
            out = conv(i[0], i[1], i[2] if len(i) > 2 else None, n)
        elif n.op_type == "Relu":
            out = np.maximum(i[0], 0)
        elif n.op_type == "GlobalAveragePool":
            out = i[0].mean(axis=(2, 3), keepdims=True, dtype=np.float64).astype(np.float32)
        elif n.op_type == "Flatten":
            out = i[0].reshape(i[0].shape[0], -1)
        elif n.op_type == "Gemm":
            out = gemm(i[0], i[1], i[2])
        else:
            raise AssertionError(f"the reference has no {n.op_type}")
        v[n.output[0]] = out
    return v


def reference_shifts(m, x):
    made = {o: n for n in m.graph.node for o in n.output}
    v = evaluate(m, x)
    shifts = {}
    for n in m.graph.node:
        if n.op_type not in ("Conv", "Gemm"):
            continue
        q_x, q_w = made[made[n.input[0]].input[0]], made[made[n.input[1]].input[0]]
        xin, w = v[q_x.input[0]], v[q_w.input[0]]
        xq = v[n.input[0]]  # DQ(Q(x)) as the model computes it
        wq = v[n.input[1]]  # DQ(Q(W))
        b = v[n.input[2]] if len(n.input) > 2 and n.input[2] else None
        if n.op_type == "Conv":
            d = conv(xin, w, b, n).astype(np.float64) - conv(xq, wq, b, n)
            shifts[n.name] = d.mean(axis=(0, 2, 3))
        else:
            d = gemm(xin, w, b).astype(np.float64) - gemm(xq, wq, b)
            shifts[n.name] = d.mean(axis=0)
    return shifts, v


def biases(m):
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    return {n.name: (inits[n.input[2]] if len(n.input) > 2 and n.input[2] else None) for n in m.graph.node if n.op_type in ("Conv", "Gemm")}


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    path, data = os.path.join(work, "bc.onnx"), os.path.join(work, "x.npy")
    onnx.save(model(), path)
    x = rng.normal(0.2, 1.0, size=(24, 3, 10, 10)).astype(np.float32)
    np.save(data, x)
    table = os.path.join(work, "bc.json")
    q8(binary, "calibrate", path, "--data", data, "--json", table, "--method", "percentile", "--percentile", "99")
    plain, corrected = os.path.join(work, "plain.qdq.onnx"), os.path.join(work, "bc.qdq.onnx")
    q8(binary, "quantize", path, "--calib", table, "-o", plain, "--fp32-weights")
    out = q8(binary, "quantize", path, "--calib", table, "-o", corrected, "--fp32-weights", "--bias-correction")
    assert "3 layers corrected on 24 samples" in out, out
    shifts, values = reference_shifts(onnx.load(plain), x)
    got = biases(onnx.load(corrected))
    want = {"conv1": B1 + shifts["conv1"], "conv2": shifts["conv2"], "fc": B3 + shifts["fc"]}
    for name, w in want.items():
        scale = max(1e-3, float(np.abs(shifts[name]).max()))
        np.testing.assert_allclose(got[name], w, rtol=0, atol=1e-4 * scale + 1e-6, err_msg=name)
        assert np.abs(shifts[name]).max() > 1e-4, (name, shifts[name])  # a shift there is to correct
    # The corrected model's mean output is closer to FP32's than the uncorrected one's.
    fp32_mean = gemm(evaluate_fp32(x), W3, B3).mean(0)
    plain_mean = values["y"].mean(0)
    bc_mean = evaluate(onnx.load(corrected), x)["y"].mean(0)
    assert np.abs(bc_mean - fp32_mean).sum() < np.abs(plain_mean - fp32_mean).sum(), (fp32_mean, plain_mean, bc_mean)
    # --bias-correction-samples: the first 8 samples only.
    out = q8(binary, "quantize", path, "--calib", table, "-o", os.path.join(work, "bc8.qdq.onnx"), "--fp32-weights", "--bias-correction",
             "--bias-correction-samples", "8")
    assert "on 8 samples" in out, out
    shifts8, _ = reference_shifts(onnx.load(plain), x[:8])
    got8 = biases(onnx.load(os.path.join(work, "bc8.qdq.onnx")))
    np.testing.assert_allclose(got8["conv1"], B1 + shifts8["conv1"], rtol=0, atol=1e-4 * float(np.abs(shifts8["conv1"]).max()) + 1e-6)
    # A table that records no data, and no --data: one error line.
    cache = os.path.join(work, "bc.cache")
    q8(binary, "calibrate", path, "--data", data, "--cache", cache)
    err = q8(binary, "quantize", path, "--calib", cache, "-o", os.path.join(work, "none.onnx"), "--bias-correction", ok=False)
    assert "--bias-correction needs samples" in err and not os.path.exists(os.path.join(work, "none.onnx")), err
    print("bias correction matches the numpy reference: shifts " +
          ", ".join(f"{k} max {np.abs(v).max():.4g}" for k, v in shifts.items()) +
          f"; mean output error {np.abs(plain_mean - fp32_mean).sum():.4g} -> {np.abs(bc_mean - fp32_mean).sum():.4g}")


def evaluate_fp32(x):
    r = np.maximum(conv(x, W1, B1, helper.make_node("Conv", [], [], pads=[1, 1, 1, 1])), 0)
    return conv(r, W2, None, helper.make_node("Conv", [], [], pads=[1, 1, 1, 1])).mean(axis=(2, 3))


if __name__ == "__main__":
    main()
