#!/usr/bin/env python3
"""PyTorch on the same GPU, the peers of q8's OpenCL figures: torchvision's ResNet-18, ResNet-50
and MobileNetV2 (random weights) in FP32 and FP16 at batch 1 and 64 (img/s), and at the GEMM sizes
given torch._int_mm (cuBLAS INT8) TOPS and FP16 torch.matmul TFLOP/s. TF32 is off, so FP32 is FP32.

    torch_peers.py [--n 1024,4096,8192] [--json OUT]
"""
import argparse
import json
import time

import torch
import torchvision


def timeit(fn, reps):
    fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / reps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="1024,4096,8192")
    ap.add_argument("--json")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    out = {"device": torch.cuda.get_device_name(0), "models": [], "int_mm": [], "fp16_mm": []}
    models = {"resnet18": torchvision.models.resnet18, "resnet50": torchvision.models.resnet50,
              "mobilenetv2": torchvision.models.mobilenet_v2}
    with torch.no_grad():
        for name, make in models.items():
            m = make(weights=None).eval().cuda()
            for dtype in (torch.float32, torch.float16):
                mm = m.to(dtype)
                for b in (1, 64):
                    x = torch.randn(b, 3, 224, 224, device="cuda", dtype=dtype)
                    s = timeit(lambda: mm(x), 30 if b == 1 else 10)
                    print(f"pytorch {name:12s} {str(dtype)[6:]:8s} batch {b:3d}: {s * 1e3:8.3f} ms, {b / s:9.1f} img/s")
                    out["models"].append({"model": name, "dtype": str(dtype)[6:], "batch": b, "ms": s * 1e3, "img_per_s": b / s})
    for n in (int(v) for v in args.n.split(",")):
        a = torch.randint(-127, 127, (n, n), device="cuda", dtype=torch.int8)
        b = torch.randint(-127, 127, (n, n), device="cuda", dtype=torch.int8)
        s = timeit(lambda: torch._int_mm(a, b), 10)
        print(f"torch._int_mm n = {n:5d}: {s * 1e3:8.3f} ms, {2 * n ** 3 / s / 1e12:8.2f} TOPS")
        out["int_mm"].append({"n": n, "ms": s * 1e3, "tops": 2 * n ** 3 / s / 1e12})
        a16, b16 = a.half(), b.half()
        s = timeit(lambda: torch.matmul(a16, b16), 10)
        print(f"FP16 matmul   n = {n:5d}: {s * 1e3:8.3f} ms, {2 * n ** 3 / s / 1e12:8.2f} TFLOP/s")
        out["fp16_mm"].append({"n": n, "ms": s * 1e3, "tflops": 2 * n ** 3 / s / 1e12})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
