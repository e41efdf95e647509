#!/usr/bin/python3
"""Calibration across processes: `mpirun -n N q8 calibrate` writes the bytes one process writes.

    mpi_test.py Q8_BINARY WORK_DIR

For N = 1, 2, 3 and 4 ranks (oversubscribed on one machine; 1 and 3 in the sanitizer build) the TensorRT cache and the JSON table
are byte for byte the single-process run's, and the HDF5 histograms hold the same counts and
statistics; a rank that fails stops the job with its one error line and nothing is written, as
does a rank killed mid-run;
--resume under mpirun is refused with exit code 2.
"""
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TEST = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"
TRAIN = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
# Open MPI refuses root unless told; CI runs as root.
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")


def calibrate(q8, ranks, out, *extra, data=TEST):
    args = [q8, "calibrate", MODEL, "--data", data, "--limit", "700", "--batch-size", "32", *extra]
    if out:
        args += ["--cache", out + ".cache", "--json", out + ".json", "--histograms", out + ".h5"]
    cmd = (["mpirun", "--oversubscribe", "-n", str(ranks)] if ranks else []) + args
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV)


def h5_contents(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                out[name] = np.asarray(obj[()]).tobytes()
        f.visititems(visit)
        out.update({f"attr {k}": str(v) for k, v in f.attrs.items()})
    return out


def kill_rank(job, rank):
    """SIGKILLs the job's process of that rank once it has started observing; False if it never did."""
    deadline = time.time() + 120
    while time.time() < deadline and job.poll() is None:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
                cmd = open(f"/proc/{pid}/cmdline", "rb").read()
            except (OSError, ValueError):
                continue
            if f"OMPI_COMM_WORLD_RANK={rank}".encode() in env and b"calibrate" in cmd:
                time.sleep(1.0)  # well inside its share of 60,000 images
                os.kill(int(pid), signal.SIGKILL)
                return True
        time.sleep(0.1)
    return False


def same_bytes(a, b):
    return open(a, "rb").read() == open(b, "rb").read()


def main():
    q8, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tally = Tally()
    # The sanitizer build (Q8_SANITIZED set) runs 1 and 3 ranks of entropy: the same code as 2 and 4.
    sanitized = bool(os.environ.get("Q8_SANITIZED"))
    for method in ("entropy",) if sanitized else ("entropy", "max"):
        one = os.path.join(work, f"one_{method}")
        p = calibrate(q8, 0, one, "--method", method, "--quiet")
        if p.returncode:
            tally.check(f"{method}: single-process run", p.stderr.strip())
            continue
        for ranks in ((1, 3) if sanitized else (1, 2, 3, 4)) if method == "entropy" else (3,):
            out = os.path.join(work, f"n{ranks}_{method}")
            p = calibrate(q8, ranks, out, "--method", method)
            problems = []
            if p.returncode:
                problems.append(f"exit {p.returncode}: {p.stderr.strip()[-400:]}")
            else:
                if not same_bytes(one + ".cache", out + ".cache"):
                    problems.append("cache differs")
                if not same_bytes(one + ".json", out + ".json"):
                    problems.append("JSON table differs")
                if h5_contents(one + ".h5") != h5_contents(out + ".h5"):
                    problems.append("histograms differ")
                if f"MPI:           {ranks} ranks" not in p.stdout and ranks > 1:
                    problems.append("settings do not name the ranks")
            tally.check(f"{method}, {ranks} rank(s): cache and table bytes, histograms equal to one process's", "; ".join(problems))

    # A corrupt image in the last rank's share, with --strict: that rank's error stops the job.
    images = os.path.join(work, "images")
    os.makedirs(images)
    for i in range(12):
        with open(os.path.join(images, f"{i:02d}.pgm"), "wb") as f:
            f.write(b"P5\n28 28\n255\n" + bytes((i * 7 + k) % 256 for k in range(28 * 28 if i != 11 else 100)))
    out = os.path.join(work, "dies")
    p = calibrate(q8, 4, out, "--strict", data=images)
    errors = [l for l in p.stderr.splitlines() if l.startswith("q8: error:")]
    written = [f for f in os.listdir(work) if f.startswith("dies")]
    ok = p.returncode != 0 and len(errors) == 1 and "rank 3 of 4" in errors[0] and "11.pgm" in errors[0] and not written
    tally.check("a rank that fails stops the job: one error line naming the rank and the file, nothing written",
                "" if ok else f"exit {p.returncode}, errors {errors}, files {written}")

    # A rank killed mid-run (SIGKILL, as the out-of-memory killer does): mpirun ends the job, non-zero,
    # and rank 0, which writes only after every rank's observers arrived, writes nothing.
    out = os.path.join(work, "killed")
    job = subprocess.Popen(["mpirun", "--oversubscribe", "-n", "2", q8, "calibrate", MODEL, "--data", TRAIN, "--method", "entropy",
                            "--threads", "1", "--cache", out + ".cache"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=ENV)
    killed = kill_rank(job, 1)
    _, err = job.communicate(timeout=600)
    written = [f for f in os.listdir(work) if f.startswith("killed")]
    tally.check("a rank killed mid-run: the job ends non-zero, naming the rank, and nothing is written",
                "" if killed and job.returncode != 0 and "rank 1" in err and not written else
                f"killed {killed}, exit {job.returncode}, files {written}: {err.strip()[-300:]}")

    p = calibrate(q8, 2, os.path.join(work, "resumed"), "--resume", os.path.join(work, "one_entropy.h5"))
    errors = [l for l in p.stderr.splitlines() if l.startswith("q8: error:")]
    tally.check("--resume under mpirun: exit 2, one error line per rank",
                "" if p.returncode == 2 and errors and all("run in one process" in e for e in errors) else
                f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
