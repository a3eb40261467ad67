//! Ablation: knock out one head or one layer's MLP (its output replaced by zeros, or by its mean
//! over held-out rows) and measure what the held-out loss and, for a task, the held-out accuracy
//! lose, and which of the shown problems flip; and every part's cost at once (the grid), which
//! each evaluation records in mean ablation so the page shows it over training.
//!
//! The held-out rows are fixed (a seed), sized so the whole grid would read about
//! [`GRID_TOKENS`] tokens in whole passes (`knockout.rs` resumes them part-way). For a task every row lays its problem out the same way, so a mean is taken at each
//! position, as TransformerLens's mean ablation over a batch; for text, over rows and positions.

use super::knockout::Knockouts;
use super::look::{value, Look};
pub use super::records::{AblationGrid, Fill, Score};
use crate::data::Split;
use crate::error::Result;
use crate::model::Site;
use crate::rng::Rng;
use crate::words::{runs::bug, views};
use crate::Run;
use serde::Serialize;

/// Tokens the grid's passes would read as whole passes, which bounds its cost at each evaluation.
const GRID_TOKENS: usize = 32_768;
/// Rows the held-out sample holds at most.
const MAX_ROWS: usize = 256;
/// The grid recorded at evaluations costs at most 1/this of the training between two records.
const RECORD_SHARE: usize = 200;
const SAMPLE_SEED: u64 = 0x6162_6c61_7465_0006;

/// One part knocked out: the held-out scores with and without it, and the shown problems whose
/// greedy answer turns right or wrong.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Ablation {
    pub site: Site,
    pub fill: Fill,
    pub rows: usize,
    pub whole: Score,
    pub ablated: Score,
    /// How many shown problems were looked at for flips.
    pub shown: usize,
    pub flips: Vec<Flip>,
}

/// A shown problem whose answer is right with the part and wrong without it, or the reverse.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Flip {
    pub prompt: String,
    pub expected: String,
    pub answer: String,
    pub ablated_answer: String,
}

impl Run {
    /// Every head and MLP knocked out in turn on the held-out sample.
    pub fn ablation_grid(&self, fill: Fill) -> Result<AblationGrid> {
        let knockouts = self.knockouts(fill)?;
        let knocked = knockouts.knock(self.model(), 0..knockouts.units(), &self.model().workspace)?;
        knockouts.grid(self.step_count(), &knocked, self.task().is_some())
    }

    /// `site` knocked out: the held-out scores with and without it, and the flips among the
    /// first `shown` held-out problems the page lists (a task's).
    pub fn ablate(&self, site: Site, fill: Fill, shown: usize) -> Result<Ablation> {
        if matches!(site, Site::Residual { .. }) {
            return Err(crate::error::Error::Config(bug("ablation knocks out a head or an MLP")));
        }
        let knockouts = self.knockouts(fill)?;
        site.check(self.model().config(), knockouts.positions)?;
        let (model, task) = (self.model(), self.task().is_some());
        let score = |unit: usize| -> Result<Score> {
            let knocked = knockouts.knock(model, unit..unit + 1, &model.workspace)?;
            Ok(knockouts.score(knocked[0], task))
        };
        let (whole, ablated) = (score(0)?, score(knockouts.unit(site))?);
        let edits = [knockouts.edit(model, site)?];
        let mut flips = vec![];
        let problems = self.task().map_or(vec![], |task| crate::run::shown_problems(task, shown));
        if let Some(task) = self.task() {
            for problem in &problems {
                let (answer, ablated_answer) =
                    (self.greedy_answer(problem, &[])?, self.greedy_answer(problem, &edits)?);
                if (answer == problem.answer()) != (ablated_answer == problem.answer()) {
                    flips.push(Flip {
                        prompt: task.text(problem.prompt()),
                        expected: task.text(problem.answer()),
                        answer: task.text(&answer),
                        ablated_answer: task.text(&ablated_answer),
                    });
                }
            }
        }
        Ok(Ablation { site, fill, rows: knockouts.rows, whole, ablated, shown: problems.len(), flips })
    }

    /// At an evaluation: the grid in mean ablation, into the history, if enough training came
    /// since the last record (or the start) for it to cost at most 1/[`RECORD_SHARE`] of it, and
    /// always at the end.
    pub(crate) fn record_ablations(&mut self) -> Result<()> {
        let last = self.history().records::<AblationGrid>().last().map_or(0, |grid| grid.step);
        if self.dataset().is_some() && self.record_due(last, self.grid_shape().0, RECORD_SHARE) {
            let grid = self.ablation_grid(Fill::Mean)?;
            self.trainer.history_mut().record(&grid);
        }
        Ok(())
    }

    /// The held-out rows ablation reads, `(ids, targets, rows, positions)`, targets
    /// [`crate::ops::IGNORE`] where the loss skips: for another implementation to check against.
    pub fn ablation_rows(&self) -> Result<(Vec<usize>, Vec<usize>, usize, usize)> {
        let knockouts = self.knockouts(Fill::Mean)?;
        let (idx, targets) = knockouts.ids();
        Ok((idx, targets, knockouts.rows, knockouts.positions))
    }

    /// The grid's cost in tokens through the model (its whole passes), its rows and their length.
    fn grid_shape(&self) -> (usize, usize, usize) {
        let cfg = self.model().config();
        let t = self.seq_len();
        let forwards = cfg.n_layer * (cfg.n_head + 1) + 1;
        let rows = (GRID_TOKENS / (t * forwards)).clamp(1, MAX_ROWS);
        (rows * t * forwards, rows, t)
    }

    /// The held-out rows, fixed (a seed), and how to knock each part out on them by `fill`.
    fn knockouts(&self, fill: Fill) -> Result<Knockouts> {
        let data = self.data()?;
        let cfg = self.model().config();
        let (_, rows, t) = self.grid_shape();
        let (mut x, mut y) = (vec![], vec![]);
        let b = match data.task() {
            Some(task) => {
                let mut rng = Rng::new(SAMPLE_SEED);
                (0..rows).for_each(|_| task.push_row(&task.draw(Split::Val, &mut rng), &mut x, &mut y, false));
                rows
            }
            None => {
                (x, y, _) = data.position_rows(rows, cfg.block_size);
                x.len() / t
            }
        };
        if b == 0 {
            return Err(crate::error::Error::Data(views::held_out_short(t)));
        }
        let per_position = data.task().is_some();
        Ok(Knockouts::new((x, y), (b, t), (cfg.n_layer, cfg.n_head), fill, per_position))
    }
}

/// The ablation view: the grid now in the chosen fill, the grid at each evaluation (mean
/// ablation), and the chosen part (or the costliest head) knocked out.
pub fn view(look: &Look) -> Result<serde_json::Value> {
    let run = look.run;
    let q = &look.questions;
    let history = run.history().records::<AblationGrid>();
    let grid = match history.last() {
        Some(last) if last.step == run.step_count() && last.fill == q.fill => last.clone(),
        _ => run.ablation_grid(q.fill)?,
    };
    let costliest = || {
        let nh = run.model().config().n_head;
        let cost = if grid.head_accuracy.is_empty() { &grid.head_loss } else { &grid.head_accuracy };
        let i = (0..cost.len()).max_by(|&a, &b| cost[a].total_cmp(&cost[b])).unwrap_or(0);
        Site::Head { layer: i / nh, head: i % nh }
    };
    let site = q.ablate.unwrap_or_else(costliest);
    let ablation = run.ablate(site, q.fill, q.shown)?;
    value(serde_json::json!({ "grid": grid, "history": history, "ablation": ablation }))
}
