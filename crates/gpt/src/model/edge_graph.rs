//! The model as circuit tools see it, laid out as EAP-IG (hannamw/EAP-IG) does: writers (the
//! input, each head, each MLP) and readers (each head's query, key and value, each MLP, the
//! logits), and an edge from every writer to every reader after it, named by EAP-IG's names.
//! Exact patching (`edge_patching.rs`) and the circuit view (`inspect/circuit/`) share it.

use super::gpt::GPT;
use super::rewire::{readers, Reader};
use serde::Serialize;

/// A node that writes into the residual stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Writer {
    Input,
    Head { layer: usize, head: usize },
    Mlp { layer: usize },
}

impl Writer {
    /// EAP-IG's name: `input`, `a0.h1`, `m0` (layers and heads from 0).
    pub fn name(&self) -> String {
        match *self {
            Writer::Input => "input".into(),
            Writer::Head { layer, head } => format!("a{layer}.h{head}"),
            Writer::Mlp { layer } => format!("m{layer}"),
        }
    }

    /// Whether `reader` reads what this writes: a reader in a later block, or (a head) its own
    /// block's MLP, or the logits.
    fn feeds(&self, reader: &Reader, n_layer: usize) -> bool {
        let at = reader.layer(n_layer);
        match (*self, reader) {
            (Writer::Input, _) => true,
            (Writer::Head { layer, .. }, Reader::Mlp { .. }) => layer <= at,
            (Writer::Head { layer, .. } | Writer::Mlp { layer }, _) => layer < at,
        }
    }
}

/// EAP-IG's name of the node a reader belongs to: `a0.h1`, `m0`, `logits`.
fn reader_node(reader: &Reader) -> String {
    match *reader {
        Reader::Head { layer, head, .. } => format!("a{layer}.h{head}"),
        Reader::Mlp { layer } => format!("m{layer}"),
        Reader::Logits => "logits".into(),
    }
}

/// EAP-IG's name of an edge: `a0.h1->a1.h2<k>`, `m0->logits`.
fn edge_name(writer: &Writer, reader: &Reader) -> String {
    let part = match reader {
        Reader::Head { part, .. } => format!("<{}>", part.letter()),
        _ => String::new(),
    };
    format!("{}->{}{part}", writer.name(), reader_node(reader))
}

/// One edge: a writer's output as one reader reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Edge {
    /// Indices into [`EdgeGraph::writers`] and [`EdgeGraph::readers`].
    pub writer: usize,
    pub reader: usize,
    /// EAP-IG's name for it.
    pub name: String,
}

/// Every writer, reader and edge of a model's graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct EdgeGraph {
    pub n_layer: usize,
    pub n_head: usize,
    /// The stream's channels.
    pub d_model: usize,
    /// The input, then each block's heads and its MLP: the order the pass writes them.
    pub writers: Vec<Writer>,
    /// Each block's queries, keys, values and MLP, then the logits (EAP-IG's order).
    pub readers: Vec<Reader>,
    /// Reader after reader, each from its writers in order.
    pub edges: Vec<Edge>,
}

impl EdgeGraph {
    /// The graph of `model`.
    pub fn of(model: &GPT) -> EdgeGraph {
        let cfg = model.config();
        EdgeGraph::new(cfg.n_layer, cfg.n_head, cfg.n_embd)
    }

    /// The graph of a model of `n_layer` blocks of `n_head` heads, its stream `d_model` wide.
    pub fn new(n_layer: usize, n_head: usize, d_model: usize) -> EdgeGraph {
        let mut writers = vec![Writer::Input];
        for layer in 0..n_layer {
            writers.extend((0..n_head).map(|head| Writer::Head { layer, head }));
            writers.push(Writer::Mlp { layer });
        }
        let readers = readers(n_layer, n_head);
        let mut edges = Vec::new();
        for (r, reader) in readers.iter().enumerate() {
            for (w, writer) in writers.iter().enumerate().filter(|(_, w)| w.feeds(reader, n_layer)) {
                edges.push(Edge { writer: w, reader: r, name: edge_name(writer, reader) });
            }
        }
        EdgeGraph { n_layer, n_head, d_model, writers, readers, edges }
    }

    /// The block an edge's reader reads in (`n_layer` for the logits).
    pub fn layer_of(&self, edge: &Edge) -> usize {
        self.readers[edge.reader].layer(self.n_layer)
    }
}

#[cfg(test)]
mod tests {
    use super::EdgeGraph;

    #[test]
    fn the_graph_has_eap_igs_edges() {
        // EAP-IG's count for 2 layers of 4 heads with MLPs: 110 edges; 4 × 4: 479.
        assert_eq!(EdgeGraph::new(2, 4, 8).edges.len(), 110);
        assert_eq!(EdgeGraph::new(4, 4, 8).edges.len(), 479);
        let g = EdgeGraph::new(2, 2, 8);
        let names: Vec<&str> = g.edges.iter().map(|e| e.name.as_str()).collect();
        for name in ["input->a0.h0<q>", "a0.h1->a1.h0<k>", "a0.h0->m0", "m0->a1.h1<v>", "m1->logits", "a1.h1->m1"] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        assert!(!names.contains(&"a0.h0->a0.h1<q>"), "a head does not read its own layer's heads");
        assert!(!names.contains(&"m0->m0"), "nor an MLP itself");
    }
}
