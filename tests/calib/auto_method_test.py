#!/usr/bin/python3
"""q8 calibrate --method auto (docs/calibration.md, "Choosing the method by the outputs"), measured
again by other commands. The shipped model holds with mse, so auto measures mse alone and keeps it:
`q8 calibrate --method mse` and `q8 quantize` write the QDQ model and `q8 compare` runs it on each
held-back sample auto measured on (Fashion-MNIST training images 512–519 after calibrating on the
first 512, each written as an IDX file of its own); each loss auto reports must be 1 − the cosine
compare measures on that sample (one output), the table's ranges mse's, and the TensorRT cache must
carry its calibrator's name.
With nothing to measure on (--merge alone) --method auto is one error line, exit 2, nothing written,
and the default (auto) calibrates with mse.

A model that collapses as given (a depthwise Conv → Relu → pointwise Conv whose depthwise channels'
ranges span 10⁴, what BatchNorm folding leaves in mobile detectors) must make auto calibrate the
equalized graph too, keep it (settings.equalize, as q8 quantize then applies), and the QDQ model
written from that table must be closer to FP32 on other samples than the one from --method mse;
there every method is measured, and the choice in each round follows the rule recomputed from the
losses recorded (from mse, or the choice as given, on to the least loss among the methods with the
smaller loss on 7 of the 8 samples and overall, until none has).

    auto_method_test.py Q8_BINARY WORK_DIR
"""
import gzip
import json
import math
import os
import shutil
import struct
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally, stderr_excerpt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TRAIN = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
LIMIT, HELD = 512, 8


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def held_back_idx(path, i):
    """Training image LIMIT + i as an IDX file of its own."""
    with gzip.open(TRAIN, "rb") as f:
        f.read(16 + (LIMIT + i) * 784)
        pixels = f.read(784)
    with open(path, "wb") as f:
        f.write(struct.pack(">IIII", 0x803, 1, 28, 28) + pixels)


