"""TransformerLens 4 over a gpt-playground export: `bridge(folder)` gives a TransformerBridge whose
run_with_cache has the playground's attention patterns (blocks.{l}.attn.hook_pattern, batch x
head x query x key) and whose hooks (hook_z, hook_mlp_out, hook_resid_pre, ...) edit the run.
It takes strings as the playground reads them (`bridge.run_with_cache("ROMEO:")`, `generate`,
`to_tokens`): no BOS token goes first, as the playground's models have none.

A GPT-2 or Starcoder2 export boots with TransformerLens's own adapter. Any other export runs its own
modelling code (modeling_gpt_playground.py); an adapter registered here names its parts, and
attention stays the model's own, so rotary positions and QK-norm are as trained.

TransformerLens 3 (the one `pip install sae-lens` brings) has no bridge: `hooked(folder)` gives its
HookedTransformer over any export instead (`hooked(folder, HookedSAETransformer)` for SAELens's
`run_with_saes`), weights as trained: no norm folded, nothing centred, so every hook holds the
playground's numbers. Rotary positions, RMSNorm and QK-norm are TransformerLens 3's own
(`positional_embedding_type="rotary"`, `normalization_type="RMS"`, `use_qk_norm`).

Written by gpt-playground's export; checked there against the playground's own patterns.
"""

import json
import os

ARCHITECTURE = "GptPlaygroundForCausalLM"


def adapter_for(config):
    """An adapter for a model with these settings (config.json's)."""
    from transformer_lens.model_bridge.architecture_adapter import ArchitectureAdapter
    from transformer_lens.model_bridge.generalized_components import (
        AttentionBridge,
        BlockBridge,
        EmbeddingBridge,
        LinearBridge,
        MLPBridge,
        NormalizationBridge,
        PosEmbedBridge,
        UnembeddingBridge,
    )

    class GptPlaygroundAdapter(ArchitectureAdapter):
        # Norms stay as trained: folding a norm into the next layer would change our weights.
        supports_fold_ln = False

        def __init__(self, cfg):
            super().__init__(cfg)
            rms = config["norm"] == "rmsnorm"
            self.cfg.normalization_type = "RMS" if rms else "LN"
            self.cfg.positional_embedding_type = "rotary" if config["rope"] else "standard"
            self.cfg.gated_mlp = False
            self.cfg.attn_only = False
            self.cfg.final_rms = rms
            self.cfg.eps = 1e-5
            norm = lambda name: NormalizationBridge(  # noqa: E731
                name=name, config=self.cfg, uses_rms_norm=rms, uses_weight_offset=False
            )
            self.component_mapping = {
                "embed": EmbeddingBridge(name="transformer.wte"),
                **({} if config["rope"] else {"pos_embed": PosEmbedBridge(name="transformer.wpe")}),
                "blocks": BlockBridge(
                    name="transformer.h",
                    config=self.cfg,
                    submodules={
                        "ln1": norm("ln_1"),
                        "attn": AttentionBridge(
                            name="attn",
                            config=self.cfg,
                            submodules={"qkv": LinearBridge(name="c_attn"), "o": LinearBridge(name="c_proj")},
                            maintain_native_attention=True,
                        ),
                        "ln2": norm("ln_2"),
                        "mlp": MLPBridge(
                            name="mlp", submodules={"in": LinearBridge(name="c_fc"), "out": LinearBridge(name="c_proj")}
                        ),
                    },
                ),
                "ln_final": norm("transformer.ln_f"),
                "unembed": UnembeddingBridge(name="lm_head", config=self.cfg),
            }

    return GptPlaygroundAdapter


