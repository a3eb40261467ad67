//! Generating text one token at a time, so a caller can stream tokens as they arrive.

use super::config::SampleConfig;
use crate::error::{Error, Result};
use crate::model::KvCache;
use crate::model::GPT;
use crate::rng::Rng;
use crate::words::runs;

/// The context a generation starts from: the prompt, or token 0 when it is empty (a newline in a
/// character vocabulary of ordinary text, as nanoGPT's `sample.py` starts from "\n").
fn start_context(prompt: &[u32]) -> Vec<u32> {
    if prompt.is_empty() {
        vec![0]
    } else {
        prompt.to_vec()
    }
}

/// The logits for the token after `context`, read from its last `block_size` tokens (nanoGPT's
/// crop) in one full forward pass.
fn last_logits(model: &GPT, context: &[u32], out: &mut Vec<f32>) -> Result<()> {
    let block = model.config().block_size;
    let window: Vec<usize> = context[context.len().saturating_sub(block)..].iter().map(|&t| t as usize).collect();
    let logits = model.logits(&window, 1, window.len())?;
    let v = model.config().vocab_size;
    out.clear();
    out.extend_from_slice(&logits.as_slice().expect("fresh logits")[(window.len() - 1) * v..]);
    Ok(())
}

/// The model's probability for each possible next token after `prompt` (started and cropped to
/// the last `block_size` tokens as sampling does), at `temperature` (which must be positive).
pub fn next_token_probs(model: &GPT, prompt: &[u32], temperature: f32) -> Result<Vec<f32>> {
    if !(temperature.is_finite() && temperature > 0.0) {
        return Err(Error::Config(runs::temperature(temperature)));
    }
    let mut probs = Vec::new();
    last_logits(model, &start_context(prompt), &mut probs)?;
    probs.iter_mut().for_each(|l| *l /= temperature);
    crate::ops::softmax_in_place(&mut probs);
    Ok(probs)
}

/// The `k` most likely tokens of a distribution and their probabilities, most likely first.
pub fn most_likely(probs: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut ranked: Vec<(u32, f32)> = probs.iter().enumerate().map(|(i, &p)| (i as u32, p)).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(k);
    ranked
}

/// A generation in progress: the context so far, its key/value cache and the random stream.
pub struct Sampler {
    context: Vec<u32>,
    config: SampleConfig,
    rng: Rng,
    produced: usize,
    cache: KvCache,
    /// The model version the cache was built from; training in between makes it stale.
    cache_version: u64,
    logits: Vec<f32>,
    weights: Vec<f32>,
    /// Off only in tests, to check the cache against full forward passes.
    use_cache: bool,
}

impl Sampler {
    /// Starts from `prompt`; an empty prompt starts from token 0.
    pub fn new(prompt: &[u32], config: SampleConfig) -> Result<Sampler> {
        config.validate()?;
        let context = start_context(prompt);
        let rng = Rng::new(config.seed);
        let (cache, logits, weights) = (KvCache::default(), vec![], vec![]);
        Ok(Sampler { context, config, rng, produced: 0, cache, cache_version: 0, logits, weights, use_cache: true })
    }

    /// The next token, or `None` once `max_new_tokens` have been produced. While the context
    /// fits in `block_size` each token costs one cached position; past it, the model reads the
    /// last `block_size` tokens afresh, as nanoGPT crops the context. If the model was trained
    /// since the last token, the cache is rebuilt from the context with the new weights.
    pub fn next_token(&mut self, model: &GPT) -> Result<Option<u32>> {
        self.next_token_where(model, |_| true)
    }

    /// As [`Sampler::next_token`], drawing only among the tokens `allowed` accepts: a token it
    /// refuses is taken out and the draw made again (the same draws for the same seed).
    pub fn next_token_where(&mut self, model: &GPT, allowed: impl Fn(u32) -> bool) -> Result<Option<u32>> {
        if self.produced >= self.config.max_new_tokens {
            return Ok(None);
        }
        let block = model.config().block_size;
        if self.use_cache && self.context.len() <= block {
            if self.cache_version != model.version() {
                self.cache.clear();
                self.cache_version = model.version();
            }
            while self.cache.len() < self.context.len() {
                model.decode_next(self.context[self.cache.len()], &mut self.cache, &mut self.logits)?;
            }
        } else {
            self.cache.clear();
            last_logits(model, &self.context, &mut self.logits)?;
        }
        Ok(Some(self.draw(allowed)))
    }

