//! Fuzzes the API the page's worker drives (the bindings only convert JS values into these
//! types with serde): settings as JSON with missing, unknown and mistyped fields; settings with
//! every field zero, negative, huge or NaN; texts of every kind; and random calls on a run
//! (sampling, next tokens, attention, the inside views, text, settings changes, training, saving,
//! and for a task's run its problems, held out and typed).
//! Every case ends in a result or a specific error, never a panic, and a failed call leaves the
//! run's weights, step and settings as they were. `FUZZ_SCALE=100` runs a hundred times more.

#[path = "../fuzz/fields.rs"]
mod fields;
#[path = "../fuzz/mod.rs"]
mod fuzz;
mod inputs;

use fuzz::{assert_specific, cases, TEXT};
use gpt::{Budget, GPTConfig, Run, SampleConfig, Settings, TaskConfig, TrainConfig};
use inputs::{any_text, edge, sample_config, settings, settings_json, texts, usable_or_any_text, Edge};
use proptest::prelude::*;

/// A small budget, so an accepted case stays quick; the page's is larger but checked the same way.
const BUDGET: Budget = Budget { max_params: 200_000, max_training_bytes: 64 << 20 };

/// What a failed call must leave as it was: the step, every weight's bits, and the settings.
fn state(run: &Run) -> (usize, Vec<u32>, String) {
    let weights = run.weights().flat_map(|(_, w)| w.iter().map(|x| x.to_bits())).collect();
    (run.step_count(), weights, serde_json::to_string(&run.settings()).unwrap())
}

/// A small run two steps in: on `TEXT`, or on a small reverse task.
fn a_small_run(task: bool) -> Vec<u8> {
    let model = GPTConfig { block_size: 8, n_layer: 1, n_head: 2, n_embd: 8, rope: task, ..Default::default() };
    let train = TrainConfig { batch_size: 2, max_iters: 1_000, warmup_iters: 2, eval_iters: 1, ..Default::default() };
    let task = task.then(|| TaskConfig::default().with("length", 3).with("symbols", 4));
    let mut run =
        Run::create(&Settings { model, train, task, ..Default::default() }, &TEXT.repeat(4), &BUDGET).unwrap();
    run.train(2, &|| 0.0).unwrap();
    run.save().unwrap()
}

/// Some of the views inside the model, by name, or a name no view has.
fn views() -> impl Strategy<Value = Vec<String>> {
    let mut names: Vec<String> = gpt::inspect::VIEWS.iter().map(|v| v.name.to_string()).collect();
    names.push("colours".into());
    let count = names.len();
    proptest::sample::subsequence(names, 0..=count)
}

/// What the ablation, patching and attribution views may be asked.
fn questions() -> impl Strategy<Value = gpt::inspect::Questions> {
    use gpt::model::Site;
    let part = 0usize..6;
    let site = prop_oneof![
        (part.clone(), part.clone()).prop_map(|(layer, head)| Site::Head { layer, head }),
        part.clone().prop_map(|layer| Site::Mlp { layer }),
        (part.clone(), 0usize..40).prop_map(|(layer, position)| Site::Residual { layer, position }),
    ];
    let fill = prop_oneof![Just(gpt::inspect::Fill::Zero), Just(gpt::inspect::Fill::Mean)];
    (proptest::option::of(site), fill, 0usize..200, texts(), texts(), walk(), circuit(), llc()).prop_map(
        |(ablate, fill, shown, clean, corrupted, walk, circuit, llc)| gpt::inspect::Questions {
            ablate,
            fill,
            shown,
            clean,
            corrupted,
            walk,
            circuit,
            llc,
        },
    )
}

/// What the learning coefficient view may be asked: parts the model has or lacks, short chains at
/// steps good, too big or not numbers, now or not.
fn llc() -> impl Strategy<Value = gpt::run::LlcQuestion> {
    use gpt::WeightPart;
    let part = prop_oneof![
        Just(WeightPart::Whole),
        Just(WeightPart::Embeddings),
        (0usize..4, 0usize..6).prop_map(|(layer, head)| WeightPart::Head { layer, head }),
        (0usize..4).prop_map(|layer| WeightPart::Mlp { layer }),
    ];
    let epsilon = prop_oneof![Just(1e-4f32), Just(10.0), Just(0.0), Just(f32::NAN)];
    (proptest::collection::vec(part, 0..3), epsilon, 0usize..3, 0usize..4, any::<bool>()).prop_map(
        |(parts, epsilon, chains, draws, estimate)| {
            let config = gpt::llc::LlcConfig { epsilon, chains, draws, burn_in: 1, ..Default::default() };
            gpt::run::LlcQuestion { parts, config: Some(config), estimate }
        },
    )
}

