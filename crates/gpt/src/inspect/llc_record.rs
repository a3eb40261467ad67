//! The learning coefficient while the model learns: at evaluations, paced to cost at most
//! 1/[`SHARE`] of the training since the last record (and always at the end), the whole model's
//! LLC at the light live setting ([`LIVE`]), kept in the run's history; the curve's turns are read
//! off those records ([`crate::Run::llc_curve`]). The run shares a record's chains with its helpers
//! (`run/llc_records.rs`).

use crate::error::Result;
use crate::llc::Llc;
use crate::run::{LlcPoint, LIVE, LIVE_BATCHES};
use crate::work::llc_plan::LlcPlan;
use crate::Run;

/// The live records cost at most a tenth of the training.
const SHARE: usize = 10;
/// A chain's small batches (8 rows) take about twice a training step's time per token, measured
/// on the induction preset natively (0.33 s a record of 88 passes against 17 ms a 64-row step on
/// two threads).
const OVERHEAD: usize = 2;

impl Run {
    /// At an evaluation: the chains of the LLC's record, when one is due (the run shares them).
    pub(crate) fn llc_record_plan(&self) -> Result<Option<LlcPlan>> {
        let last = self.history().records::<LlcPoint>().last().map(|p| p.step);
        if last == Some(self.step_count()) {
            return Ok(None); // this step's is recorded already
        }
        if !self.record_due(last.unwrap_or(0), self.llc_record_cost(), SHARE) {
            return Ok(None);
        }
        self.llc_plan(&[LIVE], LIVE_BATCHES).map(Some)
    }

    /// The record those chains estimated, into the history, and the weights it was made at.
    pub(crate) fn keep_llc_record(&mut self, llc: Llc) {
        let diverged = llc.diverged().len();
        let mean = llc.mean.is_finite().then_some(llc.mean);
        // The spread is 0 unless two chains finished.
        let point = LlcPoint { step: self.step_count(), mean, std: llc.std, diverged };
        self.trainer.history_mut().record(&point);
        self.keep_llc_weights();
    }

    /// What a record costs, in tokens through the model: every chain's steps and L(w*)'s batches,
    /// each a forward and a backward pass (three forward passes' worth) of a small batch.
    fn llc_record_cost(&self) -> usize {
        let config = &LIVE.config;
        let passes = config.chains * (config.draws + config.burn_in) + LIVE_BATCHES;
        OVERHEAD * 3 * passes * LIVE.rows.unwrap_or(1) * self.seq_len()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::config::{GPTConfig, TrainConfig};
    use crate::data::TaskConfig;
    use crate::{Budget, Settings};

    /// A run of the repeat task on `layers` one-head layers: 120 steps of 256 rows, evaluating
    /// every 10.
    pub(in crate::inspect) fn repeat_run(layers: usize) -> Run {
        let task = TaskConfig::new(crate::data::task_named("repeat").unwrap(), serde_json::json!({"length": 3}), 0.9);
        let model = GPTConfig { block_size: 8, n_layer: layers, n_head: 1, n_embd: 8, ..Default::default() };
        let train = TrainConfig {
            batch_size: 256,
            max_iters: 120,
            eval_interval: Some(10),
            eval_iters: 1,
            ..Default::default()
        };
        let settings = Settings { model, train, task: Some(task), ..Default::default() };
        Run::create(&settings, "", &Budget::UNLIMITED).unwrap()
    }

    #[test]
    fn evaluations_record_the_llc_paced_and_always_at_the_end() {
        let mut run = repeat_run(1);
        while run.step_count() < 120 {
            run.train(run.steps_to_next_eval().max(1), &|| 0.0).unwrap();
            run.evaluate().unwrap();
        }
        let points = run.history().records::<LlcPoint>();
        assert_eq!(points.last().map(|p| p.step), Some(120), "the last evaluation always records");
        // Paced: each record follows at least SHARE times its cost of training (40 steps here).
        let gap = SHARE * run.llc_record_cost() / (3 * run.tokens_per_step());
        assert!(points.len() >= 3 && points.windows(2).all(|w| w[1].step - w[0].step >= gap.min(120 - w[0].step)));
        // Each record is the estimate at the live setting, from the chains' own seeds alone.
        let last = points.last().unwrap();
        let again = run.llc_on(&LIVE, LIVE_BATCHES).unwrap();
        assert_eq!((last.mean, last.std, last.diverged), (Some(again.mean), again.std, 0));
        assert_eq!(run.milestones().llc.points, points, "the milestones carry the curve");
        run.evaluate().unwrap();
        assert_eq!(run.history().records::<LlcPoint>().len(), points.len(), "one record a step");
    }
}
