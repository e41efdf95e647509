#!/usr/bin/env python3
"""Convolutional nets with modern activations on the GPU machine: torchvision's EfficientNet-B0
(SiLU, squeeze-excitation gates) and MobileNetV3-Large (HardSwish, HardSigmoid gates) with random
weights, exported to ONNX for q8 (opset 17), calibration samples for q8 calibrate, and PyTorch on
the same GPU as their peer: FP16 channels-last, eager and torch.compile, img/s at each batch. TF32
is off.

    cnn_peers_device.py OUT [--models efficientnet_b0,mobilenet_v3_large] [--batches 1,64] [--no-compile] [--export-only]

Writes OUT/NAME.onnx, OUT/calib/NAME/*.npy (8 samples) and OUT/torch_cnn.json.
"""
import argparse
import json
import os

import numpy as np
import torch
import torchvision

from torch_peers import timeit  # noqa: E402  (this folder is on sys.path when run as a script)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--models", default="efficientnet_b0,mobilenet_v3_large")
    ap.add_argument("--batches", default="1,64")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--export-only", action="store_true", help="the ONNX models and calibration samples, no timing")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for name in a.models.split(","):
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = torch.randn(1, 3, 224, 224)
        torch.onnx.export(model, x, os.path.join(a.out, name + ".onnx"), input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "N"}, "output": {0: "N"}}, opset_version=17, dynamo=False)
        calib = os.path.join(a.out, "calib", name)
        os.makedirs(calib, exist_ok=True)
        rng = np.random.default_rng(0)
        for i in range(8):
            np.save(os.path.join(calib, f"{i}.npy"), rng.standard_normal((3, 224, 224)).astype(np.float32))
        if a.export_only:
            continue
        m = model.cuda().half().to(memory_format=torch.channels_last)
        forms = [("fp16_nhwc", m)]
        if not a.no_compile:
            forms.append(("fp16_nhwc_compile", torch.compile(m)))
        with torch.no_grad():
            for form, fn in forms:
                for b in [int(v) for v in a.batches.split(",")]:
                    xb = torch.randn(b, 3, 224, 224, device="cuda").half().to(memory_format=torch.channels_last)
                    for _ in range(3):
                        fn(xb)
                    s = timeit(lambda: fn(xb), 20 if b > 1 else 100)
                    row = {"model": name, "form": form, "batch": b, "ms": s * 1e3, "img_per_s": b / s}
                    rows.append(row)
                    print(f"torch {name} {form} b{b}: {s * 1e3:.3f} ms, {b / s:.0f} img/s", flush=True)
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "rows": rows},
              open(os.path.join(a.out, "torch_cnn.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
