"""Checks the toy model of superposition (`gpt superposition`) against PyTorch (needs torch; not
part of scripts/test.sh, whose core tests check the model's gradients against finite differences):

    python python/check_superposition.py [--only relu-output linear relu-hidden] [--steps 200]

For each of Elhage et al.'s models, `gpt superposition --trace` trains 200 steps and writes its
initial W and b, each step's rows and each step's training loss. PyTorch then trains the same model
from the same weights on the same rows, with its own autograd and `torch.optim.AdamW` at the
recipe's settings, and each step's loss agrees within 1e-5.
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
    return losses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=["relu-output", "linear", "relu-hidden"])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for variant in args.only:
            path = os.path.join(work, f"{variant}.json")
            gpt("superposition", "--variant", variant, "--steps", args.steps, "--trace", path)
            trace = json.load(open(path))
            ours = trace["losses"]
            gap = close(f"{variant}: the loss at each step", ours, torch_losses(trace))
            print(f"{variant}: {len(ours)} steps, loss {ours[0]:.6f} to {ours[-1]:.6f}, largest gap {gap:.2e}")
    print(f"Every step's loss agrees with PyTorch's within 1e-5 (largest gap {checking.worst['value']:.2e}).")


if __name__ == "__main__":
    main()
