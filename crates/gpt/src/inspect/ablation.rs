//! Ablation: knock out one head or one layer's MLP (its output replaced by zeros, or by its mean
//! over held-out rows) and measure what the held-out loss and, for a task, the held-out accuracy
//! lose, and which of the shown problems flip; and every part's cost at once (the grid), which
//! each evaluation records in mean ablation so the page shows it over training.
//!
//! The held-out rows are fixed (a seed), sized so the whole grid reads about [`GRID_TOKENS`]
//! tokens. For a task every row lays its problem out the same way, so a mean is taken at each
//! position, as TransformerLens's mean ablation over a batch; for text, over rows and positions.

use super::look::{value, Look};
pub use super::records::{AblationGrid, Fill, Score};
use crate::data::Split;
use crate::error::Result;
use crate::model::{head_columns, Batch, Edit, Site, Trace};
use crate::rng::Rng;
use crate::run::Run;
use serde::Serialize;

/// Tokens the grid's forward passes read in all, which bounds its cost at each evaluation.
const GRID_TOKENS: usize = 32_768;
/// Rows the held-out sample holds at most.
const MAX_ROWS: usize = 256;
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

/// Fixed held-out rows: for a task its problems, asking for their answers; for text, windows.
struct Sample {
    idx: Vec<usize>,
    targets: Vec<usize>,
    b: usize,
    t: usize,
}

impl Sample {
    fn batch(&self) -> Batch<'_> {
        Batch { idx: &self.idx, targets: &self.targets, b: self.b, t: self.t }
    }
}

impl Run {
    /// Every head and MLP knocked out in turn on the held-out sample.
    pub fn ablation_grid(&self, fill: Fill) -> Result<AblationGrid> {
        let sample = self.ablation_sample()?;
        let fills = self.fills(&sample, fill)?;
        let whole = self.scored(&sample, &[])?;
        let cfg = self.model().config();
        let heads = (0..cfg.n_layer * cfg.n_head).map(|i| Site::Head { layer: i / cfg.n_head, head: i % cfg.n_head });
        let mlps = (0..cfg.n_layer).map(|layer| Site::Mlp { layer });
        let (mut head_loss, mut head_accuracy, mut mlp_loss, mut mlp_accuracy) = (vec![], vec![], vec![], vec![]);
        for site in heads.chain(mlps) {
            let ablated = self.scored(&sample, &[fills.edit(site)])?;
            let (loss, accuracy) = match site {
                Site::Head { .. } => (&mut head_loss, &mut head_accuracy),
                _ => (&mut mlp_loss, &mut mlp_accuracy),
            };
            loss.push(ablated.loss - whole.loss);
            if let (Some(a), Some(b)) = (whole.accuracy, ablated.accuracy) {
                accuracy.push(a - b);
            }
        }
        let step = self.step_count();
        Ok(AblationGrid { step, fill, rows: sample.b, whole, head_loss, head_accuracy, mlp_loss, mlp_accuracy })
    }

    /// `site` knocked out: the held-out scores with and without it, and the flips among the
    /// first `shown` held-out problems the page lists (a task's).
    pub fn ablate(&self, site: Site, fill: Fill, shown: usize) -> Result<Ablation> {
        if matches!(site, Site::Residual { .. }) {
            return Err(crate::error::Error::Config("ablation knocks out a head or an MLP".into()));
        }
        let sample = self.ablation_sample()?;
        site.check(self.model().config(), sample.t)?;
        let edits = [self.fills(&sample, fill)?.edit(site)];
        let (whole, ablated) = (self.scored(&sample, &[])?, self.scored(&sample, &edits)?);
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
        Ok(Ablation { site, fill, rows: sample.b, whole, ablated, shown: problems.len(), flips })
    }

    /// At an evaluation: the grid in mean ablation, into the history.
    pub(crate) fn record_ablations(&mut self) -> Result<()> {
        if self.dataset().is_some() {
            let grid = self.ablation_grid(Fill::Mean)?;
            self.history_mut().ablations.push(grid);
        }
        Ok(())
    }

