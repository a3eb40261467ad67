//! `gpt inspect circuit`: the circuit behind a checkpoint's answers. Every edge between its parts
//! scored by exact patching, EAP and EAP-IG; how the fast scores rank the edges against the exact
//! ones; and the fewest edges that keep 90% of the metric, by each ranking and by greedy pruning.
//! `--graph-out` writes the circuit in EAP-IG's `Graph` JSON, which its code reads and draws.

use gpt::inspect::circuit::{AgainstTruth, CircuitRequest, Circuits, Corruption, Method, Metric};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct CircuitFlags {
    /// What the corrupted prompts change: `symbol` (what an induction head copies) or `swap` (where
    /// it must look: the earlier copy of the last symbol swaps with the symbol after it).
    #[arg(long, default_value = "symbol", value_parser = ["symbol", "swap"])]
    corruption: String,
    /// What the circuit keeps: the answer's logit over the corrupted answer's, or its loss.
    #[arg(long, default_value = "logit-difference", value_parser = ["logit-difference", "loss"])]
    metric: String,
    /// Pairs of prompts to average over.
    #[arg(long, default_value_t = 32)]
    pairs: usize,
    /// EAP-IG's steps from the corrupted embeddings to the clean ones.
    #[arg(long, default_value_t = 10)]
    ig_steps: usize,
    /// Write the circuit (found by exact patching where it ran) as EAP-IG's Graph JSON here.
    #[arg(long)]
    graph_out: Option<PathBuf>,
    /// Only score the edges this way, and say how long it took (a benchmark's measure); `find`
    /// times the whole find, and for a model built by hand the scores against its circuit.
    #[arg(long, value_parser = ["exact", "eap", "eap-ig", "find"])]
    time: Option<String>,
}

impl CircuitFlags {
    fn request(&self) -> CircuitRequest {
        let corruption = if self.corruption == "swap" { Corruption::Swap } else { Corruption::Symbol };
        let metric = if self.metric == "loss" { Metric::Loss } else { Metric::LogitDifference };
        CircuitRequest { corruption, metric, pairs: self.pairs, ig_steps: self.ig_steps, find: true }
    }
}

