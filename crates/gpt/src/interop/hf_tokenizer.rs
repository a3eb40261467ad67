//! The run's tokenizer as Hugging Face's `tokenizer.json`, so `AutoTokenizer` encodes and decodes
//! as the run does. Characters: a BPE model with one token per character and no merges (input is
//! split into characters) and a decoder that joins them. Byte pairs: our merges over GPT-2's
//! byte-to-character map, after a split into the same pieces ours makes (`tokenizer/bpe.rs`).
//! A task's symbols: WordPiece over the whole text with no continuing prefix, which takes the
//! longest token that matches at each point, as ours does (`tokenizer/symbols.rs`).

use crate::error::{Error, Result};
use crate::tokenizer::{BpeTokenizer, CharTokenizer, SymbolTokenizer, Tokenizer};
use crate::words::files;
use serde_json::{json, Map, Value};

/// Our pre-tokenizer's pieces as a regex: a run of letters (combining marks included), of
/// digits, or of other symbols, each with at most one leading space; a run of whitespace leaves
/// a last space to the word that follows. Written for both Oniguruma (Rust's `tokenizers`) and
/// JavaScript's Unicode regexes (transformers.js): properties, lookaheads and literal characters
/// only, no class intersections or `\x{..}` escapes.
const PIECES: &str = concat!(
    " ?[\\p{Alphabetic}\u{300}-\u{36F}\u{1AB0}-\u{1AFF}\u{1DC0}-\u{1DFF}\u{20D0}-\u{20FF}\u{FE20}-\u{FE2F}]+",
    "| ?(?:(?!\\p{Alphabetic})\\p{N})+",
    "| ?[^\\p{Alphabetic}\u{300}-\u{36F}\u{1AB0}-\u{1AFF}\u{1DC0}-\u{1DFF}\u{20D0}-\u{20FF}\u{FE20}-\u{FE2F}\\p{N}\\p{White_Space}]+",
    "|\\p{White_Space}+(?= \\P{White_Space})|\\p{White_Space}+",
);

/// WordPiece's name for text no token matches (not in the vocabulary: encoding such text fails,
/// as ours does).
const UNKNOWN: &str = "[UNK]";

/// `tokenizer.json` for `tokenizer`.
pub fn tokenizer_json(tokenizer: &Tokenizer) -> Result<Value> {
    match tokenizer {
        Tokenizer::Char(chars) => {
            let vocab = chars.tokens().iter().enumerate().map(|(i, c)| (c.to_string(), json!(i)));
            Ok(document(Value::Null, bpe_model(vocab.collect(), vec![]), json!({ "type": "Fuse" })))
        }
        Tokenizer::Bpe(bpe) => byte_pairs(bpe),
        Tokenizer::Symbols(symbols) => {
            let vocab = symbols.tokens().iter().enumerate().map(|(i, t)| (t.clone(), json!(i)));
            let model = json!({
                "type": "WordPiece", "unk_token": UNKNOWN, "continuing_subword_prefix": "",
                "max_input_chars_per_word": u32::MAX, "vocab": vocab.collect::<Map<_, _>>(),
            });
            Ok(document(Value::Null, model, json!({ "type": "Fuse" })))
        }
    }
}

