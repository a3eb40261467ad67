"""Runs go to nanoGPT's checkout (`gpt export --nanogpt`) and to a Transformers folder
(`gpt export --hf`), and back (`gpt import`), with every tensor, setting and token intact, read
back with the standard library.

    python3 -m unittest discover -s python -p 'test_*.py'     (scripts/test.sh runs it)

Standard library only; the runs come from the `gpt` command (GPT=path, or cargo run).
"""

import json
import os
import pickle
import shlex
import subprocess
import tempfile
import unittest

from checkpoint_formats import load_torch, read_safetensors

OURS = "gpt_playground"  # where our metadata rides in nanoGPT's config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPT = shlex.split(os.environ.get("GPT", "cargo run --quiet -p gpt-cli --"))
TEXT = "anna\nbob\ncarla\ndavid\nemma\nfrank\ngeorge\nhanna\n" * 40


def parameter_names(cfg):
    """nanoGPT's parameters in `named_parameters()` order: the order of its optimizer's state."""
    layers = ["ln_1", "attn.c_attn", "attn.c_proj", "ln_2", "mlp.c_fc", "mlp.c_proj"]
    kinds = ["weight", "bias"] if cfg.get("bias") else ["weight"]
    names = ["transformer.wte.weight", "transformer.wpe.weight"]
    names += [f"transformer.h.{i}.{layer}.{kind}" for i in range(cfg["n_layer"]) for layer in layers for kind in kinds]
    return names + [f"transformer.ln_f.{kind}" for kind in kinds]