/// Finds and prints (or, with `json`, writes whole) the circuit of `run` on `typed` or proposed pairs.
pub fn run(run: &gpt::Run, flags: &CircuitFlags, typed: (&str, &str), json: bool) -> Result<(), String> {
    if flags.time.as_deref() == Some("find") {
        return time_find(run, flags, typed);
    }
    if let Some(method) = &flags.time {
        let method = match method.as_str() {
            "exact" => Method::Exact,
            "eap" => Method::Eap,
            _ => Method::EapIg,
        };
        let start = std::time::Instant::now();
        let scores = run.edge_scores(&flags.request(), typed, method).map_err(|e| e.to_string())?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        println!("{}", serde_json::json!({ "method": method, "edges": scores.len(), "ms": ms, "scores": scores }));
        return Ok(());
    }
    let found = run.circuits(&flags.request(), typed).map_err(|e| e.to_string())?;
    if let Some(path) = &flags.graph_out {
        std::fs::write(path, found.eap_ig_graph.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if json {
        println!("{}", serde_json::to_string(&found).map_err(|e| e.to_string())?);
        return Ok(());
    }
    print_timeline(run);
    print(&found);
    Ok(())
}

/// Times the whole find and, for a model built by hand, what scoring its rankings and circuits
/// against the true circuit takes (as the find scores them: each way's scores and circuit), the
/// median of 101 rounds: one JSON line.
fn time_find(run: &gpt::Run, flags: &CircuitFlags, typed: (&str, &str)) -> Result<(), String> {
    let start = std::time::Instant::now();
    let found = run.circuits(&flags.request(), typed).map_err(|e| e.to_string())?;
    let find_ms = start.elapsed().as_secs_f64() * 1e3;
    let truth_ms = found.known.as_ref().map(|known| {
        let truth: Vec<bool> = found.graph.edges.iter().map(|e| known.contains(&e.name)).collect();
        let n = truth.len();
        let mut rounds: Vec<f64> = (0..101)
            .map(|_| {
                let start = std::time::Instant::now();
                for named in &found.circuits {
                    let edges = &named.found.edges;
                    // Greedy pruning's scores are its circuit: 1 for an edge it keeps.
                    let kept = || (0..n).map(|e| f32::from(u8::from(edges.contains(&e)))).collect::<Vec<_>>();
                    let scores = match named.method {
                        "exact" => found.exact.clone().unwrap_or_default(),
                        "eap" => found.eap.clone(),
                        "eap_ig" => found.eap_ig.clone(),
                        _ => kept(),
                    };
                    std::hint::black_box(AgainstTruth::of(&scores, edges, &truth));
                }
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        rounds.sort_by(f64::total_cmp);
        rounds[50]
    });
    println!("{}", serde_json::json!({ "edges": found.graph.edges.len(), "find_ms": find_ms, "truth_ms": truth_ms }));
    Ok(())
}

/// The circuit recorded at evaluations while the run trained, a line each.
fn print_timeline(run: &gpt::Run) {
    let points = run.history().records::<gpt::inspect::records::CircuitPoint>();
    if points.is_empty() {
        return;
    }
    println!("while training ({:?}; formed at step {:?}):", points[0].corruption, run.circuit_formed());
    for p in points {
        println!(
            "  step {:>6}: metric {:>8.3} clean, {:>8.3} corrupted, {:>3.0}% of pairs answered; {} by {}, keeping {:.3}",
            p.step,
            p.clean,
            p.corrupted,
            100.0 * p.answered,
            if p.edges.is_empty() { "no circuit".to_string() } else { format!("{} edges", p.edges.len()) },
            p.method,
            p.faithfulness
        );
    }
}

fn print(c: &Circuits) {
    println!(
        "{} pairs, e.g. {:?} → {:?}, corrupted {:?} → {:?}",
        c.pairs,
        ex(c, |e| &e.clean),
        ex(c, |e| &e.answer),
        ex(c, |e| &e.corrupted),
        ex(c, |e| &e.wrong)
    );
    println!("metric: clean {:.4}, corrupted {:.4}; {} edges", c.clean, c.corrupted, c.graph.edges.len());
    if let Some(known) = &c.known {
        println!("built with the circuit: {}", known.join(", "));
    }
    if let Some(note) = &c.note {
        println!("{note}");
    }
    for a in &c.agreement {
        println!("{:>7} against exact: Spearman {:.3}, top {} overlap {}", a.method, a.spearman, a.top_k, a.overlap);
    }
    let empty = Vec::new();
    let exact = c.exact.as_ref().unwrap_or(&empty);
    for named in &c.circuits {
        let f = &named.found;
        println!(
            "circuit by {}: {} edges ({:.1}%), faithfulness {:.3}{}, complement {:.3}",
            named.method,
            f.edges.len(),
            100.0 * f.edges.len() as f32 / c.graph.edges.len() as f32,
            f.faithfulness,
            if f.reached { "" } else { " (short of 0.9)" },
            f.complement
        );
        if let Some(m) = &named.mib {
            println!(
                "  MIB: CPR {:.3} (higher is better), CMD {:.3} (0 is best); faithfulness at {} edges: {}",
                m.cpr,
                m.cmd,
                list(&m.signed.edges, |e| e.to_string()),
                list(&m.signed.faithfulness, |f| format!("{f:.2}"))
            );
        }
        if let Some(t) = &named.truth {
            println!(
                "  against the circuit it was built with: AUROC {:.3}, precision {:.3}, recall {:.3}",
                t.auroc, t.precision, t.recall
            );
        }
        let mut edges = f.edges.clone();
        edges.sort_by(|&a, &b| score(c, b).abs().total_cmp(&score(c, a).abs()));
        for e in edges.iter().take(20) {
            let exact = exact.get(*e).map_or(String::new(), |s| format!("exact {s:>9.4} "));
            println!("  {:<22} {exact}EAP {:>9.4} EAP-IG {:>9.4}", c.graph.edges[*e].name, c.eap[*e], c.eap_ig[*e]);
        }
    }
}

/// `items` written `each` way, between slashes.
fn list<T>(items: &[T], each: impl Fn(&T) -> String) -> String {
    items.iter().map(each).collect::<Vec<_>>().join("/")
}

/// The score circuits are drawn by: exact where there is one.
fn score(c: &Circuits, e: usize) -> f32 {
    c.exact.as_ref().map_or(c.eap_ig[e], |s| s[e])
}

fn ex<'a>(c: &'a Circuits, field: impl Fn(&'a gpt::inspect::circuit::PairText) -> &'a String) -> &'a str {
    c.examples.first().map_or("", |e| field(e).as_str())
}
