//! Generation one token at a time with a key/value cache: each new token runs the model on one
//! position and attends to the keys and values cached for the earlier ones, instead of rerunning
//! the whole context.

use crate::error::{Error, Result};
use crate::model::{Linear, Norm, GPT};
use crate::ops::activation::activate;
use crate::ops::norm::normalize_row;
use crate::ops::{softmax_in_place, NormKind};
use ndarray::ArrayD;

/// The keys and values of every position seen so far, per layer, plus scratch rows reused
/// from token to token.
#[derive(Default)]
pub struct KvCache {
    /// Per layer: (positions, C) keys and values, heads side by side.
    keys: Vec<Vec<f32>>,
    values: Vec<Vec<f32>>,
    len: usize,
    scratch: Scratch,
}

#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    h: Vec<f32>,
    qkv: Vec<f32>,
    y: Vec<f32>,
    wide: Vec<f32>,
    scores: Vec<f32>,
}

impl KvCache {
    /// Positions cached so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.keys.iter_mut().chain(&mut self.values).for_each(Vec::clear);
        self.len = 0;
    }
}

/// `out = W x (+ b)` for one row, with `W` stored (out, in) as PyTorch does.
fn linear_row(params: &[ArrayD<f32>], l: &Linear, x: &[f32], out: &mut Vec<f32>) {
    let w = params[l.w].as_slice().expect("standard layout");
    let n_out = w.len() / x.len();
    out.clear();
    out.extend(w.chunks_exact(x.len()).map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum::<f32>()));
    if let Some(b) = l.b {
        out.iter_mut().zip(params[b].iter()).for_each(|(o, b)| *o += b);
    }
    debug_assert_eq!(out.len(), n_out);
}

fn norm_row(params: &[ArrayD<f32>], kind: NormKind, n: &Norm, x: &[f32], out: &mut Vec<f32>) {
    let w = params[n.w].as_slice().expect("standard layout");
    let b = n.b.map(|b| params[b].as_slice().expect("standard layout"));
    out.resize(x.len(), 0.0);
    normalize_row(kind == NormKind::LayerNorm, x, w, b, out);
}

impl GPT {
    /// Feeds `token` at the next position of `cache` and writes the logits for the token after it
    /// into `logits`. The cache holds at most `block_size` positions.
    pub fn decode_next(&self, token: u32, cache: &mut KvCache, logits: &mut Vec<f32>) -> Result<()> {
        let cfg = self.config();
        let (c, pos, token) = (cfg.n_embd, cache.len, token as usize);
        if pos >= cfg.block_size {
            return Err(Error::Data(format!("the cache is full: the model reads at most {} tokens", cfg.block_size)));
        }
        if token >= cfg.vocab_size {
            return Err(Error::Data(format!("token id {token} is outside the vocabulary of {}", cfg.vocab_size)));
        }
        let p = &self.params().values;
        cache.keys.resize_with(cfg.n_layer, Vec::new);
        cache.values.resize_with(cfg.n_layer, Vec::new);
        let KvCache { keys, values, scratch: s, .. } = cache;
        let row = |i: usize, r: usize| &p[i].as_slice().expect("standard layout")[r * c..(r + 1) * c];
        s.x.clear();
        s.x.extend(row(self.wte, token).iter().zip(row(self.wpe, pos)).map(|(a, b)| a + b));
        let (n_head, hs) = (cfg.n_head, c / cfg.n_head);
        let scale = 1.0 / (hs as f32).sqrt();
        for (layer, blk) in self.blocks.iter().enumerate() {
            norm_row(p, cfg.norm, &blk.ln_1, &s.x, &mut s.h);
            linear_row(p, &blk.c_attn, &s.h, &mut s.qkv);
            let (q, kv) = s.qkv.split_at(c);
            keys[layer].extend_from_slice(&kv[..c]);
            values[layer].extend_from_slice(&kv[c..]);
            let (ks, vs) = (&keys[layer], &values[layer]);
            s.y.clear();
            s.y.resize(c, 0.0);
            for h in 0..n_head {
                let head = h * hs..(h + 1) * hs;
                s.scores.clear();
                s.scores
                    .extend(ks.chunks_exact(c).map(|k| {
                        k[head.clone()].iter().zip(&q[head.clone()]).map(|(a, b)| a * b).sum::<f32>() * scale
                    }));
                softmax_in_place(&mut s.scores);
                for (weight, v) in s.scores.iter().zip(vs.chunks_exact(c)) {
                    s.y[head.clone()].iter_mut().zip(&v[head.clone()]).for_each(|(y, v)| *y += weight * v);
                }
            }
            linear_row(p, &blk.attn_proj, &s.y, &mut s.h);
            s.x.iter_mut().zip(&s.h).for_each(|(x, y)| *x += y);
            norm_row(p, cfg.norm, &blk.ln_2, &s.x, &mut s.h);
            linear_row(p, &blk.c_fc, &s.h, &mut s.wide);
            s.wide.iter_mut().for_each(|v| *v = activate(cfg.activation, *v));
            linear_row(p, &blk.mlp_proj, &s.wide, &mut s.h);
            s.x.iter_mut().zip(&s.h).for_each(|(x, y)| *x += y);
        }
        norm_row(p, cfg.norm, &self.ln_f, &s.x, &mut s.h);
        linear_row(p, &Linear { w: self.lm_head, b: None }, &s.h, logits);
        cache.len += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Activation;
    use crate::GPTConfig;

    #[test]
    fn cached_logits_match_the_full_forward_pass() {
        for (bias, norm, activation, tie) in
            [(true, NormKind::LayerNorm, Activation::Gelu, true), (false, NormKind::RmsNorm, Activation::Relu, false)]
        {
            let config = GPTConfig {
                vocab_size: 9,
                block_size: 6,
                n_layer: 2,
                n_head: 2,
                n_embd: 8,
                bias,
                norm,
                activation,
                tie_weights: tie,
                ..Default::default()
            };
            let model = GPT::new(config, 4).unwrap();
            let ids = [3usize, 1, 4, 1, 5, 8];
            let full = model.logits(&ids, 1, 6).unwrap();
            let full = full.as_slice().unwrap();
            let (mut cache, mut logits) = (KvCache::default(), Vec::new());
            for (t, &id) in ids.iter().enumerate() {
                model.decode_next(id as u32, &mut cache, &mut logits).unwrap();
                for (a, b) in logits.iter().zip(&full[t * 9..(t + 1) * 9]) {
                    assert!((a - b).abs() < 1e-5, "position {t}: {a} vs {b}");
                }
            }
            let full_err = model.decode_next(0, &mut cache, &mut logits).unwrap_err().to_string();
            assert!(full_err.contains("cache is full"), "{full_err}");
        }
    }
}