    /// As [`Sampler::next_token`], with the logits `logits_of` reads from the context's last
    /// `block` tokens (a pass with an edit, as steering makes), and no cache.
    pub fn next_token_from(
        &mut self,
        block: usize,
        logits_of: impl FnOnce(&[usize]) -> Result<Vec<f32>>,
    ) -> Result<Option<u32>> {
        if self.produced >= self.config.max_new_tokens {
            return Ok(None);
        }
        let window: Vec<usize> =
            self.context[self.context.len().saturating_sub(block)..].iter().map(|&t| t as usize).collect();
        self.logits = logits_of(&window)?;
        Ok(Some(self.draw(|_| true)))
    }

    /// Draws the next token from the logits held, among those `allowed` accepts, and adds it to
    /// the context.
    fn draw(&mut self, allowed: impl Fn(u32) -> bool) -> u32 {
        let mut token = self.pick() as u32;
        for _ in 1..self.logits.len() {
            if allowed(token) {
                break;
            }
            self.logits[token as usize] = f32::NEG_INFINITY;
            token = self.pick() as u32;
        }
        self.context.push(token);
        self.produced += 1;
        token
    }

    /// Draws from softmax(logits / temperature) restricted to the top k, or takes the argmax.
    fn pick(&mut self) -> usize {
        let logits = std::mem::take(&mut self.logits);
        let token = self.pick_from(&logits);
        self.logits = logits;
        token
    }

    fn pick_from(&mut self, logits: &[f32]) -> usize {
        if self.config.temperature == 0.0 || self.config.top_k == 1 {
            return first_max(logits);
        }
        draw_weights(logits, self.config.temperature, self.config.top_k, &mut self.weights);
        let total: f32 = self.weights.iter().sum();
        let mut u = self.rng.uniform() * total;
        for (i, &w) in self.weights.iter().enumerate() {
            if u < w {
                return i;
            }
            u -= w;
        }
        // Rounding left `u` past the last weight: take the last token that could be drawn.
        self.weights.iter().rposition(|&w| w > 0.0).unwrap_or_else(|| first_max(logits))
    }
}

/// The first of the largest `logits`.
fn first_max(logits: &[f32]) -> usize {
    logits.iter().enumerate().fold(0, |best, (i, &l)| if l > logits[best] { i } else { best })
}

