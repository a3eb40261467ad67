//! `gpt sample`: text from a checkpoint, streamed to stdout token by token; for a task's
//! checkpoint, held-out problems (or the one given) with the model's answers, marked.

use gpt::SampleConfig;
use std::io::Write;
use std::path::PathBuf;

/// Each setting left out is the one the checkpoint's last generation used (the page saves it),
/// or else the default shown.
#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    checkpoint: PathBuf,
    /// Text to continue; empty starts from the first token (a newline for most texts) [default: ""].
    /// For a task's model, a problem to answer (`bdca`, `12+34`).
    #[arg(long)]
    prompt: Option<String>,
    /// For a task's model: how many held-out problems to answer [default: 10].
    #[arg(long)]
    problems: Option<usize>,
    /// [default: 500]
    #[arg(long)]
    max_new_tokens: Option<usize>,
    #[command(flatten)]
    draw: crate::draw_flags::DrawFlags,
    /// Instead of sampling, list the K most likely next tokens after the prompt (at the
    /// temperature, or 1 when it is 0) with their probabilities.
    #[arg(long, value_name = "K")]
    next_tokens: Option<usize>,
    /// With --next-tokens: the list as JSON, each token with its id and its probability in full.
    #[arg(long, requires = "next_tokens")]
    json: bool,
}

/// One problem and the model's answer, marked as the page marks it.
fn show(out: &mut impl Write, s: &gpt::Solution) -> std::io::Result<()> {
    let mark = if s.correct { "right".to_string() } else { format!("wrong, the answer is {}", s.expected) };
    let origin = match s.origin {
        gpt::Origin::Training => " (a training problem)",
        gpt::Origin::HeldOut => "",
        gpt::Origin::Outside => " (not a problem the task makes)",
    };
    writeln!(out, "{}{}\t{mark}{origin}", s.prompt, s.answer)
}

/// A task's model answers the problem typed, or held-out ones.
fn solve(run: &gpt::Run, a: &Args, out: &mut impl Write) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    if let Some(problem) = &a.prompt {
        return show(out, &run.solve(problem).map_err(|e| format!("--prompt: {e}"))?).map_err(io);
    }
    let solutions = run.held_out_solutions(a.problems.unwrap_or(10)).map_err(|e| e.to_string())?;
    solutions.iter().try_for_each(|s| show(out, s)).map_err(io)?;
    let right = solutions.iter().filter(|s| s.correct).count();
    writeln!(out, "{right} of {} held-out problems right", solutions.len()).map_err(io)
}

pub fn run(a: Args) -> Result<(), String> {
    let mut run = crate::shared::open_run(&a.checkpoint)?;
    if run.task().is_some() && a.next_tokens.is_none() {
        return solve(&run, &a, &mut std::io::stdout().lock());
    }
    let saved = run.last_sample().cloned().unwrap_or(SampleConfig { max_new_tokens: 500, ..Default::default() });
    let config = SampleConfig {
        prompt: a.prompt.unwrap_or(saved.prompt.clone()),
        max_new_tokens: a.max_new_tokens.unwrap_or(saved.max_new_tokens),
        ..a.draw.over(saved)
    };
    let mut out = std::io::stdout().lock();
    let io = |e: std::io::Error| e.to_string();
    if let Some(k) = a.next_tokens {
        let next = run.next_tokens(&config.prompt, config.temperature, k).map_err(|e| format!("--prompt: {e}"))?;
        if a.json {
            return writeln!(out, "{}", serde_json::to_string(&next).map_err(|e| e.to_string())?).map_err(io);
        }
        for t in next.tokens {
            // Debug-quoted, so a newline or space token stays visible.
            writeln!(out, "{:.4}\t{:?}", t.prob, t.token).map_err(io)?;
        }
        return Ok(());
    }
    let prompt = config.prompt.clone();
    run.start_sample(config).map_err(|e| format!("--prompt: {e}"))?;
    out.write_all(prompt.as_bytes()).map_err(io)?;
    while let Some(text) = run.sample_next(1).map_err(|e| e.to_string())? {
        out.write_all(text.as_bytes()).and_then(|_| out.flush()).map_err(io)?;
    }
    writeln!(out).map_err(io)
}
