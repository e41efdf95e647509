#!/usr/bin/python3
"""Cross-layer equalization (docs/calibration.md) against a numpy reference written from the doc.

    equalize_test.py Q8 WORK

A small model holds every case the doc names: Conv → Relu → MaxPool and Conv → Relu joined by a
Concat (channel offsets 0 and 8) into a grouped Conv, that Conv into a depthwise one, the depthwise
into a pointwise one whose output is a graph output (not equalized), and a Conv read by an Add (not
equalized). q8 calibrate --equalize and q8 quantize --fp32-weights expose the equalized weights;
the reference knows the pairs from the model's structure (it does not search), applies
s_c = sqrt(r1_c / r2_c) in graph order, sweeping until every factor lies within 1 %, and the test
checks: the weights equal the reference's, the equalized network computes what the original does
(torch), the table records the setting and its ranges are the equalized graph's, and a table made
without --equalize leaves every weight as it was.
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


def w(*shape, spread=True):
    a = rng.normal(size=shape).astype(np.float32)
    if spread:  # output channels of very different ranges, as after BatchNorm folding
        a *= np.exp(rng.uniform(-3, 3, size=(shape[0],) + (1,) * (len(shape) - 1))).astype(np.float32)
    return a


W = {"A": w(8, 4, 3, 3), "B": w(4, 4, 3, 3), "T": w(6, 6, 1, 1), "D": w(6, 1, 3, 3), "P": w(5, 6, 1, 1), "E": w(3, 4, 1, 1)}
Bias = {k: rng.normal(size=v.shape[0]).astype(np.float32) for k, v in W.items()}


def model():
    inits = [numpy_helper.from_array(v, "W" + k) for k, v in W.items()] + [numpy_helper.from_array(v, "b" + k) for k, v in Bias.items()]
    inits.append(numpy_helper.from_array(np.float32([0.5]).reshape(1, 1, 1, 1), "half"))
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "WA", "bA"], ["a0"], name="A", pads=[1, 1, 1, 1]),
        n("Relu", ["a0"], ["a1"]), n("MaxPool", ["a1"], ["a"], kernel_shape=[2, 2], strides=[2, 2]),
        n("Conv", ["x", "WB", "bB"], ["b0"], name="B", pads=[1, 1, 1, 1], strides=[2, 2]),
        n("Relu", ["b0"], ["b"]),
        n("Concat", ["a", "b"], ["ab"], axis=1),
        n("Conv", ["ab", "WT", "bT"], ["t"], name="T", group=2),
        n("Conv", ["t", "WD", "bD"], ["d"], name="D", group=6, pads=[1, 1, 1, 1]),
        n("Conv", ["d", "WP", "bP"], ["y"], name="P"),
        n("Conv", ["x", "WE", "bE"], ["e"], name="E"),
        n("Add", ["e", "half"], ["z"]),
    ]
    g = helper.make_graph(nodes, "equalize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 12, 12])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5, 6, 6]), helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 3, 12, 12])],
                          inits)
    return helper.make_model(g, opset_imports=[helper.make_operatorsetid("", 13)])


def forward(w, x):
    t = lambda k: torch.from_numpy(w[k].copy())
    b = lambda k: torch.from_numpy(Bias_now[k].copy())
    x = torch.from_numpy(x)
    a = F.max_pool2d(F.relu(F.conv2d(x, t("A"), b("A"), padding=1)), 2)
    bb = F.relu(F.conv2d(x, t("B"), b("B"), padding=1, stride=2))
    tt = F.conv2d(torch.cat([a, bb], 1), t("T"), b("T"), groups=2)
    d = F.conv2d(tt, t("D"), b("D"), padding=1, groups=6)
    return F.conv2d(d, t("P"), b("P")).numpy(), d.numpy()


def reference():
    """The doc's rule, on the pairs this model has: (producer, [(reader, offset)])."""
    w = {k: v.astype(np.float64) for k, v in W.items()}
    b = {k: v.astype(np.float64) for k, v in Bias.items()}
    regions = [("A", [("T", 0)]), ("B", [("T", 8)]), ("T", [("D", 0)]), ("D", [("P", 0)])]
    groups = {"T": 2, "D": 6, "P": 1}

    def column(reader, ci):  # the weight elements of reader multiplying input channel ci
        wt, g = w[reader], groups[reader]
        cg, per = wt.shape[1], wt.shape[0] // g
        gi, j = ci // cg, ci % cg
        return (slice(gi * per, (gi + 1) * per), j)

    for sweep in range(20):
        moved = 1.0
        for p, readers in regions:
            c = w[p].shape[0]
            r1 = np.abs(w[p].reshape(c, -1)).max(1)
            r2 = np.array([max(np.abs(w[t][column(t, off + k)]).max() for t, off in readers) for k in range(c)])
            s = np.where((r1 > 0) & (r2 > 0), np.sqrt(r1 / np.where(r2 > 0, r2, 1)), 1.0)
            moved = max(moved, s.max(), (1 / s).max())
            w[p] = (w[p] / s[:, None, None, None]).astype(np.float32).astype(np.float64)
            b[p] = (b[p] / s).astype(np.float32).astype(np.float64)
            for t, off in readers:
                for k in range(c):
                    idx = column(t, off + k)
                    w[t][idx] = (w[t][idx] * s[k]).astype(np.float32).astype(np.float64)
        if moved <= 1.01:
            break
    return {k: v.astype(np.float32) for k, v in w.items()}, {k: v.astype(np.float32) for k, v in b.items()}, sweep + 1


