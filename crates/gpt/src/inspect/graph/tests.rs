//! The graph's edges add up to what each node reads, and its pruning and scores are
//! circuit-tracer's on a graph small enough to work by hand.

use super::fixtures::{unbiased, unbiased_with};
use super::*;
use crate::config::GPTConfig;
use crate::workspace::Workspace;

#[test]
fn each_nodes_edges_add_up_to_what_it_reads() {
    for skip in [false, true] {
        edges_add_up(skip);
    }
}

/// Every node's edges, on [`unbiased_with`]`(skip)`, add up to what it reads.
fn edges_add_up(skip: bool) {
    let (model, transcoders) = unbiased_with(skip);
    let tokens = [1, 4, 2, 9, 4, 7];
    let graph =
        attribution_graph(&model, &transcoders, &tokens, LogitChoice { max_logits: 3, probability: 1.0 }, 4).unwrap();
    assert_eq!(graph.logits.len(), 3);
    assert!(graph.features.len() >= 2 * 6, "every position has features: {}", graph.features.len());
    let hooked = model.hooked(&tokens, None).unwrap();
    let d = 16;
    let row_sum = |target: usize| (0..graph.sources()).map(|s| graph.edge(target, s) as f64).sum::<f64>();
    for (i, f) in graph.features.iter().enumerate() {
        // What the encoder reads, less its bias: the pre-activation's linear part.
        let input = &hooked.get(&format!("blocks.{}.ln2.hook_out", f.layer)).unwrap().values;
        let sae = transcoders.layer(f.layer);
        let w_enc = sae.tensors()[0].as_slice().unwrap();
        let read: f64 =
            (0..d).map(|c| input[f.position * d + c] as f64 * w_enc[c * sae.d_sae() + f.feature] as f64).sum();
        let sum = row_sum(i);
        assert!((sum - read).abs() < 1e-4 * (1.0 + read.abs()), "skip {skip}, feature {f:?}: edges {sum} vs {read}");
    }
    let logits = &hooked.get("logits").unwrap().values[5 * 11..];
    let mean = logits.iter().map(|&l| l as f64).sum::<f64>() / 11.0;
    for (i, l) in graph.logits.iter().enumerate() {
        let demeaned = logits[l.token] as f64 - mean;
        let sum = row_sum(graph.sources() + i);
        assert!(
            (sum - demeaned).abs() < 1e-4 * (1.0 + demeaned.abs()),
            "skip {skip}, logit {l:?}: {sum} vs {demeaned}"
        );
    }
    // Nothing reads a later layer, or a later position.
    for (i, target) in graph.features.iter().enumerate() {
        for (j, source) in graph.features.iter().enumerate() {
            if source.layer >= target.layer || source.position > target.position {
                assert_eq!(graph.edge(i, j), 0.0, "{source:?} -> {target:?}");
            }
        }
    }
}

#[test]
fn the_graph_is_the_same_whatever_the_batch() {
    let (model, transcoders) = unbiased();
    let tokens = [3, 3, 5, 1];
    let one = attribution_graph(&model, &transcoders, &tokens, LogitChoice::default(), 1).unwrap();
    let many = attribution_graph(&model, &transcoders, &tokens, LogitChoice::default(), 64).unwrap();
    assert_eq!(one.features, many.features);
    for (a, b) in one.adjacency.iter().zip(&many.adjacency) {
        assert!((a - b).abs() <= 1e-5 * (1.0 + a.abs()), "{a} vs {b}");
    }
}

