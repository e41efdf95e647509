#!/usr/bin/python3
"""The INT8 engine keeps the QDQ model's accuracy: on Fashion-MNIST test images, the shipped
model's top-1 through the INT8 engine (`q8 compare --int8`: lowered into fused integer ops, its
convolutions and GEMMs on the CPU INT8 backend, as its placement says) is within 0.05 points of the
same QDQ model run as float Q/DQ.

    plan_accuracy_test.py Q8_BINARY WORK_DIR LIMIT ORT_LIBRARY

LIMIT test images (10,000 in the release build; fewer under the sanitizers, where 0.05 points is
less than one image, so the counts must be equal). Also: q8 bench times both on the same input,
and with --peer ort (ORT_LIBRARY, ONNX Runtime's C library) ONNX Runtime on the same model files
and inputs: its FP32 outputs must be q8's FP32 outputs to float rounding, its INT8 (QDQ) outputs
q8's INT8 engine's to within a few quantization steps; given a plan, ONNX Runtime times FP32 only.
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
    q8, work, limit, ort_library = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
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
    check_peer(tally, q8, work, qdq, ort_library)
    return tally.finish()


def check_peer(tally, q8, work, qdq, ort_library):
    """q8 bench --peer ort: ONNX Runtime on the same files and inputs, its outputs beside q8's."""
    bench = os.path.join(work, "peer.json")
    args = [q8, "bench", MODEL, "--shape", "input=8x1x28x28", "--warmup", "1", "--iterations", "3", "--peer", "ort",
            "--ort-library", ort_library]
    p = subprocess.run(args + ["--int8", qdq, "--json", bench], capture_output=True, text=True)
    problem = stderr_excerpt(p.stderr) if p.returncode else ""
    if not problem:
        peer = json.load(open(bench)).get("peer", {})
        for engine, bound in (("fp32", 1e-5), ("int8", 0.05)):  # bound: max |difference| / max |value|
            if engine not in peer:
                problem = f"no peer.{engine} in the JSON"
                break
            lat = peer[engine]["latency_ms"]
            outs = peer[engine]["outputs_beside_q8"]
            print(f"ONNX Runtime {peer['version']} {engine}: {lat['mean']:.3f} ms, q8/ORT {peer[engine]['q8_over_peer_latency']:.2f}; "
                  + ", ".join(f"{o['name']} max |diff| {o['max_abs_difference']:.3g} of {o['max_abs_value']:.3g}" for o in outs))
            if len(lat["iterations"]) != 3 or not lat["min"] <= lat["median"] <= lat["max"]:
                problem = f"{engine}: peer latencies out of order: {lat}"
            elif [o["name"] for o in outs] != ["logits"]:
                problem = f"{engine}: outputs compared: {outs}"
            elif not outs[0]["max_abs_difference"] <= bound * outs[0]["max_abs_value"] or outs[0]["max_abs_value"] <= 0:
                problem = f"{engine}: q8 and ONNX Runtime disagree: {outs[0]}"
        for line in ("FP32 / ORT FP32 latency", "INT8 / ORT INT8 latency"):
            if not problem and line not in p.stdout:
                problem = f"no '{line}' line printed"
    tally.check("q8 bench --peer ort times ONNX Runtime on the same inputs; FP32 and INT8 outputs agree with it", problem)
    # A plan is q8's own file: ONNX Runtime times the FP32 model only, and says so.
    plan = os.path.join(work, "model.q8plan")
    subprocess.run([q8, "build", qdq, "-o", plan], check=True, capture_output=True)
    p = subprocess.run(args + ["--int8", plan, "--json", bench], capture_output=True, text=True)
    problem = stderr_excerpt(p.stderr) if p.returncode else ""
    if not problem:
        peer = json.load(open(bench))["peer"]
        if "int8" in peer or "fp32" not in peer or "ORT INT8: not timed" not in p.stdout:
            problem = f"peer keys {sorted(peer)}; stdout: {p.stdout[-300:]}"
    tally.check("q8 bench --peer ort with a plan times ONNX Runtime's FP32 only and says why", problem)


if __name__ == "__main__":
    sys.exit(main())
