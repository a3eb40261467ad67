"""Checks the learning coefficient's estimator (`gpt inspect llc`) against devinterp's own, on the
same weights and batches (needs torch, safetensors and devinterp: pip install devinterp; not part
of scripts/test.sh, whose core tests check the estimator against coefficients known in closed form):

    python python/check_llc.py [--data ../shared/data/names.txt] [--chains 8]

For a text run trained briefly with `gpt train`, `gpt inspect llc --rows-out` writes the batches
its chains read, its nβ and L(w*), and its first chain's first step (the batch, the noise and the
weights it reached). Then:
1. one step of devinterp's SGLD (`SGMCMC.sgld`), from the same weights on the same batch with the
   same noise, reaches the same weights within 1e-5;
2. devinterp's estimator (`devinterp.slt.llc`) on those batches, with the same ε, γ, nβ, chains,
   draws and burn-in, gives an LLC within two combined standard errors of ours (the chains' noise
   differs, so the estimates agree only as samples do), and the same L(w*).
"""

import argparse
import json
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from check_heads import load  # noqa: E402
from checking import close, gpt, worst  # noqa: E402


def batches(samples):
    """The chains' batches as (ids, targets) tensors of rows × t."""
    shape = (samples["rows"], samples["t"])
    return [(torch.tensor(x).view(shape), torch.tensor(y).view(shape)) for x, y in zip(samples["ids"], samples["targets"])]


def check_step(model, samples, epsilon, gamma):
    """One devinterp SGLD step with our noise, against the weights our first step reached."""
    import devinterp.optim.sgmcmc as sgmcmc

    params = dict(model.named_parameters())
    order = [(name, params[name]) for name, _ in samples["params"]]
    noise, at, queue = torch.tensor(samples["first"]["noise"]), 0, []
    for _, p in order:
        queue.append(noise[at:at + p.numel()].view_as(p))
        at += p.numel()
    x, y = batches(samples)[samples["first"]["batch"]]
    optimizer = sgmcmc.SGMCMC.sgld([p for _, p in order], lr=epsilon, localization=gamma, nbeta=samples["nbeta"])
    _, loss = model(x, y)
    loss.backward()
    normal = sgmcmc.torch.normal
    sgmcmc.torch.normal = lambda *args, **kwargs: queue.pop(0)  # devinterp's noise, drawn in parameter order
    try:
        optimizer.step()
    finally:
        sgmcmc.torch.normal = normal
    reached = torch.cat([p.detach().flatten() for _, p in order])
    close("one SGLD step", reached, torch.tensor(samples["first"]["after"]), tolerance=1e-5)
    print(f"  one step of devinterp's SGLD with our noise reaches our weights ({reached.numel()} of them)")


def check_estimate(model, samples, ours, config):
    """devinterp's estimate on our batches against ours."""
    from datasets import Dataset
    from devinterp.slt.llc import llc

    rows = []
    for x, y in batches(samples):
        assert torch.equal(x[:, 1:], y[:, :-1]), "a text run's targets are its ids, one on"
        rows += torch.cat([x, y[:, -1:]], dim=1).tolist()

    def per_token(m, input_ids):
        logits, _ = m(input_ids[:, :-1], input_ids[:, 1:].contiguous())
        return F.cross_entropy(logits.transpose(1, 2), input_ids[:, 1:], reduction="none")

    theirs = llc(
        model, Dataset.from_dict({"input_ids": rows}).with_format("torch"), {}, lr=config["epsilon"], n_beta=samples["nbeta"],
        localization=config["gamma"], num_chains=config["chains"], num_draws=config["draws"],
        num_burnin_steps=config["burn_in"], batch_size=samples["rows"], num_init_loss_batches=len(samples["ids"]),
        loss_fn=per_token, device="cpu",
    )
    mean, std = float(theirs.llc_mean), float(theirs.llc_per_chain.std(ddof=1))
    chains = config["chains"]
    error = ((ours["std"] ** 2 + std ** 2) / chains) ** 0.5
    z = abs(ours["mean"] - mean) / error
    print(f"  LLC: ours {ours['mean']:.3f} ± {ours['std']:.3f}, devinterp's {mean:.3f} ± {std:.3f} over {chains} "
          f"chains: {z:.2f} combined standard errors apart")
    assert z <= 2.0, "the estimates differ by more than two combined standard errors"
    close("L(w*)", ours["init_loss"], float(theirs.init_loss), tolerance=1e-4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "names.txt"))
    ap.add_argument("--chains", type=int, default=8)
    args = ap.parse_args()
    config = {"epsilon": 3e-5, "gamma": 10000.0, "chains": args.chains, "draws": 200, "burn_in": 50}
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in config.items()]
    with tempfile.TemporaryDirectory() as work:
        ckpt, rows_out = os.path.join(work, "run.safetensors"), os.path.join(work, "samples.json")
        print("text (tiny, names):")
        gpt("train", "--data", args.data, "--preset", "tiny", "--iters", "300", "--out", ckpt, "--json")
        line = gpt("inspect", "--checkpoint", ckpt, "--data", args.data, "llc", *flags, "--rows-out", rows_out, "--json")
        ours = json.loads(line)["parts"][0]["llc"]
        samples = json.load(open(rows_out))
        model, _ = load(ckpt)
        check_step(model.float(), samples, config["epsilon"], config["gamma"])
        model, _ = load(ckpt)
        check_estimate(model.float(), samples, ours, config)
    print(f"the estimator agrees with devinterp's (largest gap {worst['value']:.1e})")


if __name__ == "__main__":
    main()
