//! Data-driven executor tests: every `tests/exec/*.ptx` is run, its annotations asserted, and
//! its final state and trace snapshotted.
//!
//! Annotations (comments in the file, one per line):
//!
//! * `// entry: NAME` — the kernel to run (default: the only one);
//! * `// max-steps: N` — the fuel (default 1000);
//! * `// expect-status: exited|trapped|out_of_fuel` (an unsupported instruction traps);
//! * `// expect: REG = 0x...` — a register's final value in the JSON spelling. The derivation of
//!   each expected value, from the spec text, is written in the comments above it;
//! * `// expect-error: TEXT` — the trap message contains TEXT;
//! * `// expect-line: N` — the line of the trap (or of the unsupported instruction).

use std::path::Path;

use ptxsim_exec::{Machine, report};

struct Expectations {
    entry: Option<String>,
    max_steps: u64,
    status: Option<String>,
    registers: Vec<(String, String, usize)>,
    error: Option<String>,
    line: Option<u32>,
}

fn expectations(source: &str) -> Expectations {
    let mut out = Expectations {
        entry: None,
        max_steps: 1000,
        status: None,
        registers: Vec::new(),
        error: None,
        line: None,
    };
    for (number, line) in source.lines().enumerate() {
        let Some(comment) = line.trim().strip_prefix("//") else {
            continue;
        };
        let comment = comment.trim();
        if let Some(rest) = comment.strip_prefix("entry:") {
            out.entry = Some(rest.trim().to_string());
        } else if let Some(rest) = comment.strip_prefix("max-steps:") {
            out.max_steps = rest.trim().parse().expect("max-steps is a number");
        } else if let Some(rest) = comment.strip_prefix("expect-status:") {
            out.status = Some(rest.trim().to_string());
        } else if let Some(rest) = comment.strip_prefix("expect-error:") {
            out.error = Some(rest.trim().to_string());
        } else if let Some(rest) = comment.strip_prefix("expect-line:") {
            out.line = Some(rest.trim().parse().expect("expect-line is a number"));
        } else if let Some(rest) = comment.strip_prefix("expect:") {
            let (register, value) = rest.split_once('=').expect("expect: REG = VALUE");
            out.registers.push((
                register.trim().to_string(),
                value.trim().to_string(),
                number + 1,
            ));
        }
    }
    out
}

/// Runs one file; returns the JSON state (exactly as `ptxsim run --format json` prints it), the
/// text table and the trace.
fn run_file(path: &Path) -> (String, String, String) {
    let source = std::fs::read_to_string(path).expect("readable test file");
    let expect = expectations(&source);
    let program = ptxsim_exec::load(&source, expect.entry.as_deref())
        .unwrap_or_else(|error| panic!("{}: {error:?}", path.display()));
    let mut machine = Machine::new(&program, expect.max_steps);
    let mut trace = String::new();
    let mut sink = |line: &str| {
        trace.push_str(line);
        trace.push('\n');
    };
    let result = ptxsim_exec::run(&mut machine, Some(&mut sink));
    let json = report::state_json(
        &program,
        &result.registers,
        result.steps,
        result.outcome.as_ref(),
    );
    let state: serde_json::Value = serde_json::from_str(&json).expect("state is JSON");
    let name = path.display();
    if let Some(status) = &expect.status {
        assert_eq!(state["status"], status.as_str(), "{name}: status");
    }
    assert!(
        !expect.registers.is_empty() || expect.status.is_some(),
        "{name}: no expectations"
    );
    for (register, value, line) in &expect.registers {
        assert_eq!(
            state["registers"][register.as_str()],
            value.as_str(),
            "{name}:{line}: {register}"
        );
    }
    if let Some(text) = &expect.error {
        let message = state["trap"]["message"].as_str().unwrap_or("");
        assert!(message.contains(text.as_str()), "{name}: error `{message}`");
    }
    if let Some(line) = expect.line {
        assert_eq!(
            state["trap"]["line"],
            serde_json::json!(line),
            "{name}: line"
        );
    }
    let table = report::state_text(
        &program,
        &result.registers,
        result.steps,
        result.outcome.as_ref(),
    );
    (json, table, trace)
}

#[test]
fn exec_files() {
    insta::glob!("../../../../tests/exec", "*.ptx", |path| {
        let (state, table, trace) = run_file(path);
        insta::assert_snapshot!("state", state);
        insta::assert_snapshot!("table", table);
        insta::assert_snapshot!("trace", trace);
    });
}

#[test]
fn traces_are_byte_identical_across_runs() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/exec/spec_cvt_examples.ptx");
    assert_eq!(run_file(&path), run_file(&path));
}
