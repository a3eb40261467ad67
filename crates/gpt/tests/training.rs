//! The training loop as a user meets it: the loss falls, the same seed repeats itself, and
//! mistakes come back as clear errors with the model left intact.

use gpt::work::Replica;
use gpt::{Budget, Error, GPTConfig, Run, Settings, TrainConfig};
use gpt::{JobKind, Next, Outcome, Progress};

const TEXT: &str = "the cat sat on the mat. the dog sat on the log. the cat and the dog sat on the mat. ";

fn setup(lr: f32, grad_clip: f32) -> Run {
    setup_with(lr, grad_clip, 0.0, (8, 16))
}

/// A run with `dropout`, on batches of `(sequences, tokens)`.
fn setup_with(lr: f32, grad_clip: f32, dropout: f32, (batch_size, block_size): (usize, usize)) -> Run {
    let text = TEXT.repeat(20);
    let model = GPTConfig { dropout, block_size, n_layer: 2, n_head: 2, n_embd: 32, bias: false, ..Default::default() };
    let train = TrainConfig {
        batch_size,
        max_iters: 60,
        learning_rate: lr,
        min_lr: lr / 10.0,
        warmup_iters: 5,
        grad_clip,
        seed: 7,
        eval_iters: 4,
        ..Default::default()
    };
    Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap()
}

