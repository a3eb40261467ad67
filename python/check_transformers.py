"""Checks that Hugging Face Transformers takes a run exported with `gpt export --hf` as it is
(needs torch and transformers: pip install torch transformers; not part of scripts/test.sh):

    python python/check_transformers.py [--data ../shared/data/tinyshakespeare.txt]

For a character run (GELU, tied, no biases), a byte-pair run (ReLU, untied, biases) and a character
run with GELU's tanh approximation (Transformers' "gelu_new"):
1. AutoModelForCausalLM and AutoTokenizer load the folder;
2. the logits on a window of the text match `gpt eval --logits-out` within 1e-4 (relative to the largest);
3. the tokenizer gives our tokens for the whole text, and for a text of odd Unicode, and decodes it back;
4. generate(do_sample=False) gives the same greedy text as `gpt sample --temperature 0`;
5. the way back: `gpt import` of the folder samples as the run did, and after a step of training in
   Transformers (save_pretrained), `gpt import` gives a run whose logits match Transformers' within 1e-4.
"""

import argparse
import json
import os
import subprocess
import tempfile

import torch
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPT = ["cargo", "run", "--quiet", "--release", "-p", "gpt-cli", "--"]
ODD = "Ça va? 😀 naïve e\u0301 — 東京 ٣٤ ½ Ⅻ12 〇3\t\ttabs  and   spaces\n\n\n  x's 'quoted' 2024-11-24!!\r\n"
RUNS = {
    "char": ["--activation", "gelu", "--tie-weights", "true", "--bias", "false"],
    "bpe": ["--tokenizer", "bpe", "--vocab-size", "400", "--activation", "relu", "--tie-weights", "false", "--bias", "true"],
    "tanh": ["--activation", "gelu_tanh", "--bias", "true"],
}


def gpt(*args):
    cmd = [*GPT, *map(str, args)]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def our_tokens(run, text, work):
    """Our ids of `text` (the first window of `gpt eval --logits-out`, the text repeated to fill it) and our logits."""
    path, dump = os.path.join(work, "text.txt"), os.path.join(work, "logits.safetensors")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    out = json.loads(gpt("eval", "--checkpoint", run, "--text", path, "--json", "--logits-out", dump))
    return out, load_file(dump)


def assert_same_logits(model, ref, what):
    """Transformers' logits on our window `ref["idx"]` within 1e-4 of ours (relative to the largest)."""
    with torch.no_grad():
        logits = model(ref["idx"]).logits
    worst = (logits - ref["logits"]).abs().max().item() / ref["logits"].abs().max().item()
    print(f"{what}: logits differ by {worst:.2e} (relative to the largest)")
    assert worst < 1e-4, f"{what}: logits differ by {worst}"


def check(kind, flags, data, work):
    run, folder = os.path.join(work, f"{kind}.safetensors"), os.path.join(work, f"{kind}-hf")
    gpt("train", "--data", data, "--preset", "tiny", "--block-size", "64", "--iters", "150", "--out", run, "--json", *flags)
    gpt("export", "--checkpoint", run, "--hf", folder)
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    text = open(data, encoding="utf-8").read()

    ours, ref = our_tokens(run, text, work)
    assert_same_logits(model, ref, f"{kind}: exported")

    ids = tokenizer(text).input_ids
    assert len(ids) == ours["tokens"] and ids[:64] == ref["idx"][0].tolist(), f"{kind}: the tokenizer differs from ours"
    assert tokenizer.decode(ids) == text, f"{kind}: decoding does not give the text back"
    print(f"{kind}: the tokenizer gives our {len(ids)} tokens for the whole text and decodes it back")
    if kind == "bpe":
        odd, odd_ref = our_tokens(run, ODD * 8, work)
        odd_ids = tokenizer(ODD * 8).input_ids
        assert len(odd_ids) == odd["tokens"] and odd_ids[:64] == odd_ref["idx"][0].tolist(), "bpe: odd Unicode differs"
        assert tokenizer.decode(odd_ids) == ODD * 8
        print(f"bpe: the tokenizer gives our {len(odd_ids)} tokens for odd Unicode too")

    prompt, length = "ROMEO:", 40
    theirs_ids = model.generate(tokenizer(prompt, return_tensors="pt").input_ids, do_sample=False, max_new_tokens=length)
    theirs = tokenizer.decode(theirs_ids[0])
    greedy = gpt("sample", "--checkpoint", run, "--prompt", prompt, "--temperature", "0", "--max-new-tokens", length)
    print(f"{kind}: gpt sample --temperature 0:\n{greedy.rstrip()}\n{kind}: Transformers generate(do_sample=False):\n{theirs}")
    assert theirs == greedy.rstrip("\n"), f"{kind}: greedy samples differ"

    back = os.path.join(work, f"{kind}-back.safetensors")
    gpt("import", folder, "--out", back)
    again = gpt("sample", "--checkpoint", back, "--prompt", prompt, "--temperature", "0", "--max-new-tokens", length)
    assert again == greedy, f"{kind}: the imported run samples differently"
    # A step of training in Transformers, saved its way: it comes back from config.json and tokenizer.json.
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    loss = model(ref["idx"], labels=ref["idx"]).loss
    loss.backward()
    optimizer.step()
    model.eval()
    tuned = os.path.join(work, f"{kind}-tuned")
    model.save_pretrained(tuned)
    tokenizer.save_pretrained(tuned)
    tuned_back = os.path.join(work, f"{kind}-tuned.safetensors")
    gpt("import", tuned, "--out", tuned_back)
    _, tuned_ref = our_tokens(tuned_back, text, work)
    assert_same_logits(model, tuned_ref, f"{kind}: trained a step in Transformers and imported")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "tinyshakespeare.txt"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for kind, flags in RUNS.items():
            check(kind, flags, os.path.abspath(args.data), work)
    print("Transformers loads every export and matches it (logits, tokens, greedy text), and each comes back")


if __name__ == "__main__":
    main()
