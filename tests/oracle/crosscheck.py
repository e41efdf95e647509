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
    ap = argparse.ArgumentParser()
    ap.add_argument("--q8", required=True)
    ap.add_argument("--ort-dir", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
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