def read_config(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        return json.load(f)


def bridge(folder, **kwargs):
    """TransformerLens 4's TransformerBridge over the export in `folder`."""
    try:
        from transformer_lens.factories import architecture_adapter_factory
        from transformer_lens.model_bridge import TransformerBridge
        from transformer_lens.model_bridge.sources import _bridge_builder
    except ImportError as e:
        raise ImportError(
            "bridge() needs TransformerLens 4 (pip install 'transformer-lens>=4'); with TransformerLens 3, "
            "which sae-lens installs, use hooked(folder)"
        ) from e
    config = read_config(folder)
    if config["model_type"] == "gpt_playground":
        adapter = adapter_for(config)
        architecture_adapter_factory.ArchitectureAdapterFactory.register_adapter(ARCHITECTURE, adapter)
        # boot_transformers looks the architecture up in this table before asking the factory.
        architecture_adapter_factory.SUPPORTED_ARCHITECTURES[ARCHITECTURE] = adapter
        kwargs["trust_remote_code"] = True
    # TransformerLens asks the tokenizer whether it adds BOS or EOS by encoding "a", which a task's
    # symbols may not hold; the playground's tokenizers add neither.
    probe = _bridge_builder.detect_tokenizer_bos_eos
    _bridge_builder.detect_tokenizer_bos_eos = lambda tokenizer: (False, False)
    try:
        lens = TransformerBridge.boot_transformers(folder, **kwargs)
    finally:
        _bridge_builder.detect_tokenizer_bos_eos = probe
    # TransformerLens gives a tokenizer without BOS, EOS or padding an <|endoftext|> of its own, an
    # id past the model's vocabulary. The playground prepends nothing, and a batch of strings pads
    # with the first token (the attention mask hides it).
    lens.cfg.default_prepend_bos = False
    tokenizer = lens.tokenizer
    if tokenizer.pad_token_id is None or tokenizer.pad_token_id >= lens.cfg.d_vocab:
        tokenizer.pad_token = tokenizer.convert_ids_to_tokens(0)
    # TransformerLens 4.3's generate writes other tokens with its key-value cache than without it
    # on these models (GPT-2's and Starcoder2's too); without it, it writes what Transformers'
    # generate and the playground write.
    generate = lens.generate
    lens.generate = lambda *args, use_past_kv_cache=False, **kwargs: generate(
        *args, use_past_kv_cache=use_past_kv_cache, **kwargs
    )
    return lens


def hooked(folder, cls=None):
    """TransformerLens 3's HookedTransformer (or `cls`, a subclass such as SAELens's
    HookedSAETransformer) over the export in `folder`, with its tokenizer."""
    import torch
    from transformer_lens import HookedTransformer, HookedTransformerConfig
    from transformers import AutoModelForCausalLM, AutoTokenizer

    config = read_config(folder)
    kind = config["model_type"]
    hf = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, trust_remote_code=kind == "gpt_playground")
    if kind == "gpt2":
        from transformer_lens.pretrained.weight_conversions import convert_gpt2_weights

        cfg = HookedTransformerConfig(**lens_settings(gpt2_settings(config)))
        state = convert_gpt2_weights(hf, cfg)
    else:
        ours = {"gpt_playground": lambda c: c, "starcoder2": starcoder2_settings}[kind](config)
        cfg = HookedTransformerConfig(**lens_settings(ours))
        state = lens_weights(nanogpt_weights(hf, kind, ours), cfg)
    model = (cls or HookedTransformer)(cfg)
    model.load_and_process_state_dict(
        state, fold_ln=False, center_writing_weights=False, center_unembed=False, fold_value_biases=False
    )
    # The playground's tokenizers add no BOS, EOS or padding; a batch of strings pads with the first
    # token, as bridge() does (the attention mask hides it).
    tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=kind == "gpt_playground")
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.convert_ids_to_tokens(0)
    model.set_tokenizer(tokenizer, default_padding_side="right")
    model.cfg.default_prepend_bos = False
    return model.eval()


def gpt2_settings(config):
    """The playground's settings of a GPT-2 export's config.json."""
    activation = {"gelu": "gelu", "gelu_new": "gelu_tanh", "relu": "relu"}[config["activation_function"]]
    return dict(n_layer=config["n_layer"], n_embd=config["n_embd"], n_head=config["n_head"],
                block_size=config["n_positions"], vocab_size=config["vocab_size"], norm="layernorm",
                activation=activation, rope=False, qk_norm=False)


def starcoder2_settings(config):
    """The playground's settings of a Starcoder2 export's config.json (a run with rotary positions)."""
    activation = {"gelu": "gelu", "gelu_pytorch_tanh": "gelu_tanh", "relu": "relu"}[config["hidden_act"]]
    return dict(n_layer=config["num_hidden_layers"], n_embd=config["hidden_size"],
                n_head=config["num_attention_heads"], block_size=config["max_position_embeddings"],
                vocab_size=config["vocab_size"], norm="layernorm", activation=activation, rope=True, qk_norm=False)


def lens_settings(ours):
    """TransformerLens 3's config for a model with the playground's settings `ours`: nanoGPT's block,
    rotary positions turning channel i with i + d_head/2 (as the playground turns them), QK-norm as an
    RMSNorm of each head's query and key (its gain 1: the playground's has none), eps 1e-5."""
    d_model, n_heads = ours["n_embd"], ours["n_head"]
    rotary = dict(positional_embedding_type="rotary", rotary_dim=d_model // n_heads, rotary_base=10000,
                  rotary_adjacent_pairs=False) if ours["rope"] else dict(positional_embedding_type="standard")
    return dict(
        n_layers=ours["n_layer"], d_model=d_model, n_ctx=ours["block_size"], d_head=d_model // n_heads,
        n_heads=n_heads, d_mlp=4 * d_model, d_vocab=ours["vocab_size"],
        act_fn={"gelu": "gelu", "gelu_tanh": "gelu_new", "relu": "relu"}[ours["activation"]],
        normalization_type="RMS" if ours["norm"] == "rmsnorm" else "LN", eps=1e-5, use_qk_norm=ours["qk_norm"],
        default_prepend_bos=False, original_architecture="GptPlaygroundForCausalLM", **rotary,
    )


