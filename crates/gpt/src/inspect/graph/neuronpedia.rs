//! A pruned attribution graph as the JSON file circuit-tracer's `create_graph_files` writes for
//! Neuronpedia's graph viewer (its `frontend/graph_models.py`): `metadata`, `qParams`, `nodes`
//! (by circuit-tracer's ids: `{layer}_{feature}_{position}` for a feature, `0_{layer}_{position}`
//! for an error, `E_{token}_{position}` for an embedding, `{layers + 1}_{token}_{position}` for a
//! logit) and `links`. Its format has no place for head loadings: a link that crosses positions
//! carries them in an extra field, `heads` (one part for each head of each block, block by block:
//! `metadata.heads_per_layer` of them a block), which the viewer ignores.

use super::{AttributionGraph, Pruned};
use serde_json::{json, Value};

/// Who the file says made the graph: its slug (the file's name), the transcoders' name (`scan`),
/// each token as text, each feature's label (by layer and index; circuit-tracer's `clerp`), and
/// the thresholds it was pruned by.
pub struct Naming<'a> {
    pub slug: &'a str,
    pub scan: &'a str,
    pub token_text: &'a dyn Fn(usize) -> String,
    pub feature_text: &'a dyn Fn(usize, usize) -> String,
    pub node_threshold: f64,
}

impl AttributionGraph {
    /// The graph, pruned to `pruned`, as Neuronpedia's graph viewer opens it; `heads`, if not
    /// empty, holds each of `pruned`'s edges' head loadings (`head_loadings`), `heads_per_layer`
    /// a block.
    pub fn neuronpedia(
        &self,
        pruned: &Pruned,
        naming: &Naming,
        (heads, heads_per_layer): (&[Vec<f32>], usize),
    ) -> Value {
        let (t, layers) = (self.tokens.len(), self.layers);
        let node = |n: usize| -> Value {
            let influence = pruned.cumulative_influence[n];
            let base = |id: String, feature: i64, layer: String, position: usize, kind: &str, js: String| {
                json!({ "node_id": id, "feature": feature, "layer": layer, "ctx_idx": position,
                    "feature_type": kind, "token_prob": 0.0, "is_target_logit": false, "run_idx": 0,
                    "reverse_ctx_idx": 0, "jsNodeId": js, "clerp": "", "influence": influence,
                    "activation": null })
            };
            match n {
                n if n < self.features.len() => {
                    let f = self.features[n];
                    let (l, j) = (f.layer as i64, f.feature as i64);
                    // circuit-tracer numbers a feature by the Cantor pairing of its layer and index.
                    let paired = (l + j) * (l + j + 1) / 2 + j;
                    let mut v = base(
                        format!("{l}_{j}_{}", f.position),
                        paired,
                        l.to_string(),
                        f.position,
                        "cross layer transcoder",
                        format!("{l}_{j}-0"),
                    );
                    v["activation"] = json!(f.activation);
                    v["clerp"] = json!((naming.feature_text)(f.layer, f.feature));
                    v
                }
                n if n < self.token_node(0) => {
                    let (l, p) = ((n - self.features.len()) / t, (n - self.features.len()) % t);
                    base(format!("0_{l}_{p}"), -1, l.to_string(), p, "mlp reconstruction error", format!("{l}_{p}-0"))
                }
                n if n < self.sources() => {
                    let (p, token) = (n - self.token_node(0), self.tokens[n - self.token_node(0)]);
                    base(format!("E_{token}_{p}"), p as i64, "E".into(), p, "embedding", format!("E_{token}-{p}"))
                }
                n => {
                    let (i, logit) = (n - self.sources(), self.logits[n - self.sources()]);
                    let layer = (layers + 1).to_string();
                    let mut v = base(
                        format!("{layer}_{}_{}", logit.token, t - 1),
                        logit.token as i64,
                        layer,
                        t - 1,
                        "logit",
                        format!("L_{}-{}", logit.token, t - 1),
                    );
                    v["influence"] = Value::Null;
                    v["token_prob"] = json!(logit.probability);
                    v["is_target_logit"] = json!(i == 0);
                    v["clerp"] =
                        json!(format!("Output \"{}\" (p={:.3})", (naming.token_text)(logit.token), logit.probability));
                    v
                }
            }
        };
        let ids: Vec<Option<Value>> = pruned.nodes.iter().enumerate().map(|(n, &kept)| kept.then(|| node(n))).collect();
        let id = |n: usize| ids[n].as_ref().map(|v| v["node_id"].clone());
        let links: Vec<Value> = pruned
            .edges
            .iter()
            .enumerate()
            .filter_map(|(e, &(target, source, weight))| {
                let mut link = json!({ "source": id(source)?, "target": id(target)?, "weight": weight });
                if let Some(loadings) = heads.get(e).filter(|l| !l.is_empty()) {
                    link["heads"] = json!(loadings);
                }
                Some(link)
            })
            .collect();
        let linked: std::collections::HashSet<String> =
            links.iter().flat_map(|l| [l["source"].to_string(), l["target"].to_string()]).collect();
        let nodes: Vec<&Value> = ids
            .iter()
            .flatten()
            .filter(|v| {
                let kind = v["feature_type"].as_str().unwrap_or_default();
                linked.contains(&v["node_id"].to_string()) || kind == "embedding" || kind == "logit"
            })
            .collect();
        let tokens: Vec<String> = self.tokens.iter().map(|&t| (naming.token_text)(t)).collect();
        json!({
            "metadata": { "slug": naming.slug, "scan": naming.scan, "transcoder_list": [],
                "prompt_tokens": tokens, "prompt": tokens.concat(), "node_threshold": naming.node_threshold,
                "schema_version": 1, "heads_per_layer": heads_per_layer },
            "qParams": { "pinnedIds": [], "supernodes": [], "linkType": "both", "clickedId": "", "sg_pos": "" },
            "nodes": nodes,
            "links": links,
        })
    }
}
