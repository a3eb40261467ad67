//! `gpt features --transcoders`: a transcoder for every MLP of a checkpoint's model, trained
//! together, with each layer's normalised error and the replacement model's agreement with the
//! model on held-out batches as it goes.

/// Trains the run's transcoders `steps` steps, measuring every `every` and at the end on
/// `batches` held-out batches.
pub fn train(run: &mut gpt::Run, steps: usize, every: usize, batches: usize, json: bool) -> Result<(), String> {
    let train_chunk = |run: &mut gpt::Run, n| {
        let report = run.train_transcoders(n, &crate::shared::now_ms)?;
        Ok((report, run.transcoders().map_or(0, |t| t.step_count())))
    };
    crate::shared::train_in_chunks(run, steps, every, train_chunk, |run, step, train_s, report| {
        let m = run.transcoder_measures(batches).map_err(|e| e.to_string())?;
        if json {
            let line = serde_json::json!({ "step": step, "train_s": train_s, "loss": report.losses.last(),
                "measures": m });
            println!("{line}");
            return Ok(());
        }
        let layers: Vec<String> = m
            .layers
            .iter()
            .enumerate()
            .map(|(l, layer)| {
                format!(
                    "MLP{} {:.3} (L0 {:.1}, dead {:.0}%)",
                    l + 1,
                    layer.normalized_mse,
                    layer.l0,
                    100.0 * layer.dead
                )
            })
            .collect();
        println!(
            "step {step:>6}  {train_s:>6.1}s  normalised MSE {}  replacement: top-1 agreement {:.1}%, KL {:.4}, \
             loss {:.4} (model {:.4}) on {} held-out tokens",
            layers.join("  "),
            100.0 * m.top1_agreement,
            m.kl,
            m.loss_replaced,
            m.loss_clean,
            m.tokens
        );
        Ok(())
    })
}
