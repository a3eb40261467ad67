//! `gpt bench`: training speed of a preset on random text.

use gpt::Run;

/// Untimed steps first: first-touch allocations, caches.
const WARMUP_STEPS: usize = 3;

#[derive(clap::Args)]
pub struct Args {
    /// The configuration to time.
    #[arg(long, default_value = "nano-cpu")]
    preset: String,
    /// Timed steps, after 3 untimed warm-up steps.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    iters: u32,
    /// Threads that compute each step [default: every core].
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<(), String> {
    let preset = crate::shared::preset(&a.preset)?;
    let mut settings = preset.settings;
    settings.train.max_iters = WARMUP_STEPS + a.iters as usize;
    settings.train.warmup_iters = settings.train.warmup_iters.min(settings.train.max_iters);
    // Speed does not depend on what the text says; 65 pseudo-random characters stand in for it.
    let mut rng = gpt::rng::Rng::new(0);
    let alphabet: Vec<char> = (0..65u8).map(|i| char::from(b'!' + i)).collect();
    let text: String = (0..200_000).map(|_| alphabet[rng.below(alphabet.len())]).collect();
    let mut run = Run::create(&settings, &text, &crate::shared::budget()).map_err(|e| e.to_string())?;
    run.set_threads(a.threads.unwrap_or_else(crate::shared::all_cores));
    let mut step = || match run.train(1, &crate::shared::now_ms) {
        Ok(report) => match report.stopped {
            Some(why) => Err(why),
            None => Ok(report),
        },
        Err(e) => Err(e.to_string()),
    };
    for _ in 0..WARMUP_STEPS {
        step()?;
    }
    // The median step, so a background process waking up does not move the number.
    let mut speeds: Vec<f64> = (0..a.iters).map(|_| step().map(|r| r.tokens_per_s)).collect::<Result<_, _>>()?;
    speeds.sort_by(f64::total_cmp);
    let tps = speeds[speeds.len() / 2];
    let tokens = run.tokens_per_step();
    let ms = tokens as f64 * 1e3 / tps;
    if a.json {
        println!(
            "{}",
            serde_json::json!({"preset": a.preset, "ms_per_iter": ms, "tokens_per_s": tps.round(), "iters": a.iters, "threads": run.workers(), "statistic": "median"})
        );
    } else {
        let threads = match run.workers() {
            1 => "one thread".to_string(),
            n => format!("{n} threads"),
        };
        println!(
            "{}: {ms:.1} ms/iter, {tps:.0} tokens/s (median of {} steps of {tokens} tokens, {threads})",
            a.preset, a.iters
        );
    }
    Ok(())
}
