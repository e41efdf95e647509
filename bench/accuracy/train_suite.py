#!/usr/bin/python3
"""Trains the accuracy suite's Fashion-MNIST models (besides the shipped fashion_cnn) with Debian's
python3-torch and exports them to ONNX. The suite is built to cover what breaks calibration:

| model         | input          | what it holds                                                           | opset |
| ------------- | -------------- | ----------------------------------------------------------------------- | ----- |
| deconv_head   | [0, 1]         | strided convs, ConvTranspose head (32 -> 10, C_in != C_out)             | 13    |
| mlp           | [0, 1]         | MatMul with a [K, N] weight, ReLU, Gemm                                 | 13    |
| small_resnet  | mean/std       | BN folded, residual Adds, depthwise convs, ReLU6 (Clip)                 | 13    |
| mobile_se     | mean/std       | HardSwish, squeeze-excite (Sigmoid, Mul), depthwise, BN left unfolded   | 17    |
| gelu_mixer    | [0, 1]         | grouped convs, GELU (Erf), MatMul [K, N] head                           | 17    |
| sigmoid_vgg   | [0, 1]         | plain convs with Sigmoid, MaxPool, Gemm                                 | 11    |
| leaky_bn      | mean/std       | LeakyRelu, BatchNormalization nodes after activations (unfoldable)      | 11    |
| attention     | mean/std       | patch conv, self-attention (MatMul, Softmax), LayerNormalization, Add   | 17    |
| unet_seg      | [0, 1]         | segmenter: two ConvTranspose, concat skip; 11 classes per pixel         | 11    |
| fcn_mask      | mean/std       | segmenter: one logit per pixel (foreground), Resize upsampling          | 13    |
| vit_tiny      | mean/std       | ViT: class token, 4 pre-LN blocks of 4-head attention and GELU MLPs     | 17    |

    /usr/bin/python3 bench/accuracy/train_suite.py OUT_DIR

Writes OUT_DIR/<name>.onnx (dynamic batch, input [N, 1, 28, 28]) and OUT_DIR/<name>.json (how its
input is normalised and what it outputs), plus the per-pixel labels the segmenters are scored on,
derived from the images: OUT_DIR/masks-{train,test}-classes.idx (0 background where the pixel is
at most 25, else the item's class + 1) and OUT_DIR/masks-{train,test}-foreground.idx (0 or 1).
"""
import gzip
import inspect
import json
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = os.environ.get("Q8_FASHION_MNIST", "/usr/share/datasets/fashion-mnist")  # Debian's fashion-mnist package
# One rule for every model: Adam at 2e-3, cosine-annealed to 0 over EPOCHS epochs of batch 128,
# enough for each to approach convergence (users quantize trained models, not half-trained ones).
EPOCHS = 6
BATCH = 128
MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST's pixel mean and std, on pixel / 255
FOREGROUND = 25  # a pixel above this (of 255) is part of the item


def read_idx(path):
    with gzip.open(path, "rb") as f:
        rank = struct.unpack(">I", f.read(4))[0] & 0xFF
        dims = struct.unpack(">" + "I" * rank, f.read(4 * rank))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(dims)


def write_idx(path, a):
    with open(path, "wb") as f:
        f.write(struct.pack(">I", 0x0800 | a.ndim))
        f.write(struct.pack(">" + "I" * a.ndim, *a.shape))
        f.write(a.astype(np.uint8).tobytes())


def conv_bn(cin, cout, k=3, s=1, groups=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout))


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


class Block(nn.Module):
    """Residual block: 1x1 expand, depthwise 3x3, 1x1 project, ReLU6."""

    def __init__(self, c):
        super().__init__()
        self.expand, self.dw, self.project = conv_bn(c, 2 * c, 1), conv_bn(2 * c, 2 * c, 3, groups=2 * c), conv_bn(2 * c, c, 1)

    def forward(self, x):
        y = F.relu6(self.expand(x))
        y = F.relu6(self.dw(y))
        return x + self.project(y)


class SmallResnet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(1, 24, 3, 2)
        self.b1, self.b2 = Block(24), Block(24)
        self.down = conv_bn(24, 48, 3, 2)
        self.b3 = Block(48)
        self.fc = nn.Linear(48, 10)

    def forward(self, x):
        x = F.relu6(self.stem(x))
        x = self.b2(self.b1(x))
        x = self.b3(F.relu6(self.down(x)))
        return self.fc(x.mean(dim=(2, 3)))


