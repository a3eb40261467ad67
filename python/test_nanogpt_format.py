"""Runs go to nanoGPT's checkout (`gpt export --nanogpt`) and back (from_nanogpt.py) with every
tensor, setting and token intact, read back with the standard library.

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

from checkpoint_formats import load_torch, read_safetensors, write_safetensors
from nanogpt_checkpoint import OURS, from_nanogpt, parameter_names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPT = shlex.split(os.environ.get("GPT", "cargo run --quiet -p gpt-cli --"))
TEXT = "anna\nbob\ncarla\ndavid\nemma\nfrank\ngeorge\nhanna\n" * 40


def gpt(*args):
    return subprocess.run([*GPT, *map(str, args)], cwd=ROOT, check=True, capture_output=True, text=True).stdout


class NanoGptFormat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="gpt-nanogpt-")
        cls.text = os.path.join(cls.dir, "names.txt")
        with open(cls.text, "w") as f:
            f.write(TEXT)
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
        _, loaded, _ = self.export(self.run_path)
        back_tensors, back_meta = from_nanogpt(loaded, None)
        self.assertEqual(set(back_tensors), set(tensors))
        for name, t in tensors.items():
            self.assertEqual((back_tensors[name].shape, back_tensors[name].data), (t.shape, t.data), name)
        self.assertEqual(back_meta, meta)
        write_safetensors(self.path("back.safetensors"), back_tensors, back_meta)
        self.assertEqual(self.greedy(self.path("back.safetensors")), self.greedy(self.run_path))

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

    def test_a_checkpoint_nanogpt_wrote_comes_back_with_its_meta_pkl(self):
        _, loaded, meta_pkl = self.export(self.run_path, "theirs")
        del loaded["config"][OURS]  # as nanoGPT's own train.py writes it
        with self.assertRaisesRegex(ValueError, "meta.pkl"):
            from_nanogpt(loaded, None)
        tensors, meta = from_nanogpt(loaded, meta_pkl)
        write_safetensors(self.path("theirs.safetensors"), tensors, meta)
        self.assertEqual(json.loads(meta["config"])["dropout"], 0.1)
        self.assertEqual(self.greedy(self.path("theirs.safetensors")), self.greedy(self.run_path))
        # It trains on where it stopped.
        out = gpt("train", "--data", self.text, "--resume", self.path("theirs.safetensors"), "--iters", "6", "--json")
        self.assertEqual(json.loads(out.splitlines()[-1])["step"], 6)


if __name__ == "__main__":
    unittest.main()
