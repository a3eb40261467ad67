//! Byte-level byte-pair encoding trained on the user's own text, as GPT-2's tokenizer (and
//! Karpathy's minbpe) works: tokens 0–255 are the bytes, and each learned merge of two tokens adds
//! one more. Any Unicode text round-trips, because everything is bytes underneath.

use crate::error::{Error, FieldError, Result};
use crate::words::{files, settings};
use std::collections::HashMap;

/// The smallest and largest vocabularies BPE will train.
pub const MIN_VOCAB: usize = 256;
pub const MAX_VOCAB: usize = 16_384;

/// Learned merges, in the order they were learned; merge `i` makes token `256 + i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BpeTokenizer {
    merges: Vec<(u32, u32)>,
    ranks: HashMap<(u32, u32), u32>,
    /// The bytes each token stands for.
    bytes: Vec<Vec<u8>>,
}

/// Splits text into the pieces merges may not cross, as GPT-2's pre-tokenizer: a word, number or
/// run of punctuation with at most one leading space, or a run of other whitespace. Keeping
/// merges inside pieces stops tokens like "e. T" and keeps training fast.
fn pieces(text: &str) -> impl Iterator<Item = &str> {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Letter,
        Digit,
        Space,
        Other,
    }
    let class = |c: char| match c {
        c if c.is_alphabetic() || is_combining_mark(c) => Class::Letter,
        c if c.is_numeric() => Class::Digit,
        c if c.is_whitespace() => Class::Space,
        _ => Class::Other,
    };
    let mut rest = text;
    std::iter::from_fn(move || {
        let mut chars = rest.char_indices().peekable();
        let (_, first) = chars.next()?;
        let mut kind = class(first);
        // A single space joins the word, number or punctuation after it.
        if first == ' ' {
            if let Some(&(_, next)) = chars.peek().filter(|(_, c)| class(*c) != Class::Space) {
                kind = class(next);
                chars.next();
            }
        }
        let mut end = chars.find(|&(_, c)| class(c) != kind).map_or(rest.len(), |(i, _)| i);
        // A longer run of whitespace leaves its last space to the word that follows.
        if kind == Class::Space && end < rest.len() && end > 1 && rest[..end].ends_with(' ') {
            end -= 1;
        }
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// Combining marks (accents written as separate code points) stay with their letters.
fn is_combining_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// Replaces every `pair` in `symbols` by `new`.
fn merge(symbols: &mut Vec<u32>, pair: (u32, u32), new: u32) {
    let mut out = 0;
    let mut i = 0;
    while i < symbols.len() {
        if i + 1 < symbols.len() && (symbols[i], symbols[i + 1]) == pair {
            symbols[out] = new;
            i += 2;
        } else {
            symbols[out] = symbols[i];
            i += 1;
        }
        out += 1;
    }
    symbols.truncate(out);
}

/// Checks that a byte-pair vocabulary of `vocab_size` tokens can be trained.
pub fn check_vocab_size(vocab_size: usize) -> Result<()> {
    crate::error::first(vocab_size_error(vocab_size).into_iter().collect())
}

/// Why a byte-pair vocabulary of `vocab_size` tokens cannot be trained, if it cannot.
pub fn vocab_size_error(vocab_size: usize) -> Option<FieldError> {
    let words = crate::words::settings::bpe_vocab_size(MIN_VOCAB, MAX_VOCAB, vocab_size);
    (!(MIN_VOCAB..=MAX_VOCAB).contains(&vocab_size)).then(|| FieldError::new("bpe_vocab_size", words))
}

impl BpeTokenizer {
    /// Learns merges on `text` until the vocabulary has `vocab_size` tokens, or until no pair of
    /// tokens occurs twice (then the vocabulary is smaller).
    pub fn train(text: &str, vocab_size: usize) -> Result<BpeTokenizer> {
        check_vocab_size(vocab_size)?;
        if text.is_empty() {
            return Err(Error::Data(settings::text_empty()));
        }
        // Each distinct piece once, with how often it occurs.
        let mut counts: HashMap<&str, u64> = HashMap::new();
        pieces(text).for_each(|p| *counts.entry(p).or_default() += 1);
        let mut words: Vec<(Vec<u32>, u64)> =
            counts.into_iter().map(|(p, n)| (p.bytes().map(u32::from).collect(), n)).collect();
        words.sort_unstable(); // HashMap order is random; training must not be.
        let mut merges = Vec::new();
        let mut pair_counts: HashMap<(u32, u32), u64> = HashMap::new();
        while MIN_VOCAB + merges.len() < vocab_size {
            pair_counts.clear();
            for (symbols, n) in &words {
                for w in symbols.windows(2) {
                    *pair_counts.entry((w[0], w[1])).or_default() += n;
                }
            }
            // Most frequent first; ties go to the smallest pair, so training is deterministic.
            let best = pair_counts.iter().max_by(|(pa, ca), (pb, cb)| ca.cmp(cb).then(pb.cmp(pa)));
            let Some((&pair, &count)) = best else { break };
            if count < 2 {
                break;
            }
            let new = (MIN_VOCAB + merges.len()) as u32;
            for (symbols, _) in &mut words {
                if symbols.len() > 1 {
                    merge(symbols, pair, new);
                }
            }
            merges.push(pair);
        }
        BpeTokenizer::from_merges(merges)
    }

    /// A tokenizer with exactly these merges; each may only use bytes and earlier merges.
    pub fn from_merges(merges: Vec<(u32, u32)>) -> Result<BpeTokenizer> {
        let mut bytes: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        let mut ranks = HashMap::with_capacity(merges.len());
        for (i, &(a, b)) in merges.iter().enumerate() {
            let known = bytes.len() as u32;
            if a >= known || b >= known {
                return Err(Error::Format(files::merge_order(i, a, b)));
            }
            let joined = [bytes[a as usize].as_slice(), &bytes[b as usize]].concat();
            bytes.push(joined);
            ranks.insert((a, b), i as u32);
        }
        Ok(BpeTokenizer { merges, ranks, bytes })
    }

    pub fn vocab_size(&self) -> usize {
        self.bytes.len()
    }

    /// The merges in the order they were learned: merge `i` joins the pair into token `256 + i`.
    pub fn merges(&self) -> &[(u32, u32)] {
        &self.merges
    }

    /// The bytes token `id` stands for (empty for an unknown id).
    pub fn token_bytes(&self, id: u32) -> &[u8] {
        self.bytes.get(id as usize).map_or(&[], Vec::as_slice)
    }

    /// The ids of `text`: each piece's bytes, merged in the order the merges were learned.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut cache: HashMap<&str, Vec<u32>> = HashMap::new();
        let mut ids = Vec::with_capacity(text.len() / 2);
        for piece in pieces(text) {
            let encoded = cache.entry(piece).or_insert_with(|| self.encode_piece(piece));
            ids.extend_from_slice(encoded);
        }
        ids
    }

    fn encode_piece(&self, piece: &str) -> Vec<u32> {
        let mut symbols: Vec<u32> = piece.bytes().map(u32::from).collect();
        while symbols.len() > 1 {
            let best =
                symbols.windows(2).filter_map(|w| self.ranks.get(&(w[0], w[1])).map(|&r| (r, (w[0], w[1])))).min();
            let Some((rank, pair)) = best else { break };
            merge(&mut symbols, pair, MIN_VOCAB as u32 + rank);
        }
        symbols
    }

    /// The bytes of `ids`, concatenated; unknown ids are skipped.
    pub fn decode_bytes(&self, ids: &[u32]) -> Vec<u8> {
        ids.iter().flat_map(|&id| self.token_bytes(id).iter().copied()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_keep_one_leading_space_with_words() {
        let got: Vec<&str> = pieces("Hello, world!  It's 2024\n\nok").collect();
        assert_eq!(got, ["Hello", ",", " world", "!", " ", " It", "'", "s", " 2024", "\n\n", "ok"]);
        assert_eq!(pieces("a  ").collect::<Vec<_>>(), ["a", "  "]);
        assert_eq!(pieces("e\u{301}t\u{e9}").collect::<Vec<_>>(), ["e\u{301}t\u{e9}"]);
    }

    #[test]
    fn learns_frequent_pairs_first_and_round_trips() {
        let text = "the cat and the hat and the bat ".repeat(20);
        let bpe = BpeTokenizer::train(&text, 262).unwrap();
        assert_eq!(bpe.vocab_size(), 262);
        // "a"+"t", "t"+"h" and "h"+"e" all occur 60 times; ties go to the smallest pair.
        assert_eq!(bpe.merges()[0], (b'a' as u32, b't' as u32));
        let ids = bpe.encode(&text);
        assert!(ids.len() * 5 < text.len() * 3, "merges compress: {} ids for {} bytes", ids.len(), text.len());
        assert_eq!(bpe.decode_bytes(&ids), text.as_bytes());
        assert_eq!(BpeTokenizer::train(&text, 262).unwrap(), bpe, "training is deterministic");
    }

    #[test]
    fn stops_when_no_pair_repeats_and_rejects_bad_sizes() {
        let bpe = BpeTokenizer::train("abcdef", 1000).unwrap();
        assert_eq!(bpe.vocab_size(), 256);
        assert!(BpeTokenizer::train("abc", 100).unwrap_err().to_string().contains("256 to"));
        assert!(BpeTokenizer::train("", 300).is_err());
        assert!(BpeTokenizer::from_merges(vec![(300, 1)]).is_err());
    }
}
