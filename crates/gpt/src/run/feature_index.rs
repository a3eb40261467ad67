//! What each of an autoencoder's features means, read from held-out text or problems: where it
//! fires and how strongly (its firings, kept per feature), how much the model's loss needs it (by
//! attribution: removing a feature's activation a·d changes the loss by about −a·d·∂L/∂x), and
//! what its direction does to the next token through the unembedding. A feature's card gathers
//! these for the dashboard: its top contexts with the tokens around them, the histogram of its
//! activations, its density, and the tokens it promotes and suppresses.

use super::feature_measures::FeatureRows;
use super::training::Watch;
use super::Run;
use crate::error::{Error, Result};
use crate::model::GPT;
use crate::sae::SaeRef;
use crate::words::dictionaries;
use crate::work::Batch;
use crate::workspace::Workspace;
use serde::Serialize;

/// Top contexts a card shows.
pub const TOP_CONTEXTS: usize = 12;
/// Tokens a context shows before its strongest token, and after it.
pub const BEFORE: usize = 12;
pub const AFTER: usize = 4;
/// Bins of a card's histogram.
pub const BINS: usize = 24;
/// Tokens a card lists as promoted, and as suppressed.
pub const LOGIT_TOKENS: usize = 8;

/// Every feature's firings on held-out rows, and how much the loss needs each.
#[derive(Clone, Debug)]
pub struct FeatureIndex {
    pub rows: FeatureRows,
    /// Each feature's firings: (token, activation), tokens counted across the rows' batches.
    pub firings: Vec<Vec<(u32, f32)>>,
    /// The mean loss removing each feature (at every token) adds, by attribution.
    pub importance: Vec<f32>,
}

impl FeatureIndex {
    /// Tokens indexed.
    pub fn tokens(&self) -> usize {
        self.rows.batches.len() * self.rows.b * self.rows.t
    }

    /// The share of tokens feature `j` fires on.
    pub fn density(&self, j: usize) -> f32 {
        self.firings[j].len() as f32 / self.tokens().max(1) as f32
    }

    /// Feature `j`'s strongest activation.
    pub fn max(&self, j: usize) -> f32 {
        self.firings[j].iter().map(|&(_, a)| a).fold(0.0, f32::max)
    }

    /// The id at token `n` of the indexed rows.
    fn id(&self, n: usize) -> usize {
        let per_batch = self.rows.b * self.rows.t;
        self.rows.batches[n / per_batch].0[n % per_batch]
    }
}

/// One line of the feature list.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct FeatureSummary {
    pub feature: usize,
    pub density: f32,
    pub max: f32,
    pub importance: f32,
    /// The token it fires on most strongly, and the token before it.
    pub top_token: String,
}

/// How the feature list is sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureOrder {
    /// Most often firing first.
    Density,
    /// The loss needs it most first.
    Importance,
}

/// A context a feature fires in: its tokens, the feature's activation at each, and which is the
/// strongest.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Context {
    pub tokens: Vec<String>,
    pub activations: Vec<f32>,
    pub at: usize,
}

/// A token and a logit.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TokenLogit {
    pub token: String,
    pub logit: f32,
}

/// Everything the dashboard shows of one feature.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct FeatureCard {
    pub summary: FeatureSummary,
    /// Its strongest contexts, strongest first.
    pub contexts: Vec<Context>,
    /// Counts of its activations in [`BINS`] equal bins from 0 to its max.
    pub histogram: Vec<u32>,
    /// The tokens its direction raises most through the unembedding, and lowers most.
    pub promoted: Vec<TokenLogit>,
    pub suppressed: Vec<TokenLogit>,
}

impl<W: Watch> Run<W> {
    /// Indexes the autoencoder's features on `batches` held-out batches (those the measures read).
    pub fn index_features(&self, batches: usize) -> Result<FeatureIndex> {
        let trainee = self.features.as_ref().ok_or_else(super::no_features)?.model();
        self.index_dictionary(trainee.sae().view(), trainee.model(), self.feature_rows(batches)?)
    }

