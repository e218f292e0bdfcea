//! CUDA's device-side runtime (docs/executor.md, "Device-side runtime") on the nvcc kernels of
//! `ptx-samples/cuda/devrt.cu`, through the library API: `printf` against the host C library's
//! `printf` running the same calls (`tests/devrt/`), `assert`, `malloc`/`free`, `__nanosleep`
//! and the clocks; and bad input (bad pointers, strings without a NUL) as located traps.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxsim_exec::Outcome;
use ptxsim_exec::api::{Arg, Error, LaunchOptions, Module, Options};
use ptxsim_exec::runtime::{HEAP_BASE, HEAP_BYTES};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The three nvcc files of devrt.cu.
const FILES: [&str; 3] = ["sm_80", "sm_90", "sm_100a"];

fn module(arch: &str) -> Module {
    let path = repo().join(format!("ptx-samples/nvcc/devrt.{arch}.ptx"));
    let source = std::fs::read_to_string(&path).expect("the sample is there");
    Module::load(&source, &Options::default()).expect("the sample loads")
}

fn words<const N: usize>(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(N)
        .map(|c| c.iter().rev().fold(0u64, |v, &b| v << 8 | u64::from(b)))
        .collect()
}

/// What glibc's printf prints for printf_cases.h: the committed file, and (where a C compiler
/// is there) the host program compiled and run now, which must agree with it.
fn expected_printf() -> String {
    let committed = std::fs::read_to_string(repo().join("tests/devrt/printf_cases.expected"))
        .expect("expected output");
    let dir = tempfile::TempDir::new().expect("temporary directory");
    let binary = dir.path().join("printf_cases");
    let compiled = Command::new("cc")
        .args(["-w", "-O0", "-o"])
        .arg(&binary)
        .arg(repo().join("tests/devrt/printf_cases.c"))
        .status();
    if compiled.is_ok_and(|status| status.success()) {
        let output = Command::new(&binary).arg("8").output().expect("runs");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            committed,
            "the host C library prints what printf_cases.expected holds (scripts/golden/printf.sh)"
        );
    }
    committed
}

#[test]
fn printf_prints_what_the_host_c_library_prints() {
    let expected = expected_printf();
    for arch in FILES {
        let module = module(arch);
        // Two CTAs of four threads: the output is by CTA, then thread, then call order.
        let report = module
            .launch(
                "printf_formats",
                [2, 1, 1],
                [4, 1, 1],
                &mut [Arg::S32(8)],
                &LaunchOptions::default(),
            )
            .unwrap_or_else(|error| panic!("{arch}: {error}"));
        let printed = String::from_utf8(report.printed_bytes()).expect("ASCII");
        for (line, (actual, wanted)) in printed.lines().zip(expected.lines()).enumerate() {
            assert_eq!(actual, wanted, "{arch}: line {}", line + 1);
        }
        assert_eq!(printed, expected, "{arch}");
        assert_eq!(report.printed.len(), 80);
        assert_eq!(report.printed[10].cta, [0, 0, 0]);
        assert_eq!(report.printed[10].thread, [1, 0, 0]);
        assert_eq!(report.printed[40].cta, [1, 0, 0]);
        assert_eq!(report.printed_dropped, 0);
    }
}

#[test]
fn printf_returns_the_number_of_arguments() {
    for arch in FILES {
        let mut out = vec![0u8; 4 * 3 * 2];
        let report = module(arch)
            .launch(
                "printf_returns",
                [1, 1, 1],
                [2, 1, 1],
                &mut [Arg::Buffer(&mut out), Arg::S32(2)],
                &LaunchOptions::default(),
            )
            .unwrap_or_else(|error| panic!("{arch}: {error}"));
        assert_eq!(words::<4>(&out), [0, 3, 2, 0, 3, 2], "{arch}");
        assert_eq!(
            String::from_utf8(report.printed_bytes()).unwrap(),
            "no arguments\n0 x 1.000000\n   0\nno arguments\n1 x 1.000000\n   1\n"
        );
    }
}

