use super::BUILT;
use crate::inspect::circuit::{CircuitRequest, Corruption};

#[test]
fn each_built_model_answers_its_task() {
    for built in BUILT {
        let mut run = built.run().unwrap();
        let accuracy = run.evaluate().unwrap().val_accuracy.unwrap();
        assert!(accuracy >= 0.99, "{}: {accuracy}", built.name);
    }
}

#[test]
fn each_built_models_circuit_keeps_the_answer_and_needs_every_edge_of_it() {
    for built in BUILT {
        let run = built.run().unwrap();
        for truth in built.truth {
            let request = CircuitRequest { corruption: truth.corruption, ..Default::default() };
            let kept = run.faithfulness(&request, truth.edges).unwrap();
            assert!(kept >= 0.99, "{} under {:?} keeps {kept}", built.name, truth.corruption);
            for left_out in truth.edges {
                let rest: Vec<&str> = truth.edges.iter().copied().filter(|e| e != left_out).collect();
                let f = run.faithfulness(&request, &rest).unwrap();
                assert!(f <= 0.9, "{} under {:?} without {left_out} keeps {f}", built.name, truth.corruption);
            }
        }
    }
}

#[test]
fn a_built_models_circuit_travels_with_its_checkpoint_and_each_way_is_scored_against_it() {
    let built = super::built("induction").unwrap();
    let run = crate::Run::open(&built.run().unwrap().save().unwrap()).unwrap();
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
