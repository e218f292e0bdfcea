//! The C ABI as C and Python callers use it: `tests/c/ptx_run.c`, compiled with the system C
//! compiler (`$CC` or `cc`), and `tests/python/ptx_run_mock.py` (tinygrad's mock-GPU call,
//! stdlib only), each loading `libptxsim_ocelot.so` by path. Either is skipped, with a note on
//! stderr, where its compiler or interpreter is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../tests/c/harness.rs"]
mod harness;
use harness::repository;

/// The cdylib cargo built for this crate.
fn library() -> PathBuf {
    harness::library("ptxsim_ocelot")
}

fn run(command: &mut Command) -> (bool, String, String) {
    let output = command.output().expect("the program runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn c_program_runs_kernels_on_host_buffers_and_survives_errors() {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ptx_run_c");
    let compiled = Command::new(&cc)
        .arg("-std=c11")
        .arg("-Wall")
        .arg("-O1")
        .arg(repository().join("tests/c/ptx_run.c"))
        .arg("-o")
        .arg(&out)
        .arg("-ldl")
        .output();
    let compiled = match compiled {
        Ok(output) => output,
        Err(error) => {
            eprintln!("skipped: no C compiler `{cc}` ({error})");
            return;
        }
    };
    assert!(
        compiled.status.success(),
        "{cc} failed:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let (ok, stdout, stderr) = run(Command::new(&out).arg(library()));
    assert!(ok, "ptx_run.c failed:\n{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), "ok");
    // Every failure is printed, located, with the prefix callers can look for.
    assert!(
        stderr.contains("ptxsim: ptx_run: the module does not check:\n7:5: error["),
        "{stderr}"
    );
}

#[test]
fn python_ctypes_call_as_tinygrads_mock() {
    let script = repository().join("tests/python/ptx_run_mock.py");
    let result = Command::new("python3")
        .arg(&script)
        .env("OCELOT_PATH", library())
        .output();
    let output = match result {
        Ok(output) => output,
        Err(error) => {
            eprintln!("skipped: no python3 ({error})");
            return;
        }
    };
    assert!(
        output.status.success(),
        "{}:\n{}\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