def gpt(*args):
    return subprocess.run([*GPT, *map(str, args)], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def workspace(prefix):
    """A fresh folder holding the names text: (the folder, the text's path)."""
    folder = tempfile.mkdtemp(prefix=prefix)
    text = os.path.join(folder, "names.txt")
    with open(text, "w") as f:
        f.write(TEXT)
    return folder, text


class NanoGptFormat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir, cls.text = workspace("gpt-nanogpt-")
        cls.run_path = os.path.join(cls.dir, "run.safetensors")
        gpt("train", "--data", cls.text, "--preset", "tiny", "--block-size", "8", "--iters", "4", "--warmup", "2",
            "--eval-interval", "2", "--eval-iters", "1", "--dropout", "0.1", "--out", cls.run_path, "--json")

    def path(self, name):
        return os.path.join(self.dir, name)

    def greedy(self, run):
        return gpt("sample", "--checkpoint", run, "--prompt", "an", "--temperature", "0", "--max-new-tokens", "40")

    def export(self, run, name="names"):
        """The run exported for nanoGPT: (its folder, the ckpt.pt read back, meta.pkl's contents)."""
        out = self.path(f"checkout-{name}")
        gpt("export", "--checkpoint", run, "--text", self.text, "--nanogpt", out, "--name", name)
        with open(os.path.join(out, "data", name, "meta.pkl"), "rb") as f:
            meta_pkl = pickle.load(f)
        return out, load_torch(os.path.join(out, f"out-{name}", "ckpt.pt")), meta_pkl

    def test_a_run_goes_to_nanogpt_and_back_intact(self):
        tensors, meta = read_safetensors(self.run_path)
        out, _, _ = self.export(self.run_path)
        back = self.path("back.safetensors")
        gpt("import", out, "--out", back, "--text-out", self.path("back.txt"))
        back_tensors, back_meta = read_safetensors(back)
        self.assertEqual(set(back_tensors), set(tensors))
        for name, t in tensors.items():
            self.assertEqual((back_tensors[name].shape, back_tensors[name].data), (t.shape, t.data), name)
        self.assertEqual(back_meta, meta)
        self.assertEqual(self.greedy(back), self.greedy(self.run_path))
        with open(self.path("back.txt")) as f:
            self.assertEqual(f.read(), TEXT)

    def test_a_run_goes_to_transformers_and_back_intact(self):
        tensors, meta = read_safetensors(self.run_path)
        folder = self.path("transformers")
        gpt("export", "--checkpoint", self.run_path, "--hf", folder)
        hf_tensors, hf_meta = read_safetensors(os.path.join(folder, "model.safetensors"))
        self.assertEqual(hf_meta["format"], "pt")  # as Transformers wants it
        c_attn = hf_tensors["transformer.h.0.attn.c_attn.weight"]
        self.assertEqual(c_attn.shape, tuple(reversed(tensors["transformer.h.0.attn.c_attn.weight"].shape)), "Conv1D layout")
        with open(os.path.join(folder, "tokenizer.json")) as f:
            vocab = json.load(f)["model"]["vocab"]
        self.assertEqual(sorted(vocab, key=vocab.get), json.loads(meta["vocab"]))
        back = self.path("back-hf.safetensors")
        gpt("import", folder, "--out", back)
        back_tensors, _ = read_safetensors(back)
        for name, t in tensors.items():
            if not name.startswith("optimizer.") and name != "lm_head.weight":
                self.assertEqual((back_tensors[name].shape, back_tensors[name].data), (t.shape, t.data), name)
        self.assertEqual(self.greedy(back), self.greedy(self.run_path))

    def test_gpt_export_writes_a_nanogpt_checkout_with_the_runs_own_data(self):
        out, loaded, meta_pkl = self.export(self.run_path)
        tensors, meta = read_safetensors(self.run_path)
        self.assertEqual(set(loaded), {"model", "optimizer", "model_args", "iter_num", "best_val_loss", "config"})
        self.assertEqual((loaded["iter_num"], loaded["config"]["dataset"], loaded["config"][OURS]), (4, "names", meta))
        names = parameter_names(json.loads(meta["config"]))
        self.assertEqual(list(loaded["model"]), names + ["lm_head.weight"])
        for name in names + ["lm_head.weight"]:
            self.assertEqual((loaded["model"][name].shape, loaded["model"][name].data), (tensors[name].shape, tensors[name].data), name)
        # AdamW's state in nanoGPT's order (decayed parameters first), every moment as the run's.
        groups = loaded["optimizer"]["param_groups"]
        decayed = [n for n in names if len(tensors[n].shape) >= 2]
        order = decayed + [n for n in names if n not in decayed]
        self.assertEqual((groups[0]["params"], groups[1]["params"]), (list(range(len(decayed))), list(range(len(decayed), len(names)))))
        self.assertEqual(len(loaded["optimizer"]["state"]), len(names))
        for i, name in enumerate(order):
            state = loaded["optimizer"]["state"][i]
            self.assertEqual(state["exp_avg"].data, tensors["optimizer.exp_avg." + name].data, name)
            self.assertEqual(state["exp_avg_sq"].data, tensors["optimizer.exp_avg_sq." + name].data, name)
        # The text as nanoGPT's prepare.py writes it: uint16 ids, the first 90% to train on.
        itos = meta_pkl["itos"]
        ids = {}
        for split in ["train", "val"]:
            with open(os.path.join(out, "data", "names", f"{split}.bin"), "rb") as f:
                raw = f.read()
            ids[split] = "".join(itos[int.from_bytes(raw[i:i + 2], "little")] for i in range(0, len(raw), 2))
        n = len(TEXT)
        self.assertEqual((ids["train"], ids["val"]), (TEXT[:n // 10 * 9 + n % 10 * 9 // 10], TEXT[n // 10 * 9 + n % 10 * 9 // 10:]))
        with open(os.path.join(out, "config", "train_names.py")) as f:
            recipe = {}
            exec(f.read(), {}, recipe)  # the config file nanoGPT's configurator runs
        self.assertEqual((recipe["init_from"], recipe["block_size"], recipe["gradient_accumulation_steps"]), ("resume", 8, 1))

    def test_gpt_export_refuses_what_nanogpt_cannot_run_and_says_what_to_change(self):
        bpe = self.path("bpe-export.safetensors")
        gpt("train", "--data", self.text, "--tokenizer", "bpe", "--vocab-size", "270", "--preset", "tiny",
            "--block-size", "8", "--iters", "1", "--warmup", "0", "--eval-iters", "1", "--out", bpe, "--json")
        rms = self.path("rms.safetensors")
        gpt("train", "--data", self.text, "--preset", "tiny", "--rope", "--block-size", "8", "--iters", "1", "--warmup", "0",
            "--eval-iters", "1", "--out", rms, "--json")
        for run, message in [(bpe, "set Tokenizer to Characters"), (rms, "untick RoPE")]:
            with self.assertRaises(subprocess.CalledProcessError) as refused:
                gpt("export", "--checkpoint", run, "--text", self.text, "--nanogpt", self.path("refused"))
            self.assertIn(message, refused.exception.stderr)
        self.assertFalse(os.path.exists(self.path("refused")), "nothing is written")


if __name__ == "__main__":
    unittest.main()
