//! `ptxsim debug`: scripted sessions over sample kernels, with insta snapshots of the
//! transcripts (`--echo` puts each command after a `(ptxsim) ` prompt so they read like a
//! terminal session), and the exit codes.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use std::io::Write as _;

use common::TempPath;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Runs `ptxsim debug ARGS` with `input` on stdin.
fn debug_stdin(args: &[&str], input: impl AsRef<[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .current_dir(root())
        .arg("debug")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ptxsim binary runs");
    if let Some(mut stdin) = child.stdin.take() {
        // The debugger may stop reading early (after `quit`); a broken pipe is fine then.
        let _ = stdin.write_all(input.as_ref());
    }
    child.wait_with_output().expect("ptxsim finishes")
}

/// A file of its own temporary directory, removed when the result is dropped.
fn temp_file(name: &str, contents: &str) -> TempPath {
    let path = TempPath::new("debug", name);
    std::fs::write(&path, contents).expect("the temporary directory is writable");
    path
}

/// Runs a session from a script file with `--echo` and returns its transcript; the session
/// must exit 0 with nothing on stderr.
fn session(script_name: &str, args: &[&str], script: &str) -> String {
    let path = temp_file(script_name, script);
    let path_text = path.display().to_string();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--echo", "--script", &path_text]);
    let output = debug_stdin(&all, "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    assert!(stderr.is_empty(), "stderr: {stderr}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A kernel with a device-function call, shared memory and a barrier (integer arithmetic, ld,
/// st, mov and call only). Thread t of block b (i = 4b + t) writes {2t, t^1} to
/// out[2i], out[2i+1]: twice(t), and what its neighbour stored in shared memory before the
/// barrier.
const CALLS: &str = "// A call, shared memory and a barrier, for the debugger's tests.
.version 9.1
.target sm_90
.address_size 64

.func (.param .b32 r) twice(.param .b32 a)
{
    .reg .b32 %t;
    ld.param.b32 %t, [a];
    add.s32 %t, %t, %t;
    st.param.b32 [r], %t;
    ret;
}

.visible .entry calls(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;
    .shared .align 4 .b32 tile[4];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, tile;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.shared.u32 [%rd4], %r1;
    bar.sync 0;
    {
        .param .b32 a;
        .param .b32 r;
        st.param.b32 [a], %r1;
        call (r), twice, (a);
        ld.param.b32 %r2, [r];
    }
    xor.b32 %r3, %r1, 1;
    mul.wide.u32 %rd3, %r3, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.shared.u32 %r3, [%rd4];
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %ntid.x;
    mad.lo.u32 %r4, %r4, %r5, %r1;
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd3, %r4, 8;
    add.s64 %rd1, %rd1, %rd3;
    st.global.v2.u32 [%rd1], {%r2, %r3};
    ret;
}
";

/// The Done-when session of issue 7: break, step, watch and print decoded values on nvcc's
/// `f32_to_e4m3` (the manifest's arguments on a 1x4 grid: 4 floats from
/// `tests/kernels/common/f32.bin`, an output of 4 bytes, n = 4). Thread 2 reads +inf (bytes
/// 8..12 of f32.bin are 0x7f800000), which `.satfinite` turns into the largest e4m3, 448 =
/// 0x7e; the launch then writes 0x00 (0.0), 0x80 (-0.0), 0x7e, 0xfe (-448 from -inf).
#[test]
fn conversion_kernel_break_step_watch_print() {
    let transcript = session(
        "conversion.txt",
        &[
            "ptx-samples/nvcc/fp8_convert.sm_90.ptx",
            "--entry",
            "f32_to_e4m3",
            "--block",
            "4",
            "--arg",
            "buf:tests/kernels/common/f32.bin",
            "--arg",
            "zeros:4",
            "--arg",
            "s32:4",
            "--thread",
            "2",
        ],
        "# thread 2 converts element 2 of the input
break 46
b $L__BB0_2
info breakpoints
watch %rs1
continue
print %f1
p %f1/f32
p %f2/x
print %tid.x
step
p %rs1/e4m3x2
p %rs1/e5m2x2
c
mem %rd8 1
list
where
regs %r?
info threads
c
c
x 0x00007f000000c100 4
mem 0x00007f000000c100 4 u8
info args
quit
step
",
    );
    insta::assert_snapshot!(transcript);
}

/// Every print format, on values set with `set`. Expected decodings, from the formats'
/// definitions: bf16 0x3f80 = 1.0, 0xbf80 = -1.0; f16 0x3f80 = 1.875 (2^0 x 1.875); e4m3 0x3c =
/// 1.5, 0x38 = 1.0; e5m2 0x3c = 1.0, 0x38 = 0.5; the 6-bit formats read the low 6 bits of each
/// byte, so 0x3c and 0x38 are negative: e2m3 -6.0 and -4.0, e3m2 -16.0 and -8.0; ue8m0 0x7f =
/// 2^0 = 1.0, 0x80 = 2.0; e2m1 0x8 = -0.0; f64 0x3ff8000000000000 = 1.5.
#[test]
fn print_formats_and_set() {
    let transcript = session(
        "formats.txt",
        &["tests/exec/cvt_forms.ptx"],
        "set %r5 0x3f80bf80
p %r5
p %r5/x
p %r5/d
p %r5/u
p %r5/f32
p %r5/f16
p %r5/bf16
p %r5/f16x2
p %r5/bf16x2
set %h5 0x3c38
p %h5/e4m3x2
p %h5/e5m2x2
p %h5/e2m3x2
p %h5/e3m2x2
set %h6 0x7f80
p %h6/ue8m0x2
p %h6/e2m1x2
set %rd0 0d3ff8000000000000
p %rd0/f64
p %rd0/f32
set %f3 1.5
set %f4 -2
set %f5 0f7f800000
regs %f?
set %h7 -1
p %h7/d
p %h7/u
",
    );
    insta::assert_snapshot!(transcript);
}

/// `next` over a call, `where` inside a call, a breakpoint on a function, the barrier (the
/// other threads run to it), shared memory, selecting threads and blocks, finishing the launch
/// and `restart`.
#[test]
fn calls_barriers_threads_and_blocks() {
    let kernel = temp_file("calls.ptx", CALLS);
    let kernel_text = kernel.display().to_string();
    let transcript = session(
        "calls.txt",
        &[
            &kernel_text,
            "--grid",
            "2",
            "--block",
            "4",
            "--arg",
            "zeros:64",
        ],
        "step 6
info threads
# bar.sync: the other threads run to the barrier
step
info threads
mem shared:0 16 u32
next
# into the call
s
where
n 3
n
s
p %r2
# next steps over the whole call
thread 1
n
n
s
p %r2/d
b twice
thread 2
c
bt
info b
delete 1
c
thread 3
block 1
p %ctaid.x
p %tid.x
c
c
c
mem global:0x00007f0000000000 64 u32
restart
x 0x00007f0000000000 16
where
c
",
    );
    insta::assert_snapshot!(transcript);
}

/// Guards (an instruction whose guard is false is still a step), labels, `step N`.
#[test]
fn control_flow() {
    let transcript = session(
        "control.txt",
        &["tests/exec/control.ptx"],
        "b SKIP
b END
c
s 2
c
list 12
regs
c
",
    );
    insta::assert_snapshot!(transcript);
}

/// A trap, running out of fuel and an unsupported instruction end or stop the thread; the
/// session goes on.
#[test]
fn traps_fuel_and_unsupported_instructions() {
    let mut transcript = String::new();
    for (kernel, extra) in [
        ("tests/exec/trap.ptx", None),
        ("tests/exec/fuel.ptx", Some("10")),
        ("tests/exec/unsupported.ptx", None),
    ] {
        let mut args = vec![kernel];
        if let Some(steps) = extra {
            args.extend(["--max-steps", steps]);
        }
        transcript.push_str(&format!("$ ptxsim debug {}\n", args.join(" ")));
        transcript.push_str(&session("ends.txt", &args, "c\ns\nwhere\nregs\nc\nc\n"));
    }
    insta::assert_snapshot!(transcript);
}

/// Every kind of bad input prints an error and the session goes on to the next command.
#[test]
fn errors_keep_the_session_alive() {
    let transcript = session(
        "errors.txt",
        &["tests/exec/cvt_forms.ptx"],
        "frobnicate
step 0
step x
step 1 2
continue now
break
break 1
break 100000
break NOWHERE
b 18
b 18
delete 7
delete x
info
info nonsense
watch
watch %nope
watch %h0
watch %h0
print
print %nope
print %h0/q
print %h0/f32
print %h0/b32
print %tid.w
regs %zz*
mem
mem 0 16
mem nowhere 4
mem 0x10 0
mem 0x10 100000
mem shared:0 4
mem heap:0 4
mem 0x00007f0000000000 4 pred
set %h0
set %h0 0x10000
set %h0 1.5
set %h0 banana
set %h0 -0x1
set %tid.x 1
set %nope 1
list 0
list 999999
where now
thread 1
thread 0,1
thread a
block 5
restart now
quit now
help me
# a comment is not a command
p %h0
",
    );
    insta::assert_snapshot!(transcript);
}

/// Without a terminal and without `--echo` the output has no prompt; `quit` ends the session
/// (the commands after it are not run) with exit 0, as does the end of the input.
#[test]
fn piped_commands_print_no_prompt() {
    let output = debug_stdin(&["tests/exec/control.ptx"], "s\n\nquit\ns\n");
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("(ptxsim)"), "{stdout}");
    assert_eq!(
        stdout.matches("   12  mov.pred %p0, 1").count(),
        1,
        "{stdout}"
    );
    assert!(stdout.ends_with("=> 13  mov.pred %p1, 0\n"), "{stdout}");
    let output = debug_stdin(&["tests/exec/control.ptx"], "s");
    assert_eq!(output.status.code(), Some(0));
    // Invalid UTF-8 in the input is replaced, not a crash.
    let output = debug_stdin(&["tests/exec/control.ptx"], b"p %p0\xff\n");
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).contains("error: no register"));
}

/// Exit codes: 1 for a module with errors or bad launch arguments, 2 for usage and I/O errors.
#[test]
fn exit_codes() {
    let code = |args: &[&str]| debug_stdin(args, "quit\n").status.code();
    assert_eq!(code(&["tests/exec/control.ptx"]), Some(0));
    assert_eq!(code(&["tests/no-such-file.ptx"]), Some(2));
    assert_eq!(code(&["tests/broken/bad_directive.ptx"]), Some(1));
    assert_eq!(
        code(&[
            "ptx-samples/nvcc/fp8_convert.sm_90.ptx",
            "--entry",
            "f32_to_e4m3"
        ]),
        Some(1)
    );
    assert_eq!(code(&["tests/exec/control.ptx", "--thread", "1"]), Some(2));
    assert_eq!(code(&["tests/exec/control.ptx", "--cta", "0,1"]), Some(2));
    assert_eq!(
        code(&["tests/exec/control.ptx", "--script", "tests/no-such-script"]),
        Some(2)
    );
    assert_eq!(code(&["tests/exec/control.ptx", "--block", "0"]), Some(2));
}

/// A shuffle in a warp of 4 threads: stepping the selected thread over it runs the other lanes
/// until they arrive; `print REG warp` shows the register in every lane. Lane l of
/// `shfl.sync.bfly.b32 %r2, %r1, 1, 31, 0xffffffff` reads lane l ^ 1 (PTX ISA 9.7.9.6), and
/// `%r1` is 10 + tid: lanes 0..3 get 11, 10, 13, 12.
#[test]
fn warps_step_together_and_print_every_lane() {
    let kernel = temp_file(
        "warp.ptx",
        ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
         .reg .b32 %r<3>;\nmov.u32 %r0, %tid.x;\nadd.u32 %r1, %r0, 10;\n\
         shfl.sync.bfly.b32 %r2, %r1, 1, 31, 0xffffffff;\nret;\n}\n",
    );
    let kernel_text = kernel.display().to_string();
    let transcript = session(
        "warp.txt",
        &[&kernel_text, "--block", "4"],
        "step 2\nstep\nprint %r2 warp\nquit\n",
    );
    assert!(
        transcript
            .contains("ran the other threads of block (0,0,0) until its warp's lanes arrived"),
        "{transcript}"
    );
    for (lane, value) in [(0, 11), (1, 10), (2, 13), (3, 12)] {
        let line = format!("lane  {lane} thread ({lane},0,0): %r2 = 0x{value:08x} ({value})");
        assert!(transcript.contains(&line), "{line} in\n{transcript}");
    }
}

