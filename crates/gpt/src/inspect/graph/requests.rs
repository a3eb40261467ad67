//! What the page asks of a run's transcoders, one request at a time: begin them, report their
//! steps (which the page shares with its helpers as [`crate::RunJob::TranscoderStep`]s), measure
//! them, trace a prompt's attribution graph, test it by scaling features, say why a head attends
//! where it does, and a feature's card (the autoencoder's dashboard, on one layer's transcoder).
//! Each layer's feature index is kept until the transcoders train again.

use super::{
    head_loadings, head_scores, of_prompt, traced, AttributionGraph, GraphScores, LogitChoice, Naming, QkTerms,
};
use crate::error::{Error, Result};
use crate::inspect::Run;
use crate::run::{
    no_transcoders, DictionaryShape, DictionaryStart, FeatureCard, Standing, TranscoderMeasures, PAGE_BATCHES,
};
use crate::train::TrainReport;
use crate::words::views;
use serde::{Deserialize, Serialize};

/// The terms of a head's score the page lists.
const WHY_PAIRS: usize = 12;

/// One thing the page asks of the transcoders.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum TranscoderRequest {
    /// A fresh transcoder of `config`'s kind for every MLP.
    Start(DictionaryStart),
    /// What the steps since the last report did, with the measures when `measure` or once done.
    Report {
        measure: bool,
    },
    Measure,
    /// The graph behind `prompt`'s next token, pruned to these shares of the influence, with each
    /// kept edge's head loadings unless `heads` is false (a benchmark times them so).
    Graph {
        prompt: String,
        node_threshold: f32,
        edge_threshold: f32,
        #[serde(default = "with_heads")]
        #[cfg_attr(feature = "ts", tsify(optional))]
        heads: bool,
    },
    /// `prompt`'s graph with `features` (each at the position it fires) times `factor`: each
    /// explained logit's change, predicted by the graph and real.
    Intervene {
        prompt: String,
        features: Vec<GraphFeature>,
        factor: f32,
    },
    Card {
        layer: usize,
        feature: usize,
    },
    /// Why head `head` of block `layer` (both from 0) attends from position `query` of `prompt`
    /// to position `key`: its score split into pairs of nodes.
    Why {
        prompt: String,
        layer: usize,
        head: usize,
        query: usize,
        key: usize,
    },
}

/// A graph's head loadings are asked for unless said otherwise.
fn with_heads() -> bool {
    true
}

/// A feature of a prompt's graph: its layer (from 0), index and position.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct GraphFeature {
    pub layer: usize,
    pub feature: usize,
    pub position: usize,
}

/// A pruned graph as the page draws it: Neuronpedia's file (each feature's `clerp` the token it
/// fires on most strongly in held-out text; each link between positions with its head loadings),
/// and how much of the prompt it explains.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct PageGraph {
    #[cfg_attr(feature = "ts", tsify(type = "any"))]
    pub file: serde_json::Value,
    pub scores: GraphScores,
    /// Active features before pruning, and the bytes of its direct effects.
    pub features: usize,
    pub bytes: usize,
}

/// An explained next token's logit change when features are scaled (less the mean logit's
/// change), each way [`super::intervene`] computes it, and its probability after.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TokenEffect {
    pub token: String,
    pub predicted: f32,
    pub replacement: f32,
    pub frozen_attention: f32,
    pub free_attention: f32,
    pub probability: f32,
}

/// What the transcoders answered; only the field the request asks for is filled, beside where
/// their training stands.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TranscoderAnswer {
    #[serde(flatten)]
    pub standing: Standing,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub report: Option<TrainReport>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub measures: Option<TranscoderMeasures>,
    /// Every training step's loss so far (with a measure asked for alone).
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub losses: Option<Vec<f32>>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub graph: Option<PageGraph>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub effects: Option<Vec<TokenEffect>>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub card: Option<FeatureCard>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub why: Option<QkTerms>,
}

impl Run {
    /// Answers `request`; a failed request changes nothing.
    pub fn transcoders_do(&mut self, request: TranscoderRequest) -> Result<TranscoderAnswer> {
        let mut answer = TranscoderAnswer::default();
        match request {
            TranscoderRequest::Start(start) => {
                self.start_transcoders(start.config, start.recipe(), 1)?;
            }
            TranscoderRequest::Report { measure } => {
                let report = self.transcoders.as_mut().ok_or_else(no_transcoders)?.take_report();
                if measure || report.step >= report.max_iters {
                    answer.measures = Some(self.transcoder_measures(PAGE_BATCHES)?);
                }
                answer.report = Some(report);
            }
            TranscoderRequest::Measure => {
                answer.measures = Some(self.transcoder_measures(PAGE_BATCHES)?);
                answer.losses = self.transcoders.as_ref().map(|t| t.history().losses.clone());
            }
            TranscoderRequest::Graph { prompt, node_threshold, edge_threshold, heads } => {
                answer.graph = Some(self.page_graph(&prompt, (node_threshold, edge_threshold), heads)?);
            }
            TranscoderRequest::Intervene { prompt, features, factor } => {
                answer.effects = Some(self.intervene(&prompt, &features, factor)?);
            }
            TranscoderRequest::Why { prompt, layer, head, query, key } => {
                let (trainee, tokens) = traced(self, &prompt)?;
                let (model, transcoders) = (trainee.model(), trainee.dictionaries());
                answer.why = Some(head_scores(model, transcoders, &tokens, (layer, head), (query, key), WHY_PAIRS)?);
            }
            TranscoderRequest::Card { layer, feature } => {
                self.index_layer(layer)?;
                let transcoders = self.transcoders.as_ref().ok_or_else(no_transcoders)?.model().dictionaries();
                let index = &self.transcoder_index[&layer];
                answer.card = Some(self.dictionary_card(index, transcoders.layer(layer), feature)?);
            }
        }
        let trainer = self.transcoders.as_ref().ok_or_else(no_transcoders)?;
        let copy = DictionaryShape::Transcoders(*trainer.model().dictionaries().config());
        answer.standing = Standing::of(trainer, self.seq_len(), copy);
        Ok(answer)
    }

