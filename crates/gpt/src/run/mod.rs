//! A run: a GPT with its tokenizer, the text or task it trains on, its trainer (`train/`) and
//! its sampling, watched by the views inside the model ([`Watch`]). The page (through the
//! bindings) and the CLI both drive a run (the crate's `Run`); neither rebuilds any of its flows.
//! Here:
//!
//! - `mod.rs`: creating a run from text and settings, opening a checkpoint, attaching text, saving;
//! - `training.rs`: its trainer's jobs on its data, and what watches them at each evaluation;
//! - `sharing.rs`: the jobs it shares with the page's helpers, and what a helper holds;
//! - `adjust.rs`: what can change between steps, and text fitted to the vocabulary;
//! - `state.rs`: where a run stands and what a page shows of it; the parts a checkpoint saves;
//! - `generation.rs`: samples streamed token by token, and the next-token distribution;
//! - `problems.rs`: a task's problems with the model's answers, marked right or wrong;
//! - `features.rs`: a sparse autoencoder trained on the model;
//! - `feature_measures.rs`: SAELens's measures of it on held-out batches;
//! - `feature_index.rs`: what each feature means: where it fires, what the loss needs of it;
//! - `feature_edits.rs`: a feature knocked out, or added to steer generation;
//! - `feature_requests.rs`: the page's requests of the autoencoder, one entry point for them all;
//! - `transcoders.rs`: a transcoder per MLP, trained together, and the replacement model's measures.

mod adjust;
mod feature_edits;
mod feature_index;
mod feature_measures;
mod feature_requests;
mod features;
mod generation;
mod llc;
mod llc_records;
mod problems;
mod sharing;
mod state;
mod training;
mod transcoders;

pub use adjust::TextFit;
pub use feature_edits::{KnockOut, Steered, TokenFeatures, SHOWN_FLIPS};
pub use feature_index::{Context, FeatureCard, FeatureIndex, FeatureOrder, FeatureSummary, TokenLogit};
pub use feature_measures::{FeatureMeasures, FeatureRows};
pub use feature_requests::{DictionaryStart, FeatureAnswer, FeatureRequest, Standing, PAGE_BATCHES};
pub use llc::{LlcCurve, LlcPoint, LlcQuestion, LlcRequest, LlcSamples, LIVE, LIVE_BATCHES, LLC_ROWS};
pub(crate) use problems::{shown_example, shown_problems, MAX_SHOWN};
pub use problems::{Origin, Solution, TaskDetails};
pub use sharing::{DictionaryShape, HelperCopy, RunJob};
pub use state::{Details, Milestones, Onset, Status, TrainingCurve, GENERALISED};
pub use training::Watch;
pub use transcoders::{LayerMeasures, TranscoderMeasures};

use crate::checkpoint::{self, Checkpoint};
use crate::config::Budget;
use crate::data::{Dataset, TaskConfig, TaskData, TextData};
use crate::error::Result;
use crate::model::GPT;
use crate::sample::{SampleConfig, Sampler};
use crate::settings::Settings;
use crate::tokenizer::{SymbolTokenizer, Tokenizer};
use crate::train::{Batches, History, Trainer};
use crate::words::{dictionaries, files};

/// A model being trained or explored, watched by `W`. Every method that fails leaves the run as
/// it was.
pub struct Run<W> {
    pub(crate) tokenizer: Tokenizer,
    pub(crate) trainer: Trainer<GPT>,
    /// The last generation asked of this model; checkpoints keep it.
    pub(crate) last_sample: Option<SampleConfig>,
    /// The encoded text the run trains on (a checkpoint opens without one), or its task.
    pub(crate) data: Option<Dataset>,
    pub(crate) generation: Option<Generation>,
    /// What watches it train (the views inside the model), with what it keeps of this session.
    pub(crate) watch: W,
    /// A sparse autoencoder in training on the model (`features.rs`).
    pub(crate) features: Option<Trainer<crate::sae::SaeTrainee>>,
    /// Its features' index, built when the page first asks and kept until it trains again.
    pub(crate) feature_index: std::cell::OnceCell<FeatureIndex>,
    /// The frozen model's held-out loss as it is and with the point zeroed, over how many batches.
    pub(crate) feature_baseline: std::cell::Cell<Option<(usize, f32, f32)>>,
    /// Whose trainer the job under way is.
    pub(crate) job_of: JobOf,
    /// An LLC record whose chains are under way.
    pub(crate) record_job: Option<RecordJob>,
    /// A transcoder per MLP in training on the model (`transcoders.rs`).
    pub(crate) transcoders: Option<Trainer<crate::sae::SaeTrainee<crate::sae::Transcoders>>>,
    /// Each layer's transcoder's feature index, built when the page first asks, kept until they train again.
    pub(crate) transcoder_index: std::collections::HashMap<usize, FeatureIndex>,
    /// A model built by hand: its name, and the circuits it was built with (none for a trained one).
    pub(crate) built: Option<String>,
    pub(crate) known: Vec<crate::checkpoint::KnownCircuit>,
}

/// An LLC record whose chains are under way (`llc_records.rs`): what it is for, when it began,
/// and the estimate the view kept from before (a record is not the view's estimate).
pub(crate) struct RecordJob {
    of: RecordOf,
    started_ms: f64,
    kept: Option<crate::work::llc_plan::KeptLlc>,
}

/// What a record's chains are for.
enum RecordOf {
    /// The live record of this evaluation, which is done once the record is kept.
    Evaluation(crate::train::Evaluation),
    /// Each head's LLC at the live record of this step.
    Heads { step: usize },
}

/// Whose trainer the job under way is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum JobOf {
    #[default]
    Model,
    Autoencoder,
    Transcoders,
}

