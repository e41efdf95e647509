#!/usr/bin/python3
"""Real photos for the real-model suite, from Debian packages: OpenCV's sample images (opencv-doc) and
scikit-image's data (python3-skimage).

    make_photos.py OUT_DIR

Writes OUT_DIR/calib/*.png and OUT_DIR/test/*.png, and OUT_DIR/faces/{calib,test}/*.png. Each photo
gives three samples: the whole photo, its centre crop of 70 % and the crop mirrored, all 8-bit RGB.
A photo goes wholly to one split (its crops too), so no test photo has been seen by calibration.
The face split holds the photos with frontal faces at several scales (a face detector at 128²
needs the face to fill part of the frame) and, as negatives, photos without faces.
"""
import os
import sys

from PIL import Image, ImageOps

OPENCV = "/usr/share/doc/opencv-doc/examples/data"
SKIMAGE = "/usr/lib/python3/dist-packages/skimage/data"
# Photos of scenes and objects (colour). Alternate photos go to calibration and test.
PHOTOS = [f"{OPENCV}/{n}" for n in [
    "apple.jpg", "baboon.jpg", "Blender_Suzanne1.jpg", "board.jpg", "building.jpg", "butterfly.jpg", "fruits.jpg",
    "HappyFish.jpg", "home.jpg", "leuvenA.jpg", "licenseplate_motion.jpg", "messi5.jpg", "orange.jpg", "pic1.png",
    "pic3.png", "pic5.png", "rubberwhale1.png", "smarties.png", "squirrel_cls.jpg", "starry_night.jpg", "stuff.jpg",
    "aero1.jpg", "aloeL.jpg", "graf1.png", "ela_original.jpg", "left.jpg", "pca_test1.jpg", "chicky_512.png", "blox.jpg",
    "Blender_Suzanne2.jpg", "aero3.jpg", "pic2.png", "pic4.png", "pic6.png"]] + [f"{SKIMAGE}/{n}" for n in [
    "astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png", "hubble_deep_field.jpg",
    "ihc.png", "retina.jpg", "phantom.png", "color.png"]]
# Photos with faces, and where they are: (file, list of face centres and sizes as fractions of the photo).
FACES = [f"{SKIMAGE}/astronaut.png", f"{OPENCV}/messi5.jpg"]


def rgb(path):
    im = Image.open(path)
    if im.mode in ("RGBA", "LA", "P"):
        im = im.convert("RGBA")
        back = Image.new("RGBA", im.size, (255, 255, 255, 255))
        im = Image.alpha_composite(back, im)
    return im.convert("RGB")


def crop(im, frac, cx=0.5, cy=0.5):
    w, h = im.size
    cw, ch = int(w * frac), int(h * frac)
    x0 = min(max(int(cx * w - cw / 2), 0), w - cw)
    y0 = min(max(int(cy * h - ch / 2), 0), h - ch)
    return im.crop((x0, y0, x0 + cw, y0 + ch))


def samples(im):
    c = crop(im, 0.7)
    return [im, c, ImageOps.mirror(c)]


def main():
    out = sys.argv[1]
    photos = [p for p in PHOTOS if os.path.exists(p)]
    if len(photos) < 10:
        sys.exit("make_photos: fewer than 10 photos found; install opencv-doc and python3-skimage")
    for i, path in enumerate(photos):
        split = "calib" if i % 2 == 0 else "test"
        os.makedirs(os.path.join(out, split), exist_ok=True)
        stem = os.path.splitext(os.path.basename(path))[0]
        for k, s in enumerate(samples(rgb(path))):
            s.save(os.path.join(out, split, f"{stem}_{k}.png"))
    # Faces: square crops around the face at several sizes and three places, so that a face fills
    # 15–60 % of the frame; even crop sizes calibrate, odd ones test. Photos without faces join both as negatives.
    face_boxes = {"astronaut": (0.45, 0.27, 0.22), "messi5": (0.38, 0.22, 0.12)}  # centre x, y, face width
    for path in FACES:
        if not os.path.exists(path):
            continue
        im = rgb(path)
        stem = os.path.splitext(os.path.basename(path))[0]
        cx, cy, fw = face_boxes[stem]
        w, h = im.size
        for k, share in enumerate([0.6, 0.5, 0.42, 0.35, 0.3, 0.25, 0.2, 0.16]):
            side = min(int(fw * w / share), w, h)
            split = "calib" if k % 2 == 0 else "test"
            os.makedirs(os.path.join(out, "faces", split), exist_ok=True)
            for shift in (-0.2, 0.0, 0.2):  # the face left of, at and right of the centre
                x0 = min(max(int(cx * w - side / 2 + shift * side), 0), w - side)
                y0 = min(max(int(cy * h - side / 2), 0), h - side)
                sq = im.crop((x0, y0, x0 + side, y0 + side))
                sq.save(os.path.join(out, "faces", split, f"{stem}_{k}_{shift:+.1f}.png"))
                ImageOps.mirror(sq).save(os.path.join(out, "faces", split, f"{stem}_{k}_{shift:+.1f}m.png"))
    for i, path in enumerate(photos[:12]):
        split = "calib" if i % 2 == 0 else "test"
        stem = os.path.splitext(os.path.basename(path))[0]
        im = rgb(path)
        side = min(im.size)
        crop(im, 1.0).crop((0, 0, side, side)).save(os.path.join(out, "faces", split, f"neg_{stem}.png"))
    for d in ["calib", "test", "faces/calib", "faces/test"]:
        print(d, len(os.listdir(os.path.join(out, d))))


if __name__ == "__main__":
    main()
