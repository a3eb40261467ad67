//! Flags made from the engine's description of each task's own settings (`gpt::fields::Field`):
//! `--length`, `--digits`, `--p`, `--train-fraction`, … A new task brings its flags with it.

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use gpt::fields::{Field, Kind, Values};
use std::collections::BTreeMap;

/// The values given for settings that tasks describe, by setting name.
#[derive(Clone, Debug, Default)]
pub struct SettingFlags {
    given: BTreeMap<&'static str, String>,
}

/// Every task's setting once by name, with the tasks that read it.
fn described() -> Vec<(Field, Vec<&'static str>)> {
    let mut all: Vec<(Field, Vec<&'static str>)> = Vec::new();
    for task in gpt::TASKS {
        for field in task.fields().iter().chain([&gpt::data::TRAIN_FRACTION]) {
            match all.iter_mut().find(|(f, _)| f.name == field.name) {
                Some((_, owners)) => owners.push(task.name()),
                None => all.push((field.clone(), vec![task.name()])),
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
    described().iter().any(|(f, _)| f.name == name)
}

impl Args for SettingFlags {
    fn augment_args(cmd: Command) -> Command {
        described().into_iter().fold(cmd, |cmd, (field, owners)| {
            let tasks = if owners.len() == gpt::TASKS.len() { "every task".into() } else { owners.join(", ") };
            let (value, range) = match field.kind {
                Kind::Count { min, max, .. } => ("N", format!("{min} to {max}")),
                Kind::Number { above, below, .. } => ("X", format!("{above} to {below}")),
                Kind::Choice { options, .. } => {
                    ("CHOICE", options.iter().map(|(v, _)| *v).collect::<Vec<_>>().join(", "))
                }
            };
            let help = format!("{} ({range}; {tasks}) [default: {}]", field.help, field.default_value());
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
        for (field, _) in described() {
            if let Some(value) = matches.get_one::<String>(field.name) {
                self.given.insert(field.name, value.clone());
            }
        }
        Ok(())
    }
}

impl SettingFlags {
    /// The flags given, as typed (`--length`).
    pub fn given(&self) -> Vec<String> {
        self.given.keys().map(|name| flag(name)).collect()
    }

    /// Takes the value given for `field`, if one was, read as its kind asks.
    pub fn value(&self, field: &Field) -> Result<Option<serde_json::Value>, String> {
        let Some(text) = self.given.get(field.name) else { return Ok(None) };
        let bad = |what: &str| format!("{}: expected {what}, not {text:?}", flag(field.name));
        let value = match field.kind {
            Kind::Count { .. } => text.parse::<u64>().map_err(|_| bad("a whole number"))?.into(),
            Kind::Number { .. } => text.parse::<f64>().map_err(|_| bad("a number"))?.into(),
            Kind::Choice { .. } => text.clone().into(),
        };
        Ok(Some(value))
    }

    /// Sets `values` from the flags given for `fields` (what `owner` reads); a flag given that
    /// none of them is is named, with the flags `owner` takes.
    pub fn apply(&self, fields: &[Field], values: &mut Values, owner: &str) -> Result<(), String> {
        if let Some(stray) = self.given.keys().find(|name| !fields.iter().any(|f| f.name == **name)) {
            let own: Vec<_> = fields.iter().map(|f| flag(f.name)).collect();
            return Err(format!("{} is not a setting of {owner}, which takes {}", flag(stray), own.join(", ")));
        }
        for field in fields {
            if let Some(value) = self.value(field)? {
                values.insert(field.name.to_string(), value);
            }
        }
        Ok(())
    }
}