def q8_weights(path):
    """Each Conv's FP32 weight and bias in a QDQ model written with --fp32-weights (weight → Q → DQ → Conv)."""
    m = onnx.load(path)
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    made = {o: n for n in m.graph.node for o in n.output}
    out = {}
    for n in m.graph.node:
        if n.op_type != "Conv":
            continue
        src = n.input[1]
        while src not in inits:
            src = made[src].input[0]
        out[n.name] = (inits[src], inits[n.input[2]])
    return out


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, " ".join(cmd) + "\n" + p.stderr
    return p.stdout + p.stderr


def main():
    q8, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "equalize.onnx")
    onnx.save(model(), path)
    x = rng.normal(size=(16, 4, 12, 12)).astype(np.float32)
    np.save(os.path.join(work, "x.npy"), x)
    out = run(q8, "calibrate", path, "--data", os.path.join(work, "x.npy"), "--json", os.path.join(work, "eq.json"), "--equalize")
    assert "cross-layer equalization of 4 convolutions into 3 readers" in out, out
    table = json.load(open(os.path.join(work, "eq.json")))
    assert table["settings"]["equalize"] is True
    out = run(q8, "quantize", path, "--calib", os.path.join(work, "eq.json"), "-o", os.path.join(work, "eq.qdq.onnx"), "--fp32-weights")
    assert "cross-layer equalization of 4 convolutions" in out, out
    got = q8_weights(os.path.join(work, "eq.qdq.onnx"))
    want_w, want_b, sweeps = reference()
    for k in "ABTDP":
        np.testing.assert_allclose(got[k][0], want_w[k], rtol=2e-5, atol=1e-7, err_msg=f"weight of {k}")
        np.testing.assert_allclose(got[k][1], want_b[k], rtol=2e-5, atol=1e-7, err_msg=f"bias of {k}")
    np.testing.assert_array_equal(got["E"][0], W["E"], err_msg="E's output reaches an Add: left as it is")
    # The ranges of each channel of the depthwise output are even now: max/min channel range fell.
    global Bias_now
    Bias_now = Bias
    y0, d0 = forward(W, x)
    Bias_now = {k: got[k][1] for k in "ABTDP"}
    y1, d1 = forward({k: got[k][0] for k in "ABTDP"}, x)
    assert np.abs(y1 - y0).max() <= 1e-4 * np.abs(y0).max(), np.abs(y1 - y0).max()
    spread = lambda d: d.transpose(1, 0, 2, 3).reshape(6, -1).__abs__().max(1)
    before, after = spread(d0), spread(d1)
    assert after.max() / after.min() < before.max() / before.min(), (before, after)
    # The table holds the equalized graph's ranges: the depthwise output 'd' as the equalized net gives it.
    amax_d = table["activations"]["d"]["max_abs"]
    assert abs(amax_d - np.abs(d1).max()) <= 1e-4 * np.abs(d1).max(), (amax_d, np.abs(d1).max())
    # Without --equalize nothing moves.
    run(q8, "calibrate", path, "--data", os.path.join(work, "x.npy"), "--json", os.path.join(work, "plain.json"))
    run(q8, "quantize", path, "--calib", os.path.join(work, "plain.json"), "-o", os.path.join(work, "plain.qdq.onnx"), "--fp32-weights")
    plain = q8_weights(os.path.join(work, "plain.qdq.onnx"))
    for k in "ABTDPE":
        np.testing.assert_array_equal(plain[k][0], W[k])
    # A TensorRT cache of the equalized graph's ranges would mislead TensorRT: one error line, nothing written.
    cache = os.path.join(work, "eq.cache")
    p = subprocess.run([q8, "calibrate", path, "--data", os.path.join(work, "x.npy"), "--cache", cache, "--equalize"], capture_output=True,
                       text=True)
    assert p.returncode != 0 and "--equalize with --cache" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not os.path.exists(cache)
    print(f"equalization matches the reference ({sweeps} sweeps); depthwise channel ranges spread "
          f"{before.max() / before.min():.1f}x -> {after.max() / after.min():.1f}x; outputs within "
          f"{np.abs(y1 - y0).max() / np.abs(y0).max():.2e} of the largest")


if __name__ == "__main__":
    main()
