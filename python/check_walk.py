"""Checks every number the walk through the model shows (`gpt walk --json`, the page's "Walk through
the model") against PyTorch on the same weights (needs torch, transformers, transformer-lens and
safetensors; not part of scripts/test.sh, whose `cargo test` checks each stage against what it
must equal by construction):

    python python/check_walk.py [--data ../shared/data/tinyshakespeare.txt]

For a text run (a GPT-2 export), a RoPE task run (the induction preset: a Starcoder2 export), a
QK-norm, RMSNorm, ReLU, untied run and a Muon run with RoPE and QK-norm (our modelling code), each
trained briefly by `gpt train`:
1. the run's Transformers export is hooked with PyTorch forward hooks at every stage the walk
   shows (embeddings, the stream, the norms, the head's queries, keys and values, with QK-norm and
   RoPE applied here as the playground's PyTorch model applies them, the scores, the attention
   pattern, the weighted sum, the projection, the MLP, the final norm, the logits): within 1e-5;
2. the loss at the position followed, −log p(target), is back-propagated there, and its gradient at
   each of those stages and every weight's gradient norm match the walk's within 1e-4;
3. the training step is taken in the playground's PyTorch model (python/nanogpt.py) with
   torch.optim.AdamW holding the checkpoint's moments (and for a Muon run torch.optim.Muon
   holding its momentum, at the rates the walk names: each optimiser's, and each matrix's as
   torch's own adjustment scales it), clipped as training clips: each weight's update norm and
   the loss after it match the walk's within 1e-4;
4. every hook name the walk gives is in TransformerLens's bridge's run_with_cache and holds the
   same numbers there, row by row where a stage's rows are several hooks (a closed block's), and
   the masked scores are masked there too.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F
from safetensors import safe_open
from transformers import AutoModelForCausalLM

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "crates", "gpt", "tests", "fixtures"))
from nanogpt import GPT, rotary  # noqa: E402
from make_golden import newton_schulz_f32, polar_express_f32  # noqa: E402
from checking import lens_bridge  # noqa: E402

GPT_CLI = ["cargo", "run", "--quiet", "--release", "-p", "gpt-cli", "--"]
FORWARD, BACKWARD = 1e-5, 1e-4
SHORT = ["--iters", "40", "--warmup", "5", "--eval-iters", "2"]
worst = {"forward": 0.0, "backward": 0.0, "update": 0.0}


def gpt(*args):
    cmd = [*GPT_CLI, *map(str, args)]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def in_english(walk):
    """The walk with each stage's words as their English: the engine sends words (a code, its values and the English)."""
    for s in walk["forward"] + walk["backward"]["stages"]:
        s["title"], s["what"] = s["title"]["english"], s["what"]["english"]
    return walk


def masked(x):
    """Where a score is masked: −∞ (ours, and TransformerLens's own), or float32's lowest (what
    Transformers' eager attention fills in)."""
    return x <= -3.0e38


def close(what, ours, theirs, key, tolerance):
    # JSON has no −∞: a masked score comes as null.
    ours = [-math.inf if v is None else v for v in ours] if isinstance(ours, list) else ours
    ours = torch.as_tensor(ours, dtype=torch.float64).flatten()
    theirs = torch.as_tensor(theirs, dtype=torch.float64).flatten()
    assert ours.shape == theirs.shape, f"{what}: {ours.shape} values against {theirs.shape}"
    assert torch.equal(masked(ours), masked(theirs)), f"{what}: masked at other places"
    ours, theirs = ours[~masked(ours)], theirs[~masked(theirs)]
    gap = (ours - theirs).abs().max().item() if ours.numel() else 0.0
    worst[key] = max(worst[key], gap)
    assert gap < tolerance, f"{what}: differ by {gap}\nours   {ours[:8]}\ntheirs {theirs[:8]}"


