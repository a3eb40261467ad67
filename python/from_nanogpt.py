"""A nanoGPT checkpoint as a gpt-playground run, to sample from in the page or with `gpt`.

    python python/from_nanogpt.py OUT_DIR/ckpt.pt RUN.safetensors [--meta data/NAME/meta.pkl]

A checkpoint made by `gpt export --nanogpt` comes back whole (history, random state, sampling settings);
one trained by nanoGPT itself needs its character vocabulary, meta.pkl. Standard library only.
"""

import argparse
import json
import pickle
import sys

from checkpoint_formats import load_torch, write_safetensors
from nanogpt_checkpoint import from_nanogpt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("run")
    ap.add_argument("--meta", help="nanoGPT's meta.pkl, for a checkpoint it trained itself")
    args = ap.parse_args()
    meta_pkl = None
    if args.meta:
        with open(args.meta, "rb") as f:
            meta_pkl = pickle.load(f)
    try:
        tensors, meta = from_nanogpt(load_torch(args.checkpoint), meta_pkl)
    except (ValueError, KeyError) as e:
        sys.exit(f"error: {args.checkpoint}: {e}")
    write_safetensors(args.run, tensors, meta)
    print(f"wrote {args.run}: {json.loads(meta['config'])['n_layer']} layers, step {meta['step']}")


if __name__ == "__main__":
    main()
