"""Checks the circuit view's scores against a known circuit (`gpt inspect circuit --json` on a model
built by hand, `gpt build NAME`) with scikit-learn:

    python python/check_circuit_truth.py [--only NAME ...]

(needs scikit-learn.) For each built model and each corruption it declares a circuit for: each
ranking's AUROC is `roc_auc_score` of the true edges against the size of its scores; greedy
pruning's, of its circuit as scores of 1 and 0; every circuit's precision and recall are
`precision_score` and `recall_score`. All within 1e-9.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from sklearn.metrics import precision_score, recall_score, roc_auc_score

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPT = ["cargo", "run", "--quiet", "--release", "-p", "gpt-cli", "--"]
# Each built model, and the corruptions it declares a circuit for.
BUILT = {"induction": ("symbol", "swap"), "backup": ("symbol",), "reverse": ("symbol",)}


def gpt(*args):
    return subprocess.run([*GPT, *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def check(name, work):
    path = os.path.join(work, f"{name}.safetensors")
    gpt("build", name, "--out", path)
    worst = 0.0
    for corruption in BUILT[name]:
        ours = json.loads(gpt("inspect", "--checkpoint", path, "circuit", "--json", "--corruption", corruption))
        assert ours["known"], f"{name} declares no circuit under {corruption}"
        names = [e["name"] for e in ours["graph"]["edges"]]
        truth = [int(n in ours["known"]) for n in names]
        for c in ours["circuits"]:
            kept = set(c["edges"])
            circuit = [int(e in kept) for e in range(len(names))]
            scores = circuit if c["method"] == "greedy" else [abs(s) for s in ours[c["method"]]]
            theirs = {
                "auroc": roc_auc_score(truth, scores),
                "precision": precision_score(truth, circuit, zero_division=0.0),
                "recall": recall_score(truth, circuit),
            }
            for key, value in theirs.items():
                gap = abs(c["truth"][key] - value)
                assert gap < 1e-9, f"{name} {corruption} {c['method']} {key}: ours {c['truth'][key]}, scikit-learn's {value}"
                worst = max(worst, gap)
            print(f"  {name} under {corruption}, {c['method']}: AUROC {theirs['auroc']:.4f}, "
                  f"precision {theirs['precision']:.3f}, recall {theirs['recall']:.3f}")
    return worst


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", choices=list(BUILT), default=list(BUILT))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        worst = max(check(name, work) for name in args.only)
    print(f"every AUROC, precision and recall agrees with scikit-learn's; largest gap {worst:.1e}")


if __name__ == "__main__":
    sys.exit(main())
