//! Snapshot tests: the JSON and text diagnostics of every file in `tests/broken/`.
//!
//! Each input starts with a comment recording ptxas's verdict, the independent source of the
//! expectation; the snapshots were reviewed against it.

use std::path::Path;
use std::process::Command;

fn workspace_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Runs `ptxsim check` on `relative` (relative to the workspace root) in both formats.
fn check(relative: &str) -> String {
    let run = |json: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ptxsim"));
        command
            .current_dir(workspace_root())
            .arg("check")
            .arg(relative);
        if json {
            command.args(["--format", "json"]);
        }
        command.output().expect("the ptxsim binary runs")
    };
    let json = run(true);
    let text = run(false);
    assert_eq!(
        json.status.code(),
        text.status.code(),
        "both formats agree on the exit status"
    );
    format!(
        "exit status: {:?}\n--- json (stdout)\n{}--- text (stderr)\n{}",
        json.status.code(),
        String::from_utf8_lossy(&json.stdout),
        String::from_utf8_lossy(&text.stderr)
    )
}

#[test]
fn broken_inputs() {
    insta::glob!("../../../tests/broken", "*.ptx", |path| {
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default();
        insta::assert_snapshot!(check(&format!("tests/broken/{name}")));
    });
}
