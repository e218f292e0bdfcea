//! CUDA graphs' memory nodes, conditional nodes and 2D memsets on the library:
//! `tests/cuda/graph_features.cu`, built by NVIDIA's nvcc the usual way (runtime API, static
//! CUDA 13 runtime, a fatbin holding compute_90 PTX), run with only a `libcuda.so.1` link to
//! this library on `LD_LIBRARY_PATH`. The program checks every result against its host's own
//! computation or the behaviour the CUDA documentation gives the call, and prints
//! `PASSED: 0 failed`. Its kernels call `cudaGraphSetConditional`, which the executor runs as a
//! built-in.
//!
//! Needs NVIDIA's tools as `cuda_runtime.rs` does (`scripts/install-nvidia-tools.sh`); without
//! them it fails, saying so.

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

/// A directory of this test's own holding only `libcuda.so.1`, a link to the library.
fn driver_directory() -> PathBuf {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cuda_graphs_driver");
    std::fs::create_dir_all(&directory).expect("a directory for the library link");
    let link = directory.join("libcuda.so.1");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(harness::library("cuda"), &link).expect("a link to the library");
    directory
}

#[test]
fn graph_memory_and_conditional_nodes_and_2d_memsets() {
    let root = nvidia();
    let program = Path::new(env!("CARGO_TARGET_TMPDIR")).join("graph_features");
    let path = format!(
        "{}:{}",
        root.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let built = Command::new(root.join("bin/nvcc"))
        .env("PATH", path)
        .args(["-gencode", "arch=compute_90,code=compute_90"])
        .arg(repository().join("tests/cuda/graph_features.cu"))
        .arg("-o")
        .arg(&program)
        .output()
        .expect("nvcc runs");
    assert!(
        built.status.success(),
        "nvcc failed:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(&program)
        .env("LD_LIBRARY_PATH", driver_directory())
        .env_remove("PTXSIM_LOG")
        .env_remove("PTXSIM_DEVICE_MEMORY")
        .env_remove("PTXSIM_TARGET")
        .output()
        .expect("the program runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success() && stdout.contains("PASSED: 0 failed"),
        "the program failed ({}):\n{stdout}\n{stderr}",
        run.status
    );
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
