#!/usr/bin/python3
"""Output-aware ranges (docs/calibration.md) against a numpy reference written from the doc.

    output_aware_test.py Q8 WORK

A small model: Conv (3→8, 3×3, pad 1) → Relu → MaxPool → depthwise Conv (group 8, stride 2) →
Relu, read by a Gemm (after Flatten) and by a MatMul (after a Reshape to [N, 8, 9]). Its readers:
the first Conv (source: the input), the depthwise Conv (source: behind MaxPool and Relu, the first
Conv's output) and the Gemm and MatMul together (one source, the depthwise Conv's output, through
two chains of carriers). Four samples give every row of every reader (no draws), so the
reference sees the same rows: im2col of each Conv's input (zeros in padding, per group), the rows
of the Gemm's and MatMul's inputs. For each source it searches the doc's candidates (48 geometric
from max |x| to max |x| / 1024, the table's amax, 16 between the best's neighbours) for the least
Σ ‖(x̂_a − x)·Wᵀ‖² / ‖x·Wᵀ‖² over its readers. q8's chosen scales (the QDQ model's, × 127) must be
where the reference's error is within 0.1 % of its least, and within 5 % of its amax; the refined
input's wide channel, which the first Conv barely reads, must be clipped; a range --overrides gives
stays; a table without data and no --data is one error line, and nothing is written.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from command import run_command as q8  # noqa: E402

rng = np.random.default_rng(11)
W1 = (rng.normal(size=(8, 3, 3, 3)) * 0.5).astype(np.float32)
W1[:, 0] *= 0.02  # input channel 0 is wide, but the first Conv barely reads it
B1 = rng.normal(0.1, 0.2, size=8).astype(np.float32)
W2 = (rng.normal(size=(8, 1, 3, 3)) * 0.7).astype(np.float32)
B2 = rng.normal(0.0, 0.2, size=8).astype(np.float32)
W3 = (rng.normal(size=(10, 72)) * 0.3).astype(np.float32)
B3 = rng.normal(size=10).astype(np.float32)
W4 = (rng.normal(size=(9, 5)) * 0.5).astype(np.float32)


def model():
    n = helper.make_node
    nodes = [n("Conv", ["x", "W1", "B1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]), n("Relu", ["c1"], ["r1"], name="relu1"),
             n("MaxPool", ["r1"], ["p1"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
             n("Conv", ["p1", "W2", "B2"], ["c2"], name="dw", group=8, strides=[2, 2], pads=[1, 1, 1, 1]),
             n("Relu", ["c2"], ["r2"], name="relu2"), n("Flatten", ["r2"], ["f"], name="flat"),
             n("Gemm", ["f", "W3", "B3"], ["y"], name="fc", transB=1), n("Reshape", ["r2", "shape"], ["rs"], name="reshape"),
             n("MatMul", ["rs", "W4"], ["z"], name="mm")]
    inits = [numpy_helper.from_array(v, k) for k, v in {"W1": W1, "B1": B1, "W2": W2, "B2": B2, "W3": W3, "B3": B3, "W4": W4}.items()]
    inits.append(numpy_helper.from_array(np.array([0, 8, 9], np.int64), "shape"))
    g = helper.make_graph(nodes, "oa", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 12, 12])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10]),
                           helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 8, 5])], inits)
    return helper.make_model(g, opset_imports=[helper.make_operatorsetid("", 13)])


def im2col(x, k, stride, pad):
    """Rows [N · positions, C · k · k] of x [N, C, H, W], laid out as a weight row W[m] is."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, w = xp.shape
    oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
    cols = np.stack([xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride] for i in range(k) for j in range(k)], axis=2)
    return cols.reshape(n, c * k * k, oh * ow).transpose(0, 2, 1).reshape(-1, c * k * k)


