"""Checks the playground's correlated synthetic features against scipy and SAELens's own sampler
(needs sae-lens and scipy; not part of scripts/test.sh):

    python python/check_correlation.py

`gpt superposition --synthetic --correlation RANK,SCALE --trace FILE` writes the generator: each
feature's firing probability, the correlation's factor F (features × rank) and thresholds, and the
features firing in 20,000 training rows. For each setting below:
- each threshold is scipy's `norm.ppf(1 − p)` within 1e-5, and each feature keeps a variance of 1
  with at least SAELens's 0.01 of its own (F's rows capped as SAELens caps them);
- each feature fires as often as its probability, and each pair of features fires together as
  often as the exact orthant probability of the bivariate normal with correlation F_i · F_j
  (scipy's `multivariate_normal.cdf`), within 5 standard errors of the 20,000 rows;
- SAELens's `_generate_low_rank_correlated_features`, given the same F, fires each pair together
  as often as the playground does, within 5 combined standard errors.
"""

import json
import math
import os
import tempfile

import numpy as np
import torch
from scipy.stats import multivariate_normal, norm
from sae_lens.synthetic.activation_generator import _generate_low_rank_correlated_features

from checking import gpt

SETTINGS = [  # features, dims, rank, scale, sparsity
    (24, 16, 4, 0.3, 0.9),
    (32, 16, 16, 0.075, 0.8),
    (16, 8, 2, 0.9, 0.7),  # loadings large enough that SAELens's cap applies
]
SIGMAS = 5.0


def cofiring(fired, n):
    """Each feature's rate and each pair's rate of firing together, from rows of indices."""
    rows = np.zeros((len(fired), n))
    for r, features in enumerate(fired):
        rows[r, features] = 1.0
    return rows.mean(0), rows.T @ rows / len(fired)


def exact_pair(ti, tj, rho):
    """P(g_i > t_i and g_j > t_j) for standard normals with correlation rho."""
    both_below = multivariate_normal.cdf([ti, tj], mean=[0, 0], cov=[[1, rho], [rho, 1]])
    return 1 - norm.cdf(ti) - norm.cdf(tj) + both_below


def check(features, dims, rank, scale, sparsity, work):
    path = os.path.join(work, "trace.json")
    gpt("superposition", "--synthetic", "--features", features, "--hidden", dims, "--sparsity", sparsity,
        "--correlation", f"{rank},{scale}", "--steps", 1, "--trace", path, "--json")
    trace = json.load(open(path))
    p = np.array(trace["probabilities"], dtype=np.float64)
    factor = np.array(trace["copula"]["factor"], dtype=np.float64).reshape(features, rank)
    thresholds = np.array(trace["copula"]["thresholds"], dtype=np.float64)
    gap = np.abs(thresholds - norm.ppf(1 - p)).max()
    assert gap < 1e-5, f"thresholds differ from scipy's by {gap}"
    own = 1 - (factor ** 2).sum(1)
    assert own.min() >= 0.01 - 1e-6, f"a feature keeps only {own.min()} of its variance"
    rows = len(trace["firing"])
    rates, pairs = cofiring(trace["firing"], features)
    worst_rate = (np.abs(rates - p) / np.sqrt(p * (1 - p) / rows)).max()
    assert worst_rate < SIGMAS, f"a feature's rate is {worst_rate:.1f} standard errors from its probability"
    rho = factor @ factor.T
    worst_pair, strongest = 0.0, 0.0
    for i in range(features):
        for j in range(i + 1, features):
            exact = exact_pair(thresholds[i], thresholds[j], rho[i, j])
            error = math.sqrt(max(exact * (1 - exact), 1e-12) / rows)
            worst_pair = max(worst_pair, abs(pairs[i, j] - exact) / error)
            strongest = max(strongest, abs(exact - p[i] * p[j]))
    assert worst_pair < SIGMAS, f"a pair fires together {worst_pair:.1f} standard errors from the exact rate"
    torch.manual_seed(0)
    f = torch.tensor(factor, dtype=torch.float32)
    theirs = torch.zeros(rows, features)
    r, c = _generate_low_rank_correlated_features(rows, f, torch.tensor(own, dtype=torch.float32).sqrt(),
                                                  torch.tensor(thresholds, dtype=torch.float32), torch.device("cpu"))
    theirs[r, c] = 1.0
    theirs_pairs = (theirs.T @ theirs / rows).double().numpy()
    upper = np.triu_indices(features, 1)
    both = (pairs[upper] + theirs_pairs[upper]) / 2
    combined = np.sqrt(2 * np.maximum(both * (1 - both), 1e-12) / rows)
    worst_sae = (np.abs(pairs[upper] - theirs_pairs[upper]) / combined).max()
    assert worst_sae < SIGMAS, f"SAELens's sampler fires a pair {worst_sae:.1f} combined errors apart"
    print(f"{features} features, rank {rank}, scale {scale}: thresholds within {gap:.1e}; rates within "
          f"{worst_rate:.2f}, pairs within {worst_pair:.2f} errors of exact, SAELens's within {worst_sae:.2f}; "
          f"the most correlated pair's rate {strongest:.4f} from independent features'")


def main():
    with tempfile.TemporaryDirectory() as work:
        for setting in SETTINGS:
            check(*setting, work)
    print("correlated features: all checks passed")


if __name__ == "__main__":
    main()
