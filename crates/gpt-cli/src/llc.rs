//! `gpt inspect llc`: a checkpoint's local learning coefficient, as devinterp estimates it (SGLD
//! chains from the trained weights, on batches of its own training data): the estimate with its
//! spread over the chains, each chain's, the loss at the trained weights, and each chain's losses
//! from its first tenth of draws to its last (a climb says the step is too big), with its MALA
//! acceptance. `--part` restricts it to a head, an MLP or the embeddings (the refined LLC), or
//! takes each head in turn; `--calibrate` first sweeps step and temperature as devinterp does and
//! estimates at the pair it picks.

use gpt::llc::{Calibration, Llc, LlcConfig, Verdict};
use gpt::{LlcRequest, WeightPart, LLC_ROWS};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct LlcFlags {
    /// SGLD's step ε (its default, like γ's, calibrated on the induction preset).
    #[arg(long, default_value_t = LlcConfig::default().epsilon)]
    epsilon: f32,
    /// The localisation γ: how hard each chain is pulled back toward the trained weights.
    #[arg(long, default_value_t = LlcConfig::default().gamma)]
    gamma: f32,
    /// The inverse temperature nβ [default: devinterp's m / ln m, m the tokens in a batch].
    #[arg(long)]
    nbeta: Option<f32>,
    #[arg(long, default_value_t = LlcConfig::default().chains)]
    chains: usize,
    /// Draws each chain records, after --burn-in steps it does not.
    #[arg(long, default_value_t = LlcConfig::default().draws)]
    draws: usize,
    #[arg(long, default_value_t = LlcConfig::default().burn_in)]
    burn_in: usize,
    /// The seed of the chains' batches and noise.
    #[arg(long, default_value_t = LlcConfig::default().seed)]
    chain_seed: u64,
    /// Rows in each batch; 0 takes the training's batch size.
    #[arg(long, default_value_t = LLC_ROWS)]
    rows: usize,
    /// The weights that move: `whole`, a head (`L1H2`, counting from 1), an MLP (`MLP1`),
    /// `embeddings`, or `heads` for each head in turn.
    #[arg(long, default_value = "whole", value_parser = parse_parts)]
    part: Parts,
    /// Sweep ε (1e-6 to 1e-2) and γ (100, 1,000, 10,000) first, with these chains, and estimate
    /// at the pair it picks (docs/llc.md says how).
    #[arg(long)]
    calibrate: bool,
    /// Also estimate at every checkpoint `gpt train --keep-each` kept in this folder: the curve
    /// over training, its turns, and the run's marks beside them.
    #[arg(long)]
    over: Option<PathBuf>,
}

/// The parts asked for: one, or every head.
#[derive(Clone, Copy)]
enum Parts {
    One(WeightPart),
    Heads,
}

fn parse_parts(text: &str) -> Result<Parts, String> {
    match text.to_ascii_lowercase().as_str() {
        "heads" => Ok(Parts::Heads),
        _ => WeightPart::parse(text)
            .map(Parts::One)
            .ok_or_else(|| format!("{text:?} is not a part: try whole, L1H2, MLP1, embeddings or heads")),
    }
}

/// Estimates and prints (or, with `json`, writes whole) the LLC of `run`; `rows_out` also gets
/// what the chains read and the first chain's first step after burn-in; `open` opens the checkpoints `--over`
/// names.
pub fn run(
    run: &gpt::Run,
    flags: &LlcFlags,
    (json, rows_out): (bool, Option<&Path>),
    open: &dyn Fn(&Path) -> Result<gpt::Run, String>,
) -> Result<(), String> {
    let asked = LlcConfig {
        epsilon: flags.epsilon,
        gamma: flags.gamma,
        nbeta: flags.nbeta,
        chains: flags.chains,
        draws: flags.draws,
        burn_in: flags.burn_in,
        seed: flags.chain_seed,
    };
    let model = run.model().config();
    let parts: Vec<WeightPart> = match flags.part {
        Parts::One(part) => vec![part],
        Parts::Heads => (0..model.n_layer)
            .flat_map(|layer| (0..model.n_head).map(move |head| WeightPart::Head { layer, head }))
            .collect(),
    };
    let request = |config, part| LlcRequest { config, part, rows: (flags.rows > 0).then_some(flags.rows) };
    let start = std::time::Instant::now();
    let calibration = match flags.calibrate {
        true => Some(run.llc_calibration(&request(asked, parts[0]), None).map_err(|e| e.to_string())?),
        false => None,
    };
    let config = match &calibration {
        Some(sweep) => {
            sweep.picked(&asked).ok_or("no pair of the sweep was healthy: see each pair's verdict with --json")?
        }
        None => asked,
    };
    let requests: Vec<_> = parts.iter().map(|&part| request(config, part)).collect();
    if let Some(folder) = &flags.over {
        return crate::llc_curve::run(folder, open, &requests, run.milestones(), json);
    }
    if let Some(path) = rows_out {
        write_samples(run, &request(config, parts[0]), path)?;
    }
    let estimates = run.llcs(&requests).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    if json {
        let parts: Vec<_> =
            parts.iter().zip(&estimates).map(|(part, llc)| serde_json::json!({ "part": part, "llc": llc })).collect();
        let line = serde_json::json!({ "config": config, "rows": flags.rows, "calibration": calibration, "parts": parts, "seconds": seconds });
        println!("{line}");
        return Ok(());
    }
    if let Some(sweep) = &calibration {
        print_sweep(sweep);
    }
    match flags.part {
        Parts::One(part) => print(part, &estimates[0], &config, seconds),
        Parts::Heads => print_heads(&parts, &estimates, &config, seconds),
    }
    Ok(())
}