/// One layer, two positions: features f0 (position 0) and f1 (position 1), errors e0 e1, tokens
/// t0 t1, and one logit (probability 0.5) reading f1 (weight 3), e1 (1) and t1 (-2 … its absolute
/// value counts); f1 reads t0 (1) and e0 (1); f0 reads t0 (4).
fn by_hand() -> AttributionGraph {
    let feature = |position| ActiveFeature { layer: 0, position, feature: position, activation: 1.0 };
    // Columns: f0 f1 e0 e1 t0 t1.
    #[rustfmt::skip]
    let adjacency = vec![
        0.0, 0.0, 0.0, 0.0, 4.0, 0.0, // f0
        0.0, 0.0, 1.0, 0.0, 1.0, 0.0, // f1
        0.0, 3.0, 0.0, 1.0, 0.0, -2.0, // logit
    ];
    AttributionGraph {
        tokens: vec![0, 1],
        layers: 1,
        features: vec![feature(0), feature(1)],
        logits: vec![LogitNode { token: 0, probability: 0.5 }],
        adjacency,
        errors: vec![],
    }
}

#[test]
fn influence_and_scores_are_circuit_tracers_by_hand() {
    let graph = by_hand();
    // The logit's row normalised: f1 1/2, e1 1/6, t1 1/3; f1's: e0 1/2, t0 1/2.
    let influence = graph.node_influence();
    let expected = [0.0, 0.25, 0.125, 1.0 / 12.0, 0.125, 1.0 / 6.0, 0.0];
    for (got, want) in influence.iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{influence:?}");
    }
    let scores = graph.scores();
    // Tokens 0.125 + 1/6 against errors 0.125 + 1/12.
    let replacement = (0.125 + 1.0 / 6.0) / (0.125 + 1.0 / 6.0 + 0.125 + 1.0 / 12.0);
    assert!((scores.replacement as f64 - replacement).abs() < 1e-6, "{scores:?}");
    // Non-error shares: f0 1, f1 1/2, logit 5/6, others 1; weighed by influence (+ the logit's 0.5).
    let weights = [0.0, 0.25, 0.125, 1.0 / 12.0, 0.125, 1.0 / 6.0, 0.5];
    let shares = [1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 5.0 / 6.0];
    let completeness = weights.iter().zip(shares).map(|(w, s)| w * s).sum::<f64>() / weights.iter().sum::<f64>();
    assert!((scores.completeness as f64 - completeness).abs() < 1e-6, "{scores:?}");
}

#[test]
fn pruning_keeps_what_carries_the_influence() {
    let graph = by_hand();
    let all = graph.prune(1.0, 1.0);
    // f0 has no influence, but at a threshold of all of it, every node ties at the cut of 0.
    assert!(all.nodes[1..].iter().all(|&k| k), "{all:?}");
    let pruned = graph.prune(0.5, 0.9);
    // Influence ranks f1 (0.25), t1 (1/6), then e0 and t0 (0.125): half of the 0.75 is reached at t1.
    assert_eq!(pruned.nodes, vec![false, true, false, false, true, true, true], "{pruned:?}");
    assert!(pruned.edges.iter().all(|&(t, s, _)| pruned.nodes[t] && pruned.nodes[s]), "{pruned:?}");
    assert!(pruned.edges.contains(&(6, 1, 3.0)), "the logit's strongest edge: {pruned:?}");
    let top = pruned.cumulative_influence[1];
    assert!((top - 0.25 / 0.75).abs() < 1e-6, "{:?}", pruned.cumulative_influence);
}

#[test]
fn neuronpedias_file_names_every_kept_node_and_link_as_circuit_tracer_does() {
    let graph = by_hand();
    let pruned = graph.prune(0.5, 0.9);
    let text = |t: usize| ["a", "b"][t].to_string();
    let naming = Naming {
        slug: "hand",
        scan: "test",
        token_text: &text,
        feature_text: &|l, j| format!("L{l}F{j}"),
        node_threshold: 0.5,
    };
    let file = graph.neuronpedia(&pruned, &naming, (&[], 0));
    let ids: Vec<&str> = file["nodes"].as_array().unwrap().iter().map(|n| n["node_id"].as_str().unwrap()).collect();
    // f1 (layer 0, feature 1, position 1), both embeddings, and the logit (layer 2, token 0, last position).
    assert_eq!(ids, ["0_1_1", "E_0_0", "E_1_1", "2_0_1"]);
    for link in file["links"].as_array().unwrap() {
        assert!(ids.contains(&link["source"].as_str().unwrap()) && ids.contains(&link["target"].as_str().unwrap()));
    }
    assert_eq!(file["metadata"]["prompt_tokens"], serde_json::json!(["a", "b"]));
    assert_eq!(file["nodes"][3]["clerp"], "Output \"a\" (p=0.500)");
    assert_eq!(file["nodes"][0]["feature"], 2, "the Cantor pairing of layer 0 and feature 1");
}

