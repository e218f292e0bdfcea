//! Exit status of `ptxsim check`: 0 clean, 1 errors in the input, 2 usage or I/O error.

use std::path::Path;
use std::process::{Command, Output};

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .current_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")))
        .args(args)
        .output()
        .expect("the ptxsim binary runs")
}

#[test]
fn clean_file_exits_zero() {
    let output = ptxsim(&["check", "tests/parse/nvcc/convert_sm90.ptx"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn file_with_errors_exits_one() {
    let output = ptxsim(&[
        "check",
        "tests/parse/nvcc/convert_sm90.ptx",
        "tests/broken/undeclared_label.ptx",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("E0102"));
}

#[test]
fn missing_file_exits_two() {
    let output = ptxsim(&["check", "tests/broken/does-not-exist.ptx"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read"));
}

#[test]
fn directory_exits_two() {
    assert_eq!(ptxsim(&["check", "tests"]).status.code(), Some(2));
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(ptxsim(&[]).status.code(), Some(2));
    assert_eq!(ptxsim(&["check"]).status.code(), Some(2));
    assert_eq!(
        ptxsim(&["check", "--format", "xml", "x.ptx"]).status.code(),
        Some(2)
    );
    assert_eq!(ptxsim(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn help_exits_zero() {
    let output = ptxsim(&["check", "--help"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).contains("Example"));
}

#[test]
fn json_has_one_line_per_file() {
    let output = ptxsim(&[
        "check",
        "--format",
        "json",
        "tests/broken/register_out_of_range.ptx",
        "tests/parse/nvcc/debug_G.ptx",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    for line in lines {
        let value: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        assert!(value["file"].is_string());
        assert!(value["diagnostics"].is_array());
    }
}

#[test]
fn inputs_larger_than_the_limit_are_refused() {
    // Every input is read through one limit (`--max-input-bytes`, default 1 GiB), so that no
    // file makes ptxsim allocate without bound: exit 2 with the file and the limit named.
    let module = "ptx-samples/nvcc/warp.sm_90.ptx";
    for args in [
        vec!["--max-input-bytes", "1000", "check", module],
        vec![
            "run",
            module,
            "--entry",
            "warp_sum_down",
            "--max-input-bytes",
            "1000",
        ],
        // The module (11 KB) fits, the buffer's file (22 KB) does not.
        vec![
            "--max-input-bytes",
            "15000",
            "run",
            module,
            "--entry",
            "warp_sum_down",
            "--arg",
            "buf:ptx-samples/nvcc/fp8_convert.sm_90.ptx",
            "--arg",
            "zeros:8",
            "--arg",
            "s32:1",
        ],
        vec!["--max-input-bytes", "10", "trace-diff", module, module],
    ] {
        let output = ptxsim(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("the input size limit (raise it with --max-input-bytes)"),
            "{args:?}: {stderr}"
        );
    }
}