/// Tests time nothing.
fn no_clock() -> f64 {
    0.0
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

/// Does `kind` on `run` with `replicas` as helpers, as the page's Web Workers do: orders go out,
/// and a helper answers the oldest order it has been sent on every turn of the run's loop (and
/// whenever the run waits), so replies come in while the run works.
fn perform(run: &mut Run, kind: JobKind, replicas: &mut [Replica]) -> Outcome {
    let mut queue = std::collections::VecDeque::new();
    let mut progress = run.begin(kind, replicas.len(), 0.0).unwrap();
    loop {
        for order in progress.orders {
            let data: Vec<f32> = run.order_data(&order.data).concat();
            queue.push_back((order.to, order.header, data));
        }
        if let Some(outcome) = progress.outcome {
            assert!(queue.is_empty(), "no order is left unanswered");
            return outcome;
        }
        if let Some((to, header, data)) = queue.pop_front() {
            let answer =
                replicas[to - 1].answer(&header, data.len(), |at, out| out.copy_from_slice(&data[at..at + out.len()]));
            let answer = answer.unwrap();
            let flat = answer.data.concat();
            let more = run.accept(&answer.header, flat.len(), |at, out| out.copy_from_slice(&flat[at..at + out.len()]));
            progress = Progress { orders: more.unwrap(), next: Next::Work, outcome: None };
            replicas[to - 1].recycle(answer);
            continue;
        }
        assert!(!matches!(progress.next, Next::Wait), "the run waits only while a helper has its order");
        progress = run.advance(&|| 0.0).unwrap();
    }
}

#[test]
fn helpers_compute_what_the_run_would_alone_with_adamw_and_muon() {
    // Muon's own settings travel with its pieces: three steps of Polar Express's, not the default.
    let polar = serde_json::json!({"muon_ns_coefficients": "polar_express", "muon_ns_steps": 3});
    for optimizer in ["adamw", "muon", "muon, Polar Express"] {
        let make = || match optimizer {
            "adamw" => setup_with(3e-3, 1.0, 0.1, (24, 32)),
            "muon" => muon_run(),
            _ => muon_run_with(polar.clone()),
        };
        let (alone, alone_eval, alone_grid) = {
            let mut run = make();
            let losses = (0..6).map(|_| run.step(&no_clock).unwrap().loss.to_bits()).collect::<Vec<_>>();
            (losses, run.evaluate().unwrap(), run.history().ablations.clone())
        };
        assert_eq!(alone_grid.len(), 1, "the evaluation knocked every part out");
        for helpers in 1..=3 {
            let mut run = make();
            let mut replicas: Vec<Replica> =
                (0..helpers).map(|_| Replica::new(run.model().config().clone()).unwrap()).collect();
            let losses: Vec<u32> = (0..6)
                .map(|_| match perform(&mut run, JobKind::Step, &mut replicas) {
                    Outcome::Step(stats) => stats.loss.to_bits(),
                    other => panic!("a step ended as {other:?}"),
                })
                .collect();
            assert_eq!(losses, alone, "{helpers} helpers, {optimizer}");
            let evaluation = perform(&mut run, JobKind::Evaluation, &mut replicas);
            assert_eq!(evaluation, Outcome::Evaluation(alone_eval), "{helpers} helpers, {optimizer}");
            assert_eq!(run.history().ablations, alone_grid, "the grid, {helpers} helpers, {optimizer}");
            assert_eq!(run.workers(), helpers + 1);
        }
    }
}

#[test]
fn a_reply_to_work_given_up_is_dropped_and_the_run_goes_on() {
    let mut run = setup_with(3e-3, 1.0, 0.1, (24, 32));
    let mut replica = Replica::new(run.model().config().clone()).unwrap();
    let progress = run.begin(JobKind::Step, 1, 0.0).unwrap();
    let order = &progress.orders[0];
    let data: Vec<f32> = run.order_data(&order.data).concat();
    let answer =
        replica.answer(&order.header, data.len(), |at, out| out.copy_from_slice(&data[at..at + out.len()])).unwrap();
    run.abort(); // a helper failed, say
    assert!(run.advance(&no_clock).unwrap_err().to_string().contains("no step or evaluation is in progress"));
    let flat = answer.data.concat();
    assert!(run
        .accept(&answer.header, flat.len(), |at, out| out.copy_from_slice(&flat[at..at + out.len()]))
        .unwrap()
        .is_empty());
    assert!(run
        .accept("{}", 0, |_, _| {})
        .unwrap_err()
        .to_string()
        .contains("a reply from another worker cannot be read"));
    assert_eq!(run.step_count(), 0);
    run.step(&no_clock).expect("the run is ready for the next step");
}

#[test]
fn divergence_is_an_error_and_keeps_the_weights() {
    let mut t = setup(9.0, 0.0);
    let mut last_good = t.model().params().values.clone();
    for _ in 0..300 {
        match t.step(&no_clock) {
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

/// A run trained by Muon (the block matrices) and AdamW (the rest).
fn muon_run() -> Run {
    muon_run_with(serde_json::Value::Null)
}

/// The same with Muon's own `settings`.
fn muon_run_with(settings: serde_json::Value) -> Run {
    let text = TEXT.repeat(20);
    let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 32, bias: false, ..Default::default() };
    let train = TrainConfig {
        batch_size: 24,
        max_iters: 60,
        learning_rate: 3e-3,
        min_lr: 3e-4,
        warmup_iters: 5,
        seed: 11,
        eval_iters: 4,
        ..Default::default()
    }
    .with_optimizer("muon", settings);
    Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap()
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

    let mut unbroken = muon_run();
    let before = unbroken.evaluate().unwrap();
    unbroken.train(16, &no_clock).unwrap();
    assert!(unbroken.evaluate().unwrap().val_loss < before.val_loss - 0.3, "Muon trains");
    let mut first = muon_run();
    first.train(8, &no_clock).unwrap();
    let mut resumed = Run::open(&first.save().unwrap()).unwrap();
    let momentum = |run: &Run| -> Vec<ndarray::ArrayD<f32>> {
        run.optimizer().state().into_iter().filter(|(n, _)| n.starts_with("muon.")).map(|(_, v)| v.clone()).collect()
    };
    assert_eq!(momentum(&resumed).len(), 8, "the checkpoint keeps Muon's momentum: 4 matrices a block");
    assert_eq!(momentum(&resumed), momentum(&first));
    resumed.use_text(&TEXT.repeat(20)).unwrap();
    resumed.train(8, &no_clock).unwrap();
    assert_eq!(resumed.history().losses, unbroken.history().losses, "resumed equals unbroken, bit for bit");
}
