"""Checks that nanoGPT's own, unmodified scripts work on a converted run (needs a nanoGPT
checkout and its requirements: pip install torch numpy tiktoken; not part of scripts/test.sh):

    python python/check_nanogpt.py --nanogpt PATH/TO/nanoGPT [--data ../shared/data/tinyshakespeare.txt]

1. trains a small character run with `gpt` and exports it with `gpt export --nanogpt`;
2. nanoGPT's sample.py, greedy (--top_k=1), must print what `gpt sample --temperature 0` does;
3. nanoGPT's train.py --init_from=resume must continue from its step and save a new checkpoint;
4. that checkpoint, back through `gpt import` (with the export's meta.pkl), must sample with `gpt`.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPT = ["cargo", "run", "--quiet", "--release", "-p", "gpt-cli", "--"]


def run(cmd, cwd=ROOT):
    print("$", " ".join(cmd), flush=True)
    out = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nanogpt", required=True)
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "tinyshakespeare.txt"))
    args = ap.parse_args()
    nano = os.path.abspath(args.nanogpt)
    work = tempfile.mkdtemp(prefix="check-nanogpt-")
    run_path = os.path.join(work, "run.safetensors")
    run([*GPT, "train", "--data", args.data, "--preset", "nano-cpu", "--n-layer", "2", "--iters", "300", "--warmup", "10",
         "--eval-interval", "100", "--eval-iters", "5", "--out", run_path, "--json"])
    run([*GPT, "export", "--checkpoint", run_path, "--text", args.data, "--nanogpt", work, "--name", "gpt_playground"])
    # nanoGPT reads its vocabulary and data from data/<dataset>/, as the export lays them out.
    data_dir = os.path.join(nano, "data", "gpt_playground")
    shutil.rmtree(data_dir, ignore_errors=True)
    shutil.copytree(os.path.join(work, "data", "gpt_playground"), data_dir)
    out_dir = os.path.join(work, "out-gpt_playground")

    prompt, length = "ROMEO:", 100
    ours = run([*GPT, "sample", "--checkpoint", run_path, "--prompt", prompt, "--temperature", "0", "--max-new-tokens", str(length)])
    theirs = run([sys.executable, "sample.py", f"--out_dir={out_dir}", "--device=cpu", "--top_k=1", "--num_samples=1",
                  f"--max_new_tokens={length}", f"--start={prompt}", "--compile=False"], cwd=nano)
    # sample.py prints its settings, then "Loading meta from ...", then the sample and a rule.
    sampled = theirs.split("Loading meta from", 1)[1].split("\n", 1)[1].split("\n---------------")[0].rstrip("\n")
    print(f"gpt sample --temperature 0:\n{ours.rstrip()}\nnanoGPT sample.py --top_k=1:\n{sampled}")
    assert sampled == ours.rstrip("\n"), "greedy samples differ"
    print("greedy samples are identical")

    log = run([sys.executable, "train.py", "--init_from=resume", f"--out_dir={out_dir}", "--dataset=gpt_playground",
               "--device=cpu", "--compile=False", "--max_iters=340", "--eval_interval=20", "--eval_iters=5",
               "--log_interval=10", "--batch_size=12", "--block_size=64", "--always_save_checkpoint=True"], cwd=nano)
    print("\n".join(line for line in log.splitlines() if line.startswith(("step", "iter", "Resuming", "saving"))))
    assert "Resuming training" in log and "step 300:" in log and "step 340:" in log
    back = os.path.join(work, "back.safetensors")
    # nanoGPT saved its own config, so the vocabulary comes from its meta.pkl.
    meta = os.path.join(data_dir, "meta.pkl")
    print(run([*GPT, "import", os.path.join(out_dir, "ckpt.pt"), meta, "--out", back]))
    print(run([*GPT, "sample", "--checkpoint", back, "--prompt", prompt, "--max-new-tokens", "80"]))
    print("nanoGPT's sample.py and train.py --init_from=resume ran on the converted run, and it came back")


if __name__ == "__main__":
    main()
