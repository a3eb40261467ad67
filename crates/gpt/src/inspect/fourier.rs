//! Grokking's progress measures (Nanda et al. 2023, "Progress measures for grokking via
//! mechanistic interpretability"), for modular addition mod p. A model that has grokked adds by
//! rotating: it writes each number as waves cos(2πk·a/p), sin(2πk·a/p) at a few key frequencies k.
//!
//! - The embedding in the Fourier basis: the norm of the number tokens' embeddings along each
//!   frequency's cos and sin (with the constant as frequency 0). Key frequencies are those holding
//!   at least [`KEY_SHARE`] times an even share of the norm.
//! - Over all p² problems, the answer's logits as a function of (a, b) split into the directions
//!   cos(2πk(a+b)/p) and sin(2πk(a+b)/p), which are orthonormal over the grid. The restricted loss
//!   keeps only the key frequencies' directions and the constant (on every problem); the excluded
//!   loss removes the key frequencies' directions (on the training problems). As the circuit forms,
//!   the restricted loss falls and the excluded loss rises, long before held-out accuracy jumps.
//!
//! Evaluations of a modular run record them, with the key frequencies of that step, as often as
//! their p² forward passes stay within [`RECORD_SHARE`] of the training computed in between.

use super::look::{value, Look};
pub use super::records::FourierPoint;
use crate::data::{Split, TaskData};
use crate::error::Result;
use crate::Run;
use std::f64::consts::TAU;

/// A key frequency holds at least this many times the norm² an even spread gives each.
pub const KEY_SHARE: f32 = 2.0;
/// Problems per forward pass.
const ROWS_PER_PASS: usize = 1024;
/// The recorded measures cost at most 1/this of the training between two records.
const RECORD_SHARE: usize = 80;

impl Run {
    /// The progress measures now, for a run on modular addition.
    pub fn fourier(&self) -> Result<Option<FourierPoint>> {
        let (Some(task), Some(p)) = (self.task(), self.modulus()) else { return Ok(None) };
        let norms = embedding_norms(self, p);
        let key = key_frequencies(&norms);
        let (logits, targets, train) = self.all_answers(task, p)?;
        let v = self.vocab_size();
        let basis: Vec<(Vec<f64>, Vec<f64>)> = key.iter().map(|&k| waves(p, k)).collect();
        let (mut restricted, mut excluded) = (vec![0.0; p * p * v], logits.clone());
        // Each token's column: its part along the key frequencies, summed contiguously, then
        // written into the rows once.
        let (mut values, mut along_keys) = (vec![0.0; p * p], vec![0.0; p * p]);
        for token in 0..v {
            values.iter_mut().enumerate().for_each(|(i, x)| *x = logits[i * v + token]);
            let mean = values.iter().sum::<f64>() / (p * p) as f64;
            along_keys.fill(0.0);
            for wave in basis.iter().flat_map(|(cos, sin)| [cos, sin]) {
                let along = values.iter().zip(wave).map(|(x, w)| x * w).sum::<f64>();
                along_keys.iter_mut().zip(wave).for_each(|(sum, w)| *sum += along * w);
            }
            for (i, part) in along_keys.iter().enumerate() {
                restricted[i * v + token] = mean + part;
                excluded[i * v + token] -= part;
            }
        }
        let everything = vec![true; p * p];
        let held_out: Vec<bool> = train.iter().map(|t| !t).collect();
        Ok(Some(FourierPoint {
            step: self.step_count(),
            norms,
            key,
            restricted_loss: mean_loss(&restricted, &targets, v, &everything),
            excluded_loss: mean_loss(&excluded, &targets, v, &train),
            train_loss: mean_loss(&logits, &targets, v, &train),
            test_loss: mean_loss(&logits, &targets, v, &held_out),
        }))
    }

    /// At an evaluation of a modular run: the progress measures (p² problems through the
    /// model), into the history, if enough training came since the last record (or the start)
    /// for them to cost at most 1/[`RECORD_SHARE`] of it, and always at the end. On the grokking
    /// preset that is every 500 steps.
    pub(crate) fn record_fourier(&mut self) -> Result<()> {
        let Some(p) = self.modulus() else { return Ok(()) };
        let last = self.history().records::<FourierPoint>().last().map_or(0, |point| point.step);
        let due = self.record_due(last, p * p * self.seq_len(), RECORD_SHARE);
        if let Some(point) = due.then(|| self.fourier()).transpose()?.flatten() {
            self.trainer.history_mut().record(&point);
        }
        Ok(())
    }

    /// The modulus p of a run on modular addition.
    fn modulus(&self) -> Option<usize> {
        let task = self.task().filter(|t| t.config().task().name() == "modular")?;
        Some(task.config().reader().count("p"))
    }

    /// The latest measures: the history's last record (at most an evaluation or two old, and
    /// of the last step once a run ends), so that an open view costs training nothing; computed
    /// for a run without records.
    fn latest_fourier(&self) -> Result<Option<FourierPoint>> {
        match self.history().records::<FourierPoint>().pop() {
            Some(point) => Ok(Some(point)),
            None => self.fourier(),
        }
    }

