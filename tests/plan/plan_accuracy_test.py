#!/usr/bin/python3
"""The INT8 engine keeps the QDQ model's accuracy: on Fashion-MNIST test images, the shipped
model's top-1 through the INT8 engine (`q8 compare --int8`: lowered into fused integer ops, its
convolutions and GEMMs on the CPU INT8 backend, as its placement says) is within 0.05 points of the
same QDQ model run as float Q/DQ.

    plan_accuracy_test.py Q8_BINARY WORK_DIR LIMIT

LIMIT test images (10,000 in the release build; fewer under the sanitizers, where 0.05 points is
less than one image, so the counts must be equal). Also: q8 bench times both on the same input.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally, stderr_excerpt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TRAIN = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
TEST = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"


def main():
    q8, work, limit = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tally = Tally()
    table, qdq = os.path.join(work, "table.json"), os.path.join(work, "model.qdq.onnx")
    subprocess.run([q8, "calibrate", MODEL, "--data", TRAIN, "--limit", "512", "--json", table, "--quiet"], check=True,
                   capture_output=True)
    subprocess.run([q8, "quantize", MODEL, "--calib", table, "-o", qdq], check=True, capture_output=True)
    top1 = {}
    for engine, flags in (("qdq", []), ("int8", ["--int8"])):
        report = os.path.join(work, f"{engine}.json")
        p = subprocess.run([q8, "compare", MODEL, qdq, "--data", TEST, "--limit", limit, "--batch-size", "250", "--quiet",
                            "--json", report] + flags, capture_output=True, text=True)
        tally.check(f"q8 compare {' '.join(flags) or '(float Q/DQ)'} runs", "" if p.returncode == 0 else stderr_excerpt(p.stderr))
        if p.returncode == 0:
            j = json.load(open(report))
            top1[engine] = j["metrics"]["top1"]
            if engine == "int8":
                tally.check("q8 compare --int8 runs the fused ops on the CPU INT8 backend",
                            "" if "cpu-int8" in j["placement"] else f"placement: {j['placement']}")
    if len(top1) == 2:
        drop = abs(top1["int8"] - top1["qdq"])
        print(f"top-1 on {limit} images: QDQ {top1['qdq']:.2f} %, INT8 engine {top1['int8']:.2f} %")
        tally.check("INT8 engine top-1 within 0.05 points of the QDQ model's", "" if drop <= 0.05 + 1e-9 else f"{drop:.2f} points apart")
    # q8 bench: FP32 and the INT8 engine on the same input, with a per-node profile, as JSON.
    bench = os.path.join(work, "bench.json")
    p = subprocess.run([q8, "bench", MODEL, "--int8", qdq, "--shape", "input=8x1x28x28", "--warmup", "1", "--iterations", "3",
                        "--profile", "--json", bench], capture_output=True, text=True)
    problem = stderr_excerpt(p.stderr) if p.returncode else ""
    if not problem:
        j = json.load(open(bench))
        for engine in ("fp32", "int8"):
            lat = j[engine]["latency_ms"]
            if len(lat["iterations"]) != 3 or not lat["min"] <= lat["median"] <= lat["p99"] <= lat["max"]:
                problem = f"{engine}: latencies out of order: {lat}"
            if not any(n["backend"] == ("cpu-int8" if engine == "int8" else "cpu") for n in j[engine]["profile"]):
                problem = f"{engine}: profile names no node on its backend"
        if "INT8 / FP32 latency" not in p.stdout:
            problem = "no INT8 / FP32 line printed"
    tally.check("q8 bench times FP32 and the INT8 engine, with a profile and JSON", problem)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
