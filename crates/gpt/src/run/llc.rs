//! A run's local learning coefficient: devinterp's estimator (`llc/`) on a copy of the model, its
//! training loss taken on batches of the run's own training data, over the whole model or one part
//! of it (the refined LLC).

use super::training::Watch;
use super::Run;
use crate::error::{Error, Result};
use crate::llc::{
    calibrate, chain, default_grid, init_loss, turning_points, Calibration, KeptStep, Llc, LlcConfig, Turn,
};
use crate::model::{uniform_loss, WeightPart, GPT};
use crate::train::{IdsAndTargets, ModelLandscape, Record};
use crate::words::runs::bug;
use crate::work::llc_plan::{KeptLlc, LlcPlan};
use crate::work::Split;
use serde::{Deserialize, Serialize};

/// Batches drawn once for the chains to draw from: enough that a chain of a few hundred draws
/// sees the data, not one batch.
pub(super) const BATCHES: usize = 32;

/// An estimate asked of a run: how the chains run, over which weights, on batches of how many rows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default)]
pub struct LlcRequest {
    pub config: LlcConfig,
    pub part: WeightPart,
    /// Rows in each batch; none takes the training's batch size.
    pub rows: Option<usize>,
}

/// Rows in each batch unless asked otherwise: what the defaults were calibrated with.
pub const LLC_ROWS: usize = 8;

impl Default for LlcRequest {
    fn default() -> Self {
        LlcRequest { config: LlcConfig::default(), part: WeightPart::Whole, rows: Some(LLC_ROWS) }
    }
}

/// What the view is asked: the parts to estimate (none: the whole model), how (none: the
/// calibrated defaults), and whether now.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default)]
pub struct LlcQuestion {
    pub parts: Vec<WeightPart>,
    pub config: Option<LlcConfig>,
    pub estimate: bool,
}

impl LlcQuestion {
    /// Each part's request.
    pub fn requests(&self) -> Vec<LlcRequest> {
        let parts = if self.parts.is_empty() { vec![WeightPart::Whole] } else { self.parts.clone() };
        let config = self.config.unwrap_or_default();
        parts.into_iter().map(|part| LlcRequest { part, config, ..LlcRequest::default() }).collect()
    }
}

/// One live record, at an evaluation: the whole model's LLC at [`LlcCurve`]'s setting, its
/// spread over the chains that finished, and how many did not (no mean when none did).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct LlcPoint {
    pub step: usize,
    pub mean: Option<f64>,
    pub std: f64,
    pub diverged: usize,
}

impl Record for LlcPoint {
    const NAME: &'static str = "llc";
}

/// The LLC over training as the run recorded it: its records, where the curve turned, and the
/// setting every record used.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct LlcCurve {
    pub points: Vec<LlcPoint>,
    pub turns: Vec<Turn>,
    pub request: LlcRequest,
}

/// The light setting of the live records: two chains of 20 draws after 10 steps, on 4 batches
/// of the default rows (so nβ is the command line's), 64 small passes a record. On the induction
/// preset's kept checkpoints, chains this short still find the peak at step 325 that 4 × 200
/// draws find (docs/llc.md).
pub const LIVE: LlcRequest = LlcRequest {
    config: LlcConfig { epsilon: 1e-4, gamma: 1_000.0, nbeta: None, chains: 2, draws: 20, burn_in: 10, seed: 42 },
    part: WeightPart::Whole,
    rows: Some(LLC_ROWS),
};
/// Batches a live record's chains draw from, and its L(w*) is the mean over.
pub const LIVE_BATCHES: usize = 4;

/// What the chains read, to check against another implementation: the batches (token ids and
/// targets, [`crate::ops::IGNORE`] where the loss skips, each `rows` rows of `t`), the first
/// chain's first recorded step (the one after burn-in, where the chain has settled), and that
/// step's MALA acceptance.
#[derive(Clone, Debug, Serialize)]
pub struct LlcSamples {
    pub rows: usize,
    pub t: usize,
    pub batches: Vec<IdsAndTargets>,
    pub nbeta: f64,
    pub init_loss: f64,
    pub step: KeptStep,
    pub acceptance: f64,
}

/// What the chains sample: the landscape, the weights w* they start from, and which move.
type Sampled = (ModelLandscape<GPT>, Vec<f32>, Option<Vec<bool>>);

impl<W: Watch> Run<W> {
    /// The LLC of the model at its current weights (the model itself does not move).
    pub fn llc(&self, request: &LlcRequest) -> Result<Llc> {
        self.llc_on(request, BATCHES)
    }

    /// The LLC of each part `requests` asks for, which share one setting: estimates a shared job
    /// left for them at this step, else computed now on the run's threads.
    pub fn llcs(&self, requests: &[LlcRequest]) -> Result<Vec<Llc>> {
        self.trainer.llc(&self.llc_plan(requests, BATCHES)?)
    }

