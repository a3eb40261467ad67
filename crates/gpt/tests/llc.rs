//! A run's learning coefficient: devinterp's estimator on the model's own training loss. The
//! chains are the same from one seed and leave the model as it was, and a step too big ends them
//! and is said.

#[allow(dead_code)] // the runs it needs, not all the helpers
mod common;

use common::{no_clock, setup_with};
use gpt::llc::LlcConfig;
use gpt::{LlcRequest, WeightPart};

fn config(epsilon: f32) -> LlcRequest {
    let config = LlcConfig { epsilon, gamma: 100.0, nbeta: None, chains: 2, draws: 40, burn_in: 10, seed: 3 };
    LlcRequest { config, ..Default::default() }
}

#[test]
fn the_chains_are_the_same_from_one_seed_and_leave_the_model_as_it_was() {
    let mut run = setup_with(3e-3, 1.0, 0.1, (8, 16));
    for _ in 0..20 {
        run.step(&no_clock).unwrap();
    }
    let before = run.evaluate().unwrap();
    let llc = run.llc(&config(1e-4)).unwrap();
    assert_eq!(llc, run.llc(&config(1e-4)).unwrap());
    assert!(llc.mean.is_finite() && llc.diverged().is_empty(), "{llc:?}");
    assert_eq!(llc.traces.iter().map(Vec::len).collect::<Vec<_>>(), [40, 40], "draws after burn-in");
    assert_eq!(run.evaluate().unwrap(), before, "the model did not move");
}

#[test]
fn a_step_too_big_ends_the_chains_and_is_said() {
    let run = setup_with(3e-3, 1.0, 0.0, (8, 16));
    let llc = run.llc(&config(10.0)).unwrap();
    assert_eq!(llc.diverged(), [0, 1], "{:?}", llc.per_chain);
}

#[test]
fn a_heads_estimate_moves_only_its_own_weights_and_a_part_it_lacks_is_refused() {
    let mut run = setup_with(3e-3, 1.0, 0.1, (8, 16));
    for _ in 0..20 {
        run.step(&no_clock).unwrap();
    }
    let model = run.model();
    let (c, heads) = (model.config().n_embd, model.config().n_head);
    let head = |layer, head| model.part_mask(WeightPart::Head { layer, head }).unwrap().unwrap();
    let (first, second) = (head(0, 0), head(0, 1));
    // Its q, k and v rows (weights and biases) and its columns of the output projection.
    let bias = usize::from(model.config().bias);
    assert_eq!(first.iter().filter(|&&m| m).count(), 3 * (c / heads) * (c + bias) + c * c / heads);
    assert!(first.iter().zip(&second).all(|(a, b)| !(a & b)), "no weight is two heads'");
    let whole = run.llc(&config(1e-4)).unwrap();
    let refined = run.llc(&LlcRequest { part: WeightPart::Head { layer: 0, head: 1 }, ..config(1e-4) }).unwrap();
    assert!(refined.mean.is_finite() && refined.mean != whole.mean, "{refined:?}");
    let missing = run.llc(&LlcRequest { part: WeightPart::Mlp { layer: 9 }, ..config(1e-4) });
    assert!(missing.unwrap_err().to_string().contains("a part is one of those heads"));
}

#[test]
fn the_view_estimates_when_asked_and_judges_the_traces() {
    use gpt::inspect::Questions;
    let mut run = setup_with(3e-3, 1.0, 0.1, (8, 16));
    for _ in 0..20 {
        run.step(&no_clock).unwrap();
    }
    let request = LlcRequest { part: WeightPart::Head { layer: 0, head: 1 }, ..config(1e-4) };
    let ask = |estimate: bool| {
        let (parts, config) = ([request.part], request.config);
        let llc = serde_json::json!({ "parts": parts, "config": config, "estimate": estimate });
        let questions: Questions = serde_json::from_value(serde_json::json!({ "llc": llc })).unwrap();
        run.inside(&["llc".into()], "", "", &questions).unwrap().views["llc"].clone()
    };
    assert!(ask(false)["estimated"].is_null(), "nothing is estimated until asked");
    let view = ask(true);
    let estimated = &view["estimated"];
    assert_eq!(estimated["step"], 20);
    let llc = run.llc(&request).unwrap();
    assert_eq!(estimated["parts"][0]["llc"]["mean"].as_f64().unwrap(), llc.mean);
    assert_eq!(estimated["parts"][0]["verdict"], "healthy");
    assert_eq!(estimated["config"]["chains"], 2);
    assert!(view["curve"]["points"].as_array().unwrap().is_empty(), "no evaluation has recorded one");
}
