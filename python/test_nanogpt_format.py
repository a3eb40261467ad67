"""Runs go to nanoGPT's checkpoint format and back with every tensor and setting intact.

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

from checkpoint_formats import load_torch, read_safetensors, save_torch, write_safetensors
from nanogpt_checkpoint import OURS, from_nanogpt, parameter_names, to_nanogpt

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

    def test_a_run_goes_to_nanogpt_and_back_intact(self):
        tensors, meta = read_safetensors(self.run_path)
        checkpoint, meta_pkl = to_nanogpt(tensors, meta, "names")
        save_torch(self.path("ckpt.pt"), checkpoint)
        loaded = load_torch(self.path("ckpt.pt"))
        # As nanoGPT's train.py expects it.
        self.assertEqual(set(loaded), {"model", "optimizer", "model_args", "iter_num", "best_val_loss", "config"})
        self.assertEqual(loaded["iter_num"], 4)
        self.assertEqual(loaded["model_args"]["n_layer"], 2)
        self.assertEqual(loaded["config"]["dataset"], "names")
        names = parameter_names(json.loads(meta["config"]))
        self.assertEqual(list(loaded["model"]), names + ["lm_head.weight"])
        self.assertEqual(loaded["model"]["lm_head.weight"].data, loaded["model"]["transformer.wte.weight"].data)
        groups = loaded["optimizer"]["param_groups"]
        self.assertEqual(sorted(groups[0]["params"] + groups[1]["params"]), list(range(len(names))))
        self.assertEqual((groups[0]["weight_decay"], groups[1]["weight_decay"]), (0.1, 0.0))
        self.assertEqual(len(loaded["optimizer"]["state"]), len(names))
        self.assertEqual(meta_pkl["itos"][0], "\n")
        # And back: every tensor and every setting as it was.
        back_tensors, back_meta = from_nanogpt(loaded, None)
        self.assertEqual(set(back_tensors), set(tensors))
        for name, t in tensors.items():
            self.assertEqual((back_tensors[name].shape, back_tensors[name].data), (t.shape, t.data), name)
        self.assertEqual(back_meta, meta)
        write_safetensors(self.path("back.safetensors"), back_tensors, back_meta)
        self.assertEqual(self.greedy(self.path("back.safetensors")), self.greedy(self.run_path))

    def test_a_checkpoint_nanogpt_wrote_comes_back_with_its_meta_pkl(self):
        checkpoint, meta_pkl = to_nanogpt(*read_safetensors(self.run_path), "names")
        del checkpoint["config"][OURS]  # as nanoGPT's own train.py writes it
        save_torch(self.path("theirs.pt"), checkpoint)
        with self.assertRaisesRegex(ValueError, "meta.pkl"):
            from_nanogpt(load_torch(self.path("theirs.pt")), None)
        with open(self.path("meta.pkl"), "wb") as f:
            pickle.dump(meta_pkl, f)
        with open(self.path("meta.pkl"), "rb") as f:
            tensors, meta = from_nanogpt(load_torch(self.path("theirs.pt")), pickle.load(f))
        write_safetensors(self.path("theirs.safetensors"), tensors, meta)
        self.assertEqual(json.loads(meta["config"])["dropout"], 0.1)
        self.assertEqual(self.greedy(self.path("theirs.safetensors")), self.greedy(self.run_path))
        # It trains on where it stopped.
        out = gpt("train", "--data", self.text, "--resume", self.path("theirs.safetensors"), "--iters", "6", "--json")
        self.assertEqual(json.loads(out.splitlines()[-1])["step"], 6)

    def test_a_byte_pair_run_goes_and_comes_back_too(self):
        bpe = self.path("bpe.safetensors")
        gpt("train", "--data", self.text, "--tokenizer", "bpe", "--vocab-size", "270", "--preset", "tiny",
            "--block-size", "8", "--iters", "2", "--warmup", "1", "--eval-iters", "1", "--out", bpe, "--json")
        tensors, meta = read_safetensors(bpe)
        checkpoint, meta_pkl = to_nanogpt(tensors, meta, "names")
        self.assertIsNone(meta_pkl, "no character vocabulary for sample.py")
        save_torch(self.path("bpe.pt"), checkpoint)
        self.assertEqual(from_nanogpt(load_torch(self.path("bpe.pt")), None)[1], meta)

    def test_variants_nanogpt_lacks_are_refused(self):
        tensors, meta = read_safetensors(self.run_path)
        for key, value in [("norm", "rmsnorm"), ("activation", "relu"), ("tie_weights", False), ("rope", True), ("qk_norm", True)]:
            cfg = json.loads(meta["config"])
            cfg[key] = value
            with self.assertRaisesRegex(ValueError, f"only {key}="):
                to_nanogpt(tensors, dict(meta, config=json.dumps(cfg)), "names")


if __name__ == "__main__":
    unittest.main()
