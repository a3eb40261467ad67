//! A run: one model with its tokenizer, optimiser state, settings, history and the text it trains
//! on. The page (through the bindings) and the CLI both drive a [`Run`]; neither rebuilds any of
//! its flows. Each concern's flows live with the concern, as `impl Run` blocks: training and
//! evaluating in `train/`, sharing work with helpers in `work/`, generating in `sample/`, looking
//! inside in `inspect/`. Here:
//!
//! - `mod.rs`: creating a run from text and settings, opening a checkpoint, attaching text, saving;
//! - `adjust.rs`: what can change between steps, and text fitted to the vocabulary;
//! - `state.rs`: where a run stands and what a page shows of it; the parts a checkpoint saves;
//! - `problems.rs`: a task's problems with the model's answers, marked right or wrong.

mod adjust;
mod problems;
mod state;

pub use adjust::TextFit;
pub(crate) use problems::{shown_example, shown_problems, MAX_SHOWN};
pub use problems::{Origin, Solution, TaskDetails};
pub use state::{Details, Status};

use crate::checkpoint::{self, Checkpoint};
use crate::config::Budget;
use crate::data::{Dataset, TaskConfig, TaskData, TextData};
use crate::error::Result;
use crate::model::GPT;
use crate::optim::Optimizer;
use crate::rng::Rng;
use crate::sample::{SampleConfig, Sampler};
use crate::settings::Settings;
use crate::tokenizer::{SymbolTokenizer, Tokenizer};
use crate::train::{History, TrainConfig};
use crate::workspace::Workspace;

/// Separate random streams, so that evaluating never changes which batches training sees.
const TRAIN_STREAM: u64 = 0x7472_6169_6e00_0001;

/// A model being trained or explored. Every method that fails leaves the run as it was.
pub struct Run {
    pub(crate) tokenizer: Tokenizer,
    pub(crate) model: GPT,
    pub(crate) optimizer: Box<dyn Optimizer>,
    pub(crate) train: TrainConfig,
    pub(crate) step: usize,
    pub(crate) rng: Rng,
    pub(crate) history: History,
    /// The last generation asked of this model; checkpoints keep it.
    pub(crate) last_sample: Option<SampleConfig>,
    /// The encoded text the run trains on (a checkpoint opens without one), or its task.
    pub(crate) data: Option<Dataset>,
    pub(crate) generation: Option<Generation>,
    pub(crate) timing: crate::train::timing::Timing,
    /// The step or evaluation under way, if any (see `sharing.rs`).
    pub(crate) job: Option<crate::work::job::Job>,
    /// Jobs begun so far, which number them.
    pub(crate) jobs: u64,
    /// How many compute each step: the run's threads and its helpers.
    pub(crate) workers: usize,
    /// One op-buffer pool per thread.
    pub(crate) workspaces: Vec<Workspace>,
    /// Gradient buffers, shared by the threads.
    pub(crate) grad_pool: Workspace,
    /// Each helper's id (the page's), and the step its copy of the model and optimiser is at,
    /// where the run is sure of it.
    pub(crate) synced: Vec<(u32, Option<usize>)>,
    /// Attention snapshots from each evaluation in this session (not saved: they are large).
    pub(crate) timelapse: crate::inspect::snapshots::Timelapse,
}

/// A sample being streamed: the sampler, the bytes of a character it has only partly produced,
/// and for byte pairs the tokens it may draw (those of bytes its text has), when it has a text.
pub(crate) struct Generation {
    pub(crate) sampler: Sampler,
    pub(crate) pending: Vec<u8>,
    pub(crate) of_seen_bytes: Option<Vec<bool>>,
}

impl Run {
    /// A new model for `text`, with a tokenizer fitted to it, seeded by `settings.train.seed`;
    /// or for `settings.task`, whose symbols and problems need no text.
    pub fn create(settings: &Settings, text: &str, budget: &Budget) -> Result<Run> {
        // Settings are checked before the tokenizer, whose byte-pair training can take seconds.
        settings.resolve(settings.vocab_size(1), budget)?;
        let (tokenizer, data) = match &settings.task {
            Some(task) => Run::task_data(task, settings.train.seed)?,
            None => {
                let tokenizer = Tokenizer::fit(settings.tokenizer, text, settings.bpe_vocab_size)?;
                let data = TextData::new(tokenizer.encode_text(text)?, settings.model.block_size)?;
                (tokenizer, Dataset::Text(data))
            }
        };
        let config = settings.resolve(tokenizer.vocab_size(), budget)?;
        let model = GPT::new(config, settings.train.seed)?;
        let mut run = Run::assemble(tokenizer, model, settings.train.clone());
        run.data = Some(data);
        Ok(run)
    }

