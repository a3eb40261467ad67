//! What the page asks of a run's sparse autoencoder, as one request at a time (so the bindings
//! need one entry point): begin one, report its steps (which the page shares with its helpers as
//! [`super::RunJob::FeatureStep`]s), measure it, list its features, show a card, find the
//! features on a typed text, knock one out, steer with one. The feature index the
//! list and the cards read is kept until the autoencoder trains again.

use super::feature_index::{FeatureCard, FeatureOrder, FeatureSummary};
use super::feature_measures::FeatureMeasures;
use super::training::Watch;
use super::{DictionaryShape, RunJob};
use super::{KnockOut, Run, Steered, TokenFeatures};
use crate::error::{Error, Result};
use crate::sae::{Dictionaries, SaeConfig, SaeTrainee};
use crate::train::{TrainReport, Trainer};
use crate::words::dictionaries;
use crate::SampleConfig;
use serde::{Deserialize, Serialize};

/// Held-out batches the page's measures and views read.
pub const PAGE_BATCHES: usize = 2;

/// One thing the page asks of the autoencoder.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum FeatureRequest {
    /// A fresh autoencoder.
    Start(DictionaryStart),
    /// What the steps since the last report did, with the measures when `measure` or once it is
    /// done.
    Report {
        measure: bool,
    },
    Measure,
    /// The first `top` features, by `order`: "density" or "importance".
    List {
        order: String,
        top: usize,
    },
    Card {
        feature: usize,
    },
    Which {
        text: String,
    },
    KnockOut {
        feature: usize,
    },
    Steer {
        feature: usize,
        strength: f32,
        sample: SampleConfig,
    },
}

/// Where a dictionary's training stands, in every answer about it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Standing {
    /// Steps taken, and the steps it trains for; the step of the model it reads.
    pub step: usize,
    pub steps: usize,
    pub model_step: usize,
    /// Each dictionary's features, and the model's channels it reads.
    pub d_sae: usize,
    pub d_in: usize,
    /// What a helper's copy is built from, the job that steps it, and the shards of each step.
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub copy: Option<DictionaryShape>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub job: Option<RunJob>,
    pub shards: usize,
}

impl Standing {
    /// Where `trainer` stands on a run of rows of `seq_len` tokens; `copy` builds a helper's copy.
    pub fn of<D: Dictionaries>(trainer: &Trainer<SaeTrainee<D>>, seq_len: usize, copy: DictionaryShape) -> Standing {
        let (first, train) = (trainer.model().dictionaries().each()[0], trainer.train_config());
        let job = match copy {
            DictionaryShape::Autoencoder(_) => RunJob::FeatureStep,
            DictionaryShape::Transcoders(_) => RunJob::TranscoderStep,
        };
        Standing {
            step: trainer.step_count(),
            steps: train.max_iters,
            model_step: trainer.model().model_step(),
            d_sae: first.d_sae(),
            d_in: first.d_in(),
            copy: Some(copy),
            job: Some(job),
            shards: crate::work::shard_count(train.batch_size, seq_len),
        }
    }
}

/// A fresh dictionary by `config` (for transcoders, each one's), to train `steps` steps of `rows`
/// rows at `learning_rate`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct DictionaryStart {
    pub config: SaeConfig,
    pub rows: usize,
    pub steps: usize,
    pub learning_rate: f32,
    pub seed: u64,
}

impl DictionaryStart {
    /// How it trains.
    pub fn recipe(&self) -> crate::config::TrainConfig {
        crate::sae::recipe(self.rows, self.steps, self.learning_rate, self.seed)
    }
}

/// What the autoencoder answered; only the field the request asks for is filled, beside where its
/// training stands.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct FeatureAnswer {
    #[serde(flatten)]
    pub standing: Standing,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub report: Option<TrainReport>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub measures: Option<FeatureMeasures>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub list: Option<Vec<FeatureSummary>>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub card: Option<FeatureCard>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub which: Option<Vec<TokenFeatures>>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub knock_out: Option<KnockOut>,
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub steered: Option<Steered>,
    /// Every training step's loss so far (with a measure asked for alone: the curve to redraw,
    /// after a reload too).
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub losses: Option<Vec<f32>>,
}

impl<W: Watch> Run<W> {
    /// Answers `request`; a failed request changes nothing.
    pub fn features_do(&mut self, request: FeatureRequest) -> Result<FeatureAnswer> {
        let mut answer = FeatureAnswer::default();
        match request {
            FeatureRequest::Start(start) => {
                self.start_features(start.config, start.recipe(), 1)?;
                self.feature_index = std::cell::OnceCell::new();
            }
            FeatureRequest::Report { measure } => {
                let report = self.features.as_mut().ok_or_else(super::no_features)?.take_report();
                if measure || report.step >= report.max_iters {
                    answer.measures = Some(self.feature_measures(PAGE_BATCHES)?);
                }
                answer.report = Some(report);
            }
            FeatureRequest::Measure => {
                answer.measures = Some(self.feature_measures(PAGE_BATCHES)?);
                answer.losses = self.features.as_ref().map(|t| t.history().losses.clone());
            }
            FeatureRequest::List { order, top } => {
                let order = match order.as_str() {
                    "density" => FeatureOrder::Density,
                    "importance" => FeatureOrder::Importance,
                    other => return Err(Error::Config(dictionaries::feature_order(format!("{other:?}")))),
                };
                let list = self.feature_list(self.indexed_features()?, order);
                answer.list = Some(list.into_iter().take(top).collect());
            }
            FeatureRequest::Card { feature } => {
                answer.card = Some(self.feature_card(self.indexed_features()?, feature)?)
            }
            FeatureRequest::Which { text } => answer.which = Some(self.features_at(&text)?),
            FeatureRequest::KnockOut { feature } => {
                answer.knock_out = Some(self.knock_out_feature(feature, PAGE_BATCHES)?)
            }
            FeatureRequest::Steer { feature, strength, sample } => {
                answer.steered = Some(self.steer(feature, strength, sample)?)
            }
        }
        let trainer = self.features.as_ref().ok_or_else(super::no_features)?;
        let copy = DictionaryShape::Autoencoder(*trainer.model().sae().config());
        answer.standing = Standing::of(trainer, self.seq_len(), copy);
        Ok(answer)
    }

    /// The feature index of the autoencoder as it is, built once and kept.
    fn indexed_features(&self) -> Result<&super::FeatureIndex> {
        if let Some(index) = self.feature_index.get() {
            return Ok(index);
        }
        let index = self.index_features(PAGE_BATCHES)?;
        Ok(self.feature_index.get_or_init(|| index))
    }
}