    /// The held-out rows ablation reads, `(ids, targets, rows, positions)`, targets
    /// [`crate::ops::IGNORE`] where the loss skips: for another implementation to check against.
    pub fn ablation_rows(&self) -> Result<(Vec<usize>, Vec<usize>, usize, usize)> {
        let Sample { idx, targets, b, t } = self.ablation_sample()?;
        Ok((idx, targets, b, t))
    }

    fn ablation_sample(&self) -> Result<Sample> {
        let data = self.data()?;
        let cfg = self.model().config();
        let t = data.seq_len(cfg.block_size);
        let forwards = cfg.n_layer * (cfg.n_head + 1) + 1;
        let rows = (GRID_TOKENS / (t * forwards)).clamp(1, MAX_ROWS);
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
            return Err(crate::error::Error::Data(format!("the held-out text is shorter than one block ({t} tokens)")));
        }
        Ok(Sample { idx: x.iter().map(|&i| i as usize).collect(), targets: crate::data::targets(&y), b, t })
    }

    fn scored(&self, sample: &Sample, edits: &[Edit]) -> Result<Score> {
        let (loss, right) = self.model().score_edited(&self.model().workspace, sample.batch(), edits)?;
        let accuracy = right.iter().filter(|&&r| r).count() as f32 / right.len() as f32;
        Ok(Score { loss, accuracy: self.task().is_some().then_some(accuracy) })
    }

    /// What replaces each part's output on `sample`.
    fn fills(&self, sample: &Sample, fill: Fill) -> Result<Fills> {
        let cfg = self.model().config();
        let zeros = || vec![vec![0.0; sample.t * cfg.n_embd]; cfg.n_layer];
        let (heads, mlps) = match fill {
            Fill::Zero => (zeros(), zeros()),
            Fill::Mean => {
                let trace = self.model().trace_edited(&sample.idx, sample.b, sample.t, &[])?;
                let per_position = self.task().is_some();
                let mean = |values: &Vec<Vec<f32>>| values.iter().map(|v| mean_rows(v, &trace, per_position)).collect();
                (mean(&trace.heads), mean(&trace.mlp))
            }
        };
        Ok(Fills { heads, mlps, head_size: cfg.n_embd / cfg.n_head, c: cfg.n_embd })
    }
}

/// Each layer's replacement outputs, (T, C): heads side by side, and the MLP's.
struct Fills {
    heads: Vec<Vec<f32>>,
    mlps: Vec<Vec<f32>>,
    head_size: usize,
    c: usize,
}

impl Fills {
    fn edit(&self, site: Site) -> Edit {
        let with = match site {
            Site::Head { layer, head } => head_columns(&self.heads[layer], self.c, head, self.head_size),
            Site::Mlp { layer } => self.mlps[layer].clone(),
            Site::Residual { .. } => unreachable!("ablate() refuses the residual stream"),
        };
        Edit { site, with }
    }
}

/// The mean over a batch's rows of `values` (B, T, C): at each position, or over all positions
/// and repeated at each.
fn mean_rows(values: &[f32], trace: &Trace, per_position: bool) -> Vec<f32> {
    let (b, t) = (trace.b, trace.t);
    let c = values.len() / (b * t);
    let mut mean = vec![0.0f64; t * c];
    for row in values.chunks_exact(t * c) {
        mean.iter_mut().zip(row).for_each(|(m, &v)| *m += v as f64);
    }
    if !per_position {
        let mut over_positions = vec![0.0f64; c];
        mean.chunks_exact(c).for_each(|p| over_positions.iter_mut().zip(p).for_each(|(o, v)| *o += v));
        mean = over_positions.repeat(t);
        mean.iter_mut().for_each(|m| *m /= t as f64);
    }
    mean.iter().map(|&m| (m / b as f64) as f32).collect()
}

/// The ablation view: the grid now in the chosen fill, the grid at each evaluation (mean
/// ablation), and the chosen part (or the costliest head) knocked out.
pub fn view(look: &Look) -> Result<serde_json::Value> {
    let run = look.run;
    let q = &look.questions;
    let grid = match run.history().ablations.last() {
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
    value(serde_json::json!({ "grid": grid, "history": run.history().ablations, "ablation": ablation }))
}
