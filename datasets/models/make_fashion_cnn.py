#!/usr/bin/python3
"""Trains q8's shipped example, a small CNN for Fashion-MNIST, and exports it to ONNX.

Run with Debian's interpreter (python3-torch, python3-onnx, python3-numpy):
    /usr/bin/python3 datasets/models/make_fashion_cnn.py
Reads Debian's dataset-fashion-mnist; writes fashion_cnn.onnx beside this script and the demo
samples under datasets/samples/fashion-mnist/. Deterministic for a given torch build.

Preprocessing the model expects: grayscale 28x28, NCHW float32, pixel / 255 (no mean or std).
"""
import gzip
import os
import struct

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"
HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "samples", "fashion-mnist")
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def read_idx(path):
    with gzip.open(path, "rb") as f:
        magic = struct.unpack(">I", f.read(4))[0]
        rank = magic & 0xFF
        dims = struct.unpack(">" + "I" * rank, f.read(4 * rank))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(dims)


class FashionCNN(nn.Module):
    """Conv+BN+ReLU, a residual Add, MaxPool, a ConvTranspose, GlobalAveragePool and Gemm."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.conv3 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(32)
        self.up = nn.ConvTranspose2d(32, 24, 2, stride=2)
        self.bn4 = nn.BatchNorm2d(24)
        self.conv4 = nn.Conv2d(24, 48, 3, stride=2, padding=1)
        self.fc = nn.Linear(48, 10)

    def forward(self, x):
        a = F.relu(self.bn1(self.conv1(x)))                 # 16x28x28
        x = F.relu(self.bn2(self.conv2(a)) + a)             # residual Add
        x = F.max_pool2d(x, 2)                              # 16x14x14
        x = F.relu(self.bn3(self.conv3(x)))                 # 32x14x14
        x = F.max_pool2d(x, 2)                              # 32x7x7
        x = F.relu(self.bn4(self.up(x)))                    # ConvTranspose: 24x14x14
        x = F.relu(self.conv4(x))                           # 48x7x7
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)          # GlobalAveragePool
        return self.fc(x)                                   # Gemm


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    xtr = torch.from_numpy(read_idx(f"{DATA}/train-images-idx3-ubyte.gz").astype(np.float32) / 255.0)
    ytr = torch.from_numpy(read_idx(f"{DATA}/train-labels-idx1-ubyte.gz").astype(np.int64))
    xte = torch.from_numpy(read_idx(f"{DATA}/t10k-images-idx3-ubyte.gz").astype(np.float32) / 255.0)
    yte = torch.from_numpy(read_idx(f"{DATA}/t10k-labels-idx1-ubyte.gz").astype(np.int64))
    xtr, xte = xtr.unsqueeze(1), xte.unsqueeze(1)

    model = FashionCNN()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    epochs = 4
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=epochs * (60000 // 128 + 1))
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(xtr))
        for i in range(0, len(xtr), 128):
            idx = perm[i:i + 128]
            loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            acc = (model(xte).argmax(1) == yte).float().mean().item()
        print(f"epoch {epoch + 1}: test top-1 {acc * 100:.2f}%", flush=True)

    model.eval()
    out = os.path.join(HERE, "fashion_cnn.onnx")
    # PRESERVE keeps BatchNormalization nodes (eval mode), so q8's BN folding has work to do.
    torch.onnx.export(model, torch.zeros(1, 1, 28, 28), out, opset_version=13,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=True)
    print(f"wrote {out}")

    os.makedirs(SAMPLES, exist_ok=True)
    picks = list(range(16))
    np.save(os.path.join(SAMPLES, "images.npy"), xte[picks].numpy())
    with open(os.path.join(SAMPLES, "labels.txt"), "w") as f:
        for i in picks:
            f.write(f"{int(yte[i])} {CLASSES[int(yte[i])]}\n")
    with torch.no_grad():
        np.save(os.path.join(SAMPLES, "expected_logits.npy"), model(xte[picks]).numpy())
    print(f"wrote samples to {SAMPLES}")


if __name__ == "__main__":
    main()
