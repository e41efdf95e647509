#!/usr/bin/python3
"""ONNX Runtime loads every QDQ model q8 writes, and computes what q8's QDQ execution computes.

    qdq_crosscheck.py --q8 BUILD/q8 --ort-dir DIR --models DIR --work DIR

For the shipped Fashion-MNIST model and the test-model factory's models: calibrate (max, on
random inputs), `q8 quantize`, then run the QDQ model in q8 and in ONNX Runtime (CPU) on the same
input. Each output must agree within one quantization step of that output (its calibrated
amax / 127). Also checks that the QDQ models are opset >= 13 and that q8's and ORT's FP32 runs
of the folded model agree. Ends with 'N passed, M failed'.
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from crosscheck import calibrate_and_quantize, factory_models, make_inputs, oracle_args, run_ort, run_q8  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally, stderr_excerpt  # noqa: E402

SKIP = {"resnet18", "detector640"}  # large: covered by the FP32 oracle; keep the suite short


def main():
    a = oracle_args()
    models = factory_models(a.models, SKIP)
    tally = Tally()
    report = tally.check

    for i, (name, model) in enumerate(models.items()):
        work = os.path.join(a.work, name)
        try:
            table, qdq = calibrate_and_quantize(a.q8, model, work, 100 + i)
            opset = max(o.version for o in onnx.load(qdq).opset_import if o.domain in ("", "ai.onnx"))
            onnx.checker.check_model(onnx.load(qdq))
            files = make_inputs(model, work, 2, 7 + i)
            got = run_q8(a.q8, qdq, files, os.path.join(work, "q8"))
            want = run_ort(a.ort_dir, qdq, files, os.path.join(work, "ort"))
            ranges = json.load(open(table))["activations"]
            problem = "" if opset >= 13 else f"opset {opset}"
            for k in want:
                step = max(ranges.get(k, {}).get("amax", 0.0), 2.0 ** -24) / 127.0
                diff = float(np.abs(got[k] - want[k]).max()) if got[k].size else 0.0
                if got[k].shape != want[k].shape or diff > step:
                    problem = f"output {k}: max |q8 − ORT| {diff:.4g} > one step {step:.4g}"
            report(f"ORT runs q8's QDQ model and agrees within one step: {name}", problem)
        except subprocess.CalledProcessError as e:
            report(f"ORT runs q8's QDQ model and agrees within one step: {name}",
                   f"{os.path.basename(e.cmd[0])} {e.cmd[1]} failed: {stderr_excerpt(e.stderr)}")
    # A batch-1 static-shape model and its dynamic-batch twin give identical QDQ outputs.
    static_qdq = os.path.join(a.work, "broadcast_static_batch1", "model.qdq.onnx")
    dynamic_qdq = os.path.join(a.work, "broadcast_dynamic_batch", "model.qdq.onnx")
    if os.path.exists(static_qdq) and os.path.exists(dynamic_qdq):
        work = os.path.join(a.work, "static_vs_dynamic")
        os.makedirs(work, exist_ok=True)
        # Quantize both with one table (the static model's ranges), so only the shapes differ.
        table = json.load(open(os.path.join(a.work, "broadcast_static_batch1", "table.json")))
        dyn_table = json.load(open(os.path.join(a.work, "broadcast_dynamic_batch", "table.json")))
        table["model_sha256"] = dyn_table["model_sha256"]
        shared = os.path.join(work, "shared.json")
        json.dump(table, open(shared, "w"))
        same_ranges = os.path.join(work, "dynamic.qdq.onnx")
        subprocess.run([a.q8, "quantize", models["broadcast_dynamic_batch"], "--calib", shared, "-o", same_ranges], check=True,
                       capture_output=True)
        files = make_inputs(models["broadcast_static_batch1"], work, 1, 11)
        s_out = run_q8(a.q8, static_qdq, files, os.path.join(work, "static"))
        d_out = run_q8(a.q8, same_ranges, files, os.path.join(work, "dynamic"))
        report("batch-1 static QDQ == dynamic-batch QDQ (bit-identical)",
               "" if all(np.array_equal(s_out[k], d_out[k]) for k in s_out) else "outputs differ")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
