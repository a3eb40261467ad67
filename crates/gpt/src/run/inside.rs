//! Everything the page's "Inside the model" views show, computed from a run's current weights:
//! embeddings, positions, the residual stream, the MLPs, per-token surprise, temperature and the
//! logit lens; and, recorded at each evaluation, every head's scores and an attention snapshot
//! for the time-lapse.

use super::{NextToken, Run};
use crate::data::Split;
use crate::error::{Error, Result};
use crate::inspect::heads::{self, HeadScores};
use crate::inspect::pca::pca;
use crate::inspect::views::{
    mlp_stats, norms, softmax_at, Embeddings, Inside, Positions, ProbeToken, Residual, Temperatures, Timelapse,
};
use crate::sample::most_likely;

/// Held-out windows averaged for the loss by position.
const POSITION_WINDOWS: usize = 16;
/// Temperatures shown side by side.
const TEMPERATURES: [f32; 3] = [0.5, 1.0, 2.0];
/// Guesses listed per token and per layer of the lens; tokens shown at each temperature.
const GUESSES: usize = 5;
const TEMPERATURE_TOKENS: usize = 8;
/// Attention snapshots kept for the time-lapse; past this, every other one is dropped.
const MAX_SNAPSHOTS: usize = 40;
/// Seed of the induction probe's random tokens.
const INDUCTION_SEED: u64 = 0x1d0c;

impl Run {
    /// The first block of held-out text or a held-out problem: the default probe (none without
    /// text).
    fn held_out(&self) -> Vec<usize> {
        let probe = self.data.as_ref().map_or(vec![], |d| d.probe(self.model.config().block_size));
        probe.into_iter().map(|t| t as usize).collect()
    }

    /// The last `block_size` tokens of `text`, encoded.
    fn window(&self, text: &str) -> Result<Vec<usize>> {
        let ids = self.tokenizer.encode(text)?;
        let block = self.model.config().block_size;
        Ok(ids[ids.len().saturating_sub(block)..].iter().map(|&i| i as usize).collect())
    }

