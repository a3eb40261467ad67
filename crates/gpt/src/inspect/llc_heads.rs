//! Each head's learning coefficient over training. Estimating every head at each live record would
//! cost about five times the whole model's record (a head's chain takes about 0.6 of a whole-model
//! chain's time), far past a tenth of the training. So the session keeps the weights at each live
//! record, and each head's refined LLC is estimated at them afterwards, when asked (the page asks
//! while the heads view shows it and the model is not training), at the live setting, into the
//! run's history.

use crate::error::Result;
use crate::llc::Llc;
use crate::model::WeightPart;
use crate::run::{LlcRequest, LIVE, LIVE_BATCHES};
use crate::train::Record;
use crate::work::llc_plan::LlcPlan;
use crate::Run;
use ndarray::ArrayD;
use serde::{Deserialize, Serialize};

/// The most weights kept, all records together (16 MiB of floats: every record of a small
/// model); past it, every other record's weights are dropped, as the time-lapse thins its
/// snapshots.
const MAX_FLOATS: usize = 1 << 22;

/// Every head's refined LLC at one live record's step, heads layer after layer: the mean over the
/// chains that finished (none when none did), their spread, and how many diverged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct HeadsLlcPoint {
    pub step: usize,
    pub mean: Vec<Option<f64>>,
    pub std: Vec<f64>,
    pub diverged: Vec<usize>,
}

impl Record for HeadsLlcPoint {
    const NAME: &'static str = "llc-heads";
}

/// The weights at the live records of this session (not saved: a head's estimate at them, once
/// made, is).
#[derive(Debug, Default)]
pub struct KeptWeights {
    steps: Vec<usize>,
    weights: Vec<Vec<ArrayD<f32>>>,
}

impl KeptWeights {
    /// Keeps `weights` at `step`, thinning those kept before (every other, the first kept) until it fits.
    fn push(&mut self, step: usize, weights: Vec<ArrayD<f32>>) {
        let size = |w: &Vec<ArrayD<f32>>| w.iter().map(ArrayD::len).sum::<usize>();
        while !self.steps.is_empty() && self.weights.iter().map(size).sum::<usize>() + size(&weights) > MAX_FLOATS {
            if self.steps.len() == 1 {
                (self.steps, self.weights) = (vec![], vec![]);
            }
            self.steps = std::mem::take(&mut self.steps).into_iter().step_by(2).collect();
            self.weights = std::mem::take(&mut self.weights).into_iter().step_by(2).collect();
        }
        self.steps.push(step);
        self.weights.push(weights);
    }
}

impl Run {
    /// After a live record: its weights, kept for the heads' estimates.
    pub(crate) fn keep_llc_weights(&mut self) {
        let weights = self.model().params().values.clone();
        self.watch.llc_weights.push(self.step_count(), weights);
    }

    /// The steps whose weights are kept and whose heads are not estimated yet, earliest first.
    pub fn heads_llc_pending(&self) -> Vec<usize> {
        if self.model().config().n_layer == 0 {
            return vec![];
        }
        let done: Vec<usize> = self.history().records::<HeadsLlcPoint>().iter().map(|p| p.step).collect();
        self.watch.llc_weights.steps.iter().copied().filter(|s| !done.contains(s)).collect()
    }

    /// The chains of every head's LLC at the earliest step still pending, with that step: their
    /// plan starts them from the weights kept there.
    pub(crate) fn heads_llc_plan(&self) -> Result<Option<(usize, LlcPlan)>> {
        let Some(&step) = self.heads_llc_pending().first() else { return Ok(None) };
        let at = self.watch.llc_weights.steps.iter().position(|&s| s == step).unwrap_or_default();
        let mut model = self.model().frozen_copy()?;
        model.params_mut().values = self.watch.llc_weights.weights[at].clone();
        let config = self.model().config();
        let heads = (0..config.n_layer).flat_map(|layer| (0..config.n_head).map(move |head| (layer, head)));
        let requests: Vec<LlcRequest> =
            heads.map(|(layer, head)| LlcRequest { part: WeightPart::Head { layer, head }, ..LIVE }).collect();
        let mut plan = self.llc_plan_on(&model, &requests, LIVE_BATCHES)?;
        plan.start = Some(model.params().flat_parts().flat_map(|(_, part)| part.iter().copied()).collect());
        Ok(Some((step, plan)))
    }