/// A sample being streamed: the sampler, the bytes of a character it has only partly produced,
/// and for byte pairs the tokens it may draw (those of bytes its text has), when it has a text.
pub(crate) struct Generation {
    pub(crate) sampler: Sampler,
    pub(crate) pending: Vec<u8>,
    pub(crate) of_seen_bytes: Option<Vec<bool>>,
}

impl<W: Watch> Run<W> {
    /// A new model for `text`, with a tokenizer fitted to it, seeded by `settings.train.seed`;
    /// or for `settings.task`, whose symbols and problems need no text.
    pub fn create(settings: &Settings, text: &str, budget: &Budget) -> Result<Run<W>> {
        // Settings are checked before the tokenizer, whose byte-pair training can take seconds.
        settings.resolve(settings.vocab_size(1), budget)?;
        let (tokenizer, data) = match &settings.task {
            Some(task) => task_data(task, settings.train.seed)?,
            None => {
                let tokenizer = Tokenizer::fit(settings.tokenizer, text, settings.bpe_vocab_size)?;
                let data = TextData::new(tokenizer.encode_text(text)?, settings.model.block_size)?;
                (tokenizer, Dataset::Text(data))
            }
        };
        let config = settings.resolve(tokenizer.vocab_size(), budget)?;
        let mut model = GPT::new(config, settings.train.seed)?;
        let known = crate::built::set_weights(settings, model.params_mut())?;
        let mut run = Run::assemble(tokenizer, Trainer::new(model, settings.train.clone()));
        run.data = Some(data);
        (run.built, run.known) = (settings.built.clone(), known);
        Ok(run)
    }

    /// Opens a checkpoint with everything it holds; it trains once text is attached with
    /// [`Run::use_text`] (a task's run at once), and samples, lists next tokens and shows
    /// attention without any.
    pub fn open(bytes: &[u8]) -> Result<Run<W>> {
        let c: Checkpoint = checkpoint::load(bytes)?;
        let data = match &c.task {
            Some(task) => {
                let invalid = |e: crate::Error| crate::Error::Format(files::invalid_task(e));
                let (tokenizer, data) = task_data(task, c.train.seed).map_err(invalid)?;
                if tokenizer != c.tokenizer {
                    return Err(crate::Error::Format(files::edited_vocab()));
                }
                Some(data)
            }
            None => None,
        };
        let trainer = Trainer::resume(c.model, c.train, c.step, c.history, c.optimizer, c.rng);
        let mut run = Run::assemble(c.tokenizer, trainer);
        run.data = data;
        run.last_sample = c.sampling;
        (run.built, run.known) = (c.built, c.known);
        if let Some(features) = c.features {
            run.restore_features(features)?;
        }
        if let Some(transcoders) = c.transcoders {
            run.restore_transcoders(transcoders)?;
        }
        Ok(run)
    }

    fn assemble(tokenizer: Tokenizer, mut trainer: Trainer<GPT>) -> Run<W> {
        trainer.history_mut().keep_records(W::RECORDS);
        Run {
            tokenizer,
            trainer,
            last_sample: None,
            data: None,
            generation: None,
            watch: W::default(),
            features: None,
            feature_index: Default::default(),
            feature_baseline: Default::default(),
            job_of: Default::default(),
            record_job: None,
            transcoders: None,
            transcoder_index: Default::default(),
            built: None,
            known: Vec::new(),
        }
    }

    /// Trains on `text` from now on. It must encode with the run's tokenizer and hold a block
    /// for both the training and the validation split. A task's run takes no text.
    pub fn use_text(&mut self, text: &str) -> Result<()> {
        if let Some(task) = self.task() {
            return Err(crate::data::no_text(task.config()));
        }
        let ids = self.tokenizer.encode_text(text)?;
        self.data = Some(Dataset::Text(TextData::new(ids, self.model().config().block_size)?));
        // Held-out rows of another text: the autoencoder's measures start afresh.
        self.feature_baseline.set(None);
        self.feature_index = Default::default();
        self.transcoder_index.clear();
        Ok(())
    }

    /// Whether text (or a task) is attached, so the run can train.
    pub fn has_text(&self) -> bool {
        self.data.is_some()
    }

    /// The task the run trains on, if it trains on one.
    pub fn task(&self) -> Option<&TaskData> {
        self.data.as_ref().and_then(Dataset::task)
    }

    /// Positions in each row of a batch: the block size, or a task's problem length.
    pub fn seq_len(&self) -> usize {
        let block = self.model().config().block_size;
        self.data.as_ref().map_or(block, |d| d.seq_len(block))
    }

    /// The whole state as a checkpoint file (see [`checkpoint`]).
    pub fn save(&self) -> Result<Vec<u8>> {
        checkpoint::save(&self.snapshot())
    }

    /// Every step's loss, every evaluation and what the views recorded at each.
    pub fn history(&self) -> &History {
        self.trainer.history()
    }
}

/// A task's symbols and its problems split by `seed`.
fn task_data(task: &TaskConfig, seed: u64) -> Result<(Tokenizer, Dataset)> {
    let data = TaskData::new(task, seed)?;
    let tokenizer = Tokenizer::Symbols(SymbolTokenizer::new(data.vocab().to_vec())?);
    Ok((tokenizer, Dataset::Task(data)))
}

/// The error for a request of an autoencoder the run has not begun.
pub(crate) fn no_features() -> crate::Error {
    crate::Error::Config(dictionaries::no_autoencoder())
}

/// The error for a request of transcoders the run has not begun.
pub(crate) fn no_transcoders() -> crate::Error {
    crate::Error::Config(dictionaries::no_transcoders())
}
