use super::mib::areas;
use super::pairs::groups;
use super::prune::Evaluator;
use super::request::Corruption;
use super::request::Metric;
use super::{CircuitRequest, Method, SHARES};
use crate::inspect::Pair;
use crate::model::{plan_scores, EdgeGraph, Reader, Runs, Writer};
use crate::work::edge_plan::EdgePlan;
use crate::{Budget, GPTConfig, Run, Settings, TaskConfig, TrainConfig};

/// A small repeat-task run, briefly trained so that its answers depend on its prompts.
fn repeat_run() -> Run {
    let task = TaskConfig::new(crate::data::task_named("repeat").unwrap(), serde_json::json!({"length": 8}), 0.9);
    let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, rope: true, ..Default::default() };
    let train = TrainConfig { batch_size: 8, max_iters: 20, warmup_iters: 2, eval_iters: 1, ..Default::default() };
    let mut run =
        Run::create(&Settings { model, train, task: Some(task), ..Default::default() }, "", &Budget::UNLIMITED)
            .unwrap();
    run.train(20, &|| 0.0).unwrap();
    run
}

#[test]
fn the_whole_model_keeps_all_of_the_metric_and_no_edge_none_of_it() {
    let run = repeat_run();
    let model = run.model();
    let graph = EdgeGraph::new(2, 2, 16);
    let pairs = run.circuit_pairs(Corruption::Symbol, 6, ("", "")).unwrap();
    let groups = groups(&pairs);
    let runs: Vec<Runs> =
        groups.iter().map(|g| Runs::new(model, &graph, g, Metric::LogitDifference).unwrap()).collect();
    let evaluator = Evaluator::new(model, &graph, &runs, Metric::LogitDifference).unwrap();
    let n = graph.edges.len();
    assert_eq!(evaluator.faithfulness(&vec![true; n]).unwrap(), 1.0);
    // With every edge patched each reader sees the corrupted stream: the corrupted run.
    let none = evaluator.faithfulness(&vec![false; n]).unwrap();
    assert!(none.abs() < 1e-4, "no edges keep {none}");
}

#[test]
fn the_input_to_logits_edge_is_the_final_stream_moved_by_the_embeddings_difference() {
    let run = repeat_run();
    let model = run.model();
    let graph = EdgeGraph::new(2, 2, 16);
    let pairs = run.circuit_pairs(Corruption::Symbol, 5, ("", "")).unwrap();
    let groups = groups(&pairs);
    let plan = EdgePlan { edges: graph.edges.len(), metric: Metric::LogitDifference, groups: groups.clone() };
    let exact = plan_scores(model, &plan, 0..graph.edges.len()).unwrap();
    let edge = graph.edges.iter().position(|e| e.name == "input->logits").unwrap();
    let mut expected = 0.0;
    for pair in &pairs {
        let (clean, corrupted) = (model.trace(&pair.clean).unwrap(), model.trace(&pair.corrupted).unwrap());
        let last = |v: &[f32]| v[v.len() - 16..].to_vec();
        let moved: Vec<f32> = last(&clean.residual[2])
            .iter()
            .zip(last(&corrupted.residual[0]).iter().zip(last(&clean.residual[0])))
            .map(|(x, (c, k))| x + c - k)
            .collect();
        let metric = |l: &[f32]| Metric::LogitDifference.of(l, pair.answer, pair.wrong);
        expected += (metric(&model.lens(&moved)) - metric(&last_logits(&clean.logits, run.vocab_size()))) / 5.0;
    }
    assert!((exact[edge] - expected).abs() < 1e-4, "{} vs {expected}", exact[edge]);
    // A head reads only the writers before it.
    assert!(graph.edges.iter().all(|e| !matches!(
        (graph.writers[e.writer], graph.readers[e.reader]),
        (Writer::Head { layer: 1, .. }, Reader::Head { layer: 1, .. })
    )));
}

fn last_logits(logits: &[f32], v: usize) -> Vec<f32> {
    logits[logits.len() - v..].to_vec()
}

#[test]
fn the_view_scores_every_edge_three_ways_and_finds_circuits() {
    let run = repeat_run();
    let request = CircuitRequest { corruption: Corruption::Symbol, pairs: 8, ig_steps: 4, ..Default::default() };
    let c = run.circuits(&request, ("", "")).unwrap();
    assert_eq!(c.graph.edges.len(), 46);
    assert_eq!((c.exact.as_ref().unwrap().len(), c.eap.len(), c.eap_ig.len()), (46, 46, 46));
    assert_eq!(c.pairs, 8);
    let methods: Vec<&str> = c.circuits.iter().map(|n| n.method).collect();
    assert_eq!(methods, ["exact", "eap_ig", "eap", "greedy"]);
    for named in &c.circuits {
        let f = &named.found;
        assert!(!f.reached || f.faithfulness >= 0.9, "{}: {}", named.method, f.faithfulness);
        assert!(f.curve.windows(2).all(|w| w[0].0 <= w[1].0), "the curve runs by edges kept");
    }
    assert_eq!(c.agreement.len(), 2);
    let json = &c.eap_ig_graph;
    assert_eq!(json["edges"].as_object().unwrap().len(), 46);
    // The same scores alone, as a benchmark asks for them.
    assert_eq!(run.edge_scores(&request, ("", ""), Method::Exact).unwrap(), *c.exact.as_ref().unwrap());
}

