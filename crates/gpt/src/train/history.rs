//! What training records: each step's stats and loss, each evaluation, and what the measures of
//! the model (the views inside it) record at each evaluation, kept under their own names.

use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// What one optimisation step did.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct StepStats {
    /// Steps completed, including this one.
    pub step: usize,
    pub loss: f32,
    pub lr: f32,
    /// Global gradient norm before clipping.
    pub grad_norm: f32,
    /// Tokens this step trained on (batch × block).
    pub tokens: usize,
}

/// Mean losses over random batches of each split and, for a task, the share of errors the
/// model answers exactly right in each (training errors, and held-out ones).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Evaluation {
    pub step: usize,
    pub train_loss: f32,
    pub val_loss: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_accuracy: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub val_accuracy: Option<f32>,
}

/// What a measure of the model records at an evaluation: plain data under a name of its own (the
/// history's key for it, in checkpoints too). The measure owns the type; the history keeps its
/// records as the JSON they were written as, and gives them back typed.
pub trait Record: Serialize + DeserializeOwned {
    const NAME: &'static str;
}

/// Every step's training loss, every evaluation, and every measure's records, so a resumed run
/// can redraw its curves. As JSON (a checkpoint's `history`): `losses`, `evals`, each measure's
/// records under its name, then `seconds`.
#[derive(Clone, Debug, Default)]
pub struct History {
    pub losses: Vec<f32>,
    pub evals: Vec<Evaluation>,
    /// Each step's training time since the first step, in seconds: the steps' own time, evaluations
    /// left out, so runs compare by what their training cost. Kept while it covers every step (a
    /// run saved before it was recorded has none).
    pub seconds: Vec<f32>,
    /// Each measure's records by its name, in the order the history writes them.
    records: Vec<(String, Vec<Box<RawValue>>)>,
}

impl History {
    /// Keeps records under each of `names`, in that order, before any other (a checkpoint's
    /// measures that no longer exist stay after them).
    pub fn keep_records(&mut self, names: &[&str]) {
        let mut ordered: Vec<(String, Vec<Box<RawValue>>)> = names
            .iter()
            .map(|&name| match self.records.iter().position(|(n, _)| n == name) {
                Some(i) => self.records.remove(i),
                None => (name.to_string(), Vec::new()),
            })
            .collect();
        ordered.append(&mut self.records);
        self.records = ordered;
    }

    /// Adds `record` to its measure's records.
    pub fn record<R: Record>(&mut self, record: &R) {
        let raw = serde_json::value::to_raw_value(record).expect("records are plain data");
        match self.records.iter_mut().find(|(name, _)| name == R::NAME) {
            Some((_, records)) => records.push(raw),
            None => self.records.push((R::NAME.to_string(), vec![raw])),
        }
    }

    /// Every record of measure `R`, oldest first (none that cannot be read: a checkpoint edited
    /// by hand, say).
    pub fn records<R: Record>(&self) -> Vec<R> {
        let raw = self.records.iter().find(|(name, _)| name == R::NAME).map_or(&[][..], |(_, r)| &r[..]);
        raw.iter().filter_map(|r| serde_json::from_str(r.get()).ok()).collect()
    }

    /// How many records measure `R` has.
    pub fn record_count<R: Record>(&self) -> usize {
        self.records.iter().find(|(name, _)| name == R::NAME).map_or(0, |(_, r)| r.len())
    }
}

impl PartialEq for History {
    fn eq(&self, other: &History) -> bool {
        let texts = |h: &History| -> Vec<(String, Vec<String>)> {
            h.records.iter().map(|(n, r)| (n.clone(), r.iter().map(|x| x.get().to_string()).collect())).collect()
        };
        (&self.losses, &self.evals, &self.seconds) == (&other.losses, &other.evals, &other.seconds)
            && texts(self) == texts(other)
    }
}

impl Serialize for History {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("losses", &self.losses)?;
        map.serialize_entry("evals", &self.evals)?;
        for (name, records) in &self.records {
            map.serialize_entry(name, records)?;
        }
        if !self.seconds.is_empty() {
            map.serialize_entry("seconds", &self.seconds)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for History {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<History, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = History;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a training history")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<History, A::Error> {
                let mut history = History::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "losses" => history.losses = map.next_value()?,
                        "evals" => history.evals = map.next_value()?,
                        "seconds" => history.seconds = map.next_value()?,
                        _ => {
                            let records = map.next_value()?;
                            history.records.push((key, records));
                        }
                    }
                }
                Ok(history)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Score {
        step: usize,
        value: f32,
    }

    impl Record for Score {
        const NAME: &'static str = "scores";
    }

    #[test]
    fn records_keep_their_names_their_order_and_their_exact_text() {
        let mut history = History { losses: vec![0.1, 2.5], ..History::default() };
        history.keep_records(&["heads", "scores"]);
        history.record(&Score { step: 3, value: 0.1 });
        let json = serde_json::to_string(&history).unwrap();
        // An f32 is written as its shortest decimal, not widened to f64.
        assert_eq!(json, r#"{"losses":[0.1,2.5],"evals":[],"heads":[],"scores":[{"step":3,"value":0.1}]}"#);
        let back: History = serde_json::from_str(&json).unwrap();
        assert_eq!(back, history);
        assert_eq!(back.records::<Score>(), [Score { step: 3, value: 0.1 }]);
        assert_eq!(serde_json::to_string(&back).unwrap(), json, "written back as it was read");
        // A measure declared later comes first; one the file has and no one declares stays after.
        let mut reordered = back;
        reordered.keep_records(&["scores", "fourier"]);
        let json = serde_json::to_string(&reordered).unwrap();
        assert!(json.contains(r#""scores":[{"step":3,"value":0.1}],"fourier":[],"heads":[]"#), "{json}");
    }
}