class MobileSe(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 16, 3, 2, 1)
        self.bn0 = nn.BatchNorm2d(16)  # after the activation: stays a BatchNormalization node
        self.dw = nn.Conv2d(16, 16, 3, 1, 1, groups=16)
        self.se1, self.se2 = nn.Conv2d(16, 8, 1), nn.Conv2d(8, 16, 1)
        self.pw = nn.Conv2d(16, 32, 1)
        self.down = nn.Conv2d(32, 64, 3, 2, 1, groups=4)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.bn0(F.hardswish(self.stem(x)))
        y = F.hardswish(self.dw(x))
        y = y * torch.sigmoid(self.se2(F.relu(self.se1(y.mean(dim=(2, 3), keepdim=True)))))
        x = F.hardswish(self.pw(x + y))
        x = F.hardswish(self.down(x))
        return self.fc(x.mean(dim=(2, 3)))


class GeluMixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 32, 3, 2, 1)
        self.c2 = nn.Conv2d(32, 64, 3, 2, 1, groups=4)
        self.c3 = nn.Conv2d(64, 64, 1, groups=8)
        self.w = nn.Parameter(torch.randn(64, 10) * 0.1)

    def forward(self, x):
        x = F.gelu(self.c1(x))
        x = F.gelu(self.c2(x))
        x = F.gelu(self.c3(x)) + x
        return x.mean(dim=(2, 3)) @ self.w


class SigmoidVgg(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(1, 16, 3, 1, 1), nn.Conv2d(16, 32, 3, 1, 1)
        self.c3 = nn.Conv2d(32, 32, 3, 1, 1)
        self.fc1, self.fc2 = nn.Linear(32 * 7 * 7, 64), nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.sigmoid(self.c1(x)), 2)
        x = F.max_pool2d(torch.sigmoid(self.c2(x)), 2)
        x = torch.sigmoid(self.c3(x))
        return self.fc2(torch.sigmoid(self.fc1(torch.flatten(x, 1))))


class LeakyBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.bn1 = nn.Conv2d(1, 32, 3, 2, 1), nn.BatchNorm2d(32)
        self.c2, self.bn2 = nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.bn1(F.leaky_relu(self.c1(x), 0.1))
        x = self.bn2(F.leaky_relu(self.c2(x), 0.1))
        return self.fc(x.amax(dim=(2, 3)))


class Attention(nn.Module):
    def __init__(self, d=48):
        super().__init__()
        self.patch = nn.Conv2d(1, d, 4, 4)
        self.pos = nn.Parameter(torch.randn(1, 49, d) * 0.02)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp1, self.mlp2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.fc = nn.Linear(d, 10)
        self.d = d

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2) + self.pos
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        a = torch.softmax(q @ k.transpose(1, 2) / self.d ** 0.5, dim=-1)
        x = x + self.proj(a @ v)
        x = x + self.mlp2(F.relu(self.mlp1(self.ln2(x))))
        return self.fc(x.mean(dim=1))


class UnetSeg(nn.Module):
    def __init__(self):
        super().__init__()
        self.e1, self.e2 = nn.Conv2d(1, 16, 3, 1, 1), nn.Conv2d(16, 32, 3, 2, 1)
        self.e3 = nn.Conv2d(32, 64, 3, 2, 1)
        self.u1 = nn.ConvTranspose2d(64, 32, 2, 2)
        self.u2 = nn.ConvTranspose2d(64, 16, 2, 2)
        self.out = nn.Conv2d(32, 11, 1)

    def forward(self, x):
        a = F.relu(self.e1(x))
        b = F.relu(self.e2(a))
        c = F.relu(self.e3(b))
        u = F.relu(self.u1(c))
        u = F.relu(self.u2(torch.cat([u, b], 1)))
        return self.out(torch.cat([u, a], 1))


class FcnMask(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(1, 16, 3, 2, 1), nn.Conv2d(16, 32, 3, 2, 1)
        self.c3 = nn.Conv2d(32, 1, 1)

    def forward(self, x):
        x = F.relu(self.c2(F.relu(self.c1(x))))
        return F.interpolate(self.c3(x), scale_factor=4, mode="bilinear", align_corners=False)


class VitBlock(nn.Module):
    """Pre-LN transformer block: x + attn(ln(x)), then x + mlp(ln(x)), GELU (erf)."""

    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp1, self.mlp2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.heads = heads

    def forward(self, x):
        n, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).reshape(n, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, dim=-1)
        x = x + self.proj((a @ v).transpose(1, 2).reshape(n, t, d))
        return x + self.mlp2(F.gelu(self.mlp1(self.ln2(x))))