/// The chains' batches (ids and targets, -1 where the loss skips, row after row), the estimate's
/// nβ and L(w*), each parameter's name and size in the flat order, and the first chain's first
/// recorded step with its MALA acceptance.
fn write_samples(run: &gpt::Run, request: &LlcRequest, path: &Path) -> Result<(), String> {
    let samples = run.llc_samples(request).map_err(|e| e.to_string())?;
    let signed =
        |ids: &[usize]| ids.iter().map(|&t| if t == gpt::ops::IGNORE { -1 } else { t as i64 }).collect::<Vec<_>>();
    let params = run.model().params();
    let sizes: Vec<_> = params.names.iter().zip(&params.values).map(|(n, v)| (n, v.len())).collect();
    let out = serde_json::json!({
        "rows": samples.rows, "t": samples.t,
        "ids": samples.batches.iter().map(|(x, _)| signed(x)).collect::<Vec<_>>(),
        "targets": samples.batches.iter().map(|(_, y)| signed(y)).collect::<Vec<_>>(),
        "nbeta": samples.nbeta, "init_loss": samples.init_loss, "params": sizes, "step": samples.step, "acceptance": samples.acceptance,
    });
    std::fs::write(path, out.to_string()).map_err(|e| format!("{}: {e}", path.display()))
}

/// The sweep as a grid: a row per γ, a column per ε, each the estimate and why it was set aside.
fn print_sweep(sweep: &Calibration) {
    println!("calibration (each pair's estimate, and why its chains were set aside if they were; * the pick):");
    let mut row = f32::NAN;
    for (i, cell) in sweep.cells.iter().enumerate() {
        if cell.gamma != row {
            row = cell.gamma;
            print!("\n  γ {:>6}:", cell.gamma);
        }
        let mark = if sweep.pick == Some(i) { "*" } else { " " };
        let verdict = match cell.verdict {
            Verdict::Healthy => String::new(),
            other => format!("{other:?}").to_lowercase(),
        };
        print!("  ε {:.0e} {:>9.2} {verdict:<10}{mark}", cell.epsilon, cell.mean);
    }
    println!("\n");
}

fn print_heads(parts: &[WeightPart], estimates: &[Llc], c: &LlcConfig, seconds: f64) {
    println!(
        "each head's LLC, {} chains of {} draws (ε {}, γ {}; {seconds:.1} s):",
        c.chains, c.draws, c.epsilon, c.gamma
    );
    for (part, llc) in parts.iter().zip(estimates) {
        let accept = llc.acceptance.iter().sum::<f64>() / llc.acceptance.len() as f64;
        println!("  {}: {:.3} ± {:.3}, MALA acceptance {accept:.2}", part.label(), llc.mean, llc.std);
    }
}

fn print(part: WeightPart, llc: &Llc, c: &LlcConfig, seconds: f64) {
    println!(
        "LLC of {}: {:.3} ± {:.3} over {} chain(s) of {} draws (ε {}, γ {}, nβ {:.2}; {seconds:.1} s)",
        if part == WeightPart::Whole { "the whole model".into() } else { part.label() },
        llc.mean,
        llc.std,
        c.chains,
        c.draws,
        c.epsilon,
        c.gamma,
        llc.nbeta
    );
    println!("  the loss at the trained weights: {:.4}", llc.init_loss);
    for (i, ((trace, estimate), accept)) in llc.traces.iter().zip(&llc.per_chain).zip(&llc.acceptance).enumerate() {
        let tenth = (trace.len() / 10).max(1);
        let mean = |part: &[f32]| part.iter().map(|&l| f64::from(l)).sum::<f64>() / part.len().max(1) as f64;
        let (first, last) = (mean(&trace[..tenth.min(trace.len())]), mean(&trace[trace.len().saturating_sub(tenth)..]));
        if estimate.is_finite() {
            println!(
                "  chain {}: {estimate:.3}, its loss {first:.4} in its first tenth, {last:.4} in its last; MALA \
                 acceptance {accept:.2}",
                i + 1
            );
        } else {
            println!(
                "  chain {}: its loss stopped being finite after {} draws: the step ε is too big",
                i + 1,
                trace.len()
            );
        }
    }
}
