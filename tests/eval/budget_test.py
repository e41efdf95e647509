#!/usr/bin/python3
"""q8 quantize --budget: the fewest nodes in FP32 that bring the model inside an accuracy budget,
measured on samples calibration did not see.

    budget_test.py Q8_BINARY WORK_DIR

The shipped model, calibrated with `max` on 256 training images, misses cosine >= 0.99995 on the
next 500 (200 in the sanitizer build). Checks that the search meets it, keeps a prefix of its
ranking (worst isolated effect first) and no shorter prefix meets it; that `q8 compare` of the
model written, on those images as PGM files, measures the figure the search reports; that with
one activation's range ruined (and its scale's carriers') the ranking puts a consumer of that
activation first; that a model whose input fixes the batch at 1 is measured at batch 1; that an
unreachable budget is one error line with nothing written; and the argument errors. Also the
check every q8 quantize ends with (8 held-back samples against FP32; one warning under the floor). The search
is by bisection: the prefix one shorter than the answer is measured and misses, and about
log2(nodes) prefixes are measured.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TRAIN = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"


def q8(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True)


def main():
    binary, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    w = lambda name: os.path.join(work, name)  # noqa: E731
    tally = Tally()
    p = q8(binary, "calibrate", MODEL, "--data", TRAIN, "--limit", "256", "--method", "max", "--json", w("t.json"), "--quiet")
    if p.returncode:
        tally.check("calibrate", p.stderr)
        return tally.finish()

    # The sanitizer build (Q8_SANITIZED set) measures on fewer samples: the same code, a fifth of the time.
    held = 200 if os.environ.get("Q8_SANITIZED") else 500
    p = q8(binary, "quantize", MODEL, "--calib", w("t.json"), "-o", w("b.onnx"), "--data", TRAIN, "--budget", "cosine=0.99995",
           "--budget-samples", str(held))
    r = json.load(open(w("b.budget.json"))) if p.returncode == 0 and os.path.exists(w("b.budget.json")) else None
    if r is None:
        tally.check("quantize --budget cosine=0.99995", f"exit {p.returncode}: {p.stderr.strip()}")
        return tally.finish()
    ranking = [e["node"] for e in r["ranking"]]
    losses = [e["cosine_loss"] for e in r["ranking"]]
    k = len(r["fp32_nodes"])
    trials = {t["fp32_nodes"]: t["metric"] for t in r["trials"]}
    problems = []
    if not r["fully_quantized"] < 0.99995:
        problems.append(f"the fully quantized model already meets it ({r['fully_quantized']})")
    if not (r["met"] and r["final"]["metric"] >= 0.99995 and k >= 1):
        problems.append(f"not met: {r['final']}, {k} nodes")
    if r["fp32_nodes"] != ranking[:k] or losses != sorted(losses, reverse=True):
        problems.append("the FP32 nodes are not the worst-first prefix of the ranking")
    if trials.get(k - 1, 1.0) >= 0.99995 or any(v >= 0.99995 for n, v in trials.items() if n < k):
        problems.append(f"a shorter prefix meets it, or the one just shorter was not measured: {trials}")
    if r["search"] != "bisection" or len(r["trials"]) > 2 + (len(ranking) - 1).bit_length():
        problems.append(f"search {r['search']!r} measured {len(r['trials'])} models for {len(ranking)} ranked nodes")
    if r["held_back"] != {"data": TRAIN, "same_data_as_calibration": True, "skip": 256, "samples": held}:
        problems.append(f"held back {r['held_back']}")
    tally.check(f"misses fully quantized ({r['fully_quantized']:.6f}); meets with the fewest ranked nodes in FP32 "
                f"({k}: {r['fp32_nodes']}, {r['final']['metric']:.6f})", "; ".join(problems))

    # A model whose input fixes the batch at 1 (most static exports): calibrate, then the budget,
    # which runs at batch 1 whatever --batch-size says, and says so.
    m = onnx.load(MODEL)
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1
    for out in m.graph.output:
        out.type.tensor_type.shape.dim[0].dim_value = 1
    onnx.save(m, w("fixed1.onnx"))
    p = q8(binary, "calibrate", w("fixed1.onnx"), "--data", TRAIN, "--limit", "256", "--method", "max", "--json", w("f1.json"),
           "--quiet")
    if p.returncode == 0:
        p = q8(binary, "quantize", w("fixed1.onnx"), "--calib", w("f1.json"), "-o", w("f1.onnx"), "--data", TRAIN, "--budget",
               "cosine=0.99995", "--budget-samples", "100", "--batch-size", "32")
    f1 = json.load(open(w("f1.budget.json"))) if p.returncode == 0 and os.path.exists(w("f1.budget.json")) else None
    tally.check("a model with a fixed batch of 1: --budget runs at batch 1 (--batch-size 32 ignored, said in the settings) "
                "and meets it", "" if f1 and f1["batch_size"] == 1 and f1["met"] and "--batch-size 32 ignored" in p.stdout
                else f"exit {p.returncode}: {p.stderr.strip()[-300:]}")

    # The model written, measured by q8 compare on the held-back images themselves.
    held_dir = w("held_back")
    os.makedirs(held_dir)
    with gzip.open(TRAIN, "rb") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
    for i in range(256, 256 + held):
        with open(os.path.join(held_dir, f"{i:05d}.pgm"), "wb") as f:
            f.write(b"P5\n28 28\n255\n" + images[i].tobytes())
    p = q8(binary, "compare", MODEL, w("b.onnx"), "--data", held_dir, "--batch-size", "64", "--json", w("check.json"), "--quiet")
    got = json.load(open(w("check.json")))["metrics"]["cosine"] if p.returncode == 0 else None
    tally.check(f"q8 compare of the model written, on the {held} held-back images, measures the reported cosine",
                "" if got is not None and abs(got - r["final"]["metric"]) <= 1e-12 else f"compare {got}, search {r['final']['metric']}: "
                f"{p.stderr.strip()}")

    # One activation's range ruined: its consumers must lead the ranking.
    table = json.load(open(w("t.json")))
    for name in ("/conv1/Conv_output_0", "/bn1/BatchNormalization_output_0", "/Relu_output_0"):  # and the tensors carrying its scale
        table["activations"][name]["amax"] /= 20
        table["activations"][name]["scale"] /= 20
    json.dump(table, open(w("cut.json"), "w"))
    p = q8(binary, "quantize", MODEL, "--calib", w("cut.json"), "-o", w("cut.onnx"), "--data", TRAIN, "--budget", "cosine=0.9999",
           "--budget-samples", str(held))
    r = json.load(open(w("cut.budget.json"))) if p.returncode == 0 else None
    first = r["ranking"][0]["node"] if r and r["ranking"] else None
    tally.check("/Relu_output_0's range cut to 1/20: a node reading it (/conv2/Conv or /Add) ranks first and is kept FP32",
                "" if r and first in ("/conv2/Conv", "/Add") and first in r["fp32_nodes"] and r["met"] else
                f"exit {p.returncode}: {first}, {r and r['fp32_nodes']}: {p.stderr.strip()[-300:]}")

    # The check q8 quantize ends with: 8 held-back samples (those after the 256 calibrated), the
    # figure q8 compare measures on them; a ruined range warns once, naming the --budget command.
    p = q8(binary, "quantize", MODEL, "--calib", w("t.json"), "-o", w("plain.onnx"))
    line = next((l for l in p.stdout.splitlines() if l.startswith("checked:")), "")
    eight = w("eight")
    os.makedirs(eight)
    for i in range(256, 264):
        shutil.copy(os.path.join(held_dir, f"{i:05d}.pgm"), eight)
    c = q8(binary, "compare", MODEL, w("plain.onnx"), "--data", eight, "--json", w("eight.json"), "--quiet")
    want = json.load(open(w("eight.json")))["outputs"][0]["cosine"] if c.returncode == 0 else None
    tally.check("the check after quantizing: 8 held-back samples, the cosine q8 compare measures on them, no warning",
                "" if p.returncode == 0 and "on 8 held-back samples of " + TRAIN in line and want is not None and
                f"cosine {want:.6f}"[:15] in line and "warning" not in p.stderr else f"{line} / compare {want} / {p.stderr.strip()[-300:]}")
    p = q8(binary, "quantize", MODEL, "--calib", w("cut.json"), "-o", w("cut2.onnx"))
    warnings = [l for l in p.stderr.splitlines() if l.startswith("q8: warning:")]
    tally.check("a ruined range: the model is written, and one warning names the floor, the worst tensors and the --budget command",
                "" if p.returncode == 0 and os.path.exists(w("cut2.onnx")) and len(warnings) == 1 and "under 0.97" in warnings[0] and
                "/Relu_output_0" in warnings[0] and "--budget cosine=0.97" in warnings[0] else f"exit {p.returncode}: {p.stderr.strip()[-400:]}")
    p = q8(binary, "quantize", MODEL, "--calib", w("cut.json"), "-o", w("cut3.onnx"), "--check-samples", "0")
    tally.check("--check-samples 0: no check", "" if p.returncode == 0 and "checked:" not in p.stdout and "warning" not in p.stderr else p.stdout[-300:])

    # Unreachable: one error line saying how close it came; nothing written.
    p = q8(binary, "quantize", MODEL, "--calib", w("t.json"), "-o", w("never.onnx"), "--data", TRAIN, "--budget", "cosine=1.01",
           "--budget-samples", "100")
    errors = [l for l in p.stderr.splitlines() if l.startswith("q8: error:")]
    tally.check("an unreachable budget: exit 1, one error line with the closest figure, nothing written",
                "" if p.returncode == 1 and len(errors) == 1 and "the closest" in errors[0] and "short" in errors[0] and
                not any(f.startswith("never") for f in os.listdir(work)) else f"exit {p.returncode}: {p.stderr.strip()[-300:]}")

    cases = [("an unknown metric", ["--data", TRAIN, "--budget", "speed=3"], "unknown metric 'speed'"),
             ("--budget without --data", ["--budget", "cosine=0.9"], "--budget needs --data"),
             ("a value that is not a number", ["--data", TRAIN, "--budget", "cosine=high"], "cosine")]
    for what, args, text in cases:
        p = q8(binary, "quantize", MODEL, "--calib", w("t.json"), "-o", w("x.onnx"), *args)
        errors = [l for l in p.stderr.splitlines() if l.strip()]
        ok = p.returncode == 2 and len(errors) == 1 and text in errors[0] and not os.path.exists(w("x.onnx"))
        tally.check(f"{what}: exit 2, one error line", "" if ok else f"exit {p.returncode}: {errors}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
