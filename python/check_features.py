"""Checks a sparse autoencoder trained by `gpt features` against SAELens on the same weights (needs
torch, transformers and sae-lens: pip install sae-lens; not part of scripts/test.sh, whose core
tests check the autoencoder's gradients against finite differences):

    python python/check_features.py [--data ../shared/data/tinyshakespeare.txt] [--checkpoint run.ckpt]

It trains a short nano-cpu run (or takes --checkpoint), trains a TopK autoencoder on the stream
leaving its last block (and a BatchTopK, a Matryoshka BatchTopK and a JumpReLU one, which SAELens
loads as `jumprelu`), another, ReLU, on an MLP's output, and a ReLU transcoder for that MLP
(SAELens's `Transcoder`: from `ln2.hook_normalized`, the second norm's output, to
`hook_mlp_out`; its output spliced in place of the MLP's), each written in SAELens's format
(`--out`), and the run as a Transformers folder (`gpt export --hf`). Then, on the held-out rows
`gpt features --rows-out` names, with the exported model run by Transformers (PyTorch hooks on the
block or the MLP, at TransformerLens's `hook_resid_post` / `hook_mlp_out`) and the autoencoder
loaded by `SAE.load_from_disk`:
1. the features that fire on each token of the first batch, and their activations;
2. the model's loss clean, with the reconstruction spliced in, and with the activations zeroed,
   and SAELens's `ce_loss_score` (the loss recovered), the loss the reconstruction adds, the
   variance explained and L0;
3. what the feature views show (`gpt features --sae`): each listed feature's density and its
   importance (attribution: −Σ a·d·∂L/∂x, the gradient by PyTorch's autograd), a card's
   promoted and suppressed logits (the direction through ln_f's weight and the unembedding, as
   TransformerLens's fold_ln), and the held-out loss with the feature knocked out.
4. with TransformerLens 3 (the one sae-lens installs), the export opened by the lens's
   `hooked(folder, HookedSAETransformer)`: SAELens's `run_with_cache_with_saes` gives the same
   features on the first batch, and its logits with the autoencoder spliced in are Transformers';
   also for two short runs of the other exports: rotary positions with RMSNorm and QK-norm (our
   modelling code), and rotary positions alone (Starcoder2).
Every number agrees within 1e-4.
"""

import argparse
import json
import os
import sys
import tempfile

import torch
import torch.nn.functional as F
from sae_lens import SAE
from transformers import AutoModelForCausalLM

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from checking import TOLERANCE, close, gpt, worst  # noqa: E402


def hooked_module(model, hook_name):
    """The Transformers module whose output is TransformerLens's `hook_name` (a Starcoder2 export's
    blocks are `model.layers`, the others' `transformer.h`; `ln2.hook_normalized` is the second
    norm's output, what the MLP reads)."""
    _, layer, hook = hook_name.split(".", 2)
    starcoder2 = model.config.model_type == "starcoder2"
    blocks = model.model.layers if starcoder2 else model.transformer.h
    block = blocks[int(layer)]
    norm = block.post_attention_layernorm if starcoder2 else block.ln_2
    return {"hook_resid_post": block, "hook_mlp_out": block.mlp, "ln2.hook_normalized": norm}[hook]


def modules(model, sae):
    """The modules an autoencoder reads and writes at: the same one, or a transcoder's two."""
    reads = hooked_module(model, sae.cfg.metadata.hook_name)
    out = writes_at(sae)
    return reads, hooked_module(model, out) if out else reads


def writes_at(sae):
    """A transcoder's output hook, none for an autoencoder."""
    return sae.cfg.metadata["hook_name_out"] if "hook_name_out" in sae.cfg.metadata else None


def transformers_model(folder):
    """The export in `folder` as Transformers loads it (our modelling code, when it has it)."""
    return AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, trust_remote_code=True).eval()


def run_with(model, points, ids, replace=None):
    """The logits of `ids`, the activations where the autoencoder writes and those it reads
    (`points`: the two modules, or the same one twice), those it writes rewritten by
    `replace(written, read)` when given."""
    reads, writes = points
    seen = {}

    def value(output):
        return output[0] if isinstance(output, tuple) else output

    def read(_, __, output):
        seen["in"] = value(output).detach().clone()

    def write(_, __, output):
        seen["out"] = value(output).detach().clone()
        if replace is None:
            return None
        new = replace(value(output), seen["in"])
        return (new, *output[1:]) if isinstance(output, tuple) else new

    handles = [reads.register_forward_hook(read), writes.register_forward_hook(write)]
    try:
        logits = model(ids).logits
    finally:
        for handle in handles:
            handle.remove()
    return logits, seen["out"], seen["in"]


def loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-1).item()


