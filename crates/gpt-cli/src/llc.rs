//! `gpt inspect llc`: a checkpoint's local learning coefficient, as devinterp estimates it (SGLD
//! chains from the trained weights, on batches of its own training data): the estimate with its
//! spread over the chains, each chain's, the loss at the trained weights, and each chain's losses
//! from its first tenth of draws to its last (a climb says the step is too big).

use gpt::llc::{Llc, LlcConfig};

#[derive(clap::Args)]
pub struct LlcFlags {
    /// SGLD's step ε.
    #[arg(long, default_value_t = 1e-4)]
    epsilon: f32,
    /// The localisation γ: how hard each chain is pulled back toward the trained weights.
    #[arg(long, default_value_t = 100.0)]
    gamma: f32,
    /// The inverse temperature nβ [default: devinterp's, m / ln m for batches of m rows].
    #[arg(long)]
    nbeta: Option<f32>,
    #[arg(long, default_value_t = 4)]
    chains: usize,
    /// Draws each chain records, after --burn-in steps it does not.
    #[arg(long, default_value_t = 200)]
    draws: usize,
    #[arg(long, default_value_t = 100)]
    burn_in: usize,
    /// The seed of the chains' batches and noise.
    #[arg(long, default_value_t = 42)]
    chain_seed: u64,
}

/// Estimates and prints (or, with `json`, writes whole) the LLC of `run`.
pub fn run(run: &gpt::Run, flags: &LlcFlags, json: bool) -> Result<(), String> {
    let config = LlcConfig {
        epsilon: flags.epsilon,
        gamma: flags.gamma,
        nbeta: flags.nbeta,
        chains: flags.chains,
        draws: flags.draws,
        burn_in: flags.burn_in,
        seed: flags.chain_seed,
    };
    let start = std::time::Instant::now();
    let llc = run.llc(&config).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    if json {
        let line = serde_json::json!({ "config": config, "llc": llc, "seconds": seconds });
        println!("{line}");
        return Ok(());
    }
    print(&llc, &config, seconds);
    Ok(())
}

fn print(llc: &Llc, c: &LlcConfig, seconds: f64) {
    println!(
        "LLC {:.3} ± {:.3} over {} chains of {} draws (ε {}, γ {}, nβ {:.2}; {seconds:.1} s)",
        llc.mean, llc.std, c.chains, c.draws, c.epsilon, c.gamma, llc.nbeta
    );
    println!("  the loss at the trained weights: {:.4}", llc.init_loss);
    for (i, (trace, estimate)) in llc.traces.iter().zip(&llc.per_chain).enumerate() {
        let tenth = (trace.len() / 10).max(1);
        let mean = |part: &[f32]| part.iter().map(|&l| f64::from(l)).sum::<f64>() / part.len().max(1) as f64;
        let (first, last) = (mean(&trace[..tenth.min(trace.len())]), mean(&trace[trace.len().saturating_sub(tenth)..]));
        if estimate.is_finite() {
            println!("  chain {}: {estimate:.3}, its loss {first:.4} in its first tenth, {last:.4} in its last", i + 1);
        } else {
            println!(
                "  chain {}: its loss stopped being finite after {} draws: the step ε is too big",
                i + 1,
                trace.len()
            );
        }
    }
}
