//! Reliability of the command line on hostile inputs and outputs (issue "Reliability: bounded
//! memory and time on any input, no output lost"): outputs that cannot be written, inputs
//! without end, outputs of failed runs, traces, launch limits. Every expectation is an exit
//! status, a message or a count that follows from the rules, never a timing.
//!
//! The kernel of `tests/launch/faults.ptx` stores each thread's global index into `out[i]`;
//! `mode` 1 misaligns the store (a trap), 3 loops forever (out of steps).

mod common;

use std::fs::File;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::TempPath;

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

/// A fresh temporary directory `name` for one test, removed when the result is dropped.
fn temp(name: &str) -> TempPath {
    let dir = TempPath::new("robustness", name);
    std::fs::create_dir(&dir).expect("temporary directory");
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
                || message.contains("the input is not a list of debugger commands")
                || message.contains("not text: a NUL byte at offset 0"),
            "{args:?}: {message}"
        );
    }
}

#[test]
fn endless_inputs_are_refused_under_a_4_gb_address_space_limit() {
    // With the default 1 GiB limit and `ulimit -v 4000000`: a buffer from `/dev/zero` used to
    // grow to twice the limit and abort ("memory allocation of 2147483648 bytes failed"); a
    // module from `/dev/zero` used to be read to the limit before the checker saw it. Now the
    // buffer stops at limit + 1 byte and the module at its first NUL byte, each with a message
    // and exit status 2.
    let (Some(zero), true) = (zero(), Path::new("/bin/sh").exists()) else {
        return;
    };
    let cases = [
        (format!("check {zero}"), "not text: a NUL byte at offset 0"),
        (format!("run {zero}"), "not text: a NUL byte at offset 0"),
        (format!("debug {zero}"), "not text: a NUL byte at offset 0"),
        (
            format!("run tests/launch/faults.ptx --arg buf:{zero} --arg u32:0"),
            "larger than 1073741824 bytes, the input size limit (raise it with --max-input-bytes)",
        ),
    ];
    for (args, expected) in cases {
        let output = Command::new("/bin/sh")
            .current_dir(repo())
            .args([
                "-c",
                &format!("ulimit -v 4000000 && exec \"$0\" {args}"),
                env!("CARGO_BIN_EXE_ptxsim"),
            ])
            .output()
            .expect("sh runs");
        assert_no_panic(&output, &args);
        assert_eq!(output.status.code(), Some(2), "{args}: {}", stderr(&output));
        assert_eq!(
            stderr(&output),
            format!("error: cannot read `{zero}`: {expected}\n"),
            "{args}"
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

// --- 3. Outputs of failed runs ---------------------------------------------------------------

#[test]
fn a_run_out_of_steps_writes_partial_outputs_and_blesses_nothing() {
    let dir = temp("partial");
    let out = dir.join("out.bin");
    let golden = dir.join("golden.jsonl");
    std::fs::write(&out, b"earlier").expect("an earlier output");
    std::fs::write(&golden, b"earlier").expect("an earlier golden trace");
    let out_arg = format!("0={}", text(&out));
    let output = run(&[
        "run",
        KERNEL,
        "--arg",
        "zeros:8",
        "--arg",
        "u32:3",
        "--max-steps",
        "50",
        "--out",
        &out_arg,
        "--expect",
        text(&golden),
        "--bless",
    ]);
    // Mode 3 loops forever: out of steps, exit 1; nothing the run made replaces a file.
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("not blessed"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(&out).expect("out"), b"earlier");
    assert_eq!(std::fs::read(&golden).expect("golden"), b"earlier");
    // The buffer (8 zero bytes: the loop comes before the store) is in out.bin.partial.
    let partial = dir.join("out.bin.partial");
    assert_eq!(std::fs::read(&partial).expect("partial"), vec![0; 8]);
    // No temporary file is left behind.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(names, ["golden.jsonl", "out.bin", "out.bin.partial"]);
}

#[test]
fn a_trace_that_cannot_be_written_leaves_the_earlier_one() {
    let dir = temp("unwritable");
    // The trace's directory does not exist: an I/O error before the run, exit 2.
    let missing = dir.join("no-such-dir").join("t.jsonl");
    let output = run(&[
        "run",
        KERNEL,
        "--arg",
        "zeros:8",
        "--arg",
        "u32:0",
        "--trace",
        text(&missing),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("cannot create"),
        "{}",
        stderr(&output)
    );
    // An earlier trace stays whole while a new one is written, and is replaced at the end.
    let path = dir.join("t.jsonl");
    std::fs::write(&path, "earlier\n").expect("an earlier trace");
    let trace = write_trace(&path);
    assert!(trace.starts_with("{\"ptxsim_trace\":1,"), "{trace}");
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 1);
}

#[test]
fn the_trace_of_a_failed_run_goes_to_partial() {
    let dir = temp("trace-partial");
    let path = dir.join("t.jsonl");
    std::fs::write(&path, "earlier\n").expect("an earlier trace");
    let output = run(&[
        "run",
        KERNEL,
        "--arg",
        "zeros:8",
        "--arg",
        "u32:1",
        "--trace",
        text(&path),
    ]);
    // Mode 1 stores misaligned: a trap, exit 1. The earlier trace stays; the run's is in
    // t.jsonl.partial, whole, with its end line.
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(&path).expect("t.jsonl"),
        "earlier\n"
    );
    let partial = std::fs::read_to_string(dir.join("t.jsonl.partial")).expect("partial");
    assert!(partial.starts_with("{\"ptxsim_trace\":1,"), "{partial}");
    assert!(
        partial.ends_with("{\"end\":\"trapped\",\"steps\":16}\n"),
        "{partial}"
    );
    assert!(
        stderr(&output).contains("t.jsonl.partial"),
        "{}",
        stderr(&output)
    );
}

// --- 4. Traces streamed ----------------------------------------------------------------------

/// Stores a trace of the looping kernel (mode 3) cut at `steps` steps in `path`. The run does
/// not exit normally, so ptxsim writes its trace to `PATH.partial` (as an `--out` buffer), and
/// that is moved to `path` here.
fn looping_trace(path: &Path, steps: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        KERNEL,
        "--arg",
        "zeros:8",
        "--arg",
        "u32:3",
        "--max-steps",
        steps,
    ];
    args.extend(extra);
    args.extend(["--trace", text(path)]);
    let output = run(&args);
    let partial = PathBuf::from(format!("{}.partial", text(path)));
    assert!(
        stderr(&output).contains(&format!("its trace is in `{}`", text(&partial))),
        "{}",
        stderr(&output)
    );
    std::fs::rename(&partial, path).expect("the trace is in PATH.partial");
    output
}

#[test]
fn a_long_run_is_compared_with_a_short_stored_trace_by_counting() {
    // --expect keeps only one step more than the stored trace has; the rest of a long run is
    // counted, so the report still gives this run's whole length.
    let dir = temp("expect");
    let stored = dir.join("stored.jsonl");
    let output = looping_trace(&stored, "20", &[]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "out of steps: {}",
        stderr(&output)
    );
    let output = run(&[
        "run",
        KERNEL,
        "--arg",
        "zeros:8",
        "--arg",
        "u32:3",
        "--max-steps",
        "100000",
        "--expect",
        text(&stored),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = stderr(&output);
    assert!(
        report.contains("has 20 step records and this run 100000"),
        "{report}"
    );
    // Step 20 (the 21st record, line 22 after the header) is where this run goes on.
    assert!(
        report.contains("this run:22 goes on with thread 0"),
        "{report}"
    );
}

#[test]
fn a_filtered_trace_holds_only_the_kept_records() {
    // The loop writes %p3 at every setp (every other step); `reg=%r0` keeps only the writes of
    // %r0: the kernel writes it twice (mov, mad) before the loop and never in it. A trace
    // filtered while it is recorded has exactly those records, whatever the run's length.
    let dir = temp("filter");
    let path = dir.join("t.jsonl");
    let output = looping_trace(&path, "100000", &["--trace-filter", "reg=%r0"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let trace = std::fs::read_to_string(&path).expect("trace");
    let lines: Vec<&str> = trace.lines().collect();
    assert_eq!(lines.len(), 4, "{trace}");
    assert!(lines[1].contains("mov.u32 %r0, %ctaid.x"), "{}", lines[1]);
    assert!(lines[2].contains("mad.lo.s32 %r0"), "{}", lines[2]);
    assert_eq!(lines[3], "{\"end\":\"out_of_fuel\",\"steps\":100000}");
}

#[test]
fn show_reads_only_the_elements_it_shows() {
    // A 1 GB buffer under a 1.7 GB address-space limit: copying the buffer to show 4 bytes
    // (as `--show` did) needs 2 GB and fails; reading the 4 bytes does not.
    if !Path::new("/bin/sh").exists() {
        return;
    }
    let output = Command::new("/bin/sh")
        .current_dir(repo())
        .args([
            "-c",
            "ulimit -v 1700000 && exec \"$0\" run tests/launch/faults.ptx --arg zeros:1000000000 \
             --arg u32:0 --show 0=u32:2 --no-registers --jobs 1",
            env!("CARGO_BIN_EXE_ptxsim"),
        ])
        .output()
        .expect("sh runs");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Thread 0 stored its index, 0, in word 0; word 1 is untouched.
    assert!(
        stdout(&output)
            .ends_with("argument 0 as u32:\n  [0] 0x00000000 = 0\n  [1] 0x00000000 = 0\n"),
        "{}",
        stdout(&output)
    );
}

// --- 6. Smaller ----------------------------------------------------------------------------

/// Every `<instruction>:LINE:COLUMN` in `message`.
fn instruction_positions(message: &str) -> Vec<(usize, usize)> {
    message
        .split("<instruction>:")
        .skip(1)
        .map(|rest| {
            let mut numbers = rest.splitn(3, |c: char| !c.is_ascii_digit());
            let line = numbers.next().and_then(|n| n.parse().ok()).expect("a line");
            let column = numbers
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a column");
            (line, column)
        })
        .collect()
}

#[test]
fn eval_positions_are_in_the_instruction_as_written() {
    // Syntax errors, errors found by the checker, and text that would close eval's hidden
    // kernel: every position is inside the text given (the `;` eval adds counts as part of it).
    let long = format!("{}add.s32 d, a, zz", "add.s32 d, a, b;\n".repeat(3000));
    for instruction in [
        "add.s32 d, a, b; }",
        "}{",
        "add.s32 d, a b",
        "add.s32 d, a, b, c",
        "add.s32 d, a, b; } .global .u32 g;",
        long.as_str(),
    ] {
        let output = run(&["eval", instruction, "a=1", "b=2"]);
        assert_eq!(output.status.code(), Some(1), "{instruction}");
        let message = stderr(&output);
        let positions = instruction_positions(&message);
        assert!(!positions.is_empty(), "{instruction}: {message}");
        let text = format!("{instruction};");
        let lines: Vec<&str> = text.lines().collect();
        for (line, column) in positions {
            assert!(line >= 1 && line <= lines.len(), "{instruction}: {message}");
            assert!(
                column <= lines[line - 1].len() + 1,
                "{instruction}: {message}"
            );
        }
    }
    // The last line of the long text holds its error.
    let output = run(&["eval", &long, "a=1", "b=2"]);
    assert!(
        stderr(&output).contains("<instruction>:3001:"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn eval_refuses_text_that_declares_a_kernel() {
    let output = run(&[
        "eval",
        "add.s32 d, a, b; } .visible .entry z() { ret;",
        "a=1",
        "b=2",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("takes instructions, not declarations or functions"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_trace_naming_a_thread_outside_its_launch_is_refused_at_its_line() {
    let dir = temp("thread");
    let a = dir.join("a.jsonl");
    let trace = write_trace(&a);
    // The launch has 4 threads (0-3); one record names thread 99999.
    let line = trace
        .lines()
        .position(|l| l.contains("\"thread\":3,"))
        .expect("a record of thread 3")
        + 1;
    let b = dir.join("b.jsonl");
    std::fs::write(&b, trace.replacen("\"thread\":3,", "\"thread\":99999,", 1)).expect("B");
    for (first, second) in [(&a, &b), (&b, &a)] {
        let output = run(&["trace-diff", text(first), text(second)]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains(&format!("b.jsonl:{line}: thread 99999")),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn a_module_of_many_kernels_lists_a_bounded_number() {
    let dir = temp("entries");
    let module = dir.join("many.ptx");
    let mut source = String::from(".version 9.0\n.target sm_90\n.address_size 64\n");
    for index in 0..5000 {
        source.push_str(&format!(".visible .entry k{index}() {{ ret; }}\n"));
    }
    std::fs::write(&module, source).expect("module");
    let output = run(&["run", text(&module)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("--entry"), "{message}");
    assert!(message.contains("more"), "{message}");
    // 5,000 names would take about 35,000 bytes.
    assert!(message.len() < 2_000, "{} bytes: {message}", message.len());
}

// --- 5. Launch limits ------------------------------------------------------------------------

#[test]
fn launches_beyond_cuda_limits_are_usage_errors() {
    // CUDA's limits (compute capability 5.0 and later): grid x ≤ 2^31-1, y and z ≤ 65535;
    // block x and y ≤ 1024, z ≤ 64, 1024 threads in all. Beyond them: exit 2, before the
    // module is read (the file named here does not exist).
    for (flag, value, message) in [
        ("--grid", "2147483648", "at most 2147483647 blocks along x"),
        ("--grid", "1,65536", "at most 65535 blocks along y"),
        ("--grid", "1,1,65536", "at most 65535 blocks along z"),
        ("--block", "1025", "at most 1024 threads along x"),
        ("--block", "1,1025", "at most 1024 threads along y"),
        ("--block", "1,1,65", "at most 64 threads along z"),
        (
            "--block",
            "32,32,2",
            "at most 1024 threads; this block has 2048",
        ),
    ] {
        for command in ["run", "debug"] {
            let output = run(&[command, "no-such-module.ptx", flag, value]);
            assert_eq!(output.status.code(), Some(2), "{command} {flag} {value}");
            assert!(
                stderr(&output).contains(message),
                "{command} {flag} {value}: {}",
                stderr(&output)
            );
        }
    }
    // The largest of each is accepted (here the file is what is missing: exit 2, cannot read).
    for (flag, value) in [("--grid", "2147483647,65535,65535"), ("--block", "1024")] {
        let output = run(&["run", "no-such-module.ptx", flag, value]);
        assert!(
            stderr(&output).contains("cannot read"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn an_output_error_after_the_run_leaves_the_golden_trace_and_no_temporary_file() {
    // The run exits, but its --out path cannot be written: exit 2, and the trace --bless was
    // writing is not put in place.
    let dir = temp("late-error");
    let golden = dir.join("golden.jsonl");
    std::fs::write(&golden, b"earlier").expect("an earlier golden trace");
    let out = format!("0={}", text(&dir.join("no-such-dir").join("out.bin")));
    let output = run(&[
        "run",
        KERNEL,
        "--arg",
        "zeros:8",
        "--arg",
        "u32:0",
        "--out",
        &out,
        "--expect",
        text(&golden),
        "--bless",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("cannot write"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(&golden).expect("golden"), b"earlier");
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 1);
}
