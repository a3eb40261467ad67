"""Checks the measures that test what a head does (`gpt inspect`, the page's testing views) against
an independent PyTorch implementation on the same weights (needs torch: pip install torch
safetensors; not part of scripts/test.sh, whose core tests check each measure by construction):

    python python/check_heads.py [--data ../shared/data/names.txt]

For a text run and two task runs (reverse; modular addition, which adds the Fourier measures),
trained briefly with `gpt train`, this script re-computes in PyTorch, with its own forward pass
that replaces a head's output (TransformerLens's hook_z), an MLP's output (hook_mlp_out) or the
residual stream at one position (hook_resid_pre):
1. ablation, zero and mean, of every head and MLP: held-out loss and accuracy on the rows
   `gpt inspect ablation --rows-out` names;
2. activation patching: every head and every residual position, the share of the logit
   difference restored, on the proposed pair and on a typed one;
3. direct logit attribution through the final norm (TransformerLens's apply_ln_to_stack);
4. Q-, K- and V-composition (TransformerLens's all_composition_scores, with fold_ln and
   center_writing_weights);
5. for modular addition, the embedding's Fourier norms and the restricted and excluded losses.
For the text run, which Transformers' GPT-2 holds, TransformerLens 4 itself (when installed:
pip install transformer-lens) checks the ablation too: its TransformerBridge over `gpt export --hf`,
each head's hook_z replaced. Every number agrees within 1e-4.
"""

import argparse
import json
import math
import os
import sys
import tempfile

import torch
import torch.nn.functional as F
from safetensors import safe_open

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from checking import close, gpt, worst  # noqa: E402
from nanogpt import GPT, rotary  # noqa: E402


def load(ckpt):
    with safe_open(ckpt, "pt") as f:
        meta = f.metadata()
        state = {k: f.get_tensor(k) for k in f.keys() if not k.startswith("optimizer.")}
    cfg = json.loads(meta["config"])
    model = GPT(cfg)
    model.load_state_dict(state, strict=True)
    return model.eval().double(), cfg


def forward(model, cfg, idx, heads=(), mlps=(), resid=(), keep=None):
    """Logits (B, T, V) of `idx` (B, T) with edits: heads [(layer, head, value (T, hs))], mlps
    [(layer, value (T, C))], resid [(layer, position, value (C))]; `keep` collects resid_pre, z, mlp_out."""
    tr, nh = model.transformer, cfg["n_head"]
    B, T = idx.shape
    x = tr.wte(idx)
    if "wpe" in tr:
        x = x + tr.wpe(torch.arange(T))
    for layer, block in enumerate(tr.h):
        for l, p, v in resid:
            if l == layer:
                x = x.clone()
                x[:, p] = v
        attn = block.attn
        q, k, v = attn.c_attn(block.ln_1(x)).split(cfg["n_embd"], dim=2)
        q, k, v = (t.view(B, T, nh, -1).transpose(1, 2) for t in (q, k, v))
        if attn.qk_norm:
            q, k = (F.rms_norm(t, (t.size(-1),), eps=1e-5) for t in (q, k))
        if attn.rope:
            q, k = rotary(q), rotary(k)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        att = att.masked_fill(torch.ones(T, T, dtype=torch.bool).tril().logical_not(), float("-inf"))
        z = (F.softmax(att, dim=-1) @ v).transpose(1, 2).clone()  # (B, T, nh, hs)
        for l, h, value in heads:
            if l == layer:
                z[:, :, h] = value
        if keep is not None:
            keep.setdefault("resid", []).append(x)
            keep.setdefault("z", []).append(z)
        x = x + attn.c_proj(z.reshape(B, T, -1))
        m = block.mlp(block.ln_2(x))
        for l, value in mlps:
            if l == layer:
                m = value.expand_as(m)
        if keep is not None:
            keep.setdefault("mlp", []).append(m)
        x = x + m
    if keep is not None:
        keep["final"] = x
    return model.lm_head(tr.ln_f(x))


