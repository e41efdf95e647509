#!/usr/bin/python3
"""calibrate → quantize → compare on the shipped model with real data: INT8 stays within one
point of FP32 top-1 on 2,000 Fashion-MNIST test images, and the report holds what it promises.

    accuracy_test.py Q8_BINARY WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TRAIN = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
TEST = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"


def main():
    q8, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tally = Tally()
    for method in ["entropy", "max"]:
        table, qdq, report = (os.path.join(work, f"{method}.{x}") for x in ("json", "qdq.onnx", "accuracy.json"))
        subprocess.run([q8, "calibrate", MODEL, "--data", TRAIN, "--limit", "512", "--method", method, "--json", table, "--quiet"],
                       check=True, capture_output=True)
        subprocess.run([q8, "quantize", MODEL, "--calib", table, "-o", qdq], check=True, capture_output=True)
        subprocess.run([q8, "compare", MODEL, qdq, "--data", TEST, "--limit", "2000", "--batch-size", "250", "--quiet", "--json",
                        report], check=True, capture_output=True)
        r = json.load(open(report))
        problems = []
        if r["samples"] != 2000 or r["labelled"] != 2000:
            problems.append(f"samples {r['samples']}, labelled {r['labelled']}")
        if not r["fp32_top1"] > 0.85:
            problems.append(f"FP32 top-1 {r['fp32_top1']:.4f} (the shipped model reaches 0.89)")
        if abs(r["int8_top1"] - r["fp32_top1"]) > 0.01:
            problems.append(f"INT8 top-1 {r['int8_top1']:.4f} vs FP32 {r['fp32_top1']:.4f}")
        if not (r["top1_agreement"] > 0.95 and r["output_cosine"] > 0.99):
            problems.append(f"agreement {r['top1_agreement']:.4f}, cosine {r['output_cosine']:.5f}")
        sqnr = [l["sqnr_db"] for l in r["layers"]]
        if len(sqnr) < 5 or sqnr != sorted(sqnr) or not min(sqnr) > 10:
            problems.append(f"per-layer SQNR {sqnr}")
        tally.check(f"{method}: FP32 {100 * r['fp32_top1']:.2f} %, INT8 {100 * r['int8_top1']:.2f} %", "; ".join(problems))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
