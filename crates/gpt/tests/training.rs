//! The training loop as a user meets it: the loss falls, the same seed repeats itself, and
//! mistakes come back as clear errors with the model left intact.

mod common;

use common::{muon_run, no_clock, optimizer_run, setup_with, TEXT};
use gpt::{Budget, Error, GPTConfig, Run, Settings, TrainConfig};

fn setup(lr: f32, grad_clip: f32) -> Run {
    setup_with(lr, grad_clip, 0.0, (8, 16))
}

#[test]
fn loss_falls_and_the_same_seed_gives_the_same_losses() {
    let (mut a, mut b) = (setup(3e-3, 1.0), setup(3e-3, 1.0));
    let before = a.evaluate().unwrap();
    let losses: Vec<f32> = (0..60).map(|_| a.step(&no_clock).unwrap().loss).collect();
    let again: Vec<f32> = (0..60).map(|_| b.step(&no_clock).unwrap().loss).collect();
    assert_eq!(losses, again);
    let after = a.evaluate().unwrap();
    assert!(after.val_loss < before.val_loss - 1.0, "{before:?} -> {after:?}");
    assert_eq!(a.evaluate().unwrap(), after, "evaluating twice at one step gives the same numbers");
}

#[test]
fn the_losses_do_not_depend_on_the_number_of_threads() {
    let losses = |threads: usize| {
        let mut run = setup_with(3e-3, 1.0, 0.1, (24, 32)); // 768 tokens: 4 shards
        run.set_threads(threads);
        let mut bits: Vec<u32> = (0..20).map(|_| run.step(&no_clock).unwrap().loss.to_bits()).collect();
        let evaluation = run.evaluate().unwrap(); // 8 batches: 3 threads take 2, 3 and 3
        bits.extend([evaluation.train_loss.to_bits(), evaluation.val_loss.to_bits()]);
        bits
    };
    let one = losses(1);
    assert_eq!(losses(2), one, "2 threads");
    assert_eq!(losses(3), one, "3 threads");
}

#[test]
fn divergence_is_an_error_and_keeps_the_weights() {
    let mut t = setup(9.0, 0.0);
    let mut last_good = t.model().params().values.clone();
    for _ in 0..300 {
        match t.step(&no_clock) {
            Ok(_) => last_good = t.model().params().values.clone(),
            Err(Error::Diverged(msg)) => {
                assert!(msg.english.contains("Lower the learning rate"), "{msg}");
                assert!(msg.english.contains("gradient clipping"), "{msg}");
                assert_eq!(t.model().params().values, last_good);
                return;
            }
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    panic!("a learning rate of 9 without clipping should diverge");
}

#[test]
fn bad_settings_are_clear_errors() {
    let model = GPTConfig { block_size: 8, n_layer: 1, n_head: 1, n_embd: 8, ..Default::default() };
    let tab = Budget { max_params: 50_000_000, max_training_bytes: 2 << 30 };
    let err = |model: GPTConfig, train: TrainConfig, text: &str| {
        Run::create(&Settings { model, train, ..Default::default() }, text, &tab).err().unwrap()
    };
    let long = "abc".repeat(100);
    assert!(err(model.clone(), TrainConfig::default(), "abcabc").to_string().contains("too short"));
    let t = TrainConfig { learning_rate: -1.0, ..Default::default() };
    assert!(err(model.clone(), t, &long).to_string().contains("learning_rate"));
    let huge = GPTConfig { block_size: 4096, ..model.clone() };
    let t = TrainConfig { batch_size: 4096, ..Default::default() };
    assert!(err(huge, t, &long).to_string().contains("MiB"));
    assert!(err(GPTConfig { n_head: 3, ..model }, TrainConfig::default(), &long).to_string().contains("divisible"));
}

#[test]
fn sgd_learns_and_resumes_exactly_with_its_momentum() {
    let sgd = || optimizer_run("sgd", serde_json::json!({"sgd_momentum": 0.9}), 0.3);
    let params = sgd().model().params().values.len();
    trains_and_resumes_exactly(sgd, "momentum_buffer.", params);
}

#[test]
fn muon_learns_gives_the_same_bits_on_any_thread_count_and_resumes_exactly() {
    let losses = |threads: usize| {
        let mut run = muon_run();
        run.set_threads(threads);
        let mut bits: Vec<u32> = (0..8).map(|_| run.step(&no_clock).unwrap().loss.to_bits()).collect();
        let e = run.evaluate().unwrap();
        bits.extend([e.train_loss.to_bits(), e.val_loss.to_bits()]);
        bits
    };
    let one = losses(1);
    assert_eq!(losses(2), one, "2 threads");
    assert_eq!(losses(3), one, "3 threads");

    // The checkpoint keeps Muon's momentum: 4 matrices a block.
    trains_and_resumes_exactly(muon_run, "muon.", 8);
}

/// A run `make` makes learns in 16 steps; saved after 8, with `buffers` state tensors named from
/// `prefix`, it resumes to the same losses as the run unbroken, bit for bit.
fn trains_and_resumes_exactly(make: impl Fn() -> Run, prefix: &str, buffers: usize) {
    let mut unbroken = make();
    let before = unbroken.evaluate().unwrap();
    unbroken.train(16, &no_clock).unwrap();
    assert!(unbroken.evaluate().unwrap().val_loss < before.val_loss - 0.3, "it trains");
    let mut first = make();
    first.train(8, &no_clock).unwrap();
    let mut resumed = Run::open(&first.save().unwrap()).unwrap();
    let state = |run: &Run| -> Vec<ndarray::ArrayD<f32>> {
        run.optimizer().state().into_iter().filter(|(n, _)| n.starts_with(prefix)).map(|(_, v)| v.clone()).collect()
    };
    assert_eq!(state(&resumed).len(), buffers, "the checkpoint keeps the optimiser's state");
    assert_eq!(state(&resumed), state(&first));
    resumed.use_text(&TEXT.repeat(20)).unwrap();
    resumed.train(8, &no_clock).unwrap();
    assert_eq!(resumed.history().losses, unbroken.history().losses, "resumed equals unbroken, bit for bit");
}
