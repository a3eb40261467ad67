"""Checks the learning coefficient's estimator (`gpt inspect llc`) against devinterp's own, on the
same weights and batches (needs torch, safetensors and devinterp: pip install devinterp; not part
of scripts/test.sh, whose core tests check the estimator against coefficients known in closed form):

    python python/check_llc.py [--data ../shared/data/names.txt] [--chains 8]

For a text run trained briefly with `gpt train`, `gpt inspect llc --rows-out` writes the batches
its chains read, its nβ and L(w*), and its first chain's first step after burn-in (the weights it
started from, the batch, the noise, the weights it reached, the next step's batch and the step's
MALA acceptance). Then:
1. that step of devinterp's SGLD (`SGMCMC.sgld`, localised at the trained weights), from the same
   weights on the same batch with the same noise, reaches the same weights within 1e-5;
2. that step's MALA acceptance, as devinterp's `mala_acceptance_probability` computes it, is ours
   within 1e-3. devinterp 2 dropped its MALA callback, so the function is read from devinterp
   1.3.2's wheel (`pip download devinterp==1.3.2 --no-deps`, fetched here);
3. devinterp's estimator (`devinterp.slt.llc`) on those batches, with the same ε, γ, nβ, chains,
   draws and burn-in, gives an LLC within two combined standard errors of ours (the chains' noise
   differs, so the estimates agree only as samples do), and the same L(w*);
4. 1 and 3 again for two heads' refined LLCs (devinterp restricted by a mask built here from the
   shapes), whose chains compute the head alone.
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


def flat_as(flat, order):
    """A flat vector cut into tensors shaped as `order`'s parameters."""
    parts, at = [], 0
    for p in order:
        parts.append(flat[at:at + p.numel()].view_as(p))
        at += p.numel()
    return parts


def head_masks(model, cfg, layer, head):
    """devinterp's weight restriction to one head, built from the shapes: its rows of the fused
    q|k|v projection (and their biases) and its columns of the output projection."""
    c, hs = cfg["n_embd"], cfg["n_embd"] // cfg["n_head"]
    params = dict(model.named_parameters())
    prefix = f"transformer.h.{layer}.attn."
    rows = torch.zeros(3 * c, dtype=torch.bool)
    for third in range(3):
        rows[third * c + head * hs:third * c + (head + 1) * hs] = True
    masks = {prefix + "c_attn.weight": rows[:, None].expand(3 * c, c).clone()}
    if prefix + "c_attn.bias" in params:
        masks[prefix + "c_attn.bias"] = rows.clone()
    columns = torch.zeros(c, c, dtype=torch.bool)
    columns[:, head * hs:(head + 1) * hs] = True
    masks[prefix + "c_proj.weight"] = columns
    return masks


def check_step(model, samples, epsilon, gamma, masks=None):
    """One devinterp SGLD step with our noise, against the weights our kept step reached; with
    `masks` (name → which weights move), restricted to them as devinterp restricts a chain."""
    import devinterp.optim.sgmcmc as sgmcmc

    params = dict(model.named_parameters())
    order = [(name, params[name]) for name, _ in samples["params"]]
    moving = [(name, p) for name, p in order if masks is None or name in masks]
    step = samples["step"]
    # Ours draws one normal per weight that moves, in flat order; devinterp a tensor per parameter,
    # which its mask then zeroes where the weights stay.
    drawn, queue = torch.tensor(step["noise"]), []
    for name, p in moving:
        moves = torch.ones_like(p, dtype=torch.bool) if masks is None else masks[name]
        noise = torch.zeros(p.numel(), dtype=drawn.dtype)
        noise[moves.flatten()] = drawn[:int(moves.sum())]
        drawn = drawn[int(moves.sum()):]
        queue.append(noise.view_as(p))
    assert drawn.numel() == 0, "a draw for every weight that moves"
    x, y = batches(samples)[step["batch"]]
    # Localised at the trained weights, which the model holds as it is built; then moved to where the step starts.
    mask = None if masks is None else [masks[name] for name, _ in moving]
    optimizer = sgmcmc.SGMCMC.sgld([p for _, p in moving], lr=epsilon, localization=gamma, nbeta=samples["nbeta"], mask=mask)
    with torch.no_grad():
        for (_, p), w in zip(order, flat_as(torch.tensor(step["before"]), [p for _, p in order])):
            p.copy_(w)
    _, loss = model(x, y)
    loss.backward()
    normal = sgmcmc.torch.normal
    sgmcmc.torch.normal = lambda *args, **kwargs: queue.pop(0)  # devinterp's noise, drawn in parameter order
    try:
        optimizer.step()
    finally:
        sgmcmc.torch.normal = normal
    reached = torch.cat([p.detach().flatten() for _, p in order])
    close("one SGLD step", reached, torch.tensor(step["after"]), tolerance=1e-5)
    moved = sum(int(masks[name].sum()) for name, _ in moving) if masks else reached.numel()
    print(f"  one step of devinterp's SGLD with our noise reaches our weights ({moved} of them move)")


