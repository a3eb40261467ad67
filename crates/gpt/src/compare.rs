//! Runs compared by what changed: the settings that differ among them.

use crate::settings::Settings;
use serde::Serialize;

/// One setting that differs among runs being compared: its path (`train.learning_rate`) and each
/// run's value, as text (`—` where a run has none, as a text's run has no task).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Difference {
    pub field: String,
    pub values: Vec<String>,
}

/// The settings that differ among `runs`, alphabetically by path.
pub fn differences(runs: &[Settings]) -> Vec<Difference> {
    fn flatten(prefix: &str, value: &serde_json::Value, out: &mut Vec<(String, String)>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map {
                    let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                    flatten(&path, v, out);
                }
            }
            serde_json::Value::String(s) => out.push((prefix.to_string(), s.clone())),
            serde_json::Value::Null => out.push((prefix.to_string(), "auto".into())),
            // Settings hold f32s: shown as f32s, 0.004 and not 0.004000000189989805.
            serde_json::Value::Number(n) if n.is_f64() => {
                out.push((prefix.to_string(), (n.as_f64().unwrap_or(f64::NAN) as f32).to_string()))
            }
            other => out.push((prefix.to_string(), other.to_string())),
        }
    }
    let flat: Vec<Vec<(String, String)>> = runs
        .iter()
        .map(|s| {
            let mut out = vec![];
            flatten("", &serde_json::to_value(s).expect("plain data"), &mut out);
            out
        })
        .collect();
    let mut fields: Vec<&String> = vec![];
    for (field, _) in flat.iter().flatten() {
        if !fields.contains(&field) {
            fields.push(field);
        }
    }
    let value = |run: &[(String, String)], field: &str| {
        run.iter().find(|(f, _)| f == field).map_or_else(|| "—".to_string(), |(_, v)| v.clone())
    };
    fields
        .into_iter()
        .filter_map(|field| {
            let values: Vec<String> = flat.iter().map(|run| value(run, field)).collect();
            values.iter().any(|v| v != &values[0]).then(|| Difference { field: field.clone(), values })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_each_setting_that_differs_and_every_run_value() {
        let adamw = crate::presets::preset("nano-cpu").unwrap().settings;
        let muon = crate::presets::preset("nano-muon").unwrap().settings;
        let fields: Vec<(String, Vec<String>)> =
            differences(&[adamw.clone(), muon, adamw.clone()]).into_iter().map(|d| (d.field, d.values)).collect();
        let field = |name: &str| fields.iter().find(|(f, _)| f == name).map(|(_, v)| v.clone());
        assert_eq!(field("train.optimizer").unwrap(), ["adamw", "muon", "adamw"]);
        assert_eq!(field("train.max_iters").unwrap(), ["2000", "300", "2000"]);
        assert_eq!(field("train.eval_interval").unwrap(), ["auto", "300", "auto"]);
        assert_eq!(field("train.learning_rate").unwrap(), ["0.001", "0.003", "0.001"]);
        assert!(field("model.n_layer").is_none(), "what is the same is left out");
        let task = crate::presets::preset("grokking").unwrap().settings;
        assert_eq!(differences(&[adamw.clone(), task])[0].field, "model.block_size");
        assert!(differences(&[adamw.clone(), adamw]).is_empty());
    }
}
