//! Fuzzes the way back with damaged copies of real exports: nanoGPT's files (ckpt.pt, meta.pkl,
//! train.bin, val.bin), a Transformers folder's (ours, and as save_pretrained leaves it), and the
//! page's zip, each cut short, with bytes flipped or overwritten. Each imports and opens, or gives
//! a specific error, never a panic. `FUZZ_SCALE=100` runs a hundred times more.

mod fuzz;

use fuzz::{assert_specific, cases, TEXT};
use gpt::interop::{bundle, hf, import, nanogpt};
use gpt::{Budget, GPTConfig, Run, Settings, TokenizerKind, TrainConfig};
use proptest::prelude::*;
use std::sync::OnceLock;

type Files = Vec<(String, Vec<u8>)>;

/// The exports to damage, made once: nanoGPT's, Transformers' (characters and byte pairs), the zip,
/// and a rotary run's (Starcoder2).
fn originals() -> &'static [Files] {
    static FILES: OnceLock<Vec<Files>> = OnceLock::new();
    FILES.get_or_init(|| {
        let model = GPTConfig { block_size: 8, n_layer: 2, n_head: 2, n_embd: 8, ..Default::default() };
        let train = TrainConfig { batch_size: 2, max_iters: 5, warmup_iters: 0, eval_iters: 1, ..Default::default() };
        let chars = Settings { model, train, ..Default::default() };
        let bpe = Settings { tokenizer: TokenizerKind::Bpe, bpe_vocab_size: 270, ..chars.clone() };
        let run = |s: &Settings| {
            let mut run = Run::create(s, &TEXT.repeat(8), &Budget::UNLIMITED).unwrap();
            run.train(2, &|| 0.0).unwrap();
            run
        };
        let rotary = Settings { model: GPTConfig { rope: true, ..chars.model.clone() }, ..chars.clone() };
        let (chars, bpe, rotary) = (run(&chars), run(&bpe), run(&rotary));
        let zip = vec![("run-export.zip".to_string(), bundle(&chars, "run").unwrap())];
        let starcoder2 = hf::export(&rotary).unwrap();
        vec![
            nanogpt::export(&chars, "run").unwrap(),
            hf::export(&chars).unwrap(),
            hf::export(&bpe).unwrap(),
            zip,
            starcoder2,
        ]
    })
}

#[derive(Debug, Clone)]
enum Damage {
    Cut(usize),
    Flip(usize, u8),
    Overwrite(usize, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<usize>().prop_map(Damage::Cut),
        (any::<usize>(), 1u8..=255).prop_map(|(at, bit)| Damage::Flip(at, bit)),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..16)).prop_map(|(at, b)| Damage::Overwrite(at, b)),
    ]
}

fn apply(bytes: &mut Vec<u8>, damage: &Damage) {
    if bytes.is_empty() {
        return;
    }
    match damage {
        Damage::Cut(at) => bytes.truncate(at % bytes.len()),
        Damage::Flip(at, bit) => {
            let at = at % bytes.len();
            bytes[at] ^= bit;
        }
        Damage::Overwrite(at, with) => {
            let at = at % bytes.len();
            let end = (at + with.len()).min(bytes.len());
            bytes[at..end].copy_from_slice(&with[..end - at]);
        }
    }
}

proptest! {
    #![proptest_config(cases(96))]

    #[test]
    fn a_damaged_export_imports_or_says_what_is_wrong(
        which in 0usize..5,
        file in any::<usize>(),
        damages in proptest::collection::vec(damage(), 1..4),
    ) {
        let mut files = originals()[which].clone();
        let n = files.len();
        for d in &damages {
            apply(&mut files[file % n].1, d);
        }
        let borrowed: Vec<(String, &[u8])> = files.iter().map(|(name, b)| (name.clone(), b.as_slice())).collect();
        match import(&borrowed) {
            Ok(imported) => {
                if let Err(e) = Run::open(&imported.checkpoint) {
                    assert_specific(&e);
                }
            }
            Err(e) => assert_specific(&e),
        }
    }
}
