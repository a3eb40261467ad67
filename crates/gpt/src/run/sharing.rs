//! The work a run shares with the page's helpers: its model's steps and evaluations, and its
//! autoencoder's or transcoders' steps, each by its own trainer; and what a helper holds to do its
//! part ([`HelperCopy`]). Natively a run has no helpers and does all of it on its own threads.

use super::features::EveryPosition;
use super::training::{no_text, Watch};
use super::{no_features, no_transcoders};
use super::{JobOf, Run};
use crate::config::GPTConfig;
use crate::error::{Error, Result};
use crate::sae::{SaeConfig, SaeTrainee, Transcoders};
use crate::train::{JobKind, Outcome, Progress, Replica, Trainable, Trainer};
use crate::words::runs::bug;
use crate::work::{Data, Outgoing};
use crate::GPT;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A job the run shares: a step or an evaluation of its model, a step of its autoencoder or of
/// its transcoders, every edge of the circuit view's graph patched exactly for what the view
/// is asked (its questions, as the page sends them with the views inside the model), the
/// learning coefficient of the parts the view asks for, or every head's at the next live record
/// still waiting for it (the weights kept there travel with the plan).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum RunJob {
    Step,
    Evaluation,
    FeatureStep,
    TranscoderStep,
    Circuit(#[cfg_attr(feature = "ts", tsify(type = "Questions"))] serde_json::Value),
    Llc(super::llc::LlcQuestion),
    HeadsLlc,
}

/// What a helper's copy of a dictionary is built from: an autoencoder's settings, or the
/// settings of each of a set of transcoders (one per MLP).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "snake_case")]
pub enum DictionaryShape {
    Autoencoder(SaeConfig),
    Transcoders(SaeConfig),
}

/// A trainer's side of a shared job, whatever it trains.
trait Shared {
    fn advance(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress>;
    fn accept(&mut self, header: &str, len: usize, fill: &mut dyn FnMut(usize, &mut [f32])) -> Result<Vec<Outgoing>>;
    fn order_data(&self, data: &Data) -> Vec<&[f32]>;
}

impl<M: Trainable> Shared for Trainer<M> {
    fn advance(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        Trainer::advance(self, now_ms)
    }

    fn accept(&mut self, header: &str, len: usize, fill: &mut dyn FnMut(usize, &mut [f32])) -> Result<Vec<Outgoing>> {
        Trainer::accept(self, header, len, fill)
    }

    fn order_data(&self, data: &Data) -> Vec<&[f32]> {
        Trainer::order_data(self, data)
    }
}

impl<W: Watch> Run<W> {
    /// Begins `job`, shared with the helpers `helpers` names (each by an id of its own; none: all
    /// here), at `now_ms`: the orders to send them at once.
    pub fn begin(&mut self, job: RunJob, helpers: &[u32], now_ms: f64) -> Result<Progress> {
        self.abort();
        let data = self.data.as_ref().ok_or_else(no_text)?;
        self.job_of = match job {
            RunJob::FeatureStep => JobOf::Autoencoder,
            RunJob::TranscoderStep => JobOf::Transcoders,
            _ => JobOf::Model,
        };
        match job {
            RunJob::Step => self.trainer.begin(JobKind::Step, helpers, now_ms, data),
            RunJob::Evaluation => self.trainer.begin(JobKind::Evaluation, helpers, now_ms, data),
            RunJob::Circuit(questions) => match W::circuit_plan(self, &questions)? {
                Some(plan) => self.trainer.begin_edges(plan, helpers, now_ms),
                None => Progress::done(Outcome::Edges { edges: 0 }), // EAP-IG stands in
            },
            RunJob::Llc(question) => {
                let plan = self.llc_plan(&question.requests(), super::llc::BATCHES)?;
                self.trainer.begin_llc(plan, helpers, now_ms)
            }
            RunJob::HeadsLlc => self.begin_heads_llc(helpers, now_ms),
            RunJob::FeatureStep => {
                let trainer = self.features.as_mut().ok_or_else(no_features)?;
                self.feature_index = std::cell::OnceCell::new();
                trainer.begin(JobKind::Step, helpers, now_ms, &EveryPosition(data))
            }
            RunJob::TranscoderStep => {
                let trainer = self.transcoders.as_mut().ok_or_else(no_transcoders)?;
                self.transcoder_index.clear();
                trainer.begin(JobKind::Step, helpers, now_ms, &EveryPosition(data))
            }
        }
    }

