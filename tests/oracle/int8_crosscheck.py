#!/usr/bin/python3
"""The INT8 engine computes what ONNX Runtime computes for the same QDQ model.

    int8_crosscheck.py --q8 BUILD/q8 --ort-dir DIR --models DIR --work DIR

For the shipped Fashion-MNIST model and the test-model factory's models (ConvTranspose with
groups and C_in != C_out, Gemm transB 0/1, MatMul [K, N], residual Add, Concat, depthwise):
calibrate (max, on random inputs), `q8 quantize` (both Add placements; for the shipped model also
FP32 weights behind Q -> DQ), then run the QDQ model
through ONNX Runtime and through `q8 run --int8` (lowered into fused integer ops, run by the
INT8 reference) on the same inputs. Every QuantizeLinear output is made a graph output of both,
so every quantized tensor is compared, not only the model's outputs:
  - int8 tensors: |q8 - ORT| <= 1 (one quantization step) on every element, except a Q fed (through
    Relu, Clip, MaxPool and other ops that move values) by an Add of two DequantizeLinear outputs:
    each addend may already be one of its own steps off, so floor((s_a + s_b) / s_y) + 1 steps;
  - float outputs read from a DequantizeLinear: within one step of that DequantizeLinear;
  - float outputs of a fused op with FP32 output: within 1e-5 of the output's largest magnitude when
    every int8 tensor agrees bit for bit, else within 2 % (one-step differences upstream);
and the lowering must have fused at least one node into an INT8 op per weighted model. Each
model's plan (`q8 build`) is byte-identical across two builds and runs to the same bits as
`q8 run --int8`, and to the same bits on the CPU INT8 backend as on the integer reference alone
(`--device cpu-reference`), and each sample run alone gives its row of the batch's outputs, bit for
bit (batch invariance; one of them on one thread); damaged plans fail with one clear error line.
Ends with 'N passed, M failed'.
"""
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from crosscheck import calibrate_and_quantize, factory_models, make_inputs, oracle_args  # noqa: E402

sys.path.insert(0, os.path.dirname(HERE))
from tally import Tally, stderr_excerpt  # noqa: E402


def host_has_vnni():
    """Without VNNI, ONNX Runtime's x86 u8s8 kernels sum pairs of u8·s8 products in saturating int16
    (vpmaddubsw; its quantization docs say so), so its integers may be off by more than a step where
    q8's int32 sums are exact."""
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return True
    return re.search(r"\b(avx512_vnni|avx_vnni)\b", flags) is not None


# One step more for ORT's saturating pair sums on a host without VNNI (host_has_vnni).
ORT_SATURATION_STEPS = 0 if host_has_vnni() else 1

SKIP = {"resnet18", "detector640", "mobile_detector_opset17", "torch_shape_subgraph_opset9",
        "torch_shape_subgraph_opset11", "torch_shape_subgraph_opset17", "broadcast_static_batch1"}
# FP32 outputs of fused ops, as a fraction of the largest |output|: when every int8 tensor before
# them is bit-identical, only float rounding separates the two sums; otherwise one-step
# differences upstream move them further.
FLOAT_TOLERANCE_EXACT_INPUTS = 1e-5
FLOAT_TOLERANCE = 0.02