/// What a draw at `temperature` (above 0) among the `top_k` likeliest (0: all) weighs each token
/// by, into `out`: exp((logit − max) / temperature) among them, 0 elsewhere, not normalised.
pub fn draw_weights(logits: &[f32], temperature: f32, top_k: usize, out: &mut Vec<f32>) {
    let cutoff = match top_k {
        k if k == 0 || k >= logits.len() => f32::NEG_INFINITY,
        k => {
            out.clear();
            out.extend_from_slice(logits);
            let (_, kth, _) = out.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
            *kth
        }
    };
    let max = logits[first_max(logits)];
    let inv_t = 1.0 / temperature;
    out.clear();
    out.extend(logits.iter().map(|&l| if l >= cutoff { ((l - max) * inv_t).exp() } else { 0.0 }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GPTConfig;

    fn model() -> GPT {
        let config = GPTConfig { vocab_size: 7, block_size: 4, n_layer: 1, n_head: 2, n_embd: 8, ..Default::default() };
        GPT::new(config, 3).unwrap()
    }

    fn run(model: &GPT, prompt: &[u32], config: SampleConfig) -> Vec<u32> {
        let mut s = Sampler::new(prompt, config).unwrap();
        std::iter::from_fn(|| s.next_token(model).unwrap()).collect()
    }

    #[test]
    fn seeded_streams_repeat_and_stop_at_the_length() {
        let m = model();
        let config = SampleConfig { temperature: 1.0, max_new_tokens: 20, ..Default::default() };
        let a = run(&m, &[1, 2], config.clone());
        assert_eq!(a.len(), 20, "runs past block_size by cropping the context");
        assert_eq!(a, run(&m, &[1, 2], config.clone()));
        assert_ne!(a, run(&m, &[1, 2], SampleConfig { seed: 9, ..config }));
        assert!(a.iter().all(|&t| t < 7));
    }

    #[test]
    fn the_cache_changes_no_token() {
        let m = model();
        for config in [
            SampleConfig { temperature: 1.0, max_new_tokens: 12, ..Default::default() },
            SampleConfig { temperature: 0.7, top_k: 3, seed: 11, max_new_tokens: 12, ..Default::default() },
        ] {
            let mut uncached = Sampler::new(&[2, 5], config.clone()).unwrap();
            uncached.use_cache = false;
            let reference: Vec<u32> = std::iter::from_fn(|| uncached.next_token(&m).unwrap()).collect();
            assert_eq!(run(&m, &[2, 5], config), reference);
        }
    }

    #[test]
    fn training_between_tokens_rebuilds_the_cache() {
        let config =
            GPTConfig { vocab_size: 7, block_size: 16, n_layer: 2, n_head: 2, n_embd: 8, ..Default::default() };
        let mut m = GPT::new(config, 5).unwrap();
        let sample = SampleConfig { temperature: 1.0, max_new_tokens: 10, ..Default::default() };
        let mut cached = Sampler::new(&[1, 4], sample.clone()).unwrap();
        let mut uncached = Sampler::new(&[1, 4], sample).unwrap();
        uncached.use_cache = false;
        for step in 0..10 {
            if step == 4 {
                // As a training step would: every weight moves.
                for w in m.params_mut().values.iter_mut() {
                    w.mapv_inplace(|x| x * 1.5 + 0.05);
                }
            }
            let (a, b) = (cached.next_token(&m).unwrap(), uncached.next_token(&m).unwrap());
            let gap = cached.logits.iter().zip(&uncached.logits).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
            assert!(gap < 1e-4, "step {step}: cached logits are off by {gap}");
            assert_eq!(a, b);
        }
    }

    #[test]
    fn greedy_and_top_1_take_the_argmax() {
        let m = model();
        let greedy = SampleConfig { temperature: 0.0, max_new_tokens: 6, ..Default::default() };
        let top1 = SampleConfig { temperature: 1.5, top_k: 1, seed: 5, max_new_tokens: 6, ..Default::default() };
        assert_eq!(run(&m, &[], greedy), run(&m, &[], top1));
    }

    #[test]
    fn top_k_only_draws_the_k_most_likely() {
        let mut s = Sampler::new(&[0], SampleConfig { temperature: 1.0, top_k: 2, ..Default::default() }).unwrap();
        let logits = [0.0, 3.0, -1.0, 2.9, 1.0];
        for _ in 0..200 {
            assert!(matches!(s.pick_from(&logits), 1 | 3));
        }
    }

    #[test]
    fn the_distribution_is_what_sampling_draws_from() {
        let m = model();
        let probs = next_token_probs(&m, &[1, 2, 3, 4, 5, 6], 1.0).unwrap();
        assert_eq!(probs.len(), 7);
        assert!((probs.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        let greedy = SampleConfig { temperature: 0.0, max_new_tokens: 1, ..Default::default() };
        let argmax = probs.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0 as u32;
        assert_eq!(run(&m, &[1, 2, 3, 4, 5, 6], greedy), [argmax]);
        let sharp = next_token_probs(&m, &[1, 2, 3, 4, 5, 6], 0.1).unwrap();
        assert!(sharp[argmax as usize] > probs[argmax as usize], "a low temperature sharpens the distribution");
        assert_eq!(next_token_probs(&m, &[], 1.0).unwrap(), next_token_probs(&m, &[0], 1.0).unwrap());
        assert!(next_token_probs(&m, &[1], 0.0).is_err());
        let top = most_likely(&probs, 3);
        assert_eq!(top.len(), 3);
        assert_eq!(top[0], (argmax, probs[argmax as usize]));
        assert!(top[0].1 >= top[1].1 && top[1].1 >= top[2].1);
        assert_eq!(most_likely(&probs, 100).len(), 7);
    }

    #[test]
    fn bad_settings_are_errors() {
        for (config, want) in [
            (SampleConfig { temperature: -1.0, ..Default::default() }, "temperature"),
            (SampleConfig { temperature: f32::NAN, ..Default::default() }, "temperature"),
            (SampleConfig { max_new_tokens: usize::MAX, ..Default::default() }, "max_new_tokens"),
        ] {
            let err = Sampler::new(&[], config).err().unwrap().to_string();
            assert!(err.contains(want), "{err}");
        }
    }
}
