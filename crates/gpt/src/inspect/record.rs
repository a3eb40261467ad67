//! What each evaluation records for the views: every head's scores (the heads view reads them
//! over time) and an attention snapshot on the held-out probe (the time-lapse); and the moments
//! the loss chart marks.

use super::scores::{self, HeadScores, Onset};
use crate::data::Split;
use crate::error::Result;
use crate::run::Run;

/// Seed of the induction probe's random tokens.
const INDUCTION_SEED: u64 = 0x1d0c;

impl Run {
    /// When an induction head first formed, if one can: it needs a layer before it to read the
    /// previous token from, and a task's other problems are no copies for its score to mean one.
    pub fn induction_onset(&self) -> Option<Onset> {
        let cfg = self.model().config();
        let copies = self.task().is_none_or(|t| t.config().task().copies());
        (cfg.n_layer >= 2 && copies).then(|| scores::induction_onset(&self.history().heads, cfg.n_head)).flatten()
    }

    /// The moments the loss chart marks: an induction head's onset, and a task's accuracy marks.
    pub fn milestones(&self) -> crate::Milestones {
        crate::Milestones { induction: self.induction_onset(), ..self.history().milestones() }
    }

    /// The sequence induction scores are read on, and where its repeat starts: random tokens
    /// repeated once; for a task whose problems are copies, one of its own (the same, its own
    /// symbols).
    fn induction_probe(&self) -> (Vec<usize>, usize) {
        let cfg = self.model().config();
        if let Some(task) = self.task().filter(|t| t.config().task().copies()) {
            // Its symbols, then the same again: the copy starts one before the answer.
            let problem = task.example(Split::Val, INDUCTION_SEED);
            return (problem.tokens.iter().map(|&t| t as usize).collect(), problem.prompt_len - 1);
        }
        let period = (cfg.block_size / 2).max(1);
        let probe = scores::induction_probe(cfg.vocab_size, period, INDUCTION_SEED);
        (probe[..(2 * period).min(cfg.block_size)].to_vec(), period)
    }

    /// At an evaluation: every head's scores, and (with text) an attention snapshot on the
    /// held-out probe for the time-lapse.
    pub(crate) fn record_heads(&mut self) -> Result<()> {
        let (induction_probe, period) = self.induction_probe();
        let on_induction = self.model().attention(&induction_probe)?;
        let probe = self.held_out();
        let (maps, t) = if probe.len() > 1 {
            (self.model().attention(&probe)?, probe.len())
        } else {
            (on_induction.clone(), induction_probe.len())
        };
        let step = self.step_count();
        self.history_mut().heads.push(HeadScores {
            step,
            entropy: scores::entropy(&maps, t),
            previous_token: scores::previous_token(&maps, t),
            induction: scores::induction(&on_induction, induction_probe.len(), period),
        });
        if probe.len() > 1 {
            let tokens = probe.iter().map(|&id| self.tokenizer().token_text(id as u32)).collect();
            self.timelapse_mut().push(step, tokens, maps);
        }
        Ok(())
    }
}
