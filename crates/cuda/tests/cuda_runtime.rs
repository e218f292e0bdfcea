//! Unmodified CUDA runtime programs on the library: `tests/cuda/runtime_features.cu`, built by
//! NVIDIA's nvcc the usual way (runtime API, a fatbin holding compute_90 PTX, compressed as
//! nvcc compresses by default), linked with the CUDA 13 runtime statically (nvcc's default)
//! and, a second time, with the shared `libcudart.so.13`, and run with only a `libcuda.so.1`
//! link to this library on `LD_LIBRARY_PATH`. The program checks every result against its
//! host's own computation; kernel `printf` lines are compared with the same lines printed by
//! the host's C library.
//!
//! A third build links the CUDA 12 runtime (`nvidia-cuda-runtime-cu12`, 12.9) statically
//! instead, the kernels compiled by the same nvcc: the runtimes of both major versions start
//! on the library (their export tables and integrity checks differ by version).
//!
//! A fourth test builds host objects with nvcc for the JIT linker's object and library inputs
//! (`tests/c/link.c`).
//!
//! These tests and `crates/nvrtc`'s are the ones that need NVIDIA's tools (nvcc and the CUDA
//! runtime, from PyPI: `scripts/install-nvidia-tools.sh`, which `.ci/run` runs); without them
//! they fail, saying so.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../tests/c/harness.rs"]
mod harness;
use harness::repository;

/// NVIDIA's tools (`PTXSIM_NVIDIA_ROOT`, or `.nv` in the repository).
fn nvidia() -> PathBuf {
    let root = std::env::var_os("PTXSIM_NVIDIA_ROOT")
        .map_or_else(|| repository().join(".nv"), PathBuf::from)
        .join("nvidia/cu13");
    assert!(
        root.join("bin/nvcc").is_file(),
        "this test needs NVIDIA's nvcc and CUDA runtime from PyPI at {}: run \
         scripts/install-nvidia-tools.sh (or set PTXSIM_NVIDIA_ROOT)",
        root.display()
    );
    root
}

/// A directory of this test's own holding only `libcuda.so.1`, a link to the library (made
/// once: the tests run in parallel, and each would replace the others' link).
fn driver_directory() -> PathBuf {
    static DIRECTORY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIRECTORY
        .get_or_init(|| {
            let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cuda_runtime_driver");
            std::fs::create_dir_all(&directory).expect("a directory for the library link");
            let link = directory.join("libcuda.so.1");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(harness::library("cuda"), &link)
                .expect("a link to the library");
            directory
        })
        .clone()
}

/// Builds `tests/cuda/NAME.cu` with nvcc for compute_90 PTX only and `extra` flags.
fn build(name: &str, output: &str, extra: &[&str]) -> PathBuf {
    build_sources(&[name], output, extra, &[])
}