#[test]
fn the_local_replacement_model_is_the_model_until_a_feature_is_knocked_out() {
    for skip in [false, true] {
        local_replacement_is_exact(skip);
    }
}

fn local_replacement_is_exact(skip: bool) {
    let (model, transcoders) = unbiased_with(skip);
    let tokens = [2, 7, 1, 8, 2, 8];
    let graph = attribution_graph(&model, &transcoders, &tokens, LogitChoice::default(), 16).unwrap();
    let ws = Workspace::default();
    let mut replacement = transcoders.local_replacement(&ws, &graph.errors, &[]);
    let local = model.rewired_logits(&tokens, (1, 6), None, &mut replacement).unwrap();
    let clean = model.logits(&tokens, 1, 6).unwrap();
    for (a, b) in local.iter().zip(clean.iter()) {
        assert!((a - b).abs() < 1e-5, "skip {skip}: {a} vs {b}");
    }
    // Knocking a feature out moves the explained logits, each beside the graph's prediction.
    let effects = intervene(&model, &transcoders, &graph, &[(graph.features.len() - 1, 0.0)]).unwrap();
    assert_eq!(effects.len(), graph.logits.len());
    assert!(effects.iter().any(|e| e.replacement != 0.0 && e.predicted != 0.0), "{effects:?}");
    assert!(intervene(&model, &transcoders, &graph, &[(graph.features.len(), 0.0)]).is_err());
}

#[test]
fn interventions_in_the_model_agree_where_they_must() {
    for skip in [false, true] {
        let (mut model, transcoders) = unbiased_with(skip);
        // Sharper attention than at initialisation, so that what a head attends to can move.
        for (name, value) in model.params().names.clone().iter().zip(0..) {
            if name.ends_with("attn.c_attn.weight") {
                model.params_mut().values[value].iter_mut().for_each(|w| *w *= 6.0);
            }
        }
        let tokens = [2, 7, 1, 8, 2, 8];
        let graph = attribution_graph(&model, &transcoders, &tokens, LogitChoice::default(), 16).unwrap();
        // Scaled by 1, a feature is set to what it is: nothing moves, whichever way it is computed.
        let first = intervene(&model, &transcoders, &graph, &[(0, 1.0)]).unwrap();
        for e in &first {
            for change in [e.predicted, e.replacement, e.frozen_attention, e.free_attention] {
                assert!(change.abs() < 1e-5, "skip {skip}: {e:?}");
            }
        }
        // A feature of the last layer changes only what its MLP writes: the replacement model and
        // the model, attention frozen or free, see the same change.
        let last = graph.features.iter().position(|f| f.layer == 1).expect("a feature fires in the last layer");
        for e in intervene(&model, &transcoders, &graph, &[(last, 0.0)]).unwrap() {
            assert!((e.replacement - e.free_attention).abs() < 1e-4, "skip {skip}: {e:?}");
            assert!((e.frozen_attention - e.free_attention).abs() < 1e-4, "skip {skip}: {e:?}");
        }
        // The first layer's, knocked out, reach the last layer's attention: frozen, its pattern
        // holds; free, it moves.
        let first_layer = (0..graph.features.len()).filter(|&n| graph.features[n].layer == 0);
        let early: Vec<(usize, f32)> = first_layer.map(|n| (n, 0.0)).collect();
        let effects = intervene(&model, &transcoders, &graph, &early).unwrap();
        assert!(
            effects.iter().any(|e| (e.frozen_attention - e.free_attention).abs() > 1e-4),
            "skip {skip}: {effects:?}"
        );
        assert!(effects.iter().any(|e| e.free_attention.abs() > 1e-3), "skip {skip}: {effects:?}");
    }
}

