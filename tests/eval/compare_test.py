#!/usr/bin/python3
"""q8 compare picks its metrics from the output's shape, and each figure equals one computed here
with numpy from `q8 run`'s outputs of the two models; --fail-below decides the exit status; the
preprocessing recorded at calibration reaches compare; isolated blame finds a tensor whose range
was deliberately ruined; and q8 quantize takes a TensorRT calibration cache as its range table.

    compare_test.py Q8_BINARY WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FASHION_CNN = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TRAIN = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
TEST = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"


def q8(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def conv_model(path, out_channels, rng, spatial=(8, 8)):
    """[N, 1, 8, 8] -> Relu(Conv 3x3) -> Conv 1x1 -> [N, out_channels, 8, 8]."""
    w1 = numpy_helper.from_array(rng.normal(0, 0.5, (4, 1, 3, 3)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.normal(0, 0.5, (out_channels, 4, 1, 1)).astype(np.float32), "w2")
    nodes = [helper.make_node("Conv", ["x", "w1"], ["h"], pads=[1, 1, 1, 1], name="c1"),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("Conv", ["r", "w2"], ["y"], name="c2")]
    g = helper.make_graph(nodes, "map", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, *spatial])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", out_channels, *spatial])], [w1, w2])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, path)


def matmul_model(path, rng):
    """[N, 4, 16] -> MatMul [16, 5] -> [N, 4, 5]: not a classifier, not a map."""
    w = numpy_helper.from_array(rng.normal(0, 0.3, (16, 5)).astype(np.float32), "w")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "t",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, 5])], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, path)


def quantize_pair(binary, work, name, model, data):
    table, qdq = os.path.join(work, name + ".json"), os.path.join(work, name + ".qdq.onnx")
    for args in (["calibrate", model, "--data", data, "--method", "max", "--json", table, "--quiet"],
                 ["quantize", model, "--calib", table, "-o", qdq]):
        p = q8(binary, *args)
        if p.returncode:
            raise RuntimeError(p.stderr)
    return qdq


def run_outputs(binary, work, model, data, tag):
    out = os.path.join(work, tag)
    p = q8(binary, "run", model, "--input", f"x={data}", "--output-dir", out)
    if p.returncode:
        raise RuntimeError(p.stderr)
    return np.load(os.path.join(out, "y.npy"))


def mean_iou(pred, mask, classes):
    ious = []
    for c in range(classes):
        union = np.sum((pred == c) | (mask == c))
        if union:
            ious.append(np.sum((pred == c) & (mask == c)) / union)
    return float(np.mean(ious))


def close(got, want, tol=1e-6):
    return abs(got - want) <= tol * max(1.0, abs(want))


def check_dense(binary, work, tally):
    rng = np.random.default_rng(7)
    x = rng.normal(0, 1, (40, 1, 8, 8)).astype(np.float32)
    data = os.path.join(work, "maps.npy")
    np.save(data, x)
    for channels, threshold in [(3, None), (1, 0.0)]:
        name = f"map{channels}"
        model = os.path.join(work, name + ".onnx")
        conv_model(model, channels, rng)
        qdq = quantize_pair(binary, work, name, model, data)
        a = run_outputs(binary, work, model, data, name + ".fp32")
        b = run_outputs(binary, work, qdq, data, name + ".int8")
        if channels > 1:
            ka, kb, classes = a.argmax(1), b.argmax(1), channels
        else:
            ka, kb, classes = (a[:, 0] > threshold).astype(int), (b[:, 0] > threshold).astype(int), 2
        # Labels: FP32's own prediction with one pixel in five replaced, so accuracy is not trivial.
        masks = ka.copy()
        flip = rng.random(masks.shape) < 0.2
        masks[flip] = rng.integers(0, classes, flip.sum())
        mask_file = os.path.join(work, name + ".masks.npy")
        np.save(mask_file, masks.astype(np.int64))
        report = os.path.join(work, name + ".compare.json")
        args = ["compare", model, qdq, "--data", data, "--masks", mask_file, "--quiet", "--json", report, "--batch-size", "16"]
        if threshold is not None:
            args += ["--threshold", str(threshold)]
        p = q8(binary, *args)
        if p.returncode:
            tally.check(f"dense map C={channels}", p.stderr.strip())
            continue
        r = json.load(open(report))
        m = r["metrics"]
        want = {"agreement": 100 * np.mean(ka == kb), "pixel-accuracy": 100 * np.mean(kb == masks),
                "pixel-accuracy-drop": 100 * (np.mean(ka == masks) - np.mean(kb == masks)),
                "miou": 100 * mean_iou(kb, masks, classes),
                "miou-drop": 100 * (mean_iou(ka, masks, classes) - mean_iou(kb, masks, classes))}
        if channels == 1:
            union = np.sum((ka == 1) | (kb == 1))
            want["iou"] = 100 * np.sum((ka == 1) & (kb == 1)) / union if union else 100.0
        cos = np.mean([np.dot(u.ravel(), v.ravel()) / np.linalg.norm(u) / np.linalg.norm(v) for u, v in zip(a, b)])
        want["cosine"] = cos
        wrong = [f"{k} {m.get(k)} vs numpy {v:.6f}" for k, v in want.items() if k not in m or not close(m[k], v, 1e-5)]
        kind = "dense map of class scores" if channels > 1 else "one-channel dense map"
        if r["kind"] != kind:
            wrong.append(f"kind '{r['kind']}', expected '{kind}'")
        tally.check(f"dense map C={channels}: metrics equal numpy's ({', '.join(sorted(want))})", "; ".join(wrong))


def check_tensor_output(binary, work, tally):
    rng = np.random.default_rng(8)
    data = os.path.join(work, "seq.npy")
    np.save(data, rng.normal(0, 1, (24, 4, 16)).astype(np.float32))
    model = os.path.join(work, "seq.onnx")
    matmul_model(model, rng)
    qdq = quantize_pair(binary, work, "seq", model, data)
    a = run_outputs(binary, work, model, data, "seq.fp32")
    b = run_outputs(binary, work, qdq, data, "seq.int8")
    report = os.path.join(work, "seq.compare.json")
    p = q8(binary, "compare", model, qdq, "--data", data, "--quiet", "--json", report)
    if p.returncode:
        tally.check("tensor output", p.stderr.strip())
        return
    r = json.load(open(report))
    o = r["outputs"][0]
    want_abs = float(np.max(np.abs(a - b)))
    want_rel = want_abs / float(np.max(np.abs(a)))
    want_mae = float(np.mean(np.abs(a.astype(np.float64) - b)))
    problems = []
    if r["kind"] != "tensor" or "agreement" in r["metrics"]:
        problems.append(f"kind {r['kind']}, metrics {sorted(r['metrics'])}")
    if not (close(o["max_abs_error"], want_abs) and close(o["max_rel_error"], want_rel)):
        problems.append(f"max abs {o['max_abs_error']} vs {want_abs}, rel {o['max_rel_error']} vs {want_rel}")
    if not close(o["mean_abs_error"], want_mae):
        problems.append(f"mean abs {o['mean_abs_error']} vs {want_mae}")
    tally.check("[N, 4, 5] output: cosine, max and mean abs and relative error only, equal to numpy's", "; ".join(problems))


def check_classifier(binary, work, tally):
    table, qdq = os.path.join(work, "cnn.json"), os.path.join(work, "cnn.qdq.onnx")
    # Calibrated with a normalisation the model was not trained for: compare must pick it up.
    for args in (["calibrate", FASHION_CNN, "--data", TRAIN, "--limit", "256", "--method", "mse", "--mean", "0.25", "--std", "0.5",
                  "--json", table, "--quiet"], ["quantize", FASHION_CNN, "--calib", table, "-o", qdq]):
        p = q8(binary, *args)
        if p.returncode:
            tally.check("classifier setup", p.stderr)
            return
    common = ["--data", TEST, "--limit", "500", "--batch-size", "100"]
    recorded = q8(binary, "compare", FASHION_CNN, qdq, *common, "--json", os.path.join(work, "rec.json"))
    explicit = q8(binary, "compare", FASHION_CNN, qdq, *common, "--mean", "0.25", "--std", "0.5", "--json", os.path.join(work, "exp.json"))
    plain = q8(binary, "compare", FASHION_CNN, qdq, *common, "--mean", "0", "--json", os.path.join(work, "plain.json"))
    if recorded.returncode or explicit.returncode or plain.returncode:
        tally.check("classifier compare", (recorded.stderr + explicit.stderr + plain.stderr).strip())
        return
    r, e, n = (json.load(open(os.path.join(work, f))) for f in ("rec.json", "exp.json", "plain.json"))
    problems = []
    if "recorded at calibration" not in recorded.stdout:
        problems.append("compare did not say it used the recorded preprocessing")
    if r["metrics"] != e["metrics"]:
        problems.append(f"recorded {r['metrics']} differs from the same flags given {e['metrics']}")
    if n["metrics"] == r["metrics"]:
        problems.append("flags given on the command line did not override the recorded preprocessing")
    if r["kind"] != "classifier" or not {"top1", "top1-drop", "agreement", "cosine"} <= set(r["metrics"]):
        problems.append(f"kind {r['kind']}, metrics {sorted(r['metrics'])}")
    tally.check("classifier: top-1, agreement, cosine; preprocessing from the QDQ model unless flags override", "; ".join(problems))

    drop = r["metrics"]["top1-drop"]
    cosine = r["metrics"]["cosine"]
    cases = [(f"top1-drop={drop + 1:.3f}", 0), (f"top1-drop={drop - 1:.3f}", 1), (f"cosine={cosine - 0.01:.4f}", 0),
             (f"cosine={min(1.0, cosine + 0.01):.4f}", 1), ("miou=50", 1), ("speed=3", 1), ("cosine=abc", 1)]
    for arg, want in cases:
        p = q8(binary, "compare", FASHION_CNN, qdq, *common, "--fail-below", arg)
        lines = [l for l in p.stderr.splitlines() if l.startswith("q8: error:")]
        ok = (p.returncode == 0) == (want == 0) and (want == 0 or len(lines) == 1)
        tally.check(f"--fail-below {arg}: exit {'0' if want == 0 else 'non-zero, one error line'}",
                    "" if ok else f"exit {p.returncode}, stderr {p.stderr.strip()!r}")


def check_blame(binary, work, tally):
    table = os.path.join(work, "cnn.json")
    acts = json.load(open(table))["activations"]
    victim = next(n for n in acts if acts[n]["producer_op"] == "Relu")
    overrides = os.path.join(work, "ruin.json")
    json.dump({victim: {"amax": acts[victim]["max_abs"] / 20}}, open(overrides, "w"))
    qdq = os.path.join(work, "ruined.qdq.onnx")
    p = q8(binary, "quantize", FASHION_CNN, "--calib", table, "--overrides", overrides, "-o", qdq)
    report = os.path.join(work, "blame.json")
    if not p.returncode:
        p = q8(binary, "compare", FASHION_CNN, qdq, "--data", TEST, "--limit", "64", "--blame", "32", "--quiet", "--json", report)
    if p.returncode:
        tally.check("blame", p.stderr.strip())
        return
    b = json.load(open(report))["blame"]
    worst = b["tensors"][0]["tensor"]
    losses = [t["cosine_loss"] for t in b["tensors"]]
    # Ops that only move values (MaxPool, Reshape) carry their input's scale: the ruined scale.
    ruined_scale = np.float32(acts[victim]["max_abs"] / 20 / 127)
    ruined = {t for t, s in qdq_scales(qdq).items() if np.float32(s) == ruined_scale}
    problems = []
    if worst not in ruined:
        problems.append(f"worst is {worst}, the tensors quantized with the ruined scale are {sorted(ruined)}")
    if losses != sorted(losses, reverse=True) or b["samples"] < 32:
        problems.append(f"not worst first, or {b['samples']} samples")
    tally.check(f"isolated blame puts a tensor whose amax was cut to 1/20 ({victim}, or a carrier of its scale) first",
                "; ".join(problems))


def qdq_scales(path):
    m = onnx.load(path)
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    return {n.input[0]: float(inits[n.input[1]]) for n in m.graph.node if n.op_type == "QuantizeLinear" and n.input[0] not in inits}


def check_trt_cache_import(binary, work, tally):
    cache, table = os.path.join(work, "cnn.cache"), os.path.join(work, "cnn.mse.json")
    p = q8(binary, "calibrate", FASHION_CNN, "--data", TRAIN, "--limit", "256", "--method", "mse", "--cache", cache, "--json", table, "--quiet")
    from_json, from_cache = os.path.join(work, "j.qdq.onnx"), os.path.join(work, "c.qdq.onnx")
    if not p.returncode:
        p = q8(binary, "quantize", FASHION_CNN, "--calib", table, "-o", from_json)
    if not p.returncode:
        p = q8(binary, "quantize", FASHION_CNN, "--calib", cache, "-o", from_cache)
    if p.returncode:
        tally.check("TensorRT cache import", p.stderr.strip())
        return
    a, b = qdq_scales(from_json), qdq_scales(from_cache)
    tally.check(f"quantize --calib CACHE writes the same {len(a)} activation scales as --calib TABLE.json",
                "" if a == b and len(a) > 3 else f"{len(a)} vs {len(b)} scales, differing: "
                f"{[k for k in a if a.get(k) != b.get(k)][:3]}")
    lines = open(cache).read().splitlines()
    body = lines[1:]
    for header in ["TRT-5105-LegacyCalibration", "TRT-7000-EntropyCalibration2", "TRT-8601-MinMaxCalibration",
                   "TRT-100300-EntropyCalibration"]:
        path = os.path.join(work, header + ".cache")
        open(path, "w").write("\n".join([header] + body + ["someTensorRTLayer_output: 3c010204"]) + "\n")
        p = q8(binary, "quantize", FASHION_CNN, "--calib", path, "-o", os.path.join(work, "h.qdq.onnx"))
        ok = p.returncode == 0 and qdq_scales(os.path.join(work, "h.qdq.onnx")) == a and "not in the model" in p.stdout
        tally.check(f"cache header {header} accepted, a tensor not in the model reported",
                    "" if ok else f"exit {p.returncode}: {p.stderr.strip()}")
    bad = {"unknown calibrator": ["TRT-8601-FancyCalibration"] + body,
           "negative scale": [lines[0]] + body[:-1] + [body[-1].split(":")[0] + ": bf800000"],
           "NaN scale": [lines[0]] + body[:-1] + [body[-1].split(":")[0] + ": 7fc00000"],
           "no tensor of the model": [lines[0], "foo: 3c010204"],
           "version not a number": ["TRT-abc-EntropyCalibration2"] + body}
    for what, text in bad.items():
        path = os.path.join(work, "bad.cache")
        out = os.path.join(work, "bad.qdq.onnx")
        open(path, "w").write("\n".join(text) + "\n")
        p = q8(binary, "quantize", FASHION_CNN, "--calib", path, "-o", out)
        errors = [l for l in p.stderr.splitlines() if l.startswith("q8: error:")]
        ok = p.returncode != 0 and len(errors) == 1 and "bad.cache" in errors[0] and not os.path.exists(out)
        tally.check(f"cache with {what}: one error line naming the file, nothing written",
                    "" if ok else f"exit {p.returncode}: {p.stderr.strip()!r}")


def check_dynamic_npy(binary, work, tally):
    """A model with dynamic height and width needs no --size when .npy samples fix them."""
    rng = np.random.default_rng(9)
    model = os.path.join(work, "dynamic.onnx")
    conv_model(model, 2, rng, ("H", "W"))
    ddir = os.path.join(work, "dynamic-data")
    os.makedirs(ddir)
    for i in range(3):
        np.save(os.path.join(ddir, f"{i}.npy"), rng.normal(0, 1, (1, 12, 20)).astype(np.float32))
    p = q8(binary, "calibrate", model, "--data", ddir, "--method", "mse", "--json", os.path.join(work, "dynamic.json"))
    tally.check(".npy samples of 1x12x20 fix a [N, 1, H, W] input without --size",
                "" if p.returncode == 0 and "sample 1x12x20" in p.stdout else f"exit {p.returncode}: {p.stderr.strip()}")
    np.save(os.path.join(ddir, "3.npy"), rng.normal(0, 1, (1, 12, 21)).astype(np.float32))
    p = q8(binary, "calibrate", model, "--data", ddir, "--method", "mse", "--json", os.path.join(work, "dynamic.json"), "--quiet", "--strict")
    errors = [l for l in p.stderr.splitlines() if l.startswith("q8: error:")]
    tally.check("a later sample of another shape: one error naming it",
                "" if p.returncode != 0 and len(errors) == 1 and "3.npy" in errors[0] else f"exit {p.returncode}: {p.stderr.strip()!r}")


def main():
    binary, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tally = Tally()
    check_dense(binary, work, tally)
    check_tensor_output(binary, work, tally)
    check_classifier(binary, work, tally)
    check_blame(binary, work, tally)
    check_trt_cache_import(binary, work, tally)
    check_dynamic_npy(binary, work, tally)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
