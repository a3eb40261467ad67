"""Rebuilds the CLI's attribution graphs (`gpt features --graph`) with circuit-tracer's own code
(decoderesearch/circuit-tracer, from source) on the Transformers export and the run's transcoders,
and compares them (and checks head loadings by python/head_loadings.py):

    python python/check_graph.py --circuit-tracer PATH/TO/circuit-tracer [--data ../shared/data]

(needs torch, transformers 4.57, TransformerLens 3.x and SAELens: circuit-tracer's TransformerLens
path takes a HookedTransformer, which TransformerLens 4.0 removed; PATH is a checkout of
circuit-tracer, checked at commit 4bb8c0e, version 0.4.1.)

For a text run (exported as GPT-2, learned positions) with ReLU transcoders, which SAELens loads
from the CLI's `--out` as `Transcoder`s, the same with skip connections (`SkipTranscoder`s, given to
circuit-tracer as its `W_skip`), and the induction preset's task (Starcoder2, rotary
positions) with TopK transcoders, read from the run's checkpoint (SAELens has no TopK transcoder),
the export goes into circuit-tracer's `TransformerLensReplacementModel` in float64, with no
folding, and its `attribute` builds the graph of the CLI's prompt. Compared: every active feature
and its activation (within 1e-5), every edge (within 1e-4, relative to its size above 1), the
logits picked and their probabilities, the replacement and completeness scores, pruning's nodes and
edges, and the Neuronpedia file `create_graph_files` writes; the transcoders' measures on the
held-out rows the CLI read (normalised MSE, L0, and the replacement model's top-1 agreement, KL and
losses), by PyTorch; the replacement model (transcoders and errors in the MLPs' place) reproduces
the model's logits (within 1e-5); and `--intervene` (the two strongest features knocked out) moves
each explained logit in the model, attention frozen and free, as circuit-tracer's own
`feature_intervention` does.

What had to be adapted, and nothing else:
- its transcoders read `ln2.hook_normalized`, which TransformerLens takes before the norm's weight
  and bias, where ours read the norm's output: the weight and bias are folded into each encoder
  (W_enc ⊙ γ, and b_enc + W_enc β), which gives the same activations and the same encoder direction
  at the stream, and into a skip connection (W_skip ⊙ γ, and W_skip β added to b_dec);
- it puts a BOS token before a prompt and drops the features at position 0; these character models
  have no BOS, so it is given the CLI's token ids as they are and `zero_positions` keeps position 0;
- its TopK keeps the k largest pre-activations even when negative; ours go through a ReLU too, so
  its activation function is given as ReLU after TopK;
- the models have no Transformers tokenizer: a stand-in decodes the CLI's vocabulary.
"""

import argparse
import json
import os
import sys

import torch
from safetensors.torch import load_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_eap_ig_code  # noqa: E402
import head_loadings  # noqa: E402
from checking import close, each_run, gpt, worst  # noqa: E402

RUNS = {
    # name: (train arguments, transcoder arguments, prompt)
    "text": (
        ["--preset", "tiny", "--data", "{data}/tinyshakespeare.txt", "--iters", "150"],
        ["--data", "{data}/tinyshakespeare.txt", "--l1", "0.3", "--expansion", "4", "--steps", "60"],
        "ROMEO:\nWhat say",
    ),
    # ReLU transcoders with a skip connection: SAELens's SkipTranscoder, circuit-tracer's W_skip.
    "skip": (
        ["--preset", "tiny", "--data", "{data}/tinyshakespeare.txt", "--iters", "150"],
        ["--data", "{data}/tinyshakespeare.txt", "--l1", "0.3", "--expansion", "4", "--steps", "60", "--skip"],
        "ROMEO:\nWhat say",
    ),
    "induction": (
        ["--task", "repeat", "--iters", "400"],
        ["--k", "4", "--expansion", "4", "--steps", "60"],
        None,  # the circuit view's first problem, as the CLI shows it
    ),
}


