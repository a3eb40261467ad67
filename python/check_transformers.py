"""Checks that every run the playground makes leaves it for Hugging Face Transformers and
TransformerLens 4, and comes back (needs torch, transformers and transformer-lens:
pip install torch transformers transformer-lens; not part of scripts/test.sh, whose standard-library
test reads every export back tensor by tensor):

    python python/check_transformers.py [--data ../shared/data] [--only NAME ...]

For every preset (tiny, names, nano-cpu, nano-muon, speedrun, and the tasks' induction, reverse, sort,
addition and grokking) and each setting alone on `tiny` (RMSNorm, ReLU, GELU's tanh form, biases,
untied, RoPE (alone, and with biases and untied), QK-norm, byte pairs), each trained briefly by `gpt train` and exported by
`gpt export --hf`:
1. AutoModelForCausalLM and AutoTokenizer load the folder (GPT-2, Starcoder2, or our modelling
   code with trust_remote_code=True);
2. the logits on the window `gpt eval --logits-out` writes (a task's: its held-out example) are
   within 1e-4 of ours, and the tokenizer gives that window's tokens and decodes them back;
3. greedy text equals `gpt sample --temperature 0` (a task's: the README's scoring of the
   held-out problems gives the playground's answers, one by one);
4. TransformerLens's TransformerBridge (gpt_playground_lens.bridge) gives our attention patterns,
   every layer and head, within 1e-4, and its logits Transformers';
   a string prompt (as a TransformerLens or Transformers user types it) gives the page's next-token
   probabilities (`gpt sample --next-tokens --json`) within 1e-5 through TransformerLens's
   run_with_cache and through Transformers' text-generation pipeline's model and tokenizer, and
   TransformerLens's generate writes what the pipeline writes (and, for a text, `gpt sample
   --temperature 0`);
5. `gpt import` of the folder gives the run's weights back exactly; after a step of training in
   Transformers, saved with save_pretrained, `gpt import` gives a run whose logits match
   Transformers' within 1e-4.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import torch
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer, pipeline

from checking import lens_bridge

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPT = ["cargo", "run", "--quiet", "--release", "-p", "gpt-cli", "--"]
TOLERANCE = 1e-4
PROBABILITIES = 1e-5
SHORT = ["--iters", "40", "--warmup", "5", "--eval-iters", "2"]
TEXT_RUNS = {
    "tiny": [],
    "names": ["--preset", "names"],
    "nano-cpu": ["--preset", "nano-cpu", "--batch-size", "8"],
    "nano-muon": ["--preset", "nano-muon", "--batch-size", "8"],
    "speedrun": ["--preset", "speedrun", "--batch-size", "8"],
    # Each setting alone on tiny (which has no biases, so "biases" is the setting changed).
    "rmsnorm": ["--norm", "rmsnorm"],
    "relu": ["--activation", "relu"],
    "gelu-tanh": ["--activation", "gelu_tanh"],
    "biases": ["--bias", "true"],
    "untied": ["--tie-weights", "false"],
    "rope": ["--rope"],
    "rope-biases-untied": ["--rope", "--bias", "true", "--tie-weights", "false"],
    "qk-norm": ["--qk-norm"],
    "byte-pairs": ["--tokenizer", "bpe", "--vocab-size", "400"],
}
TASK_RUNS = {"induction": "repeat", "reverse": "reverse", "sort": "sort", "addition": "addition", "grokking": "modular"}
worst = {"logits": 0.0, "patterns": 0.0, "probabilities": 0.0}


def gpt(*args):
    cmd = [*GPT, *map(str, args)]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout


def gap(what, ours, theirs, key, tolerance=TOLERANCE):
    difference = (torch.as_tensor(ours).double() - torch.as_tensor(theirs).double()).abs().max().item()
    worst[key] = max(worst[key], difference)
    print(f"  {what}: largest difference {difference:.2e}")
    assert difference < tolerance, f"{what}: differ by {difference}"


def ours_on(run, work, text=None):
    """`gpt eval --logits-out` of the run: idx, logits and attention (layer, head, query, key) of
    the text's first window (the text's start: eval scores all of what it is given)."""
    dump, start = os.path.join(work, "dump.safetensors"), os.path.join(work, "start.txt")
    if text:
        with open(text, encoding="utf-8") as f, open(start, "w", encoding="utf-8") as out:
            out.write(f.read(20000))
    gpt("eval", "--checkpoint", run, *(["--text", start] if text else []), "--logits-out", dump)
    return load_file(dump)


def check_lens(folder, ref, model):
    bridge = lens_bridge(folder)
    logits, cache = bridge.run_with_cache(ref["idx"])
    patterns = torch.stack([cache[f"blocks.{l}.attn.hook_pattern"][0] for l in range(ref["attention"].shape[0])])
    gap("TransformerLens's attention patterns against ours", patterns, ref["attention"], "patterns")
    with torch.no_grad():
        gap("TransformerLens's logits against Transformers'", logits, model(ref["idx"]).logits, "logits")
    return bridge


def check_strings(run, folder, bridge, prompt, text):
    """A string prompt as TransformerLens and Transformers users type it: the page's next-token
    probabilities through both, and the same greedy text."""
    vocab = bridge.cfg.d_vocab
    ours = json.loads(gpt("sample", "--checkpoint", run, "--prompt", prompt, "--temperature", "1",
                          "--next-tokens", vocab, "--json"))
    page = torch.zeros(vocab, dtype=torch.float64)
    for t in ours["tokens"]:
        page[t["id"]] = t["prob"]
    logits, _ = bridge.run_with_cache(prompt)
    gap(f"TransformerLens's run_with_cache({prompt!r}): next-token probabilities against the page's",
        torch.softmax(logits[0, -1].double(), -1), page, "probabilities", PROBABILITIES)
    pipe = pipeline("text-generation", model=folder, trust_remote_code=True)
    ids = pipe.tokenizer(prompt, return_tensors="pt").input_ids
    with torch.no_grad():
        theirs = torch.softmax(pipe.model(ids).logits[0, -1].double(), -1)
    gap(f"the pipeline's model on its tokens of {prompt!r}: next-token probabilities against the page's",
        theirs, page, "probabilities", PROBABILITIES)
    new = min(8, bridge.cfg.n_ctx - ids.shape[1])
    tokens = bridge.generate(prompt, max_new_tokens=new, do_sample=False, verbose=False, return_type="tokens")
    assert tokens[0, ids.shape[1]].item() == max(ours["tokens"], key=lambda t: t["prob"])["id"], "another first token"
    lens = bridge.generate(prompt, max_new_tokens=new, do_sample=False, verbose=False)
    piped = pipe(prompt, max_new_tokens=new, do_sample=False)[0]["generated_text"]
    assert lens == piped, f"TransformerLens's generate and the pipeline differ: {lens!r} {piped!r}"
    if text:
        greedy = gpt("sample", "--checkpoint", run, "--prompt", prompt, "--temperature", "0", "--max-new-tokens", new)
        assert lens + "\n" == greedy, f"greedy samples differ:\n{lens!r}\n{greedy!r}"
    print(f"  {prompt!r} as a string: TransformerLens's generate and the pipeline write {lens!r}")


def check_task_answers(folder, model, tokenizer):
    """The README's scoring, run as written: the same answer as the playground's for each problem."""
    readme = open(os.path.join(folder, "README.md"), encoding="utf-8").read()
    code = re.findall(r"```python\n(.*?)```", readme, re.S)[-1].replace("this-folder", folder)
    code = code.replace("right += ids[len(ids) - len(answer):] == answer",
                        "right += ids[len(ids) - len(answer):] == answer\n    answers.append(tokenizer.decode(ids[len(ids) - len(answer):]))")
    scope = {"answers": []}
    exec(code, scope)
    problems = [json.loads(line) for line in open(os.path.join(folder, "held_out.jsonl"), encoding="utf-8")]
    assert scope["answers"] == [p["playground_answer"] for p in problems], "the held-out answers differ"
    print(f"  the README's scoring: {scope['right']} of {len(problems)} right, every answer the playground's")


def check_back(run, folder, model, ref, work, text):
    back = os.path.join(work, "back.safetensors")
    gpt("import", folder, "--out", back)
    mine, theirs = load_file(run), load_file(back)
    for name, t in theirs.items():
        assert torch.equal(t, mine[name]), f"gpt import changed {name}"
    print(f"  gpt import: the {len(theirs)} tensors exactly")
    model.train()
    loss = model(ref["idx"], labels=ref["idx"]).loss
    loss.backward()
    torch.optim.AdamW(model.parameters(), lr=1e-2).step()
    model.eval()
    tuned = os.path.join(work, "tuned")
    model.save_pretrained(tuned)
    AutoTokenizer.from_pretrained(folder, trust_remote_code=True).save_pretrained(tuned)
    tuned_back = os.path.join(work, "tuned.safetensors")
    gpt("import", tuned, "--out", tuned_back)
    with torch.no_grad():
        gap(f"a step of training in Transformers (loss {loss.item():.3f}), imported", ours_on(tuned_back, work, text)["logits"],
            model(ref["idx"]).logits, "logits")


def check(name, train_args, text, work):
    run, folder = os.path.join(work, f"{name}.safetensors"), os.path.join(work, f"{name}-hf")
    print(f"{name}:", flush=True)
    gpt("train", *train_args, *SHORT, "--out", run, "--json")
    gpt("export", "--checkpoint", run, "--hf", folder)
    model = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=True)
    ref = ours_on(run, work, text)
    with torch.no_grad():
        gap(f"{type(model).__name__}'s logits against ours", model(ref["idx"]).logits, ref["logits"], "logits")
    idx = ref["idx"][0].tolist()
    if text:
        content = open(text, encoding="utf-8").read()
        ids = tokenizer(content).input_ids
        assert ids[:len(idx)] == idx and tokenizer.decode(ids) == content, "the tokenizer differs from ours"
        print(f"  the tokenizer gives our {len(ids)} tokens for the whole text, and decodes them back")
        prompt = content[:6]
        prompt_ids = tokenizer(prompt, return_tensors="pt").input_ids
        # Within the block: GPT-2 cannot look past its position table.
        new = min(40, model.config.max_position_embeddings - prompt_ids.shape[1])
        theirs = tokenizer.decode(model.generate(prompt_ids, do_sample=False, max_new_tokens=new)[0])
        greedy = gpt("sample", "--checkpoint", run, "--prompt", prompt, "--temperature", "0", "--max-new-tokens", new)
        assert theirs + "\n" == greedy, f"greedy samples differ:\n{theirs!r}\n{greedy!r}"  # gpt sample ends the line
        print("  generate(do_sample=False) writes gpt sample --temperature 0's text")
    else:
        assert tokenizer(tokenizer.decode(idx)).input_ids == idx, "the tokenizer differs from ours"
        check_task_answers(folder, model, tokenizer)
        first = json.loads(open(os.path.join(folder, "held_out.jsonl"), encoding="utf-8").readline())
        prompt = "".join(first["prompt"])
    bridge = check_lens(folder, ref, model)
    check_strings(run, folder, bridge, prompt, text)
    check_back(run, folder, model, ref, work, text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data"))
    ap.add_argument("--only", nargs="*", help="check only these runs")
    args = ap.parse_args()
    shakespeare = os.path.abspath(os.path.join(args.data, "tinyshakespeare.txt"))
    names = os.path.abspath(os.path.join(args.data, "names.txt"))
    runs = {}
    for name, flags in TEXT_RUNS.items():
        data = names if name == "names" else shakespeare
        runs[name] = (["--data", data, *(flags if "--preset" in flags else ["--preset", "tiny", *flags])], data)
    runs.update({name: (["--task", task], None) for name, task in TASK_RUNS.items()})
    for name, (train_args, text) in runs.items():
        if args.only and name not in args.only:
            continue
        with tempfile.TemporaryDirectory() as work:
            check(name, train_args, text, work)
    print(f"Every run loads in Transformers and TransformerLens and comes back: logits within {worst['logits']:.1e}, "
          f"attention patterns within {worst['patterns']:.1e}, a string prompt's next-token probabilities within "
          f"{worst['probabilities']:.1e}")


if __name__ == "__main__":
    main()
