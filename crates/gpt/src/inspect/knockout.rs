//! Knocking every head and every MLP out in turn on fixed held-out rows: the ablation grid's
//! work, computed from [`Knockouts`] alone. The rows run once whole, keeping the stream
//! entering each layer and each part's output (what replaces it), then that pass resumes at each
//! knocked-out part's layer: the layers before it are the same. (Sharing the units among the
//! workers was tried: each worker then holds a pass's values at its peak, and a helper's first
//! share grew the tab's memory late in a run.)

use super::records::{AblationGrid, Fill, Score};
use crate::error::{Error, Result};
use crate::model::{head_columns, Edit, Site, GPT};
use crate::words::runs::bug;
use crate::work::Batch;
use crate::workspace::Workspace;
use std::sync::OnceLock;

/// Held-out rows and how to knock each part out on them. Unit 0 is the model whole, then each
/// head (layer after layer), then each MLP.
#[derive(Debug)]
pub(super) struct Knockouts {
    /// `rows × positions` token ids, row after row.
    pub(super) inputs: Vec<u32>,
    /// The ids that follow them (`data::IGNORE` where the loss skips).
    pub(super) targets: Vec<u32>,
    pub(super) rows: usize,
    pub(super) positions: usize,
    /// The model's shape: its layers and heads.
    pub(super) layers: usize,
    pub(super) heads: usize,
    pub(super) fill: Fill,
    /// A part's mean is taken at each position (a task's rows lay their problems out alike), or
    /// over every position (a text's).
    pub(super) per_position: bool,
    /// The rows' pass without edits, made once, when first needed.
    clean: OnceLock<Clean>,
}

/// What a pass without edits leaves: the stream entering each block and after the last, and
/// what replaces each part's output.
#[derive(Debug)]
struct Clean {
    residual: Vec<Vec<f32>>,
    /// Each layer's heads' outputs side by side, and its MLP's, (T, C) each.
    heads: Vec<Vec<f32>>,
    mlps: Vec<Vec<f32>>,
}

/// One unit's result: the mean loss over the rows, and how many rows are exactly right.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Knocked {
    pub(super) loss: f32,
    pub(super) exact: usize,
}

impl Knockouts {
    pub(super) fn new(
        (inputs, targets): (Vec<u32>, Vec<u32>),
        (rows, positions): (usize, usize),
        (layers, heads): (usize, usize),
        fill: Fill,
        per_position: bool,
    ) -> Knockouts {
        Knockouts { inputs, targets, rows, positions, layers, heads, fill, per_position, clean: OnceLock::new() }
    }

    /// How many units: the model whole, each head, each MLP.
    pub(super) fn units(&self) -> usize {
        1 + self.layers * (self.heads + 1)
    }

    /// The part unit `i` knocks out (none for unit 0, the model whole).
    fn site(&self, i: usize) -> Option<Site> {
        let heads = self.layers * self.heads;
        match i {
            0 => None,
            i if i <= heads => Some(Site::Head { layer: (i - 1) / self.heads, head: (i - 1) % self.heads }),
            i => Some(Site::Mlp { layer: i - 1 - heads }),
        }
    }

    /// The unit that knocks `site` out.
    pub(super) fn unit(&self, site: Site) -> usize {
        match site {
            Site::Head { layer, head } => 1 + layer * self.heads + head,
            _ => 1 + self.layers * self.heads + site.layer(),
        }
    }

    /// The rows as the model reads them.
    pub(super) fn ids(&self) -> (Vec<usize>, Vec<usize>) {
        (self.inputs.iter().map(|&i| i as usize).collect(), crate::data::targets(&self.targets))
    }

    /// Units `range` computed with `model`, whose shape must be the plan's; buffers from `ws`.
    pub(super) fn knock(&self, model: &GPT, range: std::ops::Range<usize>, ws: &Workspace) -> Result<Vec<Knocked>> {
        let cfg = model.config();
        let n = self.rows.checked_mul(self.positions);
        if (cfg.n_layer, cfg.n_head) != (self.layers, self.heads)
            || n != Some(self.inputs.len())
            || n != Some(self.targets.len())
            || range.end > self.units()
        {
            return Err(Error::Data(bug("the ablation grid's plan does not fit this model")));
        }
        let (idx, targets) = self.ids();
        let batch = Batch { idx: &idx, targets: &targets, b: self.rows, t: self.positions };
        let clean = self.clean(model, &idx)?;
        range
            .map(|i| {
                let edits: Vec<Edit> =
                    self.site(i).map(|site| clean.edit(site, cfg.n_embd, self.heads)).into_iter().collect();
                let from = edits.first().map_or(self.layers, |e| e.site.layer());
                let (loss, right) = model.score_from(ws, batch, from, &clean.residual[from], &edits)?;
                Ok(Knocked { loss, exact: right.iter().filter(|&&r| r).count() })
            })
            .collect()
    }

