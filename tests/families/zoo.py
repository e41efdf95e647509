#!/usr/bin/python3
"""Small models of the families people quantize today, exported by Debian's torch 1.13.

    /usr/bin/python3 tests/families/zoo.py OUT_DIR [FAMILY ...]
    Q8_ZOO_EXPORTER=torchscript|dynamo python3 tests/families/zoo.py OUT_DIR ...   (torch 2.x)

Writes OUT_DIR/<family>.onnx and OUT_DIR/<family>/ (one .npy per model input: a calibration and
test batch). Vision families come from torchvision with small configurations; the text and speech
families are written here the way Hugging Face `transformers` writes them (its embeddings, masks,
attention, GELU forms and position ids), since Debian ships no `transformers`: the ONNX patterns
they export (Range, CumSum, Trilu, Where, Equal, Expand, GatherElements, ArgMax…) are the point.
NAME_fp16 is NAME published in float16 (float16 inside, float32 inputs and outputs).
Deterministic: weights and inputs come from fixed seeds.
"""
import math
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from float_types import retype_floats  # noqa: E402

# Q8_ZOO_SIZE=base: the text families at BERT-base's size (a 30522-token vocabulary, 128 tokens,
# hidden 768, 12 heads, 12 layers) for the CPU benchmarks (bench/prepare_int8_models.sh); the
# tests use the small default.
VOCAB, SEQ, HIDDEN, HEADS, LAYERS = (30522, 128, 768, 12, 12) if os.environ.get("Q8_ZOO_SIZE") == "base" else (96, 16, 32, 4, 2)
POSITIONS = max(64, SEQ)  # learned position embeddings


# ---------------------------------------------------------------- text: Hugging Face's patterns

class SelfAttention(nn.Module):
    """BertSelfAttention: Linear Q, K, V; transpose_for_scores; scores/√d + additive mask; softmax; ·V."""

    def __init__(self, hidden=HIDDEN, heads=HEADS, bias=True):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden, bias=bias) for _ in range(3))
        self.out = nn.Linear(hidden, hidden, bias=bias)

    def split(self, x):
        b, s, _ = x.size()
        return x.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, additive_mask=None, scale=True):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2))
        if scale:
            scores = scores / math.sqrt(self.head_dim)
        if additive_mask is not None:
            scores = scores + additive_mask
        probs = F.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return self.out(ctx.view(ctx.size(0), ctx.size(1), -1))


class PostLnLayer(nn.Module):
    """BertLayer: attention → residual → LayerNorm → Linear → GELU(erf) → Linear → residual → LayerNorm."""

    def __init__(self):
        super().__init__()
        self.attn = SelfAttention()
        self.ln1, self.ln2 = nn.LayerNorm(HIDDEN, eps=1e-12), nn.LayerNorm(HIDDEN, eps=1e-12)
        self.fc1, self.fc2 = nn.Linear(HIDDEN, 4 * HIDDEN), nn.Linear(4 * HIDDEN, HIDDEN)

    def forward(self, x, mask):
        x = self.ln1(x + self.attn(x, mask))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class Bert(nn.Module):
    """BertForSequenceClassification: word + position (a sliced arange buffer) + token-type embeddings,
    the extended mask (1 − mask) · finfo.min, post-LN layers, a tanh pooler on the first token."""

    def __init__(self, classes=4):
        super().__init__()
        self.words, self.positions = nn.Embedding(VOCAB, HIDDEN), nn.Embedding(POSITIONS, HIDDEN)
        self.types = nn.Embedding(2, HIDDEN)
        self.register_buffer("position_ids", torch.arange(POSITIONS).expand((1, -1)))
        self.ln = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.layers = nn.ModuleList(PostLnLayer() for _ in range(LAYERS))
        self.pooler, self.classifier = nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, classes)

    def forward(self, input_ids, attention_mask, token_type_ids):
        seq = input_ids.size(1)
        x = self.words(input_ids) + self.positions(self.position_ids[:, :seq]) + self.types(token_type_ids)
        x = self.ln(x)
        mask = attention_mask[:, None, None, :].to(torch.float32)
        mask = (1.0 - mask) * torch.finfo(torch.float32).min
        for layer in self.layers:
            x = layer(x, mask)
        return self.classifier(torch.tanh(self.pooler(x[:, 0])))