/// What the circuit view may be asked: either corruption and metric, no pairs or a few, no
/// integrated-gradient steps or some, found now or not.
fn circuit() -> impl Strategy<Value = gpt::inspect::circuit::CircuitRequest> {
    use gpt::inspect::circuit::{CircuitRequest, Corruption, Metric};
    let corruption = prop_oneof![Just(Corruption::Symbol), Just(Corruption::Swap)];
    let metric = prop_oneof![Just(Metric::LogitDifference), Just(Metric::Loss)];
    (corruption, metric, 0usize..5, 0usize..4, proptest::bool::ANY).prop_map(
        |(corruption, metric, pairs, ig_steps, find)| CircuitRequest { corruption, metric, pairs, ig_steps, find },
    )
}

/// What the walk through the model may be asked: any text, a position, layer or head that may
/// not exist, any target, and the sampling settings.
fn walk() -> impl Strategy<Value = gpt::inspect::walk::WalkRequest> {
    let part = proptest::option::of(0usize..6);
    (texts(), proptest::option::of(0usize..40), part.clone(), part, texts(), 0.0f32..2.0, 0usize..10).prop_map(
        |(text, position, layer, head, target, temperature, top_k)| gpt::inspect::walk::WalkRequest {
            text,
            position,
            layer,
            head,
            target,
            temperature,
            top_k,
            seed: 1,
        },
    )
}

/// One call the page can make on a run.
#[derive(Debug, Clone)]
enum Call {
    Sample(SampleConfig, usize),
    /// A prompt, a temperature and a count, with the edge value in one of them half the time.
    NextTokens(String, f32, usize, Edge),
    Attention(String),
    /// Some of the views (an unknown one among them, now and then), a probe, a prompt and the
    /// testing views' questions (a part that may not exist, inputs of any text).
    Inside(Vec<String>, String, String, Box<gpt::inspect::Questions>),
    UseText(String),
    /// New settings; with `true`, on the run's own architecture, tokenizer and seed, as the
    /// page's paused form sends them.
    UpdateSettings(Box<Settings>, bool),
    SetMaxIters(usize),
    Train(usize),
    Evaluate,
    Save,
    /// A problem typed for the model to answer (a task's run), or how many held-out ones to show.
    Solve(String),
    HeldOut(usize),
}

/// Boxed, as the other composite strategies: unboxed, their value trees overflow a test
/// thread's stack in debug builds.
fn call() -> BoxedStrategy<Call> {
    let chunk = prop_oneof![3 => 0usize..16, 1 => Just(usize::MAX)];
    prop_oneof![
        (sample_config(), chunk).prop_map(|(c, n)| Call::Sample(c, n)),
        (texts(), 0.0f32..2.0, 0usize..10, edge()).prop_map(|(p, t, k, e)| Call::NextTokens(p, t, k, e)),
        texts().prop_map(Call::Attention),
        (views(), texts(), texts(), questions()).prop_map(|(views, probe, prompt, q)| Call::Inside(
            views,
            probe,
            prompt,
            Box::new(q)
        )),
        texts().prop_map(Call::UseText),
        (settings(), any::<bool>()).prop_map(|(s, same_model)| Call::UpdateSettings(Box::new(s), same_model)),
        prop_oneof![0usize..2_000, edge().prop_map(|e| e.count)].prop_map(Call::SetMaxIters),
        (0usize..3).prop_map(Call::Train),
        Just(Call::Evaluate),
        Just(Call::Save),
        prop_oneof![texts(), "[a-d>]{0,6}"].prop_map(Call::Solve),
        prop_oneof![0usize..10, edge().prop_map(|e| e.count)].prop_map(Call::HeldOut),
    ]
    .boxed()
}