#[test]
fn mibs_curves_keep_each_share_of_the_ranking_and_their_areas_are_the_scores() {
    let run = repeat_run();
    for metric in [Metric::LogitDifference, Metric::Loss] {
        let request = CircuitRequest { pairs: 6, ig_steps: 2, metric, ..Default::default() };
        let c = run.circuits(&request, ("", "")).unwrap();
        let n = c.graph.edges.len();
        for named in &c.circuits {
            let Some(mib) = &named.mib else {
                assert_eq!(named.method, "greedy", "only greedy pruning is not a ranking");
                continue;
            };
            for curve in [&mib.signed, &mib.absolute] {
                assert_eq!(curve.shares, SHARES);
                for ((share, &edges), &f) in SHARES.iter().zip(&curve.edges).zip(&curve.faithfulness) {
                    assert!(edges <= (share * n as f64) as usize, "{edges} edges at {share}");
                    assert!(edges > 0 || f == 0.0, "the empty circuit keeps nothing");
                }
                assert_eq!(*curve.edges.last().unwrap(), n);
                assert!((curve.faithfulness.last().unwrap() - 1.0).abs() < 1e-6);
            }
            assert_eq!(mib.cpr, areas(&SHARES, &mib.signed.faithfulness).0);
            assert_eq!(mib.cmd, areas(&SHARES, &mib.absolute.faithfulness).1);
        }
        // Signed the right way for either metric: exact's first half keeps more than its last.
        let exact = c.circuits[0].mib.as_ref().unwrap();
        assert!(exact.signed.faithfulness[8] > 0.5, "{metric:?}: {:?}", exact.signed.faithfulness);
    }
}

#[test]
fn bad_questions_get_clear_answers() {
    let run = repeat_run();
    let err = |request: CircuitRequest, typed: (&str, &str)| run.circuits(&request, typed).unwrap_err().to_string();
    assert!(err(CircuitRequest { pairs: 0, ..Default::default() }, ("", "")).contains("at least one pair"));
    assert!(err(CircuitRequest { ig_steps: 0, ..Default::default() }, ("", "")).contains("at least one step"));
    assert!(err(CircuitRequest::default(), ("abcd", "abc")).contains("same length"));
    // Prompts that differ in nothing the metric reads: nothing for a circuit to keep.
    let model = run.model();
    let graph = EdgeGraph::new(2, 2, 16);
    let same = Pair { clean: vec![0, 1, 2, 0], corrupted: vec![0, 1, 2, 0], answer: 1, wrong: 3, ..Pair::default() };
    let groups = groups(&[same]);
    let runs: Vec<Runs> =
        groups.iter().map(|g| Runs::new(model, &graph, g, Metric::LogitDifference).unwrap()).collect();
    let refused = Evaluator::new(model, &graph, &runs, Metric::LogitDifference).err().unwrap().to_string();
    assert!(refused.contains("nothing for a circuit to keep"), "{refused}");
}

#[test]
fn evaluations_record_the_circuit_paced_and_say_when_it_formed() {
    let mut run = repeat_run();
    run.evaluate().unwrap();
    let points = run.history().records::<crate::inspect::records::CircuitPoint>();
    assert!(!points.is_empty(), "the last evaluation always records");
    let last = points.last().unwrap();
    assert_eq!((last.step, last.method.as_str(), last.scores.len()), (20, "exact", 46));
    assert_eq!(last.corruption, Corruption::Swap, "a repeat's sequences repeat: the swap shows where heads look");
    assert!(points.windows(2).all(|w| w[0].step < w[1].step));
    // Evaluating again at the same step records nothing new.
    run.evaluate().unwrap();
    let again = run.history().records::<crate::inspect::records::CircuitPoint>();
    assert_eq!(again.len(), points.len(), "one record a step");
    // Formed: the first record at which 90% of the pairs are answered right on both sides and a
    // circuit keeps 90% of the difference.
    let formed = again.iter().find(|p| p.reached && p.answered >= 0.9).map(|p| p.step);
    assert_eq!(run.circuit_formed(), formed);
    assert_eq!(run.milestones().circuit, formed);
}

#[test]
fn exact_patching_fits_nano_cpu_and_not_a_gpt2_sized_model() {
    let pairs: Vec<Pair> = (0..32).map(|_| Pair { clean: vec![0; 16], ..Pair::default() }).collect();
    let cost = |n_layer, n_head, n_embd, vocab_size| {
        let cfg = GPTConfig { n_layer, n_head, n_embd, vocab_size, ..Default::default() };
        super::exact_cost(&EdgeGraph::new(n_layer, n_head, n_embd), &cfg, &pairs)
    };
    assert!(cost(4, 4, 128, 65) < super::EXACT_BUDGET, "nano-cpu is patched exactly");
    // GPT-2 small's shape: the view says so and gives EAP-IG's scores instead.
    assert!(cost(12, 12, 768, 50257) > super::EXACT_BUDGET);
}
