//! What `gpt features` shows of an autoencoder once trained (or read with --sae): the feature
//! list, a feature's card, the features firing on a typed text, a feature knocked out, and
//! generation steered by one. Each prints a table, or one JSON object with --json.

use gpt::run::FeatureOrder;
use gpt::SampleConfig;

#[derive(clap::Args)]
pub struct Views {
    /// List the features, most often firing first (density) or most needed by the loss first
    /// (importance).
    #[arg(long, value_parser = ["density", "importance"])]
    list: Option<String>,
    /// Features the list shows.
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Show a feature's card: its top contexts, histogram, density and the tokens it promotes and
    /// suppresses.
    #[arg(long)]
    card: Option<usize>,
    /// Which features fire on each token of this text.
    #[arg(long)]
    which: Option<String>,
    /// Knock this feature out and score the held-out rows again.
    #[arg(long)]
    knock_out: Option<usize>,
    /// Generate with this feature's direction added at every position, beside the same draw without.
    #[arg(long)]
    steer: Option<usize>,
    /// How much of the direction --steer adds.
    #[arg(long, default_value_t = 10.0)]
    strength: f32,
    /// The text --steer continues.
    #[arg(long, default_value = "")]
    prompt: String,
    /// Tokens --steer generates.
    #[arg(long, default_value_t = 100)]
    tokens: usize,
}

/// Prints every view asked for, measured on `batches` held-out batches.
pub fn show(run: &gpt::Run, v: &Views, batches: usize, json: bool) -> Result<(), String> {
    let text = |e: gpt::Error| e.to_string();
    let print = |value: serde_json::Value, table: String| println!("{}", if json { value.to_string() } else { table });
    if v.list.is_some() || v.card.is_some() {
        let index = run.index_features(batches).map_err(text)?;
        if let Some(order) = &v.list {
            let order = if order == "importance" { FeatureOrder::Importance } else { FeatureOrder::Density };
            let list: Vec<_> = run.feature_list(&index, order).into_iter().take(v.top).collect();
            let mut table =
                format!("{:>7} {:>9} {:>8} {:>11}  strongest on\n", "feature", "density", "max", "importance");
            for s in &list {
                table += &format!(
                    "{:>7} {:>9.5} {:>8.3} {:>11.5}  {:?}\n",
                    s.feature, s.density, s.max, s.importance, s.top_token
                );
            }
            print(serde_json::json!({ "list": list }), table.trim_end().into());
        }
        if let Some(j) = v.card {
            let card = run.feature_card(&index, j).map_err(text)?;
            let mut table = format!(
                "feature {j}: density {:.5}, max {:.3}, loss without it {:+.5}\n",
                card.summary.density, card.summary.max, card.summary.importance
            );
            for c in &card.contexts {
                let shown: String = c
                    .tokens
                    .iter()
                    .enumerate()
                    .map(|(k, t)| if k == c.at { format!("[{t}]") } else { t.clone() })
                    .collect();
                table += &format!("  {:>7.3}  {shown:?}\n", c.activations[c.at]);
            }
            table += &format!("  histogram (0 to max): {:?}\n", card.histogram);
            let tokens = |list: &[gpt::run::TokenLogit]| {
                list.iter().map(|t| format!("{:?} {:+.2}", t.token, t.logit)).collect::<Vec<_>>().join(", ")
            };
            table += &format!("  promotes {}\n  suppresses {}", tokens(&card.promoted), tokens(&card.suppressed));
            print(serde_json::json!({ "card": card }), table);
        }
    }
    if let Some(typed) = &v.which {
        let tokens = run.features_at(typed).map_err(text)?;
        let table = tokens
            .iter()
            .map(|t| {
                let shown: Vec<String> = t.features.iter().take(6).map(|(j, a)| format!("{j} ({a:.2})")).collect();
                format!("{:>8}  {}", format!("{:?}", t.token), shown.join(", "))
            })
            .collect::<Vec<_>>()
            .join("\n");
        print(serde_json::json!({ "which": tokens }), table);
    }
    if let Some(j) = v.knock_out {
        let k = run.knock_out_feature(j, batches).map_err(text)?;
        let mut table = format!("feature {j} knocked out: held-out loss {:.4} -> {:.4}", k.loss, k.loss_without);
        if run.task().is_some() {
            table += &format!(", {} -> {} of {} problems right", k.right, k.right_without, k.rows);
            for (problem, right) in &k.flipped {
                table += &format!("\n  {problem:?} now {}", if *right { "right" } else { "wrong" });
            }
        }
        print(serde_json::json!({ "knock_out": k }), table);
    }
    if let Some(j) = v.steer {
        let last = run.last_sample().cloned().unwrap_or_default();
        let config = SampleConfig { prompt: v.prompt.clone(), max_new_tokens: v.tokens, ..last };
        let s = run.steer(j, v.strength, config).map_err(text)?;
        let table = format!("without: {:?}\nfeature {j} at {}: {:?}", s.plain, s.strength, s.steered);
        print(serde_json::json!({ "steer": s }), table);
    }
    Ok(())
}
