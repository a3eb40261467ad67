//! `gpt train --help` tells the truth: every default it prints is the value a run built from
//! the flags (with that flag left out) records in its checkpoint.

use super::{build, Args};
use clap::{CommandFactory, Parser};

/// Each `--flag` of `gpt train --help` with the default it prints.
fn printed_defaults() -> Vec<(String, String)> {
    let mut cli = crate::Cli::command();
    let help = cli.find_subcommand_mut("train").expect("gpt train").render_help().to_string();
    help.lines()
        .filter_map(|line| {
            let flag = line.trim_start().strip_prefix("--")?.split_whitespace().next()?.to_string();
            let (_, default) = line.rsplit_once("[default: ")?;
            Some((flag, default.strip_suffix(']')?.to_string()))
        })
        .collect()
}

/// What a default says for `who` (a task, or a preset): `V`, or `V for a, b; W for c` (tasks),
/// or `V; W for the a and b presets` (an optimiser's setting, V for any other).
fn default_for(default: &str, who: &str) -> String {
    let mut plain = None;
    for part in default.split("; ") {
        match part.split_once(" for ") {
            Some((value, names)) => {
                let names = names.trim_start_matches("the ").trim_end_matches(" presets").trim_end_matches(" preset");
                if names.split([',', ' ']).any(|n| n == who) {
                    return value.to_string();
                }
            }
            None => plain = Some(part.to_string()),
        }
    }
    plain.unwrap_or_else(|| panic!("{default:?} says nothing for {who}"))
}

/// The settings a run made by `gpt train ARGS` records in its checkpoint.
fn recorded(args: &[&str], text: Option<&str>) -> gpt::Settings {
    let cli = crate::Cli::try_parse_from([&["gpt", "train"], args].concat()).expect("the flags parse");
    let crate::Command::Train(a) = cli.command else { unreachable!("gpt train") };
    let a: Args = *a;
    let run = build::open_run(&a, text).expect("the run builds");
    gpt::Run::open(&run.save().unwrap()).unwrap().settings()
}

/// A recorded setting as help prints it: a choice without its quotes.
fn as_printed(value: &serde_json::Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}

#[test]
fn every_default_train_help_prints_is_what_a_run_records() {
    let defaults = printed_defaults();
    let default = |flag: &str| &defaults.iter().find(|(f, _)| f == flag).unwrap_or_else(|| panic!("--{flag}")).1;
    let mut checked = 0;
    for task in gpt::TASKS {
        let recorded = recorded(&["--task", task.name()], None).task.expect("a task's run records its task");
        for field in task.fields().iter().chain([&gpt::data::TRAIN_FRACTION]) {
            let value = match field.name {
                "train_fraction" => recorded.train_fraction.to_string(),
                name => as_printed(&recorded.settings[name]),
            };
            let flag = field.name.replace('_', "-");
            assert_eq!(default_for(default(&flag), task.name()), value, "--{flag} with --task {}", task.name());
            checked += 1;
        }
    }
    let text = "anna\nbob\ncarla\ndavid\nemma\nfrank\n".repeat(40);
    let muon = gpt::optim::OPTIMIZERS.iter().find(|k| k.name == "muon").unwrap();
    for preset in ["tiny", "nano-muon", "speedrun"] {
        let settings = recorded(&["--data", "names.txt", "--preset", preset, "--optimizer", "muon"], Some(&text));
        for field in muon.fields {
            let flag = field.name.replace('_', "-");
            let value = as_printed(&settings.train.optimizer_settings[field.name]);
            assert_eq!(default_for(default(&flag), preset), value, "--{flag} with --preset {preset}");
            checked += 1;
        }
        assert_eq!(default("tokenizer"), &format!("{:?}", settings.tokenizer).to_lowercase());
        assert_eq!(default("vocab-size"), &settings.bpe_vocab_size.to_string());
    }
    assert!(checked > 20, "{checked} settings checked");
}
