#!/usr/bin/python3
"""Every bad input to the q8 CLI gives one clear error line naming what is wrong, a non-zero exit
(not a crash), and leaves no partial output behind.

    test_cli_errors.py Q8_BINARY WORK_DIR
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FASHION = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TEST_IMAGES = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"


def save_unchecked(model, path):
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def write_png(path, rgb):
    """A minimal 8-bit RGB PNG encoder (filter 0 on every row)."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def make_fixtures(work):
    """Writes the bad files; returns their paths."""
    p = {}
    p["text"] = os.path.join(work, "notes.onnx")
    with open(p["text"], "w") as f:
        f.write("not a model at all\n")
    data = open(FASHION, "rb").read()
    p["truncated"] = os.path.join(work, "truncated.onnx")
    with open(p["truncated"], "wb") as f:
        f.write(data[: len(data) // 3])

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    # A node reads 'w', which nothing defines (a lost initializer).
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add_w")], "g", [x], [y])
    p["missing_init"] = os.path.join(work, "missing_init.onnx")
    save_unchecked(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), p["missing_init"])

    nodes = [helper.make_node("Unique", ["x"], ["v"], name="unique1"),
             helper.make_node("Relu", ["v"], ["r"], name="relu"),
             helper.make_node("Unique", ["r"], ["y"], name="unique2"),
             helper.make_node("Det", ["x"], ["nz"], name="det")]
    y2 = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a"])
    nz = helper.make_tensor_value_info("nz", TensorProto.FLOAT, [])
    g = helper.make_graph(nodes, "g", [x], [y2, nz])
    p["unsupported"] = os.path.join(work, "unsupported.onnx")
    save_unchecked(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), p["unsupported"])

    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g", [x], [y])
    p["newer"] = os.path.join(work, "newer.onnx")
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 99)])
    save_unchecked(m, p["newer"])

    r = np.random.default_rng(0)
    for name, arr in {"good": r.random((2, 1, 28, 28), dtype=np.float32),
                      "wrong_size": r.random((2, 1, 27, 28), dtype=np.float32),
                      "wrong_rank": r.random((1, 28, 28), dtype=np.float32),
                      "wrong_dtype": r.integers(0, 255, (2, 1, 28, 28)).astype(np.int32)}.items():
        p[name] = os.path.join(work, name + ".npy")
        np.save(p[name], arr)
    # Calibration fixtures: a folder of PGM images with one corrupt, an empty folder, a folder of
    # unknown files, wrong-shaped tensors, a two-input model, data with NaN and Inf.
    images = os.path.join(work, "images")
    os.makedirs(images)
    pix = (np.arange(28 * 28) % 251).astype(np.uint8).tobytes()
    for i in range(6):
        with open(os.path.join(images, f"{i}.pgm"), "wb") as f:
            f.write(b"P5\n28 28\n255\n" + (pix if i != 3 else pix[:100]))
    p["images"] = images
    p["empty_dir"] = os.path.join(work, "empty")
    os.makedirs(p["empty_dir"])
    p["unknown_dir"] = os.path.join(work, "unknown")
    os.makedirs(p["unknown_dir"])
    open(os.path.join(p["unknown_dir"], "readme.txt"), "w").write("x")
    p["wrong_tensor_dir"] = os.path.join(work, "wrong_tensors")
    os.makedirs(p["wrong_tensor_dir"])
    np.save(os.path.join(p["wrong_tensor_dir"], "x.npy"), r.random((4, 3, 28, 28), dtype=np.float32))
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N", 4])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["N", 4])
    s = helper.make_tensor_value_info("s", TensorProto.FLOAT, ["N", 4])
    g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["s"], name="add")], "two", [a, b], [s])
    p["two_inputs"] = os.path.join(work, "two_inputs.onnx")
    save_unchecked(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), p["two_inputs"])
    p["two_data"] = os.path.join(work, "two_data")
    os.makedirs(os.path.join(p["two_data"], "a"))
    np.save(os.path.join(p["two_data"], "a", "x.npy"), r.random((3, 4), dtype=np.float32))
    bad = r.random((8, 4), dtype=np.float32)
    bad[0, 0], bad[1, 1], bad[2, 2] = np.nan, np.inf, -np.inf
    p["nan_data"] = os.path.join(work, "nan_data")
    os.makedirs(os.path.join(p["nan_data"], "a"))
    os.makedirs(os.path.join(p["nan_data"], "b"))
    np.save(os.path.join(p["nan_data"], "a", "x.npy"), bad)
    np.save(os.path.join(p["nan_data"], "b", "x.npy"), np.ones((8, 4), dtype=np.float32))

    # A directory of PNG images in two class folders (PNG written with zlib, no imaging library).
    p["pngs"] = os.path.join(work, "pngs")
    for cls in ("bags", "shoes"):
        os.makedirs(os.path.join(p["pngs"], cls))
        for i in range(3):
            write_png(os.path.join(p["pngs"], cls, f"{i}.png"), r.integers(0, 256, (32, 30, 3), dtype=np.uint8))

    # Quantization fixtures: a range table for the shipped model, one for another model.
    p["fashion_table"] = os.path.join(work, "fashion.json")
    p["other_table"] = os.path.join(work, "other.json")
    p["partial_table"] = os.path.join(work, "partial.json")

    raw = open(p["good"], "rb").read()
    p["cut_npy"] = os.path.join(work, "cut.npy")
    with open(p["cut_npy"], "wb") as f:
        f.write(raw[:-100])
    return p