/// `print REG warp` says which lanes are not where the selected thread is: lanes not yet
/// stepped show their line, lanes that returned show `[exited]` (their value is not the value
/// at this line). Lanes 2 and 3 branch to `ret` (tid >= 2); lanes 0 and 1 meet at
/// `bar.warp.sync 3` (membermask 0b11, PTX ISA 9.7.13.5), where the debugger runs lane 1 on
/// (to its end) while the selected lane 0 stays at `ret`.
#[test]
fn print_warp_marks_lanes_that_are_elsewhere() {
    let kernel = temp_file(
        "diverge.ptx",
        ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\
         .reg .b32 %r<3>;\n.reg .pred %p;\nmov.u32 %r0, %tid.x;\nsetp.ge.u32 %p, %r0, 2;\n\
         @%p bra DONE;\nadd.u32 %r1, %r0, 10;\nbar.warp.sync 3;\nDONE:\nret;\n}\n",
    );
    let kernel_text = kernel.display().to_string();
    let transcript = session(
        "diverge.txt",
        &[&kernel_text, "--block", "4"],
        "step 3\nprint %r0 warp\nstep 2\nprint %r1 warp\nquit\n",
    );
    for line in [
        "lane  0 thread (0,0,0): %r0 = 0x00000000 (0)\n",
        "lane  1 thread (1,0,0): %r0 = 0x00000000 (0)  [at line 8]\n",
        "lane  3 thread (3,0,0): %r0 = 0x00000000 (0)  [at line 8]\n",
        "lane  0 thread (0,0,0): %r1 = 0x0000000a (10)\n",
        "lane  1 thread (1,0,0): %r1 = 0x0000000b (11)  [exited]\n",
        "lane  2 thread (2,0,0): %r1 = 0x00000000 (0)  [exited]\n",
        "lane  3 thread (3,0,0): %r1 = 0x00000000 (0)  [exited]\n",
    ] {
        assert!(transcript.contains(line), "{line} in\n{transcript}");
    }
}

