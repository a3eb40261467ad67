"""nanoGPT's architecture (model.py) in PyTorch, configured like the Rust core: LayerNorm or
RMSNorm, GELU (exact or tanh) or ReLU, optional bias and weight tying, and rotary position
embeddings (RoPE) in place of the learned position table, and QK-norm. Shared by the golden fixture script,
the speed reference and the interop scripts. Dropout is left out: the fixtures and references
run without it.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Norm(nn.Module):
    """nanoGPT's LayerNorm with optional bias, or RMSNorm; eps 1e-5 as in the Rust core."""

    def __init__(self, ndim, bias, kind):
        super().__init__()
        self.kind = kind
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias and kind == "layernorm" else None

    def forward(self, x):
        if self.kind == "rmsnorm":
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.weight
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


def rotary(x, base=10000.0):
    """Turns channel pairs (i, i + hs/2) of every head of x (B, nh, T, hs) by position * base^(-2i/hs):
    the "rotate half" layout of GPT-NeoX and Hugging Face's LLaMA, as the Rust core's ops/rope.rs."""
    hs, T = x.size(-1), x.size(-2)
    frequencies = 1.0 / (base ** (torch.arange(0, hs, 2, dtype=torch.float64) / hs)).float()
    angles = torch.arange(T, dtype=torch.float32)[:, None] * frequencies[None, :]
    cos, sin = angles.cos(), angles.sin()
    x1, x2 = x[..., : hs // 2], x[..., hs // 2:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_head, self.n_embd = cfg["n_head"], cfg["n_embd"]
        self.rope = cfg.get("rope", False)
        self.qk_norm = cfg.get("qk_norm", False)
        self.fused = cfg.get("fused_attention", False)
        self.c_attn = nn.Linear(self.n_embd, 3 * self.n_embd, bias=cfg["bias"])
        self.c_proj = nn.Linear(self.n_embd, self.n_embd, bias=cfg["bias"])

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        if self.qk_norm:  # each head's query and key over its root mean square, no gain (ops/qk_norm.rs)
            q, k = (F.rms_norm(t, (t.size(-1),), eps=1e-5) for t in (q, k))
        if self.rope:
            q, k = rotary(q), rotary(k)
        if self.fused:
            # What nanoGPT runs on PyTorch 2: one fused kernel (used for speed references).
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(torch.ones(T, T, dtype=torch.bool).tril().logical_not(), float("-inf"))
            y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = nn.Linear(cfg["n_embd"], 4 * cfg["n_embd"], bias=cfg["bias"])
        self.act = {"gelu": nn.GELU(), "gelu_tanh": nn.GELU(approximate="tanh"), "relu": nn.ReLU()}[cfg["activation"]]
        self.c_proj = nn.Linear(4 * cfg["n_embd"], cfg["n_embd"], bias=cfg["bias"])

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = Norm(cfg["n_embd"], cfg["bias"], cfg["norm"])
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = Norm(cfg["n_embd"], cfg["bias"], cfg["norm"])
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        layers = dict(
            wte=nn.Embedding(cfg["vocab_size"], cfg["n_embd"]),
            wpe=nn.Embedding(cfg["block_size"], cfg["n_embd"]),
            h=nn.ModuleList([Block(cfg) for _ in range(cfg["n_layer"])]),
            ln_f=Norm(cfg["n_embd"], cfg["bias"], cfg["norm"]),
        )
        if cfg.get("rope", False):
            del layers["wpe"]  # positions turn the queries and keys instead
        self.transformer = nn.ModuleDict(layers)
        self.lm_head = nn.Linear(cfg["n_embd"], cfg["vocab_size"], bias=False)
        if cfg["tie_weights"]:
            self.transformer.wte.weight = self.lm_head.weight

    def forward(self, idx, targets):
        x = self.transformer.wte(idx)
        if "wpe" in self.transformer:
            x = x + self.transformer.wpe(torch.arange(idx.size(1)))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def init_weights(model, n_layer):
    """nanoGPT's initialisation: N(0, 0.02), residual projections N(0, 0.02/sqrt(2 n_layer)), zero biases."""
    for name, p in model.named_parameters():
        if p.dim() == 1:
            nn.init.zeros_(p) if name.endswith("bias") else nn.init.ones_(p)
        else:
            std = 0.02 / math.sqrt(2 * n_layer) if name.endswith("c_proj.weight") else 0.02
            nn.init.normal_(p, mean=0.0, std=std)
