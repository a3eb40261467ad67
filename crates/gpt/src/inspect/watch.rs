//! What watches every run the page and the CLI make ([`crate::Run`]): the views inside the model.
//! At each evaluation they measure it and keep their records in its history under their own
//! names (every head's scores, the ablation grid, composition, grokking's progress measures, the
//! circuit, the learning coefficient), and for this session an attention snapshot (the
//! time-lapse's) and, at the live LLC's records, the weights its heads' estimates start from.

use super::llc_heads::{HeadsLlcPoint, KeptWeights};
use super::look::Questions;
use super::records::{AblationGrid, CircuitPoint, Composition, FourierPoint};
use super::scores::HeadScores;
use super::snapshots::Timelapse;
use crate::error::{Error, Result};
use crate::llc::Llc;
use crate::run::{LlcPoint, Onset, Watch};
use crate::train::Record;
use crate::words::runs::bug;
use crate::work::edge_plan::EdgePlan;
use crate::work::llc_plan::LlcPlan;
use serde::Deserialize;

/// A run as the page and the CLI drive it: the GPT, its data and trainer, watched by the views
/// inside the model.
pub type Run = crate::run::Run<Views>;

/// The views' part of a run: what they keep for this session only (the records go in the
/// run's history).
#[derive(Default)]
pub struct Views {
    /// Attention snapshots from each evaluation in this session (not saved: they are large).
    pub timelapse: Timelapse,
    /// The weights at each live LLC record of this session (not saved either).
    pub(crate) llc_weights: KeptWeights,
}

impl Watch for Views {
    const RECORDS: &'static [&'static str] = &[
        HeadScores::NAME,
        AblationGrid::NAME,
        Composition::NAME,
        FourierPoint::NAME,
        CircuitPoint::NAME,
        LlcPoint::NAME,
        HeadsLlcPoint::NAME,
    ];

    fn evaluated(run: &mut Run) -> Result<()> {
        run.record_heads()?;
        run.record_ablations()?;
        run.record_composition()?;
        run.record_fourier()?;
        run.record_circuit()
    }

    fn live_llc_plan(run: &Run) -> Result<Option<LlcPlan>> {
        run.llc_record_plan()
    }

    fn live_llc_recorded(run: &mut Run, llc: Llc) -> Result<()> {
        run.keep_llc_record(llc);
        Ok(())
    }

    fn induction_onset(run: &Run) -> Option<Onset> {
        run.induction_onset()
    }

    fn circuit_formed(run: &Run) -> Option<usize> {
        run.circuit_formed()
    }

    fn heads_llc_plan(run: &Run) -> Result<Option<(usize, LlcPlan)>> {
        run.heads_llc_plan()
    }

    fn heads_llc_recorded(run: &mut Run, step: usize, estimates: Vec<Llc>) -> Result<usize> {
        Ok(run.keep_heads_llc(step, &estimates))
    }

    fn circuit_plan(run: &Run, questions: &serde_json::Value) -> Result<Option<EdgePlan>> {
        let q = Questions::deserialize(questions)
            .map_err(|e| Error::Config(bug(format!("the circuit view cannot read what it is asked: {e}"))))?;
        run.circuit_plan(&q.circuit, (&q.clean, &q.corrupted))
    }
}

impl Run {
    /// The attention snapshots recorded at each evaluation in this session.
    pub fn timelapse(&self) -> &Timelapse {
        &self.watch.timelapse
    }
}