def main():
    q8, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tally = Tally()
    table, cache = os.path.join(work, "auto.json"), os.path.join(work, "auto.cache")
    p = run(q8, "calibrate", MODEL, "--data", TRAIN, "--limit", str(LIMIT), "--method", "auto", "--json", table, "--cache", cache)
    if p.returncode:
        tally.check("q8 calibrate --method auto", stderr_excerpt(p.stderr))
        return tally.finish()
    settings = json.load(open(table))["settings"]
    recorded = settings.get("auto", {})
    choice = recorded.get("as_given", {})
    trials = {t["method"]: t for t in choice.get("candidates", [])}
    # The shipped model holds with mse (lowest cosine > 0.97): mse alone is measured, and kept.
    tally.check("mse holds (lowest cosine over 0.97): it alone is measured, on 8 held-back samples, and no equalized round is run",
                "" if list(trials) == ["mse"] and trials["mse"]["lowest_cosine"] > 0.97 and recorded.get("equalize") is False
                and "equalized" not in recorded and choice.get("samples") == HELD and choice.get("held_back") is True
                else f"settings.auto is {recorded}")

    problems = []
    for method, t in trials.items():
        mt = os.path.join(work, f"{method}.json")
        qdq = os.path.join(work, f"{method}.qdq.onnx")
        cmds = [[q8, "calibrate", MODEL, "--data", TRAIN, "--limit", str(LIMIT), "--method", method, "--json", mt, "--quiet"],
                [q8, "quantize", MODEL, "--calib", mt, "-o", qdq, "--check-samples", "0", "--quiet"]]
        measured = []
        for i in range(HELD):
            data = os.path.join(work, f"held-back-{i}-idx3-ubyte")
            if not os.path.exists(data):
                held_back_idx(data, i)
            report = os.path.join(work, f"{method}.{i}.compare.json")
            cmds.append([q8, "compare", MODEL, qdq, "--data", data, "--quiet", "--layers", "0", "--json", report])
        for cmd in cmds:
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                problems.append(f"{' '.join(cmd[:2])} {method}: {stderr_excerpt(r.stderr)}")
                break
            if cmd[1] == "compare":
                measured.append(max(1 - json.load(open(cmd[-1]))["outputs"][0]["cosine"], 1e-9))
        else:
            reported = t.get("sample_losses", [])
            if len(reported) != HELD or any(not math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-9) for a, b in zip(reported, measured)):
                problems.append(f"{method}: auto reports {[f'{v:.4g}' for v in reported]}, compare gives {[f'{v:.4g}' for v in measured]}")
            gm = math.exp(sum(math.log(v) for v in measured) / len(measured))
            if not math.isclose(gm, t["loss"], rel_tol=1e-5):
                problems.append(f"{method}: loss {t['loss']:.6g}, the samples' geometric mean {gm:.6g}")
    tally.check("each candidate's per-sample losses are 1 - the cosine q8 compare measures on that sample for its QDQ model",
                "; ".join(problems))

    losses = {m: t["loss"] for m, t in trials.items()}
    want = walk(trials["mse"], list(trials.values()))["method"]
    tally.check(f"the choice follows the rule ({', '.join(f'{m} {v:.3g}' for m, v in losses.items())}; 7 of 8 to win: {want})",
                "" if choice.get("chosen") == want == settings.get("method") == recorded.get("chosen")
                else f"chose {choice.get('chosen')}, method {settings.get('method')}")

    chosen = json.load(open(table))["activations"]
    own = json.load(open(os.path.join(work, f"{want}.json")))["activations"]
    differ = [n for n in own if own[n].get("amax") != chosen.get(n, {}).get("amax")]
    tally.check(f"the table's ranges are those of --method {want}", f"{len(differ)} differ, e.g. {differ[:3]}" if differ else "")
    header = open(cache).readline().strip()
    algorithm = "MinMaxCalibration" if want == "max" else "EntropyCalibration2"
    tally.check(f"the cache is headed by the chosen method's calibrator ({header})", "" if header.endswith(algorithm) else f"want {algorithm}")

    h5 = os.path.join(work, "part.h5")
    run(q8, "calibrate", MODEL, "--data", TRAIN, "--limit", "64", "--histograms", h5, "--quiet")
    out = os.path.join(work, "merged.json")
    p = run(q8, "calibrate", MODEL, "--merge", h5, "--method", "auto", "--json", out)
    errors = [l for l in p.stderr.splitlines() if l.startswith("q8: error:")]
    tally.check("--method auto with --merge alone: one error line naming --data, exit 2, nothing written",
                "" if p.returncode == 2 and len(errors) == 1 and "--data" in errors[0] and not os.path.exists(out)
                else f"exit {p.returncode}, {p.stderr.strip()!r}")
    p = run(q8, "calibrate", MODEL, "--merge", h5, "--json", out)
    method = json.load(open(out))["settings"]["method"] if p.returncode == 0 and os.path.exists(out) else None
    tally.check("the default with --merge alone (nothing to measure on) calibrates with mse", "" if method == "mse" else
                f"exit {p.returncode}, method {method}: {p.stderr.strip()!r}")
    collapsing_model(q8, work, tally)
    return tally.finish()


def beats(a, b):
    """a has the smaller loss on 7 of the 8 samples, and the smaller loss overall."""
    return sum(x < y for x, y in zip(a["sample_losses"], b["sample_losses"])) >= 7 and a["loss"] < b["loss"]


def walk(start, candidates):
    """From start on to the least loss (the earlier on a tie) among the candidates that beat the
    current choice, until none does."""
    current = start
    while True:
        better = [c for c in candidates if beats(c, current)]
        if not better:
            return current
        current = min(better, key=lambda c: (c["loss"], candidates.index(c)))