    /// Indexes the features of `sae` (an autoencoder, or one layer's transcoder) on `model`'s
    /// activations of `rows`.
    pub fn index_dictionary(&self, sae: SaeRef, model: &GPT, rows: FeatureRows) -> Result<FeatureIndex> {
        let (d, m) = (sae.d_in(), sae.d_sae());
        let ws = Workspace::default();
        let mut firings = vec![Vec::new(); m];
        let mut importance = vec![0.0f64; m];
        let mut token = 0u32;
        for (idx, targets) in &rows.batches {
            let batch = Batch { idx, targets, b: rows.b, t: rows.t };
            let (x, grads) = model.activation_gradients(&ws, batch, sae.config().point, sae.config().writes())?;
            let codes = sae.encode(&ws, &x);
            for n in 0..codes.rows() {
                let g = &grads[n * d..(n + 1) * d];
                for (j, a) in codes.row(n) {
                    firings[j].push((token, a));
                    let along = sae.direction(j).iter().zip(g).map(|(w, g)| w * g).sum::<f32>();
                    importance[j] -= (a * along) as f64;
                }
                token += 1;
            }
        }
        let n = rows.batches.len().max(1) as f64;
        Ok(FeatureIndex { rows, firings, importance: importance.iter().map(|&i| (i / n) as f32).collect() })
    }

    /// Every feature in `order`.
    pub fn feature_list(&self, index: &FeatureIndex, order: FeatureOrder) -> Vec<FeatureSummary> {
        let mut list: Vec<FeatureSummary> = (0..index.firings.len()).map(|j| self.summary(index, j)).collect();
        let key = |s: &FeatureSummary| match order {
            FeatureOrder::Density => s.density,
            FeatureOrder::Importance => s.importance,
        };
        list.sort_by(|a, b| key(b).total_cmp(&key(a)).then(a.feature.cmp(&b.feature)));
        list
    }

    pub(crate) fn summary(&self, index: &FeatureIndex, j: usize) -> FeatureSummary {
        let strongest = index.firings[j].iter().max_by(|a, b| a.1.total_cmp(&b.1));
        let top_token = strongest.map_or_else(String::new, |&(n, _)| self.token(index.id(n as usize)));
        FeatureSummary {
            feature: j,
            density: index.density(j),
            max: index.max(j),
            importance: index.importance[j],
            top_token,
        }
    }

    /// The autoencoder's feature `j`'s card.
    pub fn feature_card(&self, index: &FeatureIndex, j: usize) -> Result<FeatureCard> {
        let trainee = self.features.as_ref().ok_or_else(super::no_features)?.model();
        self.dictionary_card(index, trainee.sae().view(), j)
    }

    /// The card of feature `j` of `sae`, which `index` indexes.
    pub fn dictionary_card(&self, index: &FeatureIndex, sae: SaeRef, j: usize) -> Result<FeatureCard> {
        if j >= index.firings.len() {
            return Err(Error::Data(dictionaries::no_feature(j, index.firings.len())));
        }
        let firings = &index.firings[j];
        let max = index.max(j);
        let mut histogram = vec![0u32; BINS];
        for &(_, a) in firings {
            let bin = ((a / max.max(f32::MIN_POSITIVE)) * BINS as f32) as usize;
            histogram[bin.min(BINS - 1)] += 1;
        }
        let mut strongest: Vec<(u32, f32)> = firings.clone();
        strongest.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let contexts = strongest.iter().take(TOP_CONTEXTS).map(|&(n, _)| self.context(index, j, n as usize)).collect();
        let (promoted, suppressed) = self.logit_effects(sae.direction(j));
        Ok(FeatureCard { summary: self.summary(index, j), contexts, histogram, promoted, suppressed })
    }

    /// The tokens around token `n` of the indexed rows (within its row), with feature `j`'s
    /// activation at each.
    fn context(&self, index: &FeatureIndex, j: usize, n: usize) -> Context {
        let t = index.rows.t;
        let row_start = n / t * t;
        let from = n.saturating_sub(BEFORE).max(row_start);
        let to = (n + AFTER + 1).min(row_start + t);
        let activation = |k: usize| {
            let found = index.firings[j].binary_search_by_key(&(k as u32), |&(token, _)| token);
            found.map_or(0.0, |i| index.firings[j][i].1)
        };
        Context {
            tokens: (from..to).map(|k| self.token(index.id(k))).collect(),
            activations: (from..to).map(activation).collect(),
            at: n - from,
        }
    }

    /// The tokens a direction in the stream raises and lowers most through the unembedding.
    fn logit_effects(&self, direction: &[f32]) -> (Vec<TokenLogit>, Vec<TokenLogit>) {
        let logits = self.model().unembed(direction);
        let mut order: Vec<usize> = (0..logits.len()).collect();
        order.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]).then(a.cmp(&b)));
        let list = |ids: &mut dyn Iterator<Item = &usize>| {
            ids.take(LOGIT_TOKENS).map(|&i| TokenLogit { token: self.token(i), logit: logits[i] }).collect()
        };
        (list(&mut order.iter()), list(&mut order.iter().rev()))
    }

    pub(crate) fn token(&self, id: usize) -> String {
        self.tokenizer.token_text(id as u32)
    }
}
