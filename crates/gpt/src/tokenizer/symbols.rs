//! A task's own tokens: letters, digits, signs, or whole numbers such as `42` (modular addition
//! reads every number as one token). Text encodes by the longest token that matches at each point.

use crate::error::{Error, Result};
use crate::words::{files, runs};
use std::collections::HashMap;

/// A fixed list of distinct tokens, each a non-empty string, in id order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolTokenizer {
    tokens: Vec<String>,
    ids: HashMap<String, u32>,
    /// The longest token, in characters.
    longest: usize,
}

impl SymbolTokenizer {
    /// A tokenizer with exactly these tokens, in id order.
    pub fn new(tokens: Vec<String>) -> Result<SymbolTokenizer> {
        let ids: HashMap<String, u32> = tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        if ids.len() != tokens.len() || tokens.is_empty() || tokens.iter().any(String::is_empty) {
            return Err(Error::Format(files::task_vocab()));
        }
        let longest = tokens.iter().map(|t| t.chars().count()).max().unwrap_or(1);
        Ok(SymbolTokenizer { tokens, ids, longest })
    }

    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }

    /// The tokens in id order.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The ids of `text`, taking the longest token that matches at each point; text that no
    /// token starts is an error that names it.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        let mut ids = Vec::new();
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            let ends: Vec<usize> =
                rest.char_indices().map(|(i, _)| i).skip(1).chain([rest.len()]).take(self.longest).collect();
            let found = ends.into_iter().rev().find_map(|end| self.ids.get(&rest[..end]).map(|&id| (id, end)));
            let Some((id, end)) = found else {
                return Err(Error::Data(runs::not_a_symbol(format!("{c:?}"), self.tokens.join(" "))));
            };
            ids.push(id);
            rest = &rest[end..];
        }
        Ok(ids)
    }

    /// The text of `ids`; ids outside the vocabulary are skipped.
    pub fn decode(&self, ids: &[u32]) -> String {
        ids.iter().filter_map(|&i| self.tokens.get(i as usize).map(String::as_str)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_are_one_token_and_unknown_text_is_named() {
        let tokens: Vec<String> = (0..13).map(|n| n.to_string()).chain(["+".into(), "=".into()]).collect();
        let tok = SymbolTokenizer::new(tokens).unwrap();
        assert_eq!(tok.encode("12+3=2").unwrap(), [12, 13, 3, 14, 2]);
        assert_eq!(tok.encode("13").unwrap(), [1, 3], "no token 13: the longest match is 1, then 3");
        assert_eq!(tok.decode(&[12, 13, 3]), "12+3");
        let err = tok.encode("1-2").unwrap_err().to_string();
        assert!(err.contains("'-'"), "{err}");
        assert!(SymbolTokenizer::new(vec!["a".into(), "a".into()]).is_err());
        assert!(SymbolTokenizer::new(vec![String::new()]).is_err());
    }
}
