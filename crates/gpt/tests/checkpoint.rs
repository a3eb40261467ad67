//! Checkpoints: exact resume, and clear errors for files that do not fit.

use gpt::checkpoint::load;
use gpt::{Budget, GPTConfig, Run, SampleConfig, Settings, Tokenizer, TokenizerKind, TrainConfig};
use safetensors::SafeTensors;
use std::collections::HashMap;

fn text() -> String {
    "to be, or not to be: that is the question. ".repeat(30)
}

fn settings() -> Settings {
    let model = GPTConfig {
        block_size: 8,
        n_layer: 2,
        n_head: 2,
        n_embd: 16,
        dropout: 0.1, // so the resumed RNG matters for dropout masks too
        bias: true,
        ..Default::default()
    };
    // 48 sequences of 8 tokens: 2 shards, so two workers each compute one.
    let train = TrainConfig { batch_size: 48, max_iters: 20, warmup_iters: 3, eval_iters: 2, ..Default::default() };
    Settings { model, train, ..Default::default() }
}

fn new_run(settings: &Settings) -> Run {
    Run::create(settings, &text(), &Budget::UNLIMITED).unwrap()
}

fn losses(run: &mut Run, n: usize) -> Vec<u32> {
    (0..n).map(|_| run.step(&no_clock).unwrap().loss.to_bits()).collect()
}

/// Tests time nothing.
fn no_clock() -> f64 {
    0.0
}

#[test]
fn resume_is_bit_exact() {
    let mut straight = new_run(&settings());
    let all = losses(&mut straight, 12);

    let mut first = new_run(&settings());
    first.set_threads(2); // a run saved with two workers resumes exactly with one
    let mut head = losses(&mut first, 5);
    first.evaluate().unwrap();
    assert_eq!(load(&first.save().unwrap()).unwrap().sampling, None, "never sampled");
    let sampling = SampleConfig { prompt: "to be".into(), temperature: 0.5, top_k: 3, seed: 7, max_new_tokens: 40 };
    first.set_last_sample(sampling.clone());
    let bytes = first.save().unwrap();
    let restored = load(&bytes).unwrap();
    assert_eq!(&restored.tokenizer, first.tokenizer());
    assert_eq!(restored.sampling, Some(sampling));
    let mut second = Run::open(&bytes).unwrap();
    second.use_text(&text()).unwrap();
    assert_eq!(second.step_count(), 5);
    assert_eq!(second.history().losses.len(), 5);
    assert_eq!(second.history().evals.len(), 1);
    head.extend(losses(&mut second, 7));
    assert_eq!(head, all, "5 steps + save/load + 7 steps must equal 12 steps");
    let seconds = &second.history().seconds;
    assert_eq!(seconds.len(), 12, "training time kept across the save");
    assert!(seconds.windows(2).all(|w| w[0] < w[1]), "time since the first step grows: {seconds:?}");
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
    let mut run = new_run(&settings());
    run.step(&no_clock).unwrap();
    let good = run.save().unwrap();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (good[..good.len() / 2].to_vec(), "not a readable checkpoint"),
        (b"hello, not a checkpoint".to_vec(), "not a readable checkpoint"),
        (vec![], "not a readable checkpoint"),
        (rewrite(&good, |m, _| drop(m.remove("config"))), "no `config`"),
        (rewrite(&good, |m, _| drop(m.insert("config".into(), "{\"n_embd\": ".into()))), "`config` is invalid"),
        (
            rewrite(&good, |m, _| {
                m.insert("config".into(), m["config"].replace("\"n_embd\":16", "\"n_embd\":8"));
            }),
            "has shape",
        ),
        (
            rewrite(&good, |m, _| {
                m.insert("config".into(), m["config"].replace("\"n_embd\":16", "\"n_embd\":64"));
            }),
            "more than this",
        ),
        (
            rewrite(&good, |_, t| t.retain(|(n, _, _)| n != "transformer.h.1.mlp.c_fc.weight")),
            "no tensor transformer.h.1.mlp.c_fc.weight",
        ),
        (rewrite(&good, |_, t| t.push(("extra.weight".into(), vec![1], vec![0; 4]))), "extra.weight"),
        (rewrite(&good, |m, _| drop(m.insert("vocab".into(), "[\"ab\"]".into()))), "not a single character"),
    ];
    for (bytes, want) in cases {
        let err = Run::open(&bytes).err().expect("must fail").to_string();
        assert!(err.contains(want), "{err:?} should mention {want:?}");
    }
    run.step(&no_clock).expect("the model in memory is untouched");
}

#[test]
fn weights_only_files_start_a_fresh_optimiser() {
    let weights_only = rewrite(&new_run(&settings()).save().unwrap(), |m, t| {
        m.retain(|k, _| k == "config" || k == "vocab");
        t.retain(|(n, _, _)| !n.starts_with("optimizer."));
    });
    let restored = load(&weights_only).unwrap();
    assert!(restored.optimizer.is_none() && restored.step == 0);
    let mut resumed = Run::open(&weights_only).unwrap();
    resumed.use_text(&text()).unwrap();
    resumed.step(&no_clock).unwrap();
}

#[test]
fn a_bpe_vocabulary_survives_a_checkpoint() {
    let bpe = Settings { tokenizer: TokenizerKind::Bpe, bpe_vocab_size: 280, ..settings() };
    let run = new_run(&bpe);
    let tok = Tokenizer::fit(TokenizerKind::Bpe, &text(), 280).unwrap();
    assert_eq!(run.tokenizer(), &tok);
    assert_eq!(Run::open(&run.save().unwrap()).unwrap().tokenizer(), &tok);
}
