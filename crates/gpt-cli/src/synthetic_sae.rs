//! `gpt superposition --synthetic`: an autoencoder (TopK unless `--architecture` says) trained on activations built from known
//! features (SAELens's `sae_lens.synthetic` recipe), then scored against them.

use gpt::sae::{Architecture, SaeConfig};
use gpt::toy::{Firing, SyntheticSae, SyntheticSpec};

/// The activations and the autoencoder the flags ask for.
pub struct Plan {
    pub spec: SyntheticSpec,
    pub architecture: Architecture,
    pub expansion: usize,
    pub steps: usize,
    pub threads: usize,
}

/// Reads `--zipf MAX,MIN` (or the chance a feature fires, `1 − sparsity`).
pub fn firing(zipf: Option<&str>, sparsity: f32) -> Result<Firing, String> {
    let Some(zipf) = zipf else { return Ok(Firing::Equal { probability: 1.0 - sparsity }) };
    let bad =
        || format!("--zipf: {zipf:?} is not MAX,MIN (the most and least frequent features' firing probabilities)");
    let (max, min) = zipf.split_once(',').ok_or_else(bad)?;
    Ok(Firing::Zipf {
        exponent: 1.0,
        max: max.trim().parse().map_err(|_| bad())?,
        min: min.trim().parse().map_err(|_| bad())?,
    })
}

pub fn run(plan: Plan, json: bool) -> Result<(), String> {
    let config = SaeConfig { expansion: plan.expansion, architecture: plan.architecture, ..SaeConfig::top_k(0) };
    let recipe = SyntheticSae::recipe(plan.steps, plan.spec.seed);
    let mut sae = SyntheticSae::new(plan.spec, config, recipe).map_err(|e| e.to_string())?;
    let start = std::time::Instant::now();
    let clock = || start.elapsed().as_secs_f64() * 1e3;
    while !sae.done() {
        sae.train(100, plan.threads, &clock).map_err(|e| e.to_string())?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let s = sae.scores();
    if json {
        let line =
            serde_json::json!({ "spec": plan.spec, "sae": config, "steps": s.step, "seconds": seconds, "scores": s });
        println!("{line}");
        return Ok(());
    }
    let spec = plan.spec;
    println!(
        "{} autoencoder, {} latents{}, on {} features in {} dimensions: {} steps in {seconds:.1} s",
        plan.architecture.name(),
        sae.sae().d_sae(),
        plan.architecture.k().map_or(String::new(), |k| format!(", k {k}")),
        spec.features,
        spec.dims,
        s.step
    );
    println!(
        "  MCC {:.4}, {:.1}% of the true features found (|cos| ≥ {}), uniqueness {:.3}",
        s.truth.mcc,
        100.0 * s.truth.found,
        gpt::toy::truth::FOUND,
        s.truth.uniqueness
    );
    println!(
        "  variance explained {:.1}%, L0 {:.2} (the true features' {:.2}), dead {:.1}%",
        100.0 * s.explained_variance,
        s.l0,
        s.true_l0,
        100.0 * s.dead
    );
    if let Some(absorption) = s.absorption {
        println!("  absorption {:.1}% (a child's firing carried by its parent's latent alone)", 100.0 * absorption);
    }
    Ok(())
}
