//! Issue 23's reproducers on the `ptxsim` binary, checker and executor side: each gives a
//! bounded, clear outcome (exit status, message, output counted in lines and bytes; no
//! wall-clock assertion). Expected limits and messages come from ptxas 13.5 (quoted in
//! `crates/check/tests/limits.rs`) or from the issue.

mod common;

use std::process::{Command, Output};

use common::TempPath;

/// A module for sm_90 with `body`.
fn module(body: &str) -> String {
    format!(".version 8.7\n.target sm_90\n.address_size 64\n{body}\n")
}

/// `ptxsim ARGS... FILE` with `source` (raw bytes) written to a temporary file named `name`.
fn ptxsim_on(name: &str, source: &[u8], args: &[&str]) -> Output {
    let path = TempPath::new("limits", name);
    std::fs::write(&path, source).expect("temporary file");
    Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(args)
        .arg(&path)
        .output()
        .expect("the ptxsim binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The number of diagnostics in `check --format json` output.
fn json_count(output: &Output) -> usize {
    String::from_utf8_lossy(&output.stdout)
        .matches("\"severity\"")
        .count()
}

/// `run` of N nested `.entry k() {` on one line (the issue: 10,000 took 41.8 s and 2 GB): the
/// check errors are printed as by `check`, at most 1,000 and a line that counts the rest, and
/// the output does not grow with N.
#[test]
fn run_of_ten_thousand_nested_entries_prints_a_bounded_report() {
    let mut sizes = Vec::new();
    for levels in [5_000, 10_000] {
        let source = module(&".entry k() {".repeat(levels));
        let output = ptxsim_on(&format!("nested{levels}.ptx"), source.as_bytes(), &["run"]);
        assert_eq!(output.status.code(), Some(1));
        let text = stderr(&output);
        assert_eq!(text.matches("error[").count(), 1_000);
        assert!(
            text.contains(&format!("... and {} more errors", levels - 999)),
            "{:?}",
            text.lines().last()
        );
        // Each diagnostic shows a window of the 12·N-byte line, not the line.
        assert!(text.lines().all(|line| line.chars().count() <= 300));
        sizes.push(text.len());
    }
    // The same 1,000 diagnostics: the bytes differ only by the numbers in them.
    assert!(sizes[1] * 10 <= sizes[0] * 11, "{sizes:?}");
    assert!(sizes[1] < 1_000_000, "{sizes:?}");
}

/// A 48 KB line with 4,000 register errors (2,000 `add.u32 %r1, %x, %y;`; the issue: over
/// 60 s): every error is found, each is printed in a few lines of bounded width, and twice
/// the input gives twice the output.
#[test]
fn a_long_line_of_register_errors_costs_linear_output() {
    let line = |count: usize| {
        module(&format!(
            ".entry k() {{ .reg .u32 %r1; {}}}",
            "add.u32 %r1, %x, %y; ".repeat(count)
        ))
    };
    let mut bytes = Vec::new();
    for count in [1_000, 2_000] {
        let source = line(count);
        let json = ptxsim_on(
            "registers.ptx",
            source.as_bytes(),
            &["check", "--format", "json"],
        );
        assert_eq!(json_count(&json), 2 * count);
        let text = ptxsim_on(
            "registers.ptx",
            source.as_bytes(),
            &["check", "--max-diagnostics", "0"],
        );
        assert_eq!(text.status.code(), Some(1));
        let text = stderr(&text);
        assert_eq!(text.matches("error[E0101]").count(), 2 * count);
        assert!(text.lines().all(|line| line.chars().count() <= 300));
        bytes.push(text.len());
    }
    assert!(bytes[1] * 10 <= bytes[0] * 22, "{bytes:?}");
}

/// 10,000 `1?` on one line (the issue: over 60 s): PTX has no `?:` operator, so each `?` is a
/// lexer error (P0001); all are found, 1,000 are printed, and the counts are linear.
#[test]
fn ten_thousand_question_marks_on_one_line() {
    for count in [5_000, 10_000] {
        let source = module(&format!(
            ".global .u32 g = {}1{};",
            "1?".repeat(count),
            ":1".repeat(count)
        ));
        let json = ptxsim_on(
            "ternary.ptx",
            source.as_bytes(),
            &["check", "--format", "json"],
        );
        let found = json_count(&json);
        assert!(
            (count..=2 * count + 10).contains(&found),
            "{found} diagnostics for {count}"
        );
        let text = ptxsim_on("ternary.ptx", source.as_bytes(), &["check"]);
        assert_eq!(text.status.code(), Some(1));
        let text = stderr(&text);
        assert_eq!(text.matches("error[").count(), 1_000);
        assert!(text.len() < 1_000_000, "{} bytes", text.len());
    }
}

/// Three `.global .b8 g[4000000000]` (the issue: 6.3 GB, then SIGABRT under a 4 GB cap): the
/// launch is refused by the default 4 GiB memory limit before anything is allocated.
#[test]
fn three_four_gigabyte_globals_are_refused() {
    let source = module(
        ".global .b8 g[4000000000];\n.global .b8 g2[4000000000];\n\
         .global .b8 g3[4000000000];\n.entry k() { ret; }",
    );
    let output = ptxsim_on("globals.ptx", source.as_bytes(), &["run"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(
        text.contains("the launch needs 12000000128 bytes of simulated memory, more than the memory limit of 4294967296 bytes"),
        "{text}"
    );
}

/// A `.param .b8 a[1000000000]` call argument (the issue: 1 GB per thread): 4 threads need
/// 8 GB and are refused.
#[test]
fn a_gigabyte_call_argument_on_four_threads_is_refused() {
    let source = module(
        ".func f(.param .b8 a[1000000000]) { ret; }\n\
         .entry k() { .param .b8 x[1000000000]; call f, (x); ret; }",
    );
    let output = ptxsim_on("param.ptx", source.as_bytes(), &["run", "--block", "4"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("more than the memory limit"));
}

/// `--memory-limit` takes bytes or K/M/G/T; a launch over it exits 1 (before anything runs),
/// under it runs; a bad value is a usage error (2). `run` and `debug` alike (`debug` used the
/// 4 GiB default only).
#[test]
fn memory_limit_option() {
    let source = module(".global .b8 g[2000000];\n.entry k() { ret; }");
    for (command, extra) in [("run", &[][..]), ("debug", &["--script", "/dev/null"][..])] {
        let with_limit = |limit: &str| {
            let mut args = vec![command, "--memory-limit", limit];
            args.extend_from_slice(extra);
            ptxsim_on("limit.ptx", source.as_bytes(), &args)
        };
        let over = with_limit("1M");
        assert_eq!(over.status.code(), Some(1), "{command}: {}", stderr(&over));
        assert!(
            stderr(&over).contains("more than the memory limit of 1048576 bytes"),
            "{command}: {}",
            stderr(&over)
        );
        let under = with_limit("3000000");
        assert_eq!(
            under.status.code(),
            Some(0),
            "{command}: {}",
            stderr(&under)
        );
        assert_eq!(with_limit("12X").status.code(), Some(2), "{command}");
    }
}

/// `sh[9223372036854775807]` passed `check` and was cut to 1 GiB: now E0205 (ptxas's limit
/// of 48 KiB of static shared memory per kernel), for `check` and `run` alike.
#[test]
fn an_eight_exbibyte_shared_array_is_a_check_error() {
    let source = module(".entry k() { .shared .b8 sh[9223372036854775807]; ret; }");
    for command in ["check", "run"] {
        let output = ptxsim_on("shared.ptx", source.as_bytes(), &[command]);
        assert_eq!(output.status.code(), Some(1), "{command}");
        assert!(
            stderr(&output).contains(
                "error[E0205]: entry function `k` uses too much shared data \
                 (0x7fffffffffffffff bytes, 0xc000 max)"
            ),
            "{command}: {}",
            stderr(&output)
        );
    }
}

/// `.u32 tab[2] = {1,2,3}` (ptxas: "Greater number of elements in array initializer") is an
/// error for `check` and `run`.
#[test]
fn more_initializers_than_elements_do_not_run() {
    let source = module(".global .u32 tab[2] = {1,2,3};\n.entry k() { ret; }");
    for command in ["check", "run"] {
        let output = ptxsim_on("initializer.ptx", source.as_bytes(), &[command]);
        assert_eq!(output.status.code(), Some(1), "{command}");
        assert!(stderr(&output).contains("error[E0204]"), "{command}");
    }
}

/// Bare CR line endings: the error on the sixth line is reported on line 6.
#[test]
fn bare_carriage_returns_give_the_right_lines() {
    let source = b".version 8.7\r.target sm_90\r.address_size 64\r.entry k() {\r  .reg .u32 %r1;\r  mov.u32 %r1, %x;\r  ret;\r}\r";
    let output = ptxsim_on("cr.ptx", source, &["check", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let json = String::from_utf8_lossy(&output.stdout);
    assert!(json.contains("\"line\":6,\"column\":16"), "{json}");
}
