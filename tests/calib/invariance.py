#!/usr/bin/python3
"""Calibration results do not depend on batching, order or sharding, and runs resume exactly.

    invariance.py Q8_BINARY WORK_DIR [METHODS]

METHODS (comma-separated) defaults to every method; the sanitizer build passes max,entropy (the
other methods read the same histograms, and the release build checks all four).

On the shipped Fashion-MNIST model and 256 training images (written as two .npy shards of raw
8-bit pixels, so q8's preprocessing applies), for every method:
  - batch sizes 1, 7 (in a shuffled order), 5 (three streams of batches at once, whose observers
    merge) and 32 give byte-identical caches and equal JSON ranges;
  - the two shards calibrated apart (--histograms) and merged (--merge) give the same cache (max,
    whose statistics merge, and entropy, for the histograms every other method reads);
  - --override picks other methods by op type and tensor name;
  - a run interrupted with SIGINT (4000 IDX images) keeps its histograms, and --resume finishes
    with the cache of the uninterrupted run.
Ends with 'N passed, M failed'.
"""
import gzip
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
IDX = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"


def read_images(n):
    with gzip.open(IDX, "rb") as f:
        data = f.read(16 + n * 784)
    return np.frombuffer(data[16:], dtype=np.uint8).reshape(n, 28, 28)


def calibrate(q8, data, out, *extra):
    cmd = [q8, "calibrate", MODEL, "--data", data, "--quiet", "--cache", out + ".cache", "--json", out + ".json"] + list(extra)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(" ".join(cmd) + ": " + proc.stderr.strip())
    return open(out + ".cache").read(), json.load(open(out + ".json"))["activations"]


def main():
    q8, work = sys.argv[1], sys.argv[2]
    methods = sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[3] else ["max", "percentile", "entropy", "mse"]
    shutil.rmtree(work, ignore_errors=True)
    images = read_images(256)
    dirs = {name: os.path.join(work, name) for name in ["all", "a", "b"]}
    for d in dirs.values():
        os.makedirs(d)
    np.save(os.path.join(dirs["all"], "a.npy"), images[:128])
    np.save(os.path.join(dirs["all"], "b.npy"), images[128:])
    shutil.copy(os.path.join(dirs["all"], "a.npy"), dirs["a"])
    shutil.copy(os.path.join(dirs["all"], "b.npy"), dirs["b"])
    tally = Tally()

    def report(name, ok, detail=""):
        tally.check(name, "" if ok else detail or "failed")

    for method in methods:
        m = ["--method", method]
        base_cache, base_json = calibrate(q8, dirs["all"], os.path.join(work, f"{method}_b32"), *m, "--batch-size", "32")
        # Every cache line decodes to the JSON's scale, the float32 bits of max(amax, 2^-24) / 127.
        lines = base_cache.splitlines()
        header_ok = lines[0] == "TRT-100300-" + ("MinMaxCalibration" if method == "max" else "EntropyCalibration2")
        mismatched = []
        for line in lines[1:]:
            name, hexbits = line.rsplit(": ", 1)
            got = struct.unpack(">f", bytes.fromhex(hexbits))[0]
            want = np.float32(max(base_json[name]["amax"], 2.0 ** -24) / 127.0)
            if np.float32(got) != want:
                mismatched.append(name)
        report(f"{method}: cache decodes to the JSON's amax/127 ({len(lines) - 1} tensors)",
               header_ok and not mismatched and len(lines) - 1 == len(base_json), f"header {lines[0]}, mismatched {mismatched}")
        for extra in (["--batch-size", "1"], ["--batch-size", "7", "--shuffle", "--seed", "3"],
                      ["--batch-size", "5", "--streams", "3", "--threads", "3"]):
            tag = "_".join(x.strip("-") for x in extra)
            cache, table = calibrate(q8, dirs["all"], os.path.join(work, f"{method}_{tag}"), *m, *extra)
            report(f"{method}: {' '.join(extra)} == --batch-size 32", cache == base_cache and table == base_json,
                   "caches or ranges differ")
        # Shards calibrated apart, then merged: the running maxima (max) and the histograms (every
        # other method reads the same ones; entropy stands for them).
        if method not in ("max", "entropy"):
            continue
        for shard in ("a", "b"):
            calibrate(q8, dirs[shard], os.path.join(work, f"{method}_{shard}"), *m, "--histograms",
                      os.path.join(work, f"{method}_{shard}.h5"))
        merged = os.path.join(work, f"{method}_merged")
        proc = subprocess.run([q8, "calibrate", MODEL, *m, "--quiet", "--merge", os.path.join(work, f"{method}_a.h5"),
                               "--merge", os.path.join(work, f"{method}_b.h5"), "--cache", merged + ".cache"],
                              capture_output=True, text=True)
        report(f"{method}: shards merged == one run", proc.returncode == 0 and open(merged + ".cache").read() == base_cache,
               proc.stderr.strip() or "caches differ")

    # Methods overridden by op type and by tensor name (a name wins over an op type).
    _, table = calibrate(q8, dirs["all"], os.path.join(work, "overrides"), "--method", "entropy", "--override", "Relu=max",
                         "--override", "/Relu_output_0=mse", "--override", "input=percentile")
    relus = {k: v["method"] for k, v in table.items() if v["producer_op"] == "Relu"}
    others = {v["method"] for k, v in table.items() if v["producer_op"] not in ("Relu", "")}
    report("--override by op type and tensor name",
           relus.pop("/Relu_output_0") == "mse" and set(relus.values()) == {"max"} and others == {"entropy"} and
           table["input"]["method"] == "percentile", f"{relus} {others}")

    # Interrupt a longer run (4000 IDX images, batch 1) with SIGINT, then resume it.
    full_cache, _ = calibrate(q8, IDX, os.path.join(work, "full"), "--method", "entropy", "--limit", "4000")
    out = os.path.join(work, "interrupted")
    cmd = [q8, "calibrate", MODEL, "--data", IDX, "--limit", "4000", "--method", "entropy", "--batch-size", "1",
           "--threads", "1", "--cache", out + ".cache", "--json", out + ".json", "--histograms", out + ".h5"]
    # A signal that lands before q8 has set its handler (a slow start: sanitizers, a loaded
    # machine) ends it as any program ends; then the run is tried again with a longer wait.
    for wait in (1.0, 2.0, 4.0, 8.0):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(wait)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        if proc.returncode != -signal.SIGINT:
            break
    if proc.returncode == 0:
        report("SIGINT stops the run", True)  # finished before the signal: nothing to resume
    else:
        lines = [l for l in err.splitlines() if l.startswith("q8: error:")]
        report("SIGINT stops the run with one clear error", proc.returncode > 0 and len(lines) == 1 and "interrupted" in lines[0],
               f"exit {proc.returncode}, stderr {err.strip()!r}")
        report("an interrupted run writes no cache or table", not os.path.exists(out + ".cache") and not os.path.exists(out + ".json"),
               "found partial outputs")
        resume_cmd = [q8, "calibrate", MODEL, "--data", IDX, "--limit", "4000", "--method", "entropy", "--batch-size", "64",
                      "--cache", out + ".cache", "--json", out + ".json", "--resume", out + ".h5", "--quiet"]
        resumed = subprocess.run(resume_cmd, capture_output=True, text=True)
        report("--resume finishes with the uninterrupted result",
               resumed.returncode == 0 and open(out + ".cache").read() == full_cache, resumed.stderr.strip() or "caches differ")
    leftovers = [f for f in os.listdir(work) if ".tmp." in f]
    report("no temporary files left behind", not leftovers, str(leftovers))
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
