#!/usr/bin/python3
"""Task metrics for PaddleOCR's models, from the output `q8 run` wrote for make_ocr_data.py's test
set:

    ocr_metrics.py rec OUTPUT.npy DATA_DIR KEYS.txt   character accuracy, 1 - edit distance / length
    ocr_metrics.py cls OUTPUT.npy DATA_DIR             top-1 of the orientation (0 or 180 degrees)
    ocr_metrics.py det OUTPUT.npy DATA_DIR             fraction of the text lines found

Prints one number, in percent. Recognition decodes CTC greedily (index 0 is the blank, then the
dictionary, then the space, as PaddleOCR's use_space_char). Detection binarises the probability
map at 0.3 (PaddleOCR's DB threshold), takes connected regions, grows each by the DB unclip
distance (area * 1.5 / perimeter) and counts a line as found when a region's box overlaps its box
with IoU >= 0.5.
"""
import json
import os
import sys

import numpy as np
import scipy.ndimage


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[len(b)]


def rec_accuracy(probs, data, keys_path):
    chars = [""] + open(keys_path, encoding="utf-8").read().rstrip("\n").split("\n") + [" "]
    truth = open(os.path.join(data, "test.txt")).read().rstrip("\n").split("\n")
    errors = length = 0
    for p, want in zip(probs.argmax(-1), truth):
        got, last = [], 0
        for k in p:
            if k != last and k != 0:
                got.append(chars[k])
            last = k
        errors += edit_distance("".join(got), want)
        length += len(want)
    return 100.0 * (1 - errors / length)


def cls_accuracy(probs, data):
    truth = np.array([int(v) for v in open(os.path.join(data, "test.txt")).read().split()])
    return 100.0 * float(np.mean(probs.argmax(-1) == truth))


def iou(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def det_found(maps, data):
    pages = json.load(open(os.path.join(data, "test.json")))
    found = total = 0
    for m, boxes in zip(maps[:, 0], pages):
        labels, _ = scipy.ndimage.label(m > 0.3)
        regions = []
        for sl in scipy.ndimage.find_objects(labels):
            y0, y1, x0, x1 = sl[0].start, sl[0].stop, sl[1].start, sl[1].stop
            w, h = x1 - x0, y1 - y0
            d = w * h * 1.5 / (2 * (w + h))
            regions.append([x0 - d, y0 - d, x1 + d, y1 + d])
        total += len(boxes)
        found += sum(any(iou(b, r) >= 0.5 for r in regions) for b in boxes)
    return 100.0 * found / total


def main():
    task, output, data = sys.argv[1:4]
    out = np.load(output)
    if task == "rec":
        value = rec_accuracy(out, data, sys.argv[4])
    elif task == "cls":
        value = cls_accuracy(out, data)
    else:
        value = det_found(out, data)
    print(f"{value:.2f}")


if __name__ == "__main__":
    main()
