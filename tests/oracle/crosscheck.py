#!/usr/bin/python3
"""Cross-checks q8's FP32 executor against ONNX Runtime on the test-model factory's models.

    crosscheck.py --q8 BUILD/q8 --ort-dir DIR --models DIR --work DIR

For every model: random inputs (fixed seed; symbolic dims set to 2), `q8 run` and ONNX Runtime
(tests/oracle/ort_run.js) on the same files, outputs compared with numpy.allclose(rtol=1e-3,
atol=1e-4). Also checks that a batch-1 static-shape model and its dynamic-batch twin give
bit-identical outputs, and that a dynamic model's sample does not depend on the batch around it.
Ends with the line 'N passed, M failed'.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NP_TYPES = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.INT64: np.int64, onnx.TensorProto.INT32: np.int32}


# Sizes for dynamic spatial dims (multiples of 32, as detectors need).
SPATIAL = {"height": 64, "width": 96}


def make_inputs(model_path, work, batch, seed):
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    r = np.random.default_rng(seed)
    files = {}
    for inp in m.graph.input:
        if inp.name in inits:
            continue
        tt = inp.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else SPATIAL.get(d.dim_param, batch) for d in tt.shape.dim]
        arr = r.standard_normal(shape).astype(NP_TYPES[tt.elem_type])
        path = os.path.join(work, f"in_{inp.name}.npy")
        np.save(path, arr)
        files[inp.name] = path
    return files


def oracle_args(extra=None):
    """--q8 BUILD/q8 --ort-dir DIR --models DIR --work DIR, the oracle scripts' common arguments;
    extra(parser) adds a script's own."""
    ap = argparse.ArgumentParser()
    for flag in ("--q8", "--ort-dir", "--models", "--work"):
        ap.add_argument(flag, required=True)
    if extra:
        extra(ap)
    return ap.parse_args()


def factory_models(models_dir, skip):
    """{name: path} of the factory's models not in skip, and the shipped fashion_cnn."""
    models = {f[:-5]: os.path.join(models_dir, f) for f in sorted(os.listdir(models_dir)) if f.endswith(".onnx") and f[:-5] not in skip}
    models["fashion_cnn"] = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
    return models


def calibrate_and_quantize(q8, model, work, seed, quantize_flags=()):
    """16 random samples per input (a directory per input when there are several), `q8 calibrate
    --method max`, `q8 quantize`: returns (table.json, model.qdq.onnx) in work."""
    m = onnx.load(model, load_external_data=False)
    inits = {x.name for x in m.graph.initializer}
    inputs = [x for x in m.graph.input if x.name not in inits]
    rng = np.random.default_rng(seed)
    for x in inputs:
        shape = [d.dim_value if d.HasField("dim_value") else SPATIAL.get(d.dim_param, 16) for d in x.type.tensor_type.shape.dim]
        shape[0] = 16
        target = os.path.join(work, "calib", x.name) if len(inputs) > 1 else os.path.join(work, "calib")
        os.makedirs(target, exist_ok=True)
        np.save(os.path.join(target, "data.npy"), rng.standard_normal(shape).astype(np.float32))
    spatial = {d.dim_param for x in inputs for d in x.type.tensor_type.shape.dim} & set(SPATIAL)
    size = ["--size", f"{SPATIAL['height']}x{SPATIAL['width']}"] if spatial else []
    table, qdq = os.path.join(work, "table.json"), os.path.join(work, "model.qdq.onnx")
    subprocess.run([q8, "calibrate", model, "--data", os.path.join(work, "calib"), "--method", "max", "--json", table, "--quiet"]
                   + size, check=True, capture_output=True)
    subprocess.run([q8, "quantize", model, "--calib", table, "-o", qdq] + list(quantize_flags), check=True, capture_output=True)
    return table, qdq


def run_q8(q8, model, files, out):
    cmd = [q8, "run", model, "--output-dir", out] + sum([["--input", f"{k}={v}"] for k, v in files.items()], [])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return {f[:-4]: np.load(os.path.join(out, f)) for f in os.listdir(out)}


def run_ort(ort_dir, model, files, out):
    cmd = ["node", os.path.join(HERE, "ort_run.js"), ort_dir, model, out] + [f"{k}={v}" for k, v in files.items()]
    subprocess.run(cmd, check=True)
    return {f[:-4]: np.load(os.path.join(out, f)) for f in os.listdir(out)}


def compare(name, got, want):
    if set(got) != set(want):
        return f"outputs {sorted(got)} vs {sorted(want)}"
    for k in want:
        g, w = got[k], want[k]
        if g.shape != w.shape:
            return f"{k}: shape {g.shape} vs {w.shape}"
        if not np.allclose(g, w, rtol=RTOL, atol=ATOL):
            i = np.unravel_index(np.argmax(np.abs(g - w)), w.shape)
            return f"{k}: max |diff| {np.abs(g - w).max():.3g} at {i} (q8 {g[i]}, ort {w[i]})"
    return ""


def main():
    a = oracle_args()
    tally = Tally()
    report = tally.check

    models = sorted(f[:-5] for f in os.listdir(a.models) if f.endswith(".onnx"))
    for i, name in enumerate(models):
        model = os.path.join(a.models, name + ".onnx")
        work = os.path.join(a.work, name)
        os.makedirs(work, exist_ok=True)
        try:
            files = make_inputs(model, work, 2, 1000 + i)
            got = run_q8(a.q8, model, files, os.path.join(work, "q8"))
            want = run_ort(a.ort_dir, model, files, os.path.join(work, "ort"))
            report(f"q8 == onnxruntime: {name}", compare(name, got, want))
        except subprocess.CalledProcessError as e:
            report(f"q8 == onnxruntime: {name}", f"command failed: {' '.join(e.cmd[:3])} ... (exit {e.returncode})")

    # Static batch-1 vs dynamic batch: identical bits.
    static = os.path.join(a.models, "broadcast_static_batch1.onnx")
    dynamic = os.path.join(a.models, "broadcast_dynamic_batch.onnx")
    if os.path.exists(static) and os.path.exists(dynamic):
        work = os.path.join(a.work, "static_vs_dynamic")
        os.makedirs(work, exist_ok=True)
        files = make_inputs(static, work, 1, 7)
        s = run_q8(a.q8, static, files, os.path.join(work, "static"))
        d = run_q8(a.q8, dynamic, files, os.path.join(work, "dynamic"))
        report("batch-1 static == dynamic batch (bit-identical)",
               "" if all(np.array_equal(s[k], d[k]) for k in s) else "outputs differ")
        # The same sample inside a batch of 3 gives the same bits as alone.
        x = np.load(files["x"])
        batch3 = np.concatenate([np.flip(x, 0) * 0.5, x, x * 2.0])
        path3 = os.path.join(work, "batch3.npy")
        np.save(path3, batch3)
        d3 = run_q8(a.q8, dynamic, {"x": path3}, os.path.join(work, "batch3"))
        report("sample in batch 3 == sample alone (bit-identical)",
               "" if all(np.array_equal(d3[k][1:2], d[k]) for k in d) else "outputs differ")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
