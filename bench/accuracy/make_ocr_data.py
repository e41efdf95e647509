#!/usr/bin/python3
"""Renders the text data the accuracy suite runs PaddleOCR's pretrained models on: printed text
lines and pages with their ground truth, in DejaVu fonts (Debian's fonts-dejavu-core), drawn with
Pillow (python3-pil). Nothing here was seen by those models in training.

    /usr/bin/python3 bench/accuracy/make_ocr_data.py OUT_DIR [--calib N] [--test N]

Writes, each sample already preprocessed as PaddleOCR's own inference does:
  rec/calib/NNNN.npy  [3, 48, 320] text lines, (x/255 - 0.5) / 0.5, right-padded with 0
  rec/test.npy        [N, 3, 48, 320];  rec/test.txt: the text of each line
  cls/calib/NNNN.npy  [3, 48, 192] lines for the orientation classifier, normalised as rec
  cls/test.npy        [N, 3, 48, 192]; cls/test.txt: 0 upright, 1 rotated by 180 degrees
  det/calib/NNNN.npy  [3, 640, 640] pages, (x/255 - mean) / std with ImageNet's mean and std
  det/test.npy        [N, 3, 640, 640]; det/test.json: every line's box [x0, y0, x1, y1] per page
Calibration and test samples come from different random streams.
"""
import argparse
import json
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSansMono.ttf",
         "DejaVuSansCondensed.ttf", "DejaVuSerifCondensed.ttf", "DejaVuSans-Oblique.ttf"]
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
PUNCT = ".,:;-()%"
MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)


def random_text(r, words):
    out = []
    for _ in range(words):
        n = int(r.integers(2, 9))
        kind = r.random()
        if kind < 0.15:
            w = "".join(r.choice(list("0123456789"), n))
        elif kind < 0.3:
            w = "".join(r.choice(list(LETTERS[26:52]), n))
        else:
            w = "".join(r.choice(list(LETTERS[:26]), n))
            if r.random() < 0.3:
                w = w.capitalize()
        if r.random() < 0.15:
            w += str(r.choice(list(PUNCT)))
        out.append(w)
    return " ".join(out)


def colours(r):
    bg = int(r.integers(170, 256))
    fg = int(r.integers(0, max(1, bg - 120)))
    tint = r.integers(-20, 21, 3)
    return tuple(int(np.clip(bg + t, 0, 255)) for t in tint), tuple(int(np.clip(fg + t, 0, 255)) for t in tint)


def render_line(r, text):
    font = ImageFont.truetype(os.path.join(FONT_DIR, str(r.choice(FONTS))), int(r.integers(26, 40)))
    bg, fg = colours(r)
    x0, y0, x1, y1 = font.getbbox(text)
    pad = int(r.integers(2, 8))
    img = Image.new("RGB", (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), bg)
    ImageDraw.Draw(img).text((pad - x0, pad - y0), text, font=font, fill=fg)
    if r.random() < 0.3:
        img = img.filter(ImageFilter.GaussianBlur(float(r.uniform(0.3, 1.0))))
    return img


def line_tensor(img, height, width):
    w = min(width, max(1, int(round(img.width * height / img.height))))
    a = np.asarray(img.resize((w, height), Image.BILINEAR), np.float32).transpose(2, 0, 1) / 255.0
    out = np.zeros((3, height, width), np.float32)
    out[:, :, :w] = (a - 0.5) / 0.5
    return out


def rec_sample(r):
    while True:
        text = random_text(r, int(r.integers(1, 4)))
        img = render_line(r, text)
        if img.width * 48 / img.height <= 320:
            return line_tensor(img, 48, 320), text


def cls_sample(r):
    img = render_line(r, random_text(r, int(r.integers(1, 3))))
    flipped = int(r.random() < 0.5)
    if flipped:
        img = img.rotate(180)
    return line_tensor(img, 48, 192), flipped


def background(r, size):
    """A page that is not blank paper: a colour gradient, blotches and sensor noise."""
    bg, _ = colours(r)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    page = np.array(bg, np.float32) + (r.uniform(-40, 40, 3) * (xx[..., None] * r.uniform() + yy[..., None] * r.uniform()))
    for _ in range(int(r.integers(0, 4))):
        cy, cx, rad = r.uniform(0, size, 2).tolist() + [r.uniform(30, 150)]
        page += r.uniform(-50, 30) * np.exp(-((yy * size - cy) ** 2 + (xx * size - cx) ** 2) / (2 * rad ** 2))[..., None]
    page += r.normal(0, r.uniform(0, 12), page.shape)
    return Image.fromarray(np.clip(page, 0, 255).astype(np.uint8))


def det_sample(r):
    page = background(r, 640)
    draw = ImageDraw.Draw(page)
    boxes, y = [], int(r.integers(10, 40))
    while True:
        font = ImageFont.truetype(os.path.join(FONT_DIR, str(r.choice(FONTS))), int(r.integers(12, 36)))
        text = random_text(r, int(r.integers(2, 6)))
        x0, y0, x1, y1 = font.getbbox(text)
        x = int(r.integers(10, 120))
        if y + (y1 - y0) > 630:
            break
        if x + (x1 - x0) > 630:
            y += 5
            continue
        fg = tuple(int(v) for v in r.integers(0, 110, 3))
        draw.text((x - x0, y - y0), text, font=font, fill=fg)
        boxes.append([x, y, x + (x1 - x0), y + (y1 - y0)])
        y += (y1 - y0) + int(r.integers(8, 30))
    if r.random() < 0.4:
        page = page.filter(ImageFilter.GaussianBlur(float(r.uniform(0.4, 1.2))))
    a = np.asarray(page, np.float32).transpose(2, 0, 1) / 255.0
    return (a - MEAN) / STD, boxes


def write(out, task, make, seed, calib, test):
    os.makedirs(os.path.join(out, task, "calib"), exist_ok=True)
    r = np.random.default_rng(seed)
    for i in range(calib):
        np.save(os.path.join(out, task, "calib", f"{i:04d}.npy"), make(r)[0])
    r = np.random.default_rng(seed + 1000)
    xs, truths = zip(*[make(r) for _ in range(test)])
    np.save(os.path.join(out, task, "test.npy"), np.stack(xs))
    return list(truths)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--calib", type=int, default=64)
    ap.add_argument("--test", type=int, default=300)
    a = ap.parse_args()
    texts = write(a.out, "rec", rec_sample, 1, a.calib, a.test)
    open(os.path.join(a.out, "rec", "test.txt"), "w").write("\n".join(texts) + "\n")
    flips = write(a.out, "cls", cls_sample, 2, a.calib, a.test)
    open(os.path.join(a.out, "cls", "test.txt"), "w").write("\n".join(map(str, flips)) + "\n")
    boxes = write(a.out, "det", det_sample, 3, max(8, a.calib // 4), max(10, a.test // 10))
    json.dump(boxes, open(os.path.join(a.out, "det", "test.json"), "w"))
    print(f"rendered {a.calib} + {a.test} lines, {a.calib} + {a.test} orientation samples, "
          f"{max(8, a.calib // 4)} + {max(10, a.test // 10)} pages into {a.out}")


if __name__ == "__main__":
    main()
