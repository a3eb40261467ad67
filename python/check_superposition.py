"""Checks the toy model of superposition (`gpt superposition`) against PyTorch (needs torch; not
part of scripts/test.sh, whose core tests check the model's gradients against finite differences):

    python python/check_superposition.py [--only relu-output linear relu-hidden] [--steps 200]

For each of Elhage et al.'s models, `gpt superposition --trace` trains 200 steps and writes its
initial W and b, each step's rows and each step's training loss. PyTorch then trains the same model
from the same weights on the same rows, with its own autograd and `torch.optim.AdamW` at the
recipe's settings, and each step's loss agrees within 1e-5; so does the geometry the page shows of the
trained model (W Wᵀ, b, each feature's norm and dimensionality, features per dimension), computed by
PyTorch from its own weights.
"""

import argparse
import json
import os
import tempfile

import torch

import checking
from checking import close, gpt

checking.TOLERANCE = 1e-5


def torch_losses(trace):
    """Each step's loss as PyTorch trains the traced model on the traced rows."""
    s, t = trace["settings"], trace["train"]
    n, m = s["features"], s["hidden"]
    last = s.get("last_importance")
    importance = torch.tensor([(1.0 if i < n - 1 else last) if last else s["importance_decay"] ** i for i in range(n)])
    w = torch.tensor(trace["w"]).view(n, m).requires_grad_()
    b = torch.tensor(trace["b"]).requires_grad_()
    opt = torch.optim.AdamW([w, b], lr=t["learning_rate"], betas=(t["beta1"], t["beta2"]), eps=1e-8, weight_decay=t["weight_decay"])
    losses = []
    for rows in trace["rows"]:
        x = torch.tensor(rows).view(-1, n)
        h = x @ w
        if s["variant"] == "relu_hidden":
            h = torch.relu(h)
        z = h @ w.T + b
        out = z if s["variant"] == "linear" else torch.relu(z)
        loss = (importance * (x - out) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, w.detach(), b.detach()


def torch_geometry(w, b):
    """What the page shows of a model, from its weights: W Wᵀ and b, each feature's norm and
    dimensionality (Elhage's ‖W_i‖² / Σ_j (Ŵ_i·W_j)², 0 for a feature not stored), features per dimension."""
    gram = w @ w.T
    norms = w.norm(dim=1)
    unit = w / norms.clamp(min=1e-12)[:, None]
    dims = torch.where(norms > 1e-6, norms**2 / ((unit @ w.T) ** 2).sum(dim=1), torch.zeros_like(norms))
    return {"gram": gram, "b": b, "norms": norms, "dimensionality": dims, "features_per_dimension": (w**2).sum() / w.shape[1]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=["relu-output", "linear", "relu-hidden"])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for variant in args.only:
            path = os.path.join(work, f"{variant}.json")
            shown = json.loads(gpt("superposition", "--variant", variant, "--steps", args.steps, "--trace", path, "--json").strip().splitlines()[-1])
            trace = json.load(open(path))
            ours = trace["losses"]
            losses, w, b = torch_losses(trace)
            gap = close(f"{variant}: the loss at each step", ours, losses)
            for name, theirs in torch_geometry(w, b).items():
                gap = max(gap, close(f"{variant}: {name}", shown["geometry"][name], theirs.flatten() if theirs.dim() else theirs))
            print(f"{variant}: {len(ours)} steps, loss {ours[0]:.6f} to {ours[-1]:.6f}, and the geometry the page shows; largest gap {gap:.2e}")
    print(f"Every step's loss and the trained geometry agree with PyTorch's within 1e-5 (largest gap {checking.worst['value']:.2e}).")


if __name__ == "__main__":
    main()