/// Makes `call`. Only training may change the weights and step, and only a successful settings
/// call the settings.
fn make(run: &mut Run, call: &Call) {
    let before = state(run);
    let result = match call {
        Call::Sample(config, chunk) => run.start_sample(config.clone()).and_then(|()| {
            while run.sample_next(*chunk)?.is_some() {}
            Ok(())
        }),
        Call::NextTokens(prompt, temperature, k, edge) => {
            let (temperature, k) = match edge.count % 4 {
                0 => (edge.float, *k),
                1 => (*temperature, edge.count),
                _ => (*temperature, *k),
            };
            run.next_tokens(prompt, temperature, k).map(drop)
        }
        Call::Attention(text) => run.attention(text).map(drop),
        Call::Inside(views, probe, prompt, questions) => run.inside(views, probe, prompt, questions).map(drop),
        Call::UseText(text) => run.use_text(text),
        Call::UpdateSettings(settings, same_model) => {
            let mut new = settings.clone();
            if *same_model {
                let now = run.settings();
                new.model = gpt::GPTConfig { dropout: new.model.dropout, ..now.model };
                (new.tokenizer, new.bpe_vocab_size, new.train.seed) =
                    (now.tokenizer, now.bpe_vocab_size, now.train.seed);
            }
            run.update_settings(&new, &BUDGET)
        }
        Call::SetMaxIters(n) => run.set_max_iters(*n),
        Call::Train(n) => run.train(*n, &|| 0.0).map(drop),
        Call::Evaluate => run.evaluate().map(drop),
        Call::Save => run.save().map(drop),
        Call::Solve(problem) => run.solve(problem).map(drop),
        Call::HeldOut(n) => run.held_out_solutions(*n).map(drop),
    };
    let after = state(run);
    match &result {
        Err(e) => {
            assert_specific(e);
            assert!(before == after, "{call:?} failed ({e}) and changed the run");
        }
        Ok(()) if matches!(call, Call::Train(_) | Call::Evaluate) => {}
        Ok(()) if matches!(call, Call::UpdateSettings(..) | Call::SetMaxIters(_)) => {
            assert!((before.0, &before.1) == (after.0, &after.1), "{call:?} changed the weights");
        }
        Ok(()) => assert!(before == after, "{call:?} changed the run"),
    }
}

proptest! {
    #![proptest_config(cases(2_000))]

    /// Settings as the page sends them, field by field from JSON: each is read or refused.
    #[test]
    fn settings_from_json_are_read_or_refused(value in settings_json(), text in any_text()) {
        match serde_json::from_value::<Settings>(value) {
            Ok(settings) => {
                if let Err(e) = Run::create(&settings, &text, &BUDGET) {
                    assert_specific(&e);
                }
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

proptest! {
    #![proptest_config(cases(3_000))]

    /// Every field out of range, alone or together, on every kind of text: a run or a specific
    /// error, and what the form shows agrees with what creating the run says.
    #[test]
    fn any_settings_on_any_text_build_a_run_or_say_why_not(settings in settings(), text in usable_or_any_text()) {
        let described = settings.describe(&gpt::TextStats::of(&text), &BUDGET);
        match Run::create(&settings, &text, &BUDGET) {
            Ok(mut run) => {
                prop_assert!(described.errors.is_empty(), "created, yet the form shows {:?}", described.errors);
                make(&mut run, &Call::Train(1));
                make(&mut run, &Call::Sample(SampleConfig { max_new_tokens: 8, ..Default::default() }, 4));
            }
            Err(e) => assert_specific(&e),
        }
    }
}

proptest! {
    #![proptest_config(cases(5_000))]

    /// Random calls on a trained run (of a text, or a task), as a user clicking around would make them.
    #[test]
    fn calls_on_a_run_succeed_or_leave_it_as_it_was(calls in proptest::collection::vec(call(), 1..6), task in any::<bool>()) {
        thread_local!(static SAVED: [Vec<u8>; 2] = [a_small_run(false), a_small_run(true)]);
        let mut run = SAVED.with(|runs| Run::open(&runs[usize::from(task)])).unwrap();
        if !task {
            run.use_text(&TEXT.repeat(4)).unwrap();
        }
        for call in &calls {
            make(&mut run, call);
        }
    }
}
