#!/usr/bin/python3
"""One family's model through every stage a user takes it, each against something real.

    pipeline_test.py --q8 Q8 --ort-dir DIR --work DIR NAME=MODEL:DATA_DIR ...

DATA_DIR holds one .npy per model input (a batch: the calibration data and the test inputs).
For each model:
  1. `q8 inspect` calls every op supported;
  2. `q8 run` equals ONNX Runtime within ONNX's tolerance (|q8 − ort| <= 1e-4 + 1e-3·|ort|); a model
     holding float16 is computed in float32, so it equals ONNX Runtime on the model widened to
     float32 within that tolerance, reports the conversion, and stays within float16's rounding of
     ONNX Runtime's float16 run (cosine >= 0.999, max |diff| <= 2 % of the largest |output|);
  3. `q8 calibrate` (max) on the batch, then `q8 quantize`: ONNX Runtime loads and runs the QDQ
     model, q8's run of the QDQ model agrees with ONNX Runtime's (cosine >= 0.999), and no Q/DQ
     pair sits between a MatMul and its bias Add;
  4. `q8 build` lowers it (at least one fused INT8 op) and `q8 run PLAN` on the CPU stays with
     ONNX Runtime's QDQ outputs (cosine >= 0.999);
  5. with --opencl, the same plan with every quantized tensor made an output runs through OpenCL (PoCL here):
     every int8 tensor equals the CPU's bit for bit, every float output is within 1e-4 of its
     largest magnitude.
Cosines are over each output flattened; every figure is printed. Ends with 'N passed, M failed'.
"""
import argparse
import re
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from tally import Tally  # noqa: E402

sys.path.insert(0, HERE)
from float_types import retype_floats  # noqa: E402

ORT_RUN = os.path.join(os.path.dirname(HERE), "oracle", "ort_run.js")


def run(cmd):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600)


def outputs(directory):
    return {f[:-4]: np.load(os.path.join(directory, f)) for f in sorted(os.listdir(directory)) if f.endswith(".npy")}


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    if not np.isfinite(a).all() or not np.isfinite(b).all():
        return float("nan")
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return 1.0 if na == 0 and nb == 0 else float(a @ b / max(na * nb, 1e-30))


class Case:
    def __init__(self, args, name, model, data):
        self.a, self.name, self.model = args, name, model
        self.work = os.path.join(args.work, name)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.files = {f[:-4]: os.path.join(data, f) for f in sorted(os.listdir(data)) if f.endswith(".npy")}
        self.data = data

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def q8(self, *args):
        return run([self.a.q8, *args])

    def q8_run(self, model, out, *extra):
        os.makedirs(out, exist_ok=True)
        inputs = sum([["--input", f"{k}={v}"] for k, v in self.files.items()], [])
        return self.q8("run", model, "--output-dir", out, *inputs, *extra)

    def ort_run(self, model, out):
        return run(["node", ORT_RUN, self.a.ort_dir, model, out] + [f"{k}={v}" for k, v in self.files.items()])


def holds_float16(model):
    m = onnx.load(model)
    return any(t.data_type == onnx.TensorProto.FLOAT16 for t in m.graph.initializer)


def widened(model, out):
    """model with its float16 initializers, tensor attributes, Casts and values made float32,
    written independently of q8 (numpy's float16 → float32 is exact)."""
    m = retype_floats(onnx.load(model), onnx.TensorProto.FLOAT16, onnx.TensorProto.FLOAT)
    onnx.save(m, out)
    return out


def float_outputs(a, b):
    return {k: (a[k], b[k]) for k in b if k in a and b[k].dtype.kind == "f"}


