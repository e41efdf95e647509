#!/usr/bin/python3
"""Trains the accuracy benchmark's extra Fashion-MNIST classifiers (besides the shipped model):

- deconv_head: strided convolutions, then a ConvTranspose head (32 -> 10 channels, C_in != C_out)
  whose channel means are the logits;
- mlp: Flatten -> MatMul (a [784, 128] weight) -> ReLU -> Gemm.

    /usr/bin/python3 bench/train_classifiers.py OUT_DIR

Writes OUT_DIR/<name>.onnx (opset 13, dynamic batch). Input: [N, 1, 28, 28], pixel / 255.
"""
import gzip
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with gzip.open(path, "rb") as f:
        rank = struct.unpack(">I", f.read(4))[0] & 0xFF
        dims = struct.unpack(">" + "I" * rank, f.read(4 * rank))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(dims)


class DeconvHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, 2, 1)
        self.c2 = nn.Conv2d(16, 32, 3, 2, 1)
        self.head = nn.ConvTranspose2d(32, 10, 2, stride=2)

    def forward(self, x):
        x = F.relu(self.c2(F.relu(self.c1(x))))
        return self.head(x).mean(dim=(2, 3))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(784, 128) * 0.05)
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc(F.relu(torch.flatten(x, 1) @ self.w))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(os.cpu_count() or 1)
    x = torch.from_numpy(read_idx(f"{DATA}/train-images-idx3-ubyte.gz").astype(np.float32) / 255.0).unsqueeze(1)
    y = torch.from_numpy(read_idx(f"{DATA}/train-labels-idx1-ubyte.gz").astype(np.int64))
    for name, model in [("deconv_head", DeconvHead()), ("mlp", Mlp())]:
        opt = torch.optim.Adam(model.parameters(), lr=2e-3)
        for _ in range(2):
            perm = torch.randperm(len(x))
            for i in range(0, len(x), 128):
                idx = perm[i:i + 128]
                loss = F.cross_entropy(model(x[idx]), y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
        model.eval()
        torch.onnx.export(model, torch.zeros(1, 1, 28, 28), os.path.join(out, name + ".onnx"), opset_version=13,
                          input_names=["input"], output_names=["logits"],
                          dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
        print(f"trained {name}")


if __name__ == "__main__":
    main()
