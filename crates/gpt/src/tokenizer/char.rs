//! Character-level tokenization, as nanoGPT's `shakespeare_char/prepare.py`.

use crate::error::{Error, Result};
use crate::words::{files, runs, settings};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

/// The distinct characters of a text, gathered in one pass over it, or over its pieces one by one
/// (a big text, a few megabytes at a time), and without a copy of it: a table for ASCII, a set
/// for the rest.
#[derive(Clone, Debug)]
pub struct CharSet {
    ascii: [bool; 128],
    other: BTreeSet<char>,
}

impl Default for CharSet {
    fn default() -> CharSet {
        CharSet { ascii: [false; 128], other: BTreeSet::new() }
    }
}

impl CharSet {
    /// Adds the characters of `text`, and returns how many it has.
    pub fn add(&mut self, text: &str) -> usize {
        let mut count = 0;
        for c in text.chars() {
            count += 1;
            match self.ascii.get_mut(c as usize) {
                Some(seen) => *seen = true,
                None => _ = self.other.insert(c),
            }
        }
        count
    }

    pub fn len(&self) -> usize {
        self.ascii.iter().filter(|&&seen| seen).count() + self.other.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The characters in code point order.
    fn chars(&self) -> Vec<char> {
        (0u8..128).filter(|&b| self.ascii[b as usize]).map(char::from).chain(self.other.iter().copied()).collect()
    }
}

/// One token per distinct character of the training text, ids in sorted (code point) order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CharTokenizer {
    chars: Vec<char>,
}

impl CharTokenizer {
    /// The vocabulary of `text`: its sorted unique characters.
    pub fn fit(text: &str) -> Result<CharTokenizer> {
        let mut set = CharSet::default();
        set.add(text);
        if set.is_empty() {
            return Err(Error::Data(settings::text_empty()));
        }
        Ok(CharTokenizer { chars: set.chars() })
    }

    /// A tokenizer with exactly these tokens, in id order.
    pub fn from_tokens(chars: Vec<char>) -> Result<CharTokenizer> {
        let mut sorted = chars.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != chars.len() || chars.is_empty() {
            return Err(Error::Format(files::repeated_characters()));
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

    /// The ids of `text`; a character outside the vocabulary is an error that names it.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        self.encode_as(text, |id| id)
    }

    /// The ids of `text`, each made a `T` by `narrow` (two bytes for a big text's ids).
    pub fn encode_as<T>(&self, text: &str, narrow: impl Fn(u32) -> T) -> Result<Vec<T>> {
        let mut ascii = [u32::MAX; 128];
        let mut other = HashMap::new();
        for (id, &c) in (0u32..).zip(&self.chars) {
            match ascii.get_mut(c as usize) {
                Some(slot) => *slot = id,
                None => _ = other.insert(c, id),
            }
        }
        let mut ids = Vec::with_capacity(text.chars().count());
        for c in text.chars() {
            let id = match ascii.get(c as usize) {
                Some(&id) => Some(id).filter(|&id| id != u32::MAX),
                None => other.get(&c).copied(),
            };
            let id =
                id.ok_or_else(|| Error::Data(runs::unknown_character(format!("{c:?}"), format!("{:04X}", c as u32))))?;
            ids.push(narrow(id));
        }
        Ok(ids)
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
        assert!(tok.tokens().windows(2).all(|w| w[0] < w[1]), "sorted and distinct: {:?}", tok.tokens());
        assert_eq!(
            tok.encode_as(text, |id| id as u16).unwrap(),
            tok.encode(text).unwrap().iter().map(|&id| id as u16).collect::<Vec<_>>()
        );
        let err = tok.encode("hello!").unwrap_err().to_string();
        assert!(err.contains("'!'") && err.contains("U+0021"), "{err}");
        assert!(CharTokenizer::fit("").is_err());
    }
}