def points(model):
    """For each stage, the modules whose output (or input) holds it, per architecture."""
    kind = model.config.model_type
    if kind == "starcoder2":
        base, layers = model.model, model.model.layers
        attn = lambda l: layers[l].self_attn  # noqa: E731
        return dict(
            embed=(base.embed_tokens, "out"), layers=layers, ln_f=(base.norm, "out"),
            ln1=lambda l: (layers[l].input_layernorm, "out"),
            qkv=lambda l: [(attn(l).q_proj, "out"), (attn(l).k_proj, "out"), (attn(l).v_proj, "out")],
            proj=lambda l: attn(l).o_proj, ln2=lambda l: layers[l].post_attention_layernorm, mlp=lambda l: layers[l].mlp,
        )
    base = model.transformer
    return dict(
        embed=(base.wte, "out"), pos=(base.wpe, "out") if "wpe" in dict(base.named_children()) else None,
        layers=base.h, ln_f=(base.ln_f, "out"), ln1=lambda l: (base.h[l].ln_1, "out"),
        qkv=lambda l: [(base.h[l].attn.c_attn, "out")], proj=lambda l: base.h[l].attn.c_proj,
        ln2=lambda l: base.h[l].ln_2, mlp=lambda l: base.h[l].mlp,
    )


def hooked(model, ids, position, target):
    """Every stage's tensor (batch 1), its gradient once the loss at `position` is back-propagated,
    the attention patterns and every parameter's gradient."""
    p, kept, handles = points(model), {}, []

    def keep(name, module, where="out"):
        def out_hook(_, args, out):
            t = out[0] if isinstance(out, tuple) else out
            t.retain_grad()
            kept.setdefault(name, []).append(t)

        def in_hook(_, args):
            args[0].retain_grad()
            kept.setdefault(name, []).append(args[0])
        handles.append(module.register_forward_hook(out_hook) if where == "out" else module.register_forward_pre_hook(in_hook))

    keep("hook_embed", *p["embed"])
    if p.get("pos"):
        keep("hook_pos_embed", *p["pos"])
    for l, layer in enumerate(p["layers"]):
        b = f"blocks.{l}."
        keep(b + "hook_resid_pre", layer, "in")
        keep(b + "ln1.hook_out", *p["ln1"](l))
        for module, where in p["qkv"](l):
            keep(b + "attn.hook_qkv", module, where)
        keep(b + "attn.hook_z", p["proj"](l), "in")
        keep(b + "hook_attn_out", p["proj"](l), "out")
        keep(b + "hook_resid_mid", p["ln2"](l), "in")
        keep(b + "ln2.hook_out", p["ln2"](l), "out")
        keep(b + "mlp.hook_pre", p["mlp"](l).c_fc, "out")
        keep(b + "mlp.hook_post", p["mlp"](l).act, "out")
        keep(b + "hook_mlp_out", p["mlp"](l).c_proj, "out")
        keep(b + "hook_resid_post", layer, "out")
    keep("ln_final.hook_out", *p["ln_f"])
    model.zero_grad()
    try:
        out = model(torch.tensor([ids]), output_attentions=True)
    finally:
        for h in handles:
            h.remove()
    logits = out.logits
    logits.retain_grad()
    loss = F.cross_entropy(logits[0, position:position + 1], torch.tensor([target]))
    loss.backward()
    values = {name: torch.cat(ts, dim=-1) for name, ts in kept.items()}
    grads = {name: torch.cat([t.grad for t in ts], dim=-1) for name, ts in kept.items()}
    values["logits"], grads["logits"] = logits, logits.grad
    patterns = torch.stack([a[0] for a in out.attentions])
    param_grads = {n: w.grad for n, w in model.named_parameters() if w.grad is not None}
    return values, grads, patterns, loss.item(), param_grads


