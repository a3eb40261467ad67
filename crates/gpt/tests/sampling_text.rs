//! Sampled byte-pair text is always valid text: an undertrained model at a high temperature,
//! on accented and emoji text, never streams a replacement character nor half a character, nor a
//! byte its text never had.

use gpt::{Budget, GPTConfig, Run, SampleConfig, Settings, TokenizerKind, TrainConfig};

const TEXT: &str = "Là-bas, près de l'école, un garçon mange une crème brûlée 🍮 et rit 😄. Ça y est : \
    l'été arrive, les cerises sont mûres 🍒, le café est prêt ☕. Señor Núñez dit « adiós » 👋. ";

#[test]
fn an_undertrained_byte_pair_model_samples_only_valid_text() {
    let model = GPTConfig { block_size: 32, n_layer: 1, n_head: 2, n_embd: 16, ..Default::default() };
    let train = TrainConfig { batch_size: 4, max_iters: 5, warmup_iters: 1, eval_iters: 1, ..Default::default() };
    let settings = Settings { model, train, tokenizer: TokenizerKind::Bpe, bpe_vocab_size: 300, ..Default::default() };
    let mut run = Run::create(&settings, &TEXT.repeat(20), &Budget::UNLIMITED).unwrap();
    run.train(5, &|| 0.0).unwrap();
    for seed in 0..3 {
        let config = SampleConfig { temperature: 2.0, max_new_tokens: 400, seed, ..Default::default() };
        run.start_sample(config).unwrap();
        let mut text = String::new();
        while let Some(piece) = run.sample_next(7).unwrap() {
            assert!(!piece.contains('\u{FFFD}'), "seed {seed}: a replacement character in {piece:?}");
            let unseen = piece.bytes().find(|b| !TEXT.as_bytes().contains(b));
            assert_eq!(unseen, None, "seed {seed}: a byte the text lacks in {piece:?}");
            text.push_str(&piece);
        }
        assert!(text.chars().count() > 100, "seed {seed}: only {text:?}");
    }
}