#[test]
fn the_graph_predicts_through_its_edges_per_unit_of_activation() {
    let graph = by_hand();
    // f1 (activation 1) writes 3 into the logit: knocked out, -3; tripled, +6.
    assert_eq!(graph.predicted_effects(&[(1, 0.0)]), vec![-3.0]);
    assert_eq!(graph.predicted_effects(&[(1, 3.0)]), vec![6.0]);
    assert_eq!(graph.predicted_effects(&[(0, 0.0)]), vec![0.0], "f0 reaches nothing");
}

#[test]
fn a_heads_score_splits_into_pairs_of_nodes_that_add_up_to_it() {
    for (qk_norm, skip) in [(false, false), (true, false), (false, true)] {
        let (mut model, transcoders) = unbiased_with(skip);
        if qk_norm {
            let config = GPTConfig { qk_norm: true, ..model.config().clone() };
            let params = model.params().clone();
            model = GPT::new(config, 3).unwrap();
            *model.params_mut() = params;
        }
        let tokens = [1, 4, 2, 9, 4, 7];
        let terms = head_scores(&model, &transcoders, &tokens, (1, 1), (5, 2), 5).unwrap();
        // Without biases the nodes bring the whole query and key: the split is exact.
        assert!(terms.query_bias_share < 1e-4 && terms.key_bias_share < 1e-4, "{qk_norm}: {terms:?}");
        assert!((terms.total - terms.score).abs() < 1e-4 * (1.0 + terms.score.abs()), "{qk_norm}: {terms:?}");
        assert_eq!(terms.pairs.len(), 5);
        assert!(terms.pairs.windows(2).all(|w| w[0].value.abs() >= w[1].value.abs()));
        assert!(terms.pairs.iter().all(|p| p.query != QkSide::Bias && p.key != QkSide::Bias));
        // Only what reaches a position from it and before, in the layers below, takes part.
        let reaches = |side: &QkSide, position: usize| match *side {
            QkSide::Feature { layer, position: p, .. } | QkSide::Error { layer, position: p } => {
                layer < 1 && p <= position
            }
            QkSide::Token { position: p } => p <= position,
            QkSide::Bias => true,
        };
        assert!(terms.pairs.iter().all(|p| reaches(&p.query, 5) && reaches(&p.key, 2)), "{terms:?}");
        // Its attention is the pass's.
        let hooked = model.hooked(&tokens, None).unwrap();
        let (layer, head, heads, t) = (1, 1, 2, 6);
        assert_eq!(terms.attention, hooked.pattern[((layer * heads + head) * t + 5) * t + 2]);
    }
    let (model, transcoders) = unbiased();
    let error = head_scores(&model, &transcoders, &[1, 4], (1, 1), (0, 1), 5).unwrap_err().to_string();
    assert!(error.contains("from a position to itself or an earlier one"), "{error}");
    let error = head_scores(&model, &transcoders, &[1, 4], (2, 0), (1, 0), 5).unwrap_err().to_string();
    assert!(error.contains("no head 1 of layer 3"), "{error}");
}

#[test]
fn with_biases_and_learned_positions_the_biases_take_their_share_and_the_terms_still_add_up() {
    let config = GPTConfig { n_layer: 2, n_head: 2, n_embd: 16, block_size: 8, vocab_size: 11, ..Default::default() };
    let model = GPT::new(config, 3).unwrap();
    let (_, transcoders) = unbiased();
    let terms = head_scores(&model, &transcoders, &[1, 4, 2, 9], (1, 0), (3, 3), 1000).unwrap();
    assert!(terms.query_bias_share > 0.0);
    assert!((terms.total - terms.score).abs() < 1e-4 * (1.0 + terms.score.abs()), "{terms:?}");
    assert!(terms.pairs.iter().any(|p| p.query == QkSide::Bias || p.key == QkSide::Bias));
}
