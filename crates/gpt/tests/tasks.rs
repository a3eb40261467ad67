//! A task's run as a user meets it: the answer alone counts in the loss, accuracy is exact match,
//! accuracy rises above chance as it trains, any thread count gives the same numbers, a saved run
//! resumes exactly, and its problems come back with the model's answers marked.

use gpt::ops::IGNORE;
use gpt::workspace::Workspace;
use gpt::{Budget, GPTConfig, Origin, Run, Settings, TaskConfig, TrainConfig, GPT};

/// A small reverse task (3 letters of 4), on a model with rotary positions when `rope`.
fn reverse_run(rope: bool, seed: u64) -> Run {
    let model = GPTConfig { block_size: 7, n_layer: 2, n_head: 2, n_embd: 32, bias: false, rope, ..Default::default() };
    let train = TrainConfig {
        batch_size: 16,
        max_iters: 300,
        learning_rate: 3e-3,
        min_lr: 3e-4,
        warmup_iters: 10,
        seed,
        eval_interval: Some(50),
        eval_iters: 4,
        ..Default::default()
    };
    let task = TaskConfig { train_fraction: 0.5, ..TaskConfig::default().with("length", 3).with("symbols", 4) };
    Run::create(&Settings { model, train, task: Some(task), ..Default::default() }, "", &Budget::UNLIMITED).unwrap()
}

fn no_clock() -> f64 {
    0.0
}

/// -log softmax(row)[target], in f64.
fn nll(row: &[f32], target: usize) -> f64 {
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x)) as f64;
    let sum: f64 = row.iter().map(|&x| (x as f64 - max).exp()).sum();
    sum.ln() - (row[target] as f64 - max)
}

#[test]
fn the_loss_counts_the_answer_alone_and_accuracy_is_exact_match() {
    let config = GPTConfig { vocab_size: 5, block_size: 4, n_layer: 1, n_head: 1, n_embd: 8, ..Default::default() };
    let model = GPT::new(config, 3).unwrap();
    let (b, t, v) = (3, 4, 5);
    let idx = [0, 1, 2, 3, 4, 3, 2, 1, 1, 1, 1, 1];
    let logits = model.logits(&idx, b, t).unwrap();
    let logits = logits.as_slice().unwrap();
    let row = |r: usize, p: usize| &logits[(r * t + p) * v..(r * t + p + 1) * v];
    let argmax = |r: usize, p: usize| (0..v).fold(0, |best, i| if row(r, p)[i] > row(r, p)[best] { i } else { best });
    // Row 0 counts positions 2 and 3, both set to the model's own choice: right. Row 1 counts
    // position 3 with another token: wrong. Row 2 counts position 1, right, and nothing else.
    let wrong = (argmax(1, 3) + 1) % v;
    let targets = [
        IGNORE,
        IGNORE,
        argmax(0, 2),
        argmax(0, 3),
        IGNORE,
        IGNORE,
        IGNORE,
        wrong,
        IGNORE,
        argmax(2, 1),
        IGNORE,
        IGNORE,
    ];
    let (loss, exact) = model.score_in(&Workspace::default(), &idx, &targets, b, t).unwrap();
    let by_hand = (nll(row(0, 2), argmax(0, 2))
        + nll(row(0, 3), argmax(0, 3))
        + nll(row(1, 3), wrong)
        + nll(row(2, 1), argmax(2, 1)))
        / 4.0;
    assert!((loss as f64 - by_hand).abs() < 1e-6, "{loss} vs {by_hand} by hand over the 4 counted positions");
    assert_eq!(exact, 2, "rows 0 and 2 are right in every counted position, row 1 is not");
    let everything: Vec<usize> = idx.iter().map(|&i| (i + 1) % v).collect();
    let (all, _) = model.score_in(&Workspace::default(), &idx, &everything, b, t).unwrap();
    let all_by_hand: f64 = (0..12).map(|i| nll(row(i / t, i % t), everything[i])).sum::<f64>() / 12.0;
    assert!((all as f64 - all_by_hand).abs() < 1e-6, "with nothing ignored, every position counts");
}