#[test]
fn a_failed_assert_is_an_assertion_error_with_the_gpu_message() {
    for arch in FILES {
        let mut input: Vec<u8> = [1i32, 2, 3, 7, 5, 7]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let error = module(arch)
            .launch(
                "assert_not_seven",
                [2, 1, 1],
                [3, 1, 1],
                &mut [Arg::Buffer(&mut input), Arg::S32(6)],
                &LaunchOptions::default(),
            )
            .unwrap_err();
        assert!(error.is_assertion(), "{arch}: {error:?}");
        let Error::Run {
            outcome: Some(Outcome::AssertionFailed { message, location }),
            cta,
            thread,
            ..
        } = &error
        else {
            panic!("{arch}: {error:?}");
        };
        // The first failing thread in (CTA, thread) order: in[3] is thread 0 of CTA 1.
        assert_eq!((*cta, *thread), ([1, 0, 0], [0, 0, 0]));
        assert_eq!(
            message,
            "devrt.cu:29: void assert_not_seven(const int *, int): block: [1,0,0], thread: \
             [0,0,0] Assertion `in[i] != 7` failed."
        );
        // The call of __assertfail.
        let source =
            std::fs::read_to_string(repo().join(format!("ptx-samples/nvcc/devrt.{arch}.ptx")))
                .unwrap();
        let line = source.lines().nth(location.line as usize - 1).unwrap();
        assert!(
            line.contains("call"),
            "{arch}: line {}: {line}",
            location.line
        );
        assert!(
            error
                .to_string()
                .ends_with("Assertion `in[i] != 7` failed.")
        );
        // No 7: the launch completes.
        let mut fine: Vec<u8> = [1i32, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
        module(arch)
            .launch(
                "assert_not_seven",
                [1, 1, 1],
                [2, 1, 1],
                &mut [Arg::Buffer(&mut fine), Arg::S32(2)],
                &LaunchOptions::default(),
            )
            .unwrap();
    }
}

#[test]
fn malloc_and_free_use_the_device_heap() {
    for arch in FILES {
        let mut out = vec![0u8; 8 * 64];
        module(arch)
            .launch(
                "heap_sum",
                [2, 1, 1],
                [32, 1, 1],
                &mut [Arg::S32(5), Arg::Buffer(&mut out)],
                &LaunchOptions::default(),
            )
            .unwrap_or_else(|error| panic!("{arch}: {error}"));
        let expected: Vec<u64> = (0..64).map(|i| ((10 + 5 * i) << 1) | 1).collect();
        assert_eq!(words::<8>(&out), expected, "{arch}");
    }
}

#[test]
fn malloc_returns_null_when_the_heap_is_exhausted() {
    let module = module("sm_90");
    // 1 MiB each: 8 fit in the 8 MiB heap, 16-byte aligned, one after the other.
    let mut out = vec![0u8; 8 * 10];
    module
        .launch(
            "heap_exhaust",
            [1, 1, 1],
            [10, 1, 1],
            &mut [Arg::U64(1 << 20), Arg::Buffer(&mut out)],
            &LaunchOptions::default(),
        )
        .unwrap();
    let addresses = words::<8>(&out);
    let expected: Vec<u64> = (0..10)
        .map(|i| if i < 8 { HEAP_BASE + i * (1 << 20) } else { 0 })
        .collect();
    assert_eq!(addresses, expected);
    assert_eq!(HEAP_BYTES, 8 << 20);
    // Too large for the heap at all, or a size that overflows when rounded: NULL.
    for bytes in [HEAP_BYTES + 1, u64::MAX] {
        let mut out = vec![0u8; 8];
        module
            .launch(
                "heap_exhaust",
                [1, 1, 1],
                [1, 1, 1],
                &mut [Arg::U64(bytes), Arg::Buffer(&mut out)],
                &LaunchOptions::default(),
            )
            .unwrap();
        assert_eq!(words::<8>(&out), [0]);
    }
}

#[test]
fn nanosleep_and_the_clocks_run() {
    for arch in FILES {
        let mut out = vec![0u8; 24];
        module(arch)
            .launch(
                "sleep_clock",
                [1, 1, 1],
                [1, 1, 1],
                &mut [Arg::Buffer(&mut out)],
                &LaunchOptions::default(),
            )
            .unwrap_or_else(|error| panic!("{arch}: {error}"));
        let [elapsed, clock, timer] = words::<8>(&out)[..] else {
            panic!()
        };
        // Step counts: the clocks count the thread's instructions issued before the reading.
        assert!(
            elapsed > 0 && clock > 0 && timer >= clock,
            "{arch}: {elapsed} {clock} {timer}"
        );
        assert!(elapsed < 20, "{arch}: {elapsed}");
    }
}

/// A kernel that calls vprintf with the format and argument pointers it is given, and returns
/// what vprintf returned in `out`.
const RAW_VPRINTF: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.extern .func free (.param .b64 free_param_0);
.global .align 1 .b8 fmt_s[4] = {37, 115, 10, 0};
.global .align 1 .b8 unterminated[3] = {65, 66, 67};
.visible .entry raw(.param .u64 format, .param .u64 args, .param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [format];
    ld.param.u64 %rd2, [args];
    ld.param.u64 %rd3, [out];
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd1;
    .param .b64 param1;
    st.param.b64 [param1+0], %rd2;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r1, [retval0+0];
    }
    st.global.u32 [%rd3], %r1;
    ret;
}
.visible .entry bad_free(.param .u64 pointer)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [pointer];
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd1;
    call.uni free, (param0);
    }
    ret;
}
"#;

