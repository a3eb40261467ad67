//! The training loop as a user meets it: the loss falls, the same seed repeats itself, and
//! mistakes come back as clear errors with the model left intact.

use gpt::{CharTokenizer, Error, GPTConfig, TrainConfig, Trainer};

const TEXT: &str = "the cat sat on the mat. the dog sat on the log. the cat and the dog sat on the mat. ";

fn setup(lr: f32, grad_clip: f32) -> Trainer {
    let text = TEXT.repeat(20);
    let tok = CharTokenizer::fit(&text).unwrap();
    let model = GPTConfig {
        vocab_size: tok.vocab_size(),
        block_size: 16,
        n_layer: 2,
        n_head: 2,
        n_embd: 32,
        bias: false,
        ..Default::default()
    };
    let train = TrainConfig {
        batch_size: 8,
        max_iters: 60,
        learning_rate: lr,
        min_lr: lr / 10.0,
        warmup_iters: 5,
        lr_decay_iters: 60,
        grad_clip,
        seed: 7,
        ..Default::default()
    };
    Trainer::new(model, train, tok.encode(&text).unwrap()).unwrap()
}

#[test]
fn loss_falls_and_the_same_seed_gives_the_same_losses() {
    let (mut a, mut b) = (setup(3e-3, 1.0), setup(3e-3, 1.0));
    let before = a.evaluate(4).unwrap();
    let losses: Vec<f32> = (0..60).map(|_| a.step().unwrap().loss).collect();
    let again: Vec<f32> = (0..60).map(|_| b.step().unwrap().loss).collect();
    assert_eq!(losses, again);
    let after = a.evaluate(4).unwrap();
    assert!(after.val_loss < before.val_loss - 1.0, "{before:?} -> {after:?}");
    assert_eq!(a.evaluate(4).unwrap(), after, "evaluating twice at one step gives the same numbers");
}

#[test]
fn divergence_is_an_error_and_keeps_the_weights() {
    let mut t = setup(9.0, 0.0);
    let mut last_good = t.model().params().values.clone();
    for _ in 0..300 {
        match t.step() {
            Ok(_) => last_good = t.model().params().values.clone(),
            Err(Error::Diverged(msg)) => {
                assert!(msg.contains("Lower the learning rate"), "{msg}");
                assert!(msg.contains("gradient clipping"), "{msg}");
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
    let tok = CharTokenizer::fit("abc").unwrap();
    let model = GPTConfig { vocab_size: 3, block_size: 8, n_layer: 1, n_head: 1, n_embd: 8, ..Default::default() };
    let err = |m: GPTConfig, t: TrainConfig, text: &str| Trainer::new(m, t, tok.encode(text).unwrap()).err().unwrap();
    let long = "abc".repeat(100);
    assert!(err(model.clone(), TrainConfig::default(), "abcabc").to_string().contains("too short"));
    let t = TrainConfig { learning_rate: -1.0, ..Default::default() };
    assert!(err(model.clone(), t, &long).to_string().contains("learning_rate"));
    let huge = GPTConfig { block_size: 4096, ..model.clone() };
    let t = TrainConfig { batch_size: 4096, ..Default::default() };
    assert!(err(huge, t, &long).to_string().contains("MiB"));
    assert!(err(GPTConfig { n_head: 3, ..model }, TrainConfig::default(), &long).to_string().contains("divisible"));
}
