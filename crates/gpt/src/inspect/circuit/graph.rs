//! What the circuit view reads off the model's graph (`model/edge_graph.rs`): which edges of a
//! circuit lie on a path from the input to the logits, and the circuit as EAP-IG's `Graph` JSON,
//! so that its code can read and draw what the playground found.

use crate::model::{EdgeGraph, Reader};

impl EdgeGraph {
    /// The writer a reader's node is (none for the logits): a head's query, key and value are
    /// that head's inputs.
    fn node_of(&self, reader: &Reader) -> Option<usize> {
        let h = self.n_head;
        match *reader {
            Reader::Head { layer, head, .. } => Some(1 + layer * (h + 1) + head),
            Reader::Mlp { layer } => Some(1 + layer * (h + 1) + h),
            Reader::Logits => None,
        }
    }

    /// `kept` without the edges that lie on no path from the input to the logits, as EAP-IG's
    /// `Graph.prune` leaves a circuit. They change nothing: a writer none of whose inputs is kept
    /// writes its corrupted output anyway, and a reader that reaches no logits moves none.
    pub fn connected(&self, kept: &[bool]) -> Vec<bool> {
        let mut reached = vec![false; self.writers.len()];
        reached[0] = true;
        for (edge, _) in self.edges.iter().zip(kept).filter(|(_, &k)| k) {
            if let Some(node) = self.node_of(&self.readers[edge.reader]).filter(|_| reached[edge.writer]) {
                reached[node] = true;
            }
        }
        let mut useful = vec![false; self.writers.len()];
        for (edge, _) in self.edges.iter().zip(kept).rev().filter(|(_, &k)| k) {
            if self.node_of(&self.readers[edge.reader]).is_none_or(|node| useful[node]) {
                useful[edge.writer] = true;
            }
        }
        self.edges
            .iter()
            .zip(kept)
            .map(|(edge, &k)| {
                let reader_useful = self.node_of(&self.readers[edge.reader]).is_none_or(|node| useful[node]);
                k && reached[edge.writer] && reader_useful
            })
            .collect()
    }

    /// EAP-IG's `Graph` JSON (`Graph.from_json` reads it): its config, each node in the circuit
    /// or not, each edge's score and whether it is in the circuit.
    pub fn eap_ig_json(&self, scores: &[f32], kept: &[bool]) -> serde_json::Value {
        let c = serde_json::json!({
            "n_layers": self.n_layer, "n_heads": self.n_head, "parallel_attn_mlp": false, "d_model": self.d_model
        });
        let mut nodes = serde_json::Map::new();
        for writer in &self.writers {
            let used = self.edges.iter().zip(kept).any(|(e, &k)| k && self.writers[e.writer] == *writer);
            nodes.insert(writer.name(), serde_json::json!({ "in_graph": used }));
        }
        nodes.insert("logits".into(), serde_json::json!({ "in_graph": true }));
        let edges: serde_json::Map<String, serde_json::Value> = self
            .edges
            .iter()
            .zip(scores.iter().zip(kept))
            .map(|(e, (&score, &k))| (e.name.clone(), serde_json::json!({ "score": score, "in_graph": k })))
            .collect();
        serde_json::json!({ "cfg": c, "nodes": nodes, "edges": edges })
    }
}

#[cfg(test)]
mod tests {
    use crate::model::EdgeGraph;

    #[test]
    fn a_circuit_keeps_the_edges_on_a_path_and_travels_as_eap_igs_json() {
        let g = EdgeGraph::new(2, 2, 8);
        let names: Vec<&str> = g.edges.iter().map(|e| e.name.as_str()).collect();
        // input → a0.h0 (query) → logits is a path; a0.h1 → logits reads from a head with no input
        // kept, and input → m0 feeds nothing that reaches the logits.
        let kept: Vec<bool> = names
            .iter()
            .map(|n| ["input->a0.h0<q>", "a0.h0->logits", "a0.h1->logits", "input->m0"].contains(n))
            .collect();
        let connected: Vec<&str> = names.iter().zip(g.connected(&kept)).filter(|(_, k)| *k).map(|(n, _)| *n).collect();
        assert_eq!(connected, ["input->a0.h0<q>", "a0.h0->logits"]);
        let json = g.eap_ig_json(&vec![0.5; g.edges.len()], &vec![true; g.edges.len()]);
        assert_eq!(json["edges"]["a0.h1->a1.h0<k>"]["score"], 0.5);
        assert_eq!(json["cfg"]["n_layers"], 2);
    }
}
