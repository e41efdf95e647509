#!/usr/bin/python3
"""q8 calibrate --method auto (docs/calibration.md, "Choosing the method by the outputs"), measured
again by other commands: for every candidate, `q8 calibrate --method M` and `q8 quantize` write the
QDQ model and `q8 compare` runs it on the held-back samples auto measured on (Fashion-MNIST
training images 512–519 after calibrating on the first 512, written as an IDX file of their own).
Each loss auto reports per sample must be 1 − the cosine q8 compare measures on that sample alone
(one output), the method chosen must follow the rule recomputed from them (mse unless another has
the smaller loss on 7 of the 8 samples and overall), the table's ranges must be the chosen
method's, and the TensorRT cache must carry its calibrator's name.
With nothing to measure on (--merge alone) auto is one error line, exit 2, nothing written.

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
    choice = settings.get("auto", {})
    trials = {t["method"]: t for t in choice.get("candidates", [])}
    tally.check("the table records every candidate, mse first, measured on 8 held-back samples",
                "" if list(trials)[:1] == ["mse"] and set(trials) == {"mse", "max", "percentile", "entropy"}
                and choice.get("samples") == HELD and choice.get("held_back") is True else f"settings.auto is {choice}")

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
    mse = trials["mse"]["sample_losses"]
    winners = [m for m, t in trials.items() if m != "mse" and sum(a < b for a, b in zip(t["sample_losses"], mse)) >= 7]
    best = min(winners, key=lambda m: (losses[m], list(losses).index(m))) if winners else None
    want = best if best and losses[best] < losses["mse"] else "mse"
    tally.check(f"the choice follows the rule ({', '.join(f'{m} {v:.3g}' for m, v in losses.items())}; 7 of 8 to win: {want})",
                "" if choice.get("chosen") == want == settings.get("method") else f"chose {choice.get('chosen')}, method {settings.get('method')}")

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
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