    /// The rows' pass without edits and the fills it gives: made the first time.
    fn clean(&self, model: &GPT, idx: &[usize]) -> Result<&Clean> {
        if let Some(clean) = self.clean.get() {
            return Ok(clean);
        }
        let made = self.pass(model, idx)?;
        Ok(self.clean.get_or_init(|| made))
    }

    fn pass(&self, model: &GPT, idx: &[usize]) -> Result<Clean> {
        let trace = model.trace_edited(idx, self.rows, self.positions, &[])?;
        let (c, layers) = (model.config().n_embd, self.layers);
        let (heads, mlps) = match self.fill {
            Fill::Zero => (vec![vec![0.0; self.positions * c]; layers], vec![vec![0.0; self.positions * c]; layers]),
            Fill::Mean => {
                let mean = |values: &[Vec<f32>]| values.iter().map(|v| self.mean_rows(v)).collect();
                (mean(&trace.heads), mean(&trace.mlp))
            }
        };
        Ok(Clean { residual: trace.residual, heads, mlps })
    }

    /// The mean over the rows of `values` (rows × T × C): at each position, or over all
    /// positions and repeated at each.
    fn mean_rows(&self, values: &[f32]) -> Vec<f32> {
        let (b, t) = (self.rows, self.positions);
        let c = values.len() / (b * t);
        let mut mean = vec![0.0f64; t * c];
        for row in values.chunks_exact(t * c) {
            mean.iter_mut().zip(row).for_each(|(m, &v)| *m += v as f64);
        }
        if !self.per_position {
            let mut over_positions = vec![0.0f64; c];
            mean.chunks_exact(c).for_each(|p| over_positions.iter_mut().zip(p).for_each(|(o, v)| *o += v));
            mean = over_positions.repeat(t);
            mean.iter_mut().for_each(|m| *m /= t as f64);
        }
        mean.iter().map(|&m| (m / b as f64) as f32).collect()
    }

    /// A unit's scores: accuracy for a task (`task`).
    pub(super) fn score(&self, knocked: Knocked, task: bool) -> Score {
        Score { loss: knocked.loss, accuracy: task.then_some(knocked.exact as f32 / self.rows as f32) }
    }

    /// The grid at `step` from every unit's result, in unit order.
    pub(super) fn grid(&self, step: usize, knocked: &[Knocked], task: bool) -> Result<AblationGrid> {
        if knocked.len() != self.units() {
            return Err(Error::Data(bug(format!(
                "the ablation grid has {} of its {} parts",
                knocked.len(),
                self.units()
            ))));
        }
        let whole = self.score(knocked[0], task);
        let (mut head_loss, mut head_accuracy, mut mlp_loss, mut mlp_accuracy) = (vec![], vec![], vec![], vec![]);
        for (i, &k) in knocked.iter().enumerate().skip(1) {
            let ablated = self.score(k, task);
            let (loss, accuracy) = match self.site(i) {
                Some(Site::Head { .. }) => (&mut head_loss, &mut head_accuracy),
                _ => (&mut mlp_loss, &mut mlp_accuracy),
            };
            loss.push(ablated.loss - whole.loss);
            if let (Some(a), Some(b)) = (whole.accuracy, ablated.accuracy) {
                accuracy.push(a - b);
            }
        }
        let (fill, rows) = (self.fill, self.rows);
        Ok(AblationGrid { step, fill, rows, whole, head_loss, head_accuracy, mlp_loss, mlp_accuracy })
    }

    /// The edit that knocks `site` out, by this plan's fill.
    pub(super) fn edit(&self, model: &GPT, site: Site) -> Result<Edit> {
        Ok(self.clean(model, &self.ids().0)?.edit(site, model.config().n_embd, self.heads))
    }
}

impl Clean {
    fn edit(&self, site: Site, c: usize, heads: usize) -> Edit {
        let with = match site {
            Site::Head { layer, head } => head_columns(&self.heads[layer], c, head, c / heads),
            _ => self.mlps[site.layer()].clone(),
        };
        Edit { site, with }
    }
}
