//! Settings that describe themselves. A task's or an optimiser's own settings are a list of
//! [`Field`]s (name, label, limits, help, default), as Burn's module configs describe theirs: the
//! page builds its form from them and the CLI its flags, and the values a person gives
//! ([`Values`]) are read and checked against them here, in one place.

use crate::error::FieldError;
use crate::words::{settings as words, term, Words};
use serde::Serialize;
use std::collections::BTreeMap;

/// Settings by name, as JSON carries them (numbers, strings).
pub type Values = BTreeMap<String, serde_json::Value>;

/// One setting: how a form labels it, what it accepts, and its default.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Field {
    /// Its key in the settings (`length`), and the CLI's flag (`--length`).
    pub name: &'static str,
    /// What a form calls it ("Sequence length").
    pub label: &'static str,
    /// A sentence on what it does: the field's tooltip, and the flag's help.
    pub help: &'static str,
    /// What it accepts, and its default.
    pub accepts: Kind,
}

/// What a setting accepts.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Kind {
    /// A whole number from `min` to `max`.
    Count { min: usize, max: usize, default: usize },
    /// A number strictly between `above` and `below`, or from `above` when `from_above` is set.
    Number { above: f64, below: f64, from_above: bool, default: f64 },
    /// One of `options` (each a value and its label).
    Choice {
        #[cfg_attr(feature = "ts", tsify(type = "[string, string][]"))]
        options: &'static [(&'static str, &'static str)],
        default: &'static str,
    },
}

impl Field {
    /// A whole-number setting.
    pub const fn count(
        name: &'static str,
        label: &'static str,
        help: &'static str,
        range: (usize, usize),
        default: usize,
    ) -> Field {
        Field { name, label, help, accepts: Kind::Count { min: range.0, max: range.1, default } }
    }

    /// A number strictly inside `range` (or from its start, with `from_start`).
    pub const fn number(
        name: &'static str,
        label: &'static str,
        help: &'static str,
        range: (f64, f64),
        from_start: bool,
        default: f64,
    ) -> Field {
        Field {
            name,
            label,
            help,
            accepts: Kind::Number { above: range.0, below: range.1, from_above: from_start, default },
        }
    }

    /// A choice among `options` (value, label).
    pub const fn choice(
        name: &'static str,
        label: &'static str,
        help: &'static str,
        options: &'static [(&'static str, &'static str)],
        default: &'static str,
    ) -> Field {
        Field { name, label, help, accepts: Kind::Choice { options, default } }
    }

    /// Its default, as a value.
    pub fn default_value(&self) -> serde_json::Value {
        match self.accepts {
            Kind::Count { default, .. } => default.into(),
            Kind::Number { default, .. } => default.into(),
            Kind::Choice { default, .. } => default.into(),
        }
    }

    /// What is wrong with `value` for this setting, as a sentence that names it.
    fn error(&self, value: &serde_json::Value) -> Option<Words> {
        let label = term(self.label);
        match self.accepts {
            Kind::Count { min, max, .. } => match value.as_u64() {
                Some(n) if (min as u64..=max as u64).contains(&n) => None,
                _ => Some(words::count_range(label, min, max, value.to_string())),
            },
            Kind::Number { above, below, from_above, .. } => {
                let low_ok = |v: f64| if from_above { v >= above } else { v > above };
                match value.as_f64() {
                    Some(v) if low_ok(v) && v < below => None,
                    _ if from_above => Some(words::number_from(label, above, below, value.to_string())),
                    _ => Some(words::number_between(label, above, below, value.to_string())),
                }
            }
            Kind::Choice { options, .. } => match value.as_str() {
                Some(v) if options.iter().any(|&(o, _)| o == v) => None,
                _ => {
                    let names: Vec<_> = options.iter().map(|&(o, _)| o).collect();
                    Some(words::choice(label, names.join(", "), value.to_string()))
                }
            },
        }
    }
}

/// `given` for settings described by `fields`: each one given or its default, in order, and
/// those others own (`foreign`: another task's or optimiser's, which a saved run may hold) left
/// out; or the first name no one owns.
pub fn resolve(fields: &[Field], given: &Values, foreign: impl Fn(&str) -> bool) -> Result<Values, String> {
    if let Some(unknown) = given.keys().find(|k| !fields.iter().any(|f| f.name == *k) && !foreign(k)) {
        let names: Vec<_> = fields.iter().map(|f| f.name).collect();
        return Err(format!("unknown field `{unknown}`, expected one of {}", names.join(", ")));
    }
    Ok(fields
        .iter()
        .map(|f| (f.name.to_string(), given.get(f.name).cloned().unwrap_or_else(|| f.default_value())))
        .collect())
}

