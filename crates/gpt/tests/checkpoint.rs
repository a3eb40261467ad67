//! Checkpoints: exact resume, and clear errors for files that do not fit.

use gpt::checkpoint::{load, save};
use gpt::{GPTConfig, SampleConfig, Tokenizer, TokenizerKind, TrainConfig, Trainer};
use safetensors::SafeTensors;
use std::collections::HashMap;

fn setup() -> (GPTConfig, TrainConfig, Tokenizer, Vec<u32>) {
    let text = "to be, or not to be: that is the question. ".repeat(30);
    let tok = Tokenizer::fit(TokenizerKind::Char, &text, 0).unwrap();
    let model = GPTConfig {
        vocab_size: tok.vocab_size(),
        block_size: 8,
        n_layer: 2,
        n_head: 2,
        n_embd: 16,
        dropout: 0.1, // so the resumed RNG matters for dropout masks too
        bias: true,
        ..Default::default()
    };
    let train = TrainConfig { batch_size: 4, max_iters: 20, warmup_iters: 3, lr_decay_iters: 20, ..Default::default() };
    let tokens = tok.encode(&text).unwrap();
    (model, train, tok, tokens)
}

fn losses(t: &mut Trainer, n: usize) -> Vec<u32> {
    (0..n).map(|_| t.step().unwrap().loss.to_bits()).collect()
}

#[test]
fn resume_is_bit_exact() {
    let (model, train, tok, tokens) = setup();
    let mut straight = Trainer::new(model.clone(), train.clone(), tokens.clone()).unwrap();
    let all = losses(&mut straight, 12);

    let mut first = Trainer::new(model, train, tokens.clone()).unwrap();
    let mut head = losses(&mut first, 5);
    first.evaluate(2).unwrap();
    assert_eq!(load(&save(&first, &tok).unwrap()).unwrap().sampling, None, "never sampled");
    let sampling = SampleConfig { prompt: "to be".into(), temperature: 0.5, top_k: 3, seed: 7, max_new_tokens: 40 };
    first.sampling = Some(sampling.clone());
    let bytes = save(&first, &tok).unwrap();
    let restored = load(&bytes).unwrap();
    assert_eq!(restored.tokenizer, tok);
    assert_eq!(restored.sampling, Some(sampling));
    let mut second = Trainer::resume(restored, tokens).unwrap();
    assert_eq!(second.step_count(), 5);
    assert_eq!(second.history().losses.len(), 5);
    assert_eq!(second.history().evals.len(), 1);
    head.extend(losses(&mut second, 7));
    assert_eq!(head, all, "5 steps + save/load + 7 steps must equal 12 steps");
}

/// `bytes` rewritten with `edit` applied to its metadata and tensors.
fn rewrite(
    bytes: &[u8],
    edit: impl FnOnce(&mut HashMap<String, String>, &mut Vec<(String, Vec<usize>, Vec<u8>)>),
) -> Vec<u8> {
    let file = SafeTensors::deserialize(bytes).unwrap();
    let (_, header) = SafeTensors::read_metadata(bytes).unwrap();
    let mut meta = header.metadata().clone().unwrap();
    let mut tensors: Vec<_> =
        file.iter().map(|(n, t)| (n.to_string(), t.shape().to_vec(), t.data().to_vec())).collect();
    edit(&mut meta, &mut tensors);
    let views: Vec<_> = tensors
        .iter()
        .map(|(n, s, d)| {
            (n.as_str(), safetensors::tensor::TensorView::new(safetensors::Dtype::F32, s.clone(), d).unwrap())
        })
        .collect();
    safetensors::serialize(views, Some(meta)).unwrap()
}

#[test]
fn bad_files_are_clear_errors() {
    let (model, train, tok, tokens) = setup();
    let mut trainer = Trainer::new(model, train, tokens).unwrap();
    trainer.step().unwrap();
    let good = save(&trainer, &tok).unwrap();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (good[..good.len() / 2].to_vec(), "not a readable checkpoint"),
        (b"hello, not a checkpoint".to_vec(), "not a readable checkpoint"),
        (vec![], "not a readable checkpoint"),
        (rewrite(&good, |m, _| drop(m.remove("config"))), "no `config`"),
        (rewrite(&good, |m, _| drop(m.insert("config".into(), "{\"n_embd\": ".into()))), "`config` is invalid"),
        (
            rewrite(&good, |m, _| {
                m.insert("config".into(), m["config"].replace("\"n_embd\":16", "\"n_embd\":32"));
            }),
            "has shape",
        ),
        (
            rewrite(&good, |_, t| t.retain(|(n, _, _)| n != "transformer.h.1.mlp.c_fc.weight")),
            "no tensor transformer.h.1.mlp.c_fc.weight",
        ),
        (rewrite(&good, |_, t| t.push(("extra.weight".into(), vec![1], vec![0; 4]))), "extra.weight"),
        (rewrite(&good, |m, _| drop(m.insert("vocab".into(), "[\"ab\"]".into()))), "not a single character"),
    ];
    for (bytes, want) in cases {
        let err = load(&bytes).err().expect("must fail").to_string();
        assert!(err.contains(want), "{err:?} should mention {want:?}");
    }
    trainer.step().expect("the model in memory is untouched");
}

#[test]
fn weights_only_files_start_a_fresh_optimiser() {
    let (model, train, tok, tokens) = setup();
    let trainer = Trainer::new(model, train, tokens.clone()).unwrap();
    let weights_only = rewrite(&save(&trainer, &tok).unwrap(), |m, t| {
        m.retain(|k, _| k == "config" || k == "vocab");
        t.retain(|(n, _, _)| !n.starts_with("optimizer."));
    });
    let restored = load(&weights_only).unwrap();
    assert!(restored.optimizer.is_none() && restored.step == 0);
    let mut resumed = Trainer::resume(restored, tokens).unwrap();
    resumed.step().unwrap();
}

#[test]
fn a_bpe_vocabulary_survives_a_checkpoint() {
    let (model, train, _, _) = setup();
    let text = "to be, or not to be: that is the question. ".repeat(30);
    let tok = Tokenizer::fit(TokenizerKind::Bpe, &text, 280).unwrap();
    let tokens = tok.encode(&text).unwrap();
    let model = GPTConfig { vocab_size: tok.vocab_size(), ..model };
    let trainer = Trainer::new(model, train, tokens).unwrap();
    let restored = load(&save(&trainer, &tok).unwrap()).unwrap();
    assert_eq!(restored.tokenizer, tok);
}