def measures(model, sae, rows, codes=None):
    """SAELens's measures of `sae` on the held-out `rows` (`gpt features --rows-out`), the model
    run by Transformers; checks the first batch's features against `codes` when given."""
    points = modules(model, sae)
    b, t = rows["b"], rows["t"]
    losses, fired, sums = [[], [], []], torch.zeros(sae.cfg.d_sae), {"err": 0.0, "sq": 0.0, "sum": 0.0, "n": 0}
    with torch.no_grad():
        for i, batch in enumerate(rows["batches"]):
            ids = torch.tensor(batch["ids"]).reshape(b, t)
            targets = torch.tensor(batch["targets"]).reshape(b, t)
            logits, acts, read = run_with(model, points, ids)
            flat = acts.reshape(-1, acts.shape[-1])
            feats = sae.encode(read.reshape(-1, read.shape[-1]))
            if i == 0 and codes is not None:
                dense = torch.zeros_like(feats)
                for n in range(len(codes["starts"]) - 1):
                    for k in range(codes["starts"][n], codes["starts"][n + 1]):
                        dense[n, codes["features"][k]] = codes["values"][k]
                gap = close("feature activations of the first batch", dense, feats)
                print(f"  feature activations of the first batch agree within {gap:.1e}")
            recon = sae.decode(feats)
            fired += (feats > 0).sum(0)
            sums["err"] += (recon - flat).pow(2).sum().item()
            sums["sq"] += flat.double().pow(2).sum().item()
            sums["sum"] = sums["sum"] + flat.double().sum(0)
            sums["n"] += flat.shape[0]
            losses[0].append(loss(logits, targets))
            losses[1].append(loss(run_with(model, points, ids, lambda v, x: sae(x))[0], targets))
            losses[2].append(loss(run_with(model, points, ids, lambda v, x: torch.zeros_like(v))[0], targets))
    clean, with_sae, zeroed = (sum(l) / len(l) for l in losses)
    n = sums["n"]
    variance = sums["sq"] / n - (sums["sum"] / n).pow(2).sum().item()
    return {
        "loss_clean": clean,
        "loss_with_sae": with_sae,
        "loss_zeroed": zeroed,
        "loss_recovered": (zeroed - with_sae) / (zeroed - clean),
        "loss_added": with_sae - clean,
        "explained_variance": 1 - sums["err"] / n / variance,
        "l0": fired.sum().item() / n,
        "silent": (fired == 0).float().mean().item(),
    }


def views(model, sae, rows, shown):
    """Recomputes what `gpt features --list --card --knock-out --json` printed (`shown`)."""
    points = modules(model, sae)
    b, t = rows["b"], rows["t"]
    fired, importance, knocked = torch.zeros(sae.cfg.d_sae), torch.zeros(sae.cfg.d_sae, dtype=torch.float64), []
    j = shown["knock_out"]["feature"]
    for batch in rows["batches"]:
        ids = torch.tensor(batch["ids"]).reshape(b, t)
        targets = torch.tensor(batch["targets"]).reshape(b, t)
        held = {}

        def keep_grad(value, _):
            value = value.detach().requires_grad_(True)
            held["acts"] = value
            return value

        logits, _, read = run_with(model, points, ids, keep_grad)
        torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                                          ignore_index=-1).backward()
        with torch.no_grad():
            grads = held["acts"].grad.reshape(-1, sae.cfg.d_in)
            feats = sae.encode(read.reshape(-1, sae.cfg.d_in))
            fired += (feats > 0).sum(0)
            importance -= (feats * (grads @ sae.W_dec.T)).sum(0).double()
            without = lambda v, x: v - sae.encode(x)[..., j : j + 1] * sae.W_dec[j]
            knocked.append(loss(run_with(model, points, ids, without)[0], targets))
    tokens = len(rows["batches"]) * b * t
    importance /= len(rows["batches"])
    for s in shown["list"]:
        close(f"feature {s['feature']}'s density", s["density"], fired[s["feature"]] / tokens)
        close(f"feature {s['feature']}'s importance", s["importance"], importance[s["feature"]])
    card = shown["card"]
    f = card["summary"]["feature"]
    with torch.no_grad():
        logits = (sae.W_dec[f] * model.transformer.ln_f.weight) @ model.lm_head.weight.T
    top = logits.topk(len(card["promoted"]))
    close(f"feature {f}'s promoted logits", [p["logit"] for p in card["promoted"]], top.values)
    bottom = (-logits).topk(len(card["suppressed"]))
    close(f"feature {f}'s suppressed logits", [p["logit"] for p in card["suppressed"]], -bottom.values)
    close(f"the loss with feature {j} knocked out", shown["knock_out"]["loss_without"], sum(knocked) / len(knocked))
    print(f"  the views of {len(shown['list'])} features, feature {f}'s card and feature {j}'s knockout agree")


