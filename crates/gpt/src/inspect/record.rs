//! What each evaluation records for the views: every head's scores (the heads view reads them
//! over time) and an attention snapshot on the held-out probe (the time-lapse); and the moments
//! the loss chart marks.

use super::scores::{self, HeadScores};
use crate::data::{Problem, Split, TaskData};
use crate::error::Result;
use crate::run::Onset;
use crate::Run;

/// Seed of the induction probe's random tokens.
const INDUCTION_SEED: u64 = 0x1d0c;

impl Run {
    /// When an induction head first formed, if one can: it needs a layer before it to read the
    /// previous token from, and a task that no induction head solves has no links to score.
    pub fn induction_onset(&self) -> Option<Onset> {
        let cfg = self.model().config();
        let induction = self.task().is_none_or(|t| !self.task_links(t).1.is_empty());
        let heads = || self.history().records::<HeadScores>();
        (cfg.n_layer >= 2 && induction).then(|| scores::induction_onset(&heads(), cfg.n_head)).flatten()
    }

    /// The held-out problem a task's induction scores are read on, and its induction links.
    fn task_links(&self, task: &TaskData) -> (Problem, Vec<(usize, usize)>) {
        let problem = task.example(Split::Val, INDUCTION_SEED);
        let links = task.config().task().induction_links(&problem);
        (problem, links)
    }

    /// The sequence induction scores are read on, and its induction links: random tokens repeated
    /// once; for a task an induction head solves, one of its own problems (none for another task).
    fn induction_probe(&self) -> (Vec<usize>, Vec<(usize, usize)>) {
        let cfg = self.model().config();
        if let Some(task) = self.task() {
            let (problem, links) = self.task_links(task);
            return (problem.tokens.iter().map(|&t| t as usize).collect(), links);
        }
        let period = (cfg.block_size / 2).max(1);
        let probe = scores::induction_probe(cfg.vocab_size, period, INDUCTION_SEED);
        let probe = probe[..(2 * period).min(cfg.block_size)].to_vec();
        let links = crate::data::repeat_links(period, probe.len());
        (probe, links)
    }

    /// Whether a costly record (`cost` tokens through the model) is due at this evaluation, its
    /// last being at step `last` (or none yet: 0): at the last evaluation, and once the training
    /// since (a step's forward and backward passes count as three forward passes of its tokens)
    /// is at least `share` times its cost, so that it costs at most 1/`share` of the run.
    pub(crate) fn record_due(&self, last: usize, cost: usize, share: usize) -> bool {
        let step = self.step_count();
        let since = step - last.min(step);
        step == self.train_config().max_iters || 3 * since * self.tokens_per_step() >= share * cost
    }

    /// At an evaluation: every head's scores, and (with text) an attention snapshot on the
    /// held-out probe for the time-lapse.
    pub(crate) fn record_heads(&mut self) -> Result<()> {
        let (induction_probe, links) = self.induction_probe();
        let on_induction = self.model().attention(&induction_probe)?;
        let probe = self.held_out();
        let (maps, t) = if probe.len() > 1 {
            (self.model().attention(&probe)?, probe.len())
        } else {
            (on_induction.clone(), induction_probe.len())
        };
        let step = self.step_count();
        self.trainer.history_mut().record(&HeadScores {
            step,
            entropy: scores::entropy(&maps, t),
            previous_token: scores::previous_token(&maps, t),
            induction: scores::induction(&on_induction, induction_probe.len(), &links),
        });
        if probe.len() > 1 {
            let tokens = probe.iter().map(|&id| self.tokenizer().token_text(id as u32)).collect();
            self.watch.timelapse.push(step, tokens, maps);
        }
        Ok(())
    }
}