    /// Builds layer `layer`'s transcoder's feature index, once: kept in `transcoder_index`.
    fn index_layer(&mut self, layer: usize) -> Result<()> {
        let trainer = self.transcoders.as_ref().ok_or_else(no_transcoders)?;
        let (trainee, b) = (trainer.model(), trainer.train_config().batch_size);
        let layers = trainee.dictionaries().layers();
        if layer >= layers {
            return Err(Error::Data(views::no_transcoder_layer(layer + 1, layers)));
        }
        if !self.transcoder_index.contains_key(&layer) {
            let rows = self.held_out_rows(b, PAGE_BATCHES)?;
            let index = self.index_dictionary(trainee.dictionaries().layer(layer), trainee.model(), rows)?;
            self.transcoder_index.insert(layer, index);
        }
        Ok(())
    }

    /// `prompt`'s graph pruned by the thresholds, its features labelled by their top tokens, with
    /// its edges' head loadings if `heads`.
    fn page_graph(
        &mut self,
        prompt: &str,
        (node_threshold, edge_threshold): (f32, f32),
        heads: bool,
    ) -> Result<PageGraph> {
        for (name, share) in [("node", node_threshold), ("edge", edge_threshold)] {
            if !(0.0..=1.0).contains(&share) {
                return Err(Error::Data(views::threshold(name, share)));
            }
        }
        let graph = of_prompt(self, prompt, LogitChoice::default())?;
        let pruned = graph.prune(node_threshold, edge_threshold);
        let trainee = self.transcoders.as_ref().ok_or_else(no_transcoders)?.model();
        let edges: Vec<_> = pruned.edges.iter().map(|&(target, source, _)| (target, source)).collect();
        let heads =
            if heads { head_loadings(trainee.model(), trainee.dictionaries(), &graph, &edges)? } else { vec![] };
        let mut labels = std::collections::HashMap::new();
        // Labels come from held-out text: a checkpoint opened without its text traces unlabelled.
        let labelled = self.has_text();
        let kept = graph.features.iter().zip(&pruned.nodes).filter(|(_, &kept)| kept && labelled);
        for (f, _) in kept {
            self.index_layer(f.layer)?;
            let index = &self.transcoder_index[&f.layer];
            labels.entry((f.layer, f.feature)).or_insert_with(|| self.summary(index, f.feature).top_token);
        }
        let token_text = |id: usize| self.token(id);
        let feature_text = |layer: usize, feature: usize| labels.get(&(layer, feature)).cloned().unwrap_or_default();
        let naming = Naming {
            slug: "gpt-playground",
            scan: "gpt-playground transcoders",
            token_text: &token_text,
            feature_text: &feature_text,
            node_threshold: node_threshold as f64,
        };
        Ok(PageGraph {
            file: graph.neuronpedia(&pruned, &naming, (&heads, self.model().config().n_head)),
            scores: graph.scores(),
            features: graph.features.len(),
            bytes: graph.bytes(),
        })
    }

    /// `prompt`'s graph with `features` scaled by `factor`: each explained logit's change.
    fn intervene(&self, prompt: &str, features: &[GraphFeature], factor: f32) -> Result<Vec<TokenEffect>> {
        let graph = of_prompt(self, prompt, LogitChoice::default())?;
        let scaled = features.iter().map(|f| Ok((feature_node(&graph, f)?, factor))).collect::<Result<Vec<_>>>()?;
        let trainee = self.transcoders.as_ref().ok_or_else(no_transcoders)?.model();
        let effects = super::intervene(trainee.model(), trainee.dictionaries(), &graph, &scaled)?;
        let shown = |e: super::LogitEffect| TokenEffect {
            token: self.token(e.token),
            predicted: e.predicted,
            replacement: e.replacement,
            frozen_attention: e.frozen_attention,
            free_attention: e.free_attention,
            probability: e.probability,
        };
        Ok(effects.into_iter().map(shown).collect())
    }
}

/// The node of `f` in `graph`, if it fires there.
fn feature_node(graph: &AttributionGraph, f: &GraphFeature) -> Result<usize> {
    let at = |a: &super::ActiveFeature| (a.layer, a.feature, a.position) == (f.layer, f.feature, f.position);
    graph
        .features
        .iter()
        .position(at)
        .ok_or_else(|| Error::Data(views::feature_silent(f.feature, f.layer + 1, f.position)))
}
