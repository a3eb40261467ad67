"""A gpt-playground run as a nanoGPT checkpoint, to go on training with PyTorch on GPUs.

    python python/to_nanogpt.py RUN.safetensors OUT_DIR [--dataset NAME]

writes OUT_DIR/ckpt.pt (model, AdamW state with its moments, model_args, iter_num, best_val_loss,
config) and, for a character vocabulary, OUT_DIR/meta.pkl. In a nanoGPT checkout, put meta.pkl
at data/NAME/meta.pkl (and train.bin/val.bin beside it to train), then:

    python sample.py --out_dir=OUT_DIR --device=cpu
    python train.py --init_from=resume --out_dir=OUT_DIR --dataset=NAME
    torchrun --standalone --nproc_per_node=8 train.py --init_from=resume --out_dir=OUT_DIR --dataset=NAME

Needs only the Python standard library; nanoGPT's model.py has LayerNorm, exact GELU and tied
weights only, so other variants are refused.
"""

import argparse
import json
import os
import pickle
import sys

from checkpoint_formats import read_safetensors, save_torch
from nanogpt_checkpoint import to_nanogpt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("out_dir")
    ap.add_argument("--dataset", default="gpt_playground", help="nanoGPT's data/ folder that will hold meta.pkl")
    args = ap.parse_args()
    try:
        tensors, meta = read_safetensors(args.run)
        checkpoint, meta_pkl = to_nanogpt(tensors, meta, args.dataset)
    except (ValueError, KeyError) as e:
        sys.exit(f"error: {args.run}: {e}")
    os.makedirs(args.out_dir, exist_ok=True)
    save_torch(os.path.join(args.out_dir, "ckpt.pt"), checkpoint)
    print(f"wrote {os.path.join(args.out_dir, 'ckpt.pt')} (step {checkpoint['iter_num']})")
    if json.loads(meta.get("train_config", "{}")).get("optimizer") == "muon":
        print("this run trained its block matrices with Muon; nanoGPT's train.py builds AdamW, so those matrices resume"
              " with fresh AdamW moments (Muon's momentum is not carried over), the rest with their own")
    if meta_pkl:
        with open(os.path.join(args.out_dir, "meta.pkl"), "wb") as f:
            pickle.dump(meta_pkl, f)
        print(f"wrote {os.path.join(args.out_dir, 'meta.pkl')}: copy it to data/{args.dataset}/meta.pkl in nanoGPT")
    else:
        print("byte-pair vocabulary: nanoGPT's sample.py cannot decode it (it expects GPT-2's); train.py can train on")


if __name__ == "__main__":
    main()
