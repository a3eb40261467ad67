//! `gpt::export::nanogpt`: what nanoGPT's model.py cannot hold is refused, naming the setting to
//! change, and nothing else; a run it can hold gives the checkout's files. (python/
//! test_nanogpt_format.py reads the files back, every tensor and token.)

use gpt::export::nanogpt::export;
use gpt::{Budget, GPTConfig, Run, Settings, TaskConfig, TaskName, TokenizerKind, TrainConfig};

const TEXT: &str = "anna\nbob\ncarla\ndavid\nemma\n";

fn run_with(model: GPTConfig, tokenizer: TokenizerKind) -> Run {
    let train = TrainConfig { batch_size: 2, max_iters: 2, warmup_iters: 0, eval_iters: 1, ..Default::default() };
    let settings = Settings { model, train, tokenizer, bpe_vocab_size: 260, ..Default::default() };
    Run::create(&settings, &TEXT.repeat(20), &Budget::UNLIMITED).unwrap()
}

fn small() -> GPTConfig {
    GPTConfig { block_size: 8, n_layer: 1, n_head: 2, n_embd: 8, ..Default::default() }
}

#[test]
fn a_run_nanogpt_can_hold_becomes_a_checkout() {
    let files = export(&run_with(small(), TokenizerKind::Char), "names").unwrap();
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
    assert_eq!(bins, 2 * TEXT.len() * 20, "two bytes a character, every character");
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
        let message = export(&run_with(model, tokenizer), "x").unwrap_err().to_string();
        assert!(message.contains(says), "{says}: {message}");
    }
    let task = TaskConfig { name: TaskName::Reverse, ..Default::default() };
    let train = TrainConfig { batch_size: 2, max_iters: 2, warmup_iters: 0, eval_iters: 1, ..Default::default() };
    let settings = Settings {
        model: GPTConfig { n_layer: 1, n_head: 2, n_embd: 8, ..Default::default() },
        train,
        task: Some(task),
        ..Default::default()
    };
    let message = export(&Run::create(&settings, "", &Budget::UNLIMITED).unwrap(), "x").unwrap_err().to_string();
    assert!(message.contains("task"), "{message}");
}