/// Every value of `values` that its field does not accept, each named `{prefix}{name}`.
pub fn errors(fields: &[Field], values: &Values, prefix: &str) -> Vec<FieldError> {
    fields
        .iter()
        .filter_map(|f| {
            let value = values.get(f.name).cloned().unwrap_or_else(|| f.default_value());
            f.error(&value).map(|message| FieldError::new(&format!("{prefix}{}", f.name), message))
        })
        .collect()
}

/// Reads checked settings: each accessor gives the value or, for one never checked, the field's
/// default, so that reading never fails.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    pub fields: &'a [Field],
    pub values: &'a Values,
}

impl Reader<'_> {
    fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// A whole-number setting.
    pub fn count(&self, name: &str) -> usize {
        let default = match self.field(name).map(|f| &f.accepts) {
            Some(Kind::Count { default, .. }) => *default,
            _ => 0,
        };
        self.values.get(name).and_then(|v| v.as_u64()).map_or(default, |n| n as usize)
    }

    /// A number setting.
    pub fn number(&self, name: &str) -> f64 {
        let default = match self.field(name).map(|f| &f.accepts) {
            Some(Kind::Number { default, .. }) => *default,
            _ => 0.0,
        };
        self.values.get(name).and_then(|v| v.as_f64()).unwrap_or(default)
    }

    /// A choice setting's value.
    pub fn choice(&self, name: &str) -> &str {
        let default = match self.field(name).map(|f| &f.accepts) {
            Some(Kind::Choice { default, .. }) => default,
            _ => "",
        };
        self.values.get(name).and_then(|v| v.as_str()).unwrap_or(default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[Field] = &[
        Field::count("length", "Sequence length", "letters", (1, 64), 8),
        Field::number("fraction", "Train fraction", "share", (0.0, 1.0), false, 0.9),
        Field::number("momentum", "Momentum", "beta", (0.0, 1.0), true, 0.95),
        Field::choice("mode", "Mode", "what", &[("check", "Check"), ("close", "Close")], "check"),
    ];

    fn values(json: &str) -> Values {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn resolving_fills_defaults_drops_others_fields_and_names_an_unknown_one() {
        let given = values(r#"{"length": 12, "p": 97}"#);
        let resolved = resolve(FIELDS, &given, |k| k == "p").unwrap();
        assert_eq!(resolved, values(r#"{"length": 12, "fraction": 0.9, "momentum": 0.95, "mode": "check"}"#));
        let err = resolve(FIELDS, &values(r#"{"lenght": 12}"#), |_| false).unwrap_err();
        assert!(err.contains("unknown field `lenght`") && err.contains("length, fraction"), "{err}");
    }

    #[test]
    fn each_kind_names_the_field_and_its_limits() {
        let errors = |json: &str| -> Vec<(String, String)> {
            errors(FIELDS, &values(json), "task.").into_iter().map(|e| (e.field, e.message)).collect()
        };
        assert!(errors(r#"{"length": 64, "fraction": 0.5, "momentum": 0, "mode": "close"}"#).is_empty());
        let all = errors(r#"{"length": 0, "fraction": 1, "momentum": 1, "mode": "open"}"#);
        let fields: Vec<_> = all.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, ["task.length", "task.fraction", "task.momentum", "task.mode"]);
        assert_eq!(all[0].1, "Sequence length must be a whole number from 1 to 64, not 0");
        assert_eq!(all[1].1, "Train fraction must be between 0 and 1, not 1");
        assert_eq!(all[2].1, "Momentum must be from 0 to below 1, not 1");
        assert_eq!(all[3].1, "Mode must be one of check, close, not \"open\"");
        assert_eq!(errors(r#"{"length": 2.5}"#)[0].0, "task.length", "a count is whole");
        assert_eq!(errors(r#"{"length": "eight"}"#)[0].0, "task.length");
    }

    #[test]
    fn a_reader_gives_each_value_or_its_default() {
        let v = values(r#"{"length": 12, "mode": "close"}"#);
        let read = Reader { fields: FIELDS, values: &v };
        assert_eq!((read.count("length"), read.number("fraction"), read.choice("mode")), (12, 0.9, "close"));
    }
}