def check_ablation(ckpt, model, cfg, work, task, data):
    rows_path = os.path.join(work, "rows.json")
    L, nh, C = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    hs = C // nh
    for fill in ["mean", "zero"]:
        ours = json.loads(gpt("inspect", "--checkpoint", ckpt, "ablation", "--fill", fill, "--json", "--rows-out", rows_path, *data))
        rows = json.load(open(rows_path))
        idx = torch.tensor(rows["ids"]).view(rows["rows"], rows["positions"])
        targets = torch.tensor(rows["targets"]).view(rows["rows"], rows["positions"])
        keep = {}
        with torch.no_grad():
            forward(model, cfg, idx, keep=keep)

        def fill_value(values):  # (B, T, ...) -> (T, ...): per position for a task, else over all
            if fill == "zero":
                return torch.zeros_like(values[0])
            return values.mean(0) if task else values.mean((0, 1)).expand_as(values[0])

        def score(**edits):
            with torch.no_grad():
                logits = forward(model, cfg, idx, **edits)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1).item()
            right = ((logits.argmax(-1) == targets) | (targets == -1)).all(1).double().mean().item()
            return loss, right

        whole = score()
        head_loss, head_acc, mlp_loss, mlp_acc = [], [], [], []
        for l in range(L):
            for h in range(nh):
                loss, acc = score(heads=[(l, h, fill_value(keep["z"][l][:, :, h]))])
                head_loss.append(loss - whole[0])
                head_acc.append(whole[1] - acc)
            loss, acc = score(mlps=[(l, fill_value(keep["mlp"][l]))])
            mlp_loss.append(loss - whole[0])
            mlp_acc.append(whole[1] - acc)
        grid = ours["grid"]
        close(f"{fill} ablation: whole loss", grid["whole"]["loss"], whole[0])
        close(f"{fill} ablation: heads' loss", grid["head_loss"], head_loss)
        close(f"{fill} ablation: MLPs' loss", grid["mlp_loss"], mlp_loss)
        if task:
            close(f"{fill} ablation: heads' accuracy", grid["head_accuracy"], head_acc)
            close(f"{fill} ablation: MLPs' accuracy", grid["mlp_accuracy"], mlp_acc)
        print(f"  {fill} ablation of {L * nh} heads and {L} MLPs on {rows['rows']} rows: agrees")
    assert hs > 0


def check_with_transformer_lens(ckpt, cfg, work, data):
    """Zero and mean ablation of every head through TransformerLens's TransformerBridge over our
    Transformers export, against `gpt inspect ablation`."""
    try:
        from transformer_lens.model_bridge import TransformerBridge
    except ImportError:
        print("  TransformerLens is not installed: its check is skipped (pip install transformer-lens)")
        return
    folder, rows_path = os.path.join(work, "hf"), os.path.join(work, "rows.json")
    gpt("export", "--checkpoint", ckpt, "--hf", folder)
    bridge = TransformerBridge.boot_transformers(folder, device="cpu")
    L, nh = cfg["n_layer"], cfg["n_head"]
    for fill in ["mean", "zero"]:
        ours = json.loads(gpt("inspect", "--checkpoint", ckpt, "ablation", "--fill", fill, "--json", "--rows-out", rows_path, *data))
        rows = json.load(open(rows_path))
        idx = torch.tensor(rows["ids"]).view(rows["rows"], rows["positions"])
        targets = torch.tensor(rows["targets"]).view(rows["rows"], rows["positions"])
        with torch.no_grad():
            logits, cache = bridge.run_with_cache(idx)
        loss = lambda logits: F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-1).item()  # noqa: E731
        whole, costs = loss(logits), []
        for l in range(L):
            z = cache[f"blocks.{l}.attn.hook_z"]  # (B, T, nh, hs)
            for h in range(nh):
                value = torch.zeros_like(z[0, 0, h]) if fill == "zero" else z[:, :, h].mean((0, 1))

                def knock_out(z, hook, h=h, value=value):
                    z[:, :, h] = value
                    return z

                with torch.no_grad():
                    costs.append(loss(bridge.run_with_hooks(idx, fwd_hooks=[(f"blocks.{l}.attn.hook_z", knock_out)])) - whole)
        close(f"TransformerLens {fill} ablation: whole loss", ours["grid"]["whole"]["loss"], whole)
        close(f"TransformerLens {fill} ablation: heads' loss", ours["grid"]["head_loss"], costs)
        print(f"  TransformerLens's TransformerBridge: {fill} ablation of {L * nh} heads agrees")


