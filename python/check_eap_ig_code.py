"""Runs EAP-IG's own code (hannamw/EAP-IG, installed from source) on the circuit view's pairs and
compares its scores with the CLI's (`gpt inspect circuit --json`):

    python python/check_eap_ig_code.py --eap-ig PATH/TO/EAP-IG [--data ../shared/data] [--only NAME ...]

(needs torch, transformers and TransformerLens 3.x: pip install 'transformer-lens<4'; PATH is a
checkout of hannamw/EAP-IG, whose source it reads: checked at commit 795f560.)

For the induction preset under the swap (exported as Starcoder2, rotary positions), a reverse-task
run and a text run (exported as GPT-2), trained by `gpt train` and exported by `gpt export --hf`,
the export's weights go into a TransformerLens HookedTransformer (TransformerLens 3.x: 4.0 removed
HookedTransformer, which EAP-IG's code takes; TransformerLens's own conversion for GPT-2, the
mapping below for Starcoder2), in float64, with no folding. EAP-IG's
`attribute` then scores every edge by its methods `exact` (evaluate_graph with that edge alone
left out), `EAP` and `EAP-IG-inputs`, and its `evaluate_graph` measures every circuit the CLI
found. What had to be adapted, and nothing else: EAP-IG puts its score matrices on 'cuda' (a
copy of its source with the model's device instead), and its `tokenize_plus` tokenizes strings
with a BOS token, which these models have none of (it is given the CLI's token ids as they are).
Every score and faithfulness agrees within 1e-4.
"""

import argparse
import importlib
import json
import os
import shutil
import sys
import tempfile

import torch
from transformers import AutoModelForCausalLM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_circuit  # noqa: E402
from checking import close, gpt, worst  # noqa: E402

# check_circuit.py's runs whose export TransformerLens opens (the QK-norm one needs our modelling code).
RUNS = {name: run for name, run in check_circuit.RUNS.items() if name != "qk-norm"}


def eap_ig(checkout, work):
    """EAP-IG's package from `checkout`, its score matrices on the model's device."""
    copy = os.path.join(work, "eap")
    shutil.copytree(os.path.join(checkout, "src", "eap"), copy)
    for name in os.listdir(copy):
        if name.endswith(".py"):
            path = os.path.join(copy, name)
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text.replace("device='cuda'", "device=model.cfg.device"))
    sys.path.insert(0, work)
    modules = {name: importlib.import_module(f"eap.{name}") for name in ["graph", "attribute", "evaluate", "utils"]}

    def tokenize_plus(model, inputs, max_length=None):
        """The CLI's token ids as they are: every pair of a batch has one length, and no BOS."""
        tokens = torch.tensor(inputs, device=model.cfg.device)
        mask = torch.ones_like(tokens)
        return tokens, mask, mask.sum(1), tokens.shape[1]

    for module in modules.values():
        if hasattr(module, "tokenize_plus"):
            module.tokenize_plus = tokenize_plus
    return modules


def starcoder2_weights(hf, cfg):
    """A Starcoder2 export's weights in TransformerLens's names and shapes (heads apart)."""
    sd, n, h = hf.state_dict(), cfg.n_heads, cfg.d_head
    state = {"embed.W_E": sd["model.embed_tokens.weight"], "ln_final.w": sd["model.norm.weight"], "ln_final.b": sd["model.norm.bias"]}
    state["unembed.W_U"] = hf.lm_head.weight.T
    state["unembed.b_U"] = torch.zeros(cfg.d_vocab, dtype=cfg.dtype)

    def bias(name, *shape):
        return sd.get(name, torch.zeros(*shape, dtype=cfg.dtype))

    for l in range(cfg.n_layers):
        at, to = f"model.layers.{l}.", f"blocks.{l}."
        for ours, theirs in [("ln1", "input_layernorm"), ("ln2", "post_attention_layernorm")]:
            state[to + ours + ".w"], state[to + ours + ".b"] = sd[at + theirs + ".weight"], sd[at + theirs + ".bias"]
        for part in "qkv":
            w = sd[at + f"self_attn.{part}_proj.weight"]
            state[to + f"attn.W_{part.upper()}"] = w.reshape(n, h, cfg.d_model).transpose(1, 2)
            state[to + f"attn.b_{part.upper()}"] = bias(at + f"self_attn.{part}_proj.bias", n * h).reshape(n, h)
        state[to + "attn.W_O"] = sd[at + "self_attn.o_proj.weight"].T.reshape(n, h, cfg.d_model)
        state[to + "attn.b_O"] = bias(at + "self_attn.o_proj.bias", cfg.d_model)
        state[to + "mlp.W_in"], state[to + "mlp.b_in"] = sd[at + "mlp.c_fc.weight"].T, bias(at + "mlp.c_fc.bias", cfg.d_mlp)
        state[to + "mlp.W_out"], state[to + "mlp.b_out"] = sd[at + "mlp.c_proj.weight"].T, bias(at + "mlp.c_proj.bias", cfg.d_model)
    return state


