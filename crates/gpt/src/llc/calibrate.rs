//! Choosing the step ε and localisation γ, as devinterp's SGLD calibration notebook does: short
//! chains at each pair of a grid (nβ held at the one asked), each judged by the signs the notebook
//! teaches to read. A healthy pair is on a plateau when its estimate agrees within a tenth with
//! the next smaller step's at the same γ (so the step is not what it measures). The pick is a pair
//! on a plateau with the weakest pull (γ distorts the posterior it localises), then the largest
//! step (the fastest to mix), then the better MALA acceptance; without any plateau, the healthy
//! pair first in that order.

use super::{estimate, Landscape, Llc, LlcConfig};
use crate::error::Result;
use serde::Serialize;

/// How the chains at one pair of the grid fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum Verdict {
    Healthy,
    /// A chain's loss stopped being finite: the step is too big.
    Diverged,
    /// The chains' loss fell below the trained weights' on average, by more than twice the
    /// estimate's standard error: they kept training rather than sampling, so w* is not a minimum
    /// at this temperature. (A part whose loss is flat near w* reads near 0 either side.)
    Descending,
    /// Their loss was still climbing in the last quarter of the draws (by more than a tenth of its
    /// rise, and than twice the chains' standard error): they had not settled.
    Climbing,
    /// Their loss rose more than a tenth of the way from the trained weights' to a uniform
    /// guess's: they left the trained solution's basin.
    Strayed,
}

/// One pair of the grid and what its chains gave.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Cell {
    pub epsilon: f32,
    pub gamma: f32,
    pub mean: f64,
    pub std: f64,
    /// The chains' mean MALA acceptance.
    pub acceptance: f64,
    pub verdict: Verdict,
}

/// The sweep, and the cell it picked (none if no cell was healthy).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Calibration {
    pub cells: Vec<Cell>,
    pub pick: Option<usize>,
}

impl Calibration {
    /// `base` with the picked step and localisation.
    pub fn picked(&self, base: &LlcConfig) -> Option<LlcConfig> {
        let cell = &self.cells[self.pick?];
        Some(LlcConfig { epsilon: cell.epsilon, gamma: cell.gamma, ..*base })
    }
}

/// The grid the sweep starts from: steps from 1e-6 to 1e-2 a half decade apart (devinterp's
/// range), and pulls of 100, 1,000 and 10,000.
pub fn default_grid() -> (Vec<f32>, Vec<f32>) {
    let epsilons = (0..9).map(|i| 10f32.powf(-6.0 + i as f32 / 2.0)).collect();
    (epsilons, vec![100.0, 1_000.0, 10_000.0])
}

/// Runs `base`'s chains at each pair of `epsilons` × `gammas`; `uniform` is the loss of a
/// uniform guess, if the landscape has one (without it no cell is judged to have strayed).
pub fn calibrate(
    landscape: &mut dyn Landscape,
    w_star: &[f32],
    restrict: Option<&[bool]>,
    base: &LlcConfig,
    (epsilons, gammas): (&[f32], &[f32]),
    uniform: Option<f64>,
) -> Result<Calibration> {
    let mut cells = Vec::with_capacity(epsilons.len() * gammas.len());
    for &gamma in gammas {
        for &epsilon in epsilons {
            let config = LlcConfig { epsilon, gamma, ..*base };
            let llc = estimate(landscape, w_star, restrict, &config)?;
            let acceptance = llc.acceptance.iter().sum::<f64>() / llc.acceptance.len() as f64;
            let verdict = judge(&llc, uniform);
            cells.push(Cell { epsilon, gamma, mean: llc.mean, std: llc.std, acceptance, verdict });
        }
    }
    let healthy = |i: usize| cells[i].verdict == Verdict::Healthy;
    let plateau = |i: usize| {
        let smaller = !i.is_multiple_of(epsilons.len()) && healthy(i - 1);
        smaller && (cells[i].mean / cells[i - 1].mean - 1.0).abs() <= 0.1
    };
    let order = |i: &usize| (plateau(*i), -cells[*i].gamma, cells[*i].epsilon, cells[*i].acceptance);
    let pick = (0..cells.len()).filter(|&i| healthy(i)).max_by(|a, b| order(a).partial_cmp(&order(b)).expect("finite"));
    Ok(Calibration { cells, pick })
}

/// The signs devinterp's notebooks read in an estimate's loss traces; `uniform` as [`calibrate`]
/// takes it.
pub fn judge(llc: &Llc, uniform: Option<f64>) -> Verdict {
    if !llc.diverged().is_empty() {
        return Verdict::Diverged;
    }
    let finished = llc.per_chain.iter().filter(|v| v.is_finite()).count().max(1) as f64;
    if llc.mean + 2.0 * llc.std / finished.sqrt() < 0.0 {
        return Verdict::Descending;
    }
    let rise = llc.mean / llc.nbeta;
    if uniform.is_some_and(|u| rise > (u - llc.init_loss) / 10.0) {
        return Verdict::Strayed;
    }
    // The mean loss of each chain's last quarter against its third, over the chains.
    let quarter = |t: &[f32], q: usize| {
        let n = t.len() / 4;
        t[q * n..(q + 1) * n].iter().map(|&l| f64::from(l)).sum::<f64>() / n.max(1) as f64
    };
    let climbs: Vec<f64> = llc.traces.iter().map(|t| quarter(t, 3) - quarter(t, 2)).collect();
    let n = climbs.len() as f64;
    let climb = climbs.iter().sum::<f64>() / n;
    let spread = climbs.iter().map(|c| (c - climb).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    if climb > (rise / 10.0).max(2.0 * (spread / n).sqrt()) {
        return Verdict::Climbing;
    }
    Verdict::Healthy
}
