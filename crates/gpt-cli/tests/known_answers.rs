//! The `gpt` binary on known answers: the toy model of superposition, autoencoders scored against
//! known features, and models built by hand, whose circuits are known.

mod common;

use common::{gpt, scratch, stdout};

#[test]
fn superposition_stores_a_pentagon_draws_a_phase_diagram_scores_directions_and_trains_an_autoencoder() {
    let out = stdout(&gpt(&["superposition", "--steps", "1500", "--json"]));
    let run: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dims: Vec<f64> =
        run["geometry"]["dimensionality"].as_array().unwrap().iter().map(|d| d.as_f64().unwrap()).collect();
    assert!(dims.iter().all(|d| (d - 0.4).abs() < 0.05), "five features as a pentagon: {dims:?}");
    // Six features in two dimensions: the LLC climbs as the model comes to represent them all.
    let args = "superposition --features 6 --hidden 2 --sparsity 0.95 --importance-decay 1 --steps 200 --seed 1";
    let args: Vec<&str> = args.split(' ').chain(["--llc", "100", "--llc-draws", "100", "--json"]).collect();
    let run: serde_json::Value = serde_json::from_str(&stdout(&gpt(&args))).unwrap();
    let points = run["llc"].as_array().unwrap();
    let read = |key: &str| points.iter().map(|p| p[key].as_f64().unwrap()).collect::<Vec<f64>>();
    assert_eq!((read("step"), read("features")), (vec![0.0, 100.0, 200.0], vec![3.0, 6.0, 6.0]), "{points:?}");
    let llc = read("llc");
    assert!(llc[0] < 0.6 && llc[1] > 1.0 && llc[2] > llc[0], "{llc:?}");
    let table = stdout(&gpt(&["superposition", "--phase", "2x1", "--side", "3", "--threads", "2"]));
    assert!(table.starts_with("2 features in 1 dimension: the last feature's fate, 9 cells"), "{table}");
    assert_eq!(table.lines().filter(|l| l.starts_with("   ")).count(), 3, "{table}");
    for (args, want) in [
        (&["superposition", "--hidden", "9"][..], "hidden: the hidden dimensions must be 1 to the 5 features"),
        (&["superposition", "--sparsity", "1"][..], "sparsity: the chance a feature is absent"),
        (&["superposition", "--phase", "4x2"][..], "a phase diagram is drawn for 2 features in 1 dimension or 3 in 2"),
        (&["superposition", "--phase", "two"][..], "--phase: \"two\" is not 2x1 or 3x2"),
        (&["superposition", "--score", "missing.safetensors"][..], "missing.safetensors: "),
        (
            &["superposition", "--synthetic", "--features", "4000", "--hidden", "32", "--orthogonal"][..],
            "at most 2048 features can be pushed as nearly orthogonal as they can be, not 4000",
        ),
        (&["superposition", "--synthetic", "--zipf", "0.3"][..], "--zipf: \"0.3\" is not MAX,MIN"),
        (&["superposition", "--synthetic", "--correlation", "4"][..], "--correlation: \"4\" is not RANK,SCALE"),
        (&["superposition", "--synthetic", "--correlation", "0,0.1"][..], "a correlation needs 1 to 256 factors"),
    ] {
        let out = gpt(args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!out.status.success() && err.contains(want) && err.trim().lines().count() == 1, "{args:?}: {err}");
    }
    // Learned directions that are the true features, flipped and scaled, score 1; one missing, less.
    let file = scratch("truth.safetensors");
    let floats = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (truth, learned) = (floats(&[1.0, 0.0, 0.0, 1.0]), floats(&[0.0, -2.0, 0.5, 0.5]));
    let view = |data| safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 2], data).unwrap();
    std::fs::write(
        &file,
        safetensors::serialize([("truth", view(&truth)), ("learned", view(&learned))], None).unwrap(),
    )
    .unwrap();
    let scored = stdout(&gpt(&["superposition", "--score", file.to_str().unwrap()]));
    assert!(
        scored.starts_with("2 learned directions against 2 true features in 2 dimensions: MCC 0.8536, 50.0% found"),
        "{scored}"
    );
    // A TopK autoencoder on activations of 16 orthogonal features finds them all.
    let args = [
        "superposition",
        "--synthetic",
        "--features",
        "16",
        "--hidden",
        "32",
        "--orthogonal",
        "--steps",
        "400",
        "--json",
    ];
    let run: serde_json::Value = serde_json::from_str(&stdout(&gpt(&args))).unwrap();
    assert!(run["scores"]["truth"]["mcc"].as_f64().unwrap() > 0.9, "{run}");
    assert_eq!(run["scores"]["truth"]["found"].as_f64(), Some(1.0), "{run}");
    assert!(run["scores"]["absorption"].is_null(), "no hierarchy, no absorption: {run}");
    // A Matryoshka autoencoder on a correlated hierarchy reports its absorption; too many levels
    // are refused.
    let correlated = ["--children", "3", "--correlation", "4,0.3", "--architecture", "matryoshka", "--json"];
    let matryoshka = [&args[..9], &correlated].concat();
    let run: serde_json::Value = serde_json::from_str(&stdout(&gpt(&matryoshka))).unwrap();
    let absorption = run["scores"]["absorption"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&absorption), "{run}");
    assert_eq!(run["sae"]["architecture"]["kind"], "matryoshka", "{run}");
    // Activations read from a file (as SAELens's generator writes them): 4 orthogonal features.
    let file = scratch("activations.safetensors");
    let row = |seed: usize| -> [f32; 4] {
        std::array::from_fn(|i| f32::from(u8::from((seed * 7 + i * 3).is_multiple_of(5))))
    };
    let train: Vec<f32> = (0..2048).flat_map(row).collect();
    let truth: Vec<f32> = (0..16).map(|k: usize| f32::from(u8::from(k.is_multiple_of(5)))).collect();
    let tensor = |data: &Vec<f32>| {
        let bytes = floats(data);
        (bytes, vec![data.len() / 4, 4])
    };
    let (train, held, truth) = (tensor(&train), tensor(&train[..400].to_vec()), tensor(&truth));
    let named = [("activations", &train), ("held_out", &held), ("truth", &truth)].map(|(name, (bytes, shape))| {
        (name, safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), bytes).unwrap())
    });
    std::fs::write(&file, safetensors::serialize(named, None).unwrap()).unwrap();
    let read = [
        "superposition",
        "--synthetic",
        "--activations",
        file.to_str().unwrap(),
        "--k",
        "1",
        "--expansion",
        "2",
        "--steps",
        "1000",
        "--json",
    ];
    let run: serde_json::Value = serde_json::from_str(&stdout(&gpt(&read))).unwrap();
    assert!(run["scores"]["truth"]["mcc"].as_f64().unwrap() > 0.9, "{run}");
    assert!(run["scores"]["true_l0"].is_null(), "the file has no held-out firing: {run}");
    let err = gpt(&[&matryoshka[..], &["--levels", "9"]].concat());
    let err = String::from_utf8(err.stderr).unwrap();
    assert!(err.contains("levels: a Matryoshka autoencoder's nested levels must be 2 to 6, not 9"), "{err}");
}

#[test]
fn a_built_model_carries_its_circuit_and_the_circuit_view_scores_each_way_against_it() {
    let out = scratch("built.safetensors");
    let printed = stdout(&gpt(&["build", "induction", "--out", out.to_str().unwrap()]));
    assert!(printed.contains("its circuit under Swap: input->a0.h0<v>, a0.h0->a1.h0<k>"), "{printed}");
    let json = stdout(&gpt(&[
        "inspect",
        "--checkpoint",
        out.to_str().unwrap(),
        "circuit",
        "--json",
        "--corruption",
        "swap",
        "--pairs",
        "8",
    ]));
    let c: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(c["known"].as_array().unwrap().len(), 4);
    assert_eq!(c["circuits"][0]["truth"]["auroc"], 1.0);
    assert!(c["circuits"][0]["mib"]["cpr"].as_f64().unwrap() > 0.9);
    let wrong = gpt(&["build", "nonesuch", "--out", out.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(!wrong.status.success() && said.contains("there are: induction"), "{said}");
}
