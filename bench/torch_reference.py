"""The PyTorch reference for the nano-cpu recipe: nanoGPT's model and training step on CPU
threads (one by default), timed the way `gpt bench` times ours (median ms per step). With --train
it runs the whole recipe (2000 steps on tiny Shakespeare) and prints the validation curve every
250 steps.

    pip install torch numpy
    python bench/torch_reference.py --data ../shared/data/tinyshakespeare.txt [--iters 50] [--threads 1] [--train] [--seed 1337]
"""

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parents[1] / "python"))
from nanogpt import GPT, init_weights  # noqa: E402

RECIPE = dict(n_layer=4, n_head=4, n_embd=128, block_size=64, batch_size=12, max_iters=2000, lr=1e-3,
              min_lr=1e-4, warmup=100, decay_iters=2000, beta2=0.99, weight_decay=0.1, grad_clip=1.0)


def lr_at(it, r):
    if it < r["warmup"]:
        return r["lr"] * (it + 1) / (r["warmup"] + 1)
    if it > r["decay_iters"]:
        return r["min_lr"]
    ratio = (it - r["warmup"]) / (r["decay_iters"] - r["warmup"])
    return r["min_lr"] + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (r["lr"] - r["min_lr"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--eval-iters", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    r = RECIPE
    text = Path(args.data).read_text(encoding="utf-8")
    chars = sorted(set(text))
    lookup = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([lookup[c] for c in text], dtype=torch.long)
    n = int(0.9 * len(data))
    splits = {"train": data[:n], "val": data[n:]}
    cfg = dict(vocab_size=len(chars), block_size=r["block_size"], n_layer=r["n_layer"], n_head=r["n_head"],
               n_embd=r["n_embd"], bias=False, norm="layernorm", activation="gelu", tie_weights=True,
               fused_attention=True)
    model = GPT(cfg)
    init_weights(model, r["n_layer"])
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": r["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=r["lr"], betas=(0.9, r["beta2"]))

    def batch(split):
        d = splits[split]
        ix = torch.randint(len(d) - r["block_size"], (r["batch_size"],))
        x = torch.stack([d[i:i + r["block_size"]] for i in ix])
        y = torch.stack([d[i + 1:i + 1 + r["block_size"]] for i in ix])
        return x, y

    @torch.no_grad()
    def evaluate():
        model.eval()
        out = {s: sum(model(*batch(s))[1].item() for _ in range(args.eval_iters)) / args.eval_iters for s in splits}
        model.train()
        return out

    def step(it):
        for g in opt.param_groups:
            g["lr"] = lr_at(it, r)
        x, y = batch("train")
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), r["grad_clip"])
        opt.step()
        return loss.item()

    tokens = r["batch_size"] * r["block_size"]
    if not args.train:
        for it in range(3):
            step(it)
        times = []
        for it in range(args.iters):
            t0 = time.perf_counter()
            step(it + 3)
            times.append(time.perf_counter() - t0)
        ms = statistics.median(times) * 1000
        print(json.dumps({"reference": f"pytorch {torch.__version__}", "threads": args.threads, "ms_per_iter": round(ms, 2),
                          "tokens_per_s": round(tokens / ms * 1000), "statistic": "median", "iters": args.iters}))
        return
    start = time.perf_counter()
    for it in range(r["max_iters"] + 1):
        if it % 250 == 0:
            losses = evaluate()
            print(json.dumps({"step": it, "train_loss": round(losses["train"], 4), "val_loss": round(losses["val"], 4),
                              "wall_s": round(time.perf_counter() - start, 1)}), flush=True)
        if it < r["max_iters"]:
            step(it)


if __name__ == "__main__":
    main()