class DistilBert(nn.Module):
    """DistilBertModel: positions from arange, masking by (mask == 0).view().expand_as(scores) and masked_fill."""

    def __init__(self):
        super().__init__()
        self.words, self.positions = nn.Embedding(VOCAB, HIDDEN), nn.Embedding(POSITIONS, HIDDEN)
        self.ln = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.attn = nn.ModuleList(SelfAttention() for _ in range(LAYERS))
        self.ffn = nn.ModuleList(nn.Sequential(nn.Linear(HIDDEN, 4 * HIDDEN), nn.GELU(), nn.Linear(4 * HIDDEN, HIDDEN)) for _ in range(LAYERS))
        self.ln_a = nn.ModuleList(nn.LayerNorm(HIDDEN, eps=1e-12) for _ in range(LAYERS))
        self.ln_f = nn.ModuleList(nn.LayerNorm(HIDDEN, eps=1e-12) for _ in range(LAYERS))

    def forward(self, input_ids, attention_mask):
        b, seq = input_ids.size()
        positions = torch.arange(seq, dtype=torch.long, device=input_ids.device).unsqueeze(0).expand_as(input_ids)
        x = self.ln(self.words(input_ids) + self.positions(positions))
        for attn, ffn, ln_a, ln_f in zip(self.attn, self.ffn, self.ln_a, self.ln_f):
            q, k, v = attn.split(attn.query(x)), attn.split(attn.key(x)), attn.split(attn.value(x))
            q = q / math.sqrt(attn.head_dim)
            scores = torch.matmul(q, k.transpose(2, 3))
            masked = (attention_mask == 0).view(b, 1, 1, seq).expand_as(scores)
            scores = scores.masked_fill(masked, torch.tensor(torch.finfo(scores.dtype).min))
            ctx = torch.matmul(F.softmax(scores, dim=-1), v).transpose(1, 2).contiguous().view(b, seq, HIDDEN)
            x = ln_a(x + attn.out(ctx))
            x = ln_f(x + ffn(x))
        return x


class Roberta(Bert):
    """RobertaModel: position ids from the input ids (cumsum of the non-padding mask, offset by padding_idx)."""
    PAD = 1

    def forward(self, input_ids, attention_mask):
        keep = input_ids.ne(self.PAD).int()
        position_ids = (torch.cumsum(keep, dim=1).type_as(keep) * keep).long() + self.PAD
        x = self.ln(self.words(input_ids) + self.positions(position_ids) + self.types(torch.zeros_like(input_ids)))
        mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
        for layer in self.layers:
            x = layer(x, mask)
        return x


