//! `ptxsim run` launches: grids, `--arg`/`--out`, faults, step limits and argument errors.
//! Expected values come from the kernels' source (each thread stores its global index) and the
//! spec's alignment rule, not from earlier runs.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::TempPath;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .current_dir(repo())
        .args(args)
        .output()
        .expect("the ptxsim binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn temp(name: &str) -> TempPath {
    TempPath::new("launch", name)
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn every_thread_of_a_grid_writes_its_index() {
    let out = temp("grid.bin");
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--grid",
        "3",
        "--block",
        "4,2",
        "--arg",
        "zeros:96",
        "--arg",
        "u32:0",
        "--out",
        &format!("0={}", out.display()),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // The kernel indexes with ctaid.x * ntid.x + tid.x, so the two rows (tid.y) of a CTA
    // write the same words: words 0..12 hold 0..12 and the rest stay zero.
    let mut expected: Vec<u32> = (0..12).collect();
    expected.resize(24, 0);
    assert_eq!(words(&std::fs::read(&out).unwrap()), expected);
}

#[test]
fn results_do_not_depend_on_host_threads() {
    let mut results = Vec::new();
    for jobs in ["1", "2"] {
        let out = temp(&format!("jobs{jobs}.bin"));
        let output = ptxsim(&[
            "run",
            "ptx-samples/nvcc/fp8_convert.sm_90.ptx",
            "--entry",
            "f32_to_e4m3",
            "--grid",
            "48",
            "--block",
            "256",
            "--arg",
            "buf:tests/kernels/common/f32.bin",
            "--arg",
            "zeros:12288",
            "--arg",
            "s32:12288",
            "--out",
            &format!("1={}", out.display()),
            "--jobs",
            jobs,
            "--format",
            "json",
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let mut state: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        // The state differs only in the --out path it lists.
        state.as_object_mut().unwrap().remove("outputs");
        results.push((state, std::fs::read(&out).unwrap()));
    }
    assert_eq!(results[0], results[1]);
    // And the bytes are NVIDIA's host reference for this kernel (tests/kernels).
    let expected = std::fs::read(repo().join("tests/kernels/f32_to_e4m3/out.bin")).unwrap();
    assert_eq!(results[0].1, expected);
}

#[test]
fn out_of_bounds_store_traps_with_thread_and_block_and_keeps_output() {
    let out = temp("oob.bin");
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--grid",
        "3",
        "--block",
        "4",
        "--arg",
        "zeros:32",
        "--arg",
        "u32:0",
        "--out",
        &format!("0={}", out.display()),
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains(
            "tests/launch/faults.ptx:29:5: trap: out-of-bounds address: 4-byte global store"
        ),
        "{err}"
    );
    assert!(err.contains("(thread (0,0,0) of block (2,0,0))"), "{err}");
    let state: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(state["status"], "trapped");
    assert_eq!(state["trap"]["line"], 29);
    assert_eq!(state["failed_cta"], serde_json::json!([2, 0, 0]));
    // CTAs 0 and 1 finished before CTA 2 faulted: their words are in the output, written to
    // PATH.partial (the run failed), and PATH itself is not touched.
    let partial = PathBuf::from(format!("{}.partial", out.display()));
    assert_eq!(
        words(&std::fs::read(&partial).unwrap()),
        (0..8).collect::<Vec<u32>>()
    );
    assert!(!out.exists(), "{} was written", out.display());
    assert!(err.contains(".partial"), "{err}");
    assert_eq!(
        state["outputs"][0]["path"].as_str(),
        Some(partial.display().to_string().as_str())
    );
}

#[test]
fn a_failed_run_keeps_the_previous_output_file_and_is_not_blessed() {
    // The previous output stays where it is; --bless of a run that trapped leaves the stored
    // trace untouched and exits 1.
    let out = temp("previous.bin");
    std::fs::write(&out, b"previous").unwrap();
    let golden = temp("golden.jsonl");
    std::fs::write(&golden, b"stored").unwrap();
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--grid",
        "3",
        "--block",
        "4",
        "--arg",
        "zeros:32",
        "--arg",
        "u32:0",
        "--out",
        &format!("0={}", out.display()),
        "--expect",
        &golden.display().to_string(),
        "--bless",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
    assert_eq!(std::fs::read(&golden).unwrap(), b"stored");
    assert!(
        stderr(&output).contains("not blessed"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn launches_beyond_the_cuda_limits_are_refused() {
    for (flag, value, message) in [
        ("--grid", "2147483648", "at most 2147483647 blocks along x"),
        ("--grid", "1,65536", "at most 65535 blocks along y"),
        ("--block", "1,1,65", "at most 64 threads along z"),
    ] {
        let output = ptxsim(&["run", "tests/launch/faults.ptx", flag, value]);
        assert_ne!(output.status.code(), Some(0), "{flag} {value}");
        assert!(
            stderr(&output).contains(message),
            "{flag} {value}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn misaligned_and_null_accesses_trap() {
    // PTX ISA 5.1: addresses must be multiples of the access size.
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--block",
        "4",
        "--arg",
        "zeros:32",
        "--arg",
        "u32:1",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("misaligned address: 4-byte global store at 0x7f0000000002"),
        "{}",
        stderr(&output)
    );
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--arg",
        "zeros:32",
        "--arg",
        "u32:2",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains(":25:5: trap: null address: 4-byte global load at 0x0"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn runaway_loops_stop_at_the_step_limit() {
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--block",
        "2",
        "--arg",
        "zeros:32",
        "--arg",
        "u32:3",
        "--max-steps",
        "50",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("out of fuel"),
        "{}",
        stderr(&output)
    );
    let state: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(state["status"], "out_of_fuel");
    assert_eq!(state["steps"], 50);
}

#[test]
fn argument_errors_list_the_parameters() {
    for args in [
        &["--arg", "zeros:32"][..],
        &["--arg", "u32:3", "--arg", "u32:1"][..],
        &["--arg", "zeros:8", "--arg", "u64:1"][..],
    ] {
        let mut full = vec!["run", "tests/launch/faults.ptx"];
        full.extend_from_slice(args);
        let output = ptxsim(&full);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let err = stderr(&output);
        assert!(err.contains("kernel `store_index` takes:"), "{err}");
        assert!(err.contains("0: out .u64 (8 bytes) (a pointer"), "{err}");
        assert!(err.contains("1: mode .u32 (4 bytes)"), "{err}");
    }
    // Malformed values are usage errors.
    for bad in ["u32:x", "q8:1", "zeros:-1", "s8:200", "f32:0f123", "nokind"] {
        let output = ptxsim(&["run", "tests/launch/faults.ptx", "--arg", bad]);
        assert_eq!(output.status.code(), Some(2), "{bad}");
    }
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--arg",
        "buf:does/not/exist.bin",
        "--arg",
        "u32:0",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("does/not/exist.bin"));
    // A block beyond CUDA's limits is a usage error, like a malformed value.
    let output = ptxsim(&["run", "tests/launch/faults.ptx", "--block", "2048"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("at most 1024 threads"));
}

#[test]
fn the_readme_command_quantises_the_bundled_input() {
    let output = ptxsim(&[
        "run",
        "ptx-samples/nvcc/fp8_convert.sm_90.ptx",
        "--entry",
        "f32_to_e4m3",
        "--block",
        "12",
        "--arg",
        "buf:ptx-samples/data/quantize-input.f32",
        "--arg",
        "zeros:12",
        "--arg",
        "s32:12",
        "--show",
        "1=e4m3:12",
        "--no-registers",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    // e4m3 (cvt.md, satfinite): 1.0 = 0x38, 448 = MAX_NORM 0x7e, 500 and inf saturate to it,
    // NaN stays NaN 0x7f, -1000 saturates to -448 0xfe.
    for line in [
        "[0] 0x38 = 1.0",
        "[4] 0x7e = 448.0",
        "[5] 0x7e = 448.0",
        "[8] 0x7e = 448.0",
        "[9] 0x7f = NaN",
        "[11] 0xfe = -448.0",
    ] {
        assert!(text.contains(line), "{line} in\n{text}");
    }
}

#[test]
fn divergent_threads_reconverge_and_meet_at_the_barrier() {
    // tests/launch/lockstep.ptx `neighbours`: v(t) = 4t for odd t (t additions of 3 to t),
    // t + 100 for even t; out[t] = v((t + 1) mod n). A thread that read its neighbour's slot
    // before the neighbour stored it would see 0.
    let n = 6u32;
    let out = temp("neighbours.bin");
    let output = ptxsim(&[
        "run",
        "tests/launch/lockstep.ptx",
        "--entry",
        "neighbours",
        "--block",
        &n.to_string(),
        "--arg",
        &format!("zeros:{}", 4 * n),
        "--out",
        &format!("0={}", out.display()),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let v = |t: u32| if t % 2 == 1 { 4 * t } else { t + 100 };
    let expected: Vec<u32> = (0..n).map(|t| v((t + 1) % n)).collect();
    assert_eq!(words(&std::fs::read(&out).unwrap()), expected);
}

#[test]
fn clock_counts_each_threads_instructions_in_lockstep() {
    // tests/launch/lockstep.ptx `clocks`: out[2t] = 5, out[2t + 1] = 9 for even t and 10 for
    // odd t (counted in the kernel's comment), in every CTA, whatever the host threads.
    for jobs in ["1", "2"] {
        let out = temp(&format!("clocks{jobs}.bin"));
        let output = ptxsim(&[
            "run",
            "tests/launch/lockstep.ptx",
            "--entry",
            "clocks",
            "--grid",
            "3",
            "--block",
            "64",
            "--arg",
            "zeros:1024",
            "--out",
            &format!("0={}", out.display()),
            "--jobs",
            jobs,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let bytes = std::fs::read(&out).unwrap();
        let clocks: Vec<u64> = bytes
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let expected: Vec<u64> = (0..64u64)
            .flat_map(|t| [5, if t % 2 == 0 { 9 } else { 10 }])
            .collect();
        assert_eq!(clocks, expected, "--jobs {jobs}");
    }
}

#[test]
fn traces_group_each_threads_steps_between_barriers() {
    // docs/trace-format.md, "Order": the threads of a CTA run in lockstep, but each thread's
    // steps between two barrier releases are consecutive lines, threads in linear order.
    let trace = temp("neighbours.jsonl");
    let output = ptxsim(&[
        "run",
        "tests/launch/lockstep.ptx",
        "--entry",
        "neighbours",
        "--block",
        "4",
        "--arg",
        "zeros:16",
        "--trace",
        &trace.display().to_string(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut runs: Vec<u64> = Vec::new();
    for line in std::fs::read_to_string(&trace).unwrap().lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(thread) = value.get("thread").and_then(|t| t.as_u64()) {
            if runs.last() != Some(&thread) {
                runs.push(thread);
            }
        }
    }
    assert_eq!(runs, vec![0, 1, 2, 3, 0, 1, 2, 3]);
}

#[test]
fn the_first_fault_in_issue_order_is_reported() {
    // tests/launch/lockstep.ptx `first_fault`: thread 3's null load (line 61) is issued before
    // the stores that fault for every thread (line 63), so thread 3 is reported.
    let output = ptxsim(&[
        "run",
        "tests/launch/lockstep.ptx",
        "--entry",
        "first_fault",
        "--block",
        "4",
        "--arg",
        "zeros:4",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("tests/launch/lockstep.ptx:61:5: trap: null address"),
        "{err}"
    );
    assert!(err.contains("(thread (3,0,0) of block (0,0,0))"), "{err}");
}

/// `--stats` reports on stderr the launch's instruction count (the kernel's 20 instructions
/// per thread in range, counted from its PTX: 256 threads x 4 CTAs) and leaves stdout alone.
#[test]
fn stats_report_the_instruction_count_on_stderr() {
    let args = [
        "run",
        "ptx-samples/nvcc/fp8_convert.sm_90.ptx",
        "--entry",
        "f32_to_e4m3",
        "--grid",
        "4",
        "--block",
        "256",
        "--arg",
        "buf:tests/kernels/common/f32.bin",
        "--arg",
        "zeros:1024",
        "--arg",
        "s32:1024",
        "--format",
        "json",
    ];
    let plain = ptxsim(&args);
    let mut with_stats = args.to_vec();
    with_stats.push("--stats");
    let output = ptxsim(&with_stats);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, plain.stdout);
    let err = stderr(&output);
    assert!(
        err.starts_with("stats: 20480 instructions in 4 CTAs, "),
        "{err}"
    );
    assert!(
        err.contains(" s simulated (") && err.contains(" M instructions/s)"),
        "{err}"
    );
    assert!(stderr(&plain).is_empty(), "{}", stderr(&plain));
}

/// `--engine auto` leaves a launch whose threads times instructions stay below 2^22 to the
/// interpreter (compiling would take longer than running it) and compiles a larger one; both
/// give the same output, and `--stats` says which engine ran and why.
#[test]
fn auto_compiles_only_launches_worth_it() {
    let run = |grid: &str, engine: &str| {
        let output = ptxsim(&[
            "run",
            "ptx-samples/nvcc/fp8_convert.sm_90.ptx",
            "--entry",
            "f32_to_e4m3",
            "--grid",
            grid,
            "--block",
            "256",
            "--arg",
            "buf:tests/kernels/common/f32.bin",
            "--arg",
            "zeros:12288",
            "--arg",
            "s32:12288",
            "--format",
            "json",
            "--engine",
            engine,
            "--stats",
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let err = stderr(&output);
        (output.stdout, err)
    };
    // The kernel has 20 instructions: 4 x 256 threads make 20,480.
    let (_, small) = run("4", "auto");
    assert!(
        small.contains("engine: interpreter (a small launch"),
        "{small}"
    );
    // 1024 x 256 threads make 5,242,880 >= 2^22 (the threads past the 12,288 inputs return
    // at once).
    let (compiled, large) = run("1024", "auto");
    assert!(large.contains("engine: compiled ("), "{large}");
    let (interpreted, _) = run("1024", "interp");
    assert_eq!(compiled, interpreted);
}

#[test]
fn the_trace_replaces_an_earlier_one_only_when_complete() {
    // Written to a temporary file and renamed: the path holds either the earlier trace or the
    // whole new one, and no temporary file is left behind.
    // A folder of its own: other tests write temporary files beside theirs.
    let dir = temp("trace-only");
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("replaced.jsonl");
    std::fs::write(&trace, b"earlier").unwrap();
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--grid",
        "1",
        "--block",
        "4",
        "--arg",
        "zeros:32",
        "--arg",
        "u32:0",
        "--trace",
        &trace.display().to_string(),
    ]);
    assert!(output.status.code().is_some(), "{}", stderr(&output));
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(text.starts_with("{\"ptxsim_trace\":1"), "{text}");
    assert!(text.trim_end().ends_with('}'), "{text}");
    let leftovers: Vec<_> = std::fs::read_dir(trace.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().contains(".ptxsim-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// What a new user gets wrong, answered with a hint instead of a silent wrong run: a kernel
/// with `.extern .shared` launched without `--dynamic-shared` (CUDA gives such arrays the
/// launch's dynamic size, 0 bytes by default), a float `--arg` for an integer parameter (its
/// bits would be the count 1,128,792,064), and `--show` in the JSON report.
#[test]
fn run_hints_for_common_mistakes() {
    let kernel = temp("dynamic_shared.ptx");
    std::fs::write(
        &kernel,
        ".version 8.0\n.target sm_80\n.address_size 64\n.extern .shared .align 4 .b8 smem[];\n\
         .visible .entry k()\n{\n.reg .b32 %r<4>;\nmov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\n\
         mov.u32 %r3, smem;\nadd.u32 %r3, %r3, %r2;\nst.shared.u32 [%r3], %r1;\nret;\n}\n",
    )
    .unwrap();
    let path = kernel.display().to_string();
    let output = ptxsim(&["run", &path, "--block", "4"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "help: kernel `k` declares dynamic shared memory (`.extern .shared`) and this launch \
             gave it 0 bytes: pass --dynamic-shared BYTES"
        ),
        "{}",
        stderr(&output)
    );
    let output = ptxsim(&["run", &path, "--block", "4", "--dynamic-shared", "16"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stderr(&output).contains("help:"), "{}", stderr(&output));

    // `mode` is a .u32: f32:200 is refused; its raw bits pass as b32 (and, being no mode
    // 1..3, store the index as mode 0 does).
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--arg",
        "zeros:8",
        "--arg",
        "f32:200",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "argument 1 is a floating-point value but parameter 1 `mode` is .u32: pass \
             u32:VALUE, or b32:BITS for the raw bits"
        ),
        "{}",
        stderr(&output)
    );
    let output = ptxsim(&[
        "run",
        "tests/launch/faults.ptx",
        "--block",
        "2",
        "--arg",
        "zeros:8",
        "--arg",
        "b32:0x43480000",
        "--show",
        "0=u32:2",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Each thread stored its index: word 0 is 0, word 1 is 1.
    let json = String::from_utf8_lossy(&output.stdout);
    assert!(
        json.contains(
            "\"shows\":[{\"arg\":0,\"type\":\"u32\",\"elements\":[{\"bits\":\"0x00000000\",\
             \"value\":\"0\"},{\"bits\":\"0x00000001\",\"value\":\"1\"}]}]"
        ),
        "{json}"
    );
}