class Vocabulary:
    """A stand-in for a Transformers tokenizer: the CLI's tokens, decoded."""

    def __init__(self, vocab):
        self.vocab = vocab
        self.all_special_ids = []
        self.padding_side = "right"
        self.vocab_size = len(vocab)

    def decode(self, ids):
        ids = ids.tolist() if hasattr(ids, "tolist") else ids
        return "".join(self.vocab[i] for i in ([ids] if isinstance(ids, int) else ids))


class ReluTopK(torch.nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        _, top = torch.topk(x, k=self.k, dim=-1)
        return torch.relu(x) * torch.zeros_like(x).scatter_(-1, top, 1.0)


def transcoder_set(weights, model, k):
    """circuit-tracer's transcoders from ours ({layer: (W_enc, b_enc, W_dec, b_dec[, W_skip])}),
    each encoder (and skip connection) folded with the second norm's weight and bias (see above)."""
    from circuit_tracer.transcoder.single_layer_transcoder import SingleLayerTranscoder, TranscoderSet

    layers = {}
    for layer, (w_enc, b_enc, w_dec, b_dec, *skip) in weights.items():
        d_model, d_sae = w_enc.shape
        act = ReluTopK(k) if k else torch.nn.ReLU()
        t = SingleLayerTranscoder(d_model, d_sae, act, layer, skip_connection=bool(skip), device="cpu",
                                  dtype=torch.float64)
        ln = model.blocks[layer].ln2
        with torch.no_grad():
            t.W_enc.copy_(w_enc.T * ln.w)
            t.b_enc.copy_(b_enc + w_enc.T @ ln.b)
            t.W_dec.copy_(w_dec)
            t.b_dec.copy_(b_dec)
            if skip:  # (x·w + b) W_skipᵀ = x (W_skip·w)ᵀ + W_skip b
                t.W_skip.copy_(skip[0] * ln.w)
                t.b_dec.add_(skip[0] @ ln.b)
        layers[layer] = t
    return TranscoderSet(layers, feature_input_hook="ln2.hook_normalized", feature_output_hook="hook_mlp_out",
                         scan="gpt-playground")


def replacement_model(folder, weights, k, vocab):
    """The export in circuit-tracer's replacement model, with our transcoders."""
    from circuit_tracer.replacement_model.replacement_model_transformerlens import TransformerLensReplacementModel

    plain = check_eap_ig_code.hooked(folder)
    model = TransformerLensReplacementModel(plain.cfg)
    model.load_state_dict(plain.state_dict())
    model.eval()
    model._configure_replacement_model(transcoder_set(weights, plain, k))
    model.zero_positions = slice(0, 0)
    model.tokenizer = Vocabulary(vocab)
    model.ensure_tokenized = lambda prompt: torch.as_tensor(prompt)
    return plain, model


def ours_weights(ckpt, sae_out, layers, skip):
    """Our transcoders' weights: by SAELens from the CLI's --out (ReLU), or from the checkpoint."""
    names = ["W_enc", "b_enc", "W_dec", "b_dec"] + (["W_skip"] if skip else [])
    if sae_out:
        from sae_lens import SAE

        saes = {l: SAE.load_from_disk(os.path.join(sae_out, f"layer_{l}"), device="cpu") for l in range(layers)}
        kind = "SkipTranscoder" if skip else "Transcoder"
        assert all(type(s).__name__ == kind for s in saes.values()), f"SAELens loads them as {kind}s"
        return {l: tuple(getattr(s, n).detach().double() for n in names) for l, s in saes.items()}
    tensors = load_file(ckpt)
    return {l: tuple(tensors[f"transcoders.blocks.{l}.{n}"].double() for n in names) for l in range(layers)}


def check(name, data, work):
    from circuit_tracer.attribution.attribute_transformerlens import attribute
    from circuit_tracer.graph import compute_graph_scores, prune_graph
    import circuit_tracer.utils.create_graph_files  # noqa: F401 (the package's name is also its function's)

    graph_files = sys.modules["circuit_tracer.utils.create_graph_files"]

    train, transcoders, prompt = RUNS[name]
    ckpt, traced, folder = (os.path.join(work, f"{name}{s}") for s in [".ckpt", "-traced.ckpt", "-hf"])
    gpt("train", *[a.format(data=data) for a in train], "--out", ckpt)
    gpt("export", "--checkpoint", ckpt, "--hf", folder)
    relu = "--l1" in transcoders
    sae_out = os.path.join(work, f"{name}-saes") if relu else None
    args = [a.format(data=data) for a in transcoders]
    rows_path = os.path.join(work, f"{name}-rows.json")
    lines = gpt("features", "--checkpoint", ckpt, *args, "--transcoders", "--save", traced, "--json", "--rows-out",
                rows_path, "--measure-batches", 2, *(["--out", sae_out] if relu else []))
    measured = json.loads(lines.strip().splitlines()[-1])["measures"]
    if prompt is None:
        prompt = json.loads(gpt("inspect", "--checkpoint", traced, "circuit", "--json"))["examples"][0]["clean"]
    raw_path, np_path = os.path.join(work, f"{name}-raw.json"), os.path.join(work, f"{name}-np.json")
    data_args = [a for a in args if a == "--data" or a.endswith(".txt")]
    gpt("features", "--checkpoint", traced, *data_args, "--steps", "0", "--graph", prompt, "--graph-raw", raw_path,
        "--graph-out", np_path)
    with open(raw_path) as f:
        raw = json.load(f)
    layers, k = raw["layers"], (None if relu else int(transcoders[transcoders.index("--k") + 1]))
    weights = ours_weights(traced, sae_out, layers, "--skip" in transcoders)
    plain, model = replacement_model(folder, weights, k, raw["vocab"])
    ids = torch.tensor(raw["tokens"])
    graph = attribute(ids, model, max_n_logits=10, desired_logit_prob=0.95, batch_size=256)

    theirs = graph.active_features.tolist()
    ours = [[f["layer"], f["position"], f["feature"]] for f in raw["features"]]
    assert theirs == ours, f"{name}: the active features differ ({len(theirs)} against our {len(ours)})"
    close(f"{name}: feature activations", [f["activation"] for f in raw["features"]], graph.activation_values)
    assert [t.vocab_idx for t in graph.logit_targets] == [l["token"] for l in raw["logits"]], f"{name}: logits"
    close(f"{name}: logit probabilities", [l["probability"] for l in raw["logits"]], graph.logit_probabilities)
    n_f, sources = len(ours), len(ours) + (layers + 1) * len(raw["tokens"])
    adjacency = torch.tensor(raw["adjacency"], dtype=torch.float64).reshape(-1, sources)
    full = graph.adjacency_matrix.double()
    rows = torch.cat([full[:n_f], full[-len(raw["logits"]):]])
    close(f"{name}: every edge ({adjacency.numel()})", adjacency, rows[:, :sources], relative=True)
    replacement, completeness = compute_graph_scores(graph)
    close(f"{name}: replacement score", raw["scores"]["replacement"], replacement)
    close(f"{name}: completeness score", raw["scores"]["completeness"], completeness)
    node_mask, edge_mask, cumulative = prune_graph(graph, 0.8, 0.98)
    assert node_mask.tolist() == raw["pruned"]["nodes"], f"{name}: pruning keeps other nodes"
    kept = sorted((t, s) for t, s, _ in raw["pruned"]["edges"])
    assert kept == sorted(map(tuple, edge_mask.nonzero().tolist())), f"{name}: pruning keeps other edges"
    close(f"{name}: cumulative influence", raw["pruned"]["cumulative_influence"], cumulative)

    graph_files.AutoTokenizer = type("Stub", (), {"from_pretrained": staticmethod(lambda _: Vocabulary(raw["vocab"]))})
    with open(np_path) as f:
        our_file = json.load(f)
    out = os.path.join(work, f"{name}-np")
    slug, scan = our_file["metadata"]["slug"], our_file["metadata"]["scan"]
    graph_files.create_graph_files(graph, slug, out, scan=scan, node_threshold=0.8, edge_threshold=0.98)
    with open(os.path.join(out, f"{slug}.json")) as f:
        their_file = json.load(f)
    assert [n["node_id"] for n in our_file["nodes"]] == [n["node_id"] for n in their_file["nodes"]], f"{name}: nodes"
    key = lambda l: (l["target"], l["source"])  # noqa: E731
    pairs = zip(sorted(our_file["links"], key=key), sorted(their_file["links"], key=key))
    assert all(key(a) == key(b) for a, b in pairs), f"{name}: links"
    # Ours carries head loadings, which the format has no place for: `heads` on a link, and how many a block.
    ours_meta, their_meta = (dict(f["metadata"], prompt=None, heads_per_layer=None) for f in [our_file, their_file])
    assert ours_meta == their_meta, f"{name}: metadata\nours   {ours_meta}\ntheirs {their_meta}"

    # The replacement model with its errors is the model: each MLP's output rebuilt from the
    # transcoder's features and the error.
    with torch.no_grad():
        clean = plain(ids.unsqueeze(0))[0]
        _, cache = plain.run_with_cache(ids.unsqueeze(0))
        def rebuilt(acts, hook):
            layer = int(hook.name.split(".")[1])
            t = model.transcoders.transcoders[layer]
            x = cache[f"blocks.{layer}.ln2.hook_normalized"][0]
            recon = t.decode(t.encode(x), x)
            return (recon + (acts[0] - recon)).unsqueeze(0)
        hooks = [(f"blocks.{l}.hook_mlp_out", rebuilt) for l in range(layers)]
        replaced = plain.run_with_hooks(ids.unsqueeze(0), fwd_hooks=hooks)[0]
    close(f"{name}: the replacement model's logits, with its errors, against the model's", replaced, clean)
    # Nodes are numbered alike: features, errors, tokens, then the logits.
    head_loadings.check(name, plain, model.transcoders.transcoders, raw, our_file,
                        lambda target, source: full[target, source].item(), "--skip" in transcoders)
    interventions(name, traced, data_args, prompt, raw, model, ids, clean)
    with open(rows_path) as f:
        replacement_measures(name, plain, model, json.load(f), measured)
    print(f"{name}: {len(ours)} features, {adjacency.numel()} edges agree; "
          f"replacement {replacement:.4f}, completeness {completeness:.4f}", flush=True)


def interventions(name, traced, data_args, prompt, raw, model, ids, clean):
    """`--intervene`: the two strongest features knocked out, and each explained logit's change
    (less the mean's) in the model, attention frozen and free, against circuit-tracer's own
    `feature_intervention` (its default freezes attention) setting them to 0."""
    strongest = sorted(raw["features"], key=lambda f: -f["activation"])[:2]
    names = [f"L{f['layer'] + 1}F{f['feature']}@{f['position']}" for f in strongest]
    line = gpt("features", "--checkpoint", traced, *data_args, "--steps", "0", "--graph", prompt,
               "--intervene", *names, "--factor", 0, "--json")
    ours = json.loads(line.strip().splitlines()[-1])["intervention"]["effects"]
    tokens = [e["id"] for e in ours]
    set_to = [(f["layer"], f["position"], f["feature"], 0.0) for f in strongest]
    before = clean[-1].double()
    gaps = []
    for freeze, column in [(True, "frozen_attention"), (False, "free_attention")]:
        with torch.no_grad():
            logits, _ = model.feature_intervention(ids, set_to, freeze_attention=freeze)
        change = logits[0, -1].double() - before
        change = change - change.mean()
        gaps.append(close(f"{name}: {names} knocked out, each logit's change in the model ({column})",
                          [e[column] for e in ours], change[tokens]))
    print(f"{name}: {' and '.join(names)} knocked out: the logits' changes in the model, attention frozen and free, "
          f"agree with feature_intervention's within {max(gaps):.1e}", flush=True)


def replacement_measures(name, plain, model, rows, measured):
    """The transcoders' measures on the held-out `rows` the CLI read (`--rows-out`), by PyTorch:
    each layer's normalised MSE, variance explained and L0, and the replacement model (each MLP's
    output its transcoder's, no errors) against the model: top-1 agreement, KL and both losses."""
    layers = plain.cfg.n_layers
    sse, total, sums, norms, fired = ([0.0] * layers for _ in range(5))
    agree = kl = clean_loss = replaced_loss = positions = scored = 0
    with torch.no_grad():
        for batch in rows["batches"]:
            ids = torch.tensor(batch["ids"]).reshape(rows["b"], rows["t"])
            targets = torch.tensor(batch["targets"]).reshape(-1)
            clean, cache = plain.run_with_cache(ids)
            for l in range(layers):  # each transcoder on the model's own activations
                t = model.transcoders.transcoders[l]
                x = cache[f"blocks.{l}.ln2.hook_normalized"]
                codes = t.encode(x)
                y = cache[f"blocks.{l}.hook_mlp_out"].double()
                y = y.reshape(-1, y.shape[-1])
                sse[l] += ((y - t.decode(codes, x).double().reshape(y.shape)) ** 2).sum().item()
                norms[l] += (y ** 2).sum().item()
                sums[l] = sums[l] + y.sum(0)
                total[l] += y.shape[0]
                fired[l] += (codes != 0).sum().item()
            # The replacement model: each MLP's output its transcoder's, from what it reads in the same pass.
            read = {}
            def kept(acts, hook):
                read[int(hook.name.split(".")[1])] = acts
            def transcoded(acts, hook):
                t = model.transcoders.transcoders[int(hook.name.split(".")[1])]
                x = read[int(hook.name.split(".")[1])]
                return t.decode(t.encode(x), x).to(acts.dtype)
            hooks = [(f"blocks.{l}.ln2.hook_normalized", kept) for l in range(layers)]
            hooks += [(f"blocks.{l}.hook_mlp_out", transcoded) for l in range(layers)]
            replaced = plain.run_with_hooks(ids, fwd_hooks=hooks)
            log_p = torch.log_softmax(clean.double().reshape(-1, clean.shape[-1]), -1)
            log_q = torch.log_softmax(replaced.double().reshape(-1, replaced.shape[-1]), -1)
            agree += (log_p.argmax(-1) == log_q.argmax(-1)).sum().item()
            kl += (log_p.exp() * (log_p - log_q)).sum().item()
            keep = targets >= 0
            clean_loss -= log_p[keep, targets[keep]].sum().item()
            replaced_loss -= log_q[keep, targets[keep]].sum().item()
            positions, scored = positions + log_p.shape[0], scored + keep.sum().item()
    for l in range(layers):
        variance = norms[l] / total[l] - ((sums[l] / total[l]) ** 2).sum().item()
        nmse = sse[l] / total[l] / variance
        close(f"{name}: layer {l}'s normalised MSE", measured["layers"][l]["normalized_mse"], nmse)
        close(f"{name}: layer {l}'s variance explained", measured["layers"][l]["explained_variance"], 1 - nmse)
        close(f"{name}: layer {l}'s L0", measured["layers"][l]["l0"], fired[l] / total[l])
    assert measured["tokens"] == positions, f"{name}: {measured['tokens']} tokens measured, {positions} here"
    close(f"{name}: top-1 agreement", measured["top1_agreement"], agree / positions)
    close(f"{name}: KL", measured["kl"], kl / positions)
    close(f"{name}: the model's loss", measured["loss_clean"], clean_loss / scored)
    close(f"{name}: the replacement model's loss", measured["loss_replaced"], replaced_loss / scored)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--circuit-tracer", required=True, help="a checkout of decoderesearch/circuit-tracer")

    def with_circuit_tracer(name, data, work, args):
        sys.path.insert(0, os.path.abspath(args.circuit_tracer))
        check(name, data, work)

    each_run(RUNS, with_circuit_tracer, "every graph agrees with circuit-tracer's; largest gap {:.2e}", parser)


if __name__ == "__main__":
    main()
