"""Every run goes to a Transformers folder (`gpt export --hf`) and back (`gpt import`): what GPT-2
cannot hold goes with our modelling code, the weights under their own names, byte for byte; a
task's run with its symbols (WordPiece) and held-out problems. Read back with the standard library.

    python3 -m unittest discover -s python -p 'test_*.py'     (scripts/test.sh runs it)

Standard library only; python/check_transformers.py loads the same folders in Transformers and
TransformerLens.
"""

import json
import os
import unittest

from checkpoint_formats import read_safetensors
from test_nanogpt_format import gpt, workspace

SHORT = ["--iters", "2", "--warmup", "0", "--eval-iters", "1", "--json"]


class TransformersFormat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir, cls.text = workspace("gpt-transformers-")

    def path(self, name):
        return os.path.join(self.dir, name)

    def export(self, name, *train):
        """A run trained by `train`, its export's folder, and the run's tensors and metadata."""
        run, folder = self.path(f"{name}.safetensors"), self.path(f"{name}-hf")
        gpt("train", *train, *SHORT, "--out", run)
        gpt("export", "--checkpoint", run, "--hf", folder)
        tensors, meta = read_safetensors(run)
        # Our checkpoint lists a tied embedding twice, as nanoGPT's state_dict does; the export once.
        tied = json.loads(meta["config"])["tie_weights"]
        weights = {k: v for k, v in tensors.items() if not k.startswith("optimizer.") and not (tied and k == "lm_head.weight")}
        return run, folder, weights, meta

    def read(self, folder, name):
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            return json.load(f) if name.endswith(".json") else f.read()

    def assert_comes_back(self, folder, tensors):
        back = self.path(os.path.basename(folder) + "-back.safetensors")
        gpt("import", folder, "--out", back)
        back_tensors, _ = read_safetensors(back)
        for name, t in tensors.items():
            self.assertEqual((back_tensors[name].shape, back_tensors[name].data), (t.shape, t.data), name)

    def test_what_gpt2_cannot_hold_goes_with_our_code_and_the_weights_as_they_are(self):
        flags = ["--data", self.text, "--preset", "tiny", "--block-size", "8", "--rope", "--qk-norm", "--norm", "rmsnorm",
                 "--tie-weights", "false"]
        _, folder, tensors, meta = self.export("rope", *flags)
        config = self.read(folder, "config.json")
        self.assertEqual((config["model_type"], config["rope"], config["qk_norm"], config["norm"]),
                         ("gpt_playground", True, True, "rmsnorm"))
        for key, value in json.loads(meta["config"]).items():
            self.assertEqual(config[key], value, key)
        self.assertIn("class GptPlaygroundForCausalLM", self.read(folder, "modeling_gpt_playground.py"))
        self.assertIn("trust_remote_code=True", self.read(folder, "README.md"))
        hf_tensors, hf_meta = read_safetensors(os.path.join(folder, "model.safetensors"))
        self.assertEqual(hf_meta["format"], "pt")
        self.assertEqual(set(hf_tensors), set(tensors))
        for name, t in tensors.items():
            self.assertEqual((hf_tensors[name].shape, hf_tensors[name].data), (t.shape, t.data), name)
        vocab = self.read(folder, "tokenizer.json")["model"]["vocab"]
        self.assertEqual(sorted(vocab, key=vocab.get), json.loads(meta["vocab"]))
        self.assert_comes_back(folder, tensors)

    def test_a_task_goes_with_its_symbols_and_held_out_problems(self):
        for task in ["reverse", "modular"]:
            _, folder, tensors, meta = self.export(task, "--task", task)
            model = self.read(folder, "tokenizer.json")["model"]
            self.assertEqual((model["type"], model["continuing_subword_prefix"]), ("WordPiece", ""))
            symbols = json.loads(meta["vocab"])["tokens"]
            self.assertEqual(sorted(model["vocab"], key=model["vocab"].get), symbols)
            problems = [json.loads(line) for line in self.read(folder, "held_out.jsonl").splitlines()]
            self.assertEqual(len(problems), 100)
            for p in problems:
                self.assertTrue(set(p["prompt"] + p["answer"]) <= set(symbols), p)
                self.assertEqual(p["playground_correct"], "".join(p["answer"]) == p["playground_answer"])
            right = sum(p["playground_correct"] for p in problems)
            self.assertIn(f"{right} of 100 right", self.read(folder, "README.md"))
            self.assert_comes_back(folder, tensors)


if __name__ == "__main__":
    unittest.main()
