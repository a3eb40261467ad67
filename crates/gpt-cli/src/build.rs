//! `gpt build`: a model built by hand, whose circuit is known by construction, written as a
//! checkpoint every other command opens; it prints the circuit under each corruption.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The built model: induction, backup or reverse.
    name: String,
    /// Where to write its checkpoint.
    #[arg(long)]
    out: PathBuf,
}

pub fn run(args: Args) -> Result<(), String> {
    let names = || gpt::built::BUILT.iter().map(|b| b.name).collect::<Vec<_>>().join(", ");
    let built = gpt::built::built(&args.name)
        .ok_or_else(|| format!("no built model is called {:?}; there are: {}", args.name, names()))?;
    let run = gpt::Run::create(&built.settings(), "", &gpt::Budget::UNLIMITED).map_err(|e| e.to_string())?;
    let bytes = run.save().map_err(|e| e.to_string())?;
    std::fs::write(&args.out, bytes).map_err(|e| format!("{}: {e}", args.out.display()))?;
    println!("{}: {}; written to {}", built.name, built.description, args.out.display());
    for truth in built.truth {
        println!("  its circuit under {:?}: {}", truth.corruption, truth.edges.join(", "));
    }
    Ok(())
}
