#!/usr/bin/python3
"""The test-model factory: small ONNX models that exercise what q8 must get right.

    /usr/bin/python3 tests/models/factory.py OUT_DIR [NAME ...]

Writes OUT_DIR/<name>.onnx for every model (or the named ones). Models built with onnx.helper
pin exact attributes (groups, C_in != C_out, transB, Constant-node parameters); models exported
by torch (python3-torch) carry the shape subgraphs, opset forms and dynamic batch of real exports.
Deterministic: weights come from fixed seeds.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13


def rng(seed):
    return np.random.default_rng(seed)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def model(nodes, inputs, outputs, inits, opset=OPSET, name="factory"):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="q8-factory")
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def vi(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def convtranspose_64to10():
    """Deconvolution with C_in=64 != C_out=10: the TensorRT #1519 case."""
    r = rng(1)
    w = r.standard_normal((64, 10, 3, 3)).astype(np.float32) * 0.1
    b = r.standard_normal(10).astype(np.float32)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="deconv", strides=[2, 2], pads=[1, 1, 1, 1],
                            output_padding=[1, 1])
    return model([node], [vi("x", ["N", 64, 5, 5])], [vi("y", ["N", 10, 10, 10])], [init("w", w), init("b", b)])


def convtranspose_groups():
    """Grouped deconvolution: W [C_in=8, C_out/g=3, k], g=2, so C_out=6; asymmetric pads, dilation."""
    r = rng(2)
    w = r.standard_normal((8, 3, 3, 2)).astype(np.float32) * 0.2
    b = r.standard_normal(6).astype(np.float32)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="deconv_g2", group=2, strides=[2, 3],
                            pads=[0, 1, 1, 0], dilations=[1, 2])
    return model([node], [vi("x", ["N", 8, 6, 7])], [vi("y", ["N", 6, 12, 20])], [init("w", w), init("b", b)])


def conv_groups():
    """Grouped, depthwise and dilated convolutions with SAME_UPPER and explicit pads."""
    r = rng(3)
    w1 = r.standard_normal((12, 2, 3, 3)).astype(np.float32) * 0.2  # 6 -> 12, group 3
    w2 = r.standard_normal((12, 1, 3, 3)).astype(np.float32) * 0.2  # depthwise
    b2 = r.standard_normal(12).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], name="grouped", group=3, auto_pad="SAME_UPPER", strides=[2, 2]),
        helper.make_node("Conv", ["a", "w2", "b2"], ["y"], name="depthwise", group=12, pads=[2, 1, 2, 1],
                         dilations=[2, 1]),
    ]
    return model(nodes, [vi("x", ["N", 6, 13, 11])], [vi("y", ["N", 12, 7, 6])], [init("w1", w1), init("w2", w2), init("b2", b2)])


def gemm(trans_b):
    r = rng(4 + trans_b)
    w = r.standard_normal((10, 32) if trans_b else (32, 10)).astype(np.float32) * 0.2
    c = r.standard_normal(10).astype(np.float32)
    node = helper.make_node("Gemm", ["x", "w", "c"], ["y"], name="fc", transB=trans_b, alpha=0.5, beta=2.0)
    return model([node], [vi("x", ["N", 32])], [vi("y", ["N", 10])], [init("w", w), init("c", c)])


def matmul_kn():
    """MatMul with a constant [K, N] weight over a batched activation, plus a bias Add."""
    r = rng(6)
    w = r.standard_normal((16, 8)).astype(np.float32) * 0.3
    b = r.standard_normal(8).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"], name="matmul"),
             helper.make_node("Add", ["m", "b"], ["y"], name="bias")]
    return model(nodes, [vi("x", ["N", 3, 16])], [vi("y", ["N", 3, 8])], [init("w", w), init("b", b)])


def conv_bn(constant_params):
    """Conv -> BatchNormalization -> Relu, BN parameters as initializers or as Constant nodes."""
    r = rng(7)
    w = r.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3
    params = {"scale": r.uniform(0.5, 1.5, 8), "bias": r.standard_normal(8), "mean": r.standard_normal(8) * 0.1,
              "var": r.uniform(0.5, 2.0, 8)}
    params = {k: v.astype(np.float32) for k, v in params.items()}
    nodes, inits = [], [init("w", w)]
    for k, v in params.items():
        if constant_params:
            nodes.append(helper.make_node("Constant", [], [k], name="const_" + k, value=init(k + "_value", v)))
        else:
            inits.append(init(k, v))
    nodes += [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
              helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["bn"], name="bn",
                               epsilon=1e-3),
              helper.make_node("Relu", ["bn"], ["y"], name="relu")]
    return model(nodes, [vi("x", ["N", 3, 9, 9])], [vi("y", ["N", 8, 9, 9])], inits)


