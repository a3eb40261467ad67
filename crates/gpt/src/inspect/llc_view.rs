//! The learning coefficient view: the live records over training (in the history, so an open view
//! costs training nothing) and, when asked, the LLC of some parts now at the calibrated defaults,
//! each chain's losses and MALA acceptance with what their traces say (devinterp's diagnostics:
//! `llc::judge`). In the page the chains of an estimate are shared among the workers as a job.

use super::look::{value, Look};
use crate::error::Result;
use crate::llc::{judge, Llc, LlcConfig, Verdict};
use crate::model::{uniform_loss, WeightPart};
use crate::run::LlcCurve;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct LlcView {
    pub curve: LlcCurve,
    /// The calibrated setting an estimate takes unless asked otherwise.
    pub defaults: LlcConfig,
    /// The last estimate asked for: now when asked, else the last one the page's workers made.
    pub estimated: Option<Estimated>,
}

/// Estimates of some parts at one step, with the setting they used and what they took.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Estimated {
    pub step: usize,
    pub config: LlcConfig,
    pub rows: usize,
    pub parts: Vec<Judged>,
    /// Milliseconds from the job's start to its last chain, and on how many workers (none when
    /// computed here, with the view).
    pub ms: Option<f64>,
    pub workers: usize,
}

/// One part's estimate and what its chains' traces say.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Judged {
    pub part: WeightPart,
    pub llc: Llc,
    pub verdict: Verdict,
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let run = look.run;
    let uniform = f64::from(uniform_loss(run.model().config().vocab_size));
    let judged = |parts: Vec<WeightPart>, estimates: Vec<Llc>| {
        let each = parts.into_iter().zip(estimates);
        each.map(|(part, llc)| Judged { part, verdict: judge(&llc, Some(uniform)), llc }).collect()
    };
    let estimated = if look.questions.llc.estimate {
        let requests = look.questions.llc.requests();
        let parts: Vec<WeightPart> = requests.iter().map(|r| r.part).collect();
        let (config, rows) = (requests[0].config, requests[0].rows.unwrap_or(crate::run::LLC_ROWS));
        let labels: Vec<String> = parts.iter().map(WeightPart::label).collect();
        let shared =
            run.kept_llc().filter(|k| k.step == run.step_count() && k.plan.parts == labels && k.plan.config == config);
        let (ms, workers) = shared.map_or((None, run.workers()), |k| (Some(k.ms), k.workers));
        let parts_judged = judged(parts, run.llcs(&requests)?);
        Some(Estimated { step: run.step_count(), config, rows, parts: parts_judged, ms, workers })
    } else {
        run.kept_llc().map(|k| Estimated {
            step: k.step,
            config: k.plan.config,
            rows: k.plan.rows,
            parts: judged(k.plan.parts.iter().filter_map(|l| WeightPart::parse(l)).collect(), k.estimates.clone()),
            ms: Some(k.ms),
            workers: k.workers,
        })
    };
    value(LlcView { curve: run.llc_curve(), defaults: LlcConfig::default(), estimated })
}
