"""Checks that models move both ways between gpt-playground and PyTorch/nanoGPT.

Export: `gpt train --out` writes a checkpoint; PyTorch loads its weights into nanoGPT's
architecture with load_state_dict(strict=True), weights tied, and must reproduce our logits
(to 1e-4) and our loss over every window of the text.
Import: a model trained in PyTorch, saved with safetensors.torch.save_file plus `config` and
`vocab` metadata, must give the same logits and loss in `gpt eval`.

    pip install torch safetensors numpy
    python python/interop_check.py --data ../shared/data/names.txt
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT / "python"))
from nanogpt import GPT, init_weights  # noqa: E402


def gpt_cli(*args):
    cmd = ["cargo", "run", "--quiet", "--release", "-p", "gpt-cli", "--", *map(str, args)]
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def torch_windows_loss(model, ids, block):
    windows = (len(ids) - 1) // block
    x = torch.tensor(ids[: windows * block]).view(windows, block)
    y = torch.tensor(ids[1: windows * block + 1]).view(windows, block)
    with torch.no_grad():
        losses = [model(x[i:i + 64], y[i:i + 64])[1].item() * len(x[i:i + 64]) for i in range(0, windows, 64)]
    return sum(losses) / windows


def compare(name, model, ckpt, text_path, ids, block):
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "logits.safetensors"
        ours = json.loads(gpt_cli("eval", "--checkpoint", ckpt, "--text", text_path, "--json", "--logits-out", dump))
        ref = load_file(dump)
    with torch.no_grad():
        logits, _ = model(ref["idx"], ref["idx"])
    worst = (logits - ref["logits"]).abs().max().item() / ref["logits"].abs().max().item()
    theirs = torch_windows_loss(model, ids, block)
    print(f"{name}: logits differ by {worst:.2e} (relative to the largest); "
          f"loss over {ours['windows']} windows: ours {ours['loss']:.6f}, PyTorch {theirs:.6f}")
    assert worst < 1e-4, f"{name}: logits differ by {worst}"
    assert abs(ours["loss"] - theirs) < 1e-4 * theirs, f"{name}: losses differ"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    args = ap.parse_args()
    text_path = Path(args.data).resolve()
    text = text_path.read_text(encoding="utf-8")
    vocab = sorted(set(text))
    ids = [vocab.index(c) for c in text]
    torch.manual_seed(0)

    with tempfile.TemporaryDirectory() as tmp:
        # Export: ours -> PyTorch.
        ckpt = Path(tmp) / "ours.safetensors"
        gpt_cli("train", "--data", text_path, "--preset", "tiny", "--iters", "60", "--out", ckpt, "--json")
        with safe_open(ckpt, "pt") as f:
            meta = f.metadata()
            state = {k: f.get_tensor(k) for k in f.keys() if not k.startswith("optimizer.")}
        cfg = json.loads(meta["config"])
        assert json.loads(meta["vocab"]) == vocab
        model = GPT(cfg)
        model.load_state_dict(state, strict=True)
        assert model.lm_head.weight is model.transformer.wte.weight, "weights stay tied"
        model.eval()
        compare("export (ours -> PyTorch)", model, ckpt, text_path, ids, cfg["block_size"])

        # Import: PyTorch -> ours, trained a few steps so the weights are not just the init.
        cfg = dict(vocab_size=len(vocab), block_size=16, n_layer=2, n_head=2, n_embd=32, dropout=0.0, bias=True,
                   norm="layernorm", activation="gelu", tie_weights=True)
        model = GPT(cfg)
        init_weights(model, cfg["n_layer"])
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
        data = torch.tensor(ids)
        for _ in range(40):
            ix = torch.randint(len(data) - 17, (16,))
            x = torch.stack([data[i:i + 16] for i in ix])
            y = torch.stack([data[i + 1:i + 17] for i in ix])
            _, loss = model(x, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        theirs = Path(tmp) / "theirs.safetensors"
        # save_file refuses tensors that share memory, so the tied pair is saved as two copies.
        tensors = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
        save_file(tensors, theirs, {"config": json.dumps(cfg), "vocab": json.dumps(vocab)})
        compare("import (PyTorch -> ours)", model, theirs, text_path, ids, cfg["block_size"])
    print("interop OK")


if __name__ == "__main__":
    main()
