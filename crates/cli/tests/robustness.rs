//! Reliability of the command line on hostile inputs and outputs (issue "Reliability: bounded
//! memory and time on any input, no output lost"): outputs that cannot be written, inputs
//! without end, outputs of failed runs, traces, launch limits. Every expectation is an exit
//! status, a message or a count that follows from the rules, never a timing.
//!
//! The kernel of `tests/launch/faults.ptx` stores each thread's global index into `out[i]`;
//! `mode` 1 misaligns the store (a trap), 3 loops forever (out of steps).

use std::fs::File;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const KERNEL: &str = "tests/launch/faults.ptx";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ptxsim() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ptxsim"));
    command.current_dir(repo());
    command
}

fn run(args: &[&str]) -> Output {
    ptxsim()
        .args(args)
        .output()
        .expect("the ptxsim binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A fresh temporary directory for one test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxsim-robustness-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn text(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

/// `/dev/full` for writing, where the system has it.
fn full() -> Option<File> {
    File::options().write(true).open("/dev/full").ok()
}

/// `/dev/zero`, where the system has it.
fn zero() -> Option<&'static str> {
    Path::new("/dev/zero").exists().then_some("/dev/zero")
}

/// Runs `args` with stdout (or stderr) on `/dev/full`.
fn to_full(args: &[&str], stderr_too: bool) -> Option<Output> {
    let device = full()?;
    let mut command = ptxsim();
    command.args(args);
    if stderr_too {
        command.stderr(Stdio::from(device));
    } else {
        command.stdout(Stdio::from(device));
    }
    Some(command.output().expect("the ptxsim binary runs"))
}

fn assert_no_panic(output: &Output, what: &str) {
    assert_ne!(
        output.status.code(),
        Some(101),
        "{what}: {}",
        stderr(output)
    );
    assert!(
        !stderr(output).contains("panicked"),
        "{what}: {}",
        stderr(output)
    );
}

/// Writes a trace of the kernel on 4 threads to `path`, and returns its text.
fn write_trace(path: &Path) -> String {
    let output = run(&[
        "run",
        KERNEL,
        "--block",
        "4",
        "--arg",
        "zeros:16",
        "--arg",
        "u32:0",
        "--trace",
        text(path),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    std::fs::read_to_string(path).expect("the trace was written")
}

// --- 1. Output that cannot be written ------------------------------------------------------

#[test]
fn results_to_a_full_disk_exit_two_with_one_line() {
    let dir = temp("full");
    let a = dir.join("a.jsonl");
    let trace = write_trace(&a);
    // B differs from A in one value, so trace-diff has a report to print.
    let b = dir.join("b.jsonl");
    let changed = trace.replacen("\"new\":\"0x00000004\"", "\"new\":\"0x00000005\"", 1);
    assert_ne!(changed, trace, "the trace has a write of 4 (%ntid.x)");
    std::fs::write(&b, changed).expect("write B");
    let script = dir.join("script");
    std::fs::write(&script, "step\nregisters\n").expect("script");
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", KERNEL, "--arg", "zeros:8", "--arg", "u32:0"],
        vec!["eval", "add.s32 d, a, b", "a=1", "b=2"],
        vec!["trace-diff", text(&a), text(&b)],
        vec![
            "debug",
            KERNEL,
            "--arg",
            "zeros:8",
            "--arg",
            "u32:0",
            "--script",
            text(&script),
        ],
        vec!["check", "--format", "json", KERNEL],
        vec!["--help"],
        vec!["--version"],
        vec!["run", "--help"],
    ];
    for args in &cases {
        let Some(output) = to_full(args, false) else {
            return;
        };
        assert_no_panic(&output, &format!("{args:?}"));
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        let message = stderr(&output);
        if !message.is_empty() {
            assert_eq!(message.lines().count(), 1, "{args:?}: one line: {message}");
            assert!(message.contains("No space left"), "{args:?}: {message}");
        }
    }
}

#[test]
fn messages_to_a_full_stderr_keep_the_exit_status() {
    // stderr is where the errors would go: they are lost, but the exit status still says what
    // happened (1: the run trapped), and nothing panics.
    for (args, code) in [
        (vec!["run", KERNEL, "--arg", "zeros:8", "--arg", "u32:1"], 1),
        (vec!["run", KERNEL, "--arg", "zeros:8", "--arg", "u32:0"], 0),
        (vec!["trace-diff", "no-such-a.jsonl", "no-such-b.jsonl"], 2),
        (vec!["eval", "add.s33 d, a, b", "a=1", "b=2"], 1),
    ] {
        let Some(output) = to_full(&args, true) else {
            return;
        };
        assert_no_panic(&output, &format!("{args:?}"));
        assert_eq!(output.status.code(), Some(code), "{args:?}");
    }
}

#[test]
fn a_closed_pipe_on_stdout_ends_quietly() {
    // 100,000 shown bytes are several MB of text, more than a pipe holds, so the writer is still
    // writing when the reader goes away: the write fails with EPIPE, as for `| head -1`.
    let mut child = ptxsim()
        .args([
            "run",
            KERNEL,
            "--arg",
            "zeros:100000",
            "--arg",
            "u32:0",
            "--show",
            "0=u8:100000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ptxsim binary runs");
    let mut first = [0u8; 16];
    let mut pipe = child.stdout.take().expect("piped stdout");
    pipe.read_exact(&mut first)
        .expect("the start of the output");
    drop(pipe);
    let output = child.wait_with_output().expect("ptxsim ends");
    assert_no_panic(&output, "closed pipe");
    // No message: the reader asked for no more. The status is that of an I/O error.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
}

// --- 2. Inputs without end -----------------------------------------------------------------

#[test]
fn endless_inputs_stop_at_the_size_limit() {
    let Some(zero) = zero() else {
        return;
    };
    let dir = temp("zero");
    let a = dir.join("a.jsonl");
    write_trace(&a);
    let buffer = format!("buf:{zero}");
    let cases: Vec<Vec<&str>> = vec![
        vec!["check", zero],
        vec!["run", zero],
        vec!["debug", zero],
        vec!["run", KERNEL, "--arg", &buffer, "--arg", "u32:0"],
        vec!["trace-diff", text(&a), zero],
        vec!["trace-diff", zero, text(&a)],
        vec![
            "run", KERNEL, "--arg", "zeros:8", "--arg", "u32:0", "--expect", zero,
        ],
        vec![
            "debug", KERNEL, "--arg", "zeros:8", "--arg", "u32:0", "--script", zero,
        ],
    ];
    for args in &cases {
        let mut all = vec!["--max-input-bytes", "100000"];
        all.extend(args);
        let output = run(&all);
        assert_no_panic(&output, &format!("{args:?}"));
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        let message = stderr(&output);
        assert!(
            message.contains("the input size limit (raise it with --max-input-bytes)")
                || message.contains("the input is not a list of debugger commands"),
            "{args:?}: {message}"
        );
    }
}

#[test]
fn a_debugger_script_longer_than_the_limit_is_refused() {
    // Short lines, but more of them than the limit allows: the script is refused as a whole.
    let dir = temp("script");
    let script = dir.join("script");
    std::fs::write(&script, "# a comment line\n".repeat(10_000)).expect("script");
    let args = [
        "--max-input-bytes",
        "100000",
        "debug",
        KERNEL,
        "--arg",
        "zeros:8",
        "--arg",
        "u32:0",
        "--script",
        text(&script),
    ];
    let output = run(&args);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("larger than 100000 bytes, the input size limit"),
        "{}",
        stderr(&output)
    );
    // Under the default limit the same script (170,000 bytes) runs to its end.
    let output = run(&args[2..]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn the_size_limit_is_documented() {
    let output = run(&["--help"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        stdout(&output).contains("--max-input-bytes"),
        "{}",
        stdout(&output)
    );
}
