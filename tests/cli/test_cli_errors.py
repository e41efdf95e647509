#!/usr/bin/python3
"""Every bad input to the q8 CLI gives one clear error line naming what is wrong, a non-zero exit
(not a crash), and leaves no partial output behind.

    test_cli_errors.py Q8_BINARY WORK_DIR
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FASHION = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx")


def save_unchecked(model, path):
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


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

    k = numpy_helper.from_array(np.array([2], dtype=np.int64), "k")
    nodes = [helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk1"),
             helper.make_node("Relu", ["v"], ["r"], name="relu"),
             helper.make_node("TopK", ["r", "k"], ["y", "j"], name="topk2"),
             helper.make_node("NonZero", ["x"], ["nz"], name="nonzero")]
    y2 = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])
    nz = helper.make_tensor_value_info("nz", TensorProto.INT64, [2, "n"])
    g = helper.make_graph(nodes, "g", [x], [y2, nz], [k])
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
    cases = [
        # (description, arguments, text the one error line must contain)
        ("missing model file", ["inspect", os.path.join(work, "absent.onnx")], "absent.onnx: no such file"),
        ("file that is not ONNX", ["inspect", p["text"]], "notes.onnx: not an ONNX model"),
        ("truncated ONNX file", ["run", p["truncated"], "--output-dir", out], "truncated.onnx: not an ONNX model"),
        ("missing initializer", ["run", p["missing_init"], "--output-dir", out],
         "Add 'add_w' (node 0): input 'w' is not a graph input, an initializer or a node output"),
        ("unsupported ops, all listed", ["run", p["unsupported"], "--output-dir", out],
         "unsupported ops: NonZero ('nonzero'), TopK ('topk1', 'topk2')"),
        ("opset newer than supported", ["inspect", p["newer"]], "newer.onnx: opset 99 is newer than the newest q8 supports (17)"),
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
    ]
    passed = failed = 0
    for what, args, text in cases:
        proc = subprocess.run([q8] + args, capture_output=True, text=True)
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        problems = []
        if proc.returncode <= 0:
            problems.append(f"exit code {proc.returncode} (want a positive exit, not a crash)")
        if len(lines) != 1 and what != "unknown flag":
            problems.append(f"{len(lines)} stderr lines: {lines}")
        if not any(text in l for l in lines):
            problems.append(f"no stderr line contains {text!r}: {lines}")
        if os.path.exists(out) and os.listdir(out):
            problems.append(f"left files behind: {os.listdir(out)}")
        print(("FAIL " if problems else "ok   ") + what + ("" if not problems else ": " + "; ".join(problems)))
        passed += not problems
        failed += bool(problems)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
