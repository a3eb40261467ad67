//! The `gpt` binary end to end: train, save, resume, sample, evaluate, and one-line errors.

use std::path::PathBuf;
use std::process::{Command, Output};

fn gpt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpt")).args(args).output().expect("the gpt binary runs")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpt-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A text of names written to `text`, and where `checkpoint` goes, both in the scratch folder.
fn names_and_checkpoint(text: &str, checkpoint: &str) -> (String, String) {
    let data = scratch(text);
    std::fs::write(&data, "anna\nbob\ncarla\ndavid\nemma\nfrank\n".repeat(40)).unwrap();
    (data.to_str().unwrap().into(), scratch(checkpoint).to_str().unwrap().into())
}

#[test]
fn train_resume_sample_and_eval() {
    let (data, ckpt) = names_and_checkpoint("names.txt", "model.safetensors");
    let (data, ckpt) = (data.as_str(), ckpt.as_str());
    let tiny = [
        "--preset",
        "tiny",
        "--block-size",
        "8",
        "--warmup",
        "2",
        "--eval-iters",
        "2",
        "--eval-interval",
        "10",
        "--json",
    ];
    let first = stdout(&gpt(&[&["train", "--data", data, "--iters", "10", "--out", ckpt], &tiny[..]].concat()));
    let lines: Vec<serde_json::Value> = first.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "evals at 0 and 10, then the summary: {first}");
    for key in ["step", "train_loss", "val_loss", "tokens_per_s", "wall_s"] {
        assert!(lines[2].get(key).is_some(), "summary lacks {key}");
    }
    let resumed =
        stdout(&gpt(&["train", "--data", data, "--resume", ckpt, "--iters", "20", "--eval-iters", "2", "--json"]));
    let summary: serde_json::Value = serde_json::from_str(resumed.lines().last().unwrap()).unwrap();
    assert_eq!(summary["step"], 20);
    let sample = stdout(&gpt(&["sample", "--checkpoint", ckpt, "--prompt", "an", "--max-new-tokens", "30"]));
    assert!(sample.starts_with("an") && sample.trim_end().chars().count() >= 20, "{sample:?}");
    // The page saves its last generation's settings; sample takes them for any flag left out.
    let mut run = gpt::Run::open(&std::fs::read(ckpt).unwrap()).unwrap();
    run.set_last_sample(gpt::SampleConfig {
        prompt: "da".into(),
        temperature: 0.0,
        max_new_tokens: 12,
        ..Default::default()
    });
    let sampled = scratch("sampled.safetensors");
    std::fs::write(&sampled, run.save().unwrap()).unwrap();
    let sampled = sampled.to_str().unwrap();
    let remembered = stdout(&gpt(&["sample", "--checkpoint", sampled]));
    assert_eq!(remembered.strip_suffix('\n').unwrap().chars().count(), 2 + 12, "{remembered:?}");
    let explicit = ["--prompt", "da", "--temperature", "0", "--max-new-tokens", "12"];
    assert_eq!(remembered, stdout(&gpt(&[&["sample", "--checkpoint", ckpt], &explicit[..]].concat())));
    let next = stdout(&gpt(&["sample", "--checkpoint", sampled, "--next-tokens", "3"]));
    let probs: Vec<f64> = next.lines().map(|l| l.split('\t').next().unwrap().parse().unwrap()).collect();
    assert!(probs.len() == 3 && probs[0] >= probs[1] && probs[1] >= probs[2] && probs[0] > 0.0, "{next}");
    assert!(next.lines().all(|l| l.split('\t').nth(1).unwrap().starts_with('"')), "{next}");
    let overridden = stdout(&gpt(&["sample", "--checkpoint", sampled, "--prompt", "an"]));
    assert!(overridden.starts_with("an") && overridden.strip_suffix('\n').unwrap().chars().count() == 14);
    let eval = stdout(&gpt(&["eval", "--checkpoint", ckpt, "--text", data, "--json"]));
    let eval: serde_json::Value = serde_json::from_str(&eval).unwrap();
    assert!(eval["loss"].as_f64().unwrap() > 0.0 && eval["windows"].as_u64().unwrap() > 10);
    let again = stdout(&gpt(&["eval", "--checkpoint", ckpt, "--text", data, "--json"]));
    assert_eq!(serde_json::from_str::<serde_json::Value>(&again).unwrap(), eval, "eval is deterministic");

    let bpe = scratch("bpe.safetensors");
    let bpe = bpe.to_str().unwrap();
    let args = ["train", "--data", data, "--tokenizer", "bpe", "--vocab-size", "270", "--iters", "3", "--out", bpe];
    stdout(&gpt(&[&args[..], &tiny[..]].concat()));
    let sample = stdout(&gpt(&["sample", "--checkpoint", bpe, "--prompt", "emma", "--max-new-tokens", "10"]));
    assert!(sample.starts_with("emma"), "{sample:?}");
}

