"""gpt-playground runs ↔ nanoGPT checkpoints (`ckpt.pt`), in memory; `to_nanogpt.py` and
`from_nanogpt.py` are the commands. Standard library only: see checkpoint_formats.py."""

import json
import math
import struct

from checkpoint_formats import Tensor

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


def lr_at(it, t):
    """nanoGPT's learning rate at iteration `it` (train.py's get_lr)."""
    if not t.get("decay_lr", True):
        return t["learning_rate"]
    decay = t.get("lr_decay_iters") or t["max_iters"]
    if it < t["warmup_iters"]:
        return t["learning_rate"] * (it + 1) / (t["warmup_iters"] + 1)
    if it > decay:
        return t["min_lr"]
    ratio = (it - t["warmup_iters"]) / max(1, decay - t["warmup_iters"])
    return t["min_lr"] + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (t["learning_rate"] - t["min_lr"])


def to_nanogpt(tensors, meta, dataset):
    """nanoGPT's checkpoint dict for a run (its tensors and metadata), and its `meta.pkl`
    contents for a character vocabulary (None for byte pairs)."""
    cfg = json.loads(meta["config"])
    wanted = {"norm": "layernorm", "activation": "gelu", "tie_weights": True, "rope": False, "qk_norm": False}
    for key, value in wanted.items():
        if cfg.get(key, value) != value:
            raise ValueError(f"nanoGPT's model.py has only {key}={value}; this run has {key}={cfg[key]}")
    train = json.loads(meta.get("train_config", "{}"))
    step = int(meta.get("step", 0))
    names = parameter_names(cfg)
    model = {n: tensors[n] for n in names}
    model["lm_head.weight"] = tensors["transformer.wte.weight"]  # tied: one storage, as in PyTorch
    decay = [n for n in names if len(tensors[n].shape) >= 2]
    order = decay + [n for n in names if len(tensors[n].shape) < 2]
    moments = all(EXP_AVG + n in tensors for n in names)
    t = int(meta.get("optimizer_step", step))
    state = {
        i: {"step": Tensor((), struct.pack("<f", float(t))), "exp_avg": tensors[EXP_AVG + n], "exp_avg_sq": tensors[EXP_AVG_SQ + n]}
        for i, n in enumerate(order)
    } if moments else {}
    group = {"lr": lr_at(step, train or {"learning_rate": 1e-3, "warmup_iters": 0, "min_lr": 1e-4, "max_iters": 1}),
             "betas": (train.get("beta1", 0.9), train.get("beta2", 0.99)), "eps": 1e-8, "amsgrad": False,
             "foreach": None, "maximize": False, "capturable": False, "differentiable": False, "fused": None}
    groups = [dict(group, weight_decay=train.get("weight_decay", 0.1), params=list(range(len(decay)))),
              dict(group, weight_decay=0.0, params=list(range(len(decay), len(order))))]
    evals = json.loads(meta.get("history", "{}")).get("evals", [])
    model_args = {k: cfg[k] for k in ["n_layer", "n_head", "n_embd", "block_size", "bias", "vocab_size", "dropout"]}
    config = {
        "out_dir": "out", "eval_interval": train.get("eval_interval") or 250, "eval_iters": train.get("eval_iters", 200),
        "init_from": "resume", "dataset": dataset, "gradient_accumulation_steps": 1,
        "batch_size": train.get("batch_size", 12), "learning_rate": train.get("learning_rate", 1e-3),
        "max_iters": train.get("max_iters", 2000), "weight_decay": train.get("weight_decay", 0.1),
        "beta1": train.get("beta1", 0.9), "beta2": train.get("beta2", 0.99), "grad_clip": train.get("grad_clip", 1.0),
        "decay_lr": train.get("decay_lr", True), "warmup_iters": train.get("warmup_iters", 100),
        "lr_decay_iters": train.get("lr_decay_iters") or train.get("max_iters", 2000), "min_lr": train.get("min_lr", 1e-4),
        "device": "cpu", "dtype": "float32", "compile": False, **model_args, OURS: dict(meta),
    }
    checkpoint = {"model": model, "optimizer": {"state": state, "param_groups": groups}, "model_args": model_args,
                  "iter_num": step, "best_val_loss": min([e["val_loss"] for e in evals], default=1e9), "config": config}
    vocab = json.loads(meta["vocab"])
    chars = vocab if isinstance(vocab, list) else None
    meta_pkl = {"vocab_size": len(chars), "itos": dict(enumerate(chars)), "stoi": {c: i for i, c in enumerate(chars)}} if chars else None
    return checkpoint, meta_pkl


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