def file_safe(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def expose_quantized(qdq, out):
    """A copy of the QDQ model whose every QuantizeLinear output is also a graph output; returns
    {output: scale of its Q, or of the DequantizeLinear that produces a float output}."""
    m = onnx.load(qdq)
    inferred = onnx.shape_inference.infer_shapes(m)
    ranks = {v.name: len(v.type.tensor_type.shape.dim) for v in inferred.graph.value_info if v.type.tensor_type.HasField("shape")}
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    outputs = {o.name for o in m.graph.output}
    steps = {}
    for n in m.graph.node:
        if n.op_type in ("QuantizeLinear", "DequantizeLinear") and n.input[1] in inits:
            scale = inits[n.input[1]]
            if scale.size != 1:
                continue
            if n.op_type == "QuantizeLinear" and n.output[0] not in outputs and n.output[0] in ranks:
                shape = [f"{n.output[0]}_{k}" for k in range(ranks[n.output[0]])]
                m.graph.output.append(helper.make_tensor_value_info(n.output[0], TensorProto.INT8, shape))
                outputs.add(n.output[0])
            steps[n.output[0]] = float(scale.reshape(-1)[0])
    # A Q whose value comes from an Add of two dequantized tensors through ops that only move or
    # clamp values: both addends may be one of their own steps off already.
    producer = {o: n for n in m.graph.node for o in n.output}
    movers = {"Relu", "Clip", "MaxPool", "Identity", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze"}
    bounds = {}
    for n in m.graph.node:
        if n.op_type != "QuantizeLinear" or n.output[0] not in steps:
            continue
        p = producer.get(n.input[0])
        while p is not None and p.op_type in movers:
            p = producer.get(p.input[0])
        if p is not None and p.op_type == "Add":
            addends = [producer.get(i) for i in p.input]
            if all(a is not None and a.op_type == "DequantizeLinear" and a.output[0] in steps for a in addends):
                bounds[n.output[0]] = int(sum(steps[a.output[0]] for a in addends) / steps[n.output[0]]) + 1
    onnx.save(m, out)
    return steps, bounds


def run(cmd, env=None):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout


def compare(name, q8_out, ort_out, steps, original_outputs, bounds):
    problems, int8_tensors, exact = [], 0, 0
    all_exact = all(q8_out.get(k) is not None and q8_out[k].shape == w.shape and np.array_equal(q8_out[k], w)
                    for k, w in ort_out.items() if w.dtype == np.int8)
    float_tolerance = FLOAT_TOLERANCE_EXACT_INPUTS if all_exact else FLOAT_TOLERANCE
    for k, want in ort_out.items():
        got = q8_out.get(k)
        if got is None or got.shape != want.shape:
            problems.append(f"{k}: q8 gave {None if got is None else got.shape}, ORT {want.shape}")
            continue
        if want.size == 0:
            continue
        if want.dtype == np.int8:
            diff = np.abs(got.astype(np.int32) - want.astype(np.int32))
            int8_tensors += 1
            exact += int(diff.max() == 0)
            allowed = bounds.get(k, 1) + ORT_SATURATION_STEPS
            if diff.max() > allowed:
                i = np.unravel_index(np.argmax(diff), diff.shape)
                problems.append(f"{k}: int8 differs by {diff.max()} steps at {i} (q8 {got[i]}, ORT {want[i]}; {allowed} allowed)")
        elif k in original_outputs:
            diff = float(np.abs(got - want).max())
            limit = steps[k] if k in steps else float_tolerance * max(float(np.abs(want).max()), 1e-6)
            if diff > limit * (1 + 1e-6):
                problems.append(f"{k}: max |q8 - ORT| {diff:.4g} > {limit:.4g}")
    return problems, int8_tensors, exact


def batch_invariance(q8, plan, files, out_plan, work):
    """A sample's bytes do not depend on its batch, nor on the thread count (docs/cpu.md, "INT8"):
    each sample of the batch-2 inputs run alone through the plan (sample 0 on every thread, sample 1
    on one) gives its row of the batch's every output. Nothing to check where an input's first axis
    is not the batch."""
    arrays = {k: np.load(v) for k, v in files.items()}
    if not arrays or any(v.ndim == 0 or v.shape[0] != 2 for v in arrays.values()):
        return []
    problems = []
    for j, threads in ((0, []), (1, ["--threads", "1"])):
        feeds = []
        for k, v in arrays.items():
            path = os.path.join(work, f"sample{j}_{k}.npy")
            np.save(path, v[j:j + 1])
            feeds += ["--input", f"{k}={path}"]
        out = os.path.join(work, f"sample{j}")
        run([q8, "run", plan, "--output-dir", out] + feeds + threads)
        for f in os.listdir(out_plan):
            batch, alone = np.load(os.path.join(out_plan, f)), np.load(os.path.join(out, f))
            if batch.ndim and batch.shape[0] == 2 and alone.shape == (1,) + batch.shape[1:]:
                if batch[j:j + 1].tobytes() != alone.tobytes():
                    problems.append(f"sample {j} alone{' on one thread' if threads else ''} differs from its row of the batch on {f}")
    return problems


def weighted_model(qdq):
    return any(n.op_type in ("Conv", "ConvTranspose", "Gemm", "MatMul") for n in onnx.load(qdq).graph.node)


def main():
    a = oracle_args(extra=lambda p: p.add_argument("--opencl", action="store_true",
                                                   help="also run each plan on the first OpenCL device and compare bits"))
    models = factory_models(a.models, SKIP)
    tally = Tally()
    if ORT_SATURATION_STEPS:
        print("  this host has no VNNI: ORT's u8s8 sums saturate in int16, one step more is allowed against ORT "
              "(q8's outputs are still compared with its integer reference byte for byte)")
    last_plan = None
    for i, (name, model) in enumerate(models.items()):
        variants = {"both": ["--add-mode", "both"], "tensorrt": ["--add-mode", "tensorrt"]}
        if name == "fashion_cnn":
            variants["fp32-weights"] = ["--fp32-weights"]  # FP32 weights behind Q -> DQ
        for variant, quantize_flags in variants.items():
            label = f"q8 run --int8 equals ORT within one step: {name}, {' '.join(quantize_flags)}"
            work = os.path.join(a.work, name, variant)
            try:
                m = onnx.load(model, load_external_data=False)
                table, qdq = calibrate_and_quantize(a.q8, model, work, 300 + i, quantize_flags)
                exposed = os.path.join(work, "exposed.qdq.onnx")
                steps, bounds = expose_quantized(qdq, exposed)
                files = make_inputs(model, work, 2, 17 + i)
                feeds = sum([["--input", f"{k}={v}"] for k, v in files.items()], [])
                out_q8, out_ort = os.path.join(work, "q8"), os.path.join(work, "ort")
                log = run([a.q8, "run", exposed, "--int8", "--output-dir", out_q8] + feeds)
                run(["node", os.path.join(HERE, "ort_run.js"), a.ort_dir, exposed, out_ort] + [f"{k}={v}" for k, v in files.items()])
                q8_out = {f[:-4]: np.load(os.path.join(out_q8, f)) for f in os.listdir(out_q8)}
                ort_out = {}
                for f in os.listdir(out_ort):
                    ort_out[f[:-4]] = np.load(os.path.join(out_ort, f))
                original = {file_safe(o.name) for o in m.graph.output}
                steps = {file_safe(k): v for k, v in steps.items()}
                bounds = {file_safe(k): v for k, v in bounds.items()}
                problems, tensors, exact = compare(name, q8_out, ort_out, steps, original, bounds)
                # The plan: built twice, byte-identical; run, the same bits as --int8.
                plans = [os.path.join(work, f"model{k}.q8plan") for k in (1, 2)]
                shapes = sum([["--shape", f"{k}=" + "x".join(map(str, np.load(v).shape))] for k, v in files.items()], [])
                for plan in plans:
                    run([a.q8, "build", exposed, "-o", plan] + shapes)
                if open(plans[0], "rb").read() != open(plans[1], "rb").read():
                    problems.append("two builds of the same model gave different plans")
                out_plan = os.path.join(work, "plan")
                plan_log = run([a.q8, "run", plans[0], "--output-dir", out_plan] + feeds)
                for f in os.listdir(out_q8):
                    if not np.array_equal(np.load(os.path.join(out_plan, f)), np.load(os.path.join(out_q8, f))):
                        problems.append(f"q8 run PLAN differs from q8 run --int8 on {f}")
                # The same plan on the integer reference alone: the CPU INT8 backend's bytes.
                out_ref = os.path.join(work, "reference")
                ref_log = run([a.q8, "run", plans[0], "--device", "cpu-reference", "--output-dir", out_ref] + feeds)
                on_backend = re.search(r"cpu-int8 (\d+) nodes", plan_log)
                if re.search(r"cpu-int8 (\d+) nodes", ref_log):
                    problems.append("with --device cpu-reference the CPU INT8 backend still ran nodes")
                for f in os.listdir(out_plan):
                    if np.load(os.path.join(out_ref, f)).tobytes() != np.load(os.path.join(out_plan, f)).tobytes():
                        problems.append(f"q8 run PLAN (CPU INT8 backend) differs from the integer reference on {f}")
                print(f"  {name} ({variant}): the CPU INT8 backend ran {on_backend.group(1) if on_backend else 0} nodes; "
                      "outputs compared with the integer reference's bytes")
                problems += batch_invariance(a.q8, plans[0], files, out_plan, work)
                if a.opencl:  # the same plan on the OpenCL device: the same bits as the integer reference
                    out_cl = os.path.join(work, "opencl")
                    cl_log = run([a.q8, "run", plans[0], "--device", "opencl", "--output-dir", out_cl] + feeds)
                    placed = re.search(r"opencl (\d+) nodes", cl_log)
                    cl_problems = [] if placed or not weighted_model(qdq) else ["no node ran on OpenCL"]
                    for f in os.listdir(out_plan):
                        if np.load(os.path.join(out_cl, f)).tobytes() != np.load(os.path.join(out_plan, f)).tobytes():
                            cl_problems.append(f"q8 run PLAN --device opencl differs from the integer reference on {f}")
                    print(f"  {name} ({variant}): OpenCL ran {placed.group(1) if placed else 0} nodes; "
                          + ("; ".join(cl_problems) if cl_problems else "every output bit-identical to the integer reference"))
                    problems += cl_problems
                last_plan = plans[0]
                fused = int(re.search(r"→ (\d+) fused INT8 ops", log).group(1))
                if weighted_model(qdq) and fused == 0:
                    problems.append("no node was lowered to an INT8 op")
                print(f"  {name} ({variant}): {fused} fused INT8 ops; {tensors} int8 tensors compared, {exact} bit-identical")
                tally.check(label, "; ".join(problems[:3]))
            except subprocess.CalledProcessError as e:
                tally.check(label, f"{os.path.basename(e.cmd[0])} {e.cmd[1]} failed: {stderr_excerpt(e.stderr)}")
    # A damaged plan: one error line, exit status 1, for each kind of damage.
    good = open(last_plan, "rb").read()
    future = bytearray(good)
    future[8] = 9
    flipped = bytearray(good)
    flipped[len(good) // 2] ^= 1
    for what, data, expect in (("truncated", good[:100], "truncated"), ("a flipped byte", bytes(flipped), "SHA-256"),
                               ("a future version", bytes(future), "plan version 9")):
        bad = os.path.join(a.work, "damaged.q8plan")
        open(bad, "wb").write(data)
        p = subprocess.run([a.q8, "run", bad, "--output-dir", os.path.join(a.work, "damaged")], capture_output=True, text=True)
        lines = p.stderr.strip().splitlines()
        ok = p.returncode == 1 and len(lines) == 1 and lines[0].startswith("q8: error:") and expect in lines[0]
        tally.check(f"q8 run on a plan with {what} fails with one clear line", "" if ok else f"exit {p.returncode}: {stderr_excerpt(p.stderr, 200)}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
