//! `gpt walk`: one token followed through a checkpoint's model, as the page's walk shows it: every
//! stage of the forward pass with its shape, nanoGPT's line and its numbers, the draw at the end,
//! and one training step's backward pass and update. `--json` prints the walk whole.

use gpt::inspect::walk::{Stage, Walk, WalkRequest};
use std::path::PathBuf;

/// Values a stage prints on a line before "…".
const SHOWN: usize = 8;

#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    checkpoint: PathBuf,
    /// The text to follow, or a task's problem as typed (`bdca`, `12+34`) [default: the start of the
    /// held-out text, or a held-out problem].
    #[arg(long, default_value = "")]
    prompt: String,
    /// The position to follow, counting from 0 [default: the prompt's last].
    #[arg(long)]
    position: Option<usize>,
    /// The layer and head whose attention opens, counting from 1 as the page does [default: the head
    /// the run's scores name, its induction head once one formed].
    #[arg(long, requires = "head")]
    layer: Option<usize>,
    #[arg(long, requires = "layer")]
    head: Option<usize>,
    /// The token the training step teaches at the position [default: the one that follows].
    #[arg(long, default_value = "")]
    target: String,
    /// The draw's temperature (0: the likeliest), top-k (0: all) and seed [default: the checkpoint's
    /// last generation's, else 0.8, 0 and 1337].
    #[arg(long)]
    temperature: Option<f32>,
    #[arg(long)]
    top_k: Option<usize>,
    #[arg(long)]
    seed: Option<u64>,
    /// The text a text run trained on, for the held-out text it follows by default.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Print the walk as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<(), String> {
    let run = crate::shared::open_run_with_text(&a.checkpoint, a.data.as_deref())?;
    let from_one = |n: Option<usize>, flag: &str| match n {
        Some(0) => Err(format!("{flag} counts from 1")),
        n => Ok(n.map(|n| n - 1)),
    };
    let sample = run.last_sample().cloned().unwrap_or_default();
    let request = WalkRequest {
        text: a.prompt,
        position: a.position,
        layer: from_one(a.layer, "--layer")?,
        head: from_one(a.head, "--head")?,
        target: a.target,
        temperature: a.temperature.unwrap_or(sample.temperature),
        top_k: a.top_k.unwrap_or(sample.top_k),
        seed: a.seed.unwrap_or(sample.seed),
    };
    let walk = run.walk(&request).map_err(|e| e.to_string())?;
    if a.json {
        println!("{}", serde_json::to_string(&walk).map_err(|e| e.to_string())?);
    } else {
        print_walk(&walk);
    }
    Ok(())
}

fn print_walk(w: &Walk) {
    let f = &w.followed;
    println!(
        "{:?}, position {} ({:?}), layer {} head {}, at step {}",
        f.text,
        f.position,
        f.tokens[f.position],
        f.layer + 1,
        f.head + 1,
        w.step
    );
    println!("\nForward");
    w.forward.iter().for_each(print_stage);
    let d = &w.draw;
    let likeliest: Vec<String> = d.likeliest.iter().map(|t| format!("{:?} {:.3}", t.token, t.prob)).collect();
    println!("\nDraw at temperature {} and top-k {}: {}", d.temperature, d.top_k, likeliest.join(", "));
    println!("  picked {:?} (p {:.3})", d.picked.token, d.picked.prob);
    let b = &w.backward;
    println!("\nOne training step on {:?}: loss −log p = {:.4}", b.target.token, b.loss);
    b.stages.iter().for_each(print_stage);
    println!(
        "\n{} step at rate {:.3e}, gradient norm {:.4} (clipped to {}): loss {:.4} → {:.4}",
        b.optimizer, b.lr, b.grad_norm, b.grad_clip, b.loss, b.loss_after
    );
    println!("{:<40} {:>12} {:>12} {:>12}", "weight", "‖grad‖", "‖update‖", "‖weight‖");
    for p in &b.params {
        println!("{:<40} {:>12.4e} {:>12.4e} {:>12.4}", p.name, p.grad_norm, p.update_norm, p.weight_norm);
    }
}

fn print_stage(s: &Stage) {
    println!("- {} [{}] {}", s.title, s.hook, s.shape);
    println!("    {}", s.code);
    let shown = |values: &[f32]| {
        let head: Vec<String> = values.iter().take(SHOWN).map(|v| format!("{v:.4}")).collect();
        format!("{}{}", head.join(" "), if values.len() > SHOWN { " …" } else { "" })
    };
    match (s.rows, s.focus_row) {
        (1, _) => println!("    {}", shown(&s.values)),
        (_, Some(r)) => {
            println!("    row {r} of {}×{}: {}", s.rows, s.cols, shown(&s.values[r * s.cols..(r + 1) * s.cols]))
        }
        _ => println!("    {}×{}: {}", s.rows, s.cols, shown(&s.values)),
    }
    for note in &s.notes {
        println!("    {}: {:.4}", note.label, note.value);
    }
}
