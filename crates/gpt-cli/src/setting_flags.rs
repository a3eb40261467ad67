//! Flags made from the engine's description of each task's and each optimiser's own settings
//! (`gpt::fields::Field`): `--length`, `--digits`, `--p`, `--train-fraction`, `--muon-lr`, … A
//! new task or optimiser brings its flags with it.

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use gpt::fields::{Field, Kind, Values};
use std::collections::BTreeMap;

/// Whose settings: a task's, or an optimiser's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Task,
    Optimizer,
}

/// The values given for settings that tasks and optimisers describe, by setting name.
#[derive(Clone, Debug, Default)]
pub struct SettingFlags {
    given: BTreeMap<&'static str, String>,
}

/// Every task's and optimiser's setting once by name, with the tasks or optimisers that read it.
fn described() -> Vec<(Field, Vec<&'static str>, Owner)> {
    let tasks = gpt::TASKS.iter().map(|t| (t.name(), t.fields(), Owner::Task));
    let optimizers = gpt::optim::OPTIMIZERS.iter().map(|k| (k.name, k.fields, Owner::Optimizer));
    let mut all: Vec<(Field, Vec<&'static str>, Owner)> = Vec::new();
    for (name, fields, owner) in tasks.chain(optimizers) {
        let common = (owner == Owner::Task).then_some(&gpt::data::TRAIN_FRACTION);
        for field in fields.iter().chain(common) {
            match all.iter_mut().find(|(f, _, _)| f.name == field.name) {
                Some((_, owners, _)) => owners.push(name),
                None => all.push((field.clone(), vec![name], owner)),
            }
        }
    }
    all
}

/// A setting's flag: `--train-fraction` for `train_fraction`.
pub fn flag(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

/// Whether some task describes a setting called `name`.
pub fn describes(name: &str) -> bool {
    described().iter().any(|(f, _, _)| f.name == name)
}

/// A setting's value as help prints it: a choice without its JSON quotes.
fn shown(value: &serde_json::Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}

/// What a run takes for `field` when its flag is left out, as `--help` prints it: a task's
/// setting comes from that task's preset (`16 for repeat; 8 for reverse, sort`), an optimiser's
/// from its own default unless the preset trained by it sets another (`0.02; 0.03 for the
/// nano-muon and speedrun presets`).
fn default_text(field: &Field, owners: &[&'static str], owner: Owner) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    let mut add = |value: String, who: &'static str| match groups.iter_mut().find(|(v, _)| *v == value) {
        Some((_, names)) => names.push(who),
        None => groups.push((value, vec![who])),
    };
    match owner {
        Owner::Task => {
            for &name in owners {
                let task = gpt::task_named(name).and_then(|t| gpt::presets::for_task(t).settings.task);
                let task = task.expect("every task has a preset with its task");
                add(task_value(&task, field), name);
            }
            match &groups[..] {
                [(value, _)] => value.clone(),
                _ => groups
                    .iter()
                    .map(|(v, names)| format!("{v} for {}", names.join(", ")))
                    .collect::<Vec<_>>()
                    .join("; "),
            }
        }
        Owner::Optimizer => {
            let own = shown(&field.default_value());
            for preset in gpt::presets::presets() {
                let train = &preset.settings.train;
                if owners.contains(&train.optimizer.as_str()) {
                    add(
                        shown(&train.optimizer_settings.get(field.name).cloned().unwrap_or(field.default_value())),
                        preset.name,
                    );
                }
            }
            let others: Vec<String> = groups
                .iter()
                .filter(|(v, _)| *v != own)
                .map(|(v, names)| {
                    format!("{v} for the {} preset{}", names.join(" and "), if names.len() > 1 { "s" } else { "" })
                })
                .collect();
            [own].into_iter().chain(others).collect::<Vec<_>>().join("; ")
        }
    }
}

/// The value `task` has for `field` (its train fraction, or one of its own settings), as help
/// prints it.
fn task_value(task: &gpt::TaskConfig, field: &Field) -> String {
    if field.name == gpt::data::TRAIN_FRACTION.name {
        return task.train_fraction.to_string();
    }
    shown(&task.settings.get(field.name).cloned().unwrap_or_else(|| field.default_value()))
}

impl Args for SettingFlags {
    fn augment_args(cmd: Command) -> Command {
        described().into_iter().fold(cmd, |cmd, (field, owners, owner)| {
            let tasks = match owner {
                Owner::Task if owners.len() == gpt::TASKS.len() => "every task".into(),
                Owner::Task => owners.join(", "),
                Owner::Optimizer => format!("--optimizer {}", owners.join(", ")),
            };
            let (value, range) = match field.accepts {
                Kind::Count { min, max, .. } => ("N", format!("{min} to {max}")),
                Kind::Number { above, below, .. } => ("X", format!("{above} to {below}")),
                Kind::Choice { options, .. } => {
                    ("CHOICE", options.iter().map(|(v, _)| *v).collect::<Vec<_>>().join(", "))
                }
            };
            let help = format!("{} ({range}; {tasks}) [default: {}]", field.help, default_text(&field, &owners, owner));
            cmd.arg(Arg::new(field.name).long(field.name.replace('_', "-")).value_name(value).help(help))
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for SettingFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = SettingFlags::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for (field, _, _) in described() {
            if let Some(value) = matches.get_one::<String>(field.name) {
                self.given.insert(field.name, value.clone());
            }
        }
        Ok(())
    }
}

impl SettingFlags {
    /// The flags given for `owner`'s settings, as typed (`--length`).
    pub fn given(&self, owner: Owner) -> Vec<String> {
        let owns = |name: &str| described().iter().any(|(f, _, o)| f.name == name && *o == owner);
        self.given.keys().filter(|name| owns(name)).map(|name| flag(name)).collect()
    }

    /// Takes the value given for `field`, if one was, read as its kind asks.
    pub fn value(&self, field: &Field) -> Result<Option<serde_json::Value>, String> {
        let Some(text) = self.given.get(field.name) else { return Ok(None) };
        let bad = |what: &str| format!("{}: expected {what}, not {text:?}", flag(field.name));
        let value = match field.accepts {
            Kind::Count { .. } => text.parse::<u64>().map_err(|_| bad("a whole number"))?.into(),
            Kind::Number { .. } => text.parse::<f64>().map_err(|_| bad("a number"))?.into(),
            Kind::Choice { .. } => text.clone().into(),
        };
        Ok(Some(value))
    }

    /// Sets `values` from the flags given for `fields` (what `who` reads, a task or an
    /// optimiser as `owner` says); a flag given for another of the same kind is named, with the
    /// flags `who` takes.
    pub fn apply(&self, fields: &[Field], values: &mut Values, owner: Owner, who: &str) -> Result<(), String> {
        if let Some(stray) = self.given(owner).into_iter().find(|f| !fields.iter().any(|own| flag(own.name) == *f)) {
            let own: Vec<_> = fields.iter().map(|f| flag(f.name)).collect();
            let takes = if own.is_empty() { "takes none".into() } else { format!("takes {}", own.join(", ")) };
            return Err(format!("{stray} is not a setting of {who}, which {takes}"));
        }
        for field in fields {
            if let Some(value) = self.value(field)? {
                values.insert(field.name.to_string(), value);
            }
        }
        Ok(())
    }
}