class Conv1D(nn.Module):
    """GPT-2's Conv1D: addmm(bias, x.view(-1, nx), weight), weight [nx, nf]."""

    def __init__(self, nf, nx):
        super().__init__()
        self.weight, self.bias = nn.Parameter(torch.randn(nx, nf) * 0.02), nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        out = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return out.view(x.size()[:-1] + (self.weight.size(1),))


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Gpt2(nn.Module):
    """GPT2LMHeadModel: positions from arange, a tril `bias` buffer sliced to the sequence and applied
    by torch.where, pre-LN blocks of Conv1D layers, gelu_new, a tied LM head."""

    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(VOCAB, HIDDEN), nn.Embedding(POSITIONS, HIDDEN)
        self.register_buffer("bias", torch.tril(torch.ones((POSITIONS, POSITIONS), dtype=torch.bool)).view(1, 1, POSITIONS, POSITIONS))
        self.ln1 = nn.ModuleList(nn.LayerNorm(HIDDEN) for _ in range(LAYERS))
        self.ln2 = nn.ModuleList(nn.LayerNorm(HIDDEN) for _ in range(LAYERS))
        self.c_attn = nn.ModuleList(Conv1D(3 * HIDDEN, HIDDEN) for _ in range(LAYERS))
        self.c_proj = nn.ModuleList(Conv1D(HIDDEN, HIDDEN) for _ in range(LAYERS))
        self.c_fc = nn.ModuleList(Conv1D(4 * HIDDEN, HIDDEN) for _ in range(LAYERS))
        self.c_mlp = nn.ModuleList(Conv1D(HIDDEN, 4 * HIDDEN) for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(HIDDEN)

    def forward(self, input_ids):
        b, seq = input_ids.size()
        position_ids = torch.arange(0, seq, dtype=torch.long).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(position_ids)
        d = HIDDEN // HEADS
        for i in range(LAYERS):
            q, k, v = self.c_attn[i](self.ln1[i](x)).split(HIDDEN, dim=2)
            q, k, v = (t.view(b, seq, HEADS, d).permute(0, 2, 1, 3) for t in (q, k, v))
            w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], v.size(-1) ** 0.5, dtype=q.dtype)
            causal = self.bias[:, :, 0:seq, :seq]
            w = torch.where(causal, w, torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype))
            a = torch.matmul(F.softmax(w, dim=-1), v).permute(0, 2, 1, 3).contiguous().view(b, seq, HIDDEN)
            x = x + self.c_proj[i](a)
            x = x + self.c_mlp[i](gelu_new(self.c_fc[i](self.ln2[i](x))))
        return F.linear(self.ln_f(x), self.wte.weight)


class T5Encoder(nn.Module):
    """T5EncoderModel: RMS LayerNorm (pow, mean, rsqrt), bias-free Linears, ReLU feed-forward, and the
    bucketed relative position bias (abs, log, min, where, int casts)."""
    BUCKETS, MAX_DISTANCE = 8, 32

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.rel = nn.Embedding(self.BUCKETS, HEADS)
        self.attn = nn.ModuleList(SelfAttention(bias=False) for _ in range(LAYERS))
        self.wi = nn.ModuleList(nn.Linear(HIDDEN, 4 * HIDDEN, bias=False) for _ in range(LAYERS))
        self.wo = nn.ModuleList(nn.Linear(4 * HIDDEN, HIDDEN, bias=False) for _ in range(LAYERS))
        self.norms = nn.ParameterList(nn.Parameter(torch.ones(HIDDEN) + 0.1 * torch.randn(HIDDEN)) for _ in range(2 * LAYERS + 1))

    def rms(self, x, i):
        variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.norms[i] * (x * torch.rsqrt(variance + 1e-6))

    def bucket(self, relative):
        buckets = self.BUCKETS // 2
        out = (relative > 0).to(torch.long) * buckets
        relative = torch.abs(relative)
        exact = buckets // 2
        small = relative < exact
        large = exact + (torch.log(relative.float() / exact) / math.log(self.MAX_DISTANCE / exact) * (buckets - exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, buckets - 1))
        return out + torch.where(small, relative, large)

    def forward(self, input_ids, attention_mask):
        seq = input_ids.size(1)
        ctx = torch.arange(seq, dtype=torch.long)[:, None]
        mem = torch.arange(seq, dtype=torch.long)[None, :]
        bias = self.rel(self.bucket(mem - ctx)).permute([2, 0, 1]).unsqueeze(0)
        mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
        x = self.embed(input_ids)
        for i in range(LAYERS):
            x = x + self.attn[i](self.rms(x, 2 * i), bias + mask, scale=False)
            x = x + self.wo[i](F.relu(self.wi[i](self.rms(x, 2 * i + 1))))
        return self.rms(x, 2 * LAYERS)