/// A script that is one endless line (`--script /dev/zero`) is refused (exit 2) rather than read
/// into memory: a command line is at most 1 MiB.
#[test]
fn an_endless_line_is_no_script() {
    let kernel = temp_file(
        "tiny.ptx",
        ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n",
    );
    let script = temp_file("endless.txt", &"a".repeat((1 << 20) + 10));
    let output = debug_stdin(
        &[
            &kernel.display().to_string(),
            "--script",
            &script.display().to_string(),
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("a command line longer than"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A kernel with `.file`/`.loc` directives (as `nvcc -lineinfo` writes them; PTX ISA 9.0,
/// 11.6.1-2): a trap reports the source line of its `.loc`, and `break FILE:LINE` stops before
/// the first instruction of that line, in the kernel and in a called function.
const WITH_SOURCE_LINES: &str = "\
.version 8.0
.target sm_80
.address_size 64
.func (.reg .b32 r) twice(.reg .b32 x)
{
\t.loc 1 3 5
\tadd.s32 r, x, x;
\tret;
}
.visible .entry k(.param .u32 n)
{
\t.reg .b32 %r<4>;
\t.reg .pred %p;
\t.loc 1 10 3
\tld.param.u32 %r1, [n];
\tmov.u32 %r2, %tid.x;
\t.loc 1 11 3
\tcall (%r3), twice, (%r2);
\tsetp.eq.u32 %p, %r3, %r1;
\t.loc 1 12 5
\t@%p trap;
\tret;
}
.file 1 \"/home/user/app.cu\"
";

/// The 1-based line of the PTX text where `needle` is.
fn line_of(needle: &str) -> usize {
    WITH_SOURCE_LINES
        .lines()
        .position(|line| line.contains(needle))
        .expect("the line is in the module")
        + 1
}

#[test]
fn source_lines_from_loc_directives() {
    let path = temp_file("with_lines.ptx", WITH_SOURCE_LINES);
    let path_text = path.display().to_string();
    // Thread 2 computes twice(2) = 4 = n and traps at the `trap` of source line 12.
    let output = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(["run", &path_text, "--block", "4", "--arg", "u32:4"])
        .output()
        .expect("ptxsim runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let trap = line_of("@%p trap");
    assert!(
        stderr.contains(&format!(":{trap}:2 (/home/user/app.cu:12): trap")),
        "{stderr}"
    );
    let transcript = session(
        "lines.txt",
        &[&path_text, "--block", "4", "--arg", "u32:4"],
        "break app.cu:3\nbreak /home/user/app.cu:11\nbreak other.cu:3\nbreak app.cu:4\ncontinue\ncontinue\n",
    );
    let call = line_of("call (%r3)");
    let add = line_of("add.s32 r, x, x");
    for expected in [
        format!("breakpoint 1: app.cu:3 (line {add})"),
        format!("breakpoint 2: /home/user/app.cu:11 (line {call})"),
        "error: no source file `other.cu`; the PTX names /home/user/app.cu".to_string(),
        "error: no instruction of kernel `k` or the functions it calls comes from app.cu:4"
            .to_string(),
        format!("=> {call}  call (%r3), twice, (%r2)   // /home/user/app.cu:11"),
        format!("=> {add}  add.s32 r, x, x   // /home/user/app.cu:3"),
    ] {
        assert!(transcript.contains(&expected), "{expected}\n{transcript}");
    }
}

/// `step line` and `next line` go by the `.loc` lines: `step line` from line 10 stops at the
/// `call` of line 11, then inside `twice` at line 3, then back at the `setp` that follows the
/// call (line 11 again, after line 3); `next line` keeps `twice`'s line-3 instructions in the
/// call's line and stops first at line 12's `trap`.
#[test]
fn stepping_by_source_line() {
    let path = temp_file("step_lines.ptx", WITH_SOURCE_LINES);
    let path_text = path.display().to_string();
    let transcript = session(
        "step_lines.txt",
        &[&path_text, "--block", "4", "--arg", "u32:4"],
        "step line\nstep line\nstep line\nnext line\nrestart\nnext line 2\nstep line 0\n\
         next line x\nquit\n",
    );
    let call = line_of("call (%r3)");
    let add = line_of("add.s32 r, x, x");
    let setp = line_of("setp.eq.u32");
    let trap = line_of("@%p trap");
    let stops: Vec<&str> = transcript
        .lines()
        .filter(|line| line.starts_with("=> "))
        .collect();
    let start = format!(
        "=> {}  ld.param.u32 %r1, [n]   // /home/user/app.cu:10",
        line_of("ld.param")
    );
    assert_eq!(
        stops,
        [
            start.clone(),
            format!("=> {call}  call (%r3), twice, (%r2)   // /home/user/app.cu:11"),
            format!("=> {add}  add.s32 r, x, x   // /home/user/app.cu:3"),
            format!("=> {setp}  setp.eq.u32 %p, %r3, %r1   // /home/user/app.cu:11"),
            format!("=> {trap}  @%p trap   // /home/user/app.cu:12"),
            start,
            format!("=> {trap}  @%p trap   // /home/user/app.cu:12"),
        ],
        "{transcript}"
    );
    assert!(
        transcript.contains("error: `0` is not a count (1 or more)")
            && transcript.contains("error: `x` is not a count (1 or more)"),
        "{transcript}"
    );
    // Where the `.file` exists on this machine, a stop shows its line's text too.
    let mut cu = String::new();
    for line in 1..=12 {
        cu.push_str(match line {
            3 => "    return x + x;\n",
            10 => "    unsigned t = threadIdx.x;\n",
            11 => "    if (twice(t) == n)\n",
            12 => "        __trap();\n",
            _ => "\n",
        });
    }
    let cu_path = temp_file("app_here.cu", &cu);
    let with_file = WITH_SOURCE_LINES.replace("/home/user/app.cu", &cu_path.display().to_string());
    let here = temp_file("step_lines_here.ptx", &with_file);
    let transcript = session(
        "step_lines_here.txt",
        &[
            &here.display().to_string(),
            "--block",
            "4",
            "--arg",
            "u32:4",
        ],
        "step line\nstep line\nlist src\nbreak app_here.cu:11\nlist app_here.cu:3\n\
         list app_here.cu:99\nlist other.cu:3\nlist app_here.cu:x\nquit\n",
    );
    // `list src`: the `.cu` lines around the stop (line 3 of the file), `=>` on it; `list
    // FILE:LINE` around LINE, `*` on the line a breakpoint stops at. Both show lines 1 to 8
    // (five on each side of line 3, from the first).
    let listing = |current: usize, stop: usize| {
        let mut text = format!("{}:\n", cu_path.display());
        for (number, line) in cu.lines().enumerate().take(8) {
            let number = number + 1;
            let marker = if number == current { "=>" } else { "  " };
            let star = if number == stop { "*" } else { " " };
            text.push_str(&format!("{marker}{star}{number:>5}  {line}\n"));
        }
        text
    };
    for expected in [
        listing(3, 0),
        listing(3, 11),
        "error: `".to_string() + &cu_path.display().to_string() + "` has 12 lines, not 99",
        "error: no source file `other.cu`".to_string(),
        "error: `app_here.cu:x` is not FILE:LINE".to_string(),
    ] {
        assert!(transcript.contains(&expected), "{expected}\n{transcript}");
    }
    for expected in [
        format!(
            "=> {call}  call (%r3), twice, (%r2)   // {}:11  if (twice(t) == n)",
            cu_path.display()
        ),
        format!(
            "=> {add}  add.s32 r, x, x   // {}:3  return x + x;",
            cu_path.display()
        ),
    ] {
        assert!(transcript.contains(&expected), "{expected}\n{transcript}");
    }
    // Without `.loc` lines there is nothing to step to.
    let plain = temp_file(
        "no_lines.ptx",
        &WITH_SOURCE_LINES.replace(".loc", "// .loc"),
    );
    let plain_text = plain.display().to_string();
    let transcript = session(
        "no_lines.txt",
        &[&plain_text, "--block", "4", "--arg", "u32:4"],
        "step line\nlist src\nquit\n",
    );
    assert_eq!(
        transcript
            .matches("error: the PTX has no source lines")
            .count(),
        2,
        "{transcript}"
    );
    assert!(
        transcript.contains("error: the PTX has no source lines"),
        "{transcript}"
    );
}
