//! Snapshot tests of `ptxsim check`: the JSON and text output for every file in `tests/broken/`
//! (one file per syntax or name-resolution error kind) and in `tests/check/` (one file per
//! instruction rule kind).
//!
//! Each input starts with a comment recording ptxas's messages for the same file, the
//! independent source of the expectation; the snapshots were reviewed against it. A line
//! `// ptxsim-args: ...` in that comment gives extra arguments (e.g. `--target sm_90`).

mod common;

use std::path::Path;
use std::process::Command;

use common::TempPath;

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

/// Text excerpts of long lines and the cap on the number of diagnostics: the inputs in
/// `tests/render/` (long lines with labels far into them, cuts among multi-byte characters,
/// invalid UTF-8, `--max-diagnostics`), each described in its first lines.
#[test]
fn rendering() {
    insta::glob!("../../../tests/render", "*.ptx", |path| {
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default();
        let bytes = std::fs::read(path).expect("test inputs are readable");
        let source = String::from_utf8_lossy(&bytes);
        insta::assert_snapshot!(check(&format!("tests/render/{name}"), &extra_args(&source)));
    });
}

/// `ptxsim check FILE ARGS...` on `source` (written to a temporary file): its stderr.
fn check_stderr(source: &str, args: &[&str]) -> Vec<u8> {
    let path = TempPath::new("render", &format!("{}.ptx", source.len()));
    std::fs::write(&path, source).expect("temporary file");
    let output = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .arg("check")
        .arg(&path)
        .args(args)
        .output()
        .expect("the ptxsim binary runs");
    assert_eq!(output.status.code(), Some(1), "{source:.100}");
    output.stderr
}

/// N nested `.entry k() {` on one line: N diagnostics on a line of 12·N bytes. Each showed the
/// whole line (12·N² bytes in all, quadratic); now each shows a window of it, so that twice the
/// diagnostics are at most 2.2 times the bytes of text (this counts the work of rendering, not
/// its time).
#[test]
fn text_output_of_many_diagnostics_on_one_line_is_linear() {
    let nested = |levels: usize| ".entry k() {".repeat(levels);
    let bytes = |levels: usize| check_stderr(&nested(levels), &["--max-diagnostics", "0"]).len();
    let (single, double) = (bytes(1_000), bytes(2_000));
    assert!(
        double * 10 <= single * 22,
        "{single} bytes for 1,000 levels, {double} for 2,000"
    );
    // 1,000 diagnostics of a few lines each: well under 1 KB each (the line is 12 KB).
    assert!(single < 1_000 * 1_000, "{single} bytes for 1,000 levels");
}

/// By default the text shows 1,000 diagnostics per file, then how many more there are.
#[test]
fn text_output_shows_a_thousand_diagnostics_by_default() {
    let source = ".entry k() {\n".repeat(1_500);
    let all = String::from_utf8_lossy(&check_stderr(&source, &["--max-diagnostics", "0"]))
        .matches("error[")
        .count();
    assert!(all > 1_000, "{all} diagnostics");
    let text = String::from_utf8_lossy(&check_stderr(&source, &[])).into_owned();
    assert_eq!(text.matches("error[").count(), 1_000);
    let last = format!(
        "... and {} more errors (use --max-diagnostics N to see more)\n",
        all - 1_000
    );
    assert!(text.ends_with(&last), "{:?}", text.lines().last());
}