class WhisperEncoder(nn.Module):
    """WhisperEncoder: two Conv1d + GELU over log-mel frames, sinusoidal positions, pre-LN layers whose
    key projection has no bias, queries scaled before the product."""

    def __init__(self, mels=16, frames=32):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, HIDDEN, 3, padding=1)
        self.conv2 = nn.Conv1d(HIDDEN, HIDDEN, 3, stride=2, padding=1)
        positions = torch.arange(frames // 2)[:, None] * torch.exp(-math.log(10000) * torch.arange(HIDDEN // 2) / (HIDDEN // 2 - 1))[None]
        self.register_buffer("positions", torch.cat([torch.sin(positions), torch.cos(positions)], dim=1))
        self.attn = nn.ModuleList(SelfAttention() for _ in range(LAYERS))
        for a in self.attn:
            a.key = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.ln1 = nn.ModuleList(nn.LayerNorm(HIDDEN) for _ in range(LAYERS))
        self.ln2 = nn.ModuleList(nn.LayerNorm(HIDDEN) for _ in range(LAYERS))
        self.fc1 = nn.ModuleList(nn.Linear(HIDDEN, 4 * HIDDEN) for _ in range(LAYERS))
        self.fc2 = nn.ModuleList(nn.Linear(4 * HIDDEN, HIDDEN) for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(HIDDEN)

    def forward(self, input_features):
        x = F.gelu(self.conv2(F.gelu(self.conv1(input_features)))).permute(0, 2, 1)
        x = x + self.positions
        for i in range(LAYERS):
            x = x + self.attn[i](self.ln1[i](x))
            x = x + self.fc2[i](F.gelu(self.fc1[i](self.ln2[i](x))))
        return self.ln_f(x)


def quick_gelu(x):
    return x * torch.sigmoid(1.702 * x)


class ClipLayer(nn.Module):
    """CLIPEncoderLayer: pre-LN attention and a quick_gelu MLP."""

    def __init__(self):
        super().__init__()
        self.attn = SelfAttention()
        self.ln1, self.ln2 = nn.LayerNorm(HIDDEN), nn.LayerNorm(HIDDEN)
        self.fc1, self.fc2 = nn.Linear(HIDDEN, 4 * HIDDEN), nn.Linear(4 * HIDDEN, HIDDEN)

    def forward(self, x, mask=None):
        x = x + self.attn(self.ln1(x), mask)
        return x + self.fc2(quick_gelu(self.fc1(self.ln2(x))))


class Clip(nn.Module):
    """CLIPModel: a text tower (causal mask from triu, pooled at each sequence's largest id by argmax and
    arange indexing) and a vision tower (patch Conv, class token, positions, pre-LN), projected and
    compared by normalized dot products."""

    def __init__(self, image=32, patch=8):
        super().__init__()
        self.tokens, self.text_pos = nn.Embedding(VOCAB, HIDDEN), nn.Embedding(POSITIONS, HIDDEN)
        self.text_layers = nn.ModuleList(ClipLayer() for _ in range(LAYERS))
        self.text_ln = nn.LayerNorm(HIDDEN)
        self.patch = nn.Conv2d(3, HIDDEN, patch, stride=patch, bias=False)
        self.cls = nn.Parameter(torch.randn(HIDDEN))
        self.vision_pos = nn.Embedding((image // patch) ** 2 + 1, HIDDEN)
        self.register_buffer("vision_ids", torch.arange((image // patch) ** 2 + 1).expand((1, -1)))
        self.pre_ln, self.post_ln = nn.LayerNorm(HIDDEN), nn.LayerNorm(HIDDEN)
        self.vision_layers = nn.ModuleList(ClipLayer() for _ in range(LAYERS))
        self.text_proj, self.vision_proj = nn.Linear(HIDDEN, 16, bias=False), nn.Linear(HIDDEN, 16, bias=False)
        self.logit_scale = nn.Parameter(torch.tensor(2.6592))

    def forward(self, input_ids, pixel_values):
        b, seq = input_ids.size()
        x = self.tokens(input_ids) + self.text_pos(torch.arange(seq).unsqueeze(0))
        causal = torch.empty(b, seq, seq).fill_(torch.finfo(torch.float32).min).triu_(1).unsqueeze(1)
        for layer in self.text_layers:
            x = layer(x, causal)
        x = self.text_ln(x)
        text = x[torch.arange(x.shape[0]), input_ids.to(dtype=torch.int).argmax(dim=-1)]
        p = self.patch(pixel_values).flatten(2).transpose(1, 2)
        v = torch.cat([self.cls.expand(pixel_values.shape[0], 1, -1), p], dim=1) + self.vision_pos(self.vision_ids)
        v = self.pre_ln(v)
        for layer in self.vision_layers:
            v = layer(v)
        image = self.post_ln(v[:, 0, :])
        t, i = self.text_proj(text), self.vision_proj(image)
        t, i = t / t.norm(p=2, dim=-1, keepdim=True), i / i.norm(p=2, dim=-1, keepdim=True)
        return torch.matmul(t, i.t()) * self.logit_scale.exp()


# ---------------------------------------------------------------- detection: a YOLOv8-style head

class YoloHead(nn.Module):
    """Two feature levels; per level a box branch (4·16 DFL bins) and a class branch; DFL as a softmax over
    the bins and a 1×1 Conv with arange weights; anchors and strides as constants; boxes from distances
    (Split, Sub, Add, Concat, Mul); sigmoid class scores."""
    BINS, CLASSES = 16, 3

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.SiLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.SiLU())
        self.down = nn.Sequential(nn.Conv2d(32, 32, 3, 2, 1), nn.SiLU())
        self.box = nn.ModuleList(nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1), nn.SiLU(), nn.Conv2d(32, 4 * self.BINS, 1)) for _ in range(2))
        self.cls = nn.ModuleList(nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1), nn.SiLU(), nn.Conv2d(32, self.CLASSES, 1)) for _ in range(2))
        self.dfl = nn.Conv2d(self.BINS, 1, 1, bias=False).requires_grad_(False)
        self.dfl.weight.data[:] = torch.arange(self.BINS, dtype=torch.float).view(1, self.BINS, 1, 1)

    def forward(self, images):
        p3 = self.stem(images)
        feats = [p3, self.down(p3)]
        outs, anchors, strides = [], [], []
        for level, f in enumerate(feats):
            outs.append(torch.cat([self.box[level](f), self.cls[level](f)], 1))
            h, w = f.shape[2], f.shape[3]
            sy, sx = torch.meshgrid(torch.arange(h, dtype=torch.float) + 0.5, torch.arange(w, dtype=torch.float) + 0.5, indexing="ij")
            anchors.append(torch.stack((sx, sy), -1).view(-1, 2))
            strides.append(torch.full((h * w, 1), 4.0 * 2 ** (level + 1)))
        anchors, strides = torch.cat(anchors).transpose(0, 1), torch.cat(strides).transpose(0, 1)
        b = images.shape[0]
        x = torch.cat([o.view(b, 4 * self.BINS + self.CLASSES, -1) for o in outs], 2)
        box, cls = x.split((4 * self.BINS, self.CLASSES), 1)
        a = box.shape[2]
        dist = self.dfl(box.view(b, 4, self.BINS, a).transpose(2, 1).softmax(1)).view(b, 4, a)
        lt, rb = dist.chunk(2, 1)
        x1y1, x2y2 = anchors.unsqueeze(0) - lt, anchors.unsqueeze(0) + rb
        boxes = torch.cat(((x1y1 + x2y2) / 2, x2y2 - x1y1), 1) * strides
        return torch.cat((boxes, cls.sigmoid()), 1)


# ---------------------------------------------------------------- speech: voice activity (If, LSTM)

@torch.jit.script
def pad_to_even(x: torch.Tensor) -> torch.Tensor:
    """Scripted, so the exporter writes an If: an odd number of samples is padded by reflection."""
    if x.size(-1) % 2 == 1:
        x = F.pad(x.unsqueeze(1), (0, 1), mode="reflect").squeeze(1)
    return x


class Vad(nn.Module):
    """A Silero-VAD-shaped voice-activity model: a learned STFT (Conv1d), magnitudes, a Conv1d encoder,
    an LSTM over frames, a 1×1 Conv decoder and a sigmoid per frame; an If pads an odd-length input."""

    def __init__(self):
        super().__init__()
        self.stft = nn.Conv1d(1, 34, 32, stride=16, bias=False)
        self.encoder = nn.Sequential(nn.Conv1d(17, 32, 3, padding=1), nn.ReLU(), nn.Conv1d(32, 32, 3, stride=2, padding=1), nn.ReLU())
        self.lstm = nn.LSTM(32, 32, batch_first=True)
        self.decoder = nn.Conv1d(32, 1, 1)

    def forward(self, audio):
        s = self.stft(pad_to_even(audio).unsqueeze(1))
        re, im = s[:, :17], s[:, 17:]
        h = self.encoder(torch.sqrt(re * re + im * im + 1e-6))
        y, _ = self.lstm(h.transpose(1, 2))
        return torch.sigmoid(self.decoder(F.relu(y).transpose(1, 2))).squeeze(1)


# ---------------------------------------------------------------- the families

def text_inputs(r, names, batch=4):
    ids = r.integers(2, VOCAB, size=(batch, SEQ)).astype(np.int64)
    lengths = r.integers(SEQ // 2, SEQ + 1, size=batch)
    mask = (np.arange(SEQ)[None, :] < lengths[:, None]).astype(np.int64)
    ids = np.where(mask == 1, ids, 1)  # padding id 1 (RoBERTa's padding_idx)
    values = {"input_ids": ids, "attention_mask": mask, "token_type_ids": (np.arange(SEQ)[None, :] >= lengths[:, None] // 2).astype(np.int64) * mask}
    return {n: values[n] for n in names}


def vision(make, image=32):
    def build(r):
        torch.manual_seed(0)
        return make(), {"pixel_values": r.standard_normal((4, 3, image, image)).astype(np.float32)}
    return build


def text(cls, names, **kw):
    def build(r):
        torch.manual_seed(0)
        return cls(**kw), text_inputs(r, names)
    return build


def clip(r):
    torch.manual_seed(0)
    inputs = text_inputs(r, ["input_ids"])
    inputs["pixel_values"] = r.standard_normal((4, 3, 32, 32)).astype(np.float32)
    return Clip(), inputs


def whisper(r):
    torch.manual_seed(0)
    return WhisperEncoder(), {"input_features": r.standard_normal((4, 16, 32)).astype(np.float32)}


def yolo(r):
    torch.manual_seed(0)
    return YoloHead(), {"images": r.uniform(0, 1, size=(2, 3, 64, 64)).astype(np.float32)}


def vad(r):
    torch.manual_seed(0)
    return Vad(), {"audio": r.standard_normal((4, 511)).astype(np.float32)}


def _torchvision():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    from torchvision.models.maxvit import MaxVit
    from torchvision.models.swin_transformer import SwinTransformer
    from torchvision.models.vision_transformer import VisionTransformer
    return {
        "vit": (vision(lambda: VisionTransformer(32, 8, 2, 2, 32, 64, num_classes=10)), 17),
        "deit": (vision(lambda: VisionTransformer(32, 4, 2, 4, 32, 64, num_classes=10)), 14),
        "swin": (vision(lambda: SwinTransformer([4, 4], 16, [2, 2], [2, 2], [4, 4], stochastic_depth_prob=0.0, num_classes=10)), 17),
        "convnext": (vision(lambda: ConvNeXt([CNBlockConfig(16, 32, 2), CNBlockConfig(32, None, 2)], num_classes=10)), 17),
        "maxvit": (vision(lambda: MaxVit((64, 64), 16, 2, [16, 32], [1, 1], 8, 0.0, num_classes=10), image=64), 17),
    }


FAMILIES = {
    "bert": (text(Bert, ["input_ids", "attention_mask", "token_type_ids"]), 14),
    "distilbert": (text(DistilBert, ["input_ids", "attention_mask"]), 14),
    "roberta": (text(Roberta, ["input_ids", "attention_mask"]), 14),
    "gpt2": (text(Gpt2, ["input_ids"]), 14),
    "t5_encoder": (text(T5Encoder, ["input_ids", "attention_mask"]), 14),
    "whisper_encoder": (whisper, 17),
    "clip": (clip, 14),
    "yolo_head": (yolo, 13),
    "vad": (vad, 14),
}

# Models published in float16 (float16 weights and arithmetic, float32 inputs and outputs behind
# Casts, as converters that keep the I/O types write them): NAME_fp16 is NAME converted.
FLOAT16 = ("vit", "convnext", "whisper_encoder")


# Which exporter of torch 2.x writes the models: "torchscript" (torch.onnx.export(dynamo=False)),
# "dynamo" (torch.export, opset 18 at least); None: the torch in hand's default (1.13's TorchScript).
EXPORTER = os.environ.get("Q8_ZOO_EXPORTER")


def export(name, out_dir):
    families = dict(FAMILIES, **_torchvision())
    build, opset = families[name]
    module, inputs = build(np.random.default_rng(sum(map(ord, name))))
    module.eval()
    args = tuple(torch.from_numpy(v) for v in inputs.values())
    dynamic = {n: {0: "batch"} for n in inputs}
    path = os.path.join(out_dir, name + ".onnx")
    # With grad enabled, nn.MultiheadAttention (torchvision's ViT) takes its exportable path, not the fused one.
    axes = {**dynamic, "output": {0: "batch"}} if name != "clip" else dynamic
    kw = {} if EXPORTER is None else {"dynamo": EXPORTER == "dynamo"}
    if EXPORTER == "dynamo":
        opset = max(opset, 18)
        batch = torch.export.Dim("batch", min=1, max=1024)
        kw["dynamic_shapes"] = tuple({0: batch} for _ in inputs)
        axes = None
    with torch.enable_grad():
        torch.onnx.export(module, args, path, input_names=list(inputs), output_names=["output"], opset_version=opset,
                          dynamic_axes=axes, do_constant_folding=True, **kw)
    data = os.path.join(out_dir, name)
    os.makedirs(data, exist_ok=True)
    for n, v in inputs.items():
        np.save(os.path.join(data, n + ".npy"), v)


def float16_inside(src, dst):
    """src's float32 weights, constants, Casts and values made float16; float32 graph inputs cast to
    float16 on the way in and outputs back to float32 on the way out (the form of converters that
    keep the I/O types, e.g. onnxconverter-common's keep_io_types)."""
    m = retype_floats(onnx.load(src), onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16)
    g = m.graph
    rename = lambda names, old, new: [new if x == old else x for x in names]  # noqa: E731
    front, back = [], []
    for i in g.input:
        if i.type.tensor_type.elem_type == onnx.TensorProto.FLOAT:
            for n in g.node:
                n.input[:] = rename(n.input, i.name, i.name + "_fp16")
            front.append(onnx.helper.make_node("Cast", [i.name], [i.name + "_fp16"], to=onnx.TensorProto.FLOAT16))
    for o in g.output:
        if o.type.tensor_type.elem_type == onnx.TensorProto.FLOAT:
            for n in g.node:
                n.input[:], n.output[:] = rename(n.input, o.name, o.name + "_fp16"), rename(n.output, o.name, o.name + "_fp16")
            back.append(onnx.helper.make_node("Cast", [o.name + "_fp16"], [o.name], to=onnx.TensorProto.FLOAT))
    nodes = front + list(g.node) + back
    del g.node[:]
    g.node.extend(nodes)
    onnx.checker.check_model(m)
    onnx.save(m, dst)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = sys.argv[2:] or list(FAMILIES) + list(_torchvision()) + [f + "_fp16" for f in FLOAT16]
    for name in names:
        if name.endswith("_fp16"):  # after its float32 source; the same data directory
            base = name[:-len("_fp16")]
            if not os.path.exists(os.path.join(out, base + ".onnx")):
                export(base, out)
            float16_inside(os.path.join(out, base + ".onnx"), os.path.join(out, name + ".onnx"))
        elif EXPORTER is None:
            export(name, out)
        else:  # another exporter: each family that fails to export is said, and the rest go on
            try:
                export(name, out)
            except Exception as e:  # noqa: BLE001
                print(f"zoo: {name}: the {EXPORTER} exporter failed: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
    print(f"zoo: wrote {len(names)} models to {out}")


if __name__ == "__main__":
    main()