    /// A task's symbols and its problems split by `seed`.
    fn task_data(task: &TaskConfig, seed: u64) -> Result<(Tokenizer, Dataset)> {
        let data = TaskData::new(task, seed)?;
        let tokenizer = Tokenizer::Symbols(SymbolTokenizer::new(data.vocab().to_vec())?);
        Ok((tokenizer, Dataset::Task(data)))
    }

    /// Opens a checkpoint with everything it holds; it trains once text is attached with
    /// [`Run::use_text`] (a task's run at once), and samples, lists next tokens and shows
    /// attention without any.
    pub fn open(bytes: &[u8]) -> Result<Run> {
        let c: Checkpoint = checkpoint::load(bytes)?;
        let data = match &c.task {
            Some(task) => {
                let invalid =
                    |e: crate::Error| crate::Error::Format(format!("the checkpoint's `task` is invalid: {e}"));
                let (tokenizer, data) = Run::task_data(task, c.train.seed).map_err(invalid)?;
                if tokenizer != c.tokenizer {
                    return Err(crate::Error::Format(
                        "the checkpoint's `vocab` is not the symbols of its `task`: the file was edited".into(),
                    ));
                }
                Some(data)
            }
            None => None,
        };
        let mut run = Run::assemble(c.tokenizer, c.model, c.train);
        run.data = data;
        if let Some(optimizer) = c.optimizer {
            run.optimizer = optimizer;
        }
        if let Some(rng) = c.rng {
            run.rng = rng;
        }
        (run.step, run.history, run.last_sample) = (c.step, c.history, c.sampling);
        Ok(run)
    }

    fn assemble(tokenizer: Tokenizer, model: GPT, train: TrainConfig) -> Run {
        let optimizer = Run::fresh_optimizer(&model, &train);
        let rng = Rng::new(train.seed ^ TRAIN_STREAM);
        Run {
            tokenizer,
            model,
            optimizer,
            train,
            step: 0,
            rng,
            history: History::default(),
            last_sample: None,
            data: None,
            generation: None,
            timing: Default::default(),
            job: None,
            jobs: 0,
            workers: 1,
            workspaces: vec![Workspace::default()],
            grad_pool: Workspace::default(),
            synced: vec![],
            timelapse: Default::default(),
        }
    }

    /// Trains on `text` from now on. It must encode with the run's tokenizer and hold a block
    /// for both the training and the validation split. A task's run takes no text.
    pub fn use_text(&mut self, text: &str) -> Result<()> {
        if let Some(task) = self.task() {
            return Err(crate::data::no_text(task.config()));
        }
        let ids = self.tokenizer.encode_text(text)?;
        self.data = Some(Dataset::Text(TextData::new(ids, self.model.config().block_size)?));
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
        let block = self.model.config().block_size;
        self.data.as_ref().map_or(block, |d| d.seq_len(block))
    }

    /// The whole state as a checkpoint file (see [`checkpoint`]).
    pub fn save(&self) -> Result<Vec<u8>> {
        checkpoint::save(&self.snapshot())
    }

    /// Changes how often and over how many batches the run evaluates; `None` keeps a setting.
    /// Evaluation draws its own batches, so this never changes what training does.
    pub fn set_evaluation(&mut self, interval: Option<usize>, iters: Option<usize>) {
        self.train.eval_interval = interval.or(self.train.eval_interval);
        self.train.eval_iters = iters.unwrap_or(self.train.eval_iters);
    }

    /// Zeroed optimiser state for `model` trained by `train`.
    fn fresh_optimizer(model: &GPT, train: &TrainConfig) -> Box<dyn Optimizer> {
        let kind = train.kind().unwrap_or(crate::optim::OPTIMIZERS[0]);
        (kind.create)(model.params(), &train.hyper())
    }
}
