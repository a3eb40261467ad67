//! A run's generation: samples streamed token by token, and the most likely next tokens.

use super::{Generation, Run, Watch};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::sample::{most_likely, next_token_probs, NextToken, NextTokens, SampleConfig, Sampler};
use crate::words::runs;

impl<W: Watch> Run<W> {
    /// Starts a generation; [`Run::sample_next`] streams it. The settings become the run's last
    /// generation, which checkpoints keep.
    pub fn start_sample(&mut self, config: SampleConfig) -> Result<()> {
        let prompt = self.tokenizer.encode(&config.prompt)?;
        let sampler = Sampler::new(&prompt, config.clone())?;
        let of_seen_bytes = self.tokens_of_seen_bytes();
        self.generation = Some(Generation { sampler, pending: Vec::new(), of_seen_bytes });
        self.last_sample = Some(config);
        Ok(())
    }

    /// The text of up to `max_tokens` more tokens of the current generation (at least one), or
    /// `None` once it is done. A character split across byte-pair tokens waits for its last byte,
    /// and no token is drawn that would make the text invalid UTF-8.
    pub fn sample_next(&mut self, max_tokens: usize) -> Result<Option<String>> {
        let Some(generation) = self.generation.as_mut() else {
            return Err(Error::Config(runs::no_generation()));
        };
        let (mut text, mut drawn) = (String::new(), 0);
        while drawn < max_tokens.max(1) {
            let (pending, seen) = (&generation.pending, &generation.of_seen_bytes);
            let valid =
                |id: u32| seen.as_ref().is_none_or(|s| s[id as usize]) && self.tokenizer.continues_text(pending, id);
            let Some(id) = generation.sampler.next_token_where(self.trainer.model(), valid)? else { break };
            text.push_str(&self.tokenizer.decode_stream(&[id], &mut generation.pending));
            drawn += 1;
        }
        if drawn == 0 {
            self.generation = None;
            return Ok(None);
        }
        Ok(Some(text))
    }

    /// For a byte-pair run with its text, whether each token holds only bytes that the text has:
    /// an untrained byte (a control character, say) is never sampled. None otherwise.
    fn tokens_of_seen_bytes(&self) -> Option<Vec<bool>> {
        let (crate::Tokenizer::Bpe(bpe), Some(Dataset::Text(text))) = (&self.tokenizer, &self.data) else {
            return None;
        };
        let mut present = vec![false; bpe.vocab_size()];
        text.for_each(|id| present[id as usize] = true);
        let mut seen = [false; 256];
        for id in (0..present.len()).filter(|&id| present[id]) {
            bpe.token_bytes(id as u32).iter().for_each(|&b| seen[b as usize] = true);
        }
        Some((0..present.len()).map(|id| bpe.token_bytes(id as u32).iter().all(|&b| seen[b as usize])).collect())
    }

    /// The `k` most likely tokens after `prompt` at `temperature` (0, greedy, shows them at 1).
    pub fn next_tokens(&self, prompt: &str, temperature: f32, k: usize) -> Result<NextTokens> {
        let ids = self.tokenizer.encode(prompt)?;
        let greedy = temperature == 0.0;
        let temperature = if greedy { 1.0 } else { temperature };
        let probs = next_token_probs(self.model(), &ids, temperature)?;
        let tokens = most_likely(&probs, k)
            .into_iter()
            .map(|(id, prob)| NextToken { id, token: self.tokenizer.token_text(id), prob })
            .collect();
        Ok(NextTokens { temperature, greedy, tokens })
    }
}
