#!/usr/bin/python3
"""The bad-input table: each case is a command that must fail with exactly one stderr line
"q8: error: ..." containing a given text (naming the file or flag at fault), a positive exit
status (not a crash), and no file in the work directory new or changed afterwards.

    bad_input_table.py Q8_BINARY WORK_DIR

Covers crashes (sizes and counts taken from files), bad input that used to exit 0, unclear
messages, partial outputs (a full disk on a small tmpfs where mounting is allowed), FIFOs and
devices given as files. test_cli_errors.py holds the earlier cases.
"""
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys
import time

import h5py
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tally import Tally  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FASHION = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")
TEST = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"


def save(model, path):
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def model(nodes, inputs, outputs, inits=(), opset=13):
    m = helper.make_model(helper.make_graph(nodes, "g", inputs, outputs, list(inits)), opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    return m


def vi(name, dims, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, dims)


def q8(binary, args):
    return subprocess.run([binary] + args, capture_output=True, text=True)


def snapshot(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            st = os.lstat(p)
            out[p] = (st.st_size, st.st_mtime_ns)
    return out


def fixtures(binary, w):
    """Writes every bad file; returns a dict of paths."""
    p = {}
    r = np.random.default_rng(0)
    # Models.
    save(model([], [vi("x", [1, 4])], [vi("x", [1, 4])]), p.setdefault("empty_graph", f"{w}/empty_graph.onnx"))
    save(model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [1, -4])], [vi("y", [1, 4])]), p.setdefault("neg_dim", f"{w}/neg_dim.onnx"))
    for name, outs in {"collide": ["a/b", "a_b"]}.items():
        save(model([helper.make_node("Relu", ["x"], [outs[0]]), helper.make_node("Neg", ["x"], [outs[1]])], [vi("x", [1, 4])],
                   [vi(o, [1, 4]) for o in outs]), p.setdefault(name, f"{w}/{name}.onnx"))
    # External data: a symlink leading out of the model's directory, and an absurd offset.
    os.makedirs(f"{w}/ext")
    secret = f"{w}/secret.bin"
    np.ones(4, np.float32).tofile(secret)
    os.symlink(secret, f"{w}/ext/weights.bin")
    for name, entries in {"ext_symlink": {"location": "weights.bin"}, "ext_offset": {"location": "local.bin", "offset": str(2 ** 62)}}.items():
        t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
        for k, v in entries.items():
            t.external_data.add(key=k, value=v)
        save(model([helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", [1, 4])], [vi("y", [1, 4])], [t]), f"{w}/ext/{name}.onnx")
        p[name] = f"{w}/ext/{name}.onnx"
    np.ones(4, np.float32).tofile(f"{w}/ext/local.bin")
    # Files that are not regular files.
    p["fifo"] = f"{w}/model.fifo"
    os.mkfifo(p["fifo"])
    p["dir_model"] = f"{w}/a_directory.onnx"
    os.makedirs(p["dir_model"])
    # Data.
    os.makedirs(f"{w}/bmp")
    bmp = bytearray(b"BM" + struct.pack("<IHHI", 54 + 28 * 28 * 3 + 28 * 0, 0, 0, 54) +
                    struct.pack("<IiiHHIIiiII", 40, 28, 28, 1, 24, 0, 0, 2835, 2835, 0, 0) + bytes(28 * 28 * 3))
    open(f"{w}/bmp/0.bmp", "wb").write(bytes(bmp[: len(bmp) // 2]))
    os.makedirs(f"{w}/pgm")
    open(f"{w}/pgm/0.pgm", "wb").write(b"P5\n28 28\n255\n" + bytes(28 * 28 - 5))
    os.makedirs(f"{w}/corrupt_images")
    for i in range(3):
        open(f"{w}/corrupt_images/{i}.png", "wb").write(b"\x89PNG\r\n\x1a\n garbage")
    with gzip.open(f"{w}/empty-images-idx3-ubyte.gz", "wb") as f:
        f.write(struct.pack(">IIII", 0x0803, 0, 28, 28))
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"
    hdr += " " * (118 - len(hdr)) + "\n"
    open(f"{w}/huge.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
    # A negative dimension with the data of its positive twin behind it.
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 1, 28, 28), }"
    hdr += " " * (118 - len(hdr)) + "\n"
    open(f"{w}/negative.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() +
                                         np.zeros(2 * 28 * 28, np.float32).tobytes())
    np.save(f"{w}/x1.npy", np.zeros((1, 1, 28, 28), np.float32))
    np.save(f"{w}/x2.npy", np.ones((1, 1, 28, 28), np.float32))
    # Calibration data that is all NaN.
    os.makedirs(f"{w}/all_nan")
    for i in range(4):
        np.save(f"{w}/all_nan/{i}.npy", np.full((1, 28, 28), np.nan, np.float32))
    # Two outputs, the second's file a directory: the first must not appear either.
    save(model([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Neg", ["x"], ["b"])], [vi("x", [1, 4])],
               [vi("a", [1, 4]), vi("b", [1, 4])]), p.setdefault("two_outputs", f"{w}/two_outputs.onnx"))
    os.makedirs(f"{w}/outputs/b.npy")
    # Calibration outputs to corrupt.
    for args in (["--json", f"{w}/table.json", "--histograms", f"{w}/good.h5", "--cache", f"{w}/good.cache"],):
        subprocess.run([binary, "calibrate", FASHION, "--data", TEST, "--limit", "64", "--quiet"] + args, check=True, capture_output=True)
    table = json.load(open(f"{w}/table.json"))
    first = next(iter(table["activations"]))
    for name, edit in {"neg_amax": lambda t: t["activations"][first].update(amax=-1.0),
                       "huge_amax": lambda t: t["activations"][first].update(amax=1e300),
                       "str_amax": lambda t: t["activations"][first].update(amax="big"),
                       "neg_weight": lambda t: next(iter(t["weights"].values()))["amax"].__setitem__(0, -2.0)}.items():
        t = json.load(open(f"{w}/table.json"))
        edit(t)
        json.dump(t, open(f"{w}/{name}.json", "w"))
    json.dump({"nowhere": {"amax": 1.0}}, open(f"{w}/ov_unknown.json", "w"))
    json.dump({first: {"amax": -3.0}}, open(f"{w}/ov_negative.json", "w"))
    json.dump([1, 2], open(f"{w}/ov_array.json", "w"))
    json.dump({first: {"method": "kl"}}, open(f"{w}/ov_kl.json", "w"))
    json.dump({first: {"method": "max"}}, open(f"{w}/ov_method.json", "w"))

    def h5_edit(name, fn):
        shutil.copy(f"{w}/good.h5", f"{w}/{name}.h5")
        with h5py.File(f"{w}/{name}.h5", "r+") as f:
            fn(f, f["tensors"]["t000000"])
    h5_edit("h5_counts", lambda f, g: g["counts"].__setitem__(3, np.uint64(2 ** 63)))
    h5_edit("h5_nan", lambda f, g: g.attrs.__setitem__("max_abs", np.nan))
    h5_edit("h5_width", lambda f, g: g.attrs.__setitem__("width_exponent", np.int64(5000)))
    h5_edit("h5_name", lambda f, g: g.attrs.__setitem__("name", "not_a_tensor"))
    h5_edit("h5_samples", lambda f, g: f.attrs.__setitem__("samples", np.uint64(2 ** 64 - 1)))
    h5_edit("h5_bins", lambda f, g: f.attrs.__setitem__("bins", np.int64(2 ** 40)))
    # Another model, for provenance.
    other = f"{w}/other.onnx"
    m = onnx.load(FASHION)
    m.producer_name = "another"
    onnx.save(m, other)
    p["other"] = other
    subprocess.run([binary, "calibrate", other, "--data", TEST, "--limit", "64", "--quiet", "--histograms", f"{w}/other.h5"],
                   check=True, capture_output=True)
    subprocess.run([binary, "calibrate", FASHION, "--data", TEST, "--limit", "64", "--quiet", "--histograms", f"{w}/partial.h5",
                    "--batch-size", "32"], check=True, capture_output=True)
    subprocess.run([binary, "quantize", FASHION, "--calib", f"{w}/table.json", "-o", f"{w}/fashion.qdq.onnx"], check=True, capture_output=True)
    os.makedirs(f"{w}/readonly")
    os.chmod(f"{w}/readonly", 0o555)
    return p


def cases(p, w):
    cal = ["calibrate", FASHION, "--data", TEST, "--limit", "32", "--quiet"]
    out = f"{w}/out"  # never created: every case fails before writing
    return [
        # crashes before
        (".npy header of 2^32 x 2^32", ["run", FASHION, "--input", f"input={w}/huge.npy", "--output-dir", out], "huge.npy"),
        ("--resume with samples 2^64-1", cal + ["--resume", f"{w}/h5_samples.h5", "--json", f"{w}/o.json"], "not a plausible count"),
        ("--resume with bins 2^40", cal + ["--resume", f"{w}/h5_bins.h5", "--json", f"{w}/o.json"], "h5_bins.h5: bins"),
        ("--threads 100000", cal + ["--threads", "100000", "--json", f"{w}/o.json"], "--threads"),
        ("a FIFO as the model", ["inspect", p["fifo"]], "model.fifo: not a regular file"),
        ("/dev/zero as the model", ["inspect", "/dev/zero"], "/dev/zero: not a regular file"),
        ("a directory as the model", ["inspect", p["dir_model"]], "a_directory.onnx: is a directory"),
        ("--shape of a 1 TB sample", ["run", FASHION, "--shape", "input=1000000x1x1000x1000", "--output-dir", out], "GiB, limit"),
        # exit 0 before
        ("an empty graph", ["run", p["empty_graph"], "--output-dir", out], "empty_graph.onnx: the graph has no nodes"),
        ("a -4 input dimension", ["run", p["neg_dim"], "--output-dir", out], "declares dimension -4 at axis 1"),
        ("external data through a symlink out of the directory", ["run", p["ext_symlink"], "--output-dir", out],
         "outside the model's directory"),
        ("two outputs that map to one file", ["run", p["collide"], "--output-dir", out], "would both be written to a_b.npy"),
        ("--strict and a truncated BMP", cal[:3] + [f"{w}/bmp", "--strict", "--quiet", "--json", f"{w}/o.json"], "0.bmp: truncated BMP"),
        ("--strict and a truncated PGM", cal[:3] + [f"{w}/pgm", "--strict", "--quiet", "--json", f"{w}/o.json"], "0.pgm: truncated PGM"),
        ("--limit -5", cal + ["--limit", "-5", "--json", f"{w}/o.json"], "--limit: must be at least 0"),
        ("--std 0", cal + ["--std", "0", "--json", f"{w}/o.json"], "--std 0: a std of 0 divides by zero"),
        ("--std 1,0,1", cal + ["--std", "1,0,1", "--json", f"{w}/o.json"], "a std of 0"),
        ("a range table with a negative amax", ["quantize", FASHION, "--calib", f"{w}/neg_amax.json", "-o", f"{w}/q.onnx"],
         "neg_amax.json: activation"),
        ("a range table with amax 1e300", ["quantize", FASHION, "--calib", f"{w}/huge_amax.json", "-o", f"{w}/q.onnx"],
         "huge_amax.json: activation"),
        ("a range table with a string amax", ["quantize", FASHION, "--calib", f"{w}/str_amax.json", "-o", f"{w}/q.onnx"],
         "str_amax.json: malformed range table"),
        ("a range table with a negative weight amax", ["quantize", FASHION, "--calib", f"{w}/neg_weight.json", "-o", f"{w}/q.onnx"],
         "neg_weight.json: weight"),
        ("histograms with a huge count", cal + ["--resume", f"{w}/h5_counts.h5", "--json", f"{w}/o.json"], "counts sum to"),
        ("histograms with a NaN max", cal + ["--resume", f"{w}/h5_nan.h5", "--json", f"{w}/o.json"], "max_abs nan"),
        ("histograms with an absurd width", cal + ["--resume", f"{w}/h5_width.h5", "--json", f"{w}/o.json"], "width 2^5000"),
        ("histograms naming an unknown tensor", cal + ["--merge", f"{w}/h5_name.h5", "--json", f"{w}/o.json"],
         "h5_name.h5: histograms hold tensor 'not_a_tensor'"),
        ("--resume from another dataset", ["calibrate", FASHION, "--data", f"{w}/pgm", "--quiet", "--resume", f"{w}/partial.h5",
                                           "--json", f"{w}/o.json"], "was made with the dataset"),
        ("--resume in another order", ["calibrate", FASHION, "--data", TEST, "--quiet", "--limit", "100", "--shuffle", "--resume", f"{w}/partial.h5", "--json", f"{w}/o.json"],
         "was made with the order 'sorted'"),
        ("--resume with other preprocessing", ["calibrate", FASHION, "--data", TEST, "--quiet", "--limit", "100", "--mean", "0.5", "--resume", f"{w}/partial.h5", "--json", f"{w}/o.json"],
         "was made with the preprocessing"),
        ("--merge of another model's histograms", cal + ["--merge", f"{w}/other.h5", "--json", f"{w}/o.json"],
         "other.h5 was made for another model"),
        ("quantize --histograms of another model", ["quantize", FASHION, "--calib", f"{w}/table.json", "--overrides",
                                                    f"{w}/ov_method.json", "--histograms", f"{w}/other.h5", "-o", f"{w}/q.onnx"],
         "other.h5 was made for another model"),
        ("compare a model with itself", ["compare", FASHION, FASHION, "--data", TEST, "--limit", "8"], "not a QDQ model"),
        ("compare on a folder of corrupt images", ["compare", FASHION, f"{w}/fashion.qdq.onnx", "--data", f"{w}/corrupt_images"],
         "could be compared"),
        # accepted before
        ("--input given twice for one input", ["run", FASHION, "--input", f"input={w}/x1.npy", "--input", f"input={w}/x2.npy",
                                               "--output-dir", out], "--input input is given twice"),
        ("--shape given twice for one input", ["run", FASHION, "--shape", "input=1x1x28x28", "--shape", "input=2x1x28x28",
                                               "--output-dir", out], "--shape input is given twice"),
        ("--shape of an input --input gives", ["run", FASHION, "--input", f"input={w}/x1.npy", "--shape", "input=2x1x28x28",
                                               "--output-dir", out], "--shape input: the input is given by --input"),
        ("--override given twice for one tensor", cal + ["--override", "input=max", "--override", "input=entropy", "--json",
                                                         f"{w}/o.json"], "--override input is given twice"),
        ("a .npy header with a negative dimension", ["run", FASHION, "--input", f"input={w}/negative.npy", "--output-dir", out],
         "dimension -2 at axis 0 is negative"),
        ("calibration data that is all NaN", ["calibrate", FASHION, "--data", f"{w}/all_nan", "--json", f"{w}/o.json", "--quiet"],
         "every value of input 'input' observed is NaN"),
        ("run with two outputs, the second's file a directory", ["run", p["two_outputs"], "--output-dir", f"{w}/outputs"],
         "b.npy: is a directory"),
        ("a 254-character file name, cut in the middle", ["run", FASHION, "--input", f"input={w}/{'n' * 250}.npy", "--output-dir", out],
         "…" + "n" * 27 + ".npy: no such file"),
        # unclear messages before
        ("--bins 2^40", cal + ["--bins", str(2 ** 40), "--json", f"{w}/o.json"], "--bins: must be a power of two"),
        ("--bins 3", cal + ["--bins", "3", "--json", f"{w}/o.json"], "--bins: must be a power of two"),
        ("external data at offset 2^62", ["run", p["ext_offset"], "--output-dir", out], "external data offset 4611686018427387904"),
        ("--size 2x", cal + ["--size", "2x", "--json", f"{w}/o.json"], "--size '2x'"),
        ("--size axb", cal + ["--size", "axb", "--json", f"{w}/o.json"], "--size 'axb'"),
        ("--size 0x28", cal + ["--size", "0x28", "--json", f"{w}/o.json"], "--size '0x28'"),
        ("--shape with a letter", ["run", FASHION, "--shape", "input=2x1xax28", "--output-dir", out], "--shape input"),
        ("--shape with -5", ["run", FASHION, "--shape", "input=3x-5x-5", "--output-dir", out], "--shape input"),
        ("--mean with a word", cal + ["--mean", "0.1,x", "--json", f"{w}/o.json"], "--mean '0.1,x'"),
        ("an IDX file of zero images", ["calibrate", FASHION, "--data", f"{w}/empty-images-idx3-ubyte.gz", "--json", f"{w}/o.json"],
         "holds no samples"),
        ("--batch-size 0", cal + ["--batch-size", "0", "--json", f"{w}/o.json"], "--batch-size"),
        ("--seed -1", cal + ["--seed", "-1", "--json", f"{w}/o.json"], "--seed: must be at least 0"),
        ("--percentile 101", cal + ["--percentile", "101", "--json", f"{w}/o.json"], "--percentile"),
        ("--clip-limit 2", cal + ["--clip-limit", "2", "--json", f"{w}/o.json"], "--clip-limit"),
        ("--layers -1", ["compare", FASHION, f"{w}/fashion.qdq.onnx", "--data", TEST, "--layers", "-1"], "--layers: must be at least 0"),
        ("--blame -3", ["compare", FASHION, f"{w}/fashion.qdq.onnx", "--data", TEST, "--blame", "-3"], "--blame: must be at least 0"),
        ("--fail-below with no value", ["compare", FASHION, f"{w}/fashion.qdq.onnx", "--data", TEST, "--fail-below", "cosine"],
         "--fail-below 'cosine' is not METRIC=VALUE"),
        ("--override of an unknown tensor", cal + ["--override", "nowhere=max", "--json", f"{w}/o.json"],
         "--override nowhere=max: no activation or op type"),
        ("overrides naming an unknown tensor", ["quantize", FASHION, "--calib", f"{w}/table.json", "--overrides", f"{w}/ov_unknown.json",
                                               "-o", f"{w}/q.onnx"], "'nowhere' is not a calibrated activation"),
        ("overrides with a negative amax", ["quantize", FASHION, "--calib", f"{w}/table.json", "--overrides", f"{w}/ov_negative.json",
                                            "-o", f"{w}/q.onnx"], "ov_negative.json: entry"),
        ("overrides that are a JSON array", ["quantize", FASHION, "--calib", f"{w}/table.json", "--overrides", f"{w}/ov_array.json",
                                             "-o", f"{w}/q.onnx"], "must be a JSON object"),
        # outputs
        ("--cache and --json the same file", cal + ["--cache", f"{w}/same.out", "--json", f"{w}/same.out"], "are the same file"),
        ("--json over the model", ["calibrate", p["other"], "--data", TEST, "--limit", "8", "--json", p["other"]],
         "would overwrite an input"),
        ("quantize -o over its range table", ["quantize", FASHION, "--calib", f"{w}/table.json", "-o", f"{w}/table.json"],
         "would overwrite an input"),
        ("overrides with an unknown method", ["quantize", FASHION, "--calib", f"{w}/table.json", "--overrides", f"{w}/ov_kl.json",
                                              "-o", f"{w}/q.onnx"], "unknown method 'kl'"),
        ("--json a directory", cal + ["--json", f"{w}/readonly"], "is a directory"),
        ("--json with a 300-character name", cal + ["--json", f"{w}/" + "n" * 300 + ".json"], "too long"),
        # the benchmark peer: asked for, absent or not ONNX Runtime (nothing timed, no JSON)
        ("--peer ort with no such library", ["bench", FASHION, "--peer", "ort", "--ort-library", f"{w}/no/libonnxruntime.so.1",
                                             "--iterations", "1", "--json", f"{w}/b.json"], "cannot load ONNX Runtime's library"),
        ("--peer ort with a library that is not ONNX Runtime", ["bench", FASHION, "--peer", "ort", "--ort-library", "libm.so.6",
                                                                "--iterations", "1", "--json", f"{w}/b.json"],
         "'libm.so.6' is not ONNX Runtime's library"),
        ("--peer with an unknown peer", ["bench", FASHION, "--peer", "openvino", "--iterations", "1"], "--peer"),
        # given input values: a missing file, a name that is no input
        ("bench --input of a missing file", ["bench", FASHION, "--input", f"input={w}/no_such.npy", "--iterations", "1"], "no_such.npy"),
        ("bench --input naming no input", ["bench", FASHION, "--input", f"pixels={w}/no_such.npy", "--iterations", "1"],
         "matches no model input"),
    ]


def full_disk_cases(binary, w, tally):
    """On a 200 KiB tmpfs: calibrate's three outputs and run's outputs appear together or not at
    all, an older file stays unchanged, no temporary is left."""
    disk = f"{w}/tmpfs"
    os.makedirs(disk)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", disk], capture_output=True).returncode:
        print("skip full-disk cases: mounting a tmpfs needs root and a mount namespace that allows it", flush=True)
        return
    try:
        open(f"{disk}/h.h5", "w").write("an older file")
        before = snapshot(disk)
        proc = q8(binary, ["calibrate", FASHION, "--data", TEST, "--limit", "64", "--quiet", "--histograms", f"{disk}/h.h5",
                           "--json", f"{disk}/t.json", "--cache", f"{disk}/c.cache"])
        errors = [l for l in proc.stderr.splitlines() if l.startswith("q8: error:")]
        ok = proc.returncode == 1 and len(errors) == 1 and "No space left" in errors[0] and snapshot(disk) == before
        tally.check("full disk: calibrate fails on one line, writes none of its outputs, leaves the older h.h5 as it was",
                    "" if ok else f"exit {proc.returncode}, {proc.stderr.strip()!r}, files {sorted(snapshot(disk))}")
        big = f"{w}/big.onnx"
        save(model([helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Neg", ["x"], ["b"])], [vi("x", [1, 30000])],
                   [vi("a", [1, 30000]), vi("b", [1, 30000])]), big)
        proc = q8(binary, ["run", big, "--output-dir", disk])
        ok = proc.returncode == 1 and snapshot(disk) == before
        tally.check("full disk: run with two outputs writes neither", "" if ok else f"exit {proc.returncode}, files {sorted(snapshot(disk))}")
    finally:
        subprocess.run(["umount", disk], capture_output=True)


def long_name_is_short(binary, w, tally):
    """An error naming a 254-character file, twice, stays one readable line: the name is cut in the
    middle, both ends kept."""
    name = f"{w}/{'m' * 250}.onnx"
    proc = q8(binary, ["quantize", name, "--calib", name, "-o", f"{w}/q.onnx"])
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    ok = proc.returncode > 0 and len(lines) == 1 and len(lines[0]) < 200 and "…" in lines[0] and "m.onnx" in lines[0]
    tally.check("an error about a 254-character name is one line under 200 characters, the name cut in the middle",
                "" if ok else f"exit {proc.returncode}, {lines}")


def graph_size_cases(binary, w, tally):
    """A valid chain of 100,000 Relu nodes runs in seconds (nothing quadratic in the node count), and
    q8 build sizes a plan without running it: a batch whose intermediates exceed the memory limit
    builds (running it could not)."""
    n = 100000
    chain = helper.make_model(helper.make_graph([helper.make_node("Relu", [f"v{i}"], [f"v{i + 1}"], name=f"r{i}") for i in range(n)],
                                                "chain", [vi("v0", [1, 4])], [vi(f"v{n}", [1, 4])]),
                              opset_imports=[helper.make_opsetid("", 13)])
    chain.ir_version = 7
    save(chain, f"{w}/chain.onnx")
    # Guards complexity, not speed: anything quadratic in 100,000 nodes takes minutes. About 5 s on a
    # loaded 2-core machine, so the bound leaves room for load.
    bound = 30 if os.environ.get("Q8_SANITIZED") else 15
    start = time.monotonic()
    proc = q8(binary, ["run", f"{w}/chain.onnx", "--output-dir", f"{w}/chain_out", "--quiet"])
    seconds = time.monotonic() - start
    out = f"{w}/chain_out/v{n}.npy"
    ok = proc.returncode == 0 and seconds < bound and os.path.exists(out) and np.load(out).shape == (1, 4)
    tally.check(f"q8 run on a chain of {n} Relu nodes: {seconds:.1f} s (bound {bound} s)", "" if ok else f"exit {proc.returncode}: "
                f"{proc.stderr.strip()[-200:]}")
    shutil.rmtree(f"{w}/chain_out", ignore_errors=True)
    env = dict(os.environ, Q8_MAX_MEMORY_GIB="1")
    proc = subprocess.run([binary, "build", f"{w}/fashion.qdq.onnx", "--shape", "input=100000x1x28x28", "-o", f"{w}/big.q8plan"],
                          capture_output=True, text=True, env=env)
    ok = proc.returncode == 0 and os.path.exists(f"{w}/big.q8plan") and "without reuse" in proc.stdout
    tally.check("q8 build at a batch whose intermediates exceed Q8_MAX_MEMORY_GIB=1 sizes them without running",
                "" if ok else f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
    os.remove(f"{w}/big.q8plan") if os.path.exists(f"{w}/big.q8plan") else None


def main():
    binary, w = sys.argv[1], os.path.abspath(sys.argv[2])
    if os.path.exists(f"{w}/readonly"):
        os.chmod(f"{w}/readonly", 0o755)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    p = fixtures(binary, w)
    tally = Tally()
    table = cases(p, w)
    if os.geteuid() != 0:  # root writes into a 0555 directory
        table.append(("--json in a read-only directory", ["calibrate", FASHION, "--data", TEST, "--json", f"{w}/readonly/t.json"],
                      "cannot write there"))
    else:
        print("skip --json in a read-only directory: running as root, which may write there", flush=True)
    for what, args, text in table:
        before = snapshot(w)
        proc = q8(binary, args)
        lines = [l for l in proc.stderr.splitlines() if l.strip() and not l.startswith("q8: warning")]
        problems = []
        if proc.returncode <= 0:
            problems.append(f"exit code {proc.returncode} (want a positive exit, not a crash)")
        if len(lines) != 1 or not lines[0].startswith("q8: error: "):
            problems.append(f"{len(lines)} stderr lines: {lines}")
        elif text not in lines[0]:
            problems.append(f"the error does not contain {text!r}: {lines[0]!r}")
        after = snapshot(w)
        if after != before:
            changed = sorted(set(after) ^ set(before)) + [k for k in before if k in after and after[k] != before[k]]
            problems.append(f"files new or changed: {changed}")
        tally.check(what, "; ".join(problems))
    print(f"{len(table)} bad-input cases", flush=True)
    long_name_is_short(binary, w, tally)
    graph_size_cases(binary, w, tally)
    full_disk_cases(binary, w, tally)
    os.chmod(f"{w}/readonly", 0o755)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