/// Runs `raw` with these pointers: what vprintf returned and printed, or the error.
fn raw(format: u64, args: u64) -> Result<(i32, String), Error> {
    let module = Module::load(RAW_VPRINTF, &Options::default()).expect("loads");
    let mut out = [0u8; 4];
    let report = module.launch(
        "raw",
        [1, 1, 1],
        [1, 1, 1],
        &mut [Arg::U64(format), Arg::U64(args), Arg::Buffer(&mut out)],
        &LaunchOptions::default(),
    )?;
    Ok((
        i32::from_le_bytes(out),
        String::from_utf8(report.printed_bytes()).unwrap(),
    ))
}

#[test]
fn bad_pointers_are_located_traps_and_runaway_strings_stop() {
    // The module's .global variables start at GLOBAL_BASE in declaration order, each at a
    // multiple of 256 with at least 256 unmapped bytes after it.
    let global = ptxsim_exec::memory::GLOBAL_BASE;
    let (format_s, unterminated) = (global, global + 512);
    // A null format: -1, nothing printed.
    assert_eq!(raw(0, 0).unwrap(), (-1, String::new()));
    // A format pointer no buffer holds: a trap at the call's line.
    let error = raw(0x1234_5678, 0).unwrap_err();
    let Error::Run {
        outcome: Some(Outcome::Trapped { message, location }),
        ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert!(
        message.starts_with("address outside every buffer"),
        "{message}"
    );
    assert_eq!(location.line, 22, "{error}");
    // A format string without a NUL ends with its buffer.
    assert_eq!(raw(unterminated, 0).unwrap(), (0, "ABC".to_string()));
    // `%s` with an argument buffer at a null address: a located trap (the argument's load).
    let error = raw(format_s, 0).unwrap_err();
    assert!(error.to_string().contains("null address"), "{error}");
}

#[test]
fn freeing_what_malloc_did_not_return_traps() {
    let module = Module::load(RAW_VPRINTF, &Options::default()).expect("loads");
    let error = module
        .launch(
            "bad_free",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::U64(HEAP_BASE + 16)],
            &LaunchOptions::default(),
        )
        .unwrap_err();
    assert!(
        error.to_string().contains("not a block malloc returned"),
        "{error}"
    );
    // free(NULL) does nothing.
    module
        .launch(
            "bad_free",
            [1, 1, 1],
            [1, 1, 1],
            &mut [Arg::U64(0)],
            &LaunchOptions::default(),
        )
        .unwrap();
}
