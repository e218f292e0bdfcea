//! Traces as regression snapshots: byte-identical traces, `ptxsim trace-diff`, `run --expect`
//! and `--bless`, `--trace-filter`, the text form, and the exit codes (0 equal, 1 different,
//! 2 usage or I/O errors).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::TempPath;
use ptxsim_trace::{self as trace, Format, Line};

const SAMPLE: &str = "ptx-samples/nvcc/fp16_convert.sm_90.ptx";
/// The line of `mul.wide.s32 %rd4, %r1, 4;` in `f32_to_f16_rmodes` of [`SAMPLE`].
const CHANGED_LINE: u32 = 39;

fn repo() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).to_path_buf()
}

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .current_dir(repo())
        .args(args)
        .output()
        .expect("the ptxsim binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh temporary directory `name` for one test, removed when the result is dropped.
fn temp(name: &str) -> TempPath {
    let dir = TempPath::new("trace", name);
    std::fs::create_dir(&dir).expect("temp dir");
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// `run FILE` of `f32_to_f16_rmodes` on 2 CTAs of 4 threads (n = 6: the last two threads of
/// CTA 1 skip the body), with `extra` options.
fn run_sample(file: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        file,
        "--entry",
        "f32_to_f16_rmodes",
        "--grid",
        "2",
        "--block",
        "4",
        "--arg",
        "buf:tests/kernels/common/f32.bin",
        "--arg",
        "zeros:98304",
        "--arg",
        "s32:6",
        "--no-registers",
    ];
    args.extend_from_slice(extra);
    ptxsim(&args)
}

/// Writes the sample's trace (options `extra`) to `out` and returns its bytes.
fn trace_of(file: &str, out: &Path, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["--trace", path(out)];
    args.extend_from_slice(extra);
    let output = run_sample(file, &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    std::fs::read(out).expect("trace written")
}

/// A copy of the sample with the immediate of one instruction changed (`4` → `8`).
fn changed_sample(dir: &Path) -> PathBuf {
    let source = std::fs::read_to_string(repo().join(SAMPLE)).expect("sample");
    let line = source
        .lines()
        .nth(CHANGED_LINE as usize - 1)
        .expect("the line");
    assert_eq!(line.trim(), "mul.wide.s32 \t%rd4, %r1, 4;");
    let changed: Vec<String> = source
        .lines()
        .enumerate()
        .map(|(index, l)| {
            if index + 1 == CHANGED_LINE as usize {
                l.replace("%r1, 4;", "%r1, 8;")
            } else {
                l.to_string()
            }
        })
        .collect();
    let file = dir.join("changed.ptx");
    std::fs::write(&file, changed.join("\n") + "\n").expect("write");
    file
}

#[test]
fn traces_are_byte_identical_across_runs_and_host_threads() {
    let dir = temp("identical");
    let one = trace_of(SAMPLE, &dir.join("a.jsonl"), &["--jobs", "1"]);
    let two = trace_of(SAMPLE, &dir.join("b.jsonl"), &["--jobs", "2"]);
    let again = trace_of(SAMPLE, &dir.join("c.jsonl"), &["--jobs", "2"]);
    assert_eq!(one, two, "--jobs 1 and --jobs 2 give the same trace");
    assert_eq!(two, again, "two runs give the same trace");
    let text = String::from_utf8(one).expect("UTF-8");
    let parsed = trace::parse(&text).expect("the trace parses");
    assert_eq!(parsed.header.threads, 8);
    // CTA order, then thread order inside a CTA; threads 6 and 7 (n = 6) leave early.
    let threads: Vec<u64> = parsed.steps.iter().map(|(_, s)| s.thread).collect();
    assert!(threads.windows(2).all(|w| w[0] <= w[1]), "{threads:?}");
    assert_eq!(
        parsed.steps.iter().filter(|(_, s)| s.thread == 7).count(),
        10
    );
    // Memory writes are in the trace: four f16 stores per thread of the six in range.
    let stores: usize = parsed.steps.iter().map(|(_, s)| s.memory.len()).sum();
    assert_eq!(stores, 6 * 4);
    let end = parsed.end.expect("an end line").1;
    assert_eq!(
        (end.status.as_str(), end.steps as usize),
        ("exited", parsed.steps.len())
    );
}

#[test]
fn a_changed_immediate_is_reported_at_its_line() {
    let dir = temp("immediate");
    let changed = changed_sample(&dir);
    let expected = dir.join("expected.jsonl");
    let actual = dir.join("actual.jsonl");
    trace_of(SAMPLE, &expected, &[]);
    trace_of(path(&changed), &actual, &[]);

    let output = ptxsim(&["trace-diff", path(&expected), path(&actual)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = stdout(&output);
    // The instruction differs from thread 0's step 10 on (record 11, line 12); thread 0
    // multiplies 0 by 4 or 8 alike, so the first value differs in thread 1, at its step 10
    // (record 37, line 38: 26 steps of thread 0, then 10 of thread 1).
    let lines: Vec<&str> = report.lines().collect();
    assert!(
        lines[0].contains("thread 0 (cta 0,0,0 tid 0,0,0), step 10, source line 39"),
        "{report}"
    );
    assert!(lines[0].contains("expected.jsonl:12"), "{report}");
    assert!(
        report.contains("A: step 10 pc 10 line 39: mul.wide.s32 %rd4, %r1, 4"),
        "{report}"
    );
    assert!(
        report.contains("B: step 10 pc 10 line 39: mul.wide.s32 %rd4, %r1, 8"),
        "{report}"
    );
    assert!(
        report.contains("instruction: A line 39 `mul.wide.s32 %rd4, %r1, 4` vs B line 39 `mul.wide.s32 %rd4, %r1, 8`"),
        "{report}"
    );
    assert!(
        report.contains("the first value that differs is at"),
        "{report}"
    );
    assert!(report.contains("expected.jsonl:38"), "{report}");
    assert!(
        report.contains("thread 1 (cta 0,0,0 tid 1,0,0), step 10, source line 39"),
        "{report}"
    );
    assert!(
        report.contains("%rd4: A 0x0000000000000004 (4) vs B 0x0000000000000008 (8)"),
        "{report}"
    );
    // Three steps of the same thread as context.
    let context: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("before it"))
        .skip(1)
        .collect();
    assert_eq!(context.len(), 3, "{report}");
    assert!(
        context[2].contains("cvta.to.global.u64 %rd3, %rd1"),
        "{report}"
    );

    // --expect fails with the same report on stderr, and the run's state still prints.
    let output = run_sample(path(&changed), &["--expect", path(&expected)]);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(message.contains("source line 39"), "{message}");
    assert!(
        message.contains("%rd4: A 0x0000000000000004 (4) vs B 0x0000000000000008 (8)"),
        "{message}"
    );
    assert!(message.contains("--bless"), "{message}");
    assert!(stdout(&output).contains("entry f32_to_f16_rmodes: exited"));

    // The unchanged kernel matches.
    let output = run_sample(SAMPLE, &["--expect", path(&expected)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn bless_writes_the_trace_and_then_it_matches() {
    let dir = temp("bless");
    let changed = changed_sample(&dir);
    let stored = dir.join("stored.jsonl");
    // A missing stored trace is an I/O error without --bless ...
    let output = run_sample(SAMPLE, &["--expect", path(&stored)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--bless"), "{}", stderr(&output));
    // ... and created with it.
    let output = run_sample(SAMPLE, &["--expect", path(&stored), "--bless"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let reference = trace_of(SAMPLE, &dir.join("reference.jsonl"), &[]);
    assert_eq!(std::fs::read(&stored).expect("blessed"), reference);
    // Blessing a changed kernel rewrites the stored trace; then it matches.
    let output = run_sample(path(&changed), &["--expect", path(&stored), "--bless"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_ne!(std::fs::read(&stored).expect("blessed"), reference);
    let output = run_sample(path(&changed), &["--expect", path(&stored)]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = run_sample(SAMPLE, &["--expect", path(&stored)]);
    assert_eq!(output.status.code(), Some(1));
    // A stored text trace stays text when blessed again.
    let text = dir.join("stored.trace");
    let output = run_sample(
        SAMPLE,
        &["--expect", path(&text), "--bless", "--trace-format", "text"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = run_sample(path(&changed), &["--expect", path(&text), "--bless"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let contents = std::fs::read_to_string(&text).expect("text trace");
    assert!(contents.starts_with("ptxsim_trace 1 "), "{contents}");
}

#[test]
fn filters_keep_the_chosen_threads_and_registers() {
    let dir = temp("filter");
    let out = dir.join("t.jsonl");
    let text = String::from_utf8(trace_of(SAMPLE, &out, &["--trace-filter", "1"])).unwrap();
    let parsed = trace::parse(&text).unwrap();
    assert_eq!(parsed.header.filter.as_deref(), Some("1"));
    assert_eq!(parsed.steps.len(), 26);
    assert!(parsed.steps.iter().all(|(_, s)| s.thread == 1));

    // One thread by CTA and tid (thread 1 × 4 + 1 = 5), only its `%f1` writes.
    let text = String::from_utf8(trace_of(
        SAMPLE,
        &out,
        &["--trace-filter", "cta=1/tid=1; reg=%f1"],
    ))
    .unwrap();
    let parsed = trace::parse(&text).unwrap();
    assert_eq!(
        parsed.header.filter.as_deref(),
        Some("cta=1,0,0/tid=1,0,0;reg=%f1")
    );
    let steps: Vec<_> = parsed.steps.iter().map(|(_, s)| s).collect();
    assert_eq!(steps.len(), 1, "{text}");
    assert_eq!(steps[0].thread, 5);
    assert_eq!(steps[0].text, "ld.global.f32 %f1, [%rd5]");
    // The end line still counts every step of the launch.
    assert_eq!(parsed.end.unwrap().1.steps, 6 * 26 + 2 * 10);

    // Only memory writes of every tid 0; two filters add up.
    let text = String::from_utf8(trace_of(
        SAMPLE,
        &out,
        &["--trace-filter", "tid=0", "--trace-filter", "mem"],
    ))
    .unwrap();
    let parsed = trace::parse(&text).unwrap();
    assert_eq!(parsed.steps.len(), 8);
    assert!(
        parsed
            .steps
            .iter()
            .all(|(_, s)| s.writes.is_empty() && s.memory.len() == 1)
    );
    assert_eq!(
        parsed
            .steps
            .iter()
            .map(|(_, s)| s.thread)
            .collect::<Vec<_>>(),
        [0, 0, 0, 0, 4, 4, 4, 4]
    );

    // Bad filters are usage errors.
    for filter in ["reg=%nope", "cta=2", "99", "tid=x", "3-1"] {
        let output = run_sample(SAMPLE, &["--trace", path(&out), "--trace-filter", filter]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{filter}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("--trace-filter"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn the_text_form_round_trips_and_equals_the_json_form() {
    let dir = temp("text");
    let json_path = dir.join("t.jsonl");
    let text_path = dir.join("t.trace");
    let json = String::from_utf8(trace_of(SAMPLE, &json_path, &[])).unwrap();
    let text =
        String::from_utf8(trace_of(SAMPLE, &text_path, &["--trace-format", "text"])).unwrap();
    assert!(text.starts_with("ptxsim_trace 1 entry=f32_to_f16_rmodes threads=8 grid=2,1,1 block=4,1,1 registers=%p0:pred,"));
    assert!(
        text.contains(
            "\nt1 s18 pc18 L50 global[0x7f000000c108]=0x8000 | st.global.u16 [%rd8], %rs1\n"
        ),
        "{text}"
    );
    assert!(text.ends_with("\nend exited steps=176\n"), "{text}");

    // Parsing and printing again gives the same bytes, in both forms; the two forms parse to
    // the same records.
    let from_text = trace::parse(&text).expect("text parses");
    let from_json = trace::parse(&json).expect("JSON parses");
    let print = |t: &trace::Trace, format: Format| -> String {
        std::iter::once(Line::Header(t.header.clone()))
            .chain(t.steps.iter().map(|(_, s)| Line::Step(s.clone())))
            .chain(t.end.iter().map(|(_, e)| Line::End(e.clone())))
            .map(|line| format.write(&line) + "\n")
            .collect()
    };
    assert_eq!(print(&from_text, Format::Text), text);
    assert_eq!(print(&from_json, Format::Jsonl), json);
    assert_eq!(print(&from_text, Format::Jsonl), json);
    assert_eq!(from_text.header, from_json.header);
    assert_eq!(from_text.steps, from_json.steps);

    // trace-diff compares across forms.
    let output = ptxsim(&["trace-diff", path(&text_path), path(&json_path)]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).is_empty());
}

#[test]
fn trace_diff_reports_headers_short_traces_and_ends() {
    let dir = temp("shapes");
    let a = dir.join("a.jsonl");
    trace_of(SAMPLE, &a, &[]);
    let json = std::fs::read_to_string(&a).unwrap();

    // A different launch shape: headers differ, steps are not compared.
    let b = dir.join("b.jsonl");
    let output = ptxsim(&[
        "run",
        SAMPLE,
        "--entry",
        "f32_to_f16_rmodes",
        "--block",
        "2",
        "--arg",
        "buf:tests/kernels/common/f32.bin",
        "--arg",
        "zeros:98304",
        "--arg",
        "s32:6",
        "--trace",
        path(&b),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = ptxsim(&["trace-diff", path(&a), path(&b)]);
    assert_eq!(output.status.code(), Some(1));
    let report = stdout(&output);
    assert!(report.contains("the headers differ"), "{report}");
    assert!(
        report.contains(
            "launch: A grid 2,1,1 block 4,1,1 (8 threads) vs B grid 1,1,1 block 2,1,1 (2 threads)"
        ),
        "{report}"
    );

    // A truncated trace: B stops after 5 lines.
    let short = dir.join("short.jsonl");
    let kept: String = json.lines().take(5).map(|l| format!("{l}\n")).collect();
    std::fs::write(&short, kept).unwrap();
    let output = ptxsim(&["trace-diff", path(&a), path(&short)]);
    assert_eq!(output.status.code(), Some(1));
    let report = stdout(&output);
    assert!(report.contains("has 4 step records and"), "{report}");
    assert!(
        report.contains("a.jsonl:6 goes on with thread 0"),
        "{report}"
    );
    assert!(report.contains("short.jsonl has no end line"), "{report}");

    // Only the end differs.
    let end = dir.join("end.jsonl");
    std::fs::write(
        &end,
        json.replace("{\"end\":\"exited\"", "{\"end\":\"trapped\""),
    )
    .unwrap();
    let output = ptxsim(&["trace-diff", path(&a), path(&end)]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("the runs end differently"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn exit_codes_and_located_errors() {
    let dir = temp("errors");
    let a = dir.join("a.jsonl");
    trace_of(SAMPLE, &a, &[]);
    // Equal: 0, silent.
    let output = ptxsim(&["trace-diff", path(&a), path(&a)]);
    assert_eq!(output.status.code(), Some(0));
    // Usage errors: 2.
    assert_eq!(ptxsim(&["trace-diff", path(&a)]).status.code(), Some(2));
    assert_eq!(
        run_sample(SAMPLE, &["--bless"]).status.code(),
        Some(2),
        "--bless needs --expect"
    );
    // A missing file: 2.
    let output = ptxsim(&["trace-diff", path(&a), path(&dir.join("missing.jsonl"))]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot read"),
        "{}",
        stderr(&output)
    );
    // Malformed traces: 2, with file:line.
    let json = std::fs::read_to_string(&a).unwrap();
    let mut lines: Vec<String> = json.lines().map(str::to_string).collect();
    let cases = [
        (
            3,
            "{\"step\":2,\"thread\":0",
            "bad.jsonl:3: column 20: EOF while parsing an object",
        ),
        (
            4,
            "{\"step\":3,\"thread\":0}",
            "bad.jsonl:4: missing key `pc`",
        ),
        (
            2,
            "{\"step\":0,\"thread\":0,\"pc\":0,\"line\":28,\"text\":\"x\",\"executed\":true,\"writes\":[{\"reg\":\"%rd1\",\"old\":\"0\",\"new\":\"0x1\"}]}",
            "bad.jsonl:2: `old`: `0` is not a hex value",
        ),
        (1, "hello", "bad.jsonl:1: not a ptxsim trace"),
        (5, "", "bad.jsonl:5: empty line"),
    ];
    for (line, replacement, message) in cases {
        let saved = std::mem::replace(&mut lines[line - 1], replacement.to_string());
        let bad = dir.join("bad.jsonl");
        std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
        lines[line - 1] = saved;
        for args in [
            vec!["trace-diff", path(&a), path(&bad)],
            vec!["trace-diff", path(&bad), path(&a)],
        ] {
            let output = ptxsim(&args);
            assert_eq!(output.status.code(), Some(2), "{replacement}");
            assert!(stderr(&output).contains(message), "{}", stderr(&output));
        }
        // --expect against a malformed stored trace is an error too.
        let output = run_sample(SAMPLE, &["--expect", path(&bad)]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    }
    // A line after the end, and a text trace with a bad step.
    let after = dir.join("after.jsonl");
    std::fs::write(&after, format!("{json}{}\n", lines[1])).unwrap();
    let output = ptxsim(&["trace-diff", path(&a), path(&after)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("a line after the end line"),
        "{}",
        stderr(&output)
    );
    let text = dir.join("bad.trace");
    std::fs::write(&text, "ptxsim_trace 1 entry=k threads=1 grid=1,1,1 block=1,1,1 registers=%r0:b32\nt0 s0 pc0 L3 %r0=0x0 | mov.b32 %r0, 1\n").unwrap();
    let output = ptxsim(&["trace-diff", path(&text), path(&text)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("bad.trace:2: `%r0=0x0`: expected REG=OLD>NEW"),
        "{}",
        stderr(&output)
    );
}

/// A differing register value is decoded by the register's declared type, as the debugger's
/// `print` shows it: an `.f32` 0x3f800000 is 1.0 and 0x3fc00000 is 1.5 (IEEE 754 binary32).
#[test]
fn trace_diff_decodes_differing_values_by_type() {
    let dir = temp("decoded");
    let a = dir.join("a.jsonl");
    let output = ptxsim(&[
        "run",
        "ptx-samples/nvcc/fp8_convert.sm_90.ptx",
        "--entry",
        "f32_to_e4m3",
        "--block",
        "2",
        "--arg",
        "buf:ptx-samples/data/quantize-input.f32",
        "--arg",
        "zeros:12",
        "--arg",
        "s32:2",
        "--trace",
        path(&a),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = std::fs::read_to_string(&a).expect("the trace");
    // Thread 0 loads the input's first element, 1.0; B says it loaded 1.5.
    let load = "\"writes\":[{\"reg\":\"%f1\",\"old\":\"0x00000000\",\"new\":\"0x3f800000\"}]";
    assert!(text.contains(load), "{text}");
    let b = dir.join("b.jsonl");
    std::fs::write(
        &b,
        text.replacen(load, &load.replace("0x3f800000", "0x3fc00000"), 1),
    )
    .expect("write");
    let output = ptxsim(&["trace-diff", path(&a), path(&b)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("%f1: A 0x3f800000 (1.0) vs B 0x3fc00000 (1.5)"),
        "{}",
        stdout(&output)
    );
}