def broadcasting(batch):
    """Elementwise ops broadcasting per-channel, per-column and scalar operands."""
    r = rng(8)
    ch = r.standard_normal((4, 1, 1)).astype(np.float32)
    col = r.standard_normal(5).astype(np.float32)
    row = r.uniform(0.5, 2.0, (1, 4, 5, 1)).astype(np.float32)
    nodes = [helper.make_node("Add", ["x", "ch"], ["a"], name="add_channel"),
             helper.make_node("Mul", ["a", "col"], ["b"], name="mul_column"),
             helper.make_node("Div", ["b", "row"], ["c"], name="div_row"),
             helper.make_node("Greater", ["c", "col"], ["g"], name="greater"),
             helper.make_node("Where", ["g", "c", "ch"], ["d"], name="where"),
             helper.make_node("PRelu", ["d", "ch"], ["e"], name="prelu"),
             helper.make_node("Max", ["e", "col", "ch"], ["y"], name="max3")]
    shape = [batch if batch else "N", 4, 5, 5]
    return model(nodes, [vi("x", shape)], [vi("y", shape)], [init("ch", ch), init("col", col), init("row", row)])


def attention():
    """One self-attention layer of two heads as exporters write it: Q, K and V MatMuls with bias Adds,
    Reshape [0, 0, heads, d] and Transpose to heads, MatMul(Q, Kᵀ) / √d, Softmax, MatMul with V, and
    back; the sequence length is dynamic."""
    r = rng(12)
    d_model, heads = 16, 2
    d = d_model // heads
    inits = [init("split", np.array([0, 0, heads, d], np.int64)), init("merge", np.array([0, 0, d_model], np.int64)),
             init("sqrt_d", np.array(np.sqrt(d), np.float32))]
    nodes = []
    for name in ("q", "k", "v", "o"):
        inits += [init(f"w_{name}", (r.standard_normal((d_model, d_model)) * 0.3).astype(np.float32)),
                  init(f"b_{name}", (r.standard_normal(d_model) * 0.1).astype(np.float32))]
    for name, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [helper.make_node("MatMul", ["x", f"w_{name}"], [f"{name}_mm"], name=f"{name}_proj"),
                  helper.make_node("Add", [f"{name}_mm", f"b_{name}"], [f"{name}_b"], name=f"{name}_bias"),
                  helper.make_node("Reshape", [f"{name}_b", "split"], [f"{name}_split"], name=f"{name}_split"),
                  helper.make_node("Transpose", [f"{name}_split"], [f"{name}_heads"], name=f"{name}_heads", perm=perm)]
    nodes += [helper.make_node("MatMul", ["q_heads", "k_heads"], ["scores"], name="scores"),
              helper.make_node("Div", ["scores", "sqrt_d"], ["scaled"], name="scale"),
              helper.make_node("Softmax", ["scaled"], ["probs"], name="softmax", axis=-1),
              helper.make_node("MatMul", ["probs", "v_heads"], ["context"], name="context"),
              helper.make_node("Transpose", ["context"], ["context_t"], name="context_t", perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["context_t", "merge"], ["merged"], name="merge"),
              helper.make_node("MatMul", ["merged", "w_o"], ["o_mm"], name="o_proj"),
              helper.make_node("Add", ["o_mm", "b_o"], ["y"], name="o_bias")]
    return model(nodes, [vi("x", ["N", "S", d_model])], [vi("y", ["N", "S", d_model])], inits)


