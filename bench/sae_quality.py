"""Our sparse autoencoder's training against SAELens's, on the same model's activations and the same
token budget (needs torch, transformers and sae-lens; run by hand, not by scripts/test.sh):

    python bench/sae_quality.py --checkpoint nano.ckpt [--data ../shared/data/tinyshakespeare.txt]
        [--steps 300] [--rows 64] [--lr 1e-3] [--saelens-lr 3e-4] [--threads 2]

Ours: `gpt features` (TopK, 8 features per channel, k = 32, on the stream leaving the last block).
SAELens's: its own TopKTrainingSAE, stepped as its SAETrainer steps one (`training_forward_pass`
with the dead-feature mask of its `dead_feature_window`, Adam, gradients clipped to 1, a constant
rate), fed the activations of the run's Transformers export (PyTorch hooks at the same hook
point) on random windows of the same training text. TransformerLens 3 cannot open the run, so
SAELens's runner, which reads activations through it, cannot be used as it is. Both are measured
by the same code (`python/check_features.py`) on the same held-out rows, and timed on the same
threads: tokens per second include the model's forward pass on each side.
"""

import argparse
import json
import os
import sys
import tempfile
import time

import torch
from sae_lens import SAE
from sae_lens.saes.sae import TrainStepInput
from sae_lens.saes.topk_sae import TopKTrainingSAE, TopKTrainingSAEConfig
from transformers import AutoModelForCausalLM

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from check_features import hooked_module, measures, run_with  # noqa: E402
from checking import gpt  # noqa: E402


def train_ids(text, block):
    """The run's training ids, as a char-level run splits its text (the first 90%)."""
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([stoi[c] for c in text])
    return ids[: int(len(ids) * 0.9)]


def train_saelens(model, hook, ids, a, d_in, block):
    torch.manual_seed(a.seed)
    cfg = TopKTrainingSAEConfig(d_in=d_in, d_sae=8 * d_in, k=32)
    cfg.metadata.hook_name = hook
    sae = TopKTrainingSAE(cfg)
    optimizer = torch.optim.Adam(sae.parameters(), lr=a.saelens_lr, betas=(0.9, 0.999))
    since_fired = torch.zeros(cfg.d_sae)
    module = hooked_module(model, hook)
    generator = torch.Generator().manual_seed(a.seed)
    start = time.perf_counter()
    for step in range(a.steps):
        at = torch.randint(len(ids) - block - 1, (a.rows,), generator=generator)
        windows = torch.stack([ids[i : i + block] for i in at])
        with torch.no_grad():
            acts = run_with(model, module, windows)[1].reshape(-1, d_in)
        out = sae.training_forward_pass(
            TrainStepInput(sae_in=acts, dead_neuron_mask=since_fired > a.dead_window, coefficients={},
                           n_training_steps=step, is_logging_step=False)
        )
        with torch.no_grad():
            did_fire = out.feature_acts.bool().sum(-2).bool()
            since_fired += 1
            since_fired[did_fire] = 0
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(sae.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
    seconds = time.perf_counter() - start
    return sae, seconds


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "tinyshakespeare.txt"))
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--rows", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--saelens-lr", type=float, default=3e-4)
    p.add_argument("--dead-window", type=int, default=1000, help="SAELens's dead_feature_window, in steps")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--measure-batches", type=int, default=8)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    with tempfile.TemporaryDirectory() as tmp:
        hf, out, rows_out = (os.path.join(tmp, n) for n in ("hf", "sae", "rows.json"))
        gpt("export", "--checkpoint", a.checkpoint, "--hf", hf)
        lines = gpt("features", "--checkpoint", a.checkpoint, "--data", a.data, "--steps", a.steps, "--every",
                    a.steps, "--rows", a.rows, "--lr", a.lr, "--threads", a.threads, "--seed", a.seed,
                    "--measure-batches", a.measure_batches, "--out", out, "--rows-out", rows_out, "--json")
        last = json.loads(lines.strip().splitlines()[-1])
        rows = json.load(open(rows_out))
        model = AutoModelForCausalLM.from_pretrained(hf, dtype=torch.float32).eval()
        ours_sae = SAE.load_from_disk(out)
        hook, d_in = ours_sae.cfg.metadata.hook_name, ours_sae.cfg.d_in
        ours = measures(model, ours_sae, rows)
        ours["dead"] = last["measures"]["dead"]
        ids = train_ids(open(a.data, encoding="utf-8").read(), rows["t"])
        theirs_sae, seconds = train_saelens(model, hook, ids, a, d_in, rows["t"])
        theirs_sae.eval()
        theirs = measures(model, theirs_sae, rows)
        tokens = a.steps * a.rows * rows["t"]
    print(f"{tokens} training tokens ({a.steps} steps of {a.rows} x {rows['t']}), {hook}, {8 * d_in} features, k = 32")
    print(f"{'':24}{'ours':>10}{'SAELens':>10}{'gap':>8}")
    for key in ("explained_variance", "loss_recovered", "l0", "silent"):
        print(f"{key:24}{ours[key]:>10.4f}{theirs[key]:>10.4f}{ours[key] - theirs[key]:>8.4f}")
    print(f"{'dead (ours, training)':24}{ours['dead']:>10.4f}")
    print(f"{'tokens/s':24}{last['tokens_per_s']:>10.0f}{tokens / seconds:>10.0f}")


if __name__ == "__main__":
    sys.exit(main())
