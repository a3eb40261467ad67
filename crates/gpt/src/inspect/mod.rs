//! Looking inside a model while it learns: the numbers behind the page's "Inside the model"
//! views, each view one file with one function, listed once in [`VIEWS`]; what each evaluation
//! records for them (`watch.rs`, [`Views`]: they watch every run, `record.rs`, `records.rs`); and
//! every head's attention over a text (`attention.rs`).
//!
//! To add a view: write `its_name.rs` with `pub fn view(look: &Look) -> Result<serde_json::Value>`
//! (a [`Look`] holds the run, the probe, the prompt and the probe's trace), add it to [`VIEWS`],
//! and give the page a module that draws it (`web/views/`, listed in `web/views/index.js`).

mod ablation;
mod attention;
mod attribution;
pub mod circuit;
mod composition;
mod dictionaries;
mod embeddings;
mod fourier;
pub mod graph;
mod heads;
mod knockout;
mod lens;
mod llc_heads;
mod llc_record;
mod llc_view;
mod look;
mod mlp;
mod model_request;
mod patching;
mod pca;
mod positions;
mod question;
mod record;
pub mod records;
mod residual;
pub mod scores;
pub mod snapshots;
mod surprise;
mod temperatures;
mod timelapse;
pub mod walk;
mod watch;

pub use ablation::{Ablation, AblationGrid, Fill, Flip, Score};
pub use attention::AttentionMaps;
pub use attribution::{Attribution, Part};
pub use composition::{Circuit, Composition};
pub use dictionaries::{DictionaryAnswer, DictionaryRequest};
pub use embeddings::Embeddings;
pub use fourier::{key_frequencies, FourierPoint, KEY_SHARE};
pub use heads::Heads;
pub use llc_heads::HeadsLlcPoint;
pub use llc_view::{Estimated, Judged, LlcView};
pub use look::{Look, Questions};
pub use mlp::Mlp;
pub use model_request::{ModelAnswer, ModelRequest};
pub use patching::{PairIds, Patching};
pub use pca::pca;
pub use positions::Positions;
pub use question::{Pair, MAX_PATCH_TOKENS};
pub use residual::Residual;
pub use surprise::{ProbeToken, Surprise};
pub use temperatures::Temperatures;
pub use timelapse::TimelapseSteps;
pub use watch::{Run, Views};

use crate::error::{Error, Result};
use crate::words::views;
use serde::Serialize;
use std::collections::BTreeMap;

/// A view: its name, as the page asks for it, and what it computes.
pub struct View {
    pub name: &'static str,
    pub compute: fn(&Look) -> Result<serde_json::Value>,
}

/// Every view, in the order the page shows them.
pub static VIEWS: &[View] = &[
    View { name: "heads", compute: heads::view },
    View { name: "timelapse", compute: timelapse::view },
    View { name: "surprise", compute: surprise::view },
    View { name: "embeddings", compute: embeddings::view },
    View { name: "positions", compute: positions::view },
    View { name: "residual", compute: residual::view },
    View { name: "mlp", compute: mlp::view },
    View { name: "temperatures", compute: temperatures::view },
    View { name: "lens", compute: lens::view },
    View { name: "ablation", compute: ablation::view },
    View { name: "patching", compute: patching::view },
    View { name: "attribution", compute: attribution::view },
    View { name: "composition", compute: composition::view },
    View { name: "circuit", compute: circuit::view },
    View { name: "fourier", compute: fourier::view },
    View { name: "llc", compute: llc_view::view },
    View { name: "walk", compute: walk::view },
];

/// The views asked for, at the run's current step.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Inside {
    pub step: usize,
    pub n_layer: usize,
    pub n_head: usize,
    /// Each view's data, by its name; `{"error": message}` for one that could not be computed.
    #[cfg_attr(feature = "ts", tsify(type = "Record<string, any>"))]
    pub views: BTreeMap<&'static str, serde_json::Value>,
}

