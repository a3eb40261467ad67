//! decode(encode(s)) == s for every tokenizer, on English, emoji, CJK, combining marks, empty
//! strings and arbitrary Unicode.

use gpt::{Tokenizer, TokenizerKind};
use proptest::prelude::*;

const SAMPLES: [&str; 6] = [
    "To be, or not to be, that is the question:\nWhether 'tis nobler in the mind to suffer",
    "emoji 👋🏽 family 👨‍👩‍👧 flags 🇫🇷🇯🇵",
    "漢字とかなの文章、そして한국어 텍스트。",
    "combining: e\u{301} a\u{308} n\u{303}, Zalgo Z\u{351}\u{34a}a\u{35b}",
    "",
    "tabs\tand\r\nwindows newlines   and  spaces ",
];

fn round_trips(trained_on: &str, text: &str) {
    for kind in [TokenizerKind::Char, TokenizerKind::Bpe] {
        // A character vocabulary only knows its own text's characters, so it is fitted to both.
        let corpus = if kind == TokenizerKind::Char { format!("{trained_on}{text}x") } else { trained_on.to_string() };
        let tok = Tokenizer::fit(kind, &corpus, 300).unwrap();
        let ids = tok.encode(text).unwrap();
        assert_eq!(tok.decode(&ids), text, "{kind:?}");
        let mut pending = Vec::new();
        let streamed: String = ids.iter().map(|&id| tok.decode_stream(&[id], &mut pending)).collect();
        assert_eq!(streamed, text, "{kind:?} streamed");
    }
}

#[test]
fn known_hard_cases_round_trip() {
    let corpus = SAMPLES.concat().repeat(3);
    for text in SAMPLES {
        round_trips(&corpus, text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_unicode_round_trips(trained_on in "\\PC{1,200}", text in "\\PC{0,80}") {
        round_trips(&trained_on, &text);
    }

    #[test]
    fn mixed_scripts_round_trip(text in "[a-z 漢字👋\u{301}\n]{0,120}") {
        round_trips(&SAMPLES.concat(), &text);
    }
}
