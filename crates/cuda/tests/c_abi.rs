//! The driver API as its callers use it:
//! - `tests/c/driver_api.c`, compiled with the system C compiler (`$CC` or `cc`) and linked
//!   with `-lcuda` against the `libcuda.so` cargo built for this crate, then run with only a
//!   `libcuda.so.1` link to it (the library's SONAME) on `LD_LIBRARY_PATH`. The test fails, saying so, where no C compiler
//!   can be run.
//! - `scripts/cuda_ctypes_smoke.py`, Python's ctypes making tinygrad's calls
//!   (`runtime/ops_cuda.py`) on the library named by `CUDA_PATH`; skipped, with a note on
//!   stderr, where there is no `python3`.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../tests/c/harness.rs"]
mod harness;
use harness::repository;

/// The cdylib cargo built for this crate.
fn library() -> PathBuf {
    harness::library("cuda")
}

/// A directory of this test's own holding a link `name` to the library.
fn library_link(directory: &str, name: &str) -> PathBuf {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join(directory);
    std::fs::create_dir_all(&directory).expect("a directory for the library link");
    let link = directory.join(name);
    // A link from an earlier run may point elsewhere.
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(library(), &link).expect("a link to the library");
    directory
}

/// Compiles `tests/c/NAME.c` linked against `libcuda.so` (a link to the library); returns the
/// program and a directory holding only `libcuda.so.1`, to run it with: the program finds the
/// library by its SONAME, as it would NVIDIA's.
fn compile_against_libcuda(name: &str) -> (PathBuf, PathBuf) {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let link_directory = library_link(&format!("{name}_link"), "libcuda.so");
    let run_directory = library_link(&format!("{name}_run"), "libcuda.so.1");
    let program = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let compiled = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg(repository().join(format!("tests/c/{name}.c")))
        .arg("-o")
        .arg(&program)
        .arg("-L")
        .arg(&link_directory)
        .arg("-lcuda")
        .output()
        .unwrap_or_else(|error| {
            panic!(
                "the C compiler `{cc}` cannot be run ({error}): this test needs one (install a \
                 C compiler, or set CC)"
            )
        });
    assert!(
        compiled.status.success(),
        "{cc} failed:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    (program, run_directory)
}

/// Runs a compiled C test program with the library on `LD_LIBRARY_PATH`, `args`, and `env` over
/// an environment without ptxsim's settings (so that the caller's `PTXSIM_*` cannot change
/// it); its stdout and stderr as text, and whether it succeeded.
fn run_c_program(
    program: &Path,
    run_directory: &Path,
    args: &[PathBuf],
    env: &[(&str, &str)],
) -> (bool, String, String, String) {
    let mut command = Command::new(program);
    command.args(args).env("LD_LIBRARY_PATH", run_directory);
    for name in [
        "PTXSIM_TARGET",
        "PTXSIM_DEVICE",
        "PTXSIM_MAX_STEPS",
        "PTXSIM_DEVICE_MEMORY",
        "PTXSIM_ALLOCATION_SLACK",
        "PTXSIM_DEVICE_COUNT",
        "PTXSIM_LOG",
    ] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    let output = command.output().expect("the program runs");
    (
        output.status.success(),
        output.status.to_string(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn c_program_uses_the_driver_api() {
    let (program, run_directory) = compile_against_libcuda("driver_api");
    let (success, status, stdout, stderr) = run_c_program(
        &program,
        &run_directory,
        &[repository().join("ptx-samples/nvcc/block.sm_90.ptx")],
        &[],
    );
    assert!(
        success,
        "driver_api.c failed ({status}):\n{stdout}\n{stderr}"
    );
    assert!(stdout.ends_with("ok\n"), "{stdout}");
    // The timing line, for `cargo test -- --nocapture`.
    for line in stdout.lines().filter(|line| line.starts_with("timing:")) {
        eprintln!("{line}");
    }
    // Every failure is on stderr with the call's name and the code's; invalid PTX and a
    // fault with their locations.
    for expected in [
        "ptxsim: cuModuleLoadData: CUDA_ERROR_INVALID_PTX: the module does not check:\n6:5: \
         error[E0300]: `frobnicate` is not the name of any PTX instruction",
        "ptxsim: cuModuleGetFunction: CUDA_ERROR_NOT_FOUND: the module has no kernel \
         `no_such_kernel`",
        "ptxsim: kernel launch: CUDA_ERROR_ILLEGAL_ADDRESS: kernel `poke`: 11:5: trap: \
         out-of-bounds address: 4-byte global store",
        "ptxsim: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS",
    ] {
        assert!(stderr.contains(expected), "`{expected}` not in:\n{stderr}");
    }
}

/// `PTXSIM_LOG=profile`: a profile line per launch that finished. driver_api.c's `poke` (one
/// thread; from its PTX: `ld.param.u64` twice, then `add.s64`, `mov.u32`, `st.global.u32`,
/// `ret` once each) is small, so the interpreter issues all six instructions, and no compiled
/// code hands a thread back; its last launch (of four) fails and has no profile.
#[test]
fn launches_are_profiled() {
    let (program, run_directory) = compile_against_libcuda("driver_api");
    let (success, status, stdout, stderr) = run_c_program(
        &program,
        &run_directory,
        &[repository().join("ptx-samples/nvcc/block.sm_90.ptx")],
        &[("PTXSIM_LOG", "profile")],
    );
    assert!(
        success,
        "driver_api.c failed ({status}):\n{stdout}\n{stderr}"
    );
    let pokes: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("ptxsim: profile of launch ") && line.contains("`poke`"))
        .collect();
    assert_eq!(pokes.len(), 3, "{stderr}");
    for line in pokes {
        assert!(
            line.ends_with(
                "`poke`: 6 instructions, 6 interpreted (100.0%); most interpreted: \
                 [ld.param.u64 2, add.s64 1, mov.u32 1]; handed back by compiled code at: []"
            ),
            "{line}"
        );
    }
    assert!(
        !stderr.contains("ptxsim: launch "),
        "no launch lines without `launches`"
    );
}

/// `PTXSIM_LOG=launches`: a line per launch on stderr with the kernel, its shape, what it ran
/// and which tier ran it, also for a launch that failed (driver_api.c's launches: shapes from
/// its source).
#[test]
fn launches_are_logged() {
    let (program, run_directory) = compile_against_libcuda("driver_api");
    let (success, status, stdout, stderr) = run_c_program(
        &program,
        &run_directory,
        &[repository().join("ptx-samples/nvcc/block.sm_90.ptx")],
        &[("PTXSIM_LOG", "launches")],
    );
    assert!(
        success,
        "driver_api.c failed ({status}):\n{stdout}\n{stderr}"
    );
    let logged: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("ptxsim: launch "))
        .collect();
    let histogram = logged
        .iter()
        .find(|line| line.contains("`histogram256` grid (4, 1, 1) block (256, 1, 1): "))
        .unwrap_or_else(|| panic!("no histogram256 launch in:\n{stderr}"));
    assert!(
        histogram.contains(" in 4 CTAs, ")
            && histogram.ends_with(
                "; interpreter (its launches so far are small: below 2^22 instructions (threads x instructions, or as issued))"
            ),
        "{histogram}"
    );
    // driver_api.c's `poke` issues six instructions (ld, ld, add, mov, st, ret); its first
    // launch writes just before an allocation (D60), its last out of bounds.
    let pokes: Vec<&&str> = logged
        .iter()
        .filter(|line| line.contains("`poke`"))
        .collect();
    assert_eq!(pokes.len(), 4, "{stderr}");
    assert!(
        pokes[1].contains(": 6 instructions in 1 CTAs, "),
        "{}",
        pokes[1]
    );
    assert!(
        pokes[3].contains(": failed after ") && pokes[3].contains("out-of-bounds address"),
        "{}",
        pokes[3]
    );
    // Indices count the process's launches from 0, one line each.
    for (index, line) in logged.iter().enumerate() {
        assert!(
            line.starts_with(&format!("ptxsim: launch {index} `")),
            "{line}"
        );
    }
}

/// `tests/c/link.c`: the JIT linker (`cuLink*`) on two PTX inputs linked by name, a fatbin
/// file, and the errors (machine code, a missing file, PTX that does not check), each also in
/// the error log buffer.
#[test]
fn c_program_uses_the_jit_linker() {
    let (program, run_directory) = compile_against_libcuda("link");
    let (success, status, stdout, stderr) = run_c_program(
        &program,
        &run_directory,
        &[
            repository().join("tests/fatbin/add.none.fatbin"),
            repository().join("tests/fatbin/add.sass.fatbin"),
        ],
        &[],
    );
    assert!(
        success && stdout.ends_with("ok\n"),
        "link.c failed ({status}):\n{stdout}\n{stderr}"
    );
    for expected in [
        "ptxsim: cuLinkAddData_v2: CUDA_ERROR_NO_BINARY_FOR_GPU: k.cubin: a cubin (machine code",
        "ptxsim: cuLinkComplete: CUDA_ERROR_INVALID_PTX: the module does not check:",
    ] {
        assert!(stderr.contains(expected), "`{expected}` not in:\n{stderr}");
    }
}

/// `tests/c/multi_device.c` with `PTXSIM_DEVICE_COUNT=2` (two devices: contexts, memory,
/// peer access, copies between them), then with `PTXSIM_DEVICE_COUNT=9` (refused by cuInit).
#[test]
fn c_program_uses_two_devices() {
    let (program, run_directory) = compile_against_libcuda("multi_device");
    for (count, argument, expected) in [
        (
            "2",
            "good",
            "ptxsim: kernel launch: CUDA_ERROR_ILLEGAL_ADDRESS",
        ),
        (
            "9",
            "bad",
            "ptxsim: cuInit: CUDA_ERROR_INVALID_VALUE: PTXSIM_DEVICE_COUNT=`9`: 1 to 8 devices",
        ),
    ] {
        let (success, status, stdout, stderr) = run_c_program(
            &program,
            &run_directory,
            &[PathBuf::from(argument)],
            &[("PTXSIM_DEVICE_COUNT", count)],
        );
        assert!(
            success && stdout == "ok\n",
            "multi_device.c with PTXSIM_DEVICE_COUNT={count} failed ({status}):\n{stdout}\n{stderr}"
        );
        assert!(stderr.contains(expected), "`{expected}` not in:\n{stderr}");
    }
}

/// `tests/c/vmm.c`: virtual memory management (reservations, physical allocations mapped side
/// by side and twice, access, unmapping), each refusal on stderr as the call's failure.
#[test]
fn c_program_maps_virtual_memory() {
    let (program, run_directory) = compile_against_libcuda("vmm");
    let (success, status, stdout, stderr) = run_c_program(&program, &run_directory, &[], &[]);
    assert!(
        success && stdout == "ok\n",
        "vmm.c failed ({status}):\n{stdout}\n{stderr}"
    );
    for expected in [
        "ptxsim: cuMemCreate: CUDA_ERROR_INVALID_VALUE: size 0x201000 is not a multiple of the \
         granularity, 0x200000",
        "ptxsim: kernel launch: CUDA_ERROR_ILLEGAL_ADDRESS: kernel `fill`",
        "ptxsim: cuMemSetAccess: CUDA_ERROR_NOT_SUPPORTED: read-only mappings",
    ] {
        assert!(stderr.contains(expected), "`{expected}` not in:\n{stderr}");
    }
}

#[test]
fn python_ctypes_calls_as_tinygrad() {
    let script = repository().join("scripts/cuda_ctypes_smoke.py");
    let result = Command::new("python3")
        .arg(&script)
        .env("CUDA_PATH", library())
        .env_remove("PTXSIM_TARGET")
        .output();
    let output = match result {
        Ok(output) => output,
        Err(error) => {
            eprintln!("skipped: no python3 ({error})");
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.starts_with("ok"),
        "{}:\n{stdout}\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}
