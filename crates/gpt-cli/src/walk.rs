//! `gpt walk`: one token followed through a checkpoint's model, as the page's walk shows it: every
//! stage of the forward pass with its shape, nanoGPT's line and its numbers, the draw at the end,
//! and one training step's backward pass and update. `--json` prints the walk whole.

use gpt::inspect::walk::{Stage, Walk, WalkRequest};

/// Values a stage prints on a line before "…".
const SHOWN: usize = 8;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: crate::shared::RunFlags,
    /// The text to follow, or a task's problem as typed (`bdca`, `12+34`) [default: the start of the
    /// held-out text, or a held-out problem].
    #[arg(long)]
    prompt: Option<String>,
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
    #[arg(long)]
    target: Option<String>,
    #[command(flatten)]
    draw: crate::draw_flags::DrawFlags,
    /// Print the walk as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<(), String> {
    let run = a.run.open()?;
    let from_one = |n: Option<usize>, flag: &str| match n {
        Some(0) => Err(format!("{flag} counts from 1")),
        n => Ok(n.map(|n| n - 1)),
    };
    let draw = a.draw.over(run.last_sample().cloned().unwrap_or_default());
    let request = WalkRequest {
        text: a.prompt.unwrap_or_default(),
        position: a.position,
        layer: from_one(a.layer, "--layer")?,
        head: from_one(a.head, "--head")?,
        target: a.target.unwrap_or_default(),
        temperature: draw.temperature,
        top_k: draw.top_k,
        seed: draw.seed,
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
    println!("  picked {:?} (p {:.3} at these settings)", d.picked.token, d.picked.prob);
    let b = &w.backward;
    println!(
        "\nOne training step on {:?}: loss −log p = {:.4}, p = {:.4} at temperature 1",
        b.target.token, b.loss, b.target.prob
    );
    if b.clip_scale < 1.0 {
        println!(
            "The gradients below are the loss's own; the step clipped them all from norm {:.4} to {} (× {:.4}).",
            b.grad_norm, b.grad_clip, b.clip_scale
        );
    }
    b.stages.iter().for_each(print_stage);
    let rates: Vec<String> = b
        .rates
        .iter()
        .map(|r| {
            let scaled = if r.shape_scaled { ", each times √max(1, rows / columns)" } else { "" };
            format!(
                "{} at rate {:.3e} for {} weight{}{scaled}",
                r.title,
                r.lr,
                r.weights,
                if r.weights == 1 { "" } else { "s" }
            )
        })
        .collect();
    let clipped = if b.grad_clip > 0.0 { format!(" (clipped to {})", b.grad_clip) } else { String::new() };
    println!("\nThe update: {}", rates.join("; "));
    println!("gradient norm {:.4}{clipped}: loss {:.4} → {:.4}", b.grad_norm, b.loss, b.loss_after);
    println!(
        "{:<40} {:>9} {:>10} {:>12} {:>12} {:>12}",
        "weight", "optimiser", "rate", "‖grad‖", "‖update‖", "‖weight‖"
    );
    for p in &b.params {
        println!(
            "{:<40} {:>9} {:>10.3e} {:>12.4e} {:>12.4e} {:>12.4}",
            p.name, p.optimizer, p.lr, p.grad_norm, p.update_norm, p.weight_norm
        );
    }
}

fn print_stage(s: &Stage) {
    let hooks = if s.hooks.is_empty() { "no TransformerLens hook".to_string() } else { s.hooks.join(", ") };
    println!("- {} [{hooks}] {}", s.title, s.shape);
    println!("    {}", s.code);
    let shown = |values: &[f32]| {
        let number = |v: &f32| if s.whole { format!("{v:.0}") } else { format!("{v:.4}") };
        let head: Vec<String> = values.iter().take(SHOWN).map(number).collect();
        format!("{}{}", head.join(" "), if values.len() > SHOWN { " …" } else { "" })
    };
    let row = |r: usize| &s.values[r * s.cols..(r + 1) * s.cols];
    match (s.rows, s.focus_row) {
        (1, _) => println!("    {}", shown(&s.values)),
        (_, Some(r)) => println!("    row {r} of {}×{}: {}", s.rows, s.cols, shown(row(r))),
        // Rows that are different values: each with its label and hook.
        (rows, None) if s.hooks.len() == rows => {
            for (r, (label, hook)) in s.row_labels.iter().zip(&s.hooks).enumerate() {
                println!("    {label} [{hook}]: {}", shown(row(r)));
            }
        }
        _ => println!("    {}×{}: {}", s.rows, s.cols, shown(&s.values)),
    }
    for note in &s.notes {
        println!("    {}: {:.4}", note.label, note.value);
    }
}
