//! The work a run shares with the page's helpers: its model's steps and evaluations, and its
//! autoencoder's steps, each by its own trainer; and what a helper holds to do its part
//! ([`HelperCopy`]). Natively a run has no helpers and does all of it on its own threads.

use super::features::EveryPosition;
use super::no_features;
use super::training::{no_text, Watch};
use super::Run;
use crate::config::GPTConfig;
use crate::error::{Error, Result};
use crate::sae::{SaeConfig, SaeTrainee};
use crate::train::{JobKind, Outcome, Progress, Replica};
use crate::work::{Data, Outgoing};
use crate::GPT;
use serde::{Deserialize, Serialize};

/// A job the run shares: a step or an evaluation of its model, a step of its autoencoder, or
/// every edge of the circuit view's graph patched exactly for what the view is asked (its
/// questions, as the page sends them with the views inside the model).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum RunJob {
    Step,
    Evaluation,
    FeatureStep,
    Circuit(#[cfg_attr(feature = "ts", tsify(type = "Questions"))] serde_json::Value),
}

impl<W: Watch> Run<W> {
    /// Begins `job`, shared with the helpers `helpers` names (each by an id of its own; none: all
    /// here), at `now_ms`: the orders to send them at once.
    pub fn begin(&mut self, job: RunJob, helpers: &[u32], now_ms: f64) -> Result<Progress> {
        self.abort();
        let data = self.data.as_ref().ok_or_else(no_text)?;
        self.features_job = job == RunJob::FeatureStep;
        match job {
            RunJob::Step => self.trainer.begin(JobKind::Step, helpers, now_ms, data),
            RunJob::Evaluation => self.trainer.begin(JobKind::Evaluation, helpers, now_ms, data),
            RunJob::Circuit(questions) => match W::circuit_plan(self, &questions)? {
                Some(plan) => self.trainer.begin_edges(plan, helpers, now_ms),
                None => Progress::done(Outcome::Edges { edges: 0 }), // EAP-IG stands in
            },
            RunJob::FeatureStep => {
                let trainer = self.features.as_mut().ok_or_else(no_features)?;
                self.feature_index = std::cell::OnceCell::new();
                trainer.begin(JobKind::Step, helpers, now_ms, &EveryPosition(data))
            }
        }
    }

    /// Takes the job a step further (see [`crate::train::Trainer::advance`]); once an evaluation
    /// is done, what watches the run measures the model.
    pub fn advance(&mut self, now_ms: &dyn Fn() -> f64) -> Result<Progress> {
        if self.features_job {
            return self.features.as_mut().ok_or_else(no_features)?.advance(now_ms);
        }
        let progress = self.trainer.advance(now_ms)?;
        if matches!(progress.outcome, Some(Outcome::Evaluation(_))) {
            let start = now_ms();
            W::evaluated(self)?;
            self.trainer.timing.records_ms += now_ms() - start;
        }
        Ok(progress)
    }

    /// Takes a helper's reply in (its header, and `len` floats that `fill(at, out)` copies from
    /// its buffer): the orders it frees to send.
    pub fn accept(&mut self, header: &str, len: usize, fill: impl FnMut(usize, &mut [f32])) -> Result<Vec<Outgoing>> {
        match (self.features_job, self.features.as_mut()) {
            (true, Some(features)) => features.accept(header, len, fill),
            (true, None) => Err(no_features()),
            (false, _) => self.trainer.accept(header, len, fill),
        }
    }

    /// The floats that go with an order, piece by piece, for the caller to copy into its buffer.
    pub fn order_data(&self, data: &Data) -> Vec<&[f32]> {
        match (self.features_job, &self.features) {
            (true, Some(features)) => features.order_data(data),
            (true, None) => vec![],
            (false, _) => self.trainer.order_data(data),
        }
    }

    /// Gives up the job under way (a worker failed, or Pause came mid-evaluation).
    pub fn abort(&mut self) {
        self.trainer.abort();
        if let Some(features) = &mut self.features {
            features.abort();
        }
    }
}

/// What a helper Web Worker holds: a copy of the run's model, or while the run trains an
/// autoencoder a copy of that on a frozen model of the same shape. It answers its trainer's
/// orders, and the run's state fills it (the frozen model's weights among it).
pub enum HelperCopy {
    Model(Replica<GPT>),
    Features(Replica<SaeTrainee>),
}

impl HelperCopy {
    /// A copy of the model `config` describes or, with `features`, of an autoencoder on it.
    pub fn new(config: GPTConfig, features: Option<SaeConfig>) -> Result<HelperCopy> {
        Ok(match features {
            None => HelperCopy::Model(Replica::new(GPT::new(config, 0)?)),
            Some(features) => HelperCopy::Features(Replica::new(SaeTrainee::blank(config, features)?)),
        })
    }

    /// Answers an order of the model's trainer, or of the autoencoder's when `features` (see
    /// [`Replica::answer`]).
    pub fn answer(
        &mut self,
        header: &str,
        len: usize,
        read_data: impl FnMut(usize, &mut [f32]),
        features: bool,
    ) -> Result<String> {
        match (self, features) {
            (HelperCopy::Model(copy), false) => copy.answer(header, len, read_data),
            (HelperCopy::Features(copy), true) => copy.answer(header, len, read_data),
            (HelperCopy::Model(_), true) => Err(wrong_copy("the model", "its autoencoder")),
            (HelperCopy::Features(_), false) => Err(wrong_copy("an autoencoder", "the model")),
        }
    }

    /// The floats of the last reply, piece by piece.
    pub fn reply_data(&self) -> Vec<&[f32]> {
        match self {
            HelperCopy::Model(copy) => copy.reply_data(),
            HelperCopy::Features(copy) => copy.reply_data(),
        }
    }
}

fn wrong_copy(held: &str, asked: &str) -> Error {
    Error::Config(format!(
        "this worker holds a copy of {held}, and the order is for {asked}: the run must send its shape"
    ))
}