def collapsing_model(q8, work, tally):
    rng = np.random.default_rng(5)
    spread = np.exp(np.linspace(-4.6, 4.6, 16)).astype(np.float32)  # depthwise output ranges from 0.01 to 100
    inits = [numpy_helper.from_array(rng.normal(size=(16, 3, 3, 3)).astype(np.float32), "W1"),
             numpy_helper.from_array((rng.normal(size=(16, 1, 3, 3)) * spread.reshape(16, 1, 1, 1)).astype(np.float32), "Wd"),
             numpy_helper.from_array((rng.normal(size=(8, 16, 1, 1)) / spread.reshape(1, 16, 1, 1)).astype(np.float32), "Wp")]
    n = helper.make_node
    nodes = [n("Conv", ["x", "W1"], ["c"], name="conv", pads=[1, 1, 1, 1]), n("Relu", ["c"], ["r"]),
             n("Conv", ["r", "Wd"], ["d"], name="depthwise", group=16, pads=[1, 1, 1, 1]), n("Relu", ["d"], ["e"]),
             n("Conv", ["e", "Wp"], ["y"], name="pointwise")]
    g = helper.make_graph(nodes, "collapse", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8, 16, 16])], inits)
    model = os.path.join(work, "collapse.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_operatorsetid("", 13)]), model)
    data, test = os.path.join(work, "collapse-calib.npy"), os.path.join(work, "collapse-test.npy")
    np.save(data, rng.normal(size=(32, 3, 16, 16)).astype(np.float32))
    np.save(test, rng.normal(size=(32, 3, 16, 16)).astype(np.float32))
    cosine = {}
    for method in ("mse", "auto"):
        table, qdq, report = (os.path.join(work, f"collapse.{method}{e}") for e in (".json", ".qdq.onnx", ".compare.json"))
        p = run(q8, "calibrate", model, "--data", data, "--method", method, "--json", table)
        if p.returncode == 0:
            p = run(q8, "quantize", model, "--calib", table, "-o", qdq, "--check-samples", "0", "--quiet")
        if p.returncode == 0:
            p = run(q8, "compare", model, qdq, "--data", test, "--quiet", "--layers", "0", "--json", report)
        if p.returncode:
            tally.check(f"the collapsing model with --method {method}", stderr_excerpt(p.stderr))
            return
        cosine[method] = json.load(open(report))["outputs"][0]["cosine"]
    recorded = json.load(open(os.path.join(work, "collapse.auto.json")))["settings"]
    auto = recorded.get("auto", {})
    measured = [t["method"] for t in auto.get("as_given", {}).get("candidates", [])]
    tally.check("where mse collapses every method is measured, mse first", "" if measured[:1] == ["mse"] and
                set(measured) == {"mse", "max", "percentile", "entropy"} else f"measured {measured}")
    if measured:
        given = auto["as_given"]["candidates"]
        first = walk(given[0], given)
        final = walk(first, auto["equalized"]["candidates"]) if "equalized" in auto else first
        tally.check(f"each round's choice follows the rule (as given: {first['method']}, then {final['method']}"
                    f"{' equalized' if final is not first else ''})",
                    "" if auto["as_given"]["chosen"] == first["method"] and auto.get("chosen") == final["method"] and
                    auto.get("equalize") == (final is not first) else f"recorded {auto.get('chosen')}, equalize {auto.get('equalize')}")
    as_given = min(t["lowest_cosine"] for t in auto.get("as_given", {}).get("candidates", [{"lowest_cosine": 1}]))
    tally.check(f"a model that collapses as given (best lowest cosine {as_given:.3f}) is calibrated equalized too, and that is kept",
                "" if as_given < 0.97 and "equalized" in auto and auto.get("equalize") is True and recorded.get("equalize") is True
                else f"settings: equalize {recorded.get('equalize')}, auto {auto}")
    tally.check(f"its QDQ model is closer to FP32 on other samples than mse's (cosine {cosine['auto']:.4f} against {cosine['mse']:.4f})",
                "" if cosine["auto"] > cosine["mse"] and cosine["auto"] >= 0.97 else "not closer, or still collapsed")


if __name__ == "__main__":
    sys.exit(main())
