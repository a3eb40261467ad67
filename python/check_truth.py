"""Checks how `gpt superposition --score` scores learned directions against true features, against
SAELens's own code (needs sae-lens, which brings torch; not part of scripts/test.sh, whose core tests
check the Hungarian matching against every pairing of small matrices):

    python python/check_truth.py

For learned and true directions of several shapes (fewer learned than true, as many, more; nearly
the truth, noisy, unrelated, with zero rows), SAELens's `mean_correlation_coefficient` and
`feature_uniqueness` score them, and the share of true features found is read from its
`cosine_similarities` (best |cosine| at least 0.9); the CLI's scores agree within 1e-6. So does
the page's match grid: the first 32 true features against the learned rows scipy's
`linear_sum_assignment` (SAELens's matching) pairs with them, each cell an |cosine|.
"""

import json
import os
import tempfile

import torch
from safetensors.torch import save_file
from sae_lens.synthetic import cosine_similarities, feature_uniqueness, mean_correlation_coefficient
from scipy.optimize import linear_sum_assignment

import checking
from checking import close, gpt

checking.TOLERANCE = 1e-6

# (learned rows, true features, dimensions, how far the learned rows are from the truth)
CASES = [(8, 8, 16, 0.05), (6, 10, 16, 0.3), (24, 10, 16, 0.2), (64, 256, 64, 0.5), (300, 256, 64, 0.02), (12, 12, 8, None)]


def learned_from(truth, rows, noise, generator):
    """`rows` directions: true features, shuffled, flipped and scaled, plus `noise`; or unrelated ones."""
    d = truth.shape[1]
    if noise is None:
        return torch.randn(rows, d, generator=generator)
    picks = torch.randint(0, truth.shape[0], (rows,), generator=generator)
    signs = torch.where(torch.rand(rows, generator=generator) < 0.5, -1.0, 1.0)
    scales = 0.5 + torch.rand(rows, 1, generator=generator)
    return signs[:, None] * scales * (truth[picks] + noise * torch.randn(rows, d, generator=generator))


def check_grid(name, grid, cosines, learned):
    """The match grid: true feature r against the learned row matched to feature c (0 without one).
    Its latents are scipy's matching's, but where a zero row's ties let either pairing be optimal."""
    rows, cols = linear_sum_assignment((1 - cosines).numpy())
    matched = dict(zip(rows.tolist(), cols.tolist()))
    shown = min(32, cosines.shape[0])
    zero = learned.norm(dim=1) == 0
    for c, j in enumerate(grid["latents"]):
        theirs = matched.get(c)
        tied = (j is None or zero[j]) and (theirs is None or zero[theirs])
        assert j == theirs or tied, f"{name}: feature {c}'s latent is {j}, scipy's {theirs}"
    want = [[cosines[r, j].item() if j is not None else 0.0 for j in grid["latents"]] for r in range(shown)]
    close(f"{name} match grid", grid["cosines"], torch.tensor(want).flatten())


def main():
    generator = torch.Generator().manual_seed(0)
    with tempfile.TemporaryDirectory() as work:
        for k, n, d, noise in CASES:
            truth = torch.nn.functional.normalize(torch.randn(n, d, generator=generator), dim=1)
            learned = learned_from(truth, k, noise, generator)
            learned[0] = 0.0  # a dead latent: zero against everything
            path = os.path.join(work, f"{k}x{n}.safetensors")
            save_file({"learned": learned.contiguous(), "truth": truth.contiguous()}, path)
            answer = json.loads(gpt("superposition", "--score", path, "--json").strip().splitlines()[-1])
            ours = answer["scores"]
            cosines = cosine_similarities(truth, learned).abs()
            best = cosines.max(dim=1).values
            close(f"{k}x{n} MCC", ours["mcc"], mean_correlation_coefficient(learned, truth))
            close(f"{k}x{n} best cosines", ours["best_cosine"], best)
            close(f"{k}x{n} found", ours["found"], (best >= 0.9).float().mean())
            close(f"{k}x{n} uniqueness", ours["uniqueness"], feature_uniqueness(learned, truth))
            check_grid(f"{k}x{n}", answer["grid"], cosines, learned)
            print(f"{k} learned, {n} true, {d} dimensions: MCC {ours['mcc']:.4f}, found {ours['found']:.3f}, uniqueness {ours['uniqueness']:.3f}")
    print(f"Every score agrees with SAELens's within 1e-6 (largest gap {checking.worst['value']:.2e}).")


if __name__ == "__main__":
    main()