def check_patching_and_attribution(ckpt, model, cfg, clean="", corrupted=""):
    typed = ["--clean", clean, "--corrupted", corrupted] if clean else []
    ours = json.loads(gpt("inspect", "--checkpoint", ckpt, "patching", "--json", *typed))
    ids = ours["ids"]
    clean_ids, corrupted_ids = torch.tensor([ids["clean"]]), torch.tensor([ids["corrupted"]])
    a, w, T = ids["answer"], ids["wrong"], len(ids["clean"])
    keep = {}
    with torch.no_grad():
        clean_logits = forward(model, cfg, clean_ids, keep=keep)

        def difference(**edits):
            logits = forward(model, cfg, corrupted_ids, **edits)[0, -1]
            return (logits[a] - logits[w]).item()

        d_clean = (clean_logits[0, -1, a] - clean_logits[0, -1, w]).item()
        d_corrupted = difference()
        share = lambda d: (d - d_corrupted) / (d_clean - d_corrupted)  # noqa: E731
        L, nh = cfg["n_layer"], cfg["n_head"]
        heads = [share(difference(heads=[(l, h, keep["z"][l][0, :, h])])) for l in range(L) for h in range(nh)]
        resid = [share(difference(resid=[(l, p, keep["resid"][l][0, p])])) for l in range(L) for p in range(T)]
    close("patching: clean difference", ours["clean_difference"], d_clean)
    close("patching: corrupted difference", ours["corrupted_difference"], d_corrupted)
    close("patching: heads", ours["heads"], heads)
    close("patching: residual stream", ours["residual"], resid)
    print(f"  patching {ours['clean_text']!r} into {ours['corrupted_text']!r}: {L * nh} heads, {L * T} stream positions agree")

    # Direct logit attribution: each part's write, through the final norm's cached scale.
    attribution = json.loads(gpt("inspect", "--checkpoint", ckpt, "attribution", "--json", *typed))
    tr = model.transformer
    x = keep["final"][0, -1]
    layer_norm = cfg["norm"] == "layernorm"
    scale = ((x - x.mean()) if layer_norm else x).pow(2).mean().add(1e-5).rsqrt()
    W_U = model.lm_head.weight
    direction = tr.ln_f.weight * W_U[a], tr.ln_f.weight * (W_U[a] - W_U[w])

    def read(v):
        v = (v - v.mean()) if layer_norm else v
        return [(v * scale * d).sum().item() for d in direction]

    theirs = [read(keep["resid"][0][0, -1])]
    for l, block in enumerate(tr.h):
        W_O = block.attn.c_proj.weight
        hs = cfg["n_embd"] // nh
        for h in range(nh):
            theirs.append(read(W_O[:, h * hs:(h + 1) * hs] @ keep["z"][l][0, -1, h]))
        if block.attn.c_proj.bias is not None:
            theirs.append(read(block.attn.c_proj.bias))
        theirs.append(read(keep["mlp"][l][0, -1]))
    if tr.ln_f.bias is not None:
        b = tr.ln_f.bias
        theirs.append([(b * W_U[a]).sum().item(), (b * (W_U[a] - W_U[w])).sum().item()])
    parts = attribution["parts"]
    assert len(parts) == len(theirs), f"{len(parts)} parts vs {len(theirs)}"
    close("attribution: logit", [p["logit"] for p in parts], [t[0] for t in theirs])
    close("attribution: difference", [p["difference"] for p in parts], [t[1] for t in theirs])
    close("attribution: the parts add up", sum(t[0] for t in theirs), clean_logits[0, -1, a].item())
    print(f"  direct logit attribution of {len(parts)} parts: agrees")


def check_composition(ckpt, model, cfg):
    ours = json.loads(gpt("inspect", "--checkpoint", ckpt, "composition", "--json"))
    if cfg["n_layer"] < 2:
        assert ours is None
        return
    C, nh = cfg["n_embd"], cfg["n_head"]
    hs = C // nh
    centred = cfg["norm"] == "layernorm"

    def centre(m):  # over the stream's channels (rows)
        return m - m.mean(0, keepdim=True) if centred else m

    def matrices(l):
        block = model.transformer.h[l]
        W = block.attn.c_attn.weight  # (3C, C)
        w_ln = block.ln_1.weight
        out = []
        for h in range(nh):
            q, k, v = (centre(w_ln[:, None] * W[p * C + h * hs:p * C + (h + 1) * hs].T) for p in range(3))
            o = centre(block.attn.c_proj.weight[:, h * hs:(h + 1) * hs]).T  # (hs, C)
            out.append((q, k, v, o))
        return out

    fro = torch.linalg.matrix_norm
    scores = {"q": [], "k": [], "v": []}
    for l in range(cfg["n_layer"] - 1):
        for (_, _, v1, o1) in matrices(l):
            ov1 = v1 @ o1
            for (q2, k2, v2, o2) in matrices(l + 1):
                for kind, m in [("q", q2 @ k2.T), ("k", (q2 @ k2.T).T), ("v", v2 @ o2)]:
                    scores[kind].append((fro(ov1 @ m) / fro(ov1) / fro(m)).item())
    for kind in "qkv":
        close(f"{kind.upper()}-composition", ours["now"][kind], scores[kind])
    print(f"  Q-, K- and V-composition of {len(scores['q'])} head pairs: agree")


