//! `gpt features --graph PROMPT`: the attribution graph behind the prompt's next token, on the
//! run's transcoders (trained with --transcoders, or kept in the checkpoint): its size, the time
//! it took, its replacement and completeness scores, what pruning keeps, and the strongest edges
//! into the most likely token; with --why, what makes a head attend where it does.

use gpt::inspect::graph::{self, AttributionGraph, LogitChoice};

#[derive(clap::Args)]
pub struct GraphFlags {
    /// Trace this prompt's next token through the run's transcoders: its attribution graph.
    #[arg(long)]
    graph: Option<String>,
    /// Keep the nodes holding this share of the influence on the logits (circuit-tracer's 0.8).
    #[arg(long, default_value_t = 0.8)]
    node_threshold: f64,
    /// Then the edges holding this share (circuit-tracer's 0.98).
    #[arg(long, default_value_t = 0.98)]
    edge_threshold: f64,
    /// Edges into the most likely token shown.
    #[arg(long, default_value_t = 10)]
    top_edges: usize,
    /// Write the pruned graph here as the JSON circuit-tracer writes for Neuronpedia's graph viewer.
    #[arg(long)]
    graph_out: Option<std::path::PathBuf>,
    /// Write the whole graph here as JSON, to check it elsewhere (python/check_graph.py): the
    /// tokens, every active feature, the logits and the adjacency (a row per feature, then per
    /// logit; a column per feature, error, then token).
    #[arg(long)]
    graph_raw: Option<std::path::PathBuf>,
    /// Scale these features' activations (each `L2F811@3`: layer from 1, feature, position from 0,
    /// as the table names them) and show each logit's change: as the graph predicts it, in the
    /// replacement model, and in the model with attention frozen (circuit-tracer's default) and free.
    #[arg(long, num_args = 1..)]
    intervene: Vec<String>,
    /// The factor --intervene scales them by: 0 knocks them out, 2 doubles them.
    #[arg(long, default_value_t = 0.0)]
    factor: f32,
    /// Why a head attends where it does: `L2H1@24:9` (layer and head from 1, from position 24 to
    /// 9) splits its score before the softmax into pairs of a query-side and a key-side node.
    #[arg(long)]
    why: Option<String>,
}

impl GraphFlags {
    /// Whether a graph was asked for.
    pub fn is_set(&self) -> bool {
        self.graph.is_some()
    }
}

