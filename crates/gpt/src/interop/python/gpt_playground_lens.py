"""TransformerLens 4 over a gpt-playground export: `bridge(folder)` gives a TransformerBridge whose
run_with_cache has the playground's attention patterns (blocks.{l}.attn.hook_pattern, batch x
head x query x key) and whose hooks (hook_z, hook_mlp_out, hook_resid_pre, ...) edit the run.
It takes strings as the playground reads them (`bridge.run_with_cache("ROMEO:")`, `generate`,
`to_tokens`): no BOS token goes first, as the playground's models have none.

A GPT-2 or Starcoder2 export boots with TransformerLens's own adapter. Any other export runs its own
modelling code (modeling_gpt_playground.py); an adapter registered here names its parts, and
attention stays the model's own, so rotary positions and QK-norm are as trained.

TransformerLens 3 (the one `pip install sae-lens` brings) has no bridge: `hooked(folder)` gives its
HookedTransformer over a GPT-2 export instead (`hooked(folder, HookedSAETransformer)` for SAELens's
`run_with_saes`), weights as trained: no norm folded, nothing centred, so every hook holds the
playground's numbers. It refuses the other architectures, which TransformerLens 3 does not hold.

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
    HookedSAETransformer) over the GPT-2 export in `folder`, with its tokenizer."""
    import torch
    from transformer_lens import HookedTransformer, HookedTransformerConfig
    from transformer_lens.pretrained.weight_conversions import convert_gpt2_weights
    from transformers import AutoModelForCausalLM, AutoTokenizer

    config = read_config(folder)
    if config["model_type"] != "gpt2":
        raise ValueError(
            f"TransformerLens 3 holds this run's GPT-2 exports only, and this one is {config['model_type']} "
            "(rotary positions, RMSNorm or QK-norm): open it with TransformerLens 4's bridge(folder)"
        )
    d_model, n_heads = config["n_embd"], config["n_head"]
    cfg = HookedTransformerConfig(
        n_layers=config["n_layer"],
        d_model=d_model,
        n_ctx=config["n_positions"],
        d_head=d_model // n_heads,
        n_heads=n_heads,
        d_mlp=config.get("n_inner") or 4 * d_model,
        d_vocab=config["vocab_size"],
        act_fn={"gelu": "gelu", "gelu_new": "gelu_new", "relu": "relu"}[config["activation_function"]],
        normalization_type="LN",
        eps=config["layer_norm_epsilon"],
        positional_embedding_type="standard",
        default_prepend_bos=False,
        original_architecture="GPT2LMHeadModel",
    )
    model = (cls or HookedTransformer)(cfg)
    hf = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    model.load_and_process_state_dict(
        convert_gpt2_weights(hf, cfg), fold_ln=False, center_writing_weights=False, center_unembed=False,
        fold_value_biases=False,
    )
    # The playground's tokenizers add no BOS, EOS or padding; a batch of strings pads with the first
    # token, as bridge() does (the attention mask hides it).
    tokenizer = AutoTokenizer.from_pretrained(folder)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.convert_ids_to_tokens(0)
    model.set_tokenizer(tokenizer, default_padding_side="right")
    model.cfg.default_prepend_bos = False
    return model.eval()