def check_fourier(ckpt, model, cfg, p, work):
    split = os.path.join(work, "split.json")
    ours = json.loads(gpt("inspect", "--checkpoint", ckpt, "fourier", "--json", "--rows-out", split))["now"]
    train = torch.tensor(json.load(open(split))["train"])
    W_E = model.transformer.wte.weight[:p]
    x = torch.arange(p, dtype=torch.float64)
    basis = [torch.ones(p, dtype=torch.float64)]
    for k in range(1, (p - 1) // 2 + 1):
        basis += [torch.cos(2 * math.pi * k * x / p), torch.sin(2 * math.pi * k * x / p)]
    along = [((b / b.norm()) @ W_E).pow(2).sum() for b in basis]
    norms = [along[0].sqrt().item()] + [(along[2 * k - 1] + along[2 * k]).sqrt().item() for k in range(1, (p - 1) // 2 + 1)]
    close("Fourier: embedding norms", ours["norms"], norms)
    assert ours["key"], "a grokked model has key frequencies, so the restricted and excluded losses project on some"
    a, b = (t.flatten() for t in torch.meshgrid(torch.arange(p), torch.arange(p), indexing="ij"))
    idx = torch.stack([a, torch.full((p * p,), p), b, torch.full((p * p,), p + 1)], 1)
    with torch.no_grad():
        logits = forward(model, cfg, idx)[:, -1]
    labels, s = (a + b) % p, (a + b).double()
    restricted = logits.mean(0, keepdim=True).expand_as(logits).clone()
    excluded = logits.clone()
    for k in ours["key"]:
        for wave in (torch.cos(2 * math.pi * k * s / p), torch.sin(2 * math.pi * k * s / p)):
            wave = wave / wave.norm()
            component = wave[:, None] * (wave @ logits)[None, :]
            restricted += component
            excluded -= component
    close("Fourier: restricted loss", ours["restricted_loss"], F.cross_entropy(restricted, labels).item())
    close("Fourier: excluded loss", ours["excluded_loss"], F.cross_entropy(excluded[train], labels[train]).item())
    close("Fourier: training loss", ours["train_loss"], F.cross_entropy(logits[train], labels[train]).item())
    close("Fourier: held-out loss", ours["test_loss"], F.cross_entropy(logits[~train], labels[~train]).item())
    print(f"  Fourier: norms at {len(norms)} frequencies, restricted and excluded losses over {p * p} problems agree "
          f"(key frequencies {ours['key']})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "names.txt"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        runs = [
            ("text (tiny, names)", ["--data", args.data, "--preset", "tiny", "--iters", "200"], False),
            ("reverse task", ["--task", "reverse", "--iters", "300"], True),
            # The grokking preset, past its jump: key frequencies to project on.
            ("modular addition (grokking, p = 97)", ["--task", "modular", "--iters", "1600"], True),
        ]
        for name, flags, task in runs:
            print(f"{name}:")
            ckpt = os.path.join(work, "run.safetensors")
            gpt("train", *flags, "--out", ckpt, "--json")
            model, cfg = load(ckpt)
            check_ablation(ckpt, model, cfg, work, task, [] if task else ["--data", args.data])
            check_patching_and_attribution(ckpt, model, cfg)
            check_composition(ckpt, model, cfg)
            if not task:
                check_with_transformer_lens(ckpt, cfg, work, ["--data", args.data])
            if "modular" in name:
                check_fourier(ckpt, model, cfg, 97, work)
            if name.startswith("reverse"):
                check_patching_and_attribution(ckpt, model, cfg, "abcd", "abce")
    print(f"every measure agrees with PyTorch (largest gap {worst['value']:.1e})")


if __name__ == "__main__":
    main()
