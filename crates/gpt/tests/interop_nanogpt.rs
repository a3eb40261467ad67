//! `gpt::interop::nanogpt`: what nanoGPT's model.py cannot hold is refused, naming the setting to
//! change, and nothing else; a run it can hold gives the checkout's files. (python/
//! test_nanogpt_format.py reads the files back, every tensor and token.)

use gpt::interop::nanogpt::export;
use gpt::{GPTConfig, TokenizerKind};

mod interop_runs;

use interop_runs::{small, task_run, trained, TEXT};

#[test]
fn a_run_nanogpt_can_hold_becomes_a_checkout() {
    let files = export(&trained(small(), TokenizerKind::Char, 0), "names").unwrap();
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "out-names/ckpt.pt",
            "data/names/meta.pkl",
            "data/names/train.bin",
            "data/names/val.bin",
            "config/train_names.py",
            "README.md"
        ]
    );
    let bins: usize = files[2..4].iter().map(|(_, b)| b.len()).sum();
    assert_eq!(bins, 2 * TEXT.chars().count() * 20, "two bytes a character, every character");
}

#[test]
fn what_nanogpt_lacks_is_refused_with_the_setting_to_change() {
    use gpt::ops::{Activation, NormKind};
    let cases = [
        (GPTConfig { norm: NormKind::RmsNorm, ..small() }, TokenizerKind::Char, "set Norm to LayerNorm"),
        (GPTConfig { activation: Activation::Relu, ..small() }, TokenizerKind::Char, "set Activation to GELU"),
        (GPTConfig { tie_weights: false, ..small() }, TokenizerKind::Char, "tick Tie weights"),
        (GPTConfig { rope: true, ..small() }, TokenizerKind::Char, "untick RoPE"),
        (GPTConfig { qk_norm: true, ..small() }, TokenizerKind::Char, "untick QK-norm"),
        (small(), TokenizerKind::Bpe, "set Tokenizer to Characters"),
    ];
    for (model, tokenizer, says) in cases {
        let message = export(&trained(model, tokenizer, 0), "x").unwrap_err().to_string();
        assert!(message.contains(says), "{says}: {message}");
    }
    let message = export(&task_run(), "x").unwrap_err().to_string();
    assert!(message.contains("task"), "{message}");
}