def main():
    q8, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    p = make_fixtures(work)
    out = os.path.join(work, "out")
    os.makedirs(out)  # failing commands must leave it empty
    subprocess.run([q8, "calibrate", FASHION, "--data", p["images"], "--quiet", "--json", p["fashion_table"]], check=True,
                   capture_output=True)
    subprocess.run([q8, "calibrate", p["two_inputs"], "--data", p["nan_data"], "--quiet", "--json", p["other_table"]], check=True,
                   capture_output=True)
    table = json.load(open(p["fashion_table"]))
    for name in ["/conv2/Conv_output_0", "/bn2/BatchNormalization_output_0", "/Relu_output_0"]:
        table["activations"].pop(name, None)
    json.dump(table, open(p["partial_table"], "w"))
    cases = [
        # (description, arguments, text the one error line must contain)
        ("missing model file", ["inspect", os.path.join(work, "absent.onnx")], "absent.onnx: no such file"),
        ("file that is not ONNX", ["inspect", p["text"]], "notes.onnx: not an ONNX model"),
        ("truncated ONNX file", ["run", p["truncated"], "--output-dir", out], "truncated.onnx: not an ONNX model"),
        ("missing initializer", ["run", p["missing_init"], "--output-dir", out],
         "Add 'add_w' (node 0): input 'w' is not a graph input, an initializer or a node output"),
        ("unsupported ops, all listed", ["run", p["unsupported"], "--output-dir", out],
         "unsupported ops: Det ('det'), Unique ('unique1', 'unique2')"),
        ("opset newer than supported", ["inspect", p["newer"]], "newer.onnx: opset 99 is newer than the newest q8 supports (22)"),
        ("input name that is wrong", ["run", FASHION, "--input", "image=" + p["good"], "--output-dir", out],
         "--input image: matches no model input (model inputs: input)"),
        ("input shape that does not fit", ["run", FASHION, "--input", "input=" + p["wrong_size"], "--output-dir", out],
         "input 'input' has shape 2x1x27x28, the model expects batchx1x28x28 (axis 2 is 27, expected 28)"),
        ("input rank that does not fit", ["run", FASHION, "--input", "input=" + p["wrong_rank"], "--output-dir", out],
         "input 'input' has shape 1x28x28, the model expects batchx1x28x28 (rank 3 vs 4)"),
        ("input dtype that does not fit", ["run", FASHION, "--input", "input=" + p["wrong_dtype"], "--output-dir", out],
         "input 'input' is int32, the model expects float32"),
        ("truncated .npy input", ["run", FASHION, "--input", "input=" + p["cut_npy"], "--output-dir", out],
         "cut.npy: truncated .npy data"),
        ("missing input file", ["run", FASHION, "--input", "input=" + os.path.join(work, "nope.npy"), "--output-dir", out],
         "nope.npy: no such file"),
        ("unwritable output directory", ["run", FASHION, "--output-dir", "/proc/q8-out"], "/proc/q8-out"),
        ("unknown flag", ["run", FASHION, "--output-dir", out, "--fp16"], "--fp16"),
        ("calibrate: missing data directory", ["calibrate", FASHION, "--data", os.path.join(work, "nowhere"), "--cache",
                                               os.path.join(out, "c")], "nowhere: no such file or directory"),
        ("calibrate: empty data directory", ["calibrate", FASHION, "--data", p["empty_dir"], "--cache", os.path.join(out, "c")],
         "empty: directory is empty"),
        ("calibrate: no files of a known type", ["calibrate", FASHION, "--data", p["unknown_dir"], "--cache",
                                                 os.path.join(out, "c")], "unknown: no files of a known type"),
        ("calibrate: corrupt image with --strict", ["calibrate", FASHION, "--data", p["images"], "--strict", "--quiet",
                                                    "--cache", os.path.join(out, "c")], "3.pgm: truncated PGM/PPM data"),
        ("calibrate: tensors of a shape preprocessing cannot fix",
         ["calibrate", FASHION, "--data", p["wrong_tensor_dir"], "--quiet", "--cache", os.path.join(out, "c")],
         "x.npy[0]: sample of shape 3x28x28 does not fit input 'input' (sample shape 1x28x28)"),
        ("calibrate: a model input with no data", ["calibrate", p["two_inputs"], "--data", p["two_data"], "--cache",
                                                   os.path.join(out, "c")], "has no entry for model input 'b'"),
        ("calibrate: unwritable output", ["calibrate", FASHION, "--data", p["images"], "--cache", "/proc/q8/x.cache"],
         "--cache /proc/q8/x.cache: cannot write there"),
        ("quantize: a table made for another model", ["quantize", FASHION, "--calib", p["other_table"], "-o",
                                                      os.path.join(out, "q.onnx")], "other.json was made for another model"),
        ("quantize: a table missing tensors the rules need", ["quantize", FASHION, "--calib", p["partial_table"], "-o",
                                                              os.path.join(out, "q.onnx")],
         "the calibration table has no range for 1 tensors the rules quantize: '/bn2/BatchNormalization_output_0'"),
        ("quantize: an exclusion naming nothing", ["quantize", FASHION, "--calib", p["fashion_table"], "--exclude", "conv9",
                                                   "-o", os.path.join(out, "q.onnx")],
         "--exclude conv9: no node or op type of that name in the model"),
        ("quantize: an unsupported opset", ["quantize", p["newer"], "--calib", p["fashion_table"], "-o", os.path.join(out, "q.onnx")],
         "opset 99 is newer than the newest q8 supports (22)"),
        ("quantize: an output path that cannot be written", ["quantize", FASHION, "--calib", p["fashion_table"], "-o",
                                                             "/proc/q8/q.onnx"], "/proc/q8/q.onnx: cannot write"),
        ("calibrate: unknown method", ["calibrate", FASHION, "--data", p["images"], "--method", "kl", "--cache",
                                       os.path.join(out, "c")], "--method kl: unknown method (methods: max, percentile, entropy, mse, or auto)"),
        ("run: a device name that is not one", ["run", FASHION, "--device", "gpu", "--output-dir", out],
         "expected cpu, cpu-reference, opencl or opencl:N, got 'gpu'"),
        ("run: an OpenCL device that does not exist", ["run", FASHION, "--device", "opencl:7", "--output-dir", out],
         "OpenCL device 7 does not exist"),
        ("run: no OpenCL platform at all", ["run", FASHION, "--device", "opencl", "--output-dir", out],
         "no OpenCL platform or device found", {"OCL_ICD_VENDORS": os.path.join(work, "no-vendors")}),
        ("tune: the CPU", ["tune", "--device", "cpu", "--db", os.path.join(out, "t.json")],
         "--device: q8 tune tunes an OpenCL device's kernels"),
        ("tune: a device without the tensor-core kernel", ["tune", "--device", "opencl", "--db", os.path.join(out, "t.json")],
         "has no INT8 tensor-core kernel to tune (qgemm_mma needs NVIDIA sm_80 or later)"),
        ("tune: no runs", ["tune", "--repeat", "0", "--db", os.path.join(out, "t.json")], "--repeat must be at least 1"),
        ("build: a device section for a device without tuned kernels", ["build", FASHION, "-o", os.path.join(out, "p.q8plan"),
                                                                          "--device", "opencl"],
         "has no tuned kernel to record (qgemm_mma needs NVIDIA sm_80 or later)"),
    ]
    # A command line that cannot work exits 2; an error met while working exits 1.
    argument_errors = {"input name that is wrong", "unknown flag", "calibrate: unknown method",
                       "quantize: an exclusion naming nothing", "run: a device name that is not one", "tune: the CPU",
                       "tune: a device without the tensor-core kernel", "tune: no runs"}
    tally = Tally()
    for what, args, text, *env in cases:
        proc = subprocess.run([q8] + args, capture_output=True, text=True, env=dict(os.environ, **(env[0] if env else {})))
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        problems = []
        want = 2 if what in argument_errors else 1
        if proc.returncode != want:
            problems.append(f"exit code {proc.returncode} (want {want})")
        if len(lines) != 1 and what != "unknown flag":
            problems.append(f"{len(lines)} stderr lines: {lines}")
        if not any(text in l for l in lines):
            problems.append(f"no stderr line contains {text!r}: {lines}")
        if os.path.exists(out) and os.listdir(out):
            problems.append(f"left files behind: {os.listdir(out)}")
        tally.check(what, "; ".join(problems))

    # Runs that succeed but must warn: corrupt images skipped with names and a count; NaN/Inf
    # counted, excluded and reported per tensor.
    warn_cases = [
        ("calibrate: a directory of PNG images in class folders (resized to 28x28, to gray)",
         ["calibrate", FASHION, "--data", p["pngs"], "--quiet", "--cache", os.path.join(work, "png.cache")],
         []),
        ("calibrate: corrupt image skipped and counted", ["calibrate", FASHION, "--data", p["images"], "--quiet", "--json",
                                                          os.path.join(work, "skip.json")],
         ["skipped " + os.path.join(p["images"], "3.pgm"), "skipped 1 corrupt samples"]),
        ("calibrate: NaN and Inf reported", ["calibrate", p["two_inputs"], "--data", p["nan_data"], "--quiet", "--json",
                                             os.path.join(work, "nan.json")],
         ["tensor 'a' had 1 NaN, 1 +Inf, 1 -Inf values (excluded from its range)"]),
    ]
    for what, args, texts in warn_cases:
        proc = subprocess.run([q8] + args, capture_output=True, text=True)
        problems = []
        if proc.returncode != 0:
            problems.append(f"exit {proc.returncode}: {proc.stderr.strip()}")
        for text in texts:
            if text not in proc.stderr:
                problems.append(f"stderr lacks {text!r}: {proc.stderr.strip()!r}")
        tally.check(what, "; ".join(problems))
    table = json.load(open(os.path.join(work, "nan.json")))["activations"]["a"]
    ok = table["nan"] == 1 and table["pos_inf"] == 1 and table["neg_inf"] == 1 and table["elements"] == 29 and table["max_abs"] < 1
    tally.check("calibrate: NaN/Inf counted and left out of the range in the JSON table", "" if ok else f"table entry {table}")

    # quantize --overrides: an amax for one tensor, a method (recomputed from the run's
    # histograms) for another.
    ov = os.path.join(work, "overrides.json")
    json.dump({"input": {"amax": 1.0}, "/Relu_3_output_0": {"method": "max"}}, open(ov, "w"))
    h5 = os.path.join(work, "fashion.h5")
    subprocess.run([q8, "calibrate", FASHION, "--data", p["images"], "--quiet", "--histograms", h5], check=True, capture_output=True)
    qdq = os.path.join(work, "overridden.qdq.onnx")
    proc = subprocess.run([q8, "quantize", FASHION, "--calib", p["fashion_table"], "--overrides", ov, "--histograms", h5, "-o", qdq],
                          capture_output=True, text=True)
    scales = {}
    if proc.returncode == 0:
        m = onnx.load(qdq)
        inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
        for n in m.graph.node:
            if n.op_type == "QuantizeLinear":
                scales[n.input[0]] = float(inits[n.input[1]])
    table = json.load(open(p["fashion_table"]))["activations"]
    want_relu3 = np.float32(table["/Relu_3_output_0"]["max_abs"] / 127.0)
    ok = proc.returncode == 0 and scales.get("input") == np.float32(1.0 / 127.0) and \
        scales.get("/Relu_3_output_0", 0) == want_relu3
    tally.check("quantize --overrides: amax and method (from --histograms)",
                "" if ok else f"exit {proc.returncode} {proc.stderr.strip()} {scales}")
    check_logging(q8, work, tally)
    return tally.finish()