def their_norm(model, name, param_grads):
    """The gradient norm of our weight `name` in the export (Starcoder2 splits c_attn in three)."""
    if model.config.model_type != "starcoder2":
        name = "transformer.wte.weight" if name == "lm_head.weight" and name not in param_grads else name
        return param_grads[name].norm().item()
    renames = [("transformer.wte", "model.embed_tokens"), ("transformer.ln_f", "model.norm"), ("transformer.h", "model.layers"),
               ("ln_1", "input_layernorm"), ("ln_2", "post_attention_layernorm"), ("attn.c_proj", "self_attn.o_proj")]
    for a, b in renames:
        name = name.replace(a, b)
    if "attn.c_attn" in name:
        parts = [param_grads[name.replace("attn.c_attn", f"self_attn.{x}_proj")] for x in "qkv"]
        return math.sqrt(sum(g.norm().item() ** 2 for g in parts))
    return param_grads[name].norm().item()


def check_forward_and_backward(walk, model):
    f = walk["followed"]
    ids, p, l, h, t = f["ids"], f["position"], f["layer"], f["head"], len(f["ids"])
    c, nh = walk["n_embd"], walk["n_head"]
    hs = c // nh
    cfg = model.config
    values, grads, patterns, loss, param_grads = hooked(model, ids, p, f["target"]["id"])
    # The playground's QK-norm and RoPE, applied to the hooked projection (python/nanogpt.py).
    qkv = values[f"blocks.{l}.attn.hook_qkv"][0].detach()
    heads = lambda x: x.view(t, nh, hs).transpose(0, 1)  # noqa: E731
    q, k, v = (heads(x) for x in qkv.split(c, dim=-1))
    derived = {}
    if getattr(cfg, "qk_norm", False):
        q, k = (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) for x in (q, k))
        derived["q_norm"] = (q[h], k[h])
    if getattr(cfg, "rope", False) or cfg.model_type == "starcoder2":
        q, k = rotary(q), rotary(k)
        derived["rot"] = (q[h], k[h])
    scores = (q[h] @ k[h].T) / math.sqrt(hs)
    rms = getattr(cfg, "norm", "layernorm") == "rmsnorm"

    def normalised(stream):  # a norm's rows before its gain, as the playground's PyTorch model normalises
        x = values[stream][0, p].detach()
        return x * torch.rsqrt(x.pow(2).mean() + 1e-5) if rms else F.layer_norm(x, x.shape, eps=1e-5)
    streams = {"ln_final": f"blocks.{walk['n_layer'] - 1}.hook_resid_post"}
    for layer in range(walk["n_layer"]):
        streams |= {f"blocks.{layer}.ln1": f"blocks.{layer}.hook_resid_pre", f"blocks.{layer}.ln2": f"blocks.{layer}.hook_resid_mid"}
    values["embed.hook_in"] = torch.tensor([ids])
    values["unembed.hook_out"], grads["unembed.hook_out"] = values["logits"], grads["logits"]
    checked = 0
    for s in walk["forward"]:
        hooks, title, ours = s["hooks"], s["title"], s["values"]
        hook = hooks[0] if hooks else None
        assert hook or "has no hook here" in s["what"], f"{title}: a hook, or the words that say there is none"
        head_cols = lambda x, part: x[0].detach()[:, part * c + h * hs: part * c + (h + 1) * hs]  # noqa: E731
        if len(hooks) > 1:  # a closed block: each row is its own hook at the position
            assert len(hooks) == s["rows"], f"{title}: a hook for each row"
            theirs = torch.stack([values[x][0, p] for x in hooks])
        elif hook == "embed.hook_in":
            theirs = torch.tensor(ids)
        elif title.startswith(("Queries, ", "Keys, ", "Values, ")):
            theirs = head_cols(values[f"blocks.{l}.attn.hook_qkv"], "QKV".index(title[0]))
        elif "after QK-norm" in title:
            theirs = derived["q_norm"]["QK".index(title[0])]
        elif "turned by position" in title:
            theirs = derived["rot"]["QK".index(title[0])]
        elif title.startswith("Scores q·k"):
            theirs = scores.masked_fill(torch.ones(t, t).triu(1).bool(), -math.inf)
        elif hook.endswith(".hook_normalized") and hook.rsplit(".", 1)[0] in streams:
            theirs = normalised(streams[hook.rsplit(".", 1)[0]])
        elif hook.endswith("hook_attn_scores"):
            theirs = scores.masked_fill(torch.ones(t, t).triu(1).bool(), -math.inf)
        elif hook.endswith("hook_pattern"):
            theirs = patterns[l, h]
        elif hook.endswith("attn.hook_z") and s["cols"] == hs:
            theirs = values[hook][0, p, h * hs:(h + 1) * hs]
        elif hook == "hook_pos_embed":
            theirs = values[hook].reshape(-1, c)[p]
        else:
            theirs = values[hook][0, p]
        close(f"forward {title}", ours, theirs.detach(), "forward", FORWARD)
        checked += 1
    d = walk["draw"]
    probs = F.softmax(values["logits"][0, p].detach() / max(d["temperature"], 1e-9), -1) if d["temperature"] > 0 else None
    if probs is not None and d["top_k"] == 0:
        close("the draw's probabilities", [x["prob"] for x in d["likeliest"]], [probs[x["id"]] for x in d["likeliest"]], "forward", FORWARD)
    b = walk["backward"]
    close("the loss −log p(target)", [b["loss"]], [loss], "backward", BACKWARD)
    for s in b["stages"]:
        [hook], title, ours = s["hooks"], s["title"], s["values"]
        if title.startswith("Into the head's "):
            part = ["queries", "keys", "values"].index(title.split()[3].rstrip(","))
            theirs = grads[f"blocks.{l}.attn.hook_qkv"][0, :, part * c + h * hs: part * c + (h + 1) * hs]
        elif hook.endswith("attn.hook_z"):
            theirs = grads[hook][0, :, h * hs:(h + 1) * hs]
        elif hook == "hook_embed":
            theirs = grads[hook][0]
        else:
            theirs = grads[hook][0, p]
        close(f"backward {title}", ours, theirs, "backward", BACKWARD)
        checked += 1
    for ps in b["params"]:
        close(f"the gradient norm of {ps['name']}", [ps["grad_norm"]], [their_norm(model, ps["name"], param_grads)], "backward", BACKWARD)
    print(f"  {checked} stages and {len(b['params'])} weights' gradients agree with PyTorch's hooks on the export")


