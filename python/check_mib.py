"""Checks the circuit view's MIB scores (CPR and CMD, `gpt inspect circuit --json`) against the
MIB circuit track's own code:

    python python/check_mib.py --mib PATH/TO/MIB-circuit-track [--data ../shared/data] [--only NAME ...]

(needs torch, transformers and TransformerLens 3.x, which MIB's copy of EAP-IG imports:
pip install 'transformer-lens<4'; PATH is a checkout of cisnlp/MIB-circuit-track, checked at
commit c18eb530f6443769405de309ea73e675d0826742.)

For each of check_circuit.py's runs, trained and exported by the CLI, and each ranking the view
scores (exact, EAP-IG, EAP), MIB's `Graph` (its copy of EAP-IG's `eap.graph`) is read from the
view's EAP-IG JSON with that ranking's scores, and MIB's `evaluate_area_under_curve` runs as it is,
twice (absolute=False gives CPR, absolute=True CMD, as its print_results.py takes them). What is
adapted, and nothing else: MIB measures each circuit with `evaluate_graph` on a HookedTransformer,
which is replaced by a function that measures the circuit MIB's own `apply_topn` and `prune` chose
on the Transformers export with check_circuit.py's PyTorch patching (the baseline the whole model,
the corrupted score the empty circuit); and the scores are negated for the logit difference, since
MIB ranks EAP-IG's scores of a loss, where an edge that matters is positive; and MIB is given each
edge's place in the view's ranking rather than its score, so that tied edges (many score exactly 0
on a model built by hand) are taken in the view's order, not in whatever order `torch.topk` takes
them. Checked:
- PyTorch's faithfulness of the circuit MIB chose at each share agrees with the view's within 1e-4
  (float32 against float64). MIB's `prune` stops one pass early, so its circuit may also keep an
  edge whose reader then reaches no logits: it changes nothing, but MIB counts it, so its edge
  counts can exceed the view's (which counts the edges on paths, as a fully pruned graph has);
- CPR and CMD from MIB's code on the view's own faithfulness curves within 1e-6, and on the
  PyTorch ones within 1e-4.
"""

import argparse
import importlib.util
import json
import os
import sys

import torch
from transformers import AutoModelForCausalLM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_circuit  # noqa: E402
import checking  # noqa: E402
from checking import close, each_run, gpt  # noqa: E402


def mib_evaluation(mib):
    """MIB's evaluation module, with its copy of EAP-IG on the path."""
    sys.path.insert(0, os.path.join(mib, "EAP-IG", "src"))
    path = os.path.join(mib, "MIB_circuit_track", "evaluation.py")
    spec = importlib.util.spec_from_file_location("mib_evaluation", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def graph_of(evaluation, ours, scores, work):
    """MIB's Graph of the view's EAP-IG JSON, every edge scored by `scores` (by name)."""
    names = [e["name"] for e in ours["graph"]["edges"]]
    data = json.loads(json.dumps(ours["eap_ig_graph"]))
    for name, score in zip(names, scores):
        data["edges"][name]["score"] = score
    path = os.path.join(work, "graph.json")
    with open(path, "w") as f:
        json.dump(data, f)
    return evaluation.Graph.from_json(path)


def untied(scores, absolute):
    """Scores that MIB's `apply_topn` ranks as the view does, ties (edges scoring exactly 0, as many
    do on a model built by hand) in the edges' order, where `torch.topk` may take them in any: each
    edge's place from the end. Only the order matters to MIB's curves."""
    order = sorted(range(len(scores)), key=lambda i: (-abs(scores[i]) if absolute else -scores[i], i))
    places = [0.0] * len(scores)
    for place, i in enumerate(order):
        places[i] = float(len(scores) - place)
    return places


def areas(evaluation, graph, absolute, measure):
    """MIB's evaluate_area_under_curve on `graph`, each circuit measured by `measure(names kept)`."""
    evaluation.evaluate_baseline = lambda *a, **k: torch.tensor([1.0], dtype=torch.float64)
    kept_sets = []

    def evaluate_graph(model, graph, *a, **k):
        kept = sorted(name for name, edge in graph.edges.items() if edge.in_graph)
        kept_sets.append(kept)
        return torch.tensor([measure(kept)], dtype=torch.float64)

    evaluation.evaluate_graph = evaluate_graph
    _, under, from_one, _, faithfulness = evaluation.evaluate_area_under_curve(
        None, graph, None, None, quiet=True, absolute=absolute)
    return under, from_one, faithfulness, kept_sets[1:]


def check(name, data, work, args):
    evaluation = mib_evaluation(args.mib)
    train, circuit = check_circuit.RUNS[name]
    ckpt, folder = os.path.join(work, f"{name}.ckpt"), os.path.join(work, f"{name}-hf")
    gpt("train", *[a.format(data=data) for a in train], "--out", ckpt)
    gpt("export", "--checkpoint", ckpt, "--hf", folder)
    ours = json.loads(gpt("inspect", "--checkpoint", ckpt, "circuit", "--json", *circuit))
    model = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True, dtype=torch.float64).eval()
    p = check_circuit.Parts(model)
    names = [e["name"] for e in ours["graph"]["edges"]]
    index = {n: i for i, n in enumerate(names)}
    measured = {}

    def pytorch(kept):
        key = tuple(kept)
        if key not in measured:
            measured[key] = check_circuit.faithfulness(model, p, ours["ids"], [index[n] for n in kept])
        return measured[key]

    sign = -1.0 if ours["request"]["metric"] == "logit_difference" else 1.0
    for named in ours["circuits"]:
        mib = named["mib"]
        if mib is None:
            continue
        method = named["method"]
        scores = [sign * s for s in ours[method]]
        for absolute, curve, score in ((False, mib["signed"], "cpr"), (True, mib["absolute"], "cmd")):
            graph = graph_of(evaluation, ours, untied(scores, absolute), work)
            empty = pytorch([])
            under, from_one, theirs, kept = areas(
                evaluation, graph, absolute, lambda k: (pytorch(k) - empty) / (1.0 - empty))
            # MIB's prune stops a pass early and may keep an edge on no path to the logits: one
            # that changes nothing, so only the count can differ.
            assert all(len(k) >= n for k, n in zip(kept, curve["edges"])), f"{name} {method}: {kept}"
            close(f"{name}: {method} curve (absolute={absolute})", curve["faithfulness"], theirs)
            close(f"{name}: {method} {score.upper()} on PyTorch's curve", mib[score], under if score == "cpr" else from_one)
            # MIB's areas on our own curve: what the view computes, to float64's rounding.
            ours_by_set = dict(zip(map(tuple, kept), curve["faithfulness"]))
            under, from_one, _, _ = areas(evaluation, graph, absolute, lambda k: ours_by_set.get(tuple(k), 0.0))
            gap = abs(mib[score] - (under if score == "cpr" else from_one))
            assert gap < 1e-6, f"{name} {method} {score}: {gap}"
        print(f"  {name} {method}: CPR {mib['cpr']:.4f}, CMD {mib['cmd']:.4f}, as MIB's code gives them")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", required=True, help="a checkout of cisnlp/MIB-circuit-track")
    checking.TOLERANCE = 1e-4
    each_run(check_circuit.RUNS, check, "MIB's own code gives every curve and score; largest gap {:.2e}", parser)


if __name__ == "__main__":
    main()
