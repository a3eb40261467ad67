//! The trainer: one model (any [`Trainable`]) with its optimiser, recipe, step count, random
//! stream, history and timing, and the job under way. It trains as nanoGPT's `train.py` does,
//! a step and an evaluation at a time, each a job shared with helpers (`sharing.rs`); how the work
//! is spread (threads natively, Web Workers in the page) never changes a bit of the result.

use super::history::History;
use super::timing::Timing;
use super::trainable::Trainable;
use crate::config::TrainConfig;
use crate::error::Result;
use crate::optim::{complete, Optimizer, ParamRate};
use crate::params::Params;
use crate::rng::Rng;
use crate::work::edge_plan::ScoredEdges;
use crate::work::job::Job;
use crate::work::llc_plan::KeptLlc;
use crate::work::Partial;
use crate::workspace::Workspace;

/// Separate random streams, so that evaluating never changes which batches training sees.
const TRAIN_STREAM: u64 = 0x7472_6169_6e00_0001;

/// A model being trained, and everything its training keeps.
pub struct Trainer<M> {
    pub(crate) model: M,
    pub(crate) optimizer: Box<dyn Optimizer>,
    pub(crate) train: TrainConfig,
    /// Steps completed so far.
    pub(crate) step: usize,
    /// The training stream (batches and dropout), where it stands.
    pub(crate) rng: Rng,
    pub(crate) history: History,
    pub(crate) timing: Timing,
    /// The step or evaluation under way, if any (see `sharing.rs`).
    pub(crate) job: Option<Job>,
    /// Jobs begun so far, which number them.
    pub(crate) jobs: u64,
    /// Whether the evaluation under way counts the rows answered exactly right (a task's).
    pub(crate) scores_answers: bool,
    /// How many compute each step: the trainer's threads and its helpers.
    pub(crate) workers: usize,
    /// One op-buffer pool per thread.
    pub(crate) workspaces: Vec<Workspace>,
    /// Gradient buffers, shared by the threads.
    pub(crate) grad_pool: Workspace,
    /// Each helper's id (the page's), and the step its copy of the model and optimiser is at,
    /// where the trainer is sure of it.
    pub(crate) synced: Vec<(u32, Option<usize>)>,
    /// The last edge scores exact patching found.
    pub(crate) scored_edges: Option<ScoredEdges>,
    /// The last estimates of the learning coefficient its chains made.
    pub(crate) kept_llc: Option<KeptLlc>,
}

impl<M: Trainable> Trainer<M> {
    /// A trainer for `model` at step 0, with fresh optimiser state, seeded by `train.seed`.
    pub fn new(model: M, train: TrainConfig) -> Trainer<M> {
        let optimizer = fresh_optimizer(&model, &train);
        let rng = Rng::new(train.seed ^ TRAIN_STREAM);
        Trainer {
            model,
            optimizer,
            train,
            step: 0,
            rng,
            history: History::default(),
            timing: Timing::default(),
            job: None,
            jobs: 0,
            scores_answers: false,
            workers: 1,
            workspaces: vec![Workspace::default()],
            grad_pool: Workspace::default(),
            synced: vec![],
            scored_edges: None,
            kept_llc: None,
        }
    }

    /// A trainer that goes on from where a saved one stood: its step, history and, when saved,
    /// its optimiser state and random stream.
    pub fn resume(
        model: M,
        train: TrainConfig,
        step: usize,
        history: History,
        optimizer: Option<Box<dyn Optimizer>>,
        rng: Option<Rng>,
    ) -> Trainer<M> {
        let mut trainer = Trainer::new(model, train);
        if let Some(optimizer) = optimizer {
            trainer.optimizer = optimizer;
        }
        if let Some(rng) = rng {
            trainer.rng = rng;
        }
        (trainer.step, trainer.history) = (step, history);
        trainer
    }

    pub fn model(&self) -> &M {
        &self.model
    }

    pub fn train_config(&self) -> &TrainConfig {
        &self.train
    }

    pub fn optimizer(&self) -> &dyn Optimizer {
        self.optimizer.as_ref()
    }

    /// Steps completed so far.
    pub fn step_count(&self) -> usize {
        self.step
    }

    /// The training random stream (batches and dropout), where it stands.
    pub fn rng(&self) -> &Rng {
        &self.rng
    }

    /// Every step's loss, every evaluation and every record so far.
    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn history_mut(&mut self) -> &mut History {
        &mut self.history
    }

    /// How many threads compute the trainer's own share of each job (natively; 1 in wasm,
    /// where the page's helpers are Web Workers of their own).
    pub fn set_threads(&mut self, threads: usize) {
        let threads = if cfg!(target_arch = "wasm32") { 1 } else { threads.max(1) };
        self.workspaces.resize_with(threads, Workspace::default);
        self.workers = threads;
    }

    /// How many compute each step: the trainer's threads and its helpers.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Changes how often and over how many batches it evaluates; `None` keeps a setting.
    /// Evaluation draws its own batches, so this never changes what training does.
    pub fn set_evaluation(&mut self, interval: Option<usize>, iters: Option<usize>) {
        self.train.eval_interval = interval.or(self.train.eval_interval);
        self.train.eval_iters = iters.unwrap_or(self.train.eval_iters);
    }

    /// The step the gradients `grads` of a loss `loss` would make, applied as a training step is
    /// (checked, clipped, at this step's rate, by the optimiser with its state) to copies of the
    /// parameters and the optimiser: the parameters after it, and its rate and gradient norm.
    /// Nothing of the trainer changes.
    pub fn step_on_copy(&self, grads: Vec<f32>, loss: f32) -> Result<StepOnCopy> {
        let (mut params, mut optimizer, pool) =
            (self.model.params().clone(), self.optimizer.boxed_clone(), Workspace::default());
        let root = Partial { first: 0, count: 1, loss: loss as f64, exact: 0, grads };
        let rules =
            super::update::Rules { train: &self.train, step: self.step, uniform_loss: self.model.uniform_loss() };
        let mut update = rules.begin(root, &params, optimizer.as_ref(), &pool)?;
        complete(optimizer.kind(), self.train.hyper().own, update.pieces.iter_mut().collect(), 1);
        let (rates, grad_norm) = (optimizer.param_rates(rules.rates(update.lr)), update.grad_norm);
        rules.finish(update, &mut params, optimizer.as_mut(), &pool)?;
        Ok(StepOnCopy { params, rates, grad_norm })
    }

    /// Takes `train` (checked by the caller) and `dropout` for the next steps. The optimiser
    /// keeps its state; the helpers' copies, which step by the old settings, are sent it again.
    pub fn retune(&mut self, train: TrainConfig, dropout: f32) -> Result<()> {
        self.model.set_dropout(dropout)?;
        self.optimizer.retune(&train.hyper());
        self.train = train;
        self.synced.clear();
        Ok(())
    }
}

/// A step applied to copies (see [`Trainer::step_on_copy`]).
pub struct StepOnCopy {
    /// The parameters after the step.
    pub params: Params,
    /// Each parameter's rate in the step and the optimiser that moved it, and the gradients'
    /// norm before clipping.
    pub rates: Vec<ParamRate>,
    pub grad_norm: f32,
}

/// Zeroed optimiser state for `model` trained by `train`.
fn fresh_optimizer<M: Trainable>(model: &M, train: &TrainConfig) -> Box<dyn Optimizer> {
    let kind = train.kind().unwrap_or(crate::optim::OPTIMIZERS[0]);
    (kind.create)(model.params(), &train.hyper())
}
