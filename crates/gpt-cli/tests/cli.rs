//! The `gpt` binary end to end: train, save, resume, sample, evaluate, and one-line errors.

mod common;

use common::{gpt, scratch, stdout};

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
fn a_run_keeps_each_evaluation_and_the_learning_coefficient_reads_one() {
    let folder = scratch("kept");
    let _ = std::fs::remove_dir_all(&folder);
    let small = ["--n-layer", "1", "--n-embd", "16", "--eval-iters", "1", "--eval-interval", "10", "--json"];
    let task = ["train", "--task", "reverse", "--length", "3", "--symbols", "4", "--iters", "20", "--keep-each"];
    stdout(&gpt(&[&task[..], &[folder.to_str().unwrap()], &small[..]].concat()));
    let mut kept: Vec<String> =
        std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    kept.sort();
    assert_eq!(kept, ["step-000000.safetensors", "step-000010.safetensors", "step-000020.safetensors"]);
    let last = folder.join(&kept[2]);
    let chains = ["llc", "--chains", "2", "--draws", "4", "--burn-in", "0", "--json"];
    let one = stdout(&gpt(
        &[&["inspect", "--checkpoint", last.to_str().unwrap()][..], &chains, &["--part", "L1H2"]].concat()
    ));
    let one: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(one["parts"][0]["part"], serde_json::json!({ "kind": "head", "layer": 0, "head": 1 }), "{one}");
    assert_eq!(one["parts"][0]["llc"]["traces"][0].as_array().map(Vec::len), Some(4), "{one}");
    let missing =
        gpt(&[&["inspect", "--checkpoint", last.to_str().unwrap()][..], &chains, &["--part", "MLP3"]].concat());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("the model has 1 layer of"), "{missing:?}");
}