def _torch_models():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class ShapeSubgraph(nn.Module):
        """Conv, Upsample/Resize, Pad, Clip (ReLU6), Flatten via Shape->Gather->Concat->Reshape, Softmax."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.up = nn.ConvTranspose2d(8, 4, 2, stride=2, groups=2)
            self.fc = nn.Linear(4 * 8 * 8, 10)

        def forward(self, x):
            x = F.relu6(self.bn(self.conv(x)))                     # 8x4x4 (input 8x8)
            x = F.interpolate(x, scale_factor=2.0, mode="nearest")  # 8x8x8
            x = self.up(x)[:, :, 4:12, 4:12]                        # 4x8x8 with Slice
            x = F.pad(x, (1, 0, 0, 1), mode="reflect")[:, :, 1:, :-1]
            x = torch.sigmoid(x) * x + x.mean(dim=(2, 3), keepdim=True)
            x = x.view(x.size(0), -1)                               # Shape -> Gather -> Concat -> Reshape
            return F.softmax(self.fc(x), dim=1)

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = nn.BatchNorm2d(cout)
            self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = F.relu(self.b1(self.c1(x)))
            y = self.b2(self.c2(y))
            return F.relu(y + (self.down(x) if self.down is not None else x))

    class ResNet18(nn.Module):
        """The ResNet-18 layout (torchvision's), random weights."""

        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            layers, cin = [], 64
            for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
                layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
                cin = cout
            self.layers = nn.Sequential(*layers)
            self.fc = nn.Linear(512, 1000)

        def forward(self, x):
            x = self.layers(self.stem(x))
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            cout = width * 4
            self.c1, self.b1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
            self.c2, self.b2 = nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width)
            self.c3, self.b3 = nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = F.relu(self.b1(self.c1(x)))
            y = F.relu(self.b2(self.c2(y)))
            y = self.b3(self.c3(y))
            return F.relu(y + (self.down(x) if self.down is not None else x))

    class ResNet50(nn.Module):
        """The ResNet-50 layout (torchvision's: bottlenecks 3, 4, 6, 3, stride on the 3×3), random weights."""

        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            layers, cin = [], 64
            for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
                for b in range(blocks):
                    layers.append(Bottleneck(cin, width, stride if b == 0 else 1))
                    cin = width * 4
            self.layers = nn.Sequential(*layers)
            self.fc = nn.Linear(2048, 1000)

        def forward(self, x):
            x = self.layers(self.stem(x))
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    class InvertedResidual(nn.Module):
        def __init__(self, cin, cout, stride, expand):
            super().__init__()
            hidden = cin * expand
            layers = []
            if expand != 1:
                layers += [nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6()]
            layers += [nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
                       nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
            self.body = nn.Sequential(*layers)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            return x + self.body(x) if self.residual else self.body(x)

    class MobileNetV2(nn.Module):
        """The MobileNetV2 layout (torchvision's: inverted residuals, depthwise 3×3, ReLU6), random weights."""

        def __init__(self):
            super().__init__()
            layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6()]
            cin = 32
            for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
                for i in range(n):
                    layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                    cin = c
            layers += [nn.Conv2d(cin, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU6()]
            self.features = nn.Sequential(*layers)
            self.classifier = nn.Linear(1280, 1000)

        def forward(self, x):
            return self.classifier(torch.flatten(F.adaptive_avg_pool2d(self.features(x), 1), 1))

    def export(module, example, opset, path, spatial=False, coarse=False):
        torch.manual_seed(0)
        module.eval()
        if coarse:  # weights on 15 levels of each tensor's range: the file (and its plan) compress, the speed is the same
            with torch.no_grad():
                for prm in module.parameters():
                    step = prm.abs().max() / 7
                    if step > 0:
                        prm.copy_(torch.round(prm / step) * step)
        with torch.no_grad():  # give BN non-trivial statistics
            for m in module.modules():
                if isinstance(m, nn.BatchNorm2d) and m.affine:
                    m.running_mean.uniform_(-0.1, 0.1)
                    m.running_var.uniform_(0.5, 1.5)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.1, 0.1)
        torch.onnx.export(module, example, path, opset_version=opset, input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch", 2: "height", 3: "width"} if spatial else {0: "batch"},
                                        "output": {0: "batch", 2: "height", 3: "width"} if spatial else {0: "batch"}},
                          training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=True)

    class Detector640(nn.Module):
        """A 640x640 encoder-decoder: strided convs down, ConvTranspose up (a detection-style neck)."""

        def __init__(self):
            super().__init__()
            self.down = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
                                      nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.Conv2d(64, 128, 3, 2, 1), nn.BatchNorm2d(128), nn.ReLU(),
                                      nn.Conv2d(128, 256, 3, 2, 1), nn.ReLU())
            self.up1 = nn.ConvTranspose2d(256, 128, 2, stride=2)
            self.up2 = nn.ConvTranspose2d(128, 64, 4, stride=2, padding=1, groups=2)
            self.head = nn.Conv2d(64, 8, 1)

        def forward(self, x):
            return self.head(F.relu(self.up2(F.relu(self.up1(self.down(x))))))

    class MobileDetector(nn.Module):
        """A text-detector-shaped network (PaddleOCR det style): depthwise separable blocks with
        HardSwish, ReLU6 and ReLU, MaxPool and AveragePool, an FPN neck with nearest and bilinear
        Resize and a Concat skip, a head of two ConvTranspose and a Sigmoid probability map.
        Exported at opset 11 with dynamic batch, height and width."""

        def __init__(self):
            super().__init__()

            def dw_block(cin, cout, stride, act):
                return nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
                                     nn.Hardswish(), nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), act)

            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
            self.c1 = dw_block(16, 24, 1, nn.ReLU())                        # 1/2
            self.c2 = nn.Sequential(nn.MaxPool2d(2), dw_block(24, 32, 1, nn.ReLU6()))  # 1/4
            self.c3 = dw_block(32, 64, 2, nn.Hardswish())                   # 1/8
            self.c4 = nn.Sequential(dw_block(64, 96, 2, nn.ReLU()), nn.AvgPool2d(3, 1, 1))  # 1/16
            self.lat4, self.lat3, self.lat2 = nn.Conv2d(96, 32, 1), nn.Conv2d(64, 32, 1), nn.Conv2d(32, 32, 1)
            self.grouped = nn.Conv2d(64, 32, 3, padding=2, dilation=2, groups=4)
            self.head = nn.Sequential(nn.Conv2d(32, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                      nn.ConvTranspose2d(16, 16, 2, 2), nn.BatchNorm2d(16), nn.ReLU(),
                                      nn.ConvTranspose2d(16, 1, 2, 2))

        def forward(self, x):
            f1 = self.c1(self.stem(x))
            f2 = self.c2(f1)
            f3 = self.c3(f2)
            f4 = self.c4(f3)
            p3 = self.lat3(f3) + F.interpolate(self.lat4(f4), scale_factor=2.0, mode="nearest")
            p2 = self.lat2(f2) + F.interpolate(p3, scale_factor=2.0, mode="bilinear", align_corners=False)
            fused = self.grouped(torch.cat([p2, F.interpolate(p3, size=p2.shape[2:], mode="nearest")], dim=1))
            return torch.sigmoid(self.head(fused))

    class ConvBnAffineFalse(nn.Module):
        """BatchNorm2d(affine=False): exported with constant scale 1 and bias 0."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 6, 3, padding=1)
            self.bn = nn.BatchNorm2d(6, affine=False)

        def forward(self, x):
            return F.relu(self.bn(self.conv(x)))

    torch.manual_seed(0)
    shape = ShapeSubgraph()
    torch.manual_seed(1)
    resnet = ResNet18()
    makers = {}
    for opset in (9, 11, 13, 17):
        makers[f"torch_shape_subgraph_opset{opset}"] = (lambda p, o=opset: export(shape, torch.zeros(1, 3, 8, 8), o, p))
    makers["resnet18"] = lambda p: export(resnet, torch.zeros(1, 3, 224, 224), 13, p)
    makers["resnet50"] = lambda p: export(ResNet50(), torch.zeros(1, 3, 224, 224), 13, p, coarse=True)
    makers["mobilenetv2"] = lambda p: export(MobileNetV2(), torch.zeros(1, 3, 224, 224), 13, p, coarse=True)
    torch.manual_seed(3)
    affine_false = ConvBnAffineFalse()
    with torch.no_grad():
        affine_false.bn.running_mean.uniform_(-0.2, 0.2)
        affine_false.bn.running_var.uniform_(0.5, 1.5)
    makers["conv_bn_affine_false"] = lambda p: export(affine_false, torch.zeros(1, 3, 8, 8), 13, p)
    torch.manual_seed(2)
    detector = Detector640()
    makers["detector640"] = lambda p: export(detector, torch.zeros(1, 3, 640, 640), 13, p)
    torch.manual_seed(4)
    mobile = MobileDetector()
    makers["mobile_detector"] = lambda p: export(mobile, torch.zeros(1, 3, 640, 640), 11, p, spatial=True)
    makers["mobile_detector_opset17"] = lambda p: export(mobile, torch.zeros(1, 3, 640, 640), 17, p, spatial=True)
    return makers


HELPER_MODELS = {
    "convtranspose_64to10": convtranspose_64to10,
    "convtranspose_groups": convtranspose_groups,
    "conv_groups": conv_groups,
    "gemm_transb0": lambda: gemm(0),
    "gemm_transb1": lambda: gemm(1),
    "matmul_kn": matmul_kn,
    "conv_bn_initializers": lambda: conv_bn(False),
    "conv_bn_constants": lambda: conv_bn(True),
    "broadcast_static_batch1": lambda: broadcasting(1),
    "broadcast_dynamic_batch": lambda: broadcasting(None),
    "attention": attention,
}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    wanted = set(sys.argv[2:])
    os.makedirs(out, exist_ok=True)
    for name, make in HELPER_MODELS.items():
        if not wanted or name in wanted:
            onnx.save(make(), os.path.join(out, name + ".onnx"))
    torch_names = [n for n in ["torch_shape_subgraph_opset9", "torch_shape_subgraph_opset11",
                               "torch_shape_subgraph_opset13", "torch_shape_subgraph_opset17", "resnet18", "detector640", "conv_bn_affine_false",
                               "mobile_detector", "mobile_detector_opset17"]
                   if not wanted or n in wanted]
    # Only on request: large, and used by the device benchmarks alone.
    torch_names += [n for n in ["resnet50", "mobilenetv2"] if n in wanted]
    if torch_names:
        makers = _torch_models()
        for name in torch_names:
            makers[name](os.path.join(out, name + ".onnx"))
    print(f"factory: wrote {len(os.listdir(out))} models to {out}")


if __name__ == "__main__":
    main()