def check_logging(q8, work, tally):
    """--version, --verbose, --quiet and --log-file (spdlog), before or after the command."""
    def run(*args):
        return subprocess.run([q8, *args], capture_output=True, text=True)

    proc = run("--version")
    out = proc.stdout.splitlines()
    want = ["oneDNN", "HDF5", "protobuf", "CLBlast", "OpenCL devices"]
    missing = [w for w in want if w not in proc.stdout]
    tally.check("--version: q8's version, the libraries' and the OpenCL devices (PoCL's opencl:0)",
                "" if proc.returncode == 0 and out and out[0].startswith("q8 ") and not missing and "opencl:0" in proc.stdout
                else f"exit {proc.returncode}, missing {missing}: {proc.stdout!r}")

    plain = run("inspect", FASHION)
    quiet_before, quiet_after = run("--quiet", "inspect", FASHION), run("inspect", FASHION, "--quiet")
    tally.check("--quiet (before or after the command): nothing on stdout, exit 0",
                "" if plain.stdout and all(p.returncode == 0 and p.stdout == "" for p in (quiet_before, quiet_after))
                else f"{quiet_before.stdout!r} {quiet_after.stdout!r}")

    log = os.path.join(work, "q8.log")
    logged = run("inspect", FASHION, "--log-file", log)
    lines = open(log).read().splitlines() if os.path.exists(log) else []
    # "2026-11-22T22:53:48.659 [info] model: ..." for each stdout line, in order.
    bodies = [l.split("] ", 1)[1] if "] " in l else None for l in lines]
    stamped = all(len(l) > 24 and l[4] == "-" and l[10] == "T" and " [info] " in l for l in lines)
    tally.check("--log-file: every stdout line, timestamped with its level",
                "" if logged.returncode == 0 and stamped and bodies == logged.stdout.splitlines()
                else f"exit {logged.returncode}: {lines[:3]} vs {logged.stdout.splitlines()[:3]}")

    table = os.path.join(work, "verbose.json")
    plain = run("calibrate", FASHION, "--data", TEST_IMAGES, "--limit", "8", "--json", table)
    verbose = run("--verbose", "calibrate", FASHION, "--data", TEST_IMAGES, "--limit", "8", "--json", table)
    tally.check("--verbose: more lines than the default (per-tensor ranges)",
                "" if plain.returncode == 0 and verbose.returncode == 0 and
                len(verbose.stdout.splitlines()) > len(plain.stdout.splitlines()) else
                f"exit {plain.returncode}/{verbose.returncode}: {len(plain.stdout.splitlines())} vs {len(verbose.stdout.splitlines())} lines")

    both = run("--verbose", "--quiet", "inspect", FASHION)
    bad_log = run("inspect", FASHION, "--log-file", "/proc/q8/x.log")
    errors = [l for l in bad_log.stderr.splitlines() if l.startswith("q8: error:")]
    tally.check("--verbose with --quiet: exit 2; a log file that cannot be opened: exit 1, one error line naming it",
                "" if both.returncode == 2 and bad_log.returncode == 1 and len(errors) == 1 and "/proc/q8/x.log" in errors[0]
                else f"exit {both.returncode} / {bad_log.returncode}: {bad_log.stderr!r}")


if __name__ == "__main__":
    sys.exit(main())