/// Builds `tests/cuda/{source}.cu` for each source into one program with NVIDIA's nvcc
/// (compute_90 PTX in its fatbin), with `extra` options and then the `libraries` (`-l...`).
fn build_sources(sources: &[&str], output: &str, extra: &[&str], libraries: &[&str]) -> PathBuf {
    let root = nvidia();
    let program = Path::new(env!("CARGO_TARGET_TMPDIR")).join(output);
    let path = format!(
        "{}:{}",
        root.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let built = Command::new(root.join("bin/nvcc"))
        .env("PATH", path)
        .args(["-gencode", "arch=compute_90,code=compute_90"])
        .args(extra)
        .args(
            sources
                .iter()
                .map(|name| repository().join(format!("tests/cuda/{name}.cu"))),
        )
        .args(libraries)
        .arg("-o")
        .arg(&program)
        .output()
        .expect("nvcc runs");
    assert!(
        built.status.success(),
        "nvcc failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    program
}

/// Runs `program` with `command`'s settings (the library on `LD_LIBRARY_PATH` unless set
/// there), without the caller's `PTXSIM_LOG`, `PTXSIM_DEVICE_MEMORY`, `PTXSIM_TARGET` and
/// `PTXSIM_DEVICE`, checks that it printed `PASSED: 0 failed` and exited 0, and gives its stdout
/// and stderr.
fn run_passing(mut command: Command) -> (String, String) {
    if !command
        .get_envs()
        .any(|(name, _)| name == "LD_LIBRARY_PATH")
    {
        command.env("LD_LIBRARY_PATH", driver_directory());
    }
    let run = command
        .env_remove("PTXSIM_LOG")
        .env_remove("PTXSIM_DEVICE_MEMORY")
        .env_remove("PTXSIM_TARGET")
        .env_remove("PTXSIM_DEVICE")
        .output()
        .expect("the program runs");
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(
        run.status.success() && stdout.contains("PASSED: 0 failed"),
        "the program failed ({}):\n{stdout}\n{stderr}",
        run.status
    );
    (stdout, stderr)
}

/// Runs `program` on the library (and `more` library directories) and checks its report.
fn run_and_check(program: &Path, more: &[PathBuf]) {
    let mut directories = vec![driver_directory()];
    directories.extend(more.iter().cloned());
    let library_path = std::env::join_paths(&directories).expect("library path");
    let mut command = Command::new(program);
    command.env("LD_LIBRARY_PATH", library_path);
    let (stdout, stderr) = run_passing(command);
    // The kernel's printf lines, in the executor's order, equal the host's.
    let device: Vec<&str> = stdout
        .lines()
        .take_while(|line| *line != "expected:")
        .filter(|line| line.starts_with("device "))
        .collect();
    let expected: Vec<&str> = stdout
        .lines()
        .skip_while(|line| *line != "expected:")
        .skip(1)
        .take_while(|line| *line != "end of expected")
        .collect();
    assert_eq!(device.len(), 6, "{stdout}");
    assert_eq!(device, expected, "{stdout}");
    // The failed assert: the GPU's message on stderr and the driver's error.
    assert!(
        stderr.contains("block: [0,0,0], thread: [5,0,0] Assertion `x[i] < 100` failed.")
            && stderr.contains("CUDA_ERROR_ASSERT"),
        "{stderr}"
    );
}

/// `runtime_features` with the static cudart, built once for the tests that run it.
fn static_program() -> &'static Path {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| build("runtime_features", "runtime_features_static", &[]))
}

#[test]
fn runtime_program_with_the_static_cudart() {
    run_and_check(static_program(), &[]);
}

/// `PTXSIM_DEBUG=saxpy` stops the program at saxpy's launch in the debugger (commands from
/// `PTXSIM_DEBUG_SCRIPT`, the session on stderr); after `quit` the program goes on and passes
/// as without it. The expected launch shape and arguments are the program's source:
/// `saxpy<<<(n + 255) / 256, 256>>>(n, 3.0f, x, y)` with n = 1000, and the Itanium C++ ABI's
/// name of `saxpy(int, float, const float *, float *)`.
#[test]
fn a_launch_of_a_running_program_in_the_debugger() {
    let script = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cuda_runtime_debug_script");
    std::fs::write(
        &script,
        "block 1\nthread 5\nprint %ctaid.x\nprint %tid.x\nstep\nrestart\nprint %tid.x\nquit\n",
    )
    .expect("the script");
    let mut command = Command::new(static_program());
    command
        .env("PTXSIM_DEBUG", "saxpy")
        .env("PTXSIM_DEBUG_SCRIPT", &script);
    let (stdout, stderr) = run_passing(command);
    assert!(
        !stdout.contains("(ptxsim)"),
        "the session is on stderr:\n{stdout}"
    );
    for expected in [
        "kernel _Z5saxpyifPKfPf (grid 4x1x1, block 256x1x1)",
        "argument 0 _Z5saxpyifPKfPf_param_0: 0x000003e8 (1000)",
        "(ptxsim) block 1\nthread (0,0,0) of block (1,0,0)",
        "(ptxsim) thread 5\nthread (5,0,0) of block (1,0,0)",
        "(ptxsim) print %ctaid.x\n%ctaid.x = 0x00000001 (1)",
        "(ptxsim) print %tid.x\n%tid.x = 0x00000005 (5)",
    ] {
        assert!(stderr.contains(expected), "`{expected}` missing:\n{stderr}");
    }
    // Only the first launch of saxpy stops (the program launches it once), and only it.
    assert_eq!(
        stderr.matches("the program stops at this launch").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn runtime_program_with_the_shared_cudart() {
    // The wheel has `libcudart.so.13` only: the linker's `-lcudart` needs a `libcudart.so`.
    let links = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cuda_runtime_cudart");
    std::fs::create_dir_all(&links).expect("a directory for the link");
    let link = links.join("libcudart.so");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(nvidia().join("lib/libcudart.so.13"), &link).expect("a link");
    let program = build(
        "runtime_features",
        "runtime_features_shared",
        &["-cudart", "shared", "-L", &links.display().to_string()],
    );
    run_and_check(&program, &[nvidia().join("lib")]);
}

#[test]
fn runtime_program_with_the_cuda_12_static_cudart() {
    let cudart = nvidia().join("../cuda_runtime/lib/libcudart_static.a");
    assert!(
        cudart.is_file(),
        "this test needs the CUDA 12 runtime from PyPI (nvidia-cuda-runtime-cu12) at {}: run \
         scripts/install-nvidia-tools.sh",
        cudart.display()
    );
    let object = build("runtime_features", "runtime_features_cuda12.o", &["-c"]);
    let program = Path::new(env!("CARGO_TARGET_TMPDIR")).join("runtime_features_cuda12");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".to_string());
    let linked = Command::new(&cxx)
        .arg(&object)
        .arg("-o")
        .arg(&program)
        .arg(&cudart)
        .args(["-ldl", "-lpthread", "-lrt"])
        .output()
        .expect("the C++ compiler runs");
    assert!(
        linked.status.success(),
        "linking with the CUDA 12 runtime failed:\n{}",
        String::from_utf8_lossy(&linked.stderr)
    );
    run_and_check(&program, &[]);
}

/// The JIT linker's host-object inputs: `tests/fatbin/add.cu` compiled by nvcc into a host object
/// (`.nv_fatbin`), a relocatable one (`-rdc=true`: `__nv_relfatbin`) and an archive (`ar`) of the
/// latter, each linked by `tests/c/link.c` with `CU_JIT_INPUT_OBJECT` / `CU_JIT_INPUT_LIBRARY`
/// and its kernel run (the program checks the sums).
#[test]
fn jit_linker_takes_nvcc_objects_and_archives() {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cuda_runtime_link");
    std::fs::create_dir_all(&directory).expect("a directory for the objects");
    let object = |name: &str, extra: &[&str]| {
        let path = directory.join(name);
        let path_variable = format!(
            "{}:{}",
            nvidia().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let built = Command::new(nvidia().join("bin/nvcc"))
            .env("PATH", path_variable)
            .args(["-c", "-gencode", "arch=compute_90,code=compute_90"])
            .args(extra)
            .arg(repository().join("tests/fatbin/add.cu"))
            .arg("-o")
            .arg(&path)
            .output()
            .expect("nvcc runs");
        assert!(
            built.status.success(),
            "nvcc failed:\n{}",
            String::from_utf8_lossy(&built.stderr)
        );
        path
    };
    let plain = object("add.o", &[]);
    let relocatable = object("add_rdc.o", &["-rdc=true"]);
    let archive = directory.join("libadd.a");
    let _ = std::fs::remove_file(&archive);
    let archived = Command::new("ar")
        .arg("rcs")
        .arg(&archive)
        .arg(&relocatable)
        .output()
        .expect("ar runs (binutils)");
    assert!(archived.status.success(), "ar failed");
    // link.c is built as c_abi.rs builds it: -lcuda against a `libcuda.so` link.
    let link_directory = directory.join("lib");
    std::fs::create_dir_all(&link_directory).expect("a directory for the link");
    let link = link_directory.join("libcuda.so");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(harness::library("cuda"), &link).expect("a link to the library");
    let program = directory.join("link");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let compiled = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg(repository().join("tests/c/link.c"))
        .arg("-o")
        .arg(&program)
        .arg("-L")
        .arg(&link_directory)
        .arg("-lcuda")
        .output()
        .expect("the C compiler runs");
    assert!(
        compiled.status.success(),
        "{cc} failed:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let run = Command::new(&program)
        .arg(repository().join("tests/fatbin/add.none.fatbin"))
        .arg(repository().join("tests/fatbin/add.sass.fatbin"))
        .args([&plain, &relocatable, &archive])
        .env("LD_LIBRARY_PATH", driver_directory())
        .env_remove("PTXSIM_LOG")
        .output()
        .expect("the program runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success() && stdout.ends_with("ok\n"),
        "link.c failed ({}):\n{stdout}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
}

/// Dynamic parallelism: `tests/cuda/cdp_main.cu` and `cdp_kernels.cu`, relocatable device code
/// linked with NVIDIA's `libcudadevrt` (machine code, which ptxsim replaces with built-ins:
/// docs/executor.md, "Dynamic parallelism"); the parent in one translation unit launches the
/// kernels of the other. The program checks the results against its host's computation.
#[test]
fn dynamic_parallelism_program() {
    let program = build_sources(
        &["cdp_main", "cdp_kernels"],
        "cdp_program",
        &["-rdc=true"],
        &["-lcudadevrt"],
    );
    run_passing(Command::new(&program));
}

/// CUDA graphs' memory nodes, conditional nodes and 2D memsets on the library:
/// `tests/cuda/graph_features.cu`, built by NVIDIA's nvcc the usual way (runtime API, static
/// CUDA 13 runtime, a fatbin holding compute_90 PTX), run with only a `libcuda.so.1` link to
/// this library on `LD_LIBRARY_PATH`. The program checks every result against its host's own
/// computation or the behaviour the CUDA documentation gives the call, and prints
/// `PASSED: 0 failed`. Its kernels call `cudaGraphSetConditional`, which the executor runs as a
/// built-in.
#[test]
fn graph_memory_and_conditional_nodes_and_2d_memsets() {
    let program = build("graph_features", "graph_features", &[]);
    let (stdout, stderr) = run_passing(Command::new(&program));
    // An allocation node that depends on the free of an allocation of its graph reuses its
    // address (docs/driver-api.md, "Graph memory nodes").
    assert!(
        stdout.contains("the allocation after a free reuses its address: yes"),
        "{stdout}"
    );
    // The refused calls say why on stderr.
    for expected in [
        "is freed twice in the graph",
        "from an earlier launch is still live",
        "was not returned by a graph allocation node",
        "a conditional node of type IF with 3 bodies",
    ] {
        assert!(stderr.contains(expected), "`{expected}` not in:\n{stderr}");
    }
}

/// Six of the self-checking programs of `tests/cuda/programs` (`scripts/cuda/programs.sh`
/// runs them all), built the usual way (static CUDA 13 runtime, compute_90 PTX, C++17): device
/// functions that recurse and virtual functions (`virtual_recursion`), managed memory with
/// advice, prefetches and attached streams (`managed_memory`), stream-ordered allocation from
/// the default pool and a pool of the program's own (`memory_pools`), CUDA graphs, captured
/// and built, with a child graph node (`graphs`), launch errors as a GPU reports them
/// (`error_handling`: `cudaErrorInvalidConfiguration` for 2048 threads per block and 70,000
/// blocks along z, `cudaErrorAssert`), and launches without `<<<>>>` with `__launch_bounds__`
/// and the occupancy calls (`launch_api`). Each compares its results with what its host
/// computes (or, for errors, with the CUDA documentation's codes) and prints `NAME: PASS`.
#[test]
fn self_checking_programs() {
    let include = repository().join("tests/cuda/programs");
    let include = format!("-I{}", include.display());
    for name in [
        "virtual_recursion",
        "managed_memory",
        "memory_pools",
        "graphs",
        "error_handling",
        "launch_api",
    ] {
        let program = build(
            &format!("programs/{name}"),
            &format!("program_{name}"),
            &["-std=c++17", &include],
        );
        let run = Command::new(&program)
            .env("LD_LIBRARY_PATH", driver_directory())
            .env_remove("PTXSIM_LOG")
            .env_remove("PTXSIM_DEVICE_MEMORY")
            .env_remove("PTXSIM_TARGET")
            .env_remove("PTXSIM_DEVICE")
            .output()
            .expect("the program runs");
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && stdout.contains(&format!("{name}: PASS")),
            "{name} failed ({}):\n{stdout}\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        );
    }
}