def check_case(c, tally):
    n = c.name
    p = c.q8("inspect", c.model)
    tally.check(f"{n}: q8 inspect calls every op supported",
                "" if p.returncode == 0 and "unsupported ops: none" in p.stdout else (p.stderr or p.stdout).strip()[-300:])
    p = c.q8_run(c.model, c.path("fp32"))
    float16 = holds_float16(c.model)
    # A float16 model is computed in float32 (docs/ops.md, "Float16 models"): the exact oracle is
    # ONNX Runtime on the model with every float16 widened; its float16 run differs by rounding.
    reference = widened(c.model, c.path("widened.onnx")) if float16 else c.model
    o = c.ort_run(reference, c.path("ort_fp32"))
    if p.returncode or o.returncode:
        tally.check(f"{n}: FP32 runs in q8 and ONNX Runtime", (p.stderr + o.stderr).strip()[-300:])
        return
    if float16:
        note = next((l for l in p.stdout.splitlines() if l.startswith("import:")), "")
        tally.check(f"{n}: q8 run reports the float16 conversion ({note.strip()})", "" if "float16 computed as float32" in note else "no note")
    got, want = outputs(c.path("fp32")), outputs(c.path("ort_fp32"))
    problem = "" if set(got) == set(want) else f"outputs {sorted(got)} vs {sorted(want)}"
    for k, w in want.items():
        if problem or k not in got:
            continue
        g = got[k]
        if g.shape != w.shape or g.dtype != w.dtype:
            problem = f"{k}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}"
        elif w.dtype.kind == "f" and not np.allclose(g, w, rtol=1e-3, atol=1e-4, equal_nan=True):
            problem = f"{k}: max |diff| {np.abs(g.astype(np.float64) - w).max():.3g}"
        elif w.dtype.kind != "f" and not np.array_equal(g, w):
            problem = f"{k}: values differ"
    tally.check(f"{n}: q8 run equals ONNX Runtime " + ("(the model widened to float32)" if float16 else "(FP32)"), problem)
    if float16:
        o = c.ort_run(c.model, c.path("ort_fp16"))
        if o.returncode:
            tally.check(f"{n}: ONNX Runtime runs the float16 model", o.stderr.strip()[-300:])
        for k, (g, w) in float_outputs(got, outputs(c.path("ort_fp16"))).items():
            cos, worst = cosine(g, w), float(np.abs(g.astype(np.float64) - w).max()) / max(float(np.abs(w).max()), 1e-30)
            tally.check(f"{n}: {k}: against ONNX Runtime's float16 run, cosine {cos:.6f} (>= 0.999), max |diff| {worst:.2e} of "
                        f"max |output| (<= 2e-2)", "" if cos >= 0.999 and worst <= 2e-2 else "above the bound")

    table, qdq, plan = c.path("table.json"), c.path("qdq.onnx"), c.path("model.q8plan")
    p = c.q8("calibrate", c.model, "--data", c.data, "--method", "max", "--json", table)
    tally.check(f"{n}: q8 calibrate", "" if p.returncode == 0 else p.stderr.strip()[-300:])
    p = c.q8("quantize", c.model, "--calib", table, "-o", qdq, *c.a.quantize_flag)
    tally.check(f"{n}: q8 quantize", "" if p.returncode == 0 else p.stderr.strip()[-300:])
    if p.returncode:
        return
    o = c.ort_run(qdq, c.path("ort_qdq"))
    p = c.q8_run(qdq, c.path("qdq"))
    tally.check(f"{n}: ONNX Runtime and q8 run the QDQ model", (o.stderr + p.stderr).strip()[-300:] if o.returncode or p.returncode else "")
    if o.returncode or p.returncode:
        return
    ort_qdq, q8_qdq, fp32 = outputs(c.path("ort_qdq")), outputs(c.path("qdq")), outputs(c.path("ort_fp32"))
    for k, (g, w) in float_outputs(q8_qdq, ort_qdq).items():
        cos = cosine(g, w)
        tally.check(f"{n}: {k}: q8's QDQ run against ONNX Runtime's, cosine {cos:.6f} (>= 0.999); INT8 QDQ against FP32 "
                    f"{cosine(w, fp32[k]):.4f}", "" if cos >= 0.999 else "below the bound")

    # Linear = MatMul + Add(bias): nothing between the two in the QDQ model (docs/quantization.md, "Linear").
    m = onnx.load(qdq)
    produced = {o: nd for nd in m.graph.node for o in nd.output}
    consts = {i.name for i in m.graph.initializer}
    split = [nd.name for nd in m.graph.node if nd.op_type == "Add" and any(
        i in produced and produced[i].op_type == "DequantizeLinear" and produced[i].input[0] in produced and
        produced[produced[i].input[0]].op_type == "QuantizeLinear" and produced[produced[i].input[0]].input[0] in produced and
        produced[produced[produced[i].input[0]].input[0]].op_type == "MatMul" for i in nd.input) and any(i in consts for i in nd.input)]
    tally.check(f"{n}: no Q/DQ between a MatMul and its bias Add", f"split: {split[:3]}" if split else "")

    p = c.q8("build", qdq, "-o", plan)
    lowered = next((l for l in p.stdout.splitlines() if l.startswith("lowering:")), "")
    fused = int(lowered.split("→")[1].split()[0]) if "→" in lowered else 0
    tally.check(f"{n}: q8 build ({lowered.strip()})", "" if p.returncode == 0 and fused > 0 else (p.stderr.strip()[-300:] or "nothing fused"))
    if p.returncode:
        return
    if "--quantize-bmm" in c.a.quantize_flag:  # attention's MatMuls of two activations are INT8 in the plan
        v = c.q8("--verbose", "build", qdq, "-o", c.path("verbose.q8plan"))
        bmm = [l for l in v.stdout.splitlines() if l.strip().startswith("MatMul '")]
        int8 = [l for l in bmm if "QMatMul '" in l]
        tally.check(f"{n}: --quantize-bmm: {len(int8)} MatMuls of two activations lowered to QMatMul",
                    "" if int8 and all("FP32" not in l or "both inputs" not in l for l in bmm) else "none lowered")
    p = c.q8_run(plan, c.path("plan_cpu"))
    if p.returncode:
        tally.check(f"{n}: q8 run PLAN on the CPU", p.stderr.strip()[-300:])
        return
    for k, (g, w) in float_outputs(outputs(c.path("plan_cpu")), ort_qdq).items():
        cos = cosine(g, w)
        tally.check(f"{n}: {k}: the plan on the CPU against ONNX Runtime's QDQ run, cosine {cos:.6f} (>= 0.999)",
                    "" if cos >= 0.999 else "below the bound")

    if not c.a.opencl:
        return
    # Every quantized tensor an output: the CPU and OpenCL runs of that plan compared tensor by tensor.
    m = onnx.load(qdq)
    have = {o.name for o in m.graph.output}
    for node in m.graph.node:
        if node.op_type == "QuantizeLinear" and node.output[0] not in have:
            m.graph.output.append(helper.make_tensor_value_info(node.output[0], onnx.TensorProto.INT8, None))
    exposed, exposed_plan = c.path("exposed.onnx"), c.path("exposed.q8plan")
    onnx.save(m, exposed)
    p = c.q8("build", exposed, "-o", exposed_plan)
    if p.returncode:
        tally.check(f"{n}: q8 build of the plan with its quantized tensors as outputs", p.stderr.strip()[-300:])
        return
    cpu, cl = c.q8_run(exposed_plan, c.path("exposed_cpu")), c.q8_run(exposed_plan, c.path("exposed_cl"), "--device", "opencl")
    if cpu.returncode or cl.returncode:
        tally.check(f"{n}: the plan runs on the CPU and through OpenCL", (cpu.stderr + cl.stderr).strip()[-300:])
        return
    placement = next((l.split(":", 1)[1].strip() for l in cl.stdout.splitlines() if l.startswith("placement:")), "")
    on_host = [part for part in placement.split("; ") if not part.startswith("opencl")]
    fallback = [part for part in on_host if not re.fullmatch(r"cpu (\d+) nodes \(\1 on shapes, indices or masks\)", part)]
    if n in c.a.whole_on_device:  # every activation on the device; the host keeps shape arithmetic only
        tally.check(f"{n}: the whole model on the device ({placement})", f"activations on the host: {fallback}" if fallback else "")
    a, b = outputs(c.path("exposed_cpu")), outputs(c.path("exposed_cl"))
    ints = [k for k in a if a[k].dtype.kind != "f"]
    differing = [k for k in ints if not np.array_equal(a[k], b.get(k))]
    tally.check(f"{n}: OpenCL equals the CPU bit for bit on {len(ints)} int8 tensors", f"differ: {differing[:5]}" if differing else "")
    for k in [k for k in a if a[k].dtype.kind == "f"]:
        d = float(np.abs(a[k].astype(np.float64) - b[k]).max()) if a[k].size else 0.0
        bound = 1e-4 * max(float(np.abs(a[k]).max()) if a[k].size else 0.0, 1e-6)
        tally.check(f"{n}: {k}: OpenCL within 1e-4 of the largest |output| of the CPU's ({d:.3g})", "" if d <= bound else "above the bound")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--q8", required=True)
    ap.add_argument("--ort-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--quantize-flag", action="append", default=[], help="passed to q8 quantize (repeatable)")
    ap.add_argument("--opencl", action="store_true", help="also run the plan through OpenCL (step 5)")
    ap.add_argument("--whole-on-device", action="append", default=[], metavar="NAME",
                    help="with --opencl: NAME's placement must leave only shape arithmetic on the host (repeatable)")
    ap.add_argument("cases", nargs="+", help="NAME=MODEL:DATA_DIR")
    a = ap.parse_args()
    tally = Tally()
    for spec in a.cases:
        name, rest = spec.split("=", 1)
        model, data = rest.rsplit(":", 1)
        check_case(Case(a, name, model, data), tally)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
