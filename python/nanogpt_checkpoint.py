"""nanoGPT checkpoints (`ckpt.pt`) back to gpt-playground runs, in memory; `from_nanogpt.py` is the
command (the other way is the core's: `gpt export --nanogpt`). Standard library only: see
checkpoint_formats.py."""

import json
import struct

# Our metadata rides along in nanoGPT's `config` under this key, which nanoGPT ignores, so a run
# comes back with its history, random state and sampling settings.
OURS = "gpt_playground"
EXP_AVG, EXP_AVG_SQ = "optimizer.exp_avg.", "optimizer.exp_avg_sq."


def parameter_names(cfg):
    """nanoGPT's parameters in `named_parameters()` order: the order of its optimizer's state."""
    bias = cfg.get("bias", True)
    names = ["transformer.wte.weight", "transformer.wpe.weight"]
    for i in range(cfg["n_layer"]):
        h = f"transformer.h.{i}"
        for layer in ["ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj"]:
            names.append(f"{h}.{layer}.weight")
            if bias:
                names.append(f"{h}.{layer}.bias")
    names.append("transformer.ln_f.weight")
    if bias:
        names.append("transformer.ln_f.bias")
    return names


def from_nanogpt(checkpoint, meta_pkl):
    """A run's (tensors, metadata) from nanoGPT's checkpoint dict; the vocabulary comes from the
    run that made it (when it did) or from `meta_pkl` (nanoGPT's character vocabulary)."""
    config, args = checkpoint.get("config", {}), checkpoint["model_args"]
    state = {k.removeprefix("_orig_mod."): v for k, v in checkpoint["model"].items()}
    meta = dict(config.get(OURS) or {})
    if not meta:
        if meta_pkl is None:
            raise ValueError("this checkpoint's vocabulary is unknown: pass --meta with its meta.pkl (character models; "
                             "GPT-2's byte pairs are not supported)")
        itos = meta_pkl["itos"]
        meta["vocab"] = json.dumps([itos[i] for i in range(meta_pkl["vocab_size"])], ensure_ascii=False)
        cfg = {k: args[k] for k in ["vocab_size", "block_size", "n_layer", "n_head", "n_embd", "bias"]}
        cfg.update(dropout=args.get("dropout", config.get("dropout", 0.0)), norm="layernorm", activation="gelu", tie_weights=True)
        meta["config"] = json.dumps(cfg)
        keys = ["batch_size", "max_iters", "learning_rate", "min_lr", "warmup_iters", "lr_decay_iters", "decay_lr",
                "weight_decay", "beta1", "beta2", "grad_clip", "eval_interval", "eval_iters"]
        meta["train_config"] = json.dumps({k: config[k] for k in keys if k in config})
        meta["format"] = "gpt-playground/1"
    cfg = json.loads(meta["config"])
    names = parameter_names(cfg)
    tensors = {n: state[n] for n in names}
    tensors["lm_head.weight"] = state.get("lm_head.weight", state["transformer.wte.weight"])
    meta["step"] = str(checkpoint.get("iter_num", 0))
    opt = checkpoint.get("optimizer", {})
    if opt.get("state"):
        order = [names[i] for i in _order(names, tensors)]
        for i, n in enumerate(order):
            s = opt["state"][i]
            tensors[EXP_AVG + n], tensors[EXP_AVG_SQ + n] = s["exp_avg"], s["exp_avg_sq"]
        meta["optimizer_step"] = str(int(struct.unpack("<f", opt["state"][0]["step"].data)[0]))
    return tensors, meta


def _order(names, tensors):
    """Indices of `names` in nanoGPT's optimizer order: the decayed (2-D and up) first."""
    decay = [i for i, n in enumerate(names) if len(tensors[n].shape) >= 2]
    return decay + [i for i, n in enumerate(names) if len(tensors[n].shape) < 2]