def check_update(walk, ckpt):
    """The step in the playground's PyTorch model: torch.optim.AdamW holding the checkpoint's
    moments, and for a Muon run torch.optim.Muon holding its momentum for the block matrices, each
    at the rate the walk says it took."""
    with safe_open(ckpt, "pt") as f:
        meta = f.metadata()
        state = {k: f.get_tensor(k) for k in f.keys()}
    cfg, train = json.loads(meta["config"]), json.loads(meta["train_config"])
    model = GPT(cfg)
    model.load_state_dict({k: v for k, v in state.items() if not k.startswith("optimizer.")}, strict=True)
    f, b = walk["followed"], walk["backward"]
    ids, p = torch.tensor([f["ids"]]), f["position"]
    targets = torch.full_like(ids, -1)
    targets[0, p] = f["target"]["id"]

    def loss_at():
        logits, _ = model(ids, ids)
        return F.cross_entropy(logits[0, p:p + 1], targets[0, p:p + 1])

    named = dict(model.named_parameters())
    rates = {r["optimizer"]: r for r in b["rates"]}
    by = {ps["name"]: ps for ps in b["params"]}
    muon = [n for n in named if by[n]["optimizer"] == "muon"]
    rest = [n for n in named if n not in muon]
    assert set(rates) == {"adamw"} | ({"muon"} if muon else set()), f"the walk's optimisers: {list(rates)}"
    assert train["optimizer"] == ("muon" if muon else "adamw"), "Muon moves the block matrices in a Muon run"
    # AdamW's rate is the schedule's at this step; Muon's follows it in proportion.
    lr = rates["adamw"]["lr"]
    close("AdamW's rate", [lr], [learning_rate(train, int(meta["step"]))], "update", 1e-9)
    steps = int(meta["optimizer_step"])
    decay = [named[n] for n in rest if named[n].dim() >= 2]
    no_decay = [named[n] for n in rest if named[n].dim() < 2]
    opts = [torch.optim.AdamW([{"params": decay, "weight_decay": train["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}],
                              lr=lr, betas=(train["beta1"], train["beta2"]), eps=1e-8)]
    for n in rest:
        opts[0].state[named[n]] = {"step": torch.tensor(float(steps)), "exp_avg": state[f"optimizer.exp_avg.{n}"].clone(),
                                   "exp_avg_sq": state[f"optimizer.exp_avg_sq.{n}"].clone()}
    if muon:
        import torch.optim._muon as muon_module
        polar = train.get("muon_ns_coefficients") == "polar_express"
        muon_module._zeropower_via_newtonschulz = polar_express_f32 if polar else newton_schulz_f32
        share = lr / train["learning_rate"]
        close("Muon's rate", [rates["muon"]["lr"]], [train["muon_lr"] * share], "update", 1e-9)
        for n in muon:
            theirs = muon_module._adjust_lr(rates["muon"]["lr"], "original", named[n].shape)
            close(f"the rate of {n}", [by[n]["lr"]], [theirs], "update", 1e-9)
        opts.append(torch.optim.Muon([named[n] for n in muon], lr=rates["muon"]["lr"], momentum=train["muon_momentum"],
                                     weight_decay=train["weight_decay"], nesterov=True, ns_steps=train.get("muon_ns_steps", 5)))
        for n in muon:
            opts[1].state[named[n]] = {"momentum_buffer": state[f"optimizer.muon.{n}"].clone()}
    for n in rest:
        close(f"the rate of {n}", [by[n]["lr"]], [lr], "update", 1e-9)
    before = {n: w.detach().clone() for n, w in named.items()}
    loss = loss_at()
    loss.backward()
    if train["grad_clip"] > 0:
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), train["grad_clip"]).item()
        close("the gradient norm before clipping", [b["grad_norm"]], [norm], "update", BACKWARD)
        close("what clipping multiplied the gradients by", [b["clip_scale"]], [min(1.0, train["grad_clip"] / (norm + 1e-6))], "update", BACKWARD)
    for opt in opts:
        opt.step()
    for ps in b["params"]:
        close(f"the update of {ps['name']}", [ps["update_norm"]], [(named[ps["name"]].detach() - before[ps["name"]]).norm()], "update", BACKWARD)
    with torch.no_grad():
        close("the loss after the step", [b["loss_after"]], [loss_at()], "update", BACKWARD)
    told = "; ".join(f"{r['title']} at {r['lr']:.3e} for {r['weights']}" for r in b["rates"])
    print(f"  the update ({told}) of {len(b['params'])} weights and the loss after it ({b['loss']:.4f} → {b['loss_after']:.4f}) agree")


def learning_rate(train, step):
    """nanoGPT's schedule: linear warmup, then cosine decay to min_lr (train.py's get_lr)."""
    warmup, top, low = train["warmup_iters"], train["learning_rate"], train["min_lr"]
    decay = train.get("lr_decay_iters") or train["max_iters"]
    if not train.get("decay_lr", True):
        return top
    if step < warmup:
        return top * (step + 1) / (warmup + 1)
    if step > decay or decay <= warmup:
        return low
    ratio = (step - warmup) / (decay - warmup)
    return low + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (top - low)


def check_lens_names(walk, folder):
    """Every hook name the walk gives is in TransformerLens's bridge's cache, with the same numbers."""
    bridge = lens_bridge(folder)
    f = walk["followed"]
    _, cache = bridge.run_with_cache(torch.tensor([f["ids"]]))
    p, h, names = f["position"], f["head"], set()
    for s in walk["forward"]:
        rows = [s["values"][r * s["cols"]:(r + 1) * s["cols"]] for r in range(s["rows"])] if len(s["hooks"]) > 1 else [s["values"]]
        for hook, ours in zip(s["hooks"], rows):
            assert hook in cache, f"{s['title']}: TransformerLens's cache has no {hook}"
            theirs = cache[hook][0]
            if hook == "hook_pos_embed":  # (T, C), with or without a batch axis
                theirs = cache[hook].reshape(-1, s["cols"])[p]
            elif hook.endswith(("hook_pattern", "hook_attn_scores")):
                theirs = theirs[h]
            elif hook.endswith(("attn.hook_q", "attn.hook_k", "attn.hook_v", "hook_rot_q", "hook_rot_k")):
                theirs = theirs[:, h]  # (T, nh, hs): the head's, every position
            elif hook.endswith("attn.qkv.hook_out"):  # (T, 3C): the head's columns of the part
                part, c = "QKV".index(s["title"][0]), theirs.shape[-1] // 3
                theirs = theirs[:, part * c + h * s["cols"]: part * c + (h + 1) * s["cols"]]
            elif hook.endswith("hook_z"):
                theirs = theirs.reshape(theirs.shape[0], -1)[p]
                theirs = theirs[h * s["cols"]:(h + 1) * s["cols"]] if s["cols"] < theirs.numel() else theirs
            elif hook != "embed.hook_in":
                theirs = theirs[p]
            close(f"TransformerLens's {hook}", ours, theirs.detach(), "forward", FORWARD)
            names.add(hook)
    print(f"  TransformerLens's run_with_cache holds all {len(names)} of the walk's hook names, with the same numbers")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "tinyshakespeare.txt"))
    args = ap.parse_args()
    data = os.path.abspath(args.data)
    runs = [
        ("a text run (GPT-2)", ["--data", data, "--preset", "tiny"], ["--data", data], ["--position", "3", "--layer", "1", "--head", "2"]),
        ("a RoPE task run (the induction preset: Starcoder2)", ["--task", "repeat"], [], ["--layer", "2", "--head", "1"]),
        ("QK-norm, RMSNorm, ReLU, untied (our modelling code)",
         ["--data", data, "--preset", "tiny", "--qk-norm", "--norm", "rmsnorm", "--activation", "relu", "--tie-weights", "false"],
         ["--data", data], ["--position", "5", "--target", "e"]),
        ("Muon with RoPE and QK-norm (our modelling code)",
         ["--data", data, "--preset", "tiny", "--optimizer", "muon", "--rope", "--qk-norm"], ["--data", data], ["--position", "7"]),
    ]
    for name, train, text, asked in runs:
        print(f"{name}:", flush=True)
        with tempfile.TemporaryDirectory() as work:
            ckpt, folder = os.path.join(work, "run.safetensors"), os.path.join(work, "hf")
            gpt("train", *train, *SHORT, "--out", ckpt, "--json")
            gpt("export", "--checkpoint", ckpt, "--hf", folder)
            for request in ([], asked):
                walk = in_english(json.loads(gpt("walk", "--checkpoint", ckpt, *text, *request, "--temperature", "1", "--json")))
                model = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True, attn_implementation="eager").eval()
                check_forward_and_backward(walk, model)
                check_update(walk, ckpt)
            check_lens_names(walk, folder)
    print(f"every number of the walk agrees with PyTorch: the forward within {worst['forward']:.1e}, the gradients within "
          f"{worst['backward']:.1e}, the updates within {worst['update']:.1e}")


if __name__ == "__main__":
    main()