impl Run {
    /// The views called `names` for `probe` (empty: the held-out text), the sampling `prompt`
    /// and the testing views' `questions`; only those are computed.
    pub fn inside(&self, names: &[String], probe: &str, prompt: &str, questions: &Questions) -> Result<Inside> {
        let look = Look::new(self, probe, prompt, questions.clone())?;
        let mut views = BTreeMap::new();
        for name in names {
            let view = VIEWS
                .iter()
                .find(|v| v.name == name)
                .ok_or_else(|| Error::Config(views::no_view(format!("{name:?}"))))?;
            // A view that cannot answer (a patching pair that does not fit) says why in its place,
            // and the others still show.
            let data = (view.compute)(&look).unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }));
            views.insert(view.name, data);
        }
        let config = self.model().config();
        Ok(Inside { step: self.step_count(), n_layer: config.n_layer, n_head: config.n_head, views })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Budget, GPTConfig, Run, Settings, TrainConfig};

    /// A fresh run of 2 layers × 2 heads × 16 channels on a pangram, not yet evaluated.
    pub(super) fn pangram_run() -> Run {
        let model = GPTConfig { block_size: 16, n_layer: 2, n_head: 2, n_embd: 16, ..Default::default() };
        let train = TrainConfig { batch_size: 4, max_iters: 10, warmup_iters: 2, eval_iters: 1, ..Default::default() };
        let text = "the quick brown fox jumps over the lazy dog. ".repeat(20);
        Run::create(&Settings { model, train, ..Default::default() }, &text, &Budget::UNLIMITED).unwrap()
    }

    #[test]
    fn every_view_has_its_shape_and_evaluations_record_heads() {
        let mut run = pangram_run();
        run.evaluate().unwrap();
        let all: Vec<String> = super::VIEWS.iter().map(|v| v.name.to_string()).collect();
        let inside = run.inside(&all, "", "the qu", &Default::default()).unwrap();
        let view = |name: &str| inside.views[name].clone();
        let len = |v: &serde_json::Value| v.as_array().map_or(0, Vec::len);
        let surprise = view("surprise");
        assert_eq!((len(&surprise["probe"]), len(&surprise["loss_by_position"])), (16, 16));
        assert!(surprise["probe"][0]["loss"].is_null() && len(&surprise["probe"][1]["guesses"]) == 5);
        assert_eq!(len(&view("embeddings")["points"]), run.vocab_size());
        let positions = view("positions");
        assert_eq!((len(&positions["values"]), len(&positions["cosine"])), (16 * 16, 16 * 16));
        assert!((positions["cosine"][0].as_f64().unwrap() - 1.0).abs() < 1e-5, "a position is like itself");
        let residual = view("residual");
        assert_eq!((len(&residual["stream"]), len(&residual["attn"])), (3 * 16, 2 * 16));
        let histogram: u64 = view("mlp")["histogram"][1].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).sum();
        assert_eq!(histogram, 16 * 64);
        assert_eq!(len(&view("temperatures")["probs"]), 3);
        let heads = view("heads");
        assert_eq!((len(&heads["scores"]), len(&heads["scores"][0]["induction"])), (1, 4));
        assert_eq!(view("timelapse")["steps"], serde_json::json!([0]));
        assert_eq!(run.timelapse().maps.len(), 1);
        // The lens's last row is the model's own next-token prediction.
        let lens = view("lens");
        assert_eq!(len(&lens), 3);
        let next = run.next_tokens("the qu", 1.0, 5).unwrap();
        for (guess, model) in lens[2].as_array().unwrap().iter().zip(&next.tokens) {
            assert_eq!(guess["token"].as_str().unwrap(), model.token);
            assert!((guess["prob"].as_f64().unwrap() as f32 - model.prob).abs() < 1e-6);
        }
        assert!(run.inside(&all, "QQQ", "", &Default::default()).is_err(), "a probe must encode");
    }

    #[test]
    fn only_the_views_asked_for_are_computed() {
        let model = GPTConfig { block_size: 8, n_layer: 1, n_head: 2, n_embd: 8, rope: true, ..Default::default() };
        let settings = Settings { model, ..Default::default() };
        let run = Run::create(&settings, &"abcdefgh ".repeat(20), &Budget::UNLIMITED).unwrap();
        let inside = run.inside(&["positions".into()], "abc", "", &Default::default()).unwrap();
        assert_eq!(inside.views.len(), 1);
        assert!(inside.views["positions"].is_null(), "a RoPE model has no position table");
        assert!(run
            .inside(&["colours".into()], "abc", "", &Default::default())
            .unwrap_err()
            .to_string()
            .contains("no view called \"colours\""));
    }
}
