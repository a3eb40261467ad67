"""Checks the playground's autoencoders against SAELens's own trainer on the same synthetic
activations (needs sae-lens, which brings torch; not part of scripts/test.sh):

    python python/check_synthetic_sae.py [--steps 2000] [--seeds 3]

SAELens's `sae_lens.synthetic` builds the activations: a `FeatureDictionary` of 256 features in 64
dimensions (its orthogonalising start) and an `ActivationGenerator` firing each feature with
probability 4/256 at magnitude 1. It writes the training rows (as many as the token budget,
steps × 256), 8,192 held-out rows with their true feature activations, and the features, in a
safetensors file `gpt superposition --synthetic --activations FILE` reads. For TopK and
BatchTopK (256 latents, k 4), the playground trains on the file's rows and SAELens's
`train_toy_sae` on the generator's, at the same budget, batch (256), learning rate (3e-3,
constant), Adam's betas (0.9, 0.999) and gradient clipping (norm 1) (a latent silent for 1,000
batches is dead in both); each is scored by SAELens's `mean_correlation_coefficient` against the
true features. The two MCCs, each the mean over the seeds, must agree within 0.02.

Measured (2,000 steps, seeds 1 to 3): TopK 0.8834 here and 0.8771 by SAELens (gap 0.0063);
BatchTopK 0.8272 here and 0.8162 by SAELens (gap 0.0110). Before the playground's synthetic
autoencoders took SAELens's recipe (Adam's second beta 0.999, not the toy model's 0.99, and
gradients clipped to norm 1), BatchTopK was 0.0379 apart.
"""

import argparse
import json
import os
import tempfile

import torch
from safetensors.torch import save_file
from sae_lens import BatchTopKTrainingSAE, BatchTopKTrainingSAEConfig, TopKTrainingSAE, TopKTrainingSAEConfig
from sae_lens.synthetic import ActivationGenerator, FeatureDictionary, mean_correlation_coefficient
from sae_lens.synthetic.training import train_toy_sae

from checking import gpt

FEATURES, DIMS, LATENTS, K, BATCH, LR, HELD_OUT = 256, 64, 256, 4, 256, 3e-3, 8192
ALLOWED = 0.02


def write_activations(path, steps, seed):
    """The generator's rows for `steps` batches, held-out rows and the truth, in `path`."""
    torch.manual_seed(seed)
    features = FeatureDictionary(FEATURES, DIMS, seed=seed)
    generator = ActivationGenerator(FEATURES, firing_probabilities=K / FEATURES)
    with torch.no_grad():
        train = features(generator.sample(steps * BATCH))
        firing = generator.sample(HELD_OUT)
        held_out = features(firing)
    save_file({"activations": train.contiguous(), "held_out": held_out.contiguous(),
               "held_out_firing": firing.contiguous(), "truth": features.feature_vectors.detach().contiguous()}, path)
    return features, generator


def saelens_mcc(architecture, features, generator, steps, seed):
    """SAELens's own trainer's autoencoder, scored against the truth."""
    torch.manual_seed(seed)
    kinds = {"topk": (TopKTrainingSAE, TopKTrainingSAEConfig), "batchtopk": (BatchTopKTrainingSAE, BatchTopKTrainingSAEConfig)}
    sae_class, config_class = kinds[architecture]
    sae = sae_class(config_class(d_in=DIMS, d_sae=LATENTS, k=K))
    train_toy_sae(sae, features, generator, training_samples=steps * BATCH, batch_size=BATCH, lr=LR)
    return mean_correlation_coefficient(sae.W_dec.detach(), features.feature_vectors.detach())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--seeds", type=int, default=3)
    a = p.parse_args()
    results = {"topk": ([], []), "batchtopk": ([], [])}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, a.seeds + 1):
            path = os.path.join(tmp, f"activations-{seed}.safetensors")
            features, generator = write_activations(path, a.steps, seed)
            for architecture, (ours, theirs) in results.items():
                line = gpt("superposition", "--synthetic", "--activations", path, "--architecture", architecture,
                           "--expansion", LATENTS // DIMS, "--k", K, "--steps", a.steps, "--seed", seed, "--json")
                ours.append(json.loads(line)["scores"]["truth"]["mcc"])
                theirs.append(saelens_mcc(architecture, features, generator, a.steps, seed))
                print(f"  seed {seed}, {architecture}: MCC {ours[-1]:.4f} here, {theirs[-1]:.4f} by SAELens", flush=True)
    for architecture, (ours, theirs) in results.items():
        mean_ours, mean_theirs = sum(ours) / len(ours), sum(theirs) / len(theirs)
        gap = abs(mean_ours - mean_theirs)
        print(f"{architecture}: mean MCC {mean_ours:.4f} here, {mean_theirs:.4f} by SAELens (gap {gap:.4f})")
        assert gap <= ALLOWED, f"{architecture}: the MCCs differ by {gap:.4f}, more than {ALLOWED}"
    print(f"every architecture's MCC is within {ALLOWED} of SAELens's own trainer's")


if __name__ == "__main__":
    main()
