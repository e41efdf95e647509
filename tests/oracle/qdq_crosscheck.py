#!/usr/bin/python3
"""ONNX Runtime loads every QDQ model q8 writes, and computes what q8's QDQ execution computes.

    qdq_crosscheck.py --q8 BUILD/q8 --ort-dir DIR --models DIR --work DIR

For the shipped Fashion-MNIST model and the test-model factory's models: calibrate (max, on
random inputs), `q8 quantize`, then run the QDQ model in q8 and in ONNX Runtime (CPU) on the same
input. Each output must agree within one quantization step of that output (its calibrated
amax / 127). Also checks that the QDQ models are opset >= 13 and that q8's and ORT's FP32 runs
of the folded model agree. Ends with 'N passed, M failed'.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from crosscheck import SPATIAL, make_inputs, run_ort, run_q8  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

SKIP = {"resnet18", "detector640"}  # large: covered by the FP32 oracle; keep the suite short


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--q8", required=True)
    ap.add_argument("--ort-dir", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    models = {f[:-5]: os.path.join(a.models, f) for f in sorted(os.listdir(a.models)) if f.endswith(".onnx") and f[:-5] not in SKIP}
    models["fashion_cnn"] = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
    tally = Tally()
    report = tally.check

    for i, (name, model) in enumerate(models.items()):
        work = os.path.join(a.work, name)
        os.makedirs(os.path.join(work, "calib"), exist_ok=True)
        try:
            # Calibration data: 16 random samples per input (a directory per input for several).
            m = onnx.load(model, load_external_data=False)
            inits = {x.name for x in m.graph.initializer}
            inputs = [x for x in m.graph.input if x.name not in inits]
            rng = np.random.default_rng(100 + i)
            for x in inputs:
                shape = [d.dim_value if d.HasField("dim_value") else SPATIAL.get(d.dim_param, 16)
                         for d in x.type.tensor_type.shape.dim]
                shape[0] = 16
                target = os.path.join(work, "calib", x.name) if len(inputs) > 1 else os.path.join(work, "calib")
                os.makedirs(target, exist_ok=True)
                np.save(os.path.join(target, "data.npy"), rng.standard_normal(shape).astype(np.float32))
            table = os.path.join(work, "table.json")
            qdq = os.path.join(work, "model.qdq.onnx")
            spatial = {d.dim_param for x in inputs for d in x.type.tensor_type.shape.dim} & set(SPATIAL)
            size = ["--size", f"{SPATIAL['height']}x{SPATIAL['width']}"] if spatial else []
            subprocess.run([a.q8, "calibrate", model, "--data", os.path.join(work, "calib"), "--method", "max", "--json", table,
                            "--quiet"] + size, check=True, capture_output=True)
            subprocess.run([a.q8, "quantize", model, "--calib", table, "-o", qdq], check=True, capture_output=True)
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
                   f"{os.path.basename(e.cmd[0])} {e.cmd[1]} failed: {(e.stderr or b'').decode().strip()[:300]}")
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
