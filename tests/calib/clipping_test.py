#!/usr/bin/python3
"""Calibration warns when a threshold clips. On Fashion-MNIST normalised with mean/std, every
background pixel is the same negative value, a spike in |x| that TensorRT's KL search clips at
(the cause of a 6-point INT8 loss on a trained model): entropy's spike guard must keep the
saturated fraction of the input within 1 % (checked against the raw pixels). A threshold that does
clip the input (the 70th percentile) must be named with the fraction it saturates (checked against
the raw pixels) and a method that would not clip; --strict must make it an error with nothing
written; max must not warn about the input.

    clipping_test.py Q8_BINARY WORK_DIR
"""
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TRAIN = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
MEAN, STD, LIMIT = 0.286, 0.353, 512


def pixels():
    with gzip.open(TRAIN, "rb") as f:
        f.read(16)
        return np.frombuffer(f.read(LIMIT * 784), np.uint8).astype(np.float64)


def calibrate(q8, work, method, *extra):
    table = os.path.join(work, f"{method}.json")
    if os.path.exists(table):
        os.remove(table)
    p = subprocess.run([q8, "calibrate", MODEL, "--data", TRAIN, "--limit", str(LIMIT), "--method", method, "--mean", str(MEAN),
                        "--std", str(STD), "--json", table, "--quiet", *extra], capture_output=True, text=True)
    return p, table


def main():
    q8, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tally = Tally()
    x = (pixels() * (1.0 / 255.0) - MEAN) / STD
    x = np.abs(x.astype(np.float32).astype(np.float64))

    p, table = calibrate(q8, work, "entropy")
    if p.returncode:
        tally.check("entropy on mean/std input", p.stderr.strip())
    else:
        t = json.load(open(table))["activations"]["input"]
        saturated = float(np.mean(x[x > 0] >= t["amax"] * (1 + 1 / 254)))
        tally.check(f"entropy's spike guard: the input saturates {100 * saturated:.3f} % at amax {t['amax']:.4g} (at most 1 %)",
                    "" if saturated <= 0.01 else f"{100 * saturated:.2f} % saturate")

    p, table = calibrate(q8, work, "percentile", "--percentile", "70")
    warned = [l for l in p.stderr.splitlines() if "graph input 'input' clips" in l]
    problems = []
    if p.returncode != 0 or not warned:
        problems.append(f"exit {p.returncode}, no warning naming the input: {p.stderr.strip()!r}")
    else:
        t = json.load(open(table))["activations"]["input"]
        want = float(np.mean(x[x > 0] >= t["amax"] * (1 + 1 / 254)))  # saturating: round(|x| / scale) > 127
        if abs(t["clipped"] - want) > 0.01:
            problems.append(f"clipped {t['clipped']:.4f}, the raw pixels give {want:.4f} at amax {t['amax']}")
        if "max " not in warned[0] or "clips none" not in warned[0]:
            problems.append("the warning names no method that would not clip: " + warned[0])
        if want < 0.05:
            problems.append(f"the 70th percentile clips only {want:.4f} of the input here: the test no longer clips")
    tally.check("the 70th percentile on mean/std input: a warning names the input, its clipped fraction and max", "; ".join(problems))

    p, table = calibrate(q8, work, "percentile", "--percentile", "70", "--strict")
    errors = [l for l in p.stderr.splitlines() if l.startswith("q8: error:")]
    tally.check("--strict makes clipping an error: one line, no table written",
                "" if p.returncode != 0 and len(errors) == 1 and "--strict" in errors[0] and not os.path.exists(table)
                else f"exit {p.returncode}, table written {os.path.exists(table)}, stderr {p.stderr.strip()!r}")

    p, table = calibrate(q8, work, "max")
    tally.check("max clips nothing: no warning about the input",
                "" if p.returncode == 0 and "graph input" not in p.stderr and json.load(open(table))["activations"]["input"]["clipped"] == 0
                else f"exit {p.returncode}, stderr {p.stderr.strip()!r}")

    p, table = calibrate(q8, work, "percentile", "--clip-limit", "1")
    lines = [l for l in p.stderr.splitlines() if "clips" in l and l.startswith("q8: warning:   ")]
    tally.check("--clip-limit 1: only graph inputs are listed",
                "" if p.returncode == 0 and all("graph input" in l for l in lines) else f"{lines}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
