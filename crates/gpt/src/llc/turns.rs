//! Where a learning coefficient's curve over training turns: the stages Hoogland et al. (2024)
//! read off it. A turn is a peak or a trough that the curve then leaves by more than its noise
//! (twice the estimates' typical spread) and by more than a tenth of its whole range, so the
//! chains' scatter between two records is never one.

use serde::Serialize;

/// A peak (the curve rose to it and fell) or a trough (the reverse), at a record's step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum Turn {
    Peak { step: usize, value: f64 },
    Trough { step: usize, value: f64 },
}

/// The turns of a curve of records (step, estimate, its spread over chains), in order of step.
pub fn turning_points(curve: &[(usize, f64, f64)]) -> Vec<Turn> {
    let values: Vec<f64> = curve.iter().map(|r| r.1).filter(|v| v.is_finite()).collect();
    if values.len() < 3 {
        return vec![];
    }
    let range = values.iter().copied().fold(f64::MIN, f64::max) - values.iter().copied().fold(f64::MAX, f64::min);
    let mut spreads: Vec<f64> = curve.iter().map(|r| r.2).filter(|s| s.is_finite()).collect();
    spreads.sort_by(f64::total_cmp);
    let typical = spreads.get(spreads.len() / 2).copied().unwrap_or(0.0);
    let threshold = (2.0 * typical).max(range / 10.0);
    let mut turns = vec![];
    let mut records = curve.iter().filter(|r| r.1.is_finite()).map(|r| (r.0, r.1));
    let first = records.next().expect("three finite records");
    // Before the curve has gone either way: its lowest and highest so far.
    let (mut low, mut high) = (first, first);
    // Once it has: which way, and the extreme it has reached since its last turn.
    let mut going: Option<(bool, (usize, f64))> = None;
    for (step, value) in records {
        going = match going {
            None if value - low.1 > threshold => Some((true, (step, value))),
            None if high.1 - value > threshold => Some((false, (step, value))),
            None => {
                (low, high) = (
                    if value < low.1 { (step, value) } else { low },
                    if value > high.1 { (step, value) } else { high },
                );
                None
            }
            Some((up, extreme)) if (up && value > extreme.1) || (!up && value < extreme.1) => Some((up, (step, value))),
            Some((up, extreme)) if (value - extreme.1).abs() > threshold => {
                let (step_at, at) = extreme;
                turns.push(if up {
                    Turn::Peak { step: step_at, value: at }
                } else {
                    Turn::Trough { step: step_at, value: at }
                });
                Some((!up, (step, value)))
            }
            kept => kept,
        };
    }
    turns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(values: &[f64]) -> Vec<(usize, f64, f64)> {
        values.iter().enumerate().map(|(i, &v)| (10 * i, v, 0.2)).collect()
    }

    #[test]
    fn a_rise_and_fall_turns_once_at_its_peak_and_scatter_does_not_turn() {
        let turns = turning_points(&curve(&[0.3, 4.6, 5.6, 5.8, 6.7, 17.5, 33.3, 24.7, 20.3, 17.3, 13.5, 13.7, 12.1]));
        assert_eq!(turns, [Turn::Peak { step: 60, value: 33.3 }]);
        assert!(turning_points(&curve(&[5.0, 5.3, 4.9, 5.2, 5.1, 4.8])).is_empty(), "within the noise");
        let both = turning_points(&curve(&[1.0, 9.0, 2.0, 2.5, 8.0]));
        assert_eq!(both, [Turn::Peak { step: 10, value: 9.0 }, Turn::Trough { step: 20, value: 2.0 }]);
        assert!(turning_points(&curve(&[1.0, f64::NAN])).is_empty());
    }
}