    /// Takes the job a step further (see [`crate::train::Trainer::advance`]); once an evaluation
    /// is in, what watches the run measures the model, the live LLC record's chains shared too.
    pub fn advance(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        if self.job_of != JobOf::Model {
            return self.shared_mut()?.advance(now_ms);
        }
        let progress = self.trainer.advance(now_ms)?;
        match progress.outcome {
            Some(Outcome::Evaluation(evaluation)) => self.after_evaluation(evaluation, now_ms),
            Some(Outcome::Llc { .. }) if self.record_job.is_some() => self.record_done(now_ms),
            _ => Ok(progress),
        }
    }

    /// Takes a helper's reply in (its header, and `len` floats that `fill(at, out)` copies from
    /// its buffer): the orders it frees to send.
    pub fn accept(
        &mut self,
        header: &str,
        len: usize,
        mut fill: impl FnMut(usize, &mut [f32]),
    ) -> Result<Vec<Outgoing>> {
        self.shared_mut()?.accept(header, len, &mut fill)
    }

    /// The floats that go with an order, piece by piece, for the caller to copy into its buffer.
    pub fn order_data(&self, data: &Data) -> Vec<&[f32]> {
        let shared: Option<&dyn Shared> = match self.job_of {
            JobOf::Model => Some(&self.trainer),
            JobOf::Autoencoder => self.features.as_ref().map(|t| t as &dyn Shared),
            JobOf::Transcoders => self.transcoders.as_ref().map(|t| t as &dyn Shared),
        };
        shared.map_or_else(Vec::new, |s| s.order_data(data))
    }

    /// The trainer of the job under way.
    fn shared_mut(&mut self) -> Result<&mut dyn Shared> {
        Ok(match self.job_of {
            JobOf::Model => &mut self.trainer,
            JobOf::Autoencoder => self.features.as_mut().ok_or_else(no_features)?,
            JobOf::Transcoders => self.transcoders.as_mut().ok_or_else(no_transcoders)?,
        })
    }

    /// Gives up the job under way (a worker failed, or Pause came mid-evaluation).
    pub fn abort(&mut self) {
        self.drop_record();
        self.trainer.abort();
        if let Some(features) = &mut self.features {
            features.abort();
        }
        if let Some(transcoders) = &mut self.transcoders {
            transcoders.abort();
        }
    }
}

/// What a helper Web Worker holds: a copy of the run's model, or while the run trains an
/// autoencoder or transcoders a copy of those on a frozen model of the same shape. It answers its
/// trainer's orders, and the run's state fills it (the frozen model's weights among it).
pub enum HelperCopy {
    Model(Replica<GPT>),
    Features(Replica<SaeTrainee>),
    Transcoders(Replica<SaeTrainee<Transcoders>>),
}

impl HelperCopy {
    /// A copy of the model `config` describes or, with `dictionary`, of that dictionary on it.
    pub fn new(config: GPTConfig, dictionary: Option<DictionaryShape>) -> Result<HelperCopy> {
        Ok(match dictionary {
            None => HelperCopy::Model(Replica::new(GPT::new(config, 0)?)),
            Some(DictionaryShape::Autoencoder(features)) => {
                HelperCopy::Features(Replica::new(SaeTrainee::blank(config, features)?))
            }
            Some(DictionaryShape::Transcoders(each)) => {
                let model = GPT::new(config, 0)?;
                let (layers, d) = (model.config().n_layer, model.config().n_embd);
                let transcoders = Transcoders::new(each, layers, d, 0)?;
                let trainee = SaeTrainee::of(transcoders, Arc::new(model), 0, vec![0.0; layers])?;
                HelperCopy::Transcoders(Replica::new(trainee))
            }
        })
    }

    /// Answers an order of the model's trainer, or of its dictionary's when `dictionary` (see
    /// [`Replica::answer`]).
    pub fn answer(
        &mut self,
        header: &str,
        len: usize,
        read_data: impl FnMut(usize, &mut [f32]),
        dictionary: bool,
    ) -> Result<String> {
        match (self, dictionary) {
            (HelperCopy::Model(copy), false) => copy.answer(header, len, read_data),
            (HelperCopy::Features(copy), true) => copy.answer(header, len, read_data),
            (HelperCopy::Transcoders(copy), true) => copy.answer(header, len, read_data),
            (HelperCopy::Model(_), true) => Err(wrong_copy("the model", "its autoencoder or transcoders")),
            (_, false) => Err(wrong_copy("an autoencoder or transcoders", "the model")),
        }
    }

    /// The floats of the last reply, piece by piece.
    pub fn reply_data(&self) -> Vec<&[f32]> {
        match self {
            HelperCopy::Model(copy) => copy.reply_data(),
            HelperCopy::Features(copy) => copy.reply_data(),
            HelperCopy::Transcoders(copy) => copy.reply_data(),
        }
    }
}

fn wrong_copy(held: &str, asked: &str) -> Error {
    Error::Config(bug(format!(
        "this worker holds a copy of {held}, and the order is for {asked}: the run must send its shape"
    )))
}