def hooked(folder):
    """The export (GPT-2 or Starcoder2) as a HookedTransformer, float64, weights as they are."""
    from transformer_lens import HookedTransformer, HookedTransformerConfig
    from transformer_lens.pretrained.weight_conversions import convert_gpt2_weights

    hf = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float64).eval()
    c = hf.config
    if c.model_type == "gpt2":
        shape = dict(n_layers=c.n_layer, d_model=c.n_embd, n_ctx=c.n_positions, n_heads=c.n_head, d_mlp=c.n_inner or 4 * c.n_embd)
        extra = dict(act_fn=c.activation_function, eps=c.layer_norm_epsilon, positional_embedding_type="standard")
        convert = convert_gpt2_weights
    else:
        assert c.model_type == "starcoder2", f"a GPT-2 or Starcoder2 export, not {c.model_type}"
        shape = dict(n_layers=c.num_hidden_layers, d_model=c.hidden_size, n_ctx=c.max_position_embeddings,
                     n_heads=c.num_attention_heads, d_mlp=c.intermediate_size)
        extra = dict(act_fn=c.hidden_act, eps=c.norm_epsilon, positional_embedding_type="rotary",
                     rotary_dim=c.hidden_size // c.num_attention_heads, rotary_base=c.rope_parameters["rope_theta"],
                     rotary_adjacent_pairs=False)
        convert = starcoder2_weights
    cfg = HookedTransformerConfig(
        **shape, **extra, d_head=shape["d_model"] // shape["n_heads"], d_vocab=c.vocab_size,
        normalization_type="LN", default_prepend_bos=False, dtype=torch.float64, device="cpu",
    )
    model = HookedTransformer(cfg)
    model.load_and_process_state_dict(
        convert(hf, cfg), fold_ln=False, center_writing_weights=False, center_unembed=False,
        fold_value_biases=False, refactor_factored_attn_matrices=False,
    )
    model.eval()
    ids = torch.arange(min(8, c.vocab_size)).unsqueeze(0)
    close("the HookedTransformer's logits against the export's", model(ids), hf(ids).logits)
    model.set_use_attn_result(True)
    model.set_use_split_qkv_input(True)
    model.set_use_hook_mlp_in(True)
    return model


def batches(ids):
    """The CLI's pairs, a batch for each length: (clean, corrupted, [answer, wrong])."""
    by_length = {}
    for p in ids:
        by_length.setdefault(len(p["clean"]), []).append(p)
    return [
        ([p["clean"] for p in ps], [p["corrupted"] for p in ps], torch.tensor([[p["answer"], p["wrong"]] for p in ps]))
        for ps in by_length.values()
    ]


def per_pair(logits, clean_logits, input_lengths, labels):
    """The answer's logit minus the corrupted answer's at the last position, for each pair."""
    last = logits[:, -1]
    return last.gather(1, labels[:, :1]).squeeze(1) - last.gather(1, labels[:, 1:]).squeeze(1)


def summed(logits, clean_logits, input_lengths, labels):
    """The same summed over a batch: EAP-IG divides its scores by the pairs it saw."""
    return per_pair(logits, clean_logits, input_lengths, labels).sum()


def check(name, data, work, eap):
    ckpt, folder = os.path.join(work, f"{name}.ckpt"), os.path.join(work, f"{name}-hf")
    train, circuit = RUNS[name]
    gpt("train", *[a.format(data=data) for a in train], "--out", ckpt)
    gpt("export", "--checkpoint", ckpt, "--hf", folder)
    ours = json.loads(gpt("inspect", "--checkpoint", ckpt, "circuit", "--json", *circuit))
    model, loader = hooked(folder), batches(ours["ids"])
    names = [e["name"] for e in ours["graph"]["edges"]]
    theirs = {}
    for method, ours_key, steps in [("exact", "exact", None), ("EAP", "eap", None), ("EAP-IG-inputs", "eap_ig", ours["request"]["ig_steps"])]:
        graph = eap["graph"].Graph.from_model(model)
        assert sorted(graph.edges) == sorted(names), f"{name}: EAP-IG's edges are not ours"
        metric = per_pair if method == "exact" else summed
        eap["attribute"].attribute(model, graph, loader, metric, method=method, ig_steps=steps, quiet=True)
        theirs[ours_key] = [graph.edges[n].score for n in names]
        close(f"{name}: {method} by EAP-IG's code", ours[ours_key], theirs[ours_key])
    clean = eap["evaluate"].evaluate_baseline(model, loader, per_pair, quiet=True).mean().item()
    corrupted = eap["evaluate"].evaluate_baseline(model, loader, per_pair, run_corrupted=True, quiet=True).mean().item()
    close(f"{name}: the metric, clean and corrupted", [ours["clean"], ours["corrupted"]], [clean, corrupted])
    for c in ours["circuits"]:
        graph = eap["graph"].Graph.from_model(model)
        graph.in_graph[:] = False
        for e in c["edges"]:
            graph.edges[names[e]].in_graph = True
        kept = eap["evaluate"].evaluate_graph(model, graph, loader, per_pair, quiet=True).mean().item()
        close(f"{name}: {c['method']} circuit's faithfulness by evaluate_graph", c["faithfulness"], (kept - corrupted) / (clean - corrupted))
    top = max(range(len(names)), key=lambda e: abs(theirs["exact"][e]))
    print(f"  {name}: {len(names)} edges × {ours['pairs']} pairs agree with EAP-IG's code; top {names[top]} exact "
          f"{theirs['exact'][top]:.4f}, EAP {theirs['eap'][top]:.4f}, EAP-IG {theirs['eap_ig'][top]:.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--eap-ig", required=True, help="a checkout of hannamw/EAP-IG")
    parser.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--only", nargs="*", choices=list(RUNS), default=list(RUNS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        eap = eap_ig(args.eap_ig, work)
        for name in args.only:
            check(name, args.data, work, eap)
    print(f"EAP-IG's own code agrees with the CLI on every edge and circuit: largest gap {worst['value']:.2e}")


if __name__ == "__main__":
    main()
