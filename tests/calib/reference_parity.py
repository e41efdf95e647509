#!/usr/bin/python3
"""Method parity: q8's histograms and thresholds against an independent reference written from
docs/calibration.md with numpy and scipy.

    reference_parity.py Q8_BINARY WORK_DIR

For synthetic tensors (normal, Laplace, uniform, bimodal, heavy outliers, all zeros, a single
value) it runs `q8 calibrate` with each method on an Identity model and checks:
  - the histogram counts and width equal numpy's binning of the raw values (exact);
  - max equals numpy's max |x| exactly;
  - percentile, entropy and mse pick the same bin as the reference (equal amax).
Ends with 'N passed, M failed'.
"""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import onnx
import scipy.stats
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

BINS = 4096
LEVELS = 128


def identity_model(path, width):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", width])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", width])
    g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"], name="id")], "parity", [x], [y])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, path)


def distributions():
    r = np.random.default_rng(2024)
    n = (300, 64)
    outliers = r.standard_normal(n)
    outliers.flat[r.choice(outliers.size, 20, replace=False)] = r.uniform(200, 1000, 20)
    bimodal = np.where(r.random(n) < 0.7, r.normal(-2.0, 0.5, n), r.normal(3.0, 0.3, n))
    return {
        "normal": r.standard_normal(n),
        "laplace": r.laplace(0.0, 1.0, n),
        "uniform": r.uniform(-3.0, 3.0, n),
        "bimodal": bimodal,
        "outliers": outliers,
        "zeros": np.zeros(n),
        "single": np.full(n, 0.7),
        "relu": np.maximum(r.standard_normal(n) * 2.0, 0.0),  # half exact zeros
        "softmax": np.exp(r.normal(-9.0, 2.5, n)),  # a near-zero bulk, a few values near 1
    }


# ---- the reference, from docs/calibration.md ----

def reference_histogram(values):
    a = np.abs(values.astype(np.float32).astype(np.float64)).ravel()
    max_abs = a.max()
    if max_abs == 0:
        h = np.zeros(BINS, dtype=np.uint64)
        h[0] = a.size
        return None, h, max_abs
    e = -149
    while not max_abs < BINS * 2.0 ** e:
        e += 1
    bins = np.minimum(np.floor(a / 2.0 ** e).astype(np.int64), BINS - 1)
    return e, np.bincount(bins, minlength=BINS).astype(np.uint64), max_abs


def ref_percentile(c, w, p):
    total = int(c.sum())
    cum = np.cumsum(c.astype(object))  # exact integers
    for k in range(len(c)):
        if cum[k] * 10**8 >= round(p * 10**6) * total:
            return (k + 1) * w
    raise AssertionError("unreachable")


def ref_entropy(c, w, max_abs, zeros):
    used = int(np.nonzero(c)[0].max()) + 1
    if used < LEVELS:
        return max_abs
    c = c[:used].astype(np.float64)
    nonzero = c.sum() - zeros
    c[0] -= zeros
    above = np.concatenate([np.cumsum(c[::-1])[::-1], [0.0]])  # values in bins b and up
    c[0] = c[1]  # the zero spike neutralised, as pytorch-quantization does
    best, best_n = np.inf, used
    for n in range(LEVELS, used + 1):
        first = min(used, int(np.ceil((n + 0.5) * (1 + 1 / 254))))
        if nonzero > 0 and above[first] > 0.01 * nonzero:
            continue  # the spike guard: saturates more than 1 % of the non-zero values
        p = c[:n].copy()
        p[n - 1] += c[n:].sum()
        level = (LEVELS * np.arange(n)) // n
        q = np.zeros(n)
        for l in range(LEVELS):
            members = (level == l) & (c[:n] > 0)
            if members.any():
                q[members] = c[:n][level == l].sum() / members.sum()
        if np.any((p > 0) & (q == 0)):
            kl = np.inf
        else:
            kl = scipy.stats.entropy(p, q)  # normalizes both, natural log
        if kl < best:
            best, best_n = kl, n
    return min((best_n + 0.5) * w, max_abs)  # TensorRT's threshold


