//! Output that cannot be written (a full disk, `/dev/full`) is an error with exit status 2, never
//! a panic (exit 101): issue "Reliability", "Writing to a closed pipe or a full disk ... exits
//! 101 with 'panicked ... failed printing'".

use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `/dev/full` for writing, where the system has it.
fn full() -> Option<File> {
    File::options().write(true).open("/dev/full").ok()
}

#[test]
fn results_to_a_full_stdout_exit_two() {
    let Some(device) = full() else {
        return;
    };
    let output = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(["eval", "add.s32 d, a, b", "a=1", "b=2"])
        .stdout(Stdio::from(device))
        .output()
        .expect("ptxsim runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot write to stdout"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn diagnostics_to_a_full_stderr_do_not_panic() {
    let Some(device) = full() else {
        return;
    };
    let status = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .current_dir(workspace_root())
        .args(["check", "tests/check/unknown_and_misused_instructions.ptx"])
        .stderr(Stdio::from(device))
        .status()
        .expect("ptxsim runs");
    // The diagnostics cannot be written: a usage/I-O error (2), not a panic (101).
    assert_eq!(status.code(), Some(2));
}
