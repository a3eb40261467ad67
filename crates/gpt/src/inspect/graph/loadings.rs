//! Head loadings (Anthropic's "Tracing attention computation", 2025): an edge of the graph whose
//! source sits at an earlier position than its target passes through heads, frozen; split by the
//! head of the lowest block that carries it between positions (`model/frozen_heads.rs`), its parts
//! add up to the edge exactly. Only the edges asked for are split, so only their targets are
//! back-propagated.

use super::sources::Sources;
use super::{readers, AttributionGraph, BATCH};
use crate::error::Result;
use crate::model::GPT;
use crate::sae::Transcoders;
use std::collections::HashMap;

/// An edge to split: its index, its reader in the batch, its source's position and what it writes.
type Split<'a> = (usize, usize, usize, &'a [f32]);

/// Each of `edges`' (target, source) loadings in `graph` (of `model` with `transcoders`): for an
/// edge from an earlier position, one part for each head of each block (block by block), which
/// add up to the edge; none for an edge within one position, which no head carries.
pub fn head_loadings(
    model: &GPT,
    transcoders: &Transcoders,
    graph: &AttributionGraph,
    edges: &[(usize, usize)],
) -> Result<Vec<Vec<f32>>> {
    let sources = Sources::of(model, transcoders, &graph.tokens)?;
    let c = model.config();
    let (d, heads, t) = (c.n_embd, c.n_head, graph.tokens.len());
    let position = |target: usize| graph.features.get(target).map_or(t - 1, |f| f.position);
    let mut loadings: Vec<Vec<f32>> = edges
        .iter()
        .map(|&(target, source)| {
            let crosses = sources.write(source).1 < position(target);
            if crosses {
                vec![0.0; c.n_layer * heads]
            } else {
                vec![]
            }
        })
        .collect();
    // The targets of the edges that cross, each back-propagated once.
    let mut targets: Vec<usize> =
        edges.iter().zip(&loadings).filter(|(_, l)| !l.is_empty()).map(|(&(target, _), _)| target).collect();
    targets.sort_unstable();
    targets.dedup();
    for batch in targets.chunks(BATCH) {
        let (features, logits): (Vec<usize>, Vec<usize>) = batch.iter().partition(|&&n| n < graph.features.len());
        let features: Vec<_> = features.iter().map(|&n| graph.features[n]).collect();
        let logits: Vec<_> = logits.iter().map(|&n| graph.logits[n - graph.sources()]).collect();
        let (reads, directions) = readers(model, transcoders, &features, &logits, t);
        // Each edge whose target is in this batch, by where its source writes: its reader, the
        // source's position and what it writes.
        let mut by_level: HashMap<Option<usize>, Vec<Split>> = HashMap::new();
        for (e, &(target, source)) in edges.iter().enumerate() {
            if let (false, Ok(reader)) = (loadings[e].is_empty(), batch.binary_search(&target)) {
                let (level, p, written) = sources.write(source);
                by_level.entry(level).or_default().push((e, reader, p, written));
            }
        }
        model.frozen_head_backward(
            &sources.frozen,
            &reads,
            &directions,
            &sources.skips,
            &mut |at, (block, head), g, reached| {
                for &(e, reader, p, written) in by_level.get(&at).into_iter().flatten() {
                    let row = &g[(reader * reached + p) * d..(reader * reached + p + 1) * d];
                    loadings[e][block * heads + head] += row.iter().zip(written).map(|(a, b)| a * b).sum::<f32>();
                }
            },
        );
    }
    Ok(loadings)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::unbiased_with;
    use super::super::{attribution_graph, LogitChoice};
    use super::head_loadings;

    #[test]
    fn each_edge_between_positions_splits_into_heads_that_add_up_to_it() {
        for skip in [false, true] {
            let (model, transcoders) = unbiased_with(skip);
            let graph =
                attribution_graph(&model, &transcoders, &[1, 4, 2, 9, 4, 7], LogitChoice::default(), 8).unwrap();
            let targets = (0..graph.features.len()).chain(graph.sources()..graph.nodes());
            let edges: Vec<(usize, usize)> = targets
                .flat_map(|t| (0..graph.sources()).map(move |s| (t, s)))
                .filter(|&(t, s)| graph.edge(t, s) != 0.0)
                .collect();
            let loadings = head_loadings(&model, &transcoders, &graph, &edges).unwrap();
            let (mut crossing, mut shared) = (0, 0);
            for (&(t, s), heads) in edges.iter().zip(&loadings) {
                if heads.is_empty() {
                    continue;
                }
                crossing += 1;
                assert_eq!(heads.len(), 2 * 2, "a part for each head of each block");
                let (edge, sum) = (graph.edge(t, s), heads.iter().sum::<f32>());
                assert!(
                    (edge - sum).abs() <= 1e-4 * (1.0 + edge.abs()),
                    "skip {skip}, {t} <- {s}: {edge} vs {heads:?}"
                );
                shared += (heads.iter().filter(|h| h.abs() > 1e-3 * edge.abs()).count() > 1) as usize;
            }
            assert!(crossing > edges.len() / 4, "{crossing} of {} edges cross positions", edges.len());
            assert!(shared > 0, "some edge passes through more than one head");
        }
    }
}