#[test]
fn accuracy_rises_above_chance_and_texts_report_none() {
    let mut run = reverse_run(false, 7);
    let before = run.evaluate().unwrap();
    assert!(before.val_accuracy.unwrap() < 0.2, "{before:?}: chance is 1/64");
    run.train(300, &no_clock).unwrap();
    let after = run.evaluate().unwrap();
    assert!(after.val_accuracy.unwrap() > 0.5 && after.train_accuracy.unwrap() > 0.5, "{before:?} -> {after:?}");
    assert!(after.val_loss < before.val_loss - 0.5);
    let solutions = run.held_out_solutions(10).unwrap();
    assert_eq!(solutions.len(), 10);
    assert!(solutions
        .iter()
        .all(|s| s.origin == Origin::HeldOut && s.prompt.ends_with('>') && s.answer.chars().count() == 3));
    assert!(solutions.iter().filter(|s| s.correct).count() >= 5, "{solutions:?}");
    assert_eq!(run.held_out_solutions(10).unwrap(), solutions, "the same problems each time");
    let typed = run.solve("dab").unwrap();
    assert_eq!((typed.prompt.as_str(), typed.expected.as_str()), ("dab>", "bad"));
    assert_ne!(typed.origin, Origin::Outside, "a problem of the task, in one set or the other");
    assert_eq!(run.solve("ab").unwrap().origin, Origin::Outside, "the task's problems have 3 letters");
    assert!(run.solve("dxb").unwrap_err().to_string().contains("'x' is not one of this task's symbols"));
    assert!(run.use_text("some text").unwrap_err().to_string().contains("takes no text"));

    let text = "the cat sat on the mat. ".repeat(20);
    let model = GPTConfig { block_size: 8, n_layer: 1, n_head: 2, n_embd: 8, ..Default::default() };
    let train = TrainConfig { batch_size: 4, eval_iters: 1, ..Default::default() };
    let mut text_run =
        Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap();
    let evaluation = text_run.evaluate().unwrap();
    assert_eq!((evaluation.train_accuracy, evaluation.val_accuracy), (None, None));
    assert!(text_run.held_out_solutions(3).is_err() && text_run.task_details().is_none());
}

#[test]
fn the_numbers_do_not_depend_on_the_thread_count() {
    let numbers = |threads: usize| {
        let mut run = reverse_run(true, 3);
        run.set_threads(threads);
        let mut bits: Vec<u32> = (0..30).map(|_| run.step(&no_clock).unwrap().loss.to_bits()).collect();
        let e = run.evaluate().unwrap();
        bits.extend([e.train_loss, e.val_loss, e.train_accuracy.unwrap(), e.val_accuracy.unwrap()].map(f32::to_bits));
        bits
    };
    let one = numbers(1);
    assert_eq!(numbers(2), one, "2 threads");
    assert_eq!(numbers(3), one, "3 threads");
}

#[test]
fn a_saved_task_run_resumes_exactly_without_text() {
    let mut unbroken = reverse_run(true, 5);
    let mut first = reverse_run(true, 5);
    unbroken.train(40, &no_clock).unwrap();
    first.train(20, &no_clock).unwrap();
    let mut resumed = Run::open(&first.save().unwrap()).unwrap();
    assert!(resumed.has_text(), "a task's run trains at once, with no text attached");
    assert_eq!(resumed.settings(), first.settings());
    assert!(resumed.model().params().get("transformer.wpe.weight").is_none(), "rotary positions: no table");
    resumed.train(20, &no_clock).unwrap();
    assert_eq!(resumed.history().losses, unbroken.history().losses);
    assert_eq!(resumed.evaluate().unwrap(), unbroken.evaluate().unwrap());
    assert_eq!(resumed.task_details().unwrap().sizes, Some((32, 32)), "half of 4³ problems train");
    assert!(resumed.inside(&["positions".into()], "", "", &Default::default()).unwrap().views["positions"].is_null());
}
