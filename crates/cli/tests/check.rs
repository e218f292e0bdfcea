//! Snapshot tests of `ptxsim check`: the JSON and text output for every file in `tests/broken/`
//! (one file per syntax or name-resolution error kind) and in `tests/check/` (one file per
//! instruction rule kind).
//!
//! Each input starts with a comment recording ptxas's messages for the same file, the
//! independent source of the expectation; the snapshots were reviewed against it. A line
//! `// ptxsim-args: ...` in that comment gives extra arguments (e.g. `--target sm_90`).

use std::path::Path;
use std::process::Command;

fn workspace_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The extra arguments a test input asks for in its `// ptxsim-args:` line.
fn extra_args(source: &str) -> Vec<String> {
    source
        .lines()
        .take_while(|line| line.starts_with("//"))
        .find_map(|line| line.strip_prefix("// ptxsim-args:"))
        .map(|args| args.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Runs `ptxsim check [args] FILE` on `relative` (relative to the workspace root) in both
/// formats.
fn check(relative: &str, args: &[String]) -> String {
    let run = |json: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ptxsim"));
        command
            .current_dir(workspace_root())
            .arg("check")
            .args(args)
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
    let arguments = if args.is_empty() {
        String::new()
    } else {
        format!("arguments: {args:?}\n")
    };
    format!(
        "{arguments}exit status: {:?}\n--- json (stdout)\n{}--- text (stderr)\n{}",
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
        insta::assert_snapshot!(check(&format!("tests/broken/{name}"), &[]));
    });
}

#[test]
fn instruction_rules() {
    insta::glob!("../../../tests/check", "*.ptx", |path| {
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default();
        let source = std::fs::read_to_string(path).expect("test inputs are UTF-8");
        insta::assert_snapshot!(check(&format!("tests/check/{name}"), &extra_args(&source)));
    });
}

#[test]
fn invalid_target_is_a_usage_error() {
    for bad in ["sm_9x", "gfx90a", "sm_999"] {
        let output = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
            .current_dir(workspace_root())
            .args(["check", "--target", bad, "tests/check/target_override.ptx"])
            .output()
            .expect("the ptxsim binary runs");
        assert_eq!(output.status.code(), Some(2), "--target {bad}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("invalid value '{bad}' for '--target <ARCH>'")),
            "{stderr}"
        );
    }
}