#[test]
fn mistakes_get_one_line_errors() {
    let short = scratch("short.txt");
    std::fs::write(&short, "ab").unwrap();
    let garbage = scratch("garbage.safetensors");
    std::fs::write(&garbage, "not a checkpoint").unwrap();
    let cases: [(&[&str], &str); 8] = [
        (&["train", "--data", "/nonexistent/file.txt"], "cannot read"),
        (&["train", "--data", short.to_str().unwrap()], "too short"),
        (&["train", "--data", short.to_str().unwrap(), "--preset", "huge"], "unknown preset"),
        (&["sample", "--checkpoint", garbage.to_str().unwrap()], "not a readable checkpoint"),
        (
            &["train", "--data", short.to_str().unwrap(), "--n-head", "3"],
            "--n-head: n_embd (128) must be divisible by n_head",
        ),
        (&["train", "--data", short.to_str().unwrap(), "--iters", "0"], "--iters: max_iters must be between 1"),
        (&["train", "--data", short.to_str().unwrap(), "--lr", "0"], "--lr: learning_rate must be a positive"),
        (
            &["train", "--data", short.to_str().unwrap(), "--warmup", "5000"],
            "--warmup: warmup_iters (5000) must not exceed",
        ),
    ];
    for (args, want) in cases {
        let out = gpt(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!out.status.success() && err.contains(want) && err.trim().lines().count() == 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn bench_reports_its_thread_count() {
    for (threads, says) in [("1", "one thread"), ("2", "2 threads")] {
        let bench = ["bench", "--preset", "tiny", "--iters", "2", "--threads", threads];
        let out = stdout(&gpt(&bench));
        assert!(out.contains(says), "gpt bench --threads {threads} printed {out:?}");
        let json = stdout(&gpt(&[&bench[..], &["--json"]].concat()));
        assert!(json.contains(&format!("\"threads\":{threads}")), "{json}");
    }
}

#[test]
fn a_task_trains_resumes_answers_problems_and_evaluates() {
    let ckpt = scratch("task.safetensors");
    let ckpt = ckpt.to_str().unwrap();
    // No --warmup: the preset's 50 warmup steps shorten to the 20 steps asked for.
    let small = ["--n-layer", "1", "--n-embd", "16", "--eval-iters", "2", "--eval-interval", "10", "--json"];
    let task = ["train", "--task", "reverse", "--length", "3", "--symbols", "4", "--iters", "20", "--out", ckpt];
    let first = stdout(&gpt(&[&task[..], &small[..]].concat()));
    let lines: Vec<serde_json::Value> = first.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for key in ["train_accuracy", "val_accuracy"] {
        assert!(lines[1][key].as_f64().is_some_and(|a| (0.0..=1.0).contains(&a)), "{key} in {}", lines[1]);
    }
    let marks = &lines[1]["milestones"];
    assert!(marks.is_object() && marks["induction"].is_null(), "a one-layer model marks no induction head: {marks}");
    let resumed = stdout(&gpt(&["train", "--resume", ckpt, "--iters", "30", "--json"]));
    let summary: serde_json::Value = serde_json::from_str(resumed.lines().last().unwrap()).unwrap();
    assert_eq!(summary["step"], 30, "a task's run resumes with no --data");
    let answers = stdout(&gpt(&["sample", "--checkpoint", ckpt, "--problems", "3"]));
    let lines: Vec<&str> = answers.lines().collect();
    assert_eq!(lines.len(), 4, "{answers}");
    assert!(lines[0].contains('>') && (lines[0].contains("right") || lines[0].contains("wrong")), "{answers}");
    assert!(lines[3].ends_with("of 3 held-out problems right"), "{answers}");
    let typed = stdout(&gpt(&["sample", "--checkpoint", ckpt, "--prompt", "dab"]));
    assert!(typed.starts_with("dab>"), "{typed}");
    let bad = gpt(&["sample", "--checkpoint", ckpt, "--prompt", "dzb"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--prompt: 'z' is not one of this task's symbols"));
    let scored: serde_json::Value =
        serde_json::from_str(&stdout(&gpt(&["eval", "--checkpoint", ckpt, "--json"]))).unwrap();
    assert!(scored["val_accuracy"].is_number(), "{scored}");
    let unsplittable = gpt(&["train", "--task", "modular", "--p", "2", "--train-fraction", "0.9"]);
    let err = String::from_utf8_lossy(&unsplittable.stderr);
    assert!(err.contains("--train-fraction: this task has 4 problems") && err.contains("none held out"), "{err}");
    let text = scratch("stray.txt");
    std::fs::write(&text, "some text ".repeat(100)).unwrap();
    let stray = gpt(&["train", "--data", text.to_str().unwrap(), "--digits", "3"]);
    assert!(String::from_utf8_lossy(&stray.stderr).contains("--digits is a task's setting"));
}

#[test]
fn walk_prints_each_stage_as_what_its_rows_hold() {
    let (data, ckpt) = names_and_checkpoint("walk-names.txt", "walk.safetensors");
    let (data, ckpt) = (data.as_str(), ckpt.as_str());
    let train = ["train", "--data", data, "--preset", "tiny", "--iters", "6", "--eval-iters", "1", "--out", ckpt];
    stdout(&gpt(&[&train[..], &["--optimizer", "muon", "--rope", "--qk-norm", "--json"]].concat()));
    let walk = stdout(&gpt(&[
        "walk",
        "--checkpoint",
        ckpt,
        "--data",
        data,
        "--prompt",
        "anna\nbob",
        "--position",
        "2",
        "--layer",
        "1",
        "--head",
        "1",
    ]));
    let after =
        |heading: &str| walk.lines().skip_while(|l| !l.contains(heading)).nth(2).unwrap_or_default().to_string();
    // Token ids as whole numbers, and the ids and the logits by TransformerLens's hooks for them.
    assert!(walk.contains("- Tokens to ids [embed.hook_in]"), "{walk}");
    assert_eq!(after("Tokens to ids").trim(), "1 11 11 1 0 2 12 2", "{walk}");
    assert!(walk.contains("- Logits at position 2 (\"n\") [unembed.hook_out]"), "{walk}");
    // The closed block's rows, each named by its hook.
    assert!(walk.contains("    attention adds [blocks.1.hook_attn_out]: "), "{walk}");
    assert!(walk.contains("    stream after [blocks.1.hook_resid_post]: "), "{walk}");
    // The scores past the position followed are masked, as −∞.
    assert!(after("Scores q·k").contains(" -inf -inf"), "{walk}");
    // The loss's probability is at temperature 1; Muon's rate is its own, not AdamW's.
    assert!(walk.contains(" at temperature 1\n"), "{walk}");
    assert!(walk.contains("The update: AdamW at rate ") && walk.contains("; Muon at rate "), "{walk}");
    let help = stdout(&gpt(&["walk", "--help"]));
    assert!(!help.contains("[default: \"\"]"), "{help}");
    assert!(help.lines().all(|l| l.matches("[default:").count() <= 1), "{help}");
}

#[test]
fn superposition_stores_a_pentagon_draws_a_phase_diagram_scores_directions_and_trains_an_autoencoder() {
    let out = stdout(&gpt(&["superposition", "--steps", "1500", "--json"]));
    let run: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dims: Vec<f64> =
        run["geometry"]["dimensionality"].as_array().unwrap().iter().map(|d| d.as_f64().unwrap()).collect();
    assert!(dims.iter().all(|d| (d - 0.4).abs() < 0.05), "five features as a pentagon: {dims:?}");
    let table = stdout(&gpt(&["superposition", "--phase", "2x1", "--side", "3", "--threads", "2"]));
    assert!(table.starts_with("2 features in 1 dimension: the last feature's fate, 9 cells"), "{table}");
    assert_eq!(table.lines().filter(|l| l.starts_with("   ")).count(), 3, "{table}");
    for (args, want) in [
        (&["superposition", "--hidden", "9"][..], "hidden: the hidden dimensions must be 1 to the 5 features"),
        (&["superposition", "--sparsity", "1"][..], "sparsity: the chance a feature is absent"),
        (&["superposition", "--phase", "4x2"][..], "a phase diagram is drawn for 2 features in 1 dimension or 3 in 2"),
        (&["superposition", "--phase", "two"][..], "--phase: \"two\" is not 2x1 or 3x2"),
        (&["superposition", "--score", "missing.safetensors"][..], "missing.safetensors: "),
        (
            &["superposition", "--synthetic", "--features", "4000", "--hidden", "32", "--orthogonal"][..],
            "at most 2048 features can be pushed as nearly orthogonal as they can be, not 4000",
        ),
        (&["superposition", "--synthetic", "--zipf", "0.3"][..], "--zipf: \"0.3\" is not MAX,MIN"),
        (&["superposition", "--synthetic", "--correlation", "4"][..], "--correlation: \"4\" is not RANK,SCALE"),
        (&["superposition", "--synthetic", "--correlation", "0,0.1"][..], "a correlation needs 1 to 256 factors"),
    ] {
        let out = gpt(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!out.status.success() && err.contains(want) && err.trim().lines().count() == 1, "{args:?}: {err}");
    }
    // Learned directions that are the true features, flipped and scaled, score 1; one missing, less.
    let file = scratch("truth.safetensors");
    let floats = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (truth, learned) = (floats(&[1.0, 0.0, 0.0, 1.0]), floats(&[0.0, -2.0, 0.5, 0.5]));
    let view = |data| safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 2], data).unwrap();
    std::fs::write(
        &file,
        safetensors::serialize([("truth", view(&truth)), ("learned", view(&learned))], None).unwrap(),
    )
    .unwrap();
    let scored = stdout(&gpt(&["superposition", "--score", file.to_str().unwrap()]));
    assert!(
        scored.starts_with("2 learned directions against 2 true features in 2 dimensions: MCC 0.8536, 50.0% found"),
        "{scored}"
    );
    // A TopK autoencoder on activations of 16 orthogonal features finds them all.
    let args = [
        "superposition",
        "--synthetic",
        "--features",
        "16",
        "--hidden",
        "32",
        "--orthogonal",
        "--steps",
        "400",
        "--json",
    ];
    let run: serde_json::Value = serde_json::from_str(&stdout(&gpt(&args))).unwrap();
    assert!(run["scores"]["truth"]["mcc"].as_f64().unwrap() > 0.9, "{run}");
    assert_eq!(run["scores"]["truth"]["found"].as_f64(), Some(1.0), "{run}");
    assert!(run["scores"]["absorption"].is_null(), "no hierarchy, no absorption: {run}");
    // A Matryoshka autoencoder on a correlated hierarchy reports its absorption; too many levels
    // are refused.
    let correlated = ["--children", "3", "--correlation", "4,0.3", "--architecture", "matryoshka", "--json"];
    let matryoshka = [&args[..9], &correlated].concat();
    let run: serde_json::Value = serde_json::from_str(&stdout(&gpt(&matryoshka))).unwrap();
    let absorption = run["scores"]["absorption"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&absorption), "{run}");
    assert_eq!(run["sae"]["architecture"]["kind"], "matryoshka", "{run}");
    // Activations read from a file (as SAELens's generator writes them): 4 orthogonal features.
    let file = scratch("activations.safetensors");
    let row = |seed: usize| -> [f32; 4] {
        std::array::from_fn(|i| f32::from(u8::from((seed * 7 + i * 3).is_multiple_of(5))))
    };
    let train: Vec<f32> = (0..2048).flat_map(row).collect();
    let truth: Vec<f32> = (0..16).map(|k: usize| f32::from(u8::from(k.is_multiple_of(5)))).collect();
    let tensor = |data: &Vec<f32>| {
        let bytes = floats(data);
        (bytes, vec![data.len() / 4, 4])
    };
    let (train, held, truth) = (tensor(&train), tensor(&train[..400].to_vec()), tensor(&truth));
    let named = [("activations", &train), ("held_out", &held), ("truth", &truth)].map(|(name, (bytes, shape))| {
        (name, safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), bytes).unwrap())
    });
    std::fs::write(&file, safetensors::serialize(named, None).unwrap()).unwrap();
    let read = [
        "superposition",
        "--synthetic",
        "--activations",
        file.to_str().unwrap(),
        "--k",
        "1",
        "--expansion",
        "2",
        "--steps",
        "1000",
        "--json",
    ];
    let run: serde_json::Value = serde_json::from_str(&stdout(&gpt(&read))).unwrap();
    assert!(run["scores"]["truth"]["mcc"].as_f64().unwrap() > 0.9, "{run}");
    assert!(run["scores"]["true_l0"].is_null(), "the file has no held-out firing: {run}");
    let err = gpt(&[&matryoshka[..], &["--levels", "9"]].concat());
    let err = String::from_utf8(err.stderr).unwrap();
    assert!(err.contains("levels: a Matryoshka autoencoder's nested levels must be 2 to 6, not 9"), "{err}");
}

#[test]
fn a_built_model_carries_its_circuit_and_the_circuit_view_scores_each_way_against_it() {
    let out = scratch("built.safetensors");
    let printed = stdout(&gpt(&["build", "induction", "--out", out.to_str().unwrap()]));
    assert!(printed.contains("its circuit under Swap: input->a0.h0<v>, a0.h0->a1.h0<k>"), "{printed}");
    let json = stdout(&gpt(&[
        "inspect",
        "--checkpoint",
        out.to_str().unwrap(),
        "circuit",
        "--json",
        "--corruption",
        "swap",
        "--pairs",
        "8",
    ]));
    let c: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(c["known"].as_array().unwrap().len(), 4);
    assert_eq!(c["circuits"][0]["truth"]["auroc"], 1.0);
    assert!(c["circuits"][0]["mib"]["cpr"].as_f64().unwrap() > 0.9);
    let wrong = gpt(&["build", "nonesuch", "--out", out.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(!wrong.status.success() && said.contains("there are: induction"), "{said}");
}
