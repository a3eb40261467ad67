//! Generation one token at a time with a key/value cache (`kv_cache.rs`): each new token runs
//! the model on one position, and its attention (`attention.rs`, `forward_cached`) reads the keys
//! and values cached for the earlier ones instead of rerunning the whole context. A test holds it
//! equal to the whole-sequence forward pass.

use super::gpt::GPT;
use super::kv_cache::{KvCache, LayerCache};
use crate::error::{Error, Result};
use crate::words::runs;

impl GPT {
    /// Feeds `token` at the next position of `cache` and writes the logits for the token after it
    /// into `logits`. The cache holds at most `block_size` positions.
    pub fn decode_next(&self, token: u32, cache: &mut KvCache, logits: &mut Vec<f32>) -> Result<()> {
        let cfg = self.config();
        let (c, pos, token) = (cfg.n_embd, cache.len, token as usize);
        if pos >= cfg.block_size {
            return Err(Error::Data(runs::cache_full(cfg.block_size)));
        }
        if token >= cfg.vocab_size {
            return Err(Error::Data(runs::token_outside(token, cfg.vocab_size)));
        }
        let p = &self.params().values;
        cache.layers.resize_with(cfg.n_layer, LayerCache::default);
        let KvCache { layers, scratch: s, .. } = cache;
        let mut x = std::mem::take(&mut s.x);
        x.clear();
        x.extend_from_slice(&self.wte.slice(p)[token * c..(token + 1) * c]);
        if let Some(wpe) = self.wpe {
            x.iter_mut().zip(&wpe.slice(p)[pos * c..(pos + 1) * c]).for_each(|(a, b)| *a += b);
        }
        for (block, layer) in self.blocks.iter().zip(layers.iter_mut()) {
            block.forward_cached(p, &mut x, layer, s);
        }
        self.ln_f.forward_row(p, &x, &mut s.h);
        self.lm_head.forward_row(p, &s.h, logits);
        s.x = x;
        cache.len += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Activation, NormKind};
    use crate::GPTConfig;

    #[test]
    fn cached_logits_match_the_full_forward_pass() {
        for (bias, norm, activation, tie, rope, qk_norm) in [
            (true, NormKind::LayerNorm, Activation::Gelu, true, false, false),
            (false, NormKind::RmsNorm, Activation::Relu, false, false, true),
            (false, NormKind::LayerNorm, Activation::Gelu, true, true, false),
            (false, NormKind::LayerNorm, Activation::Gelu, true, true, true),
        ] {
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
                rope,
                qk_norm,
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
