//! What the `gpt` binary's tests share: running it, its output, and a scratch folder.

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn gpt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpt")).args(args).output().expect("the gpt binary runs")
}

pub fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpt-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
