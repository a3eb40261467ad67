//! Tokenizers: one token per character (nanoGPT's shakespeare_char), or byte-level BPE trained on
//! the user's text. [`Tokenizer`] is what the rest of the crate uses.

mod bpe;
mod char;
mod symbols;

pub use self::bpe::{
    check_vocab_size as check_bpe_vocab_size, vocab_size_error as bpe_vocab_size_error, BpeTokenizer,
    MAX_VOCAB as MAX_BPE_VOCAB, MIN_VOCAB as MIN_BPE_VOCAB,
};
pub use self::char::{CharSet, CharTokenizer};
pub use self::symbols::SymbolTokenizer;
use crate::data::Ids;
use crate::error::{Error, Result};
use crate::words::files;
use serde::{Deserialize, Serialize};

/// Which tokenizer to fit to a text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum TokenizerKind {
    #[default]
    Char,
    Bpe,
}

impl std::str::FromStr for TokenizerKind {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "char" => Ok(TokenizerKind::Char),
            "bpe" => Ok(TokenizerKind::Bpe),
            _ => Err(format!("unknown tokenizer {s:?}; choose char or bpe")),
        }
    }
}

/// A fitted tokenizer, or a task's own tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tokenizer {
    Char(CharTokenizer),
    Bpe(BpeTokenizer),
    Symbols(SymbolTokenizer),
}

/// How a checkpoint's `vocab` stores a BPE tokenizer or a task's tokens; a character
/// vocabulary is a plain list.
#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum VocabJson {
    Bpe { merges: Vec<(u32, u32)> },
    Symbols { tokens: Vec<String> },
}

impl Tokenizer {
    /// A `kind` tokenizer for `text`; `bpe_vocab_size` is the BPE vocabulary to aim for.
    pub fn fit(kind: TokenizerKind, text: &str, bpe_vocab_size: usize) -> Result<Tokenizer> {
        match kind {
            TokenizerKind::Char => CharTokenizer::fit(text).map(Tokenizer::Char),
            TokenizerKind::Bpe => BpeTokenizer::train(text, bpe_vocab_size).map(Tokenizer::Bpe),
        }
    }

    /// Which kind of tokenizer this is; a task's symbols count as characters (one token each,
    /// fixed by the task rather than fitted).
    pub fn kind(&self) -> TokenizerKind {
        match self {
            Tokenizer::Char(_) | Tokenizer::Symbols(_) => TokenizerKind::Char,
            Tokenizer::Bpe(_) => TokenizerKind::Bpe,
        }
    }

    pub fn vocab_size(&self) -> usize {
        match self {
            Tokenizer::Char(t) => t.vocab_size(),
            Tokenizer::Bpe(t) => t.vocab_size(),
            Tokenizer::Symbols(t) => t.vocab_size(),
        }
    }

