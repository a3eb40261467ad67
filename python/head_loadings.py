"""Head loadings recomputed with PyTorch hooks, for check_graph.py: each of the strongest links of
our Neuronpedia file that crosses positions, split into the heads that carry it, by a route of
its own.

The model is frozen as circuit tracing freezes it, by TransformerLens hooks alone: every norm's
scale and every attention pattern held at the prompt's values, each MLP's output held too (plus a
skip transcoder's linear path). An edge is then the derivative of its target's reader (a feature's
pre-activation, or a logit less the mean logit) along what its source writes where it writes it.
Masking the frozen patterns gives the loadings without splitting any backward pass: with E(masks)
that edge, blocks below L kept to each position's own weight (the diagonal), and blocks above L
whole, head h of block L carries

    E(block L: head h whole, its other heads diagonal) - E(block L: every head diagonal),

and the parts telescope to the edge less the all-diagonal edge, which is 0 between positions.
"""

import torch

from checking import close

STRONGEST = 12  # links checked per graph


def node_write(node_id, kind, raw, cache, plain, transcoders):
    """Where node `node_id` (of Neuronpedia's `feature_type` `kind`) writes (its hook and position)
    and what."""
    layer, middle, position = node_id.split("_")
    position = int(position)
    if kind == "embedding":
        return "hook_embed", position, plain.W_E[int(middle)]
    if kind == "mlp reconstruction error":  # the MLP's output less the transcoder's
        l = int(middle)
        x = cache[f"blocks.{l}.ln2.hook_normalized"][0]
        t = transcoders[l]
        error = cache[f"blocks.{l}.hook_mlp_out"][0] - t.decode(t.encode(x), x)
        return f"blocks.{l}.hook_mlp_out", position, error[position]
    l, j = int(layer), int(middle)
    activation = next(f["activation"] for f in raw["features"] if (f["layer"], f["feature"], f["position"]) == (l, j, position))
    return f"blocks.{l}.hook_mlp_out", position, activation * transcoders[l].W_dec[j]


def frozen_edge(plain, cache, transcoders, skip, ids, masks, source, target_id):
    """The edge from `source` (hook, position, what it writes) into `target_id`'s reader, in the
    model frozen at `cache` with each block's patterns times `masks[block]` (heads, T, T)."""
    layers = plain.cfg.n_layers
    hook_at, position, written = source
    s = torch.zeros((), dtype=torch.float64, requires_grad=True)
    read = {}

    def held(name):
        return lambda acts, hook: cache[name].detach()

    def pattern(block):
        return lambda acts, hook: (cache[hook.name] * masks[block]).detach()

    def mlp_out(block):
        def hook(acts, hook):
            out = cache[hook.name].detach().clone()
            if skip:  # a skip transcoder's linear path, from what the MLP read
                x = read[block]
                out = out + (x - x.detach()) @ transcoders[block].W_skip.T
            if hook.name == hook_at:
                out[0, position] = out[0, position] + s * written
            return out
        return hook

    def embed(acts, hook):
        if hook.name == hook_at:
            acts = acts.clone()
            acts[0, position] = acts[0, position] + s * written
        return acts

    def keep(block):
        def hook(acts, hook):
            read[block] = acts
        return hook

    hooks = [("hook_embed", embed), ("ln_final.hook_scale", held("ln_final.hook_scale"))]
    for b in range(layers):
        hooks += [(f"blocks.{b}.ln1.hook_scale", held(f"blocks.{b}.ln1.hook_scale")),
                  (f"blocks.{b}.ln2.hook_scale", held(f"blocks.{b}.ln2.hook_scale")),
                  (f"blocks.{b}.attn.hook_pattern", pattern(b)),
                  (f"blocks.{b}.ln2.hook_normalized", keep(b)),
                  (f"blocks.{b}.hook_mlp_out", mlp_out(b))]
    logits = plain.run_with_hooks(ids.unsqueeze(0), fwd_hooks=hooks)[0]
    layer, index, at = (int(v) for v in target_id.split("_"))
    if layer == layers + 1:
        value = logits[at, index] - logits[at].mean()
    else:
        value = read[layer][0, at] @ transcoders[layer].W_enc[index]  # circuit-tracer's (d_sae, d_model)
    (grad,) = torch.autograd.grad(value, s)
    return grad.item()


def check(name, plain, transcoders, raw, our_file, their_edge, skip):
    """Each of the `STRONGEST` links of `our_file` that cross positions: its head loadings by the
    masked frozen patterns (within 1e-5 of ours), and their sum against circuit-tracer's edge
    (`their_edge(target_id, source_id)`, within 1e-5)."""
    ids = torch.tensor(raw["tokens"])
    per_layer = our_file["metadata"]["heads_per_layer"]
    layers, t = plain.cfg.n_layers, len(raw["tokens"])
    _, cache = plain.run_with_cache(ids.unsqueeze(0))
    crossing = [l for l in our_file["links"] if "heads" in l]
    assert crossing, f"{name}: no link crosses positions"
    assert all(len(l["heads"]) == layers * per_layer for l in crossing), f"{name}: a part for each head"
    kinds = {n["node_id"]: n["feature_type"] for n in our_file["nodes"]}
    links = sorted(crossing, key=lambda l: -abs(l["weight"]))[:STRONGEST]
    diagonal = torch.eye(t, dtype=torch.float64).expand(per_layer, t, t)
    whole = torch.ones(per_layer, t, t, dtype=torch.float64)
    ours, theirs, sums, edges = [], [], [], []
    for link in links:
        source = node_write(link["source"], kinds[link["source"]], raw, cache, plain, transcoders)
        edge = lambda masks: frozen_edge(plain, cache, transcoders, skip, ids, masks, source, link["target"])  # noqa: E731
        below = [edge([diagonal] * L + [whole] * (layers - L)) for L in range(layers + 1)]
        for L in range(layers):
            for h in range(per_layer):
                one = diagonal.clone()
                one[h] = 1.0
                theirs.append(edge([diagonal] * L + [one] + [whole] * (layers - L - 1)) - below[L + 1])
        ours += link["heads"]
        sums.append(sum(link["heads"]))
        edges.append(their_edge(link["target"], link["source"]))
        assert abs(below[layers]) < 1e-9, f"{name}: {link['source']} -> {link['target']} runs within one position"
    gap = close(f"{name}: head loadings of {len(links)} links, by masked patterns", ours, theirs, True, 1e-5)
    close(f"{name}: the loadings' sums against circuit-tracer's edges", sums, edges, True, 1e-5)
    print(f"{name}: {len(links)} links' head loadings agree with PyTorch's within {gap:.1e} and sum to "
          f"circuit-tracer's edges", flush=True)
