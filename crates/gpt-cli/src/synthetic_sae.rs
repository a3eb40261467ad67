//! `gpt superposition --synthetic`: an autoencoder (TopK unless `--architecture` says) trained on
//! activations of known features, built as SAELens's `sae_lens.synthetic` builds them or read from
//! a file its generator wrote (`--activations`), then scored against them.

use gpt::sae::Architecture;
use gpt::toy::{Correlation, Firing, Known, Recorded, Synthetic, SyntheticSae};

/// The autoencoder the flags ask for.
pub struct Plan {
    pub architecture: Architecture,
    pub expansion: usize,
    pub steps: usize,
    pub threads: usize,
    pub seed: u64,
}

/// Reads `--zipf MAX,MIN` (or the chance a feature fires, `1 − sparsity`).
pub fn firing(zipf: Option<&str>, sparsity: f32) -> Result<Firing, String> {
    let Some(zipf) = zipf else { return Ok(Firing::Equal { probability: 1.0 - sparsity }) };
    let bad =
        || format!("--zipf: {zipf:?} is not MAX,MIN (the most and least frequent features' firing probabilities)");
    let (max, min) = pair(zipf, bad)?;
    Ok(Firing::Zipf { exponent: 1.0, max, min })
}

/// Reads `--correlation RANK,SCALE`.
pub fn correlation(flag: Option<&str>) -> Result<Option<Correlation>, String> {
    let Some(flag) = flag else { return Ok(None) };
    let bad =
        || format!("--correlation: {flag:?} is not RANK,SCALE (how many shared factors, and their loadings' spread)");
    let (rank, scale) = pair(flag, bad)?;
    Ok(Some(Correlation { rank, scale }))
}

/// A flag's `A,B`, or `bad()`'s words.
fn pair<A: std::str::FromStr, B: std::str::FromStr>(value: &str, bad: impl Fn() -> String) -> Result<(A, B), String> {
    let (a, b) = value.split_once(',').ok_or_else(&bad)?;
    Ok((a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?))
}

/// Training rows `--trace` writes the firing of.
const TRACED_ROWS: usize = 20_000;

/// Writes the generator as a check replays it: the probabilities, the correlation's factor
/// (features × rank) and thresholds, and the features firing in the first training rows.
pub fn trace(source: &Synthetic, path: &std::path::Path) -> Result<(), String> {
    let n = source.spec().features;
    let firing = source.firing_of(&(0..TRACED_ROWS).collect::<Vec<_>>());
    let fired: Vec<Vec<usize>> = firing.chunks(n).map(|row| (0..n).filter(|&i| row[i] > 0.0).collect()).collect();
    let copula = source.copula().map(|c| serde_json::json!({ "factor": c.factor(), "thresholds": c.thresholds() }));
    let trace = serde_json::json!({ "spec": source.spec(), "probabilities": source.probabilities(), "copula": copula,
        "firing": fired });
    std::fs::write(path, trace.to_string()).map_err(|e| format!("{}: {e}", path.display()))
}

/// The rows of `--activations FILE`: `activations` to train on and `held_out` to score on (rows ×
/// d), the `truth` it was built from (features × d), and if there the held-out rows' true feature
/// activations, `held_out_firing` (rows × features), all float32.
pub fn recorded(path: &std::path::Path) -> Result<Recorded, String> {
    let file = crate::matrix_file::MatrixFile::open(path)?;
    let ((train, d), (held_out, _), (truth, _)) =
        (file.matrix("activations")?, file.matrix("held_out")?, file.matrix("truth")?);
    let firing = if file.has("held_out_firing") { Some(file.matrix("held_out_firing")?.0) } else { None };
    Recorded::new(d, train, held_out, firing, truth).map_err(|e| format!("{}: {e}", path.display()))
}

/// Trains the plan's autoencoder on `source` and prints its scores, `what` saying what it read.
pub fn run<K: Known>(plan: Plan, source: K, what: &str, json: bool) -> Result<(), String> {
    let config = SyntheticSae::config(plan.architecture, plan.expansion);
    let recipe = SyntheticSae::recipe(plan.steps, plan.seed);
    let mut sae = SyntheticSae::on(source, config, recipe).map_err(|e| e.to_string())?;
    let start = std::time::Instant::now();
    let clock = || start.elapsed().as_secs_f64() * 1e3;
    while !sae.done() {
        sae.train(100, plan.threads, &clock).map_err(|e| e.to_string())?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let s = sae.scores();
    if json {
        let line = serde_json::json!({ "sae": config, "steps": s.step, "seconds": seconds, "scores": s });
        println!("{line}");
        return Ok(());
    }
    println!(
        "{} autoencoder, {} latents{}, on {what}: {} steps in {seconds:.1} s",
        plan.architecture.name(),
        sae.sae().d_sae(),
        plan.architecture.k().map_or(String::new(), |k| format!(", k {k}")),
        s.step
    );
    println!(
        "  MCC {:.4}, {:.1}% of the true features found (|cos| ≥ {}), uniqueness {:.3}",
        s.truth.mcc,
        100.0 * s.truth.found,
        gpt::toy::truth::FOUND,
        s.truth.uniqueness
    );
    let true_l0 = s.true_l0.map_or(String::new(), |l0| format!(" (the true features' {l0:.2})"));
    println!(
        "  variance explained {:.1}%, L0 {:.2}{true_l0}, dead {:.1}%, dense {:.1}%",
        100.0 * s.explained_variance,
        s.l0,
        100.0 * s.dead,
        100.0 * s.dense
    );
    if let Some(absorption) = s.absorption {
        println!("  absorption {:.1}% (a child's firing carried by its parent's latent alone)", 100.0 * absorption);
    }
    Ok(())
}
