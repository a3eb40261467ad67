//! Character-level tokenization, as nanoGPT's `shakespeare_char/prepare.py`.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// One token per distinct character of the training text, ids in sorted (code point) order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CharTokenizer {
    chars: Vec<char>,
}

impl CharTokenizer {
    /// The vocabulary of `text`: its sorted unique characters.
    pub fn fit(text: &str) -> Result<CharTokenizer> {
        let mut chars: Vec<char> = text.chars().collect();
        chars.sort_unstable();
        chars.dedup();
        if chars.is_empty() {
            return Err(Error::Data("the text is empty: paste or load some text to train on".into()));
        }
        Ok(CharTokenizer { chars })
    }

    /// A tokenizer with exactly these tokens, in id order.
    pub fn from_tokens(chars: Vec<char>) -> Result<CharTokenizer> {
        let mut sorted = chars.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != chars.len() || chars.is_empty() {
            return Err(Error::Format("a character vocabulary must list distinct characters".into()));
        }
        Ok(CharTokenizer { chars })
    }

    pub fn vocab_size(&self) -> usize {
        self.chars.len()
    }

    /// The tokens in id order.
    pub fn tokens(&self) -> &[char] {
        &self.chars
    }

    fn id(&self, c: char) -> Option<u32> {
        if self.chars.is_sorted() {
            self.chars.binary_search(&c).ok().map(|i| i as u32)
        } else {
            self.chars.iter().position(|&x| x == c).map(|i| i as u32)
        }
    }

    /// The ids of `text`; a character outside the vocabulary is an error that names it.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        text.chars()
            .map(|c| {
                self.id(c).ok_or_else(|| {
                    Error::Data(format!("the character {c:?} (U+{:04X}) is not in the model's vocabulary", c as u32))
                })
            })
            .collect()
    }

    /// The text of `ids`; ids outside the vocabulary are skipped.
    pub fn decode(&self, ids: &[u32]) -> String {
        ids.iter().filter_map(|&i| self.chars.get(i as usize)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_names_unknown_characters() {
        let text = "hello, wörld 👋 漢字 e\u{301}";
        let tok = CharTokenizer::fit(text).unwrap();
        assert_eq!(tok.decode(&tok.encode(text).unwrap()), text);
        assert_eq!(tok.tokens()[0], ' ');
        let err = tok.encode("hello!").unwrap_err().to_string();
        assert!(err.contains("'!'") && err.contains("U+0021"), "{err}");
        assert!(CharTokenizer::fit("").is_err());
    }
}
