//! Composition scores (Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"):
//! how much a head in one layer reads, through its queries (Q), keys (K) or values (V), what a
//! head in the layer before wrote. For heads h1 (writing, OV₁ = W_V W_O) and h2 (reading,
//! QK₂ = W_Q W_Kᵀ, OV₂) the score is ‖OV₁·M‖ / (‖OV₁‖ ‖M‖), M = QK₂, QK₂ᵀ or OV₂ (Frobenius
//! norms), as TransformerLens's `all_composition_scores`: each reading matrix with its layer's
//! norm weight folded in, and for LayerNorm every matrix centred over the stream's channels, as
//! TransformerLens loads a model by default (`fold_ln`, `center_writing_weights`). With rotary positions or QK-norm the projections are scored before those.
//! An induction head shows as strong K-composition with a previous-token head before it.

use super::look::{value, Look};
pub use super::records::Composition;
use super::scores::{HeadScores, INDUCTION_THRESHOLD};
use crate::error::{Error, Result};
use crate::ops::NormKind;
use crate::words::runs::bug;
use crate::Run;
use serde::Serialize;

/// A previous-token head and the induction head after it, and their K-composition.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Circuit {
    /// The previous-token head's layer; the induction head is in the next.
    pub layer: usize,
    pub previous: usize,
    pub induction: usize,
    pub k: f32,
    /// Whether the induction head passes the induction mark.
    pub formed: bool,
}

/// A head's matrices, TransformerLens's way round (rows: the residual stream's channels): W_Q,
/// W_K, W_V (C × hs) and W_Oᵀ (C × hs).
struct HeadWeights {
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    o: Vec<f64>,
}

impl Run {
    /// The Q-, K- and V-composition between every head and every head of the next layer.
    pub fn composition(&self) -> Result<Composition> {
        let cfg = self.model().config();
        let heads: Vec<Vec<HeadWeights>> = (0..cfg.n_layer).map(|l| self.head_weights(l)).collect::<Result<_>>()?;
        let hs = cfg.n_embd / cfg.n_head;
        let (mut q, mut k, mut v) = (vec![], vec![], vec![]);
        for pair in heads.windows(2) {
            for h1 in &pair[0] {
                let ov1 = frobenius(&h1.v, &identity(hs), &h1.o, hs);
                for h2 in &pair[1] {
                    // A head that writes or reads nothing (zero weights, say an imported pruned
                    // head) composes with nothing: 0. A NaN from 0/0 would reach the history, which
                    // a checkpoint stores as JSON (NaN as null) and could then not open.
                    let score = |x_m: Vec<f64>, y: &[f64], norm2: f64| match ov1 * norm2 {
                        norms if norms > 0.0 => (frobenius(&h1.v, &x_m, y, hs) / norms).sqrt() as f32,
                        _ => 0.0,
                    };
                    let qk2 = frobenius(&h2.q, &identity(hs), &h2.k, hs);
                    let ov2 = frobenius(&h2.v, &identity(hs), &h2.o, hs);
                    // OV₁·QK₂ = V₁ (O₁Q₂) K₂ᵀ; OV₁·QK₂ᵀ = V₁ (O₁K₂) Q₂ᵀ; OV₁·OV₂ = V₁ (O₁V₂) O₂.
                    q.push(score(cross(&h1.o, &h2.q, hs), &h2.k, qk2));
                    k.push(score(cross(&h1.o, &h2.k, hs), &h2.q, qk2));
                    v.push(score(cross(&h1.o, &h2.v, hs), &h2.o, ov2));
                }
            }
        }
        Ok(Composition { step: self.step_count(), q, k, v })
    }

    /// At an evaluation: the composition scores, into the history.
    pub(crate) fn record_composition(&mut self) -> Result<()> {
        if self.model().config().n_layer >= 2 {
            let scores = self.composition()?;
            self.trainer.history_mut().record(&scores);
        }
        Ok(())
    }

    /// Layer `layer`'s heads' matrices, the norm's weight folded into the reading ones.
    fn head_weights(&self, layer: usize) -> Result<Vec<HeadWeights>> {
        let cfg = self.model().config();
        let (c, nh) = (cfg.n_embd, cfg.n_head);
        let hs = c / nh;
        let get = |name: String| {
            self.model()
                .params()
                .get(&name)
                .and_then(|w| w.as_slice())
                .ok_or(Error::Data(bug(format!("the model has no {name}"))))
        };
        let qkv = get(format!("transformer.h.{layer}.attn.c_attn.weight"))?; // (3C, C)
        let proj = get(format!("transformer.h.{layer}.attn.c_proj.weight"))?; // (C, C)
        let norm = get(format!("transformer.h.{layer}.ln_1.weight"))?;
        let centred = cfg.norm == NormKind::LayerNorm;
        Ok((0..nh)
            .map(|h| {
                // Column j of W_Q is row h·hs + j of the fused weight, scaled by the norm's weight.
                // LayerNorm's output has no component along the all-ones direction, nor does
                // anything written after centring: that part of a matrix does nothing.
                let centre = |mut m: Vec<f64>| {
                    for j in (0..hs).filter(|_| centred) {
                        let mean = (0..c).map(|i| m[i * hs + j]).sum::<f64>() / c as f64;
                        (0..c).for_each(|i| m[i * hs + j] -= mean);
                    }
                    m
                };
                let read = |part: usize| {
                    let mut m = vec![0.0; c * hs];
                    for j in 0..hs {
                        let row = &qkv[(part * c + h * hs + j) * c..][..c];
                        (0..c).for_each(|i| m[i * hs + j] = (row[i] * norm[i]) as f64);
                    }
                    centre(m)
                };
                let mut o = vec![0.0; c * hs];
                (0..c).for_each(|i| (0..hs).for_each(|j| o[i * hs + j] = proj[i * c + h * hs + j] as f64));
                HeadWeights { q: read(0), k: read(1), v: read(2), o: centre(o) }
            })
            .collect())
    }

