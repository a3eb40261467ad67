//! The local learning coefficient's chains as shared work: each chain of each part's estimate is a
//! unit (a chain is the same on any worker, seeded by its number), and comes back as a partial
//! whose floats are its losses (see `llc/`).

use super::partial::{one_per_unit, Partial};
use crate::error::{Error, Result};
use crate::llc::{summarise, Chain, Llc, LlcConfig};
use crate::words::runs::bug;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Estimates of the LLC over some parts of a model, all with one setting and on one pool of
/// batches: `parts.len() × config.chains` chains, part after part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LlcPlan {
    /// Each part's label, as the model names its parts (`whole`, `L1H2`, `MLP1`, `embeddings`).
    pub parts: Vec<String>,
    pub config: LlcConfig,
    pub nbeta: f64,
    /// L(w*), which the run takes before the chains: each estimate is nβ (E[L] − it).
    pub init_loss: f64,
    /// Each batch's token ids and targets, `rows` rows of `t`.
    pub batches: Vec<(Vec<usize>, Vec<usize>)>,
    pub rows: usize,
    pub t: usize,
    /// The weights the chains start from, flat, when not the model's own (each head's estimate at
    /// a live record's kept weights): they travel with the plan to the helpers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Vec<f32>>,
}

impl LlcPlan {
    pub fn units(&self) -> usize {
        self.parts.len() * self.config.chains
    }

    /// The part (its label) and the chain unit `unit` is.
    pub fn unit(&self, unit: usize) -> (&str, usize) {
        (&self.parts[unit / self.config.chains], unit % self.config.chains)
    }

    /// Checks a plan that came from elsewhere (another worker) before computing with it.
    pub(crate) fn check(&self, units: &Range<usize>) -> Result<()> {
        let n = self.rows * self.t;
        let fits = self.batches.iter().all(|(ids, targets)| ids.len() == n && targets.len() == n);
        if n == 0 || self.batches.is_empty() || !fits || units.is_empty() || units.end > self.units() {
            return Err(Error::Data(bug(format!(
                "chains {units:?} do not fit this plan for the learning coefficient"
            ))));
        }
        Ok(())
    }

    /// A chain as it travels: its acceptance as the partial's loss, its losses as the floats
    /// (padded to the draws with NaN after a chain that ended early) and how many it has.
    pub fn partial(&self, unit: usize, chain: Chain) -> Partial {
        let count = chain.trace.len();
        let mut losses = chain.trace;
        losses.resize(self.config.draws, f32::NAN);
        Partial { first: unit, count: 1, loss: chain.acceptance, exact: count, grads: losses }
    }

    /// Each part's estimate from its chains' partials.
    pub fn estimates(&self, partials: Vec<Partial>) -> Result<Vec<Llc>> {
        let partials = one_per_unit(partials, self.units(), "chains of the learning coefficient")?;
        let mut chains = partials.into_iter().map(|p| {
            let mut trace = p.grads;
            trace.truncate(p.exact);
            Chain { trace, acceptance: p.loss }
        });
        let each = |_| summarise(chains.by_ref().take(self.config.chains).collect(), self.init_loss, self.nbeta);
        Ok(self.parts.iter().map(each).collect())
    }
}

/// Estimates a finished job left: the step and plan they are for, and what they took.
#[derive(Clone, Debug)]
pub struct KeptLlc {
    pub step: usize,
    pub plan: LlcPlan,
    pub estimates: Vec<Llc>,
    /// From the job's start to its last reply.
    pub ms: f64,
    pub workers: usize,
}