def through_transformer_lens_3(hf, sae, rows, codes):
    """SAELens's HookedSAETransformer over the export (`gpt_playground_lens.hooked`), on the first batch."""
    sys.path.insert(0, hf)
    import gpt_playground_lens
    from sae_lens import HookedSAETransformer

    lens = gpt_playground_lens.hooked(hf, HookedSAETransformer)
    ids = torch.tensor(rows["batches"][0]["ids"]).reshape(rows["b"], rows["t"])
    hook = sae.cfg.metadata.hook_name
    with torch.no_grad():
        logits, cache = lens.run_with_cache_with_saes(ids, saes=[sae])
        feats = cache[f"{hook}.hook_sae_acts_post"].reshape(-1, sae.cfg.d_sae)
        model = transformers_model(hf)
        spliced = run_with(model, modules(model, sae), ids, lambda v, x: sae(x))[0]
    dense = torch.zeros_like(feats)
    for n in range(len(codes["starts"]) - 1):
        for k in range(codes["starts"][n], codes["starts"][n + 1]):
            dense[n, codes["features"][k]] = codes["values"][k]
    gap = close("TransformerLens 3's features", dense, feats)
    gap = max(gap, close("TransformerLens 3's logits with the autoencoder", spliced, logits))
    print(f"  through TransformerLens 3's HookedSAETransformer: features and spliced logits agree within {gap:.1e}")


def check(checkpoint, data, hf, tmp, name, flags):
    out, rows_out = os.path.join(tmp, name), os.path.join(tmp, f"{name}-rows.json")
    lines = gpt("features", "--checkpoint", checkpoint, "--data", data, "--out", out, "--rows-out", rows_out,
                "--json", *flags)
    ours = json.loads(lines.strip().splitlines()[-1])["measures"]
    rows = json.load(open(rows_out))
    sae = SAE.load_from_disk(out)
    model = transformers_model(hf)
    print(f"{name}: {sae.cfg.architecture()} at {sae.cfg.metadata.hook_name}, {sae.cfg.d_sae} features")
    theirs = measures(model, sae, rows, rows["codes"])
    for key, value in theirs.items():
        # L0 counts firings: one pre-activation within rounding of 0 may flip, so it is compared
        # relative to its size.
        gap = close(key, ours[key], value, relative=key == "l0")
        print(f"  {key}: {ours[key]:.6f} against {value:.6f} (gap {gap:.1e})")
    lines = gpt("features", "--checkpoint", checkpoint, "--data", data, "--sae", out, "--measure-batches", 2,
                "--list", "importance", "--top", 8, "--card", 5, "--knock-out", 0, "--json")
    shown = {}
    for line in lines.strip().splitlines():
        shown.update(json.loads(line))
    views(model, sae, rows, shown)
    if not hasattr(__import__("transformer_lens"), "TransformerBridge") and not writes_at(sae):
        through_transformer_lens_3(hf, sae, rows, rows["codes"])


def other_architectures(data, tmp):
    """TransformerLens 3 over the exports that are not GPT-2's, each with a short TopK autoencoder."""
    for tag, name, flags in [("ours", "rotary, RMSNorm and QK-norm", ["--rope", "--qk-norm", "--norm", "rmsnorm"]),
                             ("starcoder2", "rotary (Starcoder2)", ["--rope"])]:
        run, hf, out = (os.path.join(tmp, f"{tag}-{k}") for k in ("run.ckpt", "hf", "sae"))
        gpt("train", "--preset", "nano-cpu", "--data", data, "--iters", 100, "--out", run, *flags)
        gpt("export", "--checkpoint", run, "--hf", hf)
        rows_out = os.path.join(tmp, f"{tag}-rows.json")
        gpt("features", "--checkpoint", run, "--data", data, "--out", out, "--rows-out", rows_out,
            "--steps", 40, "--every", 40, "--measure-batches", 1)
        rows = json.load(open(rows_out))
        print(f"{name}:")
        through_transformer_lens_3(hf, SAE.load_from_disk(out), rows, rows["codes"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "tinyshakespeare.txt"))
    p.add_argument("--checkpoint")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        checkpoint = a.checkpoint or os.path.join(tmp, "nano.ckpt")
        if not a.checkpoint:
            gpt("train", "--preset", "nano-cpu", "--data", a.data, "--iters", 300, "--out", checkpoint)
        hf = os.path.join(tmp, "hf")
        gpt("export", "--checkpoint", checkpoint, "--hf", hf)
        common = ["--steps", 60, "--every", 60, "--measure-batches", 2]
        check(checkpoint, a.data, hf, tmp, "topk", common)
        check(checkpoint, a.data, hf, tmp, "relu", [*common, "--hook", "blocks.1.hook_mlp_out", "--l1", 0.05])
        check(checkpoint, a.data, hf, tmp, "transcoder", [*common, "--transcoder", 1, "--l1", 0.05])
        # SAELens saves BatchTopK and Matryoshka as JumpReLU, their learnt threshold each feature's.
        for kind in ("batchtopk", "matryoshka", "jumprelu"):
            check(checkpoint, a.data, hf, tmp, kind, [*common, "--architecture", kind])
        if not hasattr(__import__("transformer_lens"), "TransformerBridge"):
            other_architectures(a.data, tmp)
    print(f"every number agrees with SAELens within {TOLERANCE} (largest gap {worst['value']:.2e})")


if __name__ == "__main__":
    sys.exit(main())
