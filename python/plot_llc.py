"""Draws a run's learning coefficient over training, from what the CLI wrote (needs matplotlib;
not part of scripts/test.sh). The figure in docs/llc.md was drawn so:

    gpt train --task repeat --keep-each kept --json > train.jsonl
    gpt inspect --checkpoint kept/step-001000.safetensors llc --over kept --json > whole.json
    gpt inspect --checkpoint kept/step-001000.safetensors llc --over kept --part heads \\
        --chains 2 --draws 100 --burn-in 50 --json > heads.json
    python python/plot_llc.py train.jsonl whole.json heads.json docs/images/llc-induction.png

Above: the training and held-out losses and the whole model's LLC (its spread over chains shaded), the LLC's
turns and the run's marks (an induction head, a circuit, memorised, generalised: those it reached). Below: each head's refined LLC, the head the run marked as an induction
head drawn thick.
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(part):
    return "whole" if part["kind"] == "whole" else f"L{part['layer'] + 1}H{part['head'] + 1}"


def main(train_log, whole_file, heads_file, out):
    evals = [json.loads(line) for line in open(train_log) if not json.loads(line).get("summary")]
    whole, heads = json.load(open(whole_file)), json.load(open(heads_file))
    marks = whole["milestones"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    top.plot([e["step"] for e in evals], [e["train_loss"] for e in evals], color="#888", label="training loss")
    top.plot([e["step"] for e in evals], [e["val_loss"] for e in evals], color="#888", linestyle="--", label="held-out loss")
    top.set_ylabel("loss")
    llc = top.twinx()
    curve = whole["parts"][0]["curve"]
    steps, means, stds = ([r[k] for r in curve] for k in ("step", "mean", "std"))
    llc.plot(steps, means, color="#c0392b", label="LLC (whole model)")
    llc.fill_between(steps, [m - s for m, s in zip(means, stds)], [m + s for m, s in zip(means, stds)], color="#c0392b", alpha=0.2)
    llc.set_ylabel("LLC")
    for turn in whole["parts"][0]["turns"]:
        llc.axvline(turn["step"], color="#c0392b", linestyle=":", label=f"LLC {turn['kind']} (step {turn['step']})")
    induction = marks.get("induction")
    steps_of = {
        "induction head": induction["step"] if induction else None,
        "circuit formed": marks.get("circuit"),
        "memorised": marks.get("memorised"),
        "generalised": marks.get("generalised"),
    }
    colours = {"induction head": "#2c7fb8", "circuit formed": "#31a354", "memorised": "#fd8d3c", "generalised": "#756bb1"}
    shown = {name: step for name, step in steps_of.items() if step is not None}
    for ax in (top, bottom):
        for name, step in shown.items():
            ax.axvline(step, color=colours[name], linestyle="--")
    handles = top.get_legend_handles_labels()[0] + llc.get_legend_handles_labels()[0]
    handles += [plt.Line2D([], [], color=colours[name], linestyle="--") for name in shown]
    names = top.get_legend_handles_labels()[1] + llc.get_legend_handles_labels()[1]
    names += [f"{name} (step {step})" for name, step in shown.items()]
    top.legend(handles, names, loc="upper right", fontsize=8)
    marked = f"L{induction['layer'] + 1}H{induction['head'] + 1}" if induction else None
    for part in heads["parts"]:
        name = label(part["part"])
        steps = [r["step"] for r in part["curve"]]
        bottom.plot(steps, [r["mean"] for r in part["curve"]], linewidth=3 if name == marked else 1,
                    label=name + (" (induction)" if name == marked else ""))
    bottom.set_ylabel("each head's refined LLC")
    bottom.set_xlabel("step")
    bottom.legend(ncol=4, fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(*sys.argv[1:5])