    /// The last estimates a shared job left, with the step and the plan they were made for.
    pub fn kept_llc(&self) -> Option<&KeptLlc> {
        self.trainer.kept_llc()
    }

    /// The LLC with its chains drawing from `batches` batches.
    pub(crate) fn llc_on(&self, request: &LlcRequest, batches: usize) -> Result<Llc> {
        let mut estimates = self.trainer.llc(&self.llc_plan(&[*request], batches)?)?;
        estimates.pop().ok_or_else(|| Error::Config(bug("an estimate of the learning coefficient went missing")))
    }

    /// The chains of `requests` as shared work, drawing from `batches` batches; L(w*) taken here.
    pub(crate) fn llc_plan(&self, requests: &[LlcRequest], batches: usize) -> Result<LlcPlan> {
        self.llc_plan_on(self.model(), requests, batches)
    }

    /// [`Run::llc_plan`] at `model`'s weights (the run's own, or weights it kept).
    pub(crate) fn llc_plan_on(&self, model: &GPT, requests: &[LlcRequest], batches: usize) -> Result<LlcPlan> {
        let first = requests.first().ok_or_else(|| Error::Config(bug("no part's learning coefficient was asked")))?;
        if requests.iter().any(|r| r.config != first.config || r.rows != first.rows) {
            return Err(Error::Config(bug("estimates shared as one job must share their setting")));
        }
        first.config.check()?;
        for request in requests {
            model.part_mask(request.part)?;
        }
        let (mut landscape, w_star, _) = self.sampled_on(model, first, batches)?;
        let nbeta = first.config.nbeta_on(&landscape);
        let init_loss = init_loss(&mut landscape, &w_star);
        let (pool, rows, t) = landscape.pool();
        let parts = requests.iter().map(|r| r.part.label()).collect();
        Ok(LlcPlan { parts, config: first.config, nbeta, init_loss, batches: pool.to_vec(), rows, t, start: None })
    }

    /// The live records so far, the curve's turns, and their setting.
    pub fn llc_curve(&self) -> LlcCurve {
        let points = self.history().records::<LlcPoint>();
        let curve: Vec<_> = points.iter().filter_map(|p| p.mean.map(|m| (p.step, m, p.std))).collect();
        LlcCurve { turns: turning_points(&curve), points, request: LIVE }
    }

    /// devinterp's sweep of step and localisation for `request` (its own ε and γ unused), over
    /// `grid` (steps, pulls) or the default one.
    pub fn llc_calibration(&self, request: &LlcRequest, grid: Option<(Vec<f32>, Vec<f32>)>) -> Result<Calibration> {
        let (mut landscape, w_star, mask) = self.sampled(request, BATCHES)?;
        let (epsilons, gammas) = grid.unwrap_or_else(default_grid);
        let uniform = f64::from(uniform_loss(self.model().config().vocab_size));
        let grid = (epsilons.as_slice(), gammas.as_slice());
        calibrate(&mut landscape, &w_star, mask.as_deref(), &request.config, grid, Some(uniform))
    }

    /// What `request`'s chains read, and its first chain's first recorded step.
    pub fn llc_samples(&self, request: &LlcRequest) -> Result<LlcSamples> {
        let (mut landscape, w_star, mask) = self.sampled(request, BATCHES)?;
        // Two draws: the second's acceptance is the first recorded step's.
        let config = LlcConfig { chains: 1, draws: 2, ..request.config };
        let nbeta = config.nbeta_on(&landscape);
        let mut step = KeptStep { at: config.burn_in, ..KeptStep::default() };
        let acceptance =
            chain(&mut landscape, &w_star, mask.as_deref(), &config, (nbeta as f32, 0), Some(&mut step)).acceptance;
        let init_loss = init_loss(&mut landscape, &w_star);
        let (batches, rows, t) = landscape.pool();
        Ok(LlcSamples { rows, t, batches: batches.to_vec(), nbeta, init_loss, step, acceptance })
    }

    fn sampled(&self, request: &LlcRequest, batches: usize) -> Result<Sampled> {
        self.sampled_on(self.model(), request, batches)
    }

    fn sampled_on(&self, model: &GPT, request: &LlcRequest, batches: usize) -> Result<Sampled> {
        let mask = model.part_mask(request.part)?;
        let rows = request.rows.unwrap_or(self.train_config().batch_size).max(1);
        let seed = request.config.seed;
        let landscape = ModelLandscape::new(model.frozen_copy()?, self.data()?, Split::Train, (batches, rows), seed)?;
        let w_star = landscape.weights();
        Ok((landscape, w_star, mask))
    }
}
