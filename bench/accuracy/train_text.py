#!/usr/bin/python3
"""The accuracy suite's text model: a small BERT-style encoder trained here to tell which part of the
Linux manual a sentence comes from, on the pages Debian's `manpages` and `manpages-dev` packages ship:

| class | sections | what the pages are                                |
| ----- | -------- | ------------------------------------------------- |
| 0     | 2        | system calls                                      |
| 1     | 3        | library functions                                 |
| 2     | 4, 5     | special files (devices) and file formats          |
| 3     | 7        | overviews, conventions and miscellany             |

    /usr/bin/python3 bench/accuracy/train_text.py OUT_DIR

Sentences are taken from each page's text (roff requests and escapes stripped), 6 to 60 words long.
Pages, not sentences, are split between training (80 %) and test (20 %), so no page is seen twice.
Each class keeps at most 4,000 training sentences; the test set is 4,000 sentences drawn from the
test pages at random (their classes as they come). Tokens are lower-case words, numbers and single
punctuation marks; the vocabulary is every token seen 3 times in the training sentences; ids 0 [PAD],
1 [CLS], 2 [SEP], 3 [UNK]. A sample is [CLS] tokens [SEP], at most 64 ids.

The model (BERT's layout, small): token and position embeddings, LayerNorm, 4 post-LN blocks of width
96 with 4 heads and a GELU (erf) MLP of 192, the additive attention mask (1 - mask) * -10000, a tanh
pooler on [CLS] and a linear classifier; exported at opset 14, so LayerNorm is written out as
ReduceMean/Sub/Pow/Sqrt/Div, with inputs input_ids and attention_mask (int64, [batch, sequence]).

Writes OUT_DIR/text_bert.onnx and:
- OUT_DIR/text/calib/{input_ids,attention_mask}/NNNN.npy: 512 training samples, one file each, at
  their own length (calibrate with --sequence-length 64);
- OUT_DIR/text/test/{input_ids,attention_mask}.npy ([N, 64], padded with zeros) and labels.npy.
"""
import collections
import gzip
import os
import re
import subprocess
import sys
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = {"2": 0, "3": 1, "4": 2, "5": 2, "7": 3}
SEQ = 64
PER_CLASS = 4000
TEST = 4000
EPOCHS = 8
BATCH = 64
PAD, CLS, SEP, UNK = 0, 1, 2, 3
TOKEN = re.compile(r"[a-z_][a-z0-9_]*|[0-9]+|[^\sa-z0-9_]")


def pages():
    """(section, path) of every manual page the two packages ship."""
    listed = subprocess.run(["dpkg", "-L", "manpages", "manpages-dev"], capture_output=True, text=True, check=True).stdout
    for path in sorted(set(listed.split())):
        m = re.search(r"/man/man([0-9])/[^/]+\.gz$", path)
        if m and m.group(1) in CLASSES and os.path.isfile(path):
            yield m.group(1), path


def page_text(path):
    """The running text of a roff page: requests, comments and font escapes removed."""
    lines = []
    for line in gzip.open(path, "rt", errors="replace"):
        if line.startswith((".", "'")) and not line.startswith((".B ", ".I ", ".BR ", ".IR ", ".BI ", ".RB ", ".RI ", ".IB ")):
            continue
        line = re.sub(r"^\.[A-Z]+ ", "", line)
        line = re.sub(r"\\f[BIRP]|\\f\([A-Z]{2}|\\\(..|\\[-e&|^]|\\s[-+]?[0-9]", " ", line)
        lines.append(line.replace('"', " "))
    return " ".join(" ".join(lines).split())


def sentences(text):
    for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text):
        words = s.split()
        if 6 <= len(words) <= 60:
            yield s


