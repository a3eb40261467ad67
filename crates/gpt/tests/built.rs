//! Models built by hand: each answers its task, its declared circuit is the one that carries the
//! answer, it travels in its checkpoint, and its shape cannot change under it.

use gpt::built::{built, Built, BUILT};
use gpt::inspect::circuit::{CircuitRequest, Corruption};
use gpt::{Budget, Error, GPTConfig, Run, Settings};

fn create(settings: &Settings) -> gpt::Result<Run> {
    Run::create(settings, "", &Budget::UNLIMITED)
}

fn run(built: &Built) -> Run {
    create(&built.settings()).unwrap()
}

#[test]
fn each_built_model_answers_its_task() {
    for built in BUILT {
        let mut run = run(built);
        let accuracy = run.evaluate().unwrap().val_accuracy.unwrap();
        assert!(accuracy >= 0.99, "{}: {accuracy}", built.name);
    }
}

#[test]
fn each_built_models_circuit_keeps_the_answer_and_needs_every_edge_of_it() {
    for built in BUILT {
        let run = run(built);
        for truth in built.truth {
            let request = CircuitRequest { corruption: truth.corruption, ..Default::default() };
            let without = |left_out: &[&str]| {
                let rest: Vec<&str> = truth.edges.iter().copied().filter(|e| !left_out.contains(e)).collect();
                run.faithfulness(&request, &rest).unwrap()
            };
            let kept = without(&[]);
            assert!(kept >= 0.99, "{} under {:?} keeps {kept}", built.name, truth.corruption);
            // Each edge is needed, but edges that back each other up only together.
            let backed = |e: &&str| truth.backups.iter().any(|group| group.contains(e));
            let alone = truth.edges.iter().filter(|e| !backed(e)).map(std::slice::from_ref);
            for left_out in alone.chain(truth.backups.iter().copied()) {
                let f = without(left_out);
                assert!(f <= 0.9, "{} under {:?} without {left_out:?} keeps {f}", built.name, truth.corruption);
            }
            for backup in truth.backups.iter().flat_map(|group| group.iter()) {
                let f = without(std::slice::from_ref(backup));
                assert!(
                    f >= 0.99,
                    "{} under {:?}: without {backup} alone keeps only {f}",
                    built.name,
                    truth.corruption
                );
            }
        }
    }
}

#[test]
fn a_built_models_circuit_travels_with_its_checkpoint_and_each_way_is_scored_against_it() {
    let built = built("induction").unwrap();
    let run = Run::open(&run(built).save().unwrap()).unwrap();
    assert_eq!(run.settings(), built.settings(), "it reopens as the built model it is");
    let request = CircuitRequest { corruption: Corruption::Swap, pairs: 8, ig_steps: 4, ..Default::default() };
    let c = run.circuits(&request, ("", "")).unwrap();
    let swap = built.truth.iter().find(|t| t.corruption == Corruption::Swap).unwrap();
    let truth: Vec<String> = swap.edges.iter().map(|e| e.to_string()).collect();
    assert_eq!(c.known, Some(truth));
    let exact = c.circuits[0].truth.as_ref().unwrap();
    assert_eq!((exact.auroc, exact.precision, exact.recall), (1.0, 1.0, 1.0));
    // The induction head's softmax is saturated, so EAP's gradient misses its K-composition edge.
    let k = c.graph.edges.iter().position(|e| e.name == "a0.h0->a1.h0<k>").unwrap();
    assert!(c.eap[k].abs() < 1e-3 && c.exact.as_ref().unwrap()[k] < -10.0, "{} {:?}", c.eap[k], c.exact);
    let symbol = CircuitRequest { corruption: Corruption::Symbol, ..request };
    assert!(run.circuits(&symbol, ("", "")).unwrap().circuits.iter().all(|n| n.truth.is_some()));
}

#[test]
fn a_built_model_keeps_its_own_shape_and_an_unknown_one_is_named() {
    let settings = built("reverse").unwrap().settings();
    let field = |s: &Settings| match create(s) {
        Err(Error::Invalid(e)) => (e.field, e.message),
        other => panic!("{:?}", other.map(|r| r.settings())),
    };
    let wider = Settings { model: GPTConfig { n_layer: 2, ..settings.model.clone() }, ..settings.clone() };
    let (name, message) = field(&wider);
    assert_eq!(name, "built");
    assert!(message.contains("reverse is built by hand"), "{message}");
    let (_, message) = field(&Settings { built: Some("sorting".into()), ..settings.clone() });
    assert!(message.contains("sorting") && message.contains("induction, backup, reverse"), "{message}");
    let mut other = settings.clone();
    other.train.learning_rate = 1e-4;
    other.model.vocab_size = 65; // as the page's form sends it: the task's symbols set it
    assert!(create(&other).is_ok(), "its recipe for training on may change");
}
