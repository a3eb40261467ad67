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


def node_write(node, raw, layers, cache, plain, transcoders):
    """Where writing node `node` (circuit-tracer's numbering: features, errors by layer then
    position, tokens) writes (its hook and position) and what."""
    t, n_f = len(raw["tokens"]), len(raw["features"])
    if node < n_f:
        f = raw["features"][node]
        return f"blocks.{f['layer']}.hook_mlp_out", f["position"], f["activation"] * transcoders[f["layer"]].W_dec[f["feature"]]
    if node < n_f + layers * t:  # an error: the MLP's output less the transcoder's
        l, position = divmod(node - n_f, t)
        x = cache[f"blocks.{l}.ln2.hook_normalized"][0]
        error = cache[f"blocks.{l}.hook_mlp_out"][0] - transcoders[l].decode(transcoders[l].encode(x), x)
        return f"blocks.{l}.hook_mlp_out", position, error[position]
    position = node - n_f - layers * t
    return "hook_embed", position, plain.W_E[raw["tokens"][position]]


def reader(node, raw, layers):
    """What node `node` reads: (layer, feature index, position) for a feature, or (layers + 1,
    token, last position) for a logit (numbered after the writing nodes)."""
    t, n_f = len(raw["tokens"]), len(raw["features"])
    if node < n_f:
        f = raw["features"][node]
        return f["layer"], f["feature"], f["position"]
    return layers + 1, raw["logits"][node - n_f - (layers + 1) * t]["token"], t - 1


def frozen_edge(plain, cache, transcoders, skip, ids, masks, source, target):
    """The edge from `source` (hook, position, what it writes) into `target`'s reader, in the
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
    layer, index, at = target
    if layer == layers + 1:
        value = logits[at, index] - logits[at].mean()
    else:
        value = read[layer][0, at] @ transcoders[layer].W_enc[index]  # circuit-tracer's (d_sae, d_model)
    (grad,) = torch.autograd.grad(value, s)
    return grad.item()


def check(name, plain, transcoders, raw, our_file, their_edge, skip):
    """Each of the `STRONGEST` links of `our_file` that cross positions: its head loadings by the
    masked frozen patterns (within 1e-5 of ours), and their sum against circuit-tracer's edge
    (`their_edge(target, source)`, by node number; within 1e-5). The file's links are the pruned
    graph's edges in order (`raw["pruned"]["edges"]`), which give each link's nodes by number:
    circuit-tracer's ids can name two nodes (an error `0_{layer}_{position}` and a feature of layer
    0 `0_{index}_{position}`)."""
    ids = torch.tensor(raw["tokens"])
    per_layer = our_file["metadata"]["heads_per_layer"]
    layers, t = plain.cfg.n_layers, len(raw["tokens"])
    _, cache = plain.run_with_cache(ids.unsqueeze(0))
    edges = raw["pruned"]["edges"]
    assert len(edges) == len(our_file["links"]), f"{name}: a link for each kept edge"
    pairs = [(e, l) for e, l in zip(edges, our_file["links"]) if "heads" in l]
    assert pairs, f"{name}: no link crosses positions"
    assert all(abs(e[2] - l["weight"]) < 1e-6 for e, l in pairs), f"{name}: links in the pruned edges' order"
    assert all(len(l["heads"]) == layers * per_layer for _, l in pairs), f"{name}: a part for each head"
    pairs = sorted(pairs, key=lambda p: -abs(p[1]["weight"]))[:STRONGEST]
    diagonal = torch.eye(t, dtype=torch.float64).expand(per_layer, t, t)
    whole = torch.ones(per_layer, t, t, dtype=torch.float64)
    ours, theirs, sums, edge_values = [], [], [], []
    for (target, source, _), link in pairs:
        written = node_write(source, raw, layers, cache, plain, transcoders)
        read = reader(target, raw, layers)
        edge = lambda masks: frozen_edge(plain, cache, transcoders, skip, ids, masks, written, read)  # noqa: E731
        below = [edge([diagonal] * L + [whole] * (layers - L)) for L in range(layers + 1)]
        for L in range(layers):
            for h in range(per_layer):
                one = diagonal.clone()
                one[h] = 1.0
                theirs.append(edge([diagonal] * L + [one] + [whole] * (layers - L - 1)) - below[L + 1])
        ours += link["heads"]
        sums.append(sum(link["heads"]))
        edge_values.append(their_edge(target, source))
        assert abs(below[layers]) < 1e-9, f"{name}: {link['source']} -> {link['target']} runs within one position"
    gap = close(f"{name}: head loadings of {len(pairs)} links, by masked patterns", ours, theirs, True, 1e-5)
    summed = close(f"{name}: the loadings' sums against circuit-tracer's edges", sums, edge_values, True, 1e-5)
    print(f"{name}: {len(pairs)} links' head loadings agree with PyTorch's within {gap:.1e} and sum to "
          f"circuit-tracer's edges within {summed:.1e}", flush=True)
