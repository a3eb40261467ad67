//! `gpt bench`: training speed of a preset on random tokens, on one thread.

use gpt::Trainer;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The configuration to time.
    #[arg(long, default_value = "nano-cpu")]
    preset: String,
    /// Timed steps, after 3 untimed warm-up steps.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    iters: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<(), String> {
    let preset = super::preset(&a.preset)?;
    let (mut model, train) = (preset.model, preset.train);
    model.vocab_size = 65;
    // Speed does not depend on what the tokens say; a fixed pseudo-random stream stands in for text.
    let mut rng = gpt::rng::Rng::new(0);
    let tokens = (0..200_000).map(|_| rng.below(model.vocab_size) as u32).collect();
    let mut trainer = Trainer::new(model, train, tokens).map_err(|e| e.to_string())?;
    for _ in 0..3 {
        trainer.step().map_err(|e| e.to_string())?;
    }
    // The median step, so a background process waking up does not move the number.
    let mut ms: Vec<f64> = (0..a.iters)
        .map(|_| {
            let start = Instant::now();
            trainer.step().map(|_| 1e3 * start.elapsed().as_secs_f64())
        })
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    ms.sort_by(f64::total_cmp);
    let ms = ms[ms.len() / 2];
    let tps = trainer.tokens_per_step() as f64 * 1e3 / ms;
    if a.json {
        println!(
            "{}",
            serde_json::json!({"preset": a.preset, "ms_per_iter": ms, "tokens_per_s": tps.round(), "iters": a.iters, "statistic": "median"})
        );
    } else {
        println!(
            "{}: {ms:.1} ms/iter, {tps:.0} tokens/s (median of {} steps of {} tokens, one thread)",
            a.preset,
            a.iters,
            trainer.tokens_per_step()
        );
    }
    Ok(())
}