def nanogpt_weights(hf, kind, ours):
    """The export's weights under nanoGPT's names and nn.Linear's layout (out x in), as the playground
    keeps them; a Starcoder2 export's renamed, its query, key and value rows stacked."""
    state = {name: t.detach() for name, t in hf.state_dict().items()}
    if kind == "gpt_playground":
        return state
    import torch

    names = {"model.embed_tokens.weight": "transformer.wte.weight", "lm_head.weight": "lm_head.weight"}
    for part in ("weight", "bias"):
        names[f"model.norm.{part}"] = f"transformer.ln_f.{part}"
        for layer in range(ours["n_layer"]):
            ours_at, theirs_at = f"transformer.h.{layer}.", f"model.layers.{layer}."
            for theirs, mine in [("input_layernorm", "ln_1"), ("post_attention_layernorm", "ln_2"),
                                 ("self_attn.o_proj", "attn.c_proj"), ("mlp.c_fc", "mlp.c_fc"),
                                 ("mlp.c_proj", "mlp.c_proj")]:
                names[f"{theirs_at}{theirs}.{part}"] = f"{ours_at}{mine}.{part}"
            qkv = [state.pop(f"{theirs_at}self_attn.{p}_proj.{part}", None) for p in "qkv"]
            if qkv[0] is not None:
                state[f"{ours_at}attn.c_attn.{part}"] = torch.cat(qkv)
    return {names.get(name, name): t for name, t in state.items()}


def lens_weights(state, cfg):
    """TransformerLens 3's state dict from the playground's (nanoGPT's names, nn.Linear's layout);
    zeros for the biases a run without them lacks."""
    import torch

    C, H, D = cfg.d_model, cfg.n_heads, cfg.d_head
    zeros = lambda *shape: torch.zeros(*shape)  # noqa: E731
    lens = {"embed.W_E": state["transformer.wte.weight"], "unembed.W_U": state["lm_head.weight"].T,
            "unembed.b_U": zeros(cfg.d_vocab)}
    if "transformer.wpe.weight" in state:
        lens["pos_embed.W_pos"] = state["transformer.wpe.weight"]

    def norm(ours, theirs, width):
        lens[f"{theirs}.w"] = state[f"{ours}.weight"]
        if cfg.normalization_type == "LN":
            lens[f"{theirs}.b"] = state.get(f"{ours}.bias", zeros(width))

    for layer in range(cfg.n_layers):
        at, to = f"transformer.h.{layer}.", f"blocks.{layer}."
        norm(f"{at}ln_1", f"{to}ln1", C)
        norm(f"{at}ln_2", f"{to}ln2", C)
        w, b = state[f"{at}attn.c_attn.weight"], state.get(f"{at}attn.c_attn.bias", zeros(3 * C))
        for i, name in enumerate("QKV"):
            lens[f"{to}attn.W_{name}"] = w[i * C:(i + 1) * C].T.reshape(C, H, D).permute(1, 0, 2)
            lens[f"{to}attn.b_{name}"] = b[i * C:(i + 1) * C].reshape(H, D)
        lens[f"{to}attn.W_O"] = state[f"{at}attn.c_proj.weight"].T.reshape(H, D, C)
        lens[f"{to}attn.b_O"] = state.get(f"{at}attn.c_proj.bias", zeros(C))
        if cfg.use_qk_norm:
            lens[f"{to}attn.q_norm.w"], lens[f"{to}attn.k_norm.w"] = torch.ones(D), torch.ones(D)
        lens[f"{to}mlp.W_in"] = state[f"{at}mlp.c_fc.weight"].T
        lens[f"{to}mlp.b_in"] = state.get(f"{at}mlp.c_fc.bias", zeros(cfg.d_mlp))
        lens[f"{to}mlp.W_out"] = state[f"{at}mlp.c_proj.weight"].T
        lens[f"{to}mlp.b_out"] = state.get(f"{at}mlp.c_proj.bias", zeros(C))
    norm("transformer.ln_f", "ln_final", C)
    return lens
