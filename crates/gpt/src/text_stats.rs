//! How long a text is and how many distinct characters it has (a character model's vocabulary),
//! counted whole or piece by piece.

use serde::{Deserialize, Serialize};

/// The size of a text and of its character vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct TextStats {
    pub chars: usize,
    pub vocab_size: usize,
}

impl TextStats {
    pub fn of(text: &str) -> TextStats {
        let mut counter = TextCounter::default();
        counter.add(text);
        counter.stats()
    }
}

/// Counts a text given in pieces, so a big one is counted a few megabytes at a time, with progress.
#[derive(Clone, Debug, Default)]
pub struct TextCounter {
    chars: usize,
    distinct: crate::tokenizer::CharSet,
}

impl TextCounter {
    /// Counts the next piece; a piece must not split a character (a `&str` never does).
    pub fn add(&mut self, piece: &str) {
        self.chars += self.distinct.add(piece);
    }

    /// The text so far: its characters, and its character vocabulary.
    pub fn stats(&self) -> TextStats {
        TextStats { chars: self.chars, vocab_size: self.distinct.len() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_counted_in_pieces_counts_as_a_whole() {
        let text = "héllo wörld 👋 漢字 e\u{301}\nthe end";
        let mut counter = TextCounter::default();
        let mut rest = text;
        while !rest.is_empty() {
            let cut = (1..=5).find(|&n| rest.is_char_boundary(n)).unwrap_or(rest.len()).min(rest.len());
            counter.add(&rest[..cut]);
            rest = &rest[cut..];
        }
        let whole = TextStats::of(text);
        assert_eq!(counter.stats(), whole);
        let distinct: std::collections::BTreeSet<char> = text.chars().collect();
        assert_eq!(whole, TextStats { chars: text.chars().count(), vocab_size: distinct.len() });
        assert_eq!(TextStats::of(""), TextStats { chars: 0, vocab_size: 0 });
    }
}
