//! Direct logit attribution: the final residual stream is a sum of what each part wrote (the
//! embeddings, each head, each layer's attention bias, each MLP), so the answer's logit splits
//! into each part's direct share once the final norm is read as the linear map it is at this
//! input: centre (LayerNorm), divide by the stream's own scale, then the norm's weight and the
//! output projection. The norm's bias adds the rest. The parts add up to the logit exactly; as
//! TransformerLens's `apply_ln_to_stack` and `logit_attrs`.

use super::look::{token_texts, value, Look};
use super::question::Pair;
use crate::error::{Error, Result};
use crate::model::Site;
use crate::ops::NormKind;
use crate::words::{runs::bug, views, Value};
use crate::Run;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Attribution {
    /// The clean input's tokens, as text; the answer is read after the last.
    pub tokens: Vec<String>,
    pub answer: String,
    pub wrong: String,
    pub logit: f32,
    /// logit(answer) − logit(wrong).
    pub difference: f32,
    pub parts: Vec<Part>,
}

/// One part's direct share of the answer's logit and of the logit difference.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Part {
    /// The embeddings, `L1H2`, `MLP1` (as the page names them, counting from 1), a layer's
    /// attention bias or the final norm's bias: words where the part has no such name.
    #[cfg_attr(feature = "ts", tsify(type = "WordsValue"))]
    pub name: Value,
    pub logit: f32,
    pub difference: f32,
}

impl Run {
    /// Every part's direct share of `pair`'s clean answer, at the clean input's last position.
    pub fn attribute(&self, pair: &Pair) -> Result<Attribution> {
        let model = self.model();
        let cfg = model.config();
        let (t, c, nh) = (pair.clean.len(), cfg.n_embd, cfg.n_head);
        let hs = c / nh;
        let trace = model.trace(&pair.clean)?;
        let row = |rows: &[f32]| rows[(t - 1) * c..t * c].to_vec();
        let weight = |name: &str| {
            model
                .params()
                .get(name)
                .and_then(|w| w.as_slice())
                .ok_or_else(|| Error::Data(bug(format!("the model has no {name}"))))
        };
        let unembed = model.unembedding();
        let norm = weight("transformer.ln_f.weight")?;
        let centred = cfg.norm == NormKind::LayerNorm;
        let x = row(&trace.residual[cfg.n_layer]);
        let mean = if centred { x.iter().sum::<f32>() / c as f32 } else { 0.0 };
        let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / c as f32;
        let scale = 1.0 / (var + crate::ops::norm::NORM_EPS).sqrt();
        let direction = |token: usize| -> Vec<f32> {
            unembed[token * c..(token + 1) * c].iter().zip(norm).map(|(u, w)| u * w).collect()
        };
        let (to_answer, to_wrong) = (direction(pair.answer), direction(pair.wrong));
        let read = |v: &[f32]| {
            let m = if centred { v.iter().sum::<f32>() / c as f32 } else { 0.0 };
            let dot = |d: &[f32]| v.iter().zip(d).map(|(x, d)| (x - m) * scale * d).sum::<f32>();
            let logit = dot(&to_answer);
            (logit, logit - dot(&to_wrong))
        };
        let mut parts = vec![];
        let mut push = |name: Value, (logit, difference): (f32, f32)| parts.push(Part { name, logit, difference });
        push(views::embeddings_part().into(), read(&row(&trace.residual[0])));
        for layer in 0..cfg.n_layer {
            let proj = weight(&format!("transformer.h.{layer}.attn.c_proj.weight"))?;
            let z = row(&trace.heads[layer]);
            for head in 0..nh {
                let written: Vec<f32> = proj
                    .chunks_exact(c)
                    .map(|w| w[head * hs..(head + 1) * hs].iter().zip(&z[head * hs..]).map(|(w, z)| w * z).sum())
                    .collect();
                push(Site::Head { layer, head }.label().into(), read(&written));
            }
            if let Ok(bias) = weight(&format!("transformer.h.{layer}.attn.c_proj.bias")) {
                push(views::attention_bias(layer + 1).into(), read(bias));
            }
            push(Site::Mlp { layer }.label().into(), read(&row(&trace.mlp[layer])));
        }
        if let Ok(bias) = weight("transformer.ln_f.bias") {
            let on =
                |token: usize| bias.iter().zip(&unembed[token * c..(token + 1) * c]).map(|(b, u)| b * u).sum::<f32>();
            let logit = on(pair.answer);
            push(views::final_norm_bias().into(), (logit, logit - on(pair.wrong)));
        }
        let v = cfg.vocab_size;
        let last = &trace.logits[(t - 1) * v..t * v];
        Ok(Attribution {
            tokens: token_texts(self, &pair.clean),
            answer: self.tokenizer().token_text(pair.answer as u32),
            wrong: self.tokenizer().token_text(pair.wrong as u32),
            logit: last[pair.answer],
            difference: last[pair.answer] - last[pair.wrong],
            parts,
        })
    }
}

pub fn view(look: &Look) -> Result<serde_json::Value> {
    let q = &look.questions;
    value(look.run.attribute(&look.run.question_pair(&q.clean, &q.corrupted)?)?)
}