    /// Every view for `probe` (empty: the held-out text) and the sampling `prompt`.
    pub fn inside(&self, probe: &str, prompt: &str) -> Result<Inside<'_>> {
        let cfg = self.model.config();
        let probe = if probe.is_empty() { self.held_out() } else { self.window(probe)? };
        if probe.is_empty() {
            return Err(Error::Data("type a probe text: with no training text there is no held-out one".into()));
        }
        let trace = self.model.trace(&probe)?;
        let (c, v, t) = (cfg.n_embd, cfg.vocab_size, probe.len());
        let text = |id: usize| self.tokenizer.token_text(id as u32);
        let guesses = |probs: &[f32]| -> Vec<NextToken> {
            most_likely(probs, GUESSES)
                .into_iter()
                .map(|(id, prob)| NextToken { token: text(id as usize), prob })
                .collect()
        };
        let probe_tokens = probe
            .iter()
            .enumerate()
            .map(|(i, &id)| {
                let Some(before) = i.checked_sub(1) else {
                    return ProbeToken { token: text(id), loss: None, guesses: vec![] };
                };
                let mut probs = trace.logits[before * v..i * v].to_vec();
                softmax_at(&mut probs, 1.0);
                ProbeToken {
                    token: text(id),
                    loss: Some(-probs[id].max(f32::MIN_POSITIVE).ln()),
                    guesses: guesses(&probs),
                }
            })
            .collect();
        let layer_norms = |rows: &[Vec<f32>]| rows.iter().flat_map(|r| norms(r, c)).collect();
        let residual = Residual {
            t,
            stream: layer_norms(&trace.residual),
            attn: layer_norms(&trace.attn),
            mlp: layer_norms(&trace.mlp),
        };
        Ok(Inside {
            step: self.step,
            n_layer: cfg.n_layer,
            n_head: cfg.n_head,
            probe: probe_tokens,
            loss_by_position: self.loss_by_position()?,
            embeddings: self.embeddings(),
            positions: self.positions(),
            residual,
            mlp: mlp_stats(&trace.pre_activations),
            temperatures: self.temperatures(prompt)?,
            lens: self.lens(prompt, &guesses)?,
            heads: &self.history.heads,
            induction_onset: self.induction_onset(),
        })
    }

    /// The mean held-out loss at each position (over the rows with a target there).
    fn loss_by_position(&self) -> Result<Vec<f32>> {
        let Some(data) = &self.data else { return Ok(vec![]) };
        let (x, y, t) = data.position_rows(POSITION_WINDOWS, self.model.config().block_size);
        if x.is_empty() {
            return Ok(vec![]);
        }
        let ids: Vec<usize> = x.iter().map(|&t| t as usize).collect();
        let logits = self.model.logits(&ids, ids.len() / t, t)?;
        let (logits, v) = (logits.as_slice().expect("fresh logits"), self.vocab_size());
        let (mut sums, mut counts) = (vec![0.0; t], vec![0u32; t]);
        for ((i, row), &target) in logits.chunks_exact(v).enumerate().zip(&y) {
            if target == crate::data::IGNORE {
                continue;
            }
            let mut probs = row.to_vec();
            softmax_at(&mut probs, 1.0);
            sums[i % t] -= probs[target as usize].max(f32::MIN_POSITIVE).ln();
            counts[i % t] += 1;
        }
        Ok(sums.into_iter().zip(counts).map(|(s, n)| s / n.max(1) as f32).collect())
    }

    fn embeddings(&self) -> Embeddings {
        let (v, c) = (self.vocab_size(), self.model.config().n_embd);
        let wte = self.model.params().get("transformer.wte.weight").expect("every model has wte");
        let (coords, explained) = pca(wte.as_slice().expect("standard layout"), v, c, 2);
        Embeddings {
            tokens: (0..v as u32).map(|id| self.tokenizer.token_text(id)).collect(),
            points: coords.chunks_exact(2).map(|p| [p[0], p[1]]).collect(),
            explained,
        }
    }

    /// The learned position table and how alike its rows are; none with rotary embeddings.
    fn positions(&self) -> Option<Positions> {
        let (t, c) = (self.model.config().block_size, self.model.config().n_embd);
        let wpe = self.model.params().get("transformer.wpe.weight")?;
        let values = wpe.as_slice().expect("standard layout").to_vec();
        let n: Vec<f32> = norms(&values, c).map(|n| n.max(f32::MIN_POSITIVE)).collect();
        let row = |i: usize| &values[i * c..(i + 1) * c];
        let cosine = (0..t * t)
            .map(|k| row(k / t).iter().zip(row(k % t)).map(|(a, b)| a * b).sum::<f32>() / (n[k / t] * n[k % t]))
            .collect();
        Some(Positions { t, c, values, cosine })
    }

    fn temperatures(&self, prompt: &str) -> Result<Temperatures> {
        let ids = self.tokenizer.encode(prompt)?;
        let probs: Vec<Vec<f32>> =
            TEMPERATURES.iter().map(|&temp| crate::next_token_probs(&self.model, &ids, temp)).collect::<Result<_>>()?;
        let top = most_likely(&probs[1], TEMPERATURE_TOKENS);
        Ok(Temperatures {
            temperatures: TEMPERATURES.to_vec(),
            tokens: top.iter().map(|&(id, _)| self.tokenizer.token_text(id)).collect(),
            probs: probs.iter().map(|p| top.iter().map(|&(id, _)| p[id as usize]).collect()).collect(),
        })
    }

    fn lens(&self, prompt: &str, guesses: &dyn Fn(&[f32]) -> Vec<NextToken>) -> Result<Vec<Vec<NextToken>>> {
        let ids = self.window(prompt)?;
        let ids = if ids.is_empty() { vec![0] } else { ids }; // as sampling starts an empty prompt
        let trace = self.model.trace(&ids)?;
        let c = self.model.config().n_embd;
        let last = (ids.len() - 1) * c..ids.len() * c;
        Ok(trace
            .residual
            .iter()
            .map(|stream| {
                let mut probs = self.model.lens(&stream[last.clone()]);
                softmax_at(&mut probs, 1.0);
                guesses(&probs)
            })
            .collect())
    }

    /// When an induction head first formed, if one can: it needs a layer before it to read the
    /// previous token from, and a task's other problems are no repeats for its score to mean one.
    pub fn induction_onset(&self) -> Option<heads::Onset> {
        let cfg = self.model.config();
        let repeats = self.task().is_none_or(|t| t.config().task().copies());
        (cfg.n_layer >= 2 && repeats).then(|| heads::induction_onset(&self.history.heads, cfg.n_head)).flatten()
    }

    /// The moments the loss chart marks: an induction head's onset, and a task's accuracy marks.
    pub fn milestones(&self) -> crate::Milestones {
        crate::Milestones { induction: self.induction_onset(), ..self.history.milestones() }
    }

    /// The sequence induction scores are read on, and where its repeat starts: random tokens
    /// repeated once; for the repeat task, one of its own problems (the same, its own letters).
    fn induction_probe(&self) -> (Vec<usize>, usize) {
        let cfg = self.model.config();
        if let Some(task) = self.task().filter(|t| t.config().task().copies()) {
            // Its letters, then the same again: the copy starts one letter before the answer.
            let problem = task.example(Split::Val, INDUCTION_SEED);
            return (problem.tokens.iter().map(|&t| t as usize).collect(), problem.prompt_len - 1);
        }
        let period = (cfg.block_size / 2).max(1);
        let probe = heads::induction_probe(cfg.vocab_size, period, INDUCTION_SEED);
        (probe[..(2 * period).min(cfg.block_size)].to_vec(), period)
    }

    /// At an evaluation: every head's scores, and (with text) an attention snapshot on the
    /// held-out probe for the time-lapse.
    pub(super) fn record_heads(&mut self) -> Result<()> {
        let (induction_probe, period) = self.induction_probe();
        let on_induction = self.model.attention(&induction_probe)?;
        let probe = self.held_out();
        let (maps, t) = if probe.len() > 1 {
            (self.model.attention(&probe)?, probe.len())
        } else {
            (on_induction.clone(), induction_probe.len())
        };
        self.history.heads.push(HeadScores {
            step: self.step,
            entropy: heads::entropy(&maps, t),
            previous_token: heads::previous_token(&maps, t),
            induction: heads::induction(&on_induction, induction_probe.len(), period),
        });
        if probe.len() > 1 {
            let lapse = &mut self.timelapse;
            if lapse.steps.len() == MAX_SNAPSHOTS {
                let keep = |i: &usize| i.is_multiple_of(2);
                lapse.steps = lapse.steps.iter().enumerate().filter(|(i, _)| keep(i)).map(|(_, s)| *s).collect();
                lapse.maps = std::mem::take(&mut lapse.maps)
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| keep(i))
                    .map(|(_, m)| m)
                    .collect();
            }
            lapse.tokens = probe.iter().map(|&id| self.tokenizer.token_text(id as u32)).collect();
            lapse.steps.push(self.step);
            lapse.maps.push(maps);
        }
        Ok(())
    }

    /// The attention snapshots recorded at each evaluation in this session.
    pub fn timelapse(&self) -> &Timelapse {
        &self.timelapse
    }
}

