//! The compiled tier against the interpreter: every sample kernel of `tests/kernels/` (the
//! nvcc kernels of `ptx-samples/cuda/`, whose outputs `ptxsim-exec`'s `kernels.rs` checks
//! against host references) runs on both tiers with the same inputs; the output buffers, the
//! step counts, the failures and the inspected thread's registers must be identical.

use std::path::{Path, PathBuf};

use ptxsim_exec::grid::{self, Argument, ArgumentSpec, GridOptions};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn arguments(case: &serde_json::Value) -> Vec<Argument> {
    case["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(
            |a| match ArgumentSpec::parse(a.as_str().unwrap()).unwrap() {
                ArgumentSpec::Scalar { ty, bits } => Argument::Scalar { ty, bits },
                ArgumentSpec::File(path) => Argument::Buffer(read(path.to_str().unwrap())),
                ArgumentSpec::Zeros(n) => Argument::Buffer(vec![0; n as usize]),
            },
        )
        .collect()
}

/// What a run left: steps, failure, the inspected thread, and every buffer.
type Run = (u64, String, Option<(Vec<u128>, u64)>, Vec<Vec<u8>>);

fn launch(
    program: &ptxsim_exec::Program,
    case: &serde_json::Value,
    compiled: Option<&std::sync::Arc<ptxsim_jit::Kernel>>,
) -> Run {
    let dims = |key: &str| -> [u32; 3] {
        let v = case[key].as_array().unwrap();
        [0, 1, 2].map(|i| v[i].as_u64().unwrap() as u32)
    };
    let (mut device, addresses) = grid::prepare(
        program,
        dims("grid"),
        dims("block"),
        100_000,
        arguments(case),
    )
    .unwrap();
    device
        .set_dynamic_shared(case["dynamic_shared"].as_u64().unwrap_or(0))
        .unwrap();
    if let Some(kernel) = compiled {
        device.set_compiled(kernel.clone());
    }
    let run = grid::run_grid(&device, GridOptions::default(), None, None);
    let buffers = addresses
        .iter()
        .flatten()
        .map(|&address| {
            device
                .global
                .buffer_at(address)
                .map(|b| b.contents())
                .unwrap_or_default()
        })
        .collect();
    let inspected = run
        .inspected
        .as_ref()
        .map(|i| (i.registers.clone(), i.steps));
    (run.steps, format!("{:?}", run.failure), inspected, buffers)
}

#[test]
fn every_sample_kernel_runs_the_same_on_both_tiers() {
    let manifest: serde_json::Value =
        serde_json::from_slice(&read("tests/kernels/manifest.json")).expect("manifest parses");
    let (mut compared, mut covered, mut instructions, mut kept) = (0, 0, 0, Vec::new());
    for case in manifest["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().unwrap();
        let entry = case["entry"].as_str().unwrap();
        let ptx = case["ptx"][0].as_str().unwrap();
        let source = String::from_utf8(read(ptx)).unwrap();
        let program = ptxsim_exec::load(&source, Some(entry)).expect("the sample loads");
        if let Some(reason) = ptxsim_jit::keeps_interpreter(&program) {
            kept.push(format!("{name} ({reason})"));
            continue;
        }
        let kernel = ptxsim_jit::compile_shared(&program).unwrap_or_else(|e| panic!("{name}: {e}"));
        covered += kernel.stats().covered;
        instructions += kernel.stats().instructions;
        let interpreted = launch(&program, case, None);
        let compiled = launch(&program, case, Some(&kernel));
        assert_eq!(interpreted.0, compiled.0, "{name}: step counts");
        assert_eq!(interpreted.1, compiled.1, "{name}: failures");
        assert_eq!(interpreted.2, compiled.2, "{name}: the inspected thread");
        assert!(interpreted.3 == compiled.3, "{name}: output buffers differ");
        assert!(interpreted.0 > 0, "{name}: nothing ran");
        compared += 1;
    }
    eprintln!(
        "{compared} kernels compared; {covered} of {instructions} instructions compiled; \
         kept in the interpreter: {kept:?}"
    );
    assert!(compared >= 45, "{compared} kernels compared");
}
