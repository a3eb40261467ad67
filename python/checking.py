"""What the checks against other tools share: the CLI run from the repository, and numbers compared
within a tolerance, the largest gap kept for the summary."""

import argparse
import os
import subprocess
import sys
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPT_CLI = ["cargo", "run", "--quiet", "--release", "-p", "gpt-cli", "--"]
TOLERANCE = 1e-4
worst = {"value": 0.0}


def gpt(*args):
    cmd = [*GPT_CLI, *map(str, args)]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def close(what, ours, theirs, relative=False, tolerance=TOLERANCE):
    """Asserts ours and theirs agree within `tolerance` (relative to their size above 1 when asked)."""
    ours, theirs = torch.as_tensor(ours, dtype=torch.float64), torch.as_tensor(theirs, dtype=torch.float64)
    gaps = (ours - theirs).abs()
    if relative:
        gaps = gaps / theirs.abs().clamp(min=1.0)
    gap = gaps.max().item() if ours.numel() else 0.0
    worst["value"] = max(worst["value"], gap)
    assert gap < tolerance, f"{what}: differ by {gap}\nours   {ours}\ntheirs {theirs}"
    return gap


def each_run(runs, check, summary, parser=None):
    """Reads --data and --only (beside what `parser` has), checks each run asked for in one scratch
    folder by `check(name, data, work, args)`, and prints `summary` with the largest gap."""
    parser = parser or argparse.ArgumentParser()
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    parser.add_argument("--only", nargs="*", choices=list(runs), default=list(runs))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for name in args.only:
            check(name, os.path.abspath(args.data), work, args)
    print(summary.format(worst["value"]))


def lens_bridge(folder):
    """TransformerLens's bridge over a Transformers export, by the lens module the export ships."""
    sys.path.insert(0, folder)
    try:
        import gpt_playground_lens

        return gpt_playground_lens.bridge(folder)
    finally:
        sys.path.remove(folder)
        sys.modules.pop("gpt_playground_lens", None)
