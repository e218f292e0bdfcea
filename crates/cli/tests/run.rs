//! `ptxsim run` and `ptxsim eval`: exit codes, the JSON contract, traces.
//!
//! Exit status: 0 when the thread exited; 1 for errors in the input, a trap, running out of
//! fuel or an unsupported instruction (the state is printed first); 2 for usage and I/O errors.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::TempPath;

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .current_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")))
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

fn json(output: &Output) -> serde_json::Value {
    let text = stdout(output);
    assert_eq!(text.lines().count(), 1, "exactly one JSON line: {text}");
    serde_json::from_str(&text).expect("stdout is one JSON object")
}

#[test]
fn json_state_is_exactly_the_contract() {
    let output = ptxsim(&[
        "run",
        "tests/exec/several_entries.ptx",
        "--entry",
        "second",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "{\"entry\":\"second\",\"status\":\"exited\",\"steps\":2,\"registers\":{\"%b\":\"0x00000002\"}}\n"
    );
}

#[test]
fn json_registers_are_in_declaration_order_and_padded_to_their_width() {
    let output = ptxsim(&["run", "tests/exec/control.ptx", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        concat!(
            "{\"entry\":\"control\",\"status\":\"exited\",\"steps\":8,\"registers\":{",
            "\"%p0\":\"0x1\",\"%p1\":\"0x0\",\"%r0\":\"0x00000001\",\"%r1\":\"0x00000000\",",
            "\"%r2\":\"0x00000001\",\"%r3\":\"0x00000000\",\"%r4\":\"0x00000000\"}}\n"
        )
    );
    let output = ptxsim(&[
        "run",
        "tests/exec/spec_mov_examples.ptx",
        "--format",
        "json",
    ]);
    let state = json(&output);
    assert_eq!(state["registers"]["x"], "0x11");
    assert_eq!(state["registers"]["a"], "0x1234");
    assert_eq!(
        state["registers"]["%y"],
        "0x8899aabbccddeeff0011223344556677"
    );
}

#[test]
fn several_entries_without_entry_is_an_error_listing_them() {
    let output = ptxsim(&["run", "tests/exec/several_entries.ptx"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("first, second"),
        "{}",
        stderr(&output)
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn unknown_entry_is_an_error() {
    let output = ptxsim(&["run", "tests/exec/control.ptx", "--entry", "nope"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no kernel named `nope`"));
}

#[test]
fn unsupported_instruction_names_it_and_its_location_after_the_state() {
    let output = ptxsim(&["run", "tests/exec/unsupported.ptx", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output)
            .contains("tests/exec/unsupported.ptx:14:5: unsupported instruction `brkpt`"),
        "{}",
        stderr(&output)
    );
    let state = json(&output);
    assert_eq!(state["status"], "trapped");
    assert_eq!(state["trap"]["line"], 14);
    assert!(
        state["trap"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("unsupported instruction `brkpt`")),
        "{state}"
    );
    assert_eq!(state["registers"]["%r0"], "0x00000005");
}

#[test]
fn out_of_fuel_reports_the_steps() {
    let output = ptxsim(&[
        "run",
        "tests/exec/fuel.ptx",
        "--format",
        "json",
        "--max-steps",
        "10",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let state = json(&output);
    assert_eq!(state["status"], "out_of_fuel");
    assert_eq!(state["steps"], 10);
    assert!(stderr(&output).contains("out of fuel"));
}

#[test]
fn trap_reports_message_and_line() {
    let output = ptxsim(&["run", "tests/exec/trap.ptx", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let state = json(&output);
    assert_eq!(state["status"], "trapped");
    assert_eq!(state["trap"]["line"], 12);
    assert_eq!(state["trap"]["message"], "trap instruction executed");
}

#[test]
fn check_errors_stop_before_running() {
    let output = ptxsim(&["run", "tests/broken/undeclared_register.ptx"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("E0105"), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
}

#[test]
fn target_gating_rejects_forms_the_target_lacks() {
    let output = ptxsim(&[
        "run",
        "tests/exec/spec_cvt_examples.ptx",
        "--target",
        "sm_90",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("needs sm_100"),
        "{}",
        stderr(&output)
    );
    let output = ptxsim(&[
        "run",
        "tests/exec/spec_cvt_examples.ptx",
        "--target",
        "sm_100a",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn missing_file_and_bad_usage_exit_two() {
    assert_eq!(
        ptxsim(&["run", "tests/exec/does-not-exist.ptx"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        ptxsim(&["run", "tests/exec/control.ptx", "--format", "yaml"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn text_format_is_an_aligned_table() {
    let output = ptxsim(&["run", "tests/exec/scopes.ptx"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "entry scopes: exited after 5 steps\n\
         register  type  hex         value\n\
         %r0       .b32  0x00000000  0\n\
         %r1       .b32  0x00000002  2\n\
         %r2       .b32  0x00000001  1\n\
         %t        .b32  0x00000001  1\n\
         %t#1      .b32  0x00000002  2\n"
    );
}

#[test]
fn trace_is_json_lines_and_byte_identical_across_runs() {
    let first = TempPath::new("trace", "a.jsonl");
    let second = TempPath::new("trace", "b.jsonl");
    for path in [&first, &second] {
        let output = ptxsim(&[
            "run",
            "tests/exec/spec_cvt_examples.ptx",
            "--format",
            "json",
            "--trace",
            path.to_str().expect("utf-8 temp path"),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
    let a = std::fs::read(&first).expect("trace written");
    let b = std::fs::read(&second).expect("trace written");
    assert_eq!(a, b);
    let text = String::from_utf8(a).expect("utf-8");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    assert_eq!(lines[0]["ptxsim_trace"], 1);
    assert_eq!(
        lines.last().map(|l| l["end"].clone()),
        Some("exited".into())
    );
    // The cvt of the e4m3x2 example writes %h10 from 0x0000 to 0x7e3c.
    let write = lines
        .iter()
        .flat_map(|l| l["writes"].as_array().cloned().unwrap_or_default())
        .find(|w| w["reg"] == "%h10")
        .expect("a write to %h10");
    assert_eq!(write["old"], "0x0000");
    assert_eq!(write["new"], "0x7e3c");
}

#[test]
fn eval_prints_hex_and_lanes() {
    let output = ptxsim(&[
        "eval",
        "cvt.rn.satfinite.e4m3x2.f32 d, a, b",
        "a=448.0",
        "b=0x3fc00000",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // 448 = 1.75 * 2^8 -> e4m3 0 1111 110 = 0x7e; 0x3fc00000 = 1.5 -> 0 0111 100 = 0x3c.
    assert_eq!(
        stdout(&output),
        "d = 0x7e3c (.b16)\n  [15:8] e4m3 0x7e = 448.0\n  [7:0] e4m3 0x3c = 1.5\n"
    );
}

#[test]
fn eval_unpacks_and_takes_every_literal_form() {
    let output = ptxsim(&["eval", "mov.b64 {lo, hi}, x", "x=0d400921fb54442d18"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("lo = 0x54442d18 (.b32)\n"));
    let output = ptxsim(&["eval", "cvt.rzi.s32.f32 d, a", "a=-2.5"]);
    assert!(stdout(&output).starts_with("d = 0xfffffffe (.s32)\n"));
    let output = ptxsim(&["eval", "cvt.rn.f32.s32 d, a", "a=-7"]);
    assert!(stdout(&output).starts_with("d = 0xc0e00000 (.f32)\n"));
    let output = ptxsim(&["eval", "cvt.rn.f16.f32 d, a", "a=0f3f800000"]);
    assert!(stdout(&output).contains("[15:0] f16 0x3c00 = 1.0"));
    // A .bf16 source sits in a .b16 register; a decimal value is a bf16 value (-2.5 = 0xc020).
    let output = ptxsim(&["eval", "cvt.rzi.s32.bf16 d, a", "a=-2.5"]);
    assert!(stdout(&output).starts_with("d = 0xfffffffe (.s32)\n"));
}

#[test]
fn eval_errors_exit_nonzero() {
    // A missing rounding modifier is an invalid instruction; the diagnostic points into the
    // instruction as written (line 1), not into the kernel eval wraps it in.
    let output = ptxsim(&["eval", "cvt.f32.s32 d, a", "a=1"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("<instruction>:1:1"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("1 │ cvt.f32.s32 d, a;"),
        "{}",
        stderr(&output)
    );
    // A value that does not fit the register.
    let output = ptxsim(&["eval", "cvt.rn.f32.s16 d, a", "a=0x12345"]);
    assert_eq!(output.status.code(), Some(2));
    // A source without a value.
    let output = ptxsim(&["eval", "cvt.rn.f32.s16 d, a"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no value for source operand `a`"));
}

/// The module's `.target` picks the modelled tensor cores and `--device` overrides it: the tile
/// of `tests/mma-sim/mma_device.ptx` gives +0 as on an A100 (sm_80, its target) and 2^-25 as on an
/// H100 (`--device sm_90`), the values MMA-Sim's algorithms give (docs/tensor-cores.md).
#[test]
fn the_target_picks_the_tensor_cores_and_device_overrides_it() {
    let d0 = |extra: &[&str]| {
        let mut args = vec!["run", "tests/mma-sim/mma_device.ptx", "--block", "32"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json"]);
        let output = ptxsim(&args);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        json(&output)["registers"]["%d0"].clone()
    };
    assert_eq!(d0(&[]), "0x00000000");
    assert_eq!(d0(&["--device", "sm_90"]), "0x33000000");
    assert_eq!(d0(&["--target", "sm_90a"]), "0x33000000");
    assert_eq!(
        d0(&["--target", "sm_90a", "--device", "sm_86"]),
        "0x00000000"
    );
    let output = ptxsim(&["run", "tests/mma-sim/mma_device.ptx", "--device", "h100"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("--device"), "{}", stderr(&output));
}