def ref_mse(c, w, max_abs, zeros):
    used = int(np.nonzero(c)[0].max()) + 1
    if used < LEVELS:
        return max_abs
    centres = (np.arange(used) + 0.5) * w
    counts = c[:used].astype(np.float64)
    counts[0] -= zeros  # exact zeros quantize without error
    best, best_n = np.inf, used
    for n in range(LEVELS, used + 1):
        s = n * w / 127.0
        q = np.minimum(np.rint(centres / s), 127.0) * s
        err = float(np.sum(counts * (centres - q) ** 2))
        if err < best:
            best, best_n = err, n
    return min(best_n * w, max_abs)


def main():
    q8, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = os.path.join(work, "identity.onnx")
    identity_model(model, 64)
    tally = Tally()
    report = tally.check

    for name, data in distributions().items():
        data32 = data.astype(np.float32)
        ddir = os.path.join(work, name)
        os.makedirs(ddir)
        np.save(os.path.join(ddir, "x.npy"), data32)
        e, counts, max_abs = reference_histogram(data32)
        w = 2.0 ** e if e is not None else 0.0
        for method in ["max", "percentile", "entropy", "mse"]:
            out = os.path.join(work, f"{name}_{method}")
            proc = subprocess.run([q8, "calibrate", model, "--data", ddir, "--method", method, "--batch-size", "16",
                                   "--json", out + ".json", "--histograms", out + ".h5", "--quiet"],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                report(f"{name}/{method}", "q8 failed: " + proc.stderr.strip())
                continue
            table = json.load(open(out + ".json"))["activations"]["x"]
            with h5py.File(out + ".h5", "r") as f:
                group = None
                for g in f["tensors"].values():
                    nm = g.attrs["name"]
                    if (nm.decode() if isinstance(nm, bytes) else nm) == "x":
                        group = g
                q8_counts = group["counts"][()]
                q8_exp = int(group.attrs["width_exponent"])
                has_width = int(group.attrs["has_width"])
            problem = ""
            if not np.array_equal(q8_counts, counts):
                diff = np.nonzero(q8_counts != counts)[0]
                problem = f"histogram differs from numpy's at {len(diff)} bins (first {diff[0]})"
            elif e is not None and (not has_width or q8_exp != e):
                problem = f"width 2^{q8_exp}, reference 2^{e}"
            else:
                got = table["amax"]
                if max_abs == 0:
                    want = 0.0
                elif method == "max":
                    want = float(np.float32(max_abs))
                elif method == "percentile":
                    want = ref_percentile(counts, w, 99.99)
                elif method == "entropy":
                    want = ref_entropy(counts, w, max_abs, int(np.sum(data32 == 0)))
                else:
                    want = ref_mse(counts, w, max_abs, int(np.sum(data32 == 0)))
                if want < 2.0 ** -24:
                    want = 0.0
                if got != want and not (want and abs(got - want) <= 1e-12 * want):
                    problem = f"amax {got!r}, reference {want!r}" + (f" (bins {got / w:.2f} vs {want / w:.2f})" if w else "")
                elif max_abs == 0 and not table["degenerate"]:
                    problem = "all-zero tensor not flagged degenerate"
            report(f"{name}/{method} amax {table['amax']:.6g}", problem)

    # The zero spike: post-ReLU tensors are half exact zeros. Entropy and mse must not move with
    # the number of zeros (a threshold pulled down by them collapsed real models).
    r = np.random.default_rng(5)
    values = np.abs(r.laplace(0.0, 1.0, (200, 64))).astype(np.float32)
    for zeros in [0, 200, 2000]:
        ddir = os.path.join(work, f"spike{zeros}")
        os.makedirs(ddir)
        np.save(os.path.join(ddir, "x.npy"), np.concatenate([values, np.zeros((zeros, 64), np.float32)]))
    for method in ["entropy", "mse"]:
        amax = []
        for zeros in [0, 200, 2000]:
            out = os.path.join(work, f"spike{zeros}_{method}.json")
            subprocess.run([q8, "calibrate", model, "--data", os.path.join(work, f"spike{zeros}"), "--method", method, "--json", out,
                            "--quiet"], check=True, capture_output=True)
            amax.append(json.load(open(out))["activations"]["x"]["amax"])
        report(f"zero spike/{method}: amax {amax[0]:.6g} with 0, 50 % and 91 % exact zeros",
               "" if amax[0] == amax[1] == amax[2] else f"amax moves with the zeros: {amax}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
