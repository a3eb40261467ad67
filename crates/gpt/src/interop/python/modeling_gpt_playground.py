"""gpt-playground's GPT for Hugging Face Transformers: nanoGPT's decoder-only model with the settings
the playground adds (rotary positions, QK-norm, RMSNorm, GELU or ReLU, biases or none, tied or
untied). Loaded with trust_remote_code=True. Tensor names and layouts are nanoGPT's, so the weights
are the run's own, unchanged.

Written by gpt-playground's export; checked there against the playground's own logits.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput

EPS = 1e-5


class GptPlaygroundConfig(PretrainedConfig):
    model_type = "gpt_playground"
    attribute_map = {
        "hidden_size": "n_embd",
        "num_attention_heads": "n_head",
        "num_hidden_layers": "n_layer",
        "max_position_embeddings": "block_size",
    }

    def __init__(self, vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128, dropout=0.0, bias=False,
                 norm="layernorm", activation="gelu", tie_weights=True, rope=False, qk_norm=False, **kwargs):
        self.vocab_size, self.block_size = vocab_size, block_size
        self.n_layer, self.n_head, self.n_embd = n_layer, n_head, n_embd
        self.dropout, self.bias, self.norm, self.activation = dropout, bias, norm, activation
        self.tie_weights, self.rope, self.qk_norm = tie_weights, rope, qk_norm
        kwargs["tie_word_embeddings"] = tie_weights
        super().__init__(**kwargs)


class Norm(nn.Module):
    """LayerNorm (bias optional) or RMSNorm with a gain, eps 1e-5."""

    def __init__(self, config):
        super().__init__()
        self.kind = config.norm
        self.weight = nn.Parameter(torch.ones(config.n_embd))
        self.bias = nn.Parameter(torch.zeros(config.n_embd)) if config.bias and self.kind == "layernorm" else None

    def forward(self, x):
        if self.kind == "rmsnorm":
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * self.weight
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, EPS)


def rotary(x, base=10000.0):
    """Turns channel pairs (i, i + hs/2) of each head of x (B, nh, T, hs) by position * base^(-2i/hs)."""
    hs, T = x.size(-1), x.size(-2)
    frequencies = (1.0 / (base ** (torch.arange(0, hs, 2, dtype=torch.float64) / hs))).to(x.dtype)
    angles = torch.arange(T, dtype=x.dtype, device=x.device)[:, None] * frequencies.to(x.device)[None, :]
    cos, sin = angles.cos(), angles.sin()
    x1, x2 = x[..., : hs // 2], x[..., hs // 2:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


class CausalSelfAttention(nn.Module):
    # TransformerLens runs its hook_pattern inside, so an edited pattern changes the output.
    accepts_pattern_fn = True

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)

    def forward(self, x, pattern_fn=None, **kwargs):
        B, T, C = x.size()
        nh = self.config.n_head
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, nh, C // nh).transpose(1, 2) for t in (q, k, v))
        if self.config.qk_norm:  # each head's query and key over its root mean square, no gain
            q, k = (t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + EPS) for t in (q, k))
        if self.config.rope:
            q, k = rotary(q), rotary(k)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        pattern = F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        if pattern_fn is not None:
            pattern = pattern_fn(pattern)
        y = self.attn_dropout(pattern) @ v
        y = self.resid_dropout(self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C)))
        return y, pattern


ACTIVATIONS = {"gelu": lambda: nn.GELU(), "gelu_tanh": lambda: nn.GELU(approximate="tanh"), "relu": lambda: nn.ReLU()}


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.act = ACTIVATIONS[config.activation]()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1, self.attn = Norm(config), CausalSelfAttention(config)
        self.ln_2, self.mlp = Norm(config), MLP(config)

    def forward(self, x):
        y, pattern = self.attn(self.ln_1(x))
        x = x + y
        return x + self.mlp(self.ln_2(x)), pattern


class GptPlaygroundPreTrainedModel(PreTrainedModel):
    config_class = GptPlaygroundConfig
    base_model_prefix = "transformer"
    _no_split_modules = ["Block"]

    def _init_weights(self, module):
        """nanoGPT's initialisation, for a model built from the config alone (loading overwrites it)."""
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)


class GptPlaygroundForCausalLM(GptPlaygroundPreTrainedModel, GenerationMixin):
    _tied_weights_keys = {"lm_head.weight": "transformer.wte.weight"}

    def __init__(self, config):
        super().__init__(config)
        layers = dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=Norm(config),
        )
        if not config.rope:
            layers["wpe"] = nn.Embedding(config.block_size, config.n_embd)
        self.transformer = nn.ModuleDict(layers)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.post_init()

    def get_input_embeddings(self):
        return self.transformer.wte

    def set_input_embeddings(self, value):
        self.transformer.wte = value

    def get_output_embeddings(self):
        return self.lm_head

    def forward(self, input_ids=None, attention_mask=None, labels=None, output_attentions=False, return_dict=True,
                **kwargs):
        if attention_mask is not None and not bool(attention_mask.all()):
            raise ValueError("this model reads whole sequences: pad none (batch texts of one length, or one at a time)")
        T = input_ids.size(1)
        if T > self.config.block_size:
            raise ValueError(f"{T} tokens are more than this model's block size, {self.config.block_size}")
        x = self.transformer.wte(input_ids)
        if "wpe" in self.transformer:
            x = x + self.transformer.wpe(torch.arange(T, device=input_ids.device))
        x = self.transformer.drop(x)
        patterns = []
        for block in self.transformer.h:
            x, pattern = block(x)
            patterns.append(pattern)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if labels is not None:  # Transformers' convention: labels are the inputs, shifted here
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return CausalLMOutput(loss=loss, logits=logits, attentions=tuple(patterns) if output_attentions else None)

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        # No cache: each step reads the last block_size tokens, as the playground's sampler does.
        return {"input_ids": input_ids[:, -self.config.block_size:]}