    /// The previous-token head and the induction head after it at the last evaluation.
    fn circuit(&self, composition: &Composition) -> Option<Circuit> {
        let nh = self.model().config().n_head;
        let HeadScores { induction, previous_token, .. } = self.history().records::<HeadScores>().pop()?;
        let best =
            |range: std::ops::Range<usize>, scores: &[f32]| range.max_by(|&a, &b| scores[a].total_cmp(&scores[b]));
        let i = best(nh..induction.len(), &induction)?;
        let layer = i / nh - 1;
        let p = best(layer * nh..(layer + 1) * nh, &previous_token)?;
        let (previous, induction_head) = (p % nh, i % nh);
        let k = composition.k[(layer * nh + previous) * nh + induction_head];
        Some(Circuit { layer, previous, induction: induction_head, k, formed: induction[i] >= INDUCTION_THRESHOLD })
    }
}

fn identity(n: usize) -> Vec<f64> {
    (0..n * n).map(|i| if i % (n + 1) == 0 { 1.0 } else { 0.0 }).collect()
}

/// `aᵀ b` for two n × hs matrices: hs × hs.
fn cross(a: &[f64], b: &[f64], hs: usize) -> Vec<f64> {
    let mut out = vec![0.0; hs * hs];
    for (ra, rb) in a.chunks_exact(hs).zip(b.chunks_exact(hs)) {
        for i in 0..hs {
            for j in 0..hs {
                out[i * hs + j] += ra[i] * rb[j];
            }
        }
    }
    out
}

/// `m n` for two hs × hs matrices.
fn product(m: &[f64], n: &[f64], hs: usize) -> Vec<f64> {
    let mut out = vec![0.0; hs * hs];
    for i in 0..hs {
        for k in 0..hs {
            (0..hs).for_each(|j| out[i * hs + j] += m[i * hs + k] * n[k * hs + j]);
        }
    }
    out
}

/// ‖X M Yᵀ‖² for X, Y (C × hs) and M (hs × hs), as tr(Mᵀ XᵀX M YᵀY): the C × C product is never made.
fn frobenius(x: &[f64], m: &[f64], y: &[f64], hs: usize) -> f64 {
    let (gx, gy) = (cross(x, x, hs), cross(y, y, hs));
    let gm = product(&gx, m, hs); // XᵀX M
    let a = cross(m, &gm, hs); // Mᵀ XᵀX M
    (0..hs).flat_map(|i| (0..hs).map(move |j| (i, j))).map(|(i, j)| a[i * hs + j] * gy[j * hs + i]).sum()
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let run = look.run;
    if run.model().config().n_layer < 2 {
        return Ok(serde_json::Value::Null);
    }
    let now = run.composition()?;
    let circuit = run.circuit(&now);
    value(serde_json::json!({ "now": now, "history": run.history().records::<Composition>(), "circuit": circuit }))
}

#[cfg(test)]
mod tests {
    use crate::inspect::Composition;
    use crate::Run;

    #[test]
    fn a_head_with_zero_weights_scores_zero_and_the_run_still_saves_and_opens() {
        let mut run = super::super::tests::pangram_run();
        // Layer 0's head 0 writes nothing: its columns of c_proj are zero.
        let params = run.trainer.model.params_mut();
        let mut proj = params.get("transformer.h.0.attn.c_proj.weight").unwrap().clone();
        proj.slice_mut(ndarray::s![.., 0..8]).fill(0.0);
        params.set("transformer.h.0.attn.c_proj.weight", proj).unwrap();
        run.evaluate().unwrap();
        let scores = run.history().records::<Composition>().pop().unwrap();
        for kind in [&scores.q, &scores.k, &scores.v] {
            assert_eq!(&kind[..2], [0.0, 0.0], "head 0 of layer 0 composes with nothing");
            assert!(kind[2..].iter().all(|s| s.is_finite() && *s > 0.0), "{kind:?}");
        }
        let opened = Run::open(&run.save().unwrap()).unwrap();
        assert_eq!(opened.history().records::<Composition>().pop().unwrap().k, scores.k);
    }
}
