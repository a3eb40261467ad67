//! What training records: each step's stats and loss, each evaluation, the head scores the views
//! read over time, and the moments the loss chart marks.

use serde::{Deserialize, Serialize};

/// What one optimisation step did.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct StepStats {
    /// Steps completed, including this one.
    pub step: usize,
    pub loss: f32,
    pub lr: f32,
    /// Global gradient norm before clipping.
    pub grad_norm: f32,
    /// Tokens this step trained on (batch × block).
    pub tokens: usize,
}

/// Mean losses over random batches of each split and, for a task, the share of errors the
/// model answers exactly right in each (training errors, and held-out ones).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Evaluation {
    pub step: usize,
    pub train_loss: f32,
    pub val_loss: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_accuracy: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub val_accuracy: Option<f32>,
}

/// Held-out accuracy at which a task counts as solved for the chart's mark.
pub const GENERALISED: f32 = 0.95;

/// The moments the loss chart marks: when an induction head first formed, and for a task the
/// first evaluation that answered every training problem right and the first that answered
/// [`GENERALISED`] of held-out ones right. Grokking shows as a long gap between the last two.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Milestones {
    pub induction: Option<crate::inspect::scores::Onset>,
    pub memorised: Option<usize>,
    pub generalised: Option<usize>,
}

/// Every step's training loss and every evaluation so far, so a resumed run can redraw its curve.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default)]
pub struct History {
    pub losses: Vec<f32>,
    pub evals: Vec<Evaluation>,
    /// Every attention head's scores at each evaluation (see [`crate::inspect::scores`]).
    pub heads: Vec<crate::inspect::scores::HeadScores>,
    /// Every head's and MLP's mean-ablation cost at each evaluation (see [`crate::inspect::records::AblationGrid`]).
    pub ablations: Vec<crate::inspect::records::AblationGrid>,
    /// Q-, K- and V-composition between heads of consecutive layers at each evaluation.
    pub composition: Vec<crate::inspect::records::Composition>,
    /// Grokking's progress measures at each evaluation of a modular-addition run.
    pub fourier: Vec<crate::inspect::records::FourierPoint>,
    /// Each step's training time since the first step, in seconds: the steps' own time, evaluations
    /// left out, so runs compare by what their training cost. Kept while it covers every step (a
    /// run saved before it was recorded has none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub seconds: Vec<f32>,
}

impl History {
    /// A task's accuracy marks (none for a text); the run adds the induction onset
    /// ([`Run::milestones`](crate::Run::milestones)).
    pub fn milestones(&self) -> Milestones {
        let first = |reached: &dyn Fn(&Evaluation) -> bool| self.evals.iter().find(|e| reached(e)).map(|e| e.step);
        Milestones {
            induction: None,
            memorised: first(&|e| e.train_accuracy.is_some_and(|a| a >= 1.0)),
            generalised: first(&|e| e.val_accuracy.is_some_and(|a| a >= GENERALISED)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milestones_are_the_first_evaluations_past_each_mark() {
        let eval = |step, train: f32, val: f32| Evaluation {
            step,
            train_loss: 1.0,
            val_loss: 1.0,
            train_accuracy: Some(train),
            val_accuracy: Some(val),
        };
        let history = History {
            evals: vec![
                eval(0, 0.0, 0.0),
                eval(50, 0.99, 0.1),
                eval(100, 1.0, 0.2),
                eval(150, 0.98, 0.96),
                eval(200, 1.0, 1.0),
            ],
            ..History::default()
        };
        assert_eq!(history.milestones(), Milestones { induction: None, memorised: Some(100), generalised: Some(150) });
        let text = History {
            evals: vec![Evaluation { train_accuracy: None, val_accuracy: None, ..eval(0, 0.0, 0.0) }],
            ..history
        };
        assert_eq!(text.milestones(), Milestones::default());
    }
}
