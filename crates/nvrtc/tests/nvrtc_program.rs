//! An NVRTC program on ptxsim: `tests/c/nvrtc_cubin.c` compiles a kernel with NVIDIA's NVRTC
//! for `--gpu-architecture=sm_90` and loads what `nvrtcGetCUBIN` gives with
//! `cuModuleLoadData`, as cuda-samples' `*_nvrtc` programs do. It is compiled with the system
//! C compiler against NVIDIA's `nvrtc.h`, `cuda.h` and `libnvrtc.so.13`, linked with `-lcuda`
//! against ptxsim's `libcuda.so`, and run with only a `libcuda.so.1` link to it (and NVIDIA's
//! library directory, for NVRTC) on `LD_LIBRARY_PATH`:
//!
//! - with `libptxsim_nvrtc.so` in `LD_PRELOAD` the "cubin" is NVRTC's PTX, the kernel runs
//!   on ptxsim, and the program checks its results against its own host arithmetic;
//! - without it, NVRTC hands out an ELF cubin (what NVIDIA's library makes for sm_90), which
//!   ptxsim's `cuModuleLoadData` refuses with `CUDA_ERROR_INVALID_IMAGE` (200, `cuda.h`).
//!
//! This test needs NVIDIA's NVRTC and headers (from PyPI: `scripts/install-nvidia-tools.sh`,
//! which `.ci/run` runs; `PTXSIM_NVIDIA_ROOT` points elsewhere); without them it fails, saying
//! so, as `crates/cuda/tests/cuda_runtime.rs` does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../../../tests/c/harness.rs"]
mod harness;
use harness::repository;

/// NVIDIA's tools (`PTXSIM_NVIDIA_ROOT`, or `.nv` in the repository).
fn nvidia() -> PathBuf {
    let root = std::env::var_os("PTXSIM_NVIDIA_ROOT")
        .map_or_else(|| repository().join(".nv"), PathBuf::from)
        .join("nvidia/cu13");
    assert!(
        root.join("lib/libnvrtc.so.13").is_file() && root.join("include/nvrtc.h").is_file(),
        "this test needs NVIDIA's NVRTC and headers from PyPI at {}: run \
         scripts/install-nvidia-tools.sh (or set PTXSIM_NVIDIA_ROOT)",
        root.display()
    );
    root
}

/// A directory of this test's own holding a link `name` to ptxsim's `libcuda.so`.
fn driver_link(directory: &str, name: &str) -> PathBuf {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join(directory);
    std::fs::create_dir_all(&directory).expect("a directory for the library link");
    let link = directory.join(name);
    // A link from an earlier run may point elsewhere.
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(harness::library("cuda"), &link).expect("a link to the library");
    directory
}

/// Compiles `tests/c/nvrtc_cubin.c` (once per test process).
fn program() -> PathBuf {
    static PROGRAM: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PROGRAM
        .get_or_init(|| {
            let root = nvidia();
            let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
            let program = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvrtc_cubin");
            let compiled = Command::new(&cc)
                .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
                .arg("-I")
                .arg(root.join("include"))
                .arg(repository().join("tests/c/nvrtc_cubin.c"))
                .arg("-o")
                .arg(&program)
                .arg("-L")
                .arg(driver_link("nvrtc_cubin_link", "libcuda.so"))
                .arg("-lcuda")
                .arg(root.join("lib/libnvrtc.so.13"))
                .output()
                .unwrap_or_else(|error| {
                    panic!(
                        "the C compiler `{cc}` cannot be run ({error}): this test needs one \
                         (install a C compiler, or set CC)"
                    )
                });
            assert!(
                compiled.status.success(),
                "{cc} failed:\n{}",
                String::from_utf8_lossy(&compiled.stderr)
            );
            program
        })
        .clone()
}

/// Runs the program on ptxsim's `libcuda.so.1`, with `preload` in `LD_PRELOAD` if given.
fn run(preload: Option<&Path>) -> Output {
    // Made once: the tests run in parallel, and each would replace the other's link.
    static RUN_DIRECTORY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let run_directory =
        RUN_DIRECTORY.get_or_init(|| driver_link("nvrtc_cubin_run", "libcuda.so.1"));
    let directories = [run_directory.clone(), nvidia().join("lib")];
    let mut command = Command::new(program());
    command
        .env(
            "LD_LIBRARY_PATH",
            std::env::join_paths(directories).expect("library path"),
        )
        .env_remove("PTXSIM_LOG")
        .env_remove("LD_PRELOAD");
    if let Some(preload) = preload {
        command.env("LD_PRELOAD", preload);
    }
    command.output().expect("the program runs")
}

#[test]
fn an_nvrtc_program_that_loads_its_cubin_runs_with_the_preload() {
    let run = run(Some(&harness::library("ptxsim_nvrtc")));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success() && stdout.contains("starts with text") && stdout.ends_with("ok\n"),
        "the program failed ({}):\n{stdout}\n{stderr}",
        run.status
    );
}

#[test]
fn without_the_preload_the_cubin_is_machine_code_and_refused() {
    let run = run(None);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.code() == Some(3)
            && stdout.contains("starts with ELF")
            && stdout.contains("cuModuleLoadData returned 200")
            && stderr.contains("CUDA_ERROR_INVALID_IMAGE"),
        "expected the ELF cubin to be refused ({}):\n{stdout}\n{stderr}",
        run.status
    );
}