def conv(x, w, b, stride, pad, group=1):
    n, c, h, wd = x.shape
    cg, m = c // group, w.shape[0]
    outs = []
    for g in range(group):
        rows = im2col(x[:, g * cg:(g + 1) * cg], w.shape[2], stride, pad).astype(np.float64)
        ws = w[g * (m // group):(g + 1) * (m // group)].reshape(m // group, -1).astype(np.float64)
        outs.append(rows @ ws.T)
    oh = (h + 2 * pad - w.shape[2]) // stride + 1
    y = np.concatenate(outs, axis=1).reshape(n, oh, oh, m).transpose(0, 3, 1, 2)
    return (y + b.reshape(1, -1, 1, 1)).astype(np.float32)


def forward(x):
    c1 = conv(x, W1, B1, 1, 1)
    r1 = np.maximum(c1, 0)
    p1 = r1.reshape(len(x), 8, 6, 2, 6, 2).max(axis=(3, 5))
    c2 = conv(p1, W2, B2, 2, 1, group=8)
    return {"c1": c1, "p1": p1, "c2": c2, "r2": np.maximum(c2, 0)}


def fake_quant(x, a):
    s = np.float32(max(a, 2.0 ** -24) / 127.0)
    return np.clip(np.rint((x / s).astype(np.float32)), -128, 127).astype(np.float32) * s


def reader_error(rows_by_group, weights, a):
    """Σ over groups of ‖(x̂ − x)·Wᵀ‖², over Σ ‖x·Wᵀ‖²."""
    num = den = 0.0
    for rows, w in zip(rows_by_group, weights):
        r = rows.astype(np.float64)
        den += float(((r @ w.T.astype(np.float64)) ** 2).sum())
        num += float((((fake_quant(rows, a) - rows).astype(np.float64) @ w.T.astype(np.float64)) ** 2).sum())
    return num / den


def search(readers, max_abs, current):
    error = lambda a: sum(reader_error(r, w, a) for r, w in readers)  # noqa: E731
    coarse = [max_abs * 1024.0 ** (-k / 47) for k in range(48)]
    best, best_e, best_k = current, error(current), None
    for k, a in enumerate(coarse):
        e = error(a)
        if e < best_e or (e == best_e and a > best):
            best, best_e, best_k = a, e, k
    if best_k is not None:
        hi, lo = coarse[max(best_k - 1, 0)], coarse[min(best_k + 1, 47)]
        for j in range(1, 17):
            a = hi - (hi - lo) * j / 17
            e = error(a)
            if e < best_e or (e == best_e and a > best):
                best, best_e = a, e
    return best, error


def input_scales(m):
    """The scale of the Q/DQ on each weighted node's input 0."""
    made = {o: n for n in m.graph.node for o in n.output}
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    out = {}
    for n in m.graph.node:
        if n.op_type in ("Conv", "Gemm", "MatMul"):
            dq = made[n.input[0]]
            assert dq.op_type == "DequantizeLinear", (n.name, dq.op_type)
            out[n.name] = float(inits[dq.input[1]])
    return out


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    path, data = os.path.join(work, "oa.onnx"), os.path.join(work, "x.npy")
    onnx.save(model(), path)
    x = rng.normal(0.0, 1.0, size=(4, 3, 12, 12)).astype(np.float32)
    x[:, 0] *= 5  # the wide channel: its own error would keep it, the output's clips it
    np.save(data, x)
    table = os.path.join(work, "oa.json")
    q8(binary, "calibrate", path, "--data", data, "--json", table, "--method", "max")
    activations = json.load(open(table))["activations"]
    ranges = {k: v["amax"] for k, v in activations.items()}
    stats = {k: v["max_abs"] for k, v in activations.items()}
    plain, refined = os.path.join(work, "plain.qdq.onnx"), os.path.join(work, "oa.qdq.onnx")
    q8(binary, "quantize", path, "--calib", table, "-o", plain, "--check-samples", "0")
    out = q8(binary, "quantize", path, "--calib", table, "-o", refined, "--output-aware", "--check-samples", "0")
    assert "3 scale sources chosen by the outputs of 4 layers on 4 samples" in out, out
    v = forward(x)
    readers = {
        "x": [([im2col(x, 3, 1, 1)], [W1.reshape(8, -1)])],
        "c1": [([im2col(v["p1"][:, g:g + 1], 3, 2, 1) for g in range(8)], [W2[g].reshape(1, -1) for g in range(8)])],
        "c2": [([v["r2"].reshape(4, -1)], [W3]), ([v["r2"].reshape(-1, 9)], [W4.T])],
    }
    got = input_scales(onnx.load(refined))
    before = input_scales(onnx.load(plain))
    for source, node in (("x", "conv1"), ("c1", "dw"), ("c2", "fc")):
        assert abs(before[node] * 127 - ranges[source]) <= 1e-6 * ranges[source], (source, before[node] * 127, ranges[source])
        row_max = max(float(np.abs(r).max()) for rs, _ in readers[source] for r in rs)
        want, error = search(readers[source], max(stats[source], row_max), ranges[source])
        a = got[node] * 127
        assert error(a) <= error(want) * 1.001 + 1e-12, (source, a, want, error(a), error(want))
        assert abs(a / want - 1) < 0.05, (source, a, want)
        print(f"{source}: table amax {ranges[source]:.4g} -> {a:.4g} (reference {want:.4g}); "
              f"error {error(ranges[source]):.3g} -> {error(a):.3g}")
    assert abs(got["mm"] - got["fc"]) < 1e-9, "the Gemm and the MatMul read one source"
    assert got["conv1"] * 127 < ranges["x"] * 0.7, "the channel the first Conv barely reads is clipped"
    # A range --overrides gives stays as given; the other sources are still refined.
    overrides = os.path.join(work, "overrides.json")
    json.dump({"x": {"amax": 3.0}}, open(overrides, "w"))
    pinned = os.path.join(work, "pinned.qdq.onnx")
    q8(binary, "quantize", path, "--calib", table, "-o", pinned, "--output-aware", "--overrides", overrides, "--check-samples", "0")
    kept = input_scales(onnx.load(pinned))
    assert abs(kept["conv1"] * 127 - 3.0) < 1e-5, kept["conv1"] * 127
    assert abs(kept["fc"] - got["fc"]) < 1e-9, (kept["fc"], got["fc"])
    # A table that records no data, and no --data: one error line, nothing written.
    cache = os.path.join(work, "oa.cache")
    q8(binary, "calibrate", path, "--data", data, "--cache", cache)
    none = os.path.join(work, "none.onnx")
    err = q8(binary, "quantize", path, "--calib", cache, "-o", none, "--output-aware", ok=False)
    assert "--output-aware needs samples" in err and not os.path.exists(none), err
    print("output-aware ranges match the numpy reference")


if __name__ == "__main__":
    main()
