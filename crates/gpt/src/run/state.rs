//! Reading a run: where it stands and what a page shows of it, and the parts a checkpoint saves.

use super::{LlcCurve, Run, TaskDetails, Watch};
use crate::checkpoint::KnownCircuit;
use crate::config::TrainConfig;
use crate::model::{uniform_loss, GPT};
use crate::optim::Optimizer;
use crate::rng::Rng;
use crate::sample::SampleConfig;
use crate::settings::{Settings, DEFAULT_BPE_VOCAB};
use crate::tokenizer::{Tokenizer, TokenizerKind};
use crate::train::Evaluation;
use crate::work::edge_plan::Corruption;
use serde::Serialize;

/// Held-out accuracy at which a task counts as solved for the chart's mark.
pub const GENERALISED: f32 = 0.95;

/// Where a run stands, as a page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Status {
    pub step: usize,
    pub max_iters: usize,
    pub vocab_size: usize,
    pub uniform_loss: f32,
    pub has_text: bool,
    pub eval_due: bool,
    pub steps_to_next_eval: usize,
    pub workers: usize,
    /// Shards per step: more workers than this have nothing to do.
    pub shards: usize,
    /// Trainable scalars: the length of a flat buffer of weights or gradients.
    pub params: usize,
    /// The lowest validation loss of any evaluation so far.
    pub best_val_loss: Option<f32>,
    /// The task it trains on, if it trains on one (it takes no text then).
    pub task: Option<String>,
    /// The moments the loss chart marks: an induction head's onset; a task's accuracy reaching
    /// 100% on training problems and 95% on held-out ones.
    pub milestones: Milestones,
    /// The share of this session's training time the views' records took, 0 to 1: after an
    /// evaluation, what its records added.
    pub records_share: f64,
}

/// The moments the loss chart marks: when an induction head first formed, and for a task the
/// first evaluation that answered every training problem right and the first that answered
/// [`GENERALISED`] of held-out ones right (grokking shows as a long gap between the two); and the
/// learning coefficient's live curve, whose turns it marks.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Milestones {
    pub induction: Option<Onset>,
    /// The step the circuit view's circuit formed.
    pub circuit: Option<usize>,
    pub memorised: Option<usize>,
    pub generalised: Option<usize>,
    /// The learning coefficient's live records, their setting and where the curve turned.
    pub llc: LlcCurve,
}

/// When an induction head first formed: the step, the head, and its induction score then.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Onset {
    pub step: usize,
    pub layer: usize,
    pub head: usize,
    pub score: f32,
}

/// What a page needs to show a run it has just created or opened.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Details<'a> {
    pub settings: Settings,
    pub history: TrainingCurve<'a>,
    /// The byte-pair merges as the texts of the two tokens, in learned order (none for characters).
    pub merges: Vec<(String, String)>,
    pub last_sample: Option<&'a SampleConfig>,
    /// The task the run trains on, if it trains on one.
    pub task: Option<TaskDetails>,
}

/// The loss chart's part of the history: every step's loss and training time, every evaluation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TrainingCurve<'a> {
    pub losses: &'a [f32],
    pub evals: &'a [Evaluation],
    /// Each step's training time since the first step, in seconds ([`History::seconds`](crate::train::History::seconds)).
    pub seconds: &'a [f32],
}