/// Prints the graph `flags` ask for, if any.
pub fn show(run: &gpt::Run, flags: &GraphFlags, name: &str, json: bool) -> Result<(), String> {
    let Some(prompt) = &flags.graph else { return Ok(()) };
    let (node, edge) = (flags.node_threshold, flags.edge_threshold);
    if !(0.0..=1.0).contains(&node) || !(0.0..=1.0).contains(&edge) {
        return Err(format!("--node-threshold and --edge-threshold are shares from 0 to 1, not {node} and {edge}"));
    }
    let start = crate::shared::now_ms();
    let g = graph::of_prompt(run, prompt, LogitChoice::default()).map_err(|e| e.to_string())?;
    let built_ms = crate::shared::now_ms() - start;
    let scores = g.scores();
    let pruned = g.prune(node as f32, edge as f32);
    let kept = |range: std::ops::Range<usize>| pruned.nodes[range].iter().filter(|&&k| k).count();
    let features = g.features.len();
    let top = g.sources(); // the most likely token's node
    let mut into_top: Vec<(usize, f32)> =
        (0..g.sources()).map(|s| (s, g.edge(top, s))).filter(|e| e.1 != 0.0).collect();
    into_top.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    into_top.truncate(flags.top_edges);
    let trainee = run.transcoders().ok_or("the transcoders are gone")?.model();
    let heads_of = |edges: &[(usize, usize)]| {
        graph::head_loadings(trainee.model(), trainee.dictionaries(), &g, edges).map_err(|e| e.to_string())
    };
    let top_heads = heads_of(&into_top.iter().map(|&(s, _)| (top, s)).collect::<Vec<_>>())?;
    let n_head = run.model().config().n_head;
    let token = |id: usize| run.tokenizer().token_text(id as u32);
    if let Some(path) = &flags.graph_raw {
        let vocab: Vec<String> = (0..run.vocab_size()).map(token).collect();
        let raw = serde_json::json!({ "tokens": g.tokens, "vocab": vocab, "layers": g.layers, "features": g.features,
            "logits": g.logits, "adjacency": g.adjacency, "scores": scores, "pruned": pruned });
        std::fs::write(path, raw.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let mut heads_ms = None;
    if let Some(path) = &flags.graph_out {
        let slug = path.file_stem().map_or("graph".into(), |s| s.to_string_lossy().into_owned());
        let naming = graph::Naming {
            slug: &slug,
            scan: name,
            token_text: &token,
            feature_text: &|_, _| String::new(),
            node_threshold: node,
        };
        let start = crate::shared::now_ms();
        let heads = heads_of(&pruned.edges.iter().map(|&(t, s, _)| (t, s)).collect::<Vec<_>>())?;
        heads_ms = Some(crate::shared::now_ms() - start);
        let file = g.neuronpedia(&pruned, &naming, (&heads, n_head));
        let file = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
        std::fs::write(path, file).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {} (Neuronpedia's graph viewer opens it)", path.display());
    }
    let effects = intervention(run, &g, flags)?;
    if json {
        let interventions = effects.as_ref().map(|effects| {
            let effects: Vec<_> = effects
                .iter()
                .map(|e| {
                    serde_json::json!({ "token": token(e.token), "id": e.token, "predicted": e.predicted,
                    "replacement": e.replacement, "frozen_attention": e.frozen_attention,
                    "free_attention": e.free_attention, "probability": e.probability })
                })
                .collect();
            serde_json::json!({ "features": flags.intervene, "factor": flags.factor, "effects": effects })
        });
        let line = serde_json::json!({ "prompt": prompt, "tokens": g.tokens, "features": features,
            "logits": g.logits, "built_ms": built_ms, "scores": scores,
            "kept_features": kept(0..features), "kept_edges": pruned.edges.len(),
            "into_top": into_top.iter().zip(&top_heads).map(|(&(s, w), h)| (label(&g, s, &token), w, h)).collect::<Vec<_>>(),
            "heads_ms": heads_ms,
            "intervention": interventions });
        println!("{line}");
        return Ok(());
    }
    let logits: Vec<String> = g.logits.iter().map(|l| format!("{:?} {:.3}", token(l.token), l.probability)).collect();
    println!(
        "graph of {prompt:?} ({} tokens) for its next token: {}\n  {features} active features, {} errors, {} tokens; \
         built in {built_ms:.0} ms, its direct effects {:.0} MB\n  replacement score {:.3}, completeness {:.3}\n  pruned to {node} of the nodes' \
         influence and {edge} of the edges': {} features, {} errors, {} edges",
        g.tokens.len(),
        logits.join(", "),
        g.layers * g.tokens.len(),
        g.tokens.len(),
        g.bytes() as f64 / (1 << 20) as f64,
        scores.replacement,
        scores.completeness,
        kept(0..features),
        kept(features..g.token_node(0)),
        pruned.edges.len()
    );
    println!("  strongest direct effects on {:?}:", token(g.logits[0].token));
    for ((s, w), heads) in into_top.into_iter().zip(&top_heads) {
        println!("  {w:>+9.3}  {}{}", label(&g, s, &token), carriers(heads, n_head));
    }
    if let Some(ms) = heads_ms {
        println!("  the kept edges between positions split into the heads that carry them in {ms:.0} ms");
    }
    if let Some(why) = &flags.why {
        show_why(run, &g, why, &token)?;
    }
    if let Some(effects) = effects {
        println!(
            "  {} times {}: each logit's change (less the mean's), as the graph predicts it, in the replacement \
             model (transcoders and the prompt's errors), and in the model (its own MLPs, each feature's change \
             written at its MLP's output, as circuit-tracer's feature_intervention) with attention frozen at the \
             prompt's patterns and free; the probability after, in the model",
            flags.intervene.join(", "),
            flags.factor
        );
        println!(
            "  {:>8}  {:>9}  {:>11}  {:>16}  {:>14}  {:>11}",
            "token", "graph", "replacement", "attention frozen", "attention free", "probability"
        );
        for e in effects {
            println!(
                "  {:>8}  {:>+9.3}  {:>+11.3}  {:>+16.3}  {:>+14.3}  {:>11.3}",
                format!("{:?}", token(e.token)),
                e.predicted,
                e.replacement,
                e.frozen_attention,
                e.free_attention,
                e.probability
            );
        }
    }
    Ok(())
}

/// The logits' changes `--intervene` asks for, each way they are computed, or none.
fn intervention(
    run: &gpt::Run,
    g: &AttributionGraph,
    flags: &GraphFlags,
) -> Result<Option<Vec<graph::LogitEffect>>, String> {
    if flags.intervene.is_empty() {
        return Ok(None);
    }
    let scaled =
        flags.intervene.iter().map(|n| Ok((feature_node(g, n)?, flags.factor))).collect::<Result<Vec<_>, String>>()?;
    let trainee = run.transcoders().ok_or("the transcoders are gone")?.model();
    let effects = graph::intervene(trainee.model(), trainee.dictionaries(), g, &scaled).map_err(|e| e.to_string())?;
    Ok(Some(effects))
}

/// An edge's strongest head loadings, as `  via L2H1 +1.234, L1H3 -0.120`, or nothing for an edge
/// within one position.
fn carriers(heads: &[f32], n_head: usize) -> String {
    let mut order: Vec<usize> = (0..heads.len()).collect();
    order.sort_by(|&a, &b| heads[b].abs().total_cmp(&heads[a].abs()));
    let named: Vec<String> =
        order.iter().take(3).map(|&i| format!("L{}H{} {:+.3}", i / n_head + 1, i % n_head + 1, heads[i])).collect();
    if named.is_empty() {
        String::new()
    } else {
        format!("   via {}", named.join(", "))
    }
}

/// The feature node `L2F811@3` names, if the graph has it.
fn feature_node(g: &AttributionGraph, name: &str) -> Result<usize, String> {
    let bad = || format!("--intervene: {name:?} is not a feature as the table names them, like L2F811@3");
    let (layer, rest) = name.trim().strip_prefix('L').and_then(|r| r.split_once('F')).ok_or_else(bad)?;
    let (feature, position) = rest.split_once('@').ok_or_else(bad)?;
    let number = |s: &str| s.parse::<usize>().map_err(|_| bad());
    let (layer, feature, position) =
        (number(layer)?.checked_sub(1).ok_or_else(bad)?, number(feature)?, number(position)?);
    g.features
        .iter()
        .position(|f| (f.layer, f.feature, f.position) == (layer, feature, position))
        .ok_or_else(|| format!("--intervene: {name} does not fire on this prompt, so the graph has no such node"))
}

/// A node's name for a table: `L2 F811 at 3 'e'`, `error L2 at 3 'e'`, `token 'e' at 3`.
fn label(g: &AttributionGraph, node: usize, token: &dyn Fn(usize) -> String) -> String {
    let at = |p: usize| format!("at {} {:?}", p, token(g.tokens[p]));
    let t = g.tokens.len();
    match node {
        n if n < g.features.len() => {
            let f = g.features[n];
            format!("L{}F{}@{} {:?}", f.layer + 1, f.feature, f.position, token(g.tokens[f.position]))
        }
        n if n < g.token_node(0) => {
            let e = n - g.features.len();
            format!("error L{} {}", e / t + 1, at(e % t))
        }
        n if n < g.sources() => format!("token {}", at(n - g.token_node(0))),
        n => format!("logit {:?}", token(g.logits[n - g.sources()].token)),
    }
}

/// Prints why the head `why` names (`L2H1@24:9`) attends where it does.
fn show_why(run: &gpt::Run, g: &AttributionGraph, why: &str, token: &dyn Fn(usize) -> String) -> Result<(), String> {
    let bad = || format!("--why: {why:?} is not a head and two positions, like L2H1@24:9");
    let (head, positions) = why.trim().strip_prefix('L').and_then(|r| r.split_once('@')).ok_or_else(bad)?;
    let (layer, head) = head.split_once('H').ok_or_else(bad)?;
    let (query, key) = positions.split_once(':').ok_or_else(bad)?;
    let number = |s: &str| s.parse::<usize>().map_err(|_| bad());
    let from_one = |s: &str| number(s)?.checked_sub(1).ok_or_else(bad);
    let trainee = run.transcoders().ok_or("the transcoders are gone")?.model();
    let terms = graph::head_scores(
        trainee.model(),
        trainee.dictionaries(),
        &g.tokens,
        (from_one(layer)?, from_one(head)?),
        (number(query)?, number(key)?),
        12,
    )
    .map_err(|e| e.to_string())?;
    println!(
        "  why {why}: score {:+.3} before the softmax (attention {:.3}), {} terms adding up to {:+.3}; the biases bring \
         {:.0}% of the query and {:.0}% of the key",
        terms.score,
        terms.attention,
        terms.terms,
        terms.total,
        100.0 * terms.query_bias_share,
        100.0 * terms.key_bias_share
    );
    let name = |side: &graph::QkSide| match *side {
        graph::QkSide::Feature { layer, position, feature } => {
            format!("L{}F{feature}@{position} {:?}", layer + 1, token(g.tokens[position]))
        }
        graph::QkSide::Error { layer, position } => format!("error L{} at {position}", layer + 1),
        graph::QkSide::Token { position } => format!("token {:?} at {position}", token(g.tokens[position])),
        graph::QkSide::Bias => "biases".into(),
    };
    for pair in &terms.pairs {
        println!("  {:>+9.3}  query {}  ×  key {}", pair.value, name(&pair.query), name(&pair.key));
    }
    Ok(())
}