    /// The ids of `text`. A character vocabulary or a task's can meet text it lacks.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        match self {
            Tokenizer::Char(t) => t.encode(text),
            Tokenizer::Bpe(t) => Ok(t.encode(text)),
            Tokenizer::Symbols(t) => t.encode(text),
        }
    }

    /// The ids of a text to train on, two bytes each when they fit: a character vocabulary
    /// encodes straight into them, so a big text never holds four bytes a character.
    pub fn encode_text(&self, text: &str) -> Result<Ids> {
        match self {
            Tokenizer::Char(t) if t.vocab_size() <= 1 << 16 => Ok(Ids::Narrow(t.encode_as(text, |id| id as u16)?)),
            _ => Ok(Ids::from_wide(self.encode(text)?)),
        }
    }

    /// The text of `ids`; bytes that do not form UTF-8 (possible in sampled BPE) become U+FFFD.
    pub fn decode(&self, ids: &[u32]) -> String {
        let mut pending = Vec::new();
        let mut text = self.decode_stream(ids, &mut pending);
        text.push_str(&String::from_utf8_lossy(&pending));
        text
    }

    /// Decodes the next `ids` of a stream: a character split across BPE tokens waits in
    /// `pending` until its last byte arrives.
    pub fn decode_stream(&self, ids: &[u32], pending: &mut Vec<u8>) -> String {
        match self {
            Tokenizer::Char(t) => t.decode(ids),
            Tokenizer::Symbols(t) => t.decode(ids),
            Tokenizer::Bpe(t) => {
                pending.extend(t.decode_bytes(ids));
                let complete = match std::str::from_utf8(pending) {
                    Ok(_) => pending.len(),
                    // An incomplete sequence at the end waits; an invalid one is replaced.
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    Err(_) => pending.len(),
                };
                let text = String::from_utf8_lossy(&pending[..complete]).into_owned();
                pending.drain(..complete);
                text
            }
        }
    }

    /// Whether token `id` after the incomplete character `pending` (see [`Tokenizer::decode_stream`])
    /// keeps the text valid UTF-8: always for whole characters; for byte pairs, where its bytes
    /// finish, continue or follow that character as UTF-8 allows.
    pub fn continues_text(&self, pending: &[u8], id: u32) -> bool {
        let Tokenizer::Bpe(t) = self else { return true };
        let mut bytes = pending.to_vec();
        bytes.extend_from_slice(t.token_bytes(id));
        match std::str::from_utf8(&bytes) {
            Ok(_) => true,
            Err(e) => e.error_len().is_none(), // only cut short at the end: a later token may finish it
        }
    }

    /// What token `id` looks like, for labels (BPE fragments of a character show as U+FFFD).
    pub fn token_text(&self, id: u32) -> String {
        match self {
            Tokenizer::Char(t) => t.decode(&[id]),
            Tokenizer::Symbols(t) => t.decode(&[id]),
            Tokenizer::Bpe(t) => String::from_utf8_lossy(t.token_bytes(id)).into_owned(),
        }
    }

    /// The checkpoint's `vocab`: the characters in id order, or `{"type": "bpe", "merges": [...]}`.
    pub fn to_json(&self) -> String {
        let json = match self {
            Tokenizer::Char(t) => serde_json::to_string(&t.tokens().iter().map(|c| c.to_string()).collect::<Vec<_>>()),
            Tokenizer::Bpe(t) => serde_json::to_string(&VocabJson::Bpe { merges: t.merges().to_vec() }),
            Tokenizer::Symbols(t) => serde_json::to_string(&VocabJson::Symbols { tokens: t.tokens().to_vec() }),
        };
        json.expect("plain data serialises")
    }

    /// Reads a checkpoint's `vocab`.
    pub fn from_json(json: &str) -> Result<Tokenizer> {
        let bad = |e: String| Error::Format(files::invalid_vocab(e.to_string()));
        if json.trim_start().starts_with('[') {
            let tokens: Vec<String> = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
            let chars = tokens
                .iter()
                .map(|t| {
                    let mut cs = t.chars();
                    match (cs.next(), cs.next()) {
                        (Some(c), None) => Ok(c),
                        _ => Err(bad(format!("entry {t:?} is not a single character"))),
                    }
                })
                .collect::<Result<Vec<char>>>()?;
            return CharTokenizer::from_tokens(chars).map(Tokenizer::Char);
        }
        match serde_json::from_str(json).map_err(|e| bad(e.to_string()))? {
            VocabJson::Bpe { merges } => BpeTokenizer::from_merges(merges).map(Tokenizer::Bpe),
            VocabJson::Symbols { tokens } => SymbolTokenizer::new(tokens).map(Tokenizer::Symbols),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_to_train_on_is_kept_in_two_bytes_a_token_for_either_kind() {
        let text = "héllo wörld, héllo 👋 ".repeat(20);
        for kind in [TokenizerKind::Char, TokenizerKind::Bpe] {
            let t = Tokenizer::fit(kind, &text, 300).unwrap();
            let wide = t.encode(&text).unwrap();
            assert_eq!(t.encode_text(&text).unwrap(), Ids::Narrow(wide.iter().map(|&id| id as u16).collect()));
        }
    }

    #[test]
    fn vocab_json_round_trips_for_both_kinds() {
        let text = "ab ab ab abc abc";
        for kind in [TokenizerKind::Char, TokenizerKind::Bpe] {
            let t = Tokenizer::fit(kind, text, 260).unwrap();
            assert_eq!(Tokenizer::from_json(&t.to_json()).unwrap(), t);
        }
        let symbols = Tokenizer::Symbols(SymbolTokenizer::new(vec!["10".into(), "1".into(), "+".into()]).unwrap());
        assert_eq!(symbols.to_json(), r#"{"type":"symbols","tokens":["10","1","+"]}"#);
        assert_eq!(Tokenizer::from_json(&symbols.to_json()).unwrap(), symbols);
        assert_eq!(Tokenizer::fit(TokenizerKind::Char, "ba", 0).unwrap().to_json(), r#"["a","b"]"#);
        assert!(Tokenizer::from_json(r#"{"type":"bpe","merges":[[999,1]]}"#).is_err());
        assert!(Tokenizer::from_json(r#"{"type":"wordpiece"}"#).is_err());
    }

    #[test]
    fn streams_wait_for_whole_characters() {
        let bpe = Tokenizer::Bpe(BpeTokenizer::from_merges(vec![]).unwrap());
        let ids: Vec<u32> = "é👋".bytes().map(u32::from).collect();
        let mut pending = Vec::new();
        let pieces: Vec<String> = ids.iter().map(|&id| bpe.decode_stream(&[id], &mut pending)).collect();
        assert_eq!(pieces, ["", "é", "", "", "", "👋"]);
        assert_eq!(bpe.decode(&ids[..3]), "é\u{FFFD}");
    }
}