def tokens(sentence):
    return TOKEN.findall(sentence.lower())


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.heads = heads

    def forward(self, x, bias):
        n, t, d = x.shape
        q, k, v = self.qkv(x).reshape(n, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5 + bias, dim=-1)
        x = self.ln1(x + self.out((a @ v).transpose(1, 2).reshape(n, t, d)))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class TextBert(nn.Module):
    def __init__(self, vocab, d=96, depth=4, heads=4, classes=4):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(SEQ, d)
        self.ln = nn.LayerNorm(d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(depth)])
        self.pool, self.fc = nn.Linear(d, d), nn.Linear(d, classes)

    def forward(self, input_ids, attention_mask):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.ln(self.tok(input_ids) + self.pos(positions))
        bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for b in self.blocks:
            x = b(x, bias)
        return self.fc(torch.tanh(self.pool(x[:, 0])))


def encode(sentence, vocab):
    ids = [CLS] + [vocab.get(t, UNK) for t in tokens(sentence)][:SEQ - 2] + [SEP]
    return np.array(ids, dtype=np.int64)


def padded(samples):
    ids = np.zeros((len(samples), SEQ), np.int64)
    for i, s in enumerate(samples):
        ids[i, :len(s)] = s
    return ids, (ids != PAD).astype(np.int64)


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train, test = [], []
    for section, path in pages():
        part = test if zlib.crc32(os.path.basename(path).encode()) % 5 == 0 else train
        part += [(s, CLASSES[section]) for s in sentences(page_text(path))]
    by_class = collections.defaultdict(list)
    for s, c in train:
        by_class[c].append(s)
    train = []
    for c, ss in sorted(by_class.items()):
        keep = rng.permutation(len(ss))[:PER_CLASS]
        train += [(ss[i], c) for i in keep]
    test = [test[i] for i in sorted(rng.permutation(len(test))[:TEST])]
    counts = collections.Counter(t for s, _ in train for t in tokens(s))
    vocab = {t: i + 4 for i, t in enumerate(sorted(t for t, n in counts.items() if n >= 3))}
    print(f"{len(train)} training and {len(test)} test sentences, vocabulary {len(vocab) + 4}, classes "
          f"{dict(collections.Counter(c for _, c in train))} / {dict(collections.Counter(c for _, c in test))}", flush=True)

    x_train = [encode(s, vocab) for s, _ in train]
    y_train = torch.tensor([c for _, c in train])
    ids, mask = (torch.from_numpy(a) for a in padded(x_train))
    net = TextBert(len(vocab) + 4)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.01)
    steps = EPOCHS * ((len(train) + BATCH - 1) // BATCH)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=steps, pct_start=0.1)
    for epoch in range(EPOCHS):
        net.train()
        perm = torch.randperm(len(train))
        for i in range(0, len(train), BATCH):
            idx = perm[i:i + BATCH]
            loss = F.cross_entropy(net(ids[idx], mask[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}", flush=True)
    net.eval()

    os.makedirs(os.path.join(out, "text", "test"), exist_ok=True)
    test_ids, test_mask = padded([encode(s, vocab) for s, _ in test])
    np.save(os.path.join(out, "text", "test", "input_ids.npy"), test_ids)
    np.save(os.path.join(out, "text", "test", "attention_mask.npy"), test_mask)
    np.save(os.path.join(out, "text", "test", "labels.npy"), np.array([c for _, c in test], np.int64))
    with torch.no_grad():
        top1 = (net(torch.from_numpy(test_ids), torch.from_numpy(test_mask)).argmax(1).numpy() == np.array([c for _, c in test])).mean()
    print(f"test top-1 (PyTorch): {100 * top1:.2f} %", flush=True)
    for name in ("input_ids", "attention_mask"):
        os.makedirs(os.path.join(out, "text", "calib", name), exist_ok=True)
    for i, k in enumerate(rng.permutation(len(x_train))[:512]):
        np.save(os.path.join(out, "text", "calib", "input_ids", f"{i:04d}.npy"), x_train[k])
        np.save(os.path.join(out, "text", "calib", "attention_mask", f"{i:04d}.npy"), np.ones_like(x_train[k]))
    torch.onnx.export(net, (torch.from_numpy(test_ids[:2]), torch.from_numpy(test_mask[:2])), os.path.join(out, "text_bert.onnx"),
                      opset_version=14, input_names=["input_ids", "attention_mask"], output_names=["logits"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
                                    "logits": {0: "batch"}})
    print("trained text_bert", flush=True)


if __name__ == "__main__":
    main()