def devinterp_mala():
    """devinterp 1.3.2's `mala_acceptance_probability`, from its wheel (2.x has none)."""
    import importlib.util
    import subprocess
    import types
    import zipfile

    folder = tempfile.mkdtemp()
    subprocess.run([sys.executable, "-m", "pip", "download", "devinterp==1.3.2", "--no-deps", "-q", "-d", folder], check=True)
    wheel = next(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".whl"))
    zipfile.ZipFile(wheel).extract("devinterp/slt/mala.py", folder)
    # Its callback's base class, which the function does not use.
    sys.modules["devinterp.slt.callback"] = types.SimpleNamespace(SamplerCallback=object)
    spec = importlib.util.spec_from_file_location("mala_1_3_2", os.path.join(folder, "devinterp", "slt", "mala.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.mala_acceptance_probability


def check_acceptance(model, samples, epsilon, gamma, mala):
    """The kept step's MALA acceptance, by devinterp 1.3.2's function, against ours."""
    params = dict(model.named_parameters())
    order = [params[name] for name, _ in samples["params"]]
    w_star = [p.detach().clone() for p in order]
    nbeta, step = samples["nbeta"], samples["step"]

    def point(weights, batch):
        """The weights, the drift nβ∇L + γ(w − w*) and the potential nβL + γ/2|w − w*|² on `batch`."""
        with torch.no_grad():
            for p, w in zip(order, weights):
                p.copy_(w)
        model.zero_grad()
        x, y = batches(samples)[batch]
        _, loss = model(x, y)
        loss.backward()
        drift = [nbeta * p.grad + gamma * (w - w0) for p, w, w0 in zip(order, weights, w_star)]
        pull = sum(((w.double() - w0.double()) ** 2).sum() for w, w0 in zip(weights, w_star))
        # In float64, as ours sums: the formula subtracts sums of 100,000 squares, divided by ε.
        wide = lambda ts: [t.detach().double() for t in ts]  # noqa: E731
        return wide(weights), wide(drift), nbeta * loss.detach().double() + gamma / 2 * pull.double()

    before = point(flat_as(torch.tensor(step["before"]), order), step["batch"])
    after = point(flat_as(torch.tensor(step["after"]), order), step["next_batch"])
    theirs = float(mala(*before, *after, epsilon))
    close("a step's MALA acceptance", samples["acceptance"], theirs, tolerance=1e-3)
    print(f"  step {step['at']}'s MALA acceptance: ours {samples['acceptance']:.4f}, devinterp's {theirs:.4f}")
    return samples["acceptance"]


def check_acceptances(ckpt, data, config, work):
    """A step's acceptance is often 0 or 1 exactly; the steps after burn-ins of 50 on are checked
    until three read neither, so that the check reads the formula, not its clamp."""
    mala, between = devinterp_mala(), 0
    for burn_in in range(config["burn_in"], config["burn_in"] + 60):
        rows_out = os.path.join(work, f"step-{burn_in}.json")
        flags = [f"--epsilon={config['epsilon']}", f"--gamma={config['gamma']}", "--chains=1", "--draws=2", f"--burn-in={burn_in}"]
        gpt("inspect", "--checkpoint", ckpt, "--data", data, "llc", *flags, "--rows-out", rows_out, "--json")
        model, _ = load(ckpt)
        ours = check_acceptance(model.float(), json.load(open(rows_out)), config["epsilon"], config["gamma"], mala)
        between += 1e-3 < ours < 1 - 1e-3
        if between == 3:
            return
    raise AssertionError("no step's acceptance fell between 0 and 1")


def check_estimate(model, samples, ours, config, masks=None):
    """devinterp's estimate on our batches against ours (restricted to `masks`, if given)."""
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
        localization=config["gamma"], param_masks=masks, num_chains=config["chains"], num_draws=config["draws"],
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
        check_acceptances(ckpt, args.data, config, work)
        model, _ = load(ckpt)
        check_estimate(model.float(), samples, ours, config)
        # A head's chain computes that head alone (the rest of its layer's attention kept at w*):
        # one in the first block and one above it.
        for layer, head in [(0, 1), (1, 2)]:
            label = f"L{layer + 1}H{head + 1}"
            print(f"head {label} (its refined LLC):")
            rows_out = os.path.join(work, f"{label}.json")
            line = gpt("inspect", "--checkpoint", ckpt, "--data", args.data, "llc", "--part", label, *flags, "--rows-out", rows_out, "--json")
            ours, samples = json.loads(line)["parts"][0]["llc"], json.load(open(rows_out))
            model, cfg = load(ckpt)
            check_step(model.float(), samples, config["epsilon"], config["gamma"], head_masks(model, cfg, layer, head))
            model, cfg = load(ckpt)
            check_estimate(model.float(), samples, ours, config, head_masks(model, cfg, layer, head))
    print(f"the estimator agrees with devinterp's (largest gap {worst['value']:.1e})")


if __name__ == "__main__":
    main()
