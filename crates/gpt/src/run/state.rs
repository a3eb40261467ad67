//! Reading a run: where it stands and what a page shows of it, and the parts a checkpoint saves.

use super::{Run, TaskDetails};
use crate::model::GPT;
use crate::optim::Optimizer;
use crate::rng::Rng;
use crate::sample::SampleConfig;
use crate::settings::{uniform_loss, Settings, DEFAULT_BPE_VOCAB};
use crate::tokenizer::{Tokenizer, TokenizerKind};
use crate::train::{History, TrainConfig};
use serde::Serialize;

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
    pub milestones: crate::train::Milestones,
}

/// What a page needs to show a run it has just created or opened.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Details<'a> {
    pub settings: Settings,
    pub history: &'a History,
    /// The byte-pair merges as the texts of the two tokens, in learned order (none for characters).
    pub merges: Vec<(String, String)>,
    pub last_sample: Option<&'a SampleConfig>,
    /// The task the run trains on, if it trains on one.
    pub task: Option<TaskDetails>,
    /// Why a tool's export leaves this run out, one sentence each (none: every tool holds it).
    pub left_out: Vec<String>,
}

impl Run {
    /// Its settings, history, merges and last sample.
    pub fn details(&self) -> Details<'_> {
        Details {
            settings: self.settings(),
            history: &self.history,
            merges: self.merges(),
            last_sample: self.last_sample.as_ref(),
            task: self.task_details(),
            left_out: crate::interop::left_out(self),
        }
    }

    /// Its whole state, as a checkpoint writes it.
    pub fn snapshot(&self) -> crate::checkpoint::Snapshot<'_> {
        crate::checkpoint::Snapshot {
            model: &self.model,
            tokenizer: &self.tokenizer,
            train: &self.train,
            optimizer: self.optimizer.as_ref(),
            step: self.step,
            rng: &self.rng,
            history: &self.history,
            sampling: self.last_sample.as_ref(),
            task: self.task().map(|t| t.config()),
        }
    }

    /// Where the run stands.
    pub fn status(&self) -> Status {
        Status {
            step: self.step,
            max_iters: self.train.max_iters,
            vocab_size: self.vocab_size(),
            uniform_loss: self.uniform_loss(),
            has_text: self.has_text(),
            eval_due: self.eval_due(),
            steps_to_next_eval: self.steps_to_next_eval(),
            workers: self.workers,
            shards: crate::work::shard_count(self.train.batch_size, self.seq_len()),
            params: self.model.params().count(),
            best_val_loss: self.history.evals.iter().map(|e| e.val_loss).reduce(f32::min),
            task: self.task().map(|t| t.config().name.clone()),
            milestones: self.milestones(),
        }
    }

    /// The settings this run was made with, as [`Run::create`] takes them. A character-level
    /// run has no byte-pair vocabulary of its own, so it shows the default one.
    pub fn settings(&self) -> Settings {
        let kind = self.tokenizer.kind();
        Settings {
            model: self.model.config().clone(),
            train: self.train.clone(),
            tokenizer: kind,
            bpe_vocab_size: if kind == TokenizerKind::Bpe { self.tokenizer.vocab_size() } else { DEFAULT_BPE_VOCAB },
            task: self.task().map(|t| t.config().clone()),
        }
    }

    pub fn model(&self) -> &GPT {
        &self.model
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    pub fn train_config(&self) -> &TrainConfig {
        &self.train
    }

    /// Every weight, piece by piece with its flat offset (what a
    /// [`Replica`](crate::work::Replica) computing shards needs).
    pub fn weights(&self) -> impl Iterator<Item = (usize, &[f32])> {
        self.model.params().flat_parts()
    }

    /// Its optimiser's state.
    pub fn optimizer(&self) -> &dyn Optimizer {
        self.optimizer.as_ref()
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
        self.step
    }

    /// The training random stream (batches and dropout), where it stands.
    pub fn rng(&self) -> &Rng {
        &self.rng
    }

    /// Every step's loss and every evaluation so far.
    pub fn history(&self) -> &History {
        &self.history
    }

    pub(crate) fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }

    /// The attention snapshots recorded at each evaluation in this session.
    pub fn timelapse(&self) -> &crate::inspect::snapshots::Timelapse {
        &self.timelapse
    }

    pub(crate) fn timelapse_mut(&mut self) -> &mut crate::inspect::snapshots::Timelapse {
        &mut self.timelapse
    }

    /// What the run trains on, if it has text or a task.
    pub(crate) fn dataset(&self) -> Option<&crate::data::Dataset> {
        self.data.as_ref()
    }

    /// The first block of held-out text, or a held-out problem: what the views read by default
    /// (none without text).
    pub(crate) fn held_out(&self) -> Vec<usize> {
        let probe = self.data.as_ref().map_or(vec![], |d| d.probe(self.model.config().block_size));
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
        self.train.batch_size * self.seq_len()
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