    /// Whether each problem a + b (row a·p + b) of a modular run is a training problem, for
    /// another implementation to check the excluded loss against.
    pub fn modular_training_problems(&self) -> Result<Vec<bool>> {
        let task = self.trained_task()?;
        let p = task.config().reader().count("p");
        let block = self.model().config().block_size;
        (0..p * p)
            .map(|i| Ok(task.split_of(&task.parse(&format!("{}+{}", i / p, i % p), block)?) == Split::Train))
            .collect()
    }

    /// The logits (p², V) for the answer of every problem a + b (row a·p + b), each problem's
    /// answer, and whether it is a training problem.
    fn all_answers(&self, task: &TaskData, p: usize) -> Result<(Vec<f64>, Vec<usize>, Vec<bool>)> {
        let (t, block, v) = (task.seq_len(), self.model().config().block_size, self.vocab_size());
        let (mut logits, mut targets) = (Vec::with_capacity(p * p * v), vec![]);
        let train = self.modular_training_problems()?;
        for first in (0..p * p).step_by(ROWS_PER_PASS) {
            let rows = ROWS_PER_PASS.min(p * p - first);
            let (mut x, mut y, mut at) = (vec![], vec![], 0);
            for i in first..first + rows {
                let problem = task.parse(&format!("{}+{}", i / p, i % p), block)?;
                at = problem.prompt_len - 1; // the answer is read after `a + b =`
                targets.push(problem.answer()[0] as usize);
                task.push_row(&problem, &mut x, &mut y, false);
            }
            let ids: Vec<usize> = x.iter().map(|&i| i as usize).collect();
            let all = self.model().logits(&ids, rows, t)?;
            let all = all.as_slice().expect("fresh logits");
            (0..rows)
                .for_each(|r| logits.extend(all[(r * t + at) * v..(r * t + at + 1) * v].iter().map(|&l| l as f64)));
        }
        Ok((logits, targets, train))
    }
}

/// cos(2πk·s/p) and sin(2πk·s/p) over the grid of s = a + b, each of unit norm.
fn waves(p: usize, k: usize) -> (Vec<f64>, Vec<f64>) {
    let unit = |mut w: Vec<f64>| {
        let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
        w.iter_mut().for_each(|x| *x /= norm);
        w
    };
    let angle = |i: usize| TAU * k as f64 * ((i / p + i % p) % p) as f64 / p as f64;
    (unit((0..p * p).map(|i| angle(i).cos()).collect()), unit((0..p * p).map(|i| angle(i).sin()).collect()))
}

/// The norm of the number tokens' embeddings (ids 0 to p − 1) along each frequency.
fn embedding_norms(run: &Run, p: usize) -> Vec<f32> {
    let wte = run.model().params().get("transformer.wte.weight").and_then(|w| w.as_slice()).unwrap_or(&[]);
    let c = run.model().config().n_embd;
    let along = |wave: &dyn Fn(usize) -> f64| -> f64 {
        (0..c).map(|ch| (0..p).map(|a| wave(a) * wte[a * c + ch] as f64).sum::<f64>().powi(2)).sum()
    };
    let scale = (2.0 / p as f64).sqrt();
    let mut norms = vec![(along(&|_| 1.0 / (p as f64).sqrt())).sqrt() as f32];
    for k in 1..=(p - 1) / 2 {
        let angle = move |a: usize| TAU * (k * a) as f64 / p as f64;
        let cos = along(&|a| scale * angle(a).cos());
        let sin = along(&|a| scale * angle(a).sin());
        norms.push((cos + sin).sqrt() as f32);
    }
    norms
}

/// The frequencies (1 and up) holding at least [`KEY_SHARE`] times an even share of the norm²,
/// strongest first.
pub fn key_frequencies(norms: &[f32]) -> Vec<usize> {
    let squares: Vec<f32> = norms.iter().skip(1).map(|n| n * n).collect();
    let even = squares.iter().sum::<f32>() / squares.len().max(1) as f32;
    let mut key: Vec<usize> = (1..norms.len()).filter(|&k| squares[k - 1] >= KEY_SHARE * even && even > 0.0).collect();
    key.sort_by(|&a, &b| norms[b].total_cmp(&norms[a]));
    key
}

/// The mean cross-entropy of the rows of `logits` (rows × V) picked by `keep`.
fn mean_loss(logits: &[f64], targets: &[usize], v: usize, keep: &[bool]) -> f32 {
    let (mut total, mut n) = (0.0, 0);
    for ((row, &target), _) in logits.chunks_exact(v).zip(targets).zip(keep).filter(|(_, &k)| k) {
        let top = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let sum = row.iter().map(|x| (x - top).exp()).sum::<f64>();
        total += sum.ln() + top - row[target];
        n += 1;
    }
    (total / n.max(1) as f64) as f32
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let run = look.run;
    match run.latest_fourier()? {
        None => Ok(serde_json::Value::Null),
        Some(now) => value(serde_json::json!({ "now": now, "history": run.history().records::<FourierPoint>() })),
    }
}