/// Our tokenizer back from a `tokenizer.json` that [`tokenizer_json`] wrote (and nothing else:
/// another pre-tokenizer or vocabulary layout would encode differently from ours).
pub fn tokenizer_from_json(json: &Value) -> Result<Tokenizer> {
    let not_ours = || Error::Format(files::foreign_tokenizer());
    let model = &json["model"];
    let vocab = model["vocab"].as_object().ok_or_else(not_ours)?;
    let mut by_id: Vec<Option<&str>> = vec![None; vocab.len()];
    for (token, id) in vocab {
        let slot = id.as_u64().and_then(|id| by_id.get_mut(id as usize)).ok_or_else(not_ours)?;
        *slot = Some(token.as_str());
    }
    let tokens: Vec<&str> = by_id.into_iter().collect::<Option<_>>().ok_or_else(not_ours)?;
    if model["type"] == "WordPiece" && model["continuing_subword_prefix"] == "" && json["pre_tokenizer"].is_null() {
        return SymbolTokenizer::new(tokens.into_iter().map(String::from).collect()).map(Tokenizer::Symbols);
    }
    if model["type"] != "BPE" {
        return Err(not_ours());
    }
    let merges = model["merges"].as_array().ok_or_else(not_ours)?;
    if merges.is_empty() && json["decoder"]["type"] == "Fuse" && json["pre_tokenizer"].is_null() {
        let one = |t: &str| Some(t.chars().next()?).filter(|_| t.chars().count() == 1);
        let chars = tokens.iter().map(|t| one(t)).collect::<Option<Vec<char>>>().ok_or_else(not_ours)?;
        return CharTokenizer::from_tokens(chars).map(Tokenizer::Char);
    }
    if json["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] != PIECES {
        return Err(not_ours());
    }
    let map = byte_chars();
    if tokens.len() < 256 || (0..256).any(|b| tokens[b].chars().ne([map[b]])) {
        return Err(not_ours());
    }
    let pairs = merges.iter().enumerate().map(|(i, merge)| {
        let (a, b) = match merge {
            Value::Array(pair) => (pair.first()?.as_str()?, pair.get(1)?.as_str()?),
            Value::String(pair) => pair.split_once(' ')?,
            _ => return None,
        };
        let id = |t: &str| vocab.get(t)?.as_u64().map(|id| id as u32);
        (id(&format!("{a}{b}"))? == 256 + i as u32).then_some((id(a)?, id(b)?))
    });
    let merges = pairs.collect::<Option<Vec<_>>>().filter(|m| m.len() + 256 == tokens.len()).ok_or_else(not_ours)?;
    BpeTokenizer::from_merges(merges).map(Tokenizer::Bpe)
}

fn byte_pairs(bpe: &BpeTokenizer) -> Result<Value> {
    let map = byte_chars();
    let text = |id: u32| -> String { bpe.token_bytes(id).iter().map(|&b| map[b as usize]).collect() };
    let mut vocab = Map::new();
    for id in 0..bpe.vocab_size() as u32 {
        if vocab.insert(text(id), json!(id)).is_some() {
            return Err(Error::Config(files::ambiguous_bytes(
                id,
                format!("{:?}", String::from_utf8_lossy(bpe.token_bytes(id))),
            )));
        }
    }
    let merges = bpe.merges().iter().map(|&(a, b)| json!([text(a), text(b)])).collect();
    let pre_tokenizer = json!({ "type": "Sequence", "pretokenizers": [
        { "type": "Split", "pattern": { "Regex": PIECES }, "behavior": "Isolated", "invert": false },
        { "type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false },
    ]});
    let decoder = json!({ "type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false });
    Ok(document(pre_tokenizer, bpe_model(vocab, merges), decoder))
}

/// A BPE model that merges exactly as ours: by rank, with no unknown token and no shortcuts.
fn bpe_model(vocab: Map<String, Value>, merges: Vec<Value>) -> Value {
    json!({
        "type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null,
        "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
        "vocab": vocab, "merges": merges,
    })
}

fn document(pre_tokenizer: Value, model: Value, decoder: Value) -> Value {
    json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "normalizer": null,
        "pre_tokenizer": pre_tokenizer, "post_processor": null, "decoder": decoder, "model": model,
    })
}

/// GPT-2's printable stand-in for each byte: printable Latin-1 bytes stand for themselves, the
/// rest for the characters from U+0100 on, in order.
pub fn byte_chars() -> [char; 256] {
    let printable = |b: u32| (0x21..=0x7E).contains(&b) || (0xA1..=0xAC).contains(&b) || (0xAE..=0xFF).contains(&b);
    let mut map = ['\0'; 256];
    let mut next = 256;
    for b in 0..256u32 {
        map[b as usize] = if printable(b) {
            char::from_u32(b).expect("Latin-1")
        } else {
            next += 1;
            char::from_u32(next - 1).expect("below U+0200")
        };
    }
    map
}
