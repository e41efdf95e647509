#!/usr/bin/env python3
"""BERT-base and ViT-B/16 on the GPU host: exported by that host's PyTorch 2.x (TorchScript
exporter, opset 17, dynamic batch; random weights, since nothing is fetched from a hub), and timed
there in PyTorch FP32, FP16 and torch.compile FP16: the peers of q8's INT8 engine through OpenCL.

    transformers_device.py export OUT_DIR        OUT_DIR/{bert,vit}.onnx and OUT_DIR/{bert,vit}/*.npy (16 samples)
    transformers_device.py peers --json FILE     ms per batch at batch 1 and 64 (TF32 off)
"""
import argparse
import json
import os

import numpy as np
import torch

from torch_peers import timeit  # the same timing as the CNN peers: seconds per call

SEQ = 128


class Bert(torch.nn.Module):
    """BertModel (bert-base: 12 layers, hidden 768, 12 heads) called by keyword, its last hidden state."""

    def __init__(self):
        super().__init__()
        from transformers import BertConfig, BertModel
        self.bert = BertModel(BertConfig())

    def forward(self, input_ids, attention_mask):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def bert():
    torch.manual_seed(0)
    return Bert().eval()


def vit():
    import torchvision
    torch.manual_seed(0)
    return torchvision.models.vit_b_16(weights=None).eval()


def bert_inputs(batch, rng):
    ids = rng.integers(1000, 30000, size=(batch, SEQ)).astype(np.int64)
    mask = np.ones((batch, SEQ), np.int64)
    mask[:, SEQ * 3 // 4:] = 0  # a padded tail
    return {"input_ids": ids, "attention_mask": mask}


def vit_inputs(batch, rng):
    return {"pixel_values": rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)}


MODELS = {"bert": (bert, bert_inputs), "vit": (vit, vit_inputs)}


def export(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    for name, (make, inputs) in MODELS.items():
        m, x = make(), inputs(16, rng)
        args = tuple(torch.from_numpy(v[:1]) for v in x.values())
        path = os.path.join(out, name + ".onnx")
        # With grad enabled, nn.MultiheadAttention (torchvision's ViT) takes its exportable path, not the fused one.
        with torch.enable_grad():
            torch.onnx.export(m, args, path, input_names=list(x), output_names=["output"], opset_version=17, dynamo=False,
                              dynamic_axes={**{n: {0: "batch"} for n in x}, "output": {0: "batch"}})
        os.makedirs(os.path.join(out, name), exist_ok=True)
        for n, v in x.items():
            np.save(os.path.join(out, name, n + ".npy"), v)
        print(f"exported {path} ({os.path.getsize(path) / 1e6:.0f} MB)", flush=True)


def peers(json_path):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rng = np.random.default_rng(0)
    rows = []
    for name, (make, inputs) in MODELS.items():
        base = make().cuda()
        for batch in (1, 64):
            x = [torch.from_numpy(v).cuda() for v in inputs(batch, rng).values()]
            for form in ("fp32", "fp16", "compile-fp16"):
                m = base if form == "fp32" else make().cuda().half()
                if form == "compile-fp16":
                    m = torch.compile(m)
                args = [t.half() if t.is_floating_point() and form != "fp32" else t for t in x]
                with torch.no_grad():
                    for _ in range(3):
                        m(*args)
                    ms = timeit(lambda: m(*args), 20 if batch == 1 else 10) * 1e3
                rows.append({"model": name, "batch": batch, "form": form, "ms": ms})
                print(f"torch {name} b{batch} {form}: {ms:.3f} ms", flush=True)
    if json_path:
        json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "rows": rows}, open(json_path, "w"), indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("export", "peers"))
    ap.add_argument("out", nargs="?")
    ap.add_argument("--json")
    a = ap.parse_args()
    export(a.out) if a.what == "export" else peers(a.json)


if __name__ == "__main__":
    main()
