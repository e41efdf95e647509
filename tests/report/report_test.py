#!/usr/bin/python3
"""q8 report: one self-contained HTML file whose numbers are the files' own, drawn by Chromium.

    report_test.py Q8_BINARY WORK_DIR

Calibrates the shipped model (entropy, --histograms, --json), quantizes it, compares it (--blame)
and builds a plan, then writes the report and checks that
- it fetches nothing (no URL, no src or href, no CSS import);
- headless Chromium loads it with no console message, and its screenshot is not blank: charts in
  the histogram blue, and more than a few colours;
- the chosen method, amax and clipped fraction of every tensor equal the JSON table's; the SQNR,
  blame and accuracy figures equal q8 compare's JSON, in its order;
- each tensor's max mark is its max |x|, and the percentile, entropy and mse marks equal an
  independent reference computed from the HDF5 counts (tests/calib/reference_parity.py);
- bad arguments give one error line and the right exit code, and write nothing.
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "calib"))
from tally import Tally  # noqa: E402
from reference_parity import ref_entropy, ref_mse, ref_percentile  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TRAIN = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
TEST = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"


class Collect(html.parser.HTMLParser):
    """Elements with data-* attributes, by class."""

    def __init__(self):
        super().__init__()
        self.found = []
        self.section = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "tensor" in a.get("class", ""):
            self.section = a
        if any(k.startswith("data-") for k in a):
            self.found.append((tag, a.get("class", ""), a, self.section.get("data-tensor") if self.section else None))


def chromium(page, png):
    p = subprocess.run(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,2400",
                        f"--screenshot={png}", "--enable-logging=stderr", "--v=0", "file://" + page],
                       capture_output=True, text=True, timeout=120)
    console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
    return p.returncode, console


def main():
    q8, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    w = lambda name: os.path.join(work, name)  # noqa: E731
    tally = Tally()
    steps = [["calibrate", MODEL, "--data", TRAIN, "--limit", "512", "--method", "entropy", "--json", w("t.json"), "--histograms", w("h.h5")],
             ["quantize", MODEL, "--calib", w("t.json"), "-o", w("q.onnx")],
             ["compare", MODEL, w("q.onnx"), "--data", TEST, "--limit", "300", "--blame", "16", "--json", w("c.json")],
             ["build", w("q.onnx"), "-o", w("p.q8plan"), "--shape", "input=1x1x28x28"],
             ["report", "--histograms", w("h.h5"), "--table", w("t.json"), "--compare", w("c.json"), "--plan", w("p.q8plan"),
              "-o", w("report.html")]]
    for args in steps:
        p = subprocess.run([q8, "--quiet", *args], capture_output=True, text=True)
        if p.returncode:
            tally.check(f"q8 {args[0]}", p.stderr.strip())
            return tally.finish()
    page = open(w("report.html"), encoding="utf-8").read()

    fetches = [t for t in ("http://", "https://", "src=", "href=", "@import", "url(") if t in page]
    tally.check("self-contained: no URL, src, href or CSS import", ", ".join(fetches))

    rc, console = chromium(w("report.html"), w("report.png"))
    tally.check("Chromium loads it with no console message", "" if rc == 0 and not console else f"exit {rc}: {console[:3]}")
    problem = "no screenshot"
    if os.path.exists(w("report.png")):
        img = np.asarray(Image.open(w("report.png")).convert("RGB")).reshape(-1, 3)
        ink = float(np.mean(np.any(img < 235, axis=1)))
        blue = int(np.sum(np.all(np.abs(img.astype(int) - [0x4a, 0x7f, 0xb5]) <= 8, axis=1)))
        colours = len(np.unique(img[::7], axis=0))
        problem = "" if ink > 0.03 and blue > 5000 and colours > 8 else f"ink {ink:.3f}, {blue} chart-blue pixels, {colours} colours"
    tally.check("the screenshot is not blank: charts drawn", problem)

    c = Collect()
    c.feed(page)
    table = json.load(open(w("t.json")))["activations"]
    compare = json.load(open(w("c.json")))
    sections = {a["data-tensor"]: a for tag, cls, a, _ in c.found if tag == "section"}
    bad = [n for n, t in table.items() if n not in sections or sections[n].get("data-chosen-method") != t["method"] or
           float(sections[n]["data-chosen-amax"]) != t["amax"] or float(sections[n]["data-chosen-clipped"]) != t["clipped"]]
    tally.check(f"every tensor's chosen method, amax and clipped fraction equal the JSON table's ({len(table)} tensors)",
                f"{len(bad)} differ, first {bad[:1]}" if bad or not table else "")
    rows = lambda cls: [a for tag, k, a, _ in c.found if tag == "tr" and k == cls]  # noqa: E731
    sqnr = [(a["data-tensor"], float(a["data-value"])) for a in rows("sqnr")]
    tally.check(f"SQNR rows equal q8 compare's, in order ({len(sqnr)})",
                "" if sqnr and sqnr == [(l["tensor"], l["sqnr_db"]) for l in compare["layers"]] else f"{sqnr[:2]}")
    blame = [(a["data-tensor"], float(a["data-value"]), float(a["data-disagreement"])) for a in rows("blame")]
    want = [(b["tensor"], b["cosine_loss"], b["disagreement"]) for b in compare["blame"]["tensors"]]
    tally.check(f"blame rows equal q8 compare's, in order ({len(blame)})", "" if blame and blame == want else f"{blame[:2]}")
    metrics = {a["data-metric"]: float(a["data-value"]) for a in rows("metric")}
    want = dict(compare["metrics"], fp32_top1=compare["fp32_top1"], int8_top1=compare["int8_top1"])
    tally.check("the accuracy table equals q8 compare's metrics", "" if metrics == want else f"{metrics} vs {want}")
    tally.check("the plan's lowering and placement are shown",
                "" if 'id="lowering"' in page and "fused INT8 ops" in page and 'id="placement"' in page else "missing")

    # Every method's mark against the reference, from the file's own counts.
    marks = {}
    for tag, cls, a, tensor in c.found:
        if tag == "tr" and "threshold" in cls:
            marks.setdefault(tensor, {})[a["data-method"]] = float(a["data-amax"])
    problems, checked = [], 0
    with h5py.File(w("h.h5"), "r") as f:
        groups = sorted(f["tensors"].values(), key=lambda g: int(np.nonzero(g["counts"][()])[0].max()) if g["counts"][()].any() else 0)
        for i, g in enumerate(groups):
            name = g.attrs["name"].decode() if isinstance(g.attrs["name"], bytes) else g.attrs["name"]
            counts, width, max_abs, zeros = g["counts"][()], float(g.attrs["width"]), float(g.attrs["max_abs"]), int(g.attrs["zeros"])
            m = marks.get(name, {})
            want = {"max": max_abs, "percentile": ref_percentile(counts, width, 99.99)}
            if i < 3:  # the searches, on the three narrowest histograms (the reference is slow)
                want["entropy"] = ref_entropy(counts, width, max_abs, zeros)
                want["mse"] = ref_mse(counts, width, max_abs, zeros)
            for method, v in want.items():
                checked += 1
                if method not in m or not abs(m[method] - v) <= 1e-12 * max(v, 1e-30):
                    problems.append(f"{name} {method}: report {m.get(method)!r}, reference {v!r}")
    tally.check(f"threshold marks equal the reference from the HDF5 counts ({checked} marks)", "; ".join(problems[:3]))

    # Bad arguments: one error line, the exit code of its kind, nothing written.
    cases = [("nothing to report", ["report", "-o", w("x.html")], 2, "nothing to report"),
             ("--table without --histograms", ["report", "--table", w("t.json"), "-o", w("x.html")], 2, "give --histograms"),
             ("a comparison file that is not one", ["report", "--compare", w("t.json"), "-o", w("x.html")], 1, "not a q8 compare JSON"),
             ("a plan that is not one", ["report", "--plan", w("c.json"), "-o", w("x.html")], 1, "not a q8 plan")]
    for what, args, code, text in cases:
        p = subprocess.run([q8, *args], capture_output=True, text=True)
        errors = [l for l in p.stderr.splitlines() if l.strip()]
        ok = p.returncode == code and len(errors) == 1 and text in errors[0] and not os.path.exists(w("x.html"))
        tally.check(f"report, {what}: exit {code}, one error line, nothing written", "" if ok else f"exit {p.returncode}: {errors}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
