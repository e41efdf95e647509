#!/usr/bin/env python3
"""Where the time goes, q8 INT8 through OpenCL beside PyTorch FP16 channels-last on the same GPU:
q8's device time per kernel launch (`q8 bench --profile --json`'s device_launches) and PyTorch's
CUDA kernel time per op (torch.profiler, eager), both sorted into the same classes of layer, per
run of one batch.

    profile_device.py --q8-json NAME=FILE [--q8-json ...] [--batch 64] [--json OUT]

NAME is a torchvision model (random weights). q8's fused ops carry their epilogues (bias,
activations, the residual Add) inside the conv's kernel; PyTorch's eager ops launch them apart,
so "activations and elementwise" compares what each leaves outside the convolutions.
"""
import argparse
import json
from collections import defaultdict

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile

CLASSES = ["conv: dense, pointwise and FC", "conv: depthwise and grouped", "im2col and layout", "activations and elementwise",
           "pooling", "quantize and dequantize", "other"]


def q8_class(kernel):
    if kernel.startswith(("qgemm_mma", "qconv_implicit_mma", "qgemm", "qmatmul", "clblast", "Xgemm", "gemm")):
        return CLASSES[0]
    if kernel.startswith(("qconv_depthwise_nhwc", "qconv")):
        return CLASSES[1] if not kernel.startswith("qconv_transpose") else CLASSES[0]
    if kernel.startswith(("im2col", "copy", "fill", "concat_part", "qconcat_part", "gather", "transpose")):
        return CLASSES[2]
    if kernel.startswith(("activation", "binary", "mul_quantize", "qadd", "where", "softmax", "layer_normalization", "is_nan")):
        return CLASSES[3]
    if kernel.startswith(("global_average_pool", "max_pool", "reduce")):
        return CLASSES[4]
    if kernel.startswith(("quantize_linear", "dequantize_linear")):
        return CLASSES[5]
    return CLASSES[6]


def torch_class(event):
    name = event.name
    shapes = event.input_shapes or []
    if "conv" in name and len(shapes) > 1 and len(shapes[1]) == 4 and len(shapes[0]) == 4:
        x, w = shapes[0], shapes[1]
        return CLASSES[1] if w[1] != x[1] else CLASSES[0]
    if any(k in name for k in ("addmm", "aten::mm", "linear", "matmul")):
        return CLASSES[0]
    if any(k in name for k in ("silu", "hardswish", "sigmoid", "hardsigmoid", "relu", "clamp", "hardtanh", "mul", "add", "gelu")):
        return CLASSES[3]
    if any(k in name for k in ("mean", "pool")):
        return CLASSES[4]
    if any(k in name for k in ("copy", "contiguous", "to_copy", "clone")):
        return CLASSES[2]
    return CLASSES[6]


def torch_profile(name, batch, reps):
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)(weights=None).eval().cuda().half().to(memory_format=torch.channels_last)
    x = torch.randn(batch, 3, 224, 224, device="cuda").half().to(memory_format=torch.channels_last)
    with torch.no_grad():
        for _ in range(5):
            m(x)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            for _ in range(reps):
                m(x)
            torch.cuda.synchronize()
    by_class, by_op = defaultdict(float), defaultdict(float)
    for e in prof.events():
        kernels = getattr(e, "kernels", None) or []
        us = sum(getattr(k, "duration", 0.0) for k in kernels)
        if us <= 0:
            continue
        c = torch_class(e)
        by_class[c] += us / 1e3 / reps
        by_op[f"{e.name} {e.input_shapes[:2] if e.input_shapes else ''}"] += us / 1e3 / reps
    return by_class, by_op


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--q8-json", action="append", required=True)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json")
    a = ap.parse_args()
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "batch": a.batch, "models": []}
    for item in a.q8_json:
        name, path = item.split("=", 1)
        bench = json.load(open(path))
        runs = [bench["int8"]] if bench.get("int8", {}).get("device_launches") else []
        if not runs:
            raise SystemExit(f"{path}: no device_launches in its int8 timing (q8 bench --int8 PLAN --device opencl --profile --json)")
        q8_class_ms, q8_launch = defaultdict(float), {}
        for r in runs:
            for l in r["device_launches"]:
                q8_class_ms[q8_class(l["launch"])] += l["ms_per_run"]
                q8_launch[l["launch"]] = l["ms_per_run"]
        t_class, t_op = torch_profile(name, a.batch, a.reps)
        print(f"== {name}, batch {a.batch}: device time per run, ms (q8 INT8 OpenCL | PyTorch FP16 NHWC eager)")
        for c in CLASSES:
            print(f"  {c:<34} {q8_class_ms.get(c, 0.0):9.3f} | {t_class.get(c, 0.0):9.3f}")
        print(f"  {'total':<34} {sum(q8_class_ms.values()):9.3f} | {sum(t_class.values()):9.3f}")
        print("  q8's ten longest launches:")
        for k, v in sorted(q8_launch.items(), key=lambda kv: -kv[1])[:10]:
            print(f"    {v:8.3f} ms  {k}")
        print("  PyTorch's ten longest ops:")
        for k, v in sorted(t_op.items(), key=lambda kv: -kv[1])[:10]:
            print(f"    {v:8.3f} ms  {k[:110]}")
        out["models"].append({"model": name, "q8_ms_by_class": q8_class_ms, "torch_ms_by_class": t_class,
                              "q8_launches": q8_launch, "torch_ops": dict(sorted(t_op.items(), key=lambda kv: -kv[1])[:40])})
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