class VitTiny(nn.Module):
    """A ViT for 28x28: 4x4 patches (49 tokens and a class token), width 64, 4 blocks of 4 heads."""

    def __init__(self, d=64, depth=4, heads=4):
        super().__init__()
        self.patch = nn.Conv2d(1, d, 4, 4)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, 50, d) * 0.02)
        self.blocks = nn.Sequential(*[VitBlock(d, heads) for _ in range(depth)])
        self.ln = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 10)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.fc(self.ln(self.blocks(x))[:, 0])


# name: (module, opset, normalised with mean/std, task)
MODELS = {
    "deconv_head": (DeconvHead, 13, False, "classes"),
    "mlp": (Mlp, 13, False, "classes"),
    "small_resnet": (SmallResnet, 13, True, "classes"),
    "mobile_se": (MobileSe, 17, True, "classes"),
    "gelu_mixer": (GeluMixer, 17, False, "classes"),
    "sigmoid_vgg": (SigmoidVgg, 11, False, "classes"),
    "leaky_bn": (LeakyBn, 11, True, "classes"),
    "attention": (Attention, 17, True, "classes"),
    "unet_seg": (UnetSeg, 11, False, "pixel-classes"),
    "fcn_mask": (FcnMask, 13, True, "foreground"),
    "vit_tiny": (VitTiny, 17, True, "classes"),
}


class Normalise(nn.Module):
    """Training sees what the exported model sees: pixel / 255, then (x - mean) / std if asked."""

    def __init__(self, net, normalised):
        super().__init__()
        self.net, self.normalised = net, normalised

    def forward(self, x):
        return self.net((x - MEAN) / STD if self.normalised else x)


def train(name, x, y, masks):
    make, opset, normalised, task = MODELS[name]
    torch.manual_seed(0)
    net = make()
    model = Normalise(net, normalised)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    steps = EPOCHS * ((len(x) + BATCH - 1) // BATCH)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    target = {"classes": y, "pixel-classes": masks[0], "foreground": masks[1]}[task]
    for _ in range(EPOCHS):
        perm = torch.randperm(len(x))
        for i in range(0, len(x), BATCH):
            idx = perm[i:i + BATCH]
            out = model(x[idx])
            if task == "foreground":
                loss = F.binary_cross_entropy_with_logits(out[:, 0], target[idx].float())
            else:
                loss = F.cross_entropy(out, target[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
    net.eval()
    return net, opset, normalised, task


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(os.cpu_count() or 1)
    images = {s: read_idx(f"{DATA}/{s}-images-idx3-ubyte.gz") for s in ("train", "t10k")}
    for s, a in images.items():
        part = "train" if s == "train" else "test"
        labels = read_idx(f"{DATA}/{s}-labels-idx1-ubyte.gz")
        write_idx(os.path.join(out, f"masks-{part}-classes.idx"), np.where(a > FOREGROUND, labels[:, None, None] + 1, 0))
        write_idx(os.path.join(out, f"masks-{part}-foreground.idx"), a > FOREGROUND)
    a = images["train"]
    x = torch.from_numpy(a.astype(np.float32) / 255.0).unsqueeze(1)
    y = torch.from_numpy(read_idx(f"{DATA}/train-labels-idx1-ubyte.gz").astype(np.int64))
    masks = (torch.from_numpy(np.where(a > FOREGROUND, y.numpy()[:, None, None] + 1, 0).astype(np.int64)),
             torch.from_numpy((a > FOREGROUND).astype(np.int64)))
    for name in sys.argv[2:] or MODELS:
        net, opset, normalised, task = train(name, x, y, masks)
        legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}  # PyTorch 2.x: the TorchScript exporter, as 1.13's
        torch.onnx.export(net, torch.zeros(1, 1, 28, 28), os.path.join(out, name + ".onnx"), opset_version=opset, **legacy,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
        meta = {"opset": opset, "task": task, "mean": MEAN if normalised else 0.0, "std": STD if normalised else 1.0}
        json.dump(meta, open(os.path.join(out, name + ".json"), "w"))
        print(f"trained {name}", flush=True)


if __name__ == "__main__":
    main()