    /// Every head's LLC at `step`, into the history: how many steps are still pending after it.
    pub(crate) fn keep_heads_llc(&mut self, step: usize, estimates: &[Llc]) -> usize {
        let point = HeadsLlcPoint {
            step,
            mean: estimates.iter().map(|l| l.mean.is_finite().then_some(l.mean)).collect(),
            std: estimates.iter().map(|l| l.std).collect(),
            diverged: estimates.iter().map(|l| l.diverged().len()).collect(),
        };
        self.trainer.history_mut().record(&point);
        self.heads_llc_pending().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::llc_record::tests::repeat_run;
    use crate::run::{LlcPoint, RunJob};
    use crate::train::Outcome;

    /// Each head's LLC at the next record waiting, as a job on the run's threads: how many wait
    /// after it.
    fn heads_job(run: &mut Run) -> Option<usize> {
        let mut progress = run.begin(RunJob::HeadsLlc, &[], 0.0).unwrap();
        while progress.outcome.is_none() {
            progress = run.advance(&|| 0.0).unwrap();
        }
        match progress.outcome {
            Some(Outcome::HeadsLlc { left }) => left,
            other => panic!("the heads' job ended as {other:?}"),
        }
    }

    #[test]
    fn each_head_at_each_live_record_equals_an_estimate_made_there() {
        let mut run = repeat_run(2);
        let heads: Vec<LlcRequest> =
            (0..2).map(|layer| LlcRequest { part: WeightPart::Head { layer, head: 0 }, ..LIVE }).collect();
        let mut direct = vec![];
        while run.step_count() < 120 {
            run.train(run.steps_to_next_eval().max(1), &|| 0.0).unwrap();
            run.evaluate().unwrap();
            if run.history().records::<LlcPoint>().last().map(|p| p.step) == Some(run.step_count()) {
                let plan = run.llc_plan(&heads, LIVE_BATCHES).unwrap();
                direct.push((run.step_count(), run.trainer.llc(&plan).unwrap()));
            }
        }
        let records: Vec<usize> = run.history().records::<LlcPoint>().iter().map(|p| p.step).collect();
        assert!(records.len() >= 2, "records at {records:?}");
        assert_eq!(run.heads_llc_pending(), records, "the weights at every record are kept");
        // As the page asks it: a record a job.
        assert_eq!(heads_job(&mut run), Some(records.len() - 1));
        while heads_job(&mut run) > Some(0) {}
        let points = run.history().records::<HeadsLlcPoint>();
        assert_eq!(points.len(), records.len());
        for (point, (step, estimates)) in points.iter().zip(&direct) {
            assert_eq!(point.step, *step);
            // The same chains; the history keeps its records as JSON text, whose floats read back
            // to within the last bit.
            for (mean, estimate) in point.mean.iter().zip(estimates) {
                assert!((mean.unwrap() - estimate.mean).abs() <= 1e-12 * estimate.mean.abs(), "at step {step}");
            }
        }
        assert_eq!(heads_job(&mut run), None, "nothing left to estimate");
        assert_eq!(run.history().records::<HeadsLlcPoint>().len(), records.len());
    }

    #[test]
    fn kept_weights_are_thinned_past_their_budget() {
        let mut kept = KeptWeights::default();
        let weights = || vec![ArrayD::zeros(vec![MAX_FLOATS / 3])];
        (0..4).for_each(|step| kept.push(step, weights()));
        assert_eq!(kept.steps, [0, 2, 3], "four past the budget: every other dropped, then the newest kept");
        assert_eq!(kept.weights.len(), 3);
    }
}