impl<W: Watch> Run<W> {
    /// Its settings, loss curve, merges and last sample.
    pub fn details(&self) -> Details<'_> {
        let history = self.history();
        Details {
            settings: self.settings(),
            history: TrainingCurve { losses: &history.losses, evals: &history.evals, seconds: &history.seconds },
            merges: self.merges(),
            last_sample: self.last_sample.as_ref(),
            task: self.task_details(),
        }
    }

    /// Its whole state, as a checkpoint writes it.
    pub fn snapshot(&self) -> crate::checkpoint::Snapshot<'_> {
        crate::checkpoint::Snapshot {
            model: self.model(),
            tokenizer: &self.tokenizer,
            train: self.train_config(),
            optimizer: self.trainer.optimizer(),
            step: self.step_count(),
            rng: self.trainer.rng(),
            history: self.history(),
            sampling: self.last_sample.as_ref(),
            task: self.task().map(|t| t.config()),
            features: self.features.as_ref().map(|t| super::features::snapshot(t, self.step_count())),
            transcoders: self.transcoders.as_ref().map(|t| super::features::snapshot(t, self.step_count())),
            built: self.built.as_deref(),
            known: &self.known,
        }
    }

    /// Where the run stands.
    pub fn status(&self) -> Status {
        let train = self.train_config();
        Status {
            step: self.step_count(),
            max_iters: train.max_iters,
            vocab_size: self.vocab_size(),
            uniform_loss: self.uniform_loss(),
            has_text: self.has_text(),
            eval_due: self.eval_due(),
            steps_to_next_eval: self.steps_to_next_eval(),
            workers: self.workers(),
            shards: crate::work::shard_count(train.batch_size, self.seq_len()),
            params: self.model().params().count(),
            best_val_loss: self.history().evals.iter().map(|e| e.val_loss).reduce(f32::min),
            task: self.task().map(|t| t.config().name.clone()),
            milestones: self.milestones(),
            records_share: self.trainer.records_share(),
        }
    }

    /// The moments the loss chart marks: an induction head's onset and a circuit's forming (what
    /// watches the run says),
    /// and a task's accuracy marks (none for a text).
    pub fn milestones(&self) -> Milestones {
        let evals = &self.history().evals;
        let first = |reached: &dyn Fn(&Evaluation) -> bool| evals.iter().find(|e| reached(e)).map(|e| e.step);
        Milestones {
            induction: W::induction_onset(self),
            circuit: W::circuit_formed(self),
            memorised: first(&|e| e.train_accuracy.is_some_and(|a| a >= 1.0)),
            generalised: first(&|e| e.val_accuracy.is_some_and(|a| a >= GENERALISED)),
            llc: self.llc_curve(),
        }
    }

    /// The settings this run was made with, as [`Run::create`] takes them. A character-level
    /// run has no byte-pair vocabulary of its own, so it shows the default one.
    pub fn settings(&self) -> Settings {
        let kind = self.tokenizer.kind();
        Settings {
            model: self.model().config().clone(),
            train: self.train_config().clone(),
            tokenizer: kind,
            bpe_vocab_size: if kind == TokenizerKind::Bpe { self.tokenizer.vocab_size() } else { DEFAULT_BPE_VOCAB },
            task: self.task().map(|t| t.config().clone()),
            built: self.built.clone(),
        }
    }

    /// The circuit it was built with under `corruption`, if it was built by hand.
    pub fn known_circuit(&self, corruption: Corruption) -> Option<&KnownCircuit> {
        self.known.iter().find(|k| k.corruption == corruption)
    }

    pub fn model(&self) -> &GPT {
        self.trainer.model()
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    pub fn train_config(&self) -> &TrainConfig {
        self.trainer.train_config()
    }

    /// Every weight, piece by piece with its flat offset (what a
    /// [`Replica`](crate::train::Replica) computing shards needs).
    pub fn weights(&self) -> impl Iterator<Item = (usize, &[f32])> {
        self.model().params().flat_parts()
    }

    /// Its optimiser's state.
    pub fn optimizer(&self) -> &dyn Optimizer {
        self.trainer.optimizer()
    }

    /// The text's token ids, split 90/10 as training splits them (none for a task or before a text).
    pub fn text_data(&self) -> Option<&crate::data::TextData> {
        match &self.data {
            Some(crate::data::Dataset::Text(text)) => Some(text),
            _ => None,
        }
    }

    /// Steps completed so far.
    pub fn step_count(&self) -> usize {
        self.trainer.step_count()
    }

    /// The training random stream (batches and dropout), where it stands.
    pub fn rng(&self) -> &Rng {
        self.trainer.rng()
    }

    /// What the run trains on, if it has text or a task.
    pub(crate) fn dataset(&self) -> Option<&crate::data::Dataset> {
        self.data.as_ref()
    }

    /// The first block of held-out text, or a held-out problem: what the views read by default
    /// (none without text).
    pub(crate) fn held_out(&self) -> Vec<usize> {
        let probe = self.data.as_ref().map_or(vec![], |d| d.probe(self.model().config().block_size));
        probe.into_iter().map(|t| t as usize).collect()
    }

    /// The last generation's prompt and settings, if the model was sampled from.
    pub fn last_sample(&self) -> Option<&SampleConfig> {
        self.last_sample.as_ref()
    }

    /// Remembers `config` as the last generation (the CLI's default for a later `sample`).
    pub fn set_last_sample(&mut self, config: SampleConfig) {
        self.last_sample = Some(config);
    }

    pub fn vocab_size(&self) -> usize {
        self.tokenizer.vocab_size()
    }

    /// The loss of a uniform guess over the vocabulary, where an untrained model starts.
    pub fn uniform_loss(&self) -> f32 {
        uniform_loss(self.vocab_size())
    }

    /// Tokens in one batch.
    pub fn tokens_per_step(&self) -> usize {
        self.train_config().batch_size * self.seq_len()
    }

    /// The byte-pair merges in the order they were learned, as the texts of the two tokens
    /// (empty for a character vocabulary).
    pub fn merges(&self) -> Vec<(String, String)> {
        match &self.tokenizer {
            Tokenizer::Bpe(bpe) => bpe
                .merges()
                .iter()
                .map(|&(a, b)| (self.tokenizer.token_text(a), self.tokenizer.token_text(b)))
                .collect(),
            Tokenizer::Char(_) | Tokenizer::Symbols(_) => vec![],
        }
    }
}
