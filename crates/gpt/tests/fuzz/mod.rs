//! What the fuzz tests share: how many cases to run, a text to train on, and what makes an
//! error specific. (`fields.rs` names the settings' fields, for the tests that edit them.)

use proptest::prelude::*;

/// `ci` cases, times `FUZZ_SCALE` when it is set (the long mode: `FUZZ_SCALE=100`).
pub fn cases(ci: u32) -> ProptestConfig {
    let scale = std::env::var("FUZZ_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1u32);
    ProptestConfig { cases: ci.saturating_mul(scale), failure_persistence: None, ..ProptestConfig::default() }
}

/// A sentence with every letter: repeated, it trains a tiny model.
pub const TEXT: &str = "the quick brown fox jumps over the lazy dog. \n";

/// An error must say what went wrong.
pub fn assert_specific(e: &gpt::Error) {
    let message = e.to_string();
    assert!(message.len() > 12, "a vague error: {message:?}");
}