#[cfg(test)]
mod tests {
    use crate::{Budget, GPTConfig, Run, Settings, TrainConfig};

    #[test]
    fn every_view_has_its_shape_and_evaluations_record_heads() {
        let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, ..Default::default() };
        let train = TrainConfig { batch_size: 4, max_iters: 10, warmup_iters: 2, eval_iters: 1, ..Default::default() };
        let text = "the quick brown fox jumps over the lazy dog. ".repeat(20);
        let mut run = Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap();
        run.evaluate().unwrap();
        let inside = run.inside("", "the qu").unwrap();
        assert_eq!((inside.probe.len(), inside.loss_by_position.len()), (16, 16));
        assert!(inside.probe[0].loss.is_none() && inside.probe[1].guesses.len() == 5);
        assert_eq!(inside.embeddings.points.len(), run.vocab_size());
        let positions = inside.positions.as_ref().unwrap();
        assert_eq!((positions.values.len(), positions.cosine.len()), (16 * 16, 16 * 16));
        assert!((positions.cosine[0] - 1.0).abs() < 1e-5, "a position is like itself");
        assert_eq!((inside.residual.stream.len(), inside.residual.attn.len()), (3 * 16, 2 * 16));
        assert_eq!(inside.mlp.histogram[1].iter().sum::<u32>(), 16 * 64);
        assert_eq!(inside.lens.len(), 3);
        assert_eq!(inside.temperatures.probs.len(), 3);
        assert_eq!(inside.heads.len(), 1);
        assert_eq!(inside.heads[0].induction.len(), 4);
        assert_eq!(run.timelapse().maps.len(), 1);
        // The lens's last row is the model's own next-token prediction.
        let next = run.next_tokens("the qu", 1.0, 5).unwrap();
        for (lens, model) in inside.lens[2].iter().zip(&next.tokens) {
            assert!(lens.token == model.token && (lens.prob - model.prob).abs() < 1e-6, "{lens:?} vs {model:?}");
        }
        assert!(run.inside("QQQ", "").is_err(), "a probe must encode");
    }
}
